"""The judge over the real AnthropicClient and the fake Messages API (httpx.MockTransport)."""

from __future__ import annotations

import pytest

from reviewbot.errors import ModelAPIError
from reviewbot.eval.bench import BenchmarkPR
from reviewbot.eval.judge import TOOL, Judge
from reviewbot.redact import Redactor
from tests.agent.factories import client_for
from tests.fakes.messages_api import FakeMessagesAPI, Reply, reply, text, tool_use
from tests.nodes.factories import make_node

PR = BenchmarkPR(
    pr_title="Payments",
    url="https://github.com/octo/app/pull/7",
    comments=(
        {"comment": "charge() rounds cents down", "severity": "High"},
        {"comment": "refund() ignores the currency", "severity": "Low"},
    ),
)
FINDING = make_node(title="Cents are truncated in charge()", body="int() drops the fraction.")


def answer(golden: object, reason: object = "same bug") -> Reply:
    return reply(tool_use(TOOL, {"golden": golden, "reason": reason}))


@pytest.fixture
def judged():
    """Judge FINDING with the given script; returns (judgement or error, the fake)."""

    def run(*script):
        fake = FakeMessagesAPI(script)
        judge = Judge(client_for(fake), model="claude-haiku-4-5", redactor=Redactor())
        try:
            outcome = judge.judge(FINDING, PR)
        except ModelAPIError as exc:
            outcome = exc
        fake.verify()
        return outcome, fake

    return run


class TestAnswers:
    def test_a_match_is_the_0_based_index_with_its_reason(self, judged):
        """`golden: 1` (as numbered in the prompt) is golden comment index 0."""
        judgement, _ = judged(answer(1))
        assert (judgement.golden, judgement.reason) == (0, "same bug")
        assert judgement.usage.requests == 1
        assert judgement.usage.cost_usd > 0

    def test_null_is_no_match(self, judged):
        """`golden: null` means no golden comment describes the finding."""
        judgement, _ = judged(answer(None, "different problem"))
        assert judgement.golden is None

    def test_the_request_forces_the_tool_and_carries_both_sides(self, judged):
        """tool_choice names the judge's only tool; golden comments and the finding are data blocks."""
        _, fake = judged(answer(2))
        sent = fake.requests[0]
        assert sent["tool_choice"] == {"type": "tool", "name": TOOL}
        assert [t["name"] for t in sent["tools"]] == [TOOL]
        golden, finding = sent["messages"][0]["content"]
        assert "#1 (High)" in golden["text"]
        assert "#2 (Low)" in golden["text"]
        assert '<untrusted_data kind="golden_comment">' in golden["text"]
        assert '<untrusted_data kind="finding">' in finding["text"]
        assert "Cents are truncated in charge()" in finding["text"]
        assert "src/app.py, line(s) 3" in finding["text"]


class TestBadAnswers:
    @pytest.mark.parametrize(
        ("bad", "problem"),
        [
            (answer(3), "from 1 to 2, not 3"),
            (answer(0), "from 1 to 2, not 0"),
            (answer("1"), "golden: Input should be a valid integer"),
            (answer(1, ""), "reason: String should have at least 1 character"),
            (reply(text("It matches #1.")), "must call record_judgement exactly once"),
        ],
        ids=["too-high", "zero", "string", "no-reason", "free-text"],
    )
    def test_an_invalid_answer_is_sent_back_and_retried(self, judged, bad, problem):
        """The judge reads what was wrong (an is_error result) and answers again."""
        judgement, fake = judged(bad, answer(1))
        assert judgement.golden == 0
        assert judgement.usage.requests == 2
        retry = fake.requests[1]["messages"][-1]["content"][0]
        assert problem in (retry.get("content") or retry.get("text"))

    def test_three_invalid_answers_fail_the_pr(self, judged):
        """No valid answer after three tries: an error naming the finding, never a guess."""
        error, _ = judged(answer(9), answer(9), answer(9))
        assert isinstance(error, ModelAPIError)
        assert "no valid answer for finding 'review-1'" in str(error)

    def test_a_refusal_is_not_retried(self, judged):
        """A refused request ends at once: the PR cannot be scored."""
        error, _ = judged(reply(text("I can't help with that."), stop_reason="refusal"))
        assert isinstance(error, ModelAPIError)
        assert "refused" in str(error)
