"""Scripted reviews through run_panel: real ReviewSession, real client, the fake Messages API."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from reviewbot.agent.panel import NO_CREDENTIALS, PanelOutcome, run_panel
from reviewbot.agent.progress import SilentProgress
from reviewbot.config.file import (
    DEFAULT_MODEL,
    BudgetConfig,
    ReviewConfig,
    ReviewerConfig,
    VerifierConfig,
)
from reviewbot.nodes.lifecycle import Action, Transition, apply
from reviewbot.nodes.model import Status
from reviewbot.redact import MASK, Redactor
from reviewbot.results.run import StopReason
from reviewbot.tools.ask_user import NoOperator
from reviewbot.verdict import Outcome, Verdict, finalize
from reviewbot.verdict.axes import VERIFIER_AXIS as VERIFIER
from tests.agent.factories import (
    HEAD,
    PATCH,
    FakeClock,
    Sleeps,
    client_for,
    file_diff,
    finalize_call,
    index,
    node,
    snapshot,
)
from tests.fakes.messages_api import (
    Failure,
    FakeMessagesAPI,
    overloaded,
    reply,
    text,
    tool_use,
    unauthorized,
)


@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    root = tmp_path / "head"
    (root / "src").mkdir(parents=True)
    (root / "src" / "calc.py").write_text(HEAD)
    return root


def review(
    checkout: Path,
    fake: FakeMessagesAPI | None,
    config: ReviewConfig | None = None,
    *,
    clock: FakeClock | None = None,
    sleeps: Sleeps | None = None,
    redactor: Redactor | None = None,
    carry: Any = None,
    parallel: int = 1,
) -> PanelOutcome:
    """One panel; `parallel=1` by default, so a flat script answers the agents in config order.

    Concurrent panels, with a script per agent, are tested in test_parallel.py.
    """
    config = config or ReviewConfig()
    budget = config.budget.model_copy(update={"max_parallel_agents": parallel})
    config = config.model_copy(update={"budget": budget})
    snap = snapshot(checkout, index(file_diff("src/calc.py", PATCH)), config=config)
    return run_panel(
        snap,
        config,
        client=client_for(fake, sleeps=sleeps) if fake is not None else None,
        operator=NoOperator(),
        redactor=redactor or Redactor(),
        progress=SilentProgress(),
        excluded=lambda path: False,
        clock=clock or FakeClock(),
        carry=carry,
    )


def verdict_of(outcome: PanelOutcome, config: ReviewConfig | None = None) -> Verdict:
    policy = (config or ReviewConfig()).policy.node_policy()
    return finalize(
        outcome.proposed, outcome.axes, outcome.nodes, policy, coverage_gap=None
    ).verdict


def last_results(request: dict[str, Any]) -> list[dict[str, Any]]:
    return [b for b in request["messages"][-1]["content"] if b.get("type") == "tool_result"]


class TestNormalReview:
    def test_nodes_finalize_and_verifier_confirmation(self, checkout, messages_api):
        """A reviewer adds a node and finalizes; the verifier confirms it; the verdict is Hold."""
        fake = messages_api(
            reply(text("divide() has no zero check."), tool_use("add_review_node", node("P1"))),
            reply(finalize_call("hold")),
            reply(
                tool_use(
                    "confirm_review_node",
                    {"id": "review-1", "reason": "line 7 divides by b unchecked"},
                )
            ),  # the only node it was given: the verifier's run ends with this turn
        )
        outcome = review(checkout, fake)
        [found] = outcome.nodes
        assert (found.id, found.author, found.status) == (
            "review-1",
            "review",
            Status.CONSENSUS_READY,
        )
        assert found.confirmed_by == (VERIFIER,)
        assert [(a.name, a.stop_reason) for a in outcome.agents] == [
            ("review", StopReason.FINALIZED),
            (VERIFIER, StopReason.FINALIZED),
        ]
        [axis] = outcome.axes
        assert (axis.name, axis.gated, axis.outcome) == ("review", True, Outcome.PASSED)
        assert outcome.proposals == (Verdict.HOLD,)
        assert [a.summary for a in outcome.agents] == ["One bug in divide().", None]
        assert verdict_of(outcome) is Verdict.HOLD
        assert outcome.usage.requests == 3
        assert outcome.coverage.files_in_context == 1

    def test_a_secret_in_the_summary_is_masked(self, checkout, messages_api):
        """The finalize_review summary kept on the report goes through the run's redactor."""
        secret = "s3cr3t-summary-value-1234"
        fake = messages_api(
            reply(tool_use("finalize_review", {"summary": f"key {secret}", "verdict": "ship"}))
        )
        outcome = review(checkout, fake, redactor=Redactor.of([secret]))
        assert outcome.agents[0].summary == f"key {MASK}"

    def test_the_verifier_is_given_its_role_and_the_nodes_after_the_context(
        self, checkout, messages_api
    ):
        """The verifier's first message: the reviewer's context block, then its role and the node."""
        fake = messages_api(
            reply(tool_use("add_review_node", node("P0"))),
            reply(text("done")),
            reply(text("Cannot settle it.")),
        )
        review(checkout, fake)
        reviewer, verifier = fake.requests[0], fake.requests[2]
        context, own = verifier["messages"][0]["content"]
        assert context == reviewer["messages"][0]["content"][0]
        assert "cache_control" not in own
        assert own["text"].startswith("# Your role\n\nYou are the verifier.")
        assert "## review-1 — P0 bug by review" in own["text"]
        assert 'At: "src/calc.py", lines 7–7' in own["text"]
        assert reviewer["messages"][0]["content"][1]["text"].startswith(
            "# Your role\n\nYou are a reviewer."
        )
        names = {t["name"] for t in verifier["tools"]}
        assert {"confirm_review_node", "dispute_review_node"} <= names
        assert verifier["tools"] == reviewer["tools"]

    def test_every_agent_sends_the_same_prefix_bytes(self, checkout, messages_api):
        """Reviewers, a focused reviewer and the verifier, on every turn: one tools+system+context prefix."""
        config = ReviewConfig(
            reviewers=(ReviewerConfig(name="security", brief="Look for injection."),)
        )
        fake = messages_api(
            reply(tool_use("read_file", {"path": "src/calc.py"})),
            reply(tool_use("add_review_node", node("P0"))),
            reply(finalize_call("hold")),
            reply(tool_use("read_file", {"path": "src/calc.py"})),
            reply(text("nothing more")),
            reply(tool_use("read_file", {"path": "src/calc.py"})),
            reply(tool_use("confirm_review_node", {"id": "review-1", "reason": "checked"})),
        )
        outcome = review(checkout, fake, config)
        assert [a.name for a in outcome.agents] == ["review", "security", VERIFIER]
        assert len(fake.requests) == 7
        prefixes = {
            json.dumps([r["tools"], r["system"], r["messages"][0]["content"][0]])
            for r in fake.requests
        }
        assert len(prefixes) == 1
        owns = [
            r["messages"][0]["content"][1]["text"]
            for r in (fake.requests[0], fake.requests[3], fake.requests[5])
        ]
        assert len(set(owns)) == 3  # the role, focus and nodes differ, after the prefix

    def test_the_verifier_reads_the_reviewers_prefix_from_the_cache(self, checkout, messages_api):
        """The fake's cache: the reviewer's first request writes the prefix, the verifier's reads all of it."""
        fake = messages_api(
            reply(tool_use("add_review_node", node("P0"))),
            reply(text("done")),
            reply(text("Cannot settle it.")),
        )
        outcome = review(checkout, fake)
        reviewer, verifier = outcome.agents
        assert (reviewer.usage.requests, verifier.usage.requests) == (2, 1)
        # The reviewer's first request wrote the prefix and its second read exactly that back;
        # the verifier's one request has breakpoints in the prefix only: it reads it all, writes 0.
        prefix = reviewer.usage.cache_read_tokens
        assert prefix > 0
        assert verifier.usage.cache_read_tokens == prefix
        assert verifier.usage.cache_write_tokens == 0

    def test_cached_prefix_is_stable_within_each_agent(self, checkout, messages_api):
        """Across one agent's turns, tools, system and the PR context bytes never change."""
        fake = messages_api(
            reply(tool_use("read_file", {"path": "src/calc.py"})),
            reply(tool_use("add_review_node", node("P2"))),
            reply(finalize_call("ship")),
        )
        review(checkout, fake)
        prefixes = {json.dumps([r["tools"], r["system"], r["messages"][0]]) for r in fake.requests}
        assert len(prefixes) == 1
        assert fake.stats.cache_read_tokens > 0


class TestModelMistakes:
    def test_tools_not_on_the_surface_get_an_error(self, checkout, messages_api):
        """Calls to write or execute tools are answered with an error naming the surface; nothing runs."""
        fake = messages_api(
            reply(
                tool_use("write_file", {"path": "src/calc.py", "content": "x"}),
                tool_use("run_command", {"cmd": "env"}),
            ),
            reply(text("I will only read, then.")),
        )
        outcome = review(checkout, fake)
        results = last_results(fake.requests[1])
        assert [r["is_error"] for r in results] == [True, True]
        assert all(
            "not a tool" in r["content"] or "does not exist" in r["content"] for r in results
        )
        assert (checkout / "src" / "calc.py").read_text() == HEAD
        assert outcome.axes[0].outcome is Outcome.PASSED
        assert outcome.agents[-1].stop_reason is StopReason.SKIPPED

    def test_malformed_node_gets_the_validation_error_then_succeeds(self, checkout, messages_api):
        """A node without confidence is refused with the reason; the corrected node is added."""
        bad = {k: v for k, v in node("P2").items() if k != "confidence"} | {"priority": "p2"}
        fake = messages_api(
            reply(tool_use("add_review_node", bad)),
            reply(tool_use("add_review_node", node("P2"))),
            reply(text("done")),
        )
        outcome = review(checkout, fake)
        [refused] = last_results(fake.requests[1])
        assert refused["is_error"] is True
        assert "confidence" in refused["content"]
        assert "priority" in refused["content"]
        assert [n.priority.value for n in outcome.nodes] == ["P2"]
        assert len(outcome.discarded) == 1

    def test_a_model_that_never_finalizes_passes_on_its_nodes(self, checkout, messages_api):
        """Ending the turn without finalize_review is a normal end: the axis is judged on its nodes."""
        fake = messages_api(
            reply(tool_use("add_review_node", node("P3"))),
            reply(text("That is all.")),
        )
        outcome = review(checkout, fake)
        assert outcome.agents[0].stop_reason is StopReason.END_TURN
        assert outcome.axes[0].outcome is Outcome.PASSED
        assert outcome.proposals == ()
        assert verdict_of(outcome) is Verdict.SHIP

    def test_the_author_cannot_confirm_its_own_node(self, checkout, messages_api):
        """The reviewer confirming its node, and the verifier confirming its own, are refused."""
        fake = messages_api(
            reply(
                tool_use("add_review_node", node("P1")),
                tool_use("confirm_review_node", {"id": "review-1", "reason": "I am sure"}),
            ),
            reply(text("done")),
            reply(tool_use("add_review_node", node("P1", title="Unchecked divisor in divide"))),
            reply(tool_use("confirm_review_node", {"id": "verifier-1", "reason": "mine"})),
            reply(text("done")),
        )
        outcome = review(checkout, fake)
        refused = last_results(fake.requests[1])[1]
        assert refused["is_error"] is True
        assert "a node's author never confirms it" in refused["content"]
        own = last_results(fake.requests[4])[0]
        assert own["is_error"] is True
        assert "refused: you raised verifier-1" in own["content"]
        assert {n.id: n.status for n in outcome.nodes} == {
            "review-1": Status.OPEN,
            "verifier-1": Status.OPEN,
        }


class TestVerifier:
    def test_confirming_and_disputing(self, checkout, messages_api):
        """A confirmed P0 fails the reviewer's axis (Block); the disputed one stays open with the dispute."""
        fake = messages_api(
            reply(
                tool_use("add_review_node", node("P0")),
                tool_use(
                    "add_review_node",
                    node("P0", title="parse() accepts None")
                    | {
                        "anchor": {
                            "path": "src/calc.py",
                            "start_line": 2,
                            "end_line": 3,
                            "quote": "    if value is None:\n        return 0",
                        }
                    },
                ),
            ),
            reply(finalize_call("hold")),
            reply(
                tool_use("confirm_review_node", {"id": "review-1", "reason": "b is never checked"}),
                tool_use(
                    "dispute_review_node", {"id": "review-2", "reason": "None is handled on line 2"}
                ),
            ),
        )
        outcome = review(checkout, fake)
        nodes = {n.id: n for n in outcome.nodes}
        assert nodes["review-1"].status is Status.CONSENSUS_READY
        assert nodes["review-2"].status is Status.OPEN
        assert [(d.by, d.reason) for d in nodes["review-2"].disputes] == [
            (VERIFIER, "None is handled on line 2")
        ]
        assert outcome.axes[0].outcome is Outcome.FAILED
        assert verdict_of(outcome) is Verdict.BLOCK

    def test_a_human_dismissal_applies_before_the_axis_is_judged(self, checkout, messages_api):
        """The verifier confirms the only P0; a maintainer's /dismiss (the carry) unblocks the axis."""
        fake = messages_api(
            reply(tool_use("add_review_node", node("P0"))),
            reply(text("One bug.")),
            reply(tool_use("confirm_review_node", {"id": "review-1", "reason": "b unchecked"})),
        )
        dismiss = Transition(action=Action.DISMISS, by="human:maintainer", reason="intended")
        outcome = review(checkout, fake, carry=lambda found: [apply(n, dismiss) for n in found])
        assert [n.status for n in outcome.nodes] == [Status.DISMISSED]
        assert outcome.axes[0].outcome is Outcome.PASSED
        assert verdict_of(outcome) is Verdict.SHIP

    def test_the_verifier_stops_once_every_node_it_was_given_is_judged(
        self, checkout, messages_api
    ):
        """Judging the last of its nodes ends the verifier's run: no request just to say it is done."""
        second = node("P1", title="parse() accepts None") | {
            "anchor": {
                "path": "src/calc.py",
                "start_line": 2,
                "end_line": 2,
                "quote": "    if value is None:",
            }
        }
        fake = messages_api(
            reply(tool_use("add_review_node", node("P1")), tool_use("add_review_node", second)),
            reply(finalize_call("hold")),
            reply(tool_use("confirm_review_node", {"id": "review-1", "reason": "b unchecked"})),
            reply(
                tool_use("dispute_review_node", {"id": "review-2", "reason": "handled on line 2"}),
                tool_use("read_file", {"path": "src/calc.py"}),  # the turn's other calls still run
            ),
        )
        outcome = review(checkout, fake)
        verifier = outcome.agents[-1]
        assert (verifier.stop_reason, verifier.turns) == (StopReason.FINALIZED, 2)
        assert len(fake.requests) == 4  # fake.verify(): no request after the last judgement
        # After the first judgement one node was still to judge: that result did not end the run.
        [first] = last_results(fake.requests[3])
        assert first["content"] == "confirmed review-1: it is now consensusReady"
        assert {n.id: n.status for n in outcome.nodes} == {
            "review-1": Status.CONSENSUS_READY,
            "review-2": Status.OPEN,
        }

    def test_a_verifier_that_ends_without_judging_its_nodes_holds(self, checkout, messages_api):
        """The verifier answers text (end_turn) and judges nothing: its P1 is unverified, Hold."""
        fake = messages_api(
            reply(tool_use("add_review_node", node("P1"))),
            reply(finalize_call("ship")),
            reply(text("Nothing here needs a judgement.")),
        )
        outcome = review(checkout, fake)
        assert outcome.agents[-1].stop_reason.completed
        [axis] = [a for a in outcome.axes if a.name == VERIFIER]
        assert (axis.outcome, axis.gated) == (Outcome.NOT_RUN, True)
        assert "1 finding(s) not verified" in axis.detail
        assert verdict_of(outcome) is Verdict.HOLD

    def test_a_refused_judgement_does_not_end_the_verifier(self, checkout, messages_api):
        """A judgement the store refuses (an unknown id) leaves the node to judge: the run goes on."""
        fake = messages_api(
            reply(tool_use("add_review_node", node("P0"))),
            reply(finalize_call("hold")),
            reply(tool_use("confirm_review_node", {"id": "review-9", "reason": "b unchecked"})),
            reply(tool_use("confirm_review_node", {"id": "review-1", "reason": "b unchecked"})),
        )
        outcome = review(checkout, fake)
        [refused] = last_results(fake.requests[3])
        assert refused.get("is_error") is True
        assert outcome.agents[-1].stop_reason is StopReason.FINALIZED
        assert outcome.nodes[0].status is Status.CONSENSUS_READY

    def test_a_reviewer_sees_only_its_own_nodes(self, checkout, messages_api):
        """Reviewers run side by side, so none sees a peer's nodes: the peer's id is unknown to
        it (the verifier and people confirm), and its run goes on."""
        config = ReviewConfig(reviewers=(ReviewerConfig(name="security"),))
        fake = messages_api(
            reply(tool_use("add_review_node", node("P2"))),
            reply(finalize_call("ship")),
            reply(tool_use("confirm_review_node", {"id": "review-1", "reason": "b unchecked"})),
            reply(finalize_call("hold")),
        )
        outcome = review(checkout, fake, config)
        security = outcome.agents[1]
        assert (security.name, security.turns) == ("security", 2)
        assert outcome.nodes[0].confirmed_by == ()
        assert "no review node" in last_results(fake.requests[3])[0]["content"]

    def test_skipped_without_high_priority_nodes(self, checkout, messages_api):
        """With only P2/P3 nodes the verifier does not run at all."""
        fake = messages_api(reply(tool_use("add_review_node", node("P2"))), reply(text("done")))
        outcome = review(checkout, fake)
        assert outcome.agents[-1].stop_reason is StopReason.SKIPPED
        assert len(fake.requests) == 2

    def test_disabled_verifier_leaves_nodes_open(self, checkout, messages_api):
        """A disabled verifier is skipped; an open P0 still holds the verdict."""
        config = ReviewConfig(verifier=VerifierConfig(enabled=False))
        fake = messages_api(reply(tool_use("add_review_node", node("P0"))), reply(text("done")))
        outcome = review(checkout, fake, config)
        assert outcome.agents[-1].stop_reason is StopReason.SKIPPED
        assert outcome.nodes[0].status is Status.OPEN
        assert verdict_of(outcome, config) is Verdict.HOLD


class TestFailures:
    def test_overloaded_then_success(self, checkout, messages_api):
        """A 529 is retried (no real sleep) and the review completes."""
        sleeps = Sleeps()
        fake = messages_api(overloaded(), reply(text("Clean.")))
        outcome = review(checkout, fake, sleeps=sleeps)
        assert sleeps.waits == [0.0]
        assert outcome.agents[0].stop_reason is StopReason.END_TURN
        assert outcome.axes[0].outcome is Outcome.PASSED

    def test_budget_hit_mid_review(self, checkout, messages_api):
        """Out of turns mid-review: the axis is not_run, the nodes already added stay, verdict ≥ Hold."""
        config = ReviewConfig(
            budget=BudgetConfig(max_turns=2), verifier=VerifierConfig(enabled=False)
        )
        fake = messages_api(
            reply(tool_use("add_review_node", node("P3"))),
            reply(tool_use("read_file", {"path": "src/calc.py"})),
        )
        outcome = review(checkout, fake, config)
        [axis] = outcome.axes
        assert axis.outcome is Outcome.NOT_RUN
        assert axis.detail.startswith("max_turns")
        assert [n.id for n in outcome.nodes] == ["review-1"]
        assert verdict_of(outcome, config) >= Verdict.HOLD

    def test_timeout_mid_review(self, checkout, messages_api):
        """The wall clock running out between turns stops the agent; its axis is not_run."""
        clock = FakeClock()

        def slow(request: dict[str, Any]):
            clock.now += 1_000
            return reply(tool_use("read_file", {"path": "src/calc.py"}))

        config = ReviewConfig(budget=BudgetConfig(timeout_seconds=600))
        fake = messages_api(slow)
        outcome = review(checkout, fake, config, clock=clock)
        assert outcome.agents[0].stop_reason is StopReason.TIMEOUT
        assert outcome.axes[0].outcome is Outcome.NOT_RUN
        assert verdict_of(outcome, config) is Verdict.HOLD

    def test_no_client_means_not_run(self, checkout):
        """Without credentials no agent runs; every axis is not_run naming the missing key."""
        config = ReviewConfig(reviewers=(ReviewerConfig(name="security", brief="injection"),))
        outcome = review(checkout, None, config)
        assert [(a.name, a.outcome, a.detail) for a in outcome.axes] == [
            ("review", Outcome.NOT_RUN, NO_CREDENTIALS),
            ("security", Outcome.NOT_RUN, NO_CREDENTIALS),
        ]
        assert {a.stop_reason for a in outcome.agents} == {StopReason.NO_CREDENTIALS}
        assert verdict_of(outcome, config) is Verdict.HOLD
        # The PR is packed, but no model received it: nothing counts as seen.
        assert outcome.packed_context_tokens > 0
        assert (outcome.coverage.files_in_context, outcome.coverage.partial) == (0, True)

    def test_unknown_model_note_reaches_the_agent_report(self, checkout, messages_api):
        """The loop's note about an unknown model's price is kept on that agent's report."""
        config = ReviewConfig(model="claude-future-9")
        outcome = review(checkout, messages_api(reply(text("Clean."))), config)
        [note] = outcome.agents[0].notes
        assert "no price known for model 'claude-future-9'" in note
        assert outcome.agents[-1].notes == ()

    def test_a_forbidden_model_stops_only_its_agent(self, checkout, messages_api):
        """A 403 for one reviewer's model ends that agent with error; the next reviewer runs."""
        config = ReviewConfig(
            reviewers=(ReviewerConfig(name="security", model="claude-haiku-4-5"),)
        )
        fake = messages_api(Failure(403, "permission_error", "not allowed"), reply(text("Clean.")))
        outcome = review(checkout, fake, config)
        assert [(a.name, a.stop_reason) for a in outcome.agents[:2]] == [
            ("review", StopReason.ERROR),
            ("security", StopReason.END_TURN),
        ]
        assert "403 permission_error" in (outcome.agents[0].error or "")
        assert [(a.name, a.outcome) for a in outcome.axes] == [
            ("review", Outcome.NOT_RUN),
            ("security", Outcome.PASSED),
        ]

    def test_rejected_key_stops_the_other_agents(self, checkout, messages_api):
        """After a 401, later agents are not started and report the same error."""
        config = ReviewConfig(reviewers=(ReviewerConfig(name="security"),))
        fake = messages_api(unauthorized())
        outcome = review(checkout, fake, config)
        assert len(fake.requests) == 1
        refused = StopReason.CREDENTIALS_REFUSED
        assert [a.stop_reason for a in outcome.agents[:2]] == [refused, refused]
        assert all("ANTHROPIC_API_KEY" in (a.error or "") for a in outcome.agents[:2])
        assert {a.outcome for a in outcome.axes} == {Outcome.NOT_RUN}


class TestFocusedReviewers:
    def test_each_reviewer_has_its_model_brief_and_axis(self, checkout, messages_api):
        """A focused reviewer runs with its own model and brief and gets its own axis."""
        config = ReviewConfig(
            reviewers=(
                ReviewerConfig(
                    name="security",
                    brief="Look for injection.",
                    model="claude-haiku-4-5",
                    gated=False,
                ),
            )
        )
        fake = messages_api(
            reply(text("ok")), reply(tool_use("add_review_node", node("P2"))), reply(text("ok"))
        )
        outcome = review(checkout, fake, config)
        general, focused = fake.requests[0], fake.requests[1]
        assert general["model"] == DEFAULT_MODEL
        assert focused["model"] == "claude-haiku-4-5"
        assert "Look for injection." not in json.dumps(focused["system"])
        own = focused["messages"][0]["content"][1]
        assert set(own) == {"type", "text"}  # no breakpoint: it follows the shared prefix
        assert own["text"].startswith("# Your role\n\nYou are a reviewer.")
        assert own["text"].endswith("\n\n# Your focus\n\nLook for injection.")
        assert "# Your focus" not in general["messages"][0]["content"][1]["text"]
        assert [(a.name, a.gated) for a in outcome.axes] == [("review", True), ("security", False)]
        assert [n.author for n in outcome.nodes] == ["security"]

    @pytest.mark.parametrize(
        "gated",
        [(False, True), (True, True), (True, False)],
        ids=["ungated-then-gated", "two-gated", "gated-then-ungated"],
    )
    def test_a_finding_counts_for_every_reviewer_that_raised_it(
        self, checkout, messages_api, gated
    ):
        """Two reviewers raise one finding: one node, and the verifier's confirmation fails both axes."""
        config = ReviewConfig(
            reviewers=(
                ReviewerConfig(name="style", gated=gated[0]),
                ReviewerConfig(name="security", gated=gated[1]),
            )
        )
        fake = messages_api(
            reply(text("nothing")),
            reply(tool_use("add_review_node", node("P0"))),
            reply(text("ok")),
            reply(tool_use("add_review_node", node("P0"))),
            reply(text("ok")),
            reply(tool_use("confirm_review_node", {"id": "style-1", "reason": "b can be 0"})),
        )
        outcome = review(checkout, fake, config)
        [found] = outcome.nodes
        assert (found.raisers, found.status) == (("style", "security"), Status.CONSENSUS_READY)
        axes = {a.name: a.outcome for a in outcome.axes}
        assert axes == {
            "review": Outcome.PASSED,
            "style": Outcome.FAILED,
            "security": Outcome.FAILED,
        }
        assert verdict_of(outcome, config) is Verdict.BLOCK  # a gated raiser in every variant
        shown = fake.requests[5]["messages"][0]["content"][1]["text"]
        assert "style-1 — P0 bug by style, security" in shown

    def test_focused_reviewers_share_the_cached_prefix(self, checkout, messages_api):
        """Reviewers with different focus send identical tools, system and context; the second reads them."""
        config = ReviewConfig(
            reviewers=(
                ReviewerConfig(name="security", brief="Look for injection."),
                ReviewerConfig(name="races", brief="Look for data races."),
            )
        )
        fake = messages_api(reply(text("ok")), reply(text("ok")), reply(text("ok")))
        review(checkout, fake, config)
        general, security, races = fake.requests
        shared = {
            json.dumps([r["tools"], r["system"], r["messages"][0]["content"][0]])
            for r in (general, security, races)
        }
        assert len(shared) == 1
        assert security["messages"][0]["content"][1] != races["messages"][0]["content"][1]
        # The first request writes the prefix; the other two read all of it and write nothing.
        assert fake.stats.cache_read_tokens == 2 * fake.stats.cache_write_tokens > 0
