"""The LLM judge: does one finding describe the same issue as one of the PR's golden comments?

A separate conversation from the reviewers (the worker is not the judge), on
the same `ModelClient` seam: its own system prompt (strict; when in doubt, none), its
own single tool, and `tool_choice` forcing that tool, so the answer is a schema-checked
value — the matched golden comment's number or null, and why — never free text to
parse. One request per finding; the system prompt, the tool and the PR's golden
comments are the cached prefix, so every finding after the first reads them from the
cache. An answer that fails the schema (or names a number that does not exist) goes
back as an `is_error` tool result, and the judge may try again; after
`MAX_ATTEMPTS` the PR cannot be scored (`ModelAPIError`), never silently counted.

Must not: import `anthropic` (the client does), see the reviewers' conversation, or
score (score.py does).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from reviewbot.agent import pricing
from reviewbot.agent.messages import JSON, ModelClient, ModelRequest, ModelResponse
from reviewbot.agent.tokens import estimate_request
from reviewbot.errors import ModelAPIError
from reviewbot.eval.bench import BenchmarkPR
from reviewbot.nodes.boundary import explain
from reviewbot.nodes.model import ReviewNode
from reviewbot.redact import Redactor
from reviewbot.render import render
from reviewbot.results.run import Usage
from reviewbot.text import hygiene

TOOL = "record_judgement"
MAX_ATTEMPTS = 3
MAX_TOKENS = 1_024
_EPHEMERAL = {"type": "ephemeral"}


class JudgeAnswer(BaseModel):
    """Whether the finding describes the same underlying issue as one of the golden comments."""

    # The schema sent to the model and the validation of its answer; the docstring and the
    # descriptions are prompt text. `reason` comes first so the judge argues before it picks.
    model_config = ConfigDict(frozen=True, extra="forbid")

    reason: str = Field(
        strict=True,
        min_length=1,
        max_length=2_000,
        description="One or two sentences: the issue both describe, or why none is the same.",
    )
    golden: int | None = Field(
        strict=True,
        description="The number (#1, #2, …) of the golden comment that describes the same "
        "underlying issue as the finding, or null when none does.",
    )


@dataclass(frozen=True, slots=True, kw_only=True)
class Judgement:
    golden: int | None  # 0-based index into the PR's golden comments
    reason: str
    usage: Usage


def tool_spec() -> JSON:
    return {
        "name": TOOL,
        "description": "Record whether the finding matches one of the golden comments.",
        "input_schema": JudgeAnswer.model_json_schema(),
        "cache_control": _EPHEMERAL,
    }


class Judge:
    """Judges the findings of one run; `usage` is what it has spent so far."""

    def __init__(self, client: ModelClient, *, model: str, redactor: Redactor) -> None:
        self._client = client
        self.model = model
        self._redactor = redactor
        self._system = render("prompts/judge_system.j2", tool=TOOL)

    def judge(self, finding: ReviewNode, pr: BenchmarkPR) -> Judgement:
        """Which of `pr`'s golden comments `finding` describes, if any."""
        messages: list[JSON] = [
            {"role": "user", "content": [self._golden_block(pr), self._finding_block(finding)]}
        ]
        spent = Usage()
        problem = "no answer"
        for _ in range(MAX_ATTEMPTS):
            request = self._request(messages)
            response = self._client.create(request)
            spent = spent + self._usage(response, estimate_request(request))
            if response.stop_reason == "refusal":
                problem = "the judge refused to answer"
                break
            answer, problem = _read(response, count=len(pr.comments))
            if answer is not None:
                index = None if answer.golden is None else answer.golden - 1
                return Judgement(golden=index, reason=answer.reason, usage=spent)
            messages += _retry_turn(response, problem)
        raise ModelAPIError(
            f"the judge ({self.model}) gave no valid answer for finding {finding.id!r} of "
            f"{pr.url}: {problem}"
        )

    def _request(self, messages: Sequence[JSON]) -> ModelRequest:
        return ModelRequest(
            model=self.model,
            max_tokens=MAX_TOKENS,
            system=({"type": "text", "text": self._system, "cache_control": _EPHEMERAL},),
            tools=(tool_spec(),),
            messages=tuple(messages),
            tool_choice={"type": "tool", "name": TOOL},
        )

    def _golden_block(self, pr: BenchmarkPR) -> JSON:
        golden = [
            {
                "severity": c.severity.value,
                "text": hygiene.wrap(c.comment, kind="golden_comment", redactor=self._redactor),
            }
            for c in pr.comments
        ]
        title = hygiene.quoted(pr.pr_title, self._redactor)
        text = render("prompts/judge_golden.j2", title=title, url=pr.url, golden=golden)
        return {"type": "text", "text": text, "cache_control": _EPHEMERAL}

    def _finding_block(self, finding: ReviewNode) -> JSON:
        shown = hygiene.wrap(finding_text(finding), kind="finding", redactor=self._redactor)
        return {
            "type": "text",
            "text": render("prompts/judge_finding.j2", finding=shown, tool=TOOL),
        }

    def _usage(self, response: ModelResponse, estimate: int) -> Usage:
        used = response.usage
        return Usage(
            requests=1,
            estimated_input_tokens=estimate,
            input_tokens=used.input_tokens,
            output_tokens=used.output_tokens,
            cache_read_tokens=used.cache_read_tokens,
            cache_write_tokens=used.cache_write_tokens,
            cost_usd=pricing.cost_of(self.model, used).usd,
        )


def finding_text(finding: ReviewNode) -> str:
    """The finding as the judge reads it: what a person reading the review would see."""
    where = "the whole pull request"
    if finding.anchor is not None:
        a = finding.anchor
        lines = f"{a.start_line}" if a.start_line == a.end_line else f"{a.start_line}-{a.end_line}"
        where = f"{a.path}, line(s) {lines}"
    head = f"{finding.priority.value} {finding.kind.value}: {finding.title}\nWhere: {where}"
    return f"{head}\n\n{finding.body}".rstrip()


def _read(response: ModelResponse, *, count: int) -> tuple[JudgeAnswer | None, str]:
    """The judge's answer if it is valid, else what is wrong with it."""
    calls = [b for b in response.tool_uses if b.name == TOOL]
    if len(calls) != 1:
        return None, f"the reply must call {TOOL} exactly once ({len(calls)} calls)"
    try:
        answer = JudgeAnswer.model_validate(calls[0].input)
    except ValidationError as exc:
        return None, explain(exc, limit=1)
    if answer.golden is not None and not 1 <= answer.golden <= count:
        return None, f"golden must be null or a number from 1 to {count}, not {answer.golden}"
    return answer, ""


def _retry_turn(response: ModelResponse, problem: str) -> list[JSON]:
    """The judge's reply and the error it gets back, so it can answer again."""
    content = [b.to_param() for b in response.content] or [{"type": "text", "text": "(no reply)"}]
    # Every tool_use must be answered by a tool_result in the next message.
    results: list[JSON] = [
        {"type": "tool_result", "tool_use_id": b.id, "content": problem, "is_error": True}
        for b in response.tool_uses
    ] or [{"type": "text", "text": f"{problem}. Answer with {TOOL}."}]
    return [{"role": "assistant", "content": content}, {"role": "user", "content": results}]
