"""Reviewers at the same time: overlap, the same outcome whatever the order, shared limits.

Each agent has its own script (`route_by_brief`), so the fake answers every agent in
its own order however the requests interleave; `latency` makes them overlap.
"""

from __future__ import annotations

import json
import random
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from reviewbot.agent.ledger import Ledger, Refusal, Reservation, Totals
from reviewbot.agent.panel import PanelOutcome, run_panel
from reviewbot.agent.progress import SilentProgress
from reviewbot.config.file import BudgetConfig, ReviewConfig, ReviewerConfig
from reviewbot.redact import Redactor
from reviewbot.results.run import StopReason, Usage
from reviewbot.tools.ask_user import NoOperator
from tests.agent.factories import (
    HEAD,
    MODEL,
    PATCH,
    FakeClock,
    client_for,
    file_diff,
    finalize_call,
    index,
    node,
    snapshot,
)
from tests.fakes.messages_api import (
    FakeMessagesAPI,
    Scripted,
    rate_limited,
    reply,
    route_by_brief,
    text,
    tool_use,
)

FOCUS = {"security": "Look for injection.", "style": "Look at naming."}
REVIEWERS = tuple(ReviewerConfig(name=name, brief=brief) for name, brief in FOCUS.items())


@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    root = tmp_path / "head"
    (root / "src").mkdir(parents=True)
    (root / "src" / "calc.py").write_text(HEAD)
    return root


def unchecked(priority: str = "P2") -> dict[str, Any]:
    return node(priority, title="Unchecked input") | {
        "anchor": {
            "path": "src/calc.py",
            "start_line": 4,
            "end_line": 4,
            "quote": "    return int(value)",
        }
    }


def scripts() -> dict[str, list[Scripted]]:
    """`review` and `security` raise the same finding; the verifier confirms it."""
    return {
        "review": [reply(tool_use("add_review_node", node("P1"))), reply(finalize_call("hold"))],
        "security": [
            reply(tool_use("add_review_node", unchecked())),
            reply(tool_use("add_review_node", node("P0", confidence=0.8))),
            reply(finalize_call("block")),
        ],
        "style": [reply(tool_use("read_file", {"path": "src/calc.py"})), reply(text("fine"))],
        "verifier": [
            reply(tool_use("confirm_review_node", {"id": "review-1", "reason": "b may be 0"}))
        ],
    }


def fake_for(
    latency: Callable[[], float] | None = None, **script: list[Scripted]
) -> FakeMessagesAPI:
    return FakeMessagesAPI(
        scripts=script or scripts(), route=route_by_brief(FOCUS), latency=latency
    )


@dataclass
class ThreadSleeps:
    """A sleeper that records which agent's thread waited, and how long."""

    waits: list[tuple[str, float]] = field(default_factory=list)
    agents: dict[str, str] = field(default_factory=dict)

    def __call__(self, seconds: float) -> None:
        self.waits.append((self.agents.get(threading.current_thread().name, "?"), seconds))
        time.sleep(seconds)


class ThreadProgress(SilentProgress):
    """Notes which thread runs which agent."""

    def __init__(self, agents: dict[str, str]) -> None:
        self._agents = agents

    def started(self, agent: str, model: str) -> None:
        self._agents[threading.current_thread().name] = agent


def panel(
    checkout: Path,
    fake: FakeMessagesAPI,
    *,
    parallel: int = 4,
    sleep: Any = None,
    **budget: Any,
) -> PanelOutcome:
    config = ReviewConfig(
        reviewers=REVIEWERS, budget=BudgetConfig(max_parallel_agents=parallel, **budget)
    )
    snap = snapshot(checkout, index(file_diff("src/calc.py", PATCH)), config=config)
    return run_panel(
        snap,
        config,
        client=client_for(fake, sleeps=sleep),
        operator=NoOperator(),
        redactor=Redactor(),
        progress=ThreadProgress(sleep.agents)
        if isinstance(sleep, ThreadSleeps)
        else SilentProgress(),
        excluded=lambda path: False,
        clock=FakeClock(),
    )


def canonical(outcome: PanelOutcome) -> str:
    return json.dumps(
        {
            "nodes": [n.model_dump(mode="json") for n in outcome.nodes],
            "discarded": [d.reason for d in outcome.discarded],
            "axes": [repr(a) for a in outcome.axes],
            "agents": [a.model_dump(mode="json") for a in outcome.agents],
            "proposals": [p.value for p in outcome.proposals],
            "usage": outcome.usage.model_dump(mode="json"),
            "coverage": outcome.coverage.model_dump(mode="json"),
        },
        sort_keys=True,
    )


class TestAtTheSameTime:
    def test_the_reviewers_overlap_after_the_first_answer(self, checkout):
        """The first request goes alone; then every reviewer's requests are in flight together."""
        fake = fake_for(latency=lambda: 0.05)
        outcome = panel(checkout, fake)
        fake.verify()
        first = fake.timeline[0]
        assert first.agent == "review"
        followers = [s for s in fake.timeline if s.agent in FOCUS]
        assert all(s.arrived >= first.answered for s in followers)
        # Some request of another reviewer arrived while one of `review`'s was unanswered.
        overlaps = [
            (a, b)
            for a in fake.timeline
            for b in fake.timeline
            if a.agent != b.agent and a.arrived < b.arrived < a.answered
        ]
        assert overlaps
        verifier = [s for s in fake.timeline if s.agent == "verifier"]
        reviewers_done = max(s.answered for s in fake.timeline if s.agent != "verifier")
        assert verifier
        assert all(s.arrived >= reviewers_done for s in verifier)
        assert [a.name for a in outcome.agents] == ["review", "security", "style", "verifier"]

    def test_ids_and_order_follow_the_config_not_the_finish(self, checkout):
        """`security` records the shared finding first in time, it is still `review-1`."""
        fake = fake_for()
        outcome = panel(checkout, fake)
        fake.verify()
        assert [(n.id, n.priority.value) for n in outcome.nodes] == [
            ("review-1", "P0"),  # the stricter of the two assessments
            ("security-1", "P2"),
        ]
        shared = outcome.nodes[0]
        assert shared.also_raised_by == ("security",)
        assert shared.confirmed_by == ("verifier",)

    def test_twenty_jittered_runs_give_the_same_outcome(self, checkout):
        """Random latency per request changes who finishes first, never the outcome."""
        sequential = fake_for()
        expected = canonical(panel(checkout, sequential, parallel=1))
        for seed in range(20):
            jitter = random.Random(seed)
            fake = fake_for(latency=lambda jitter=jitter: jitter.uniform(0, 0.01))
            assert canonical(panel(checkout, fake)) == expected, f"run {seed}"
            fake.verify()


class TestSharedLimits:
    def test_at_most_max_parallel_agents_in_flight(self, checkout):
        """With max_parallel_agents = 2, never three requests at once."""
        fake = fake_for(latency=lambda: 0.03)
        panel(checkout, fake, parallel=2)
        fake.verify()
        spans = fake.timeline
        peak = max(sum(1 for s in spans if s.arrived <= t.arrived < s.answered) for t in spans)
        assert peak == 2

    def test_a_cost_budget_is_a_total_over_the_agents(self, checkout):
        """Each agent alone could spend it; together they stop at the total."""
        many = [reply(tool_use("read_file", {"path": "src/calc.py"}))] * 30
        fake = FakeMessagesAPI(
            scripts={"review": list(many), "security": list(many), "style": list(many)},
            route=route_by_brief(FOCUS),
            latency=lambda: 0.005,
        )
        outcome = panel(checkout, fake, max_cost_usd=0.2, response_max_tokens=8_192)
        assert not fake.problems
        assert outcome.usage.cost_usd <= 0.2
        stops = {a.name: a.stop_reason for a in outcome.agents[:3]}
        assert set(stops.values()) == {StopReason.MAX_COST}
        assert all(a.turns > 0 for a in outcome.agents[:3])  # nobody was starved

    def test_a_rate_limit_to_one_agent_holds_back_the_others(self, checkout):
        """A 429 with retry-after to `security`: the others wait it out before their next request."""
        script = scripts()
        script["security"].insert(1, rate_limited(retry_after="1"))
        script["style"] = [reply(tool_use("read_file", {"path": "src/calc.py"}))] * 20 + [
            reply(text("fine"))
        ]
        fake = fake_for(latency=lambda: 0.01, **script)
        sleeps = ThreadSleeps()
        panel(checkout, fake, sleep=sleeps)
        fake.verify()
        # `security` sleeps its own retry delay; `style`, which has many requests to send,
        # is held at the shared gate for the rest of it instead of hammering the API.
        assert ("security", 1.0) in sleeps.waits
        held = [seconds for agent, seconds in sleeps.waits if agent == "style"]
        assert held
        assert all(0 < seconds <= 1.0 for seconds in held)

    def test_a_rejected_key_stops_every_agent(self, checkout):
        """The first request is refused: nobody else sends one, and each says why."""
        from tests.fakes.messages_api import unauthorized

        fake = fake_for(review=[unauthorized()], security=[], style=[])
        outcome = panel(checkout, fake)
        assert len(fake.requests) == 1
        assert [a.stop_reason for a in outcome.agents[:3]] == [StopReason.CREDENTIALS_REFUSED] * 3


class TestLedger:
    TOTALS = Totals(
        max_input_tokens=1_000_000,
        max_output_tokens=40_000,
        max_cost_usd=1.0,
        response_max_tokens=1_000,
    )

    def test_two_reservations_cannot_each_take_the_budget(self):
        """The second waits for the first's answer, then fits what was really spent."""
        ledger = Ledger(self.TOTALS)
        first = ledger.reserve(MODEL, estimate=150_000)  # worst case ≈ $0.58 of $1.00
        assert isinstance(first, Reservation)
        got: list[Reservation | Refusal] = []
        second = threading.Thread(
            target=lambda: got.append(ledger.reserve(MODEL, estimate=150_000))
        )
        second.start()
        second.join(timeout=0.2)
        assert second.is_alive()
        assert not got
        ledger.settle(first, Usage(cost_usd=0.05))
        second.join(timeout=5)
        assert isinstance(got[0], Reservation)

    def test_what_cannot_fit_even_alone_is_refused_at_once(self):
        ledger = Ledger(self.TOTALS, spent=Usage(cost_usd=0.9))
        refused = ledger.reserve(MODEL, estimate=150_000)
        assert isinstance(refused, Refusal)
        assert refused.reason is StopReason.MAX_COST

    def test_a_halt_stops_the_next_reservation(self):
        ledger = Ledger(self.TOTALS)
        ledger.halt(StopReason.CREDENTIALS_REFUSED, "rejected")
        ledger.halt(StopReason.ERROR, "later")
        assert ledger.reserve(MODEL, estimate=10) == Refusal(
            reason=StopReason.CREDENTIALS_REFUSED, error="rejected"
        )
