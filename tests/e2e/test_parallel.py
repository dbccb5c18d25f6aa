"""Reviewers at the same time, through the real CLI: overlap, determinism, shared limits, Ctrl-C.

The base config adds two focused reviewers to `review`; each agent has its own script
(the fake tells them apart by their brief) and the fake answers after a latency, so
their requests overlap as they would against the real API.
"""

from __future__ import annotations

import json
import random
import signal
import threading
from collections.abc import Callable
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.messages_api import (
    FakeMessagesAPI,
    Reply,
    Scripted,
    rate_limited,
    reply,
    route_by_brief,
    text,
    tool_use,
)
from tests.fakes.webhooks import pull_request_event
from tests.fakes.world import REPO, World, open_world

FOCUS = {"security": "Look for injection.", "style": "Look at naming."}
CONFIG = (
    '[[reviewers]]\nname = "security"\nbrief = "Look for injection."\n\n'
    '[[reviewers]]\nname = "style"\nbrief = "Look at naming."\ngated = false\n'
)
APP_BASE = "def run(command):\n    return command\n\n\ndef size(items):\n    return len(items)\n"
APP_HEAD = APP_BASE.replace("return command", "return eval(command)")
BASE = {"app.py": APP_BASE, ".reviewbot.toml": CONFIG}
HEAD = {"app.py": APP_HEAD}
ARGS = ["review", "--github-event", "--post"]


def finding(priority: str, confidence: float, *, title: str = "eval() on the command") -> Any:
    line = 2 if title.startswith("eval") else 6
    quote = "    return eval(command)" if line == 2 else "    return len(items)"
    return {
        "kind": "bug",
        "priority": priority,
        "confidence": confidence,
        "title": title,
        "body": "Any caller can run arbitrary code.",
        "anchor": {"path": "app.py", "start_line": line, "end_line": line, "quote": quote},
    }


def finalize(verdict: str) -> Any:
    return tool_use("finalize_review", {"summary": f"Proposed {verdict}.", "verdict": verdict})


def scripts() -> dict[str, list[Scripted]]:
    """`review` and `security` raise the same P0; `style` a P3; the verifier confirms the P0."""
    return {
        "review": [
            reply(tool_use("add_review_node", finding("P0", 0.9))),
            reply(finalize("block")),
        ],
        "security": [
            reply(tool_use("read_file", {"path": "app.py"})),
            reply(tool_use("add_review_node", finding("P0", 0.95))),
            reply(finalize("block")),
        ],
        "style": [
            reply(tool_use("add_review_node", finding("P3", 0.6, title="Name the helper"))),
            reply(text("Nothing else.")),
        ],
        "verifier": [
            reply(tool_use("confirm_review_node", {"id": "review-1", "reason": "eval of input"}))
        ],
    }


def fake(latency: Callable[[], float] | None, **script: list[Scripted]) -> FakeMessagesAPI:
    return FakeMessagesAPI(
        scripts=script or scripts(), route=route_by_brief(FOCUS), latency=latency
    )


def published(world: World) -> str:
    """Everything posted on the PR, as one text: the review, its comments, the summary, the check."""
    repo = world.github.repo(REPO)
    number = world.pull.number
    drop = {"id", "node_id", "url", "html_url", "submitted_at", "created_at", "updated_at"}
    drop |= {"started_at", "completed_at", "pull_request_review_id", "in_reply_to_id"}

    def kept(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [{k: v for k, v in item.items() if k not in drop} for item in items]

    return json.dumps(
        {
            "reviews": kept(repo.reviews.get(number, [])),
            "comments": kept(repo.review_comments.get(number, [])),
            "summary": kept(repo.issue_comments.get(number, [])),
            "checks": kept(repo.check_runs),
        },
        sort_keys=True,
        default=str,
    )


def report_of(run: Any) -> str:
    report = run.report()
    return json.dumps(report, sort_keys=True)


@pytest.fixture(scope="module")
def ran(tmp_path_factory: pytest.TempPathFactory) -> Any:
    model = fake(lambda: 0.2)
    with open_world(tmp_path_factory.mktemp("overlap"), base=BASE, head=HEAD, model=model) as world:
        run = world.run(ARGS, event_name="pull_request", event=pull_request_event(world))
        yield run, model


class TestAtTheSameTime:
    def test_the_reviewers_requests_overlap(self, ran):
        """The first request goes alone; then the three reviewers are in flight together."""
        run, model = ran
        assert run.returncode == 0, run.stderr
        first, *rest = model.timeline
        assert first.agent == "review"
        assert all(span.arrived >= first.answered for span in rest)
        in_flight = max(
            len({s.agent for s in model.timeline if s.arrived <= t.arrived < s.answered})
            for t in model.timeline
        )
        assert in_flight == 3
        reviewers_done = max(s.answered for s in model.timeline if s.agent != "verifier")
        verifier = [s for s in model.timeline if s.agent == "verifier"]
        assert verifier
        assert all(s.arrived >= reviewers_done for s in verifier)

    def test_the_log_shows_every_agent(self, ran):
        """stderr is a pipe: each agent's start, its turns and its end, one line each."""
        run, _ = ran
        lines = run.stderr.splitlines()

        def of(agent: str) -> list[str]:
            return [
                ln for ln in lines if ln.startswith(f"reviewbot: {agent} ") or f" {agent} (" in ln
            ]

        security = of("security")
        assert security[0] == "reviewbot: security (claude-sonnet-5) started"
        assert security[1].startswith("reviewbot: security turn 1 · ")
        assert security[1].endswith(" · running read_file")
        assert "(run $" in security[1]
        assert security[-1].startswith(
            "reviewbot: ✓ security (claude-sonnet-5): finalized after 3 turn(s) · "
        )
        assert of("style")[-1].startswith(
            "reviewbot: ✓ style (claude-sonnet-5): end_turn after 2 turn(s)"
        )
        assert of("verifier")[-1].startswith(
            "reviewbot: ✓ verifier (claude-sonnet-5): finalized after 1 turn(s)"
        )

    def test_the_shared_finding_is_one_node_in_config_order(self, ran):
        run, _ = ran
        nodes = run.report()["nodes"]
        assert [(n["id"], n["priority"], n["also_raised_by"]) for n in nodes] == [
            ("review-1", "P0", ["security"]),
            ("style-1", "P3", []),
        ]
        assert run.outputs["verdict"] == "block"


class TestDeterministic:
    def test_twenty_jittered_runs_publish_the_same(self, tmp_path: Path):
        """Random latency per request: the report and everything posted are the same bytes.

        Five worlds at a time (each its own repository and fakes), so the runs overlap too.
        """
        seen: set[tuple[str, str]] = set()
        for batch in range(4):
            with ExitStack() as stack:
                started = []
                for seed in range(batch * 5, batch * 5 + 5):
                    jitter = random.Random(seed)
                    model = fake(lambda jitter=jitter: jitter.uniform(0.0, 0.03))
                    world = stack.enter_context(
                        open_world(tmp_path / f"run-{seed}", base=BASE, head=HEAD, model=model)
                    )
                    event = pull_request_event(world)
                    started.append(
                        (world, world.start(ARGS, event_name="pull_request", event=event))
                    )
                for world, pending in started:
                    run = pending.wait()
                    assert run.returncode == 0, run.stderr
                    report = report_of(run).replace(str(world.root), "ROOT")
                    posted = published(world).replace(world.github_server.url, "GITHUB")
                    seen.add((report, posted))
        assert len(seen) == 1


class TestSharedLimits:
    def test_a_cost_budget_stops_the_agents_at_the_total(self, tmp_path: Path):
        """Each reviewer alone could spend the cap; together they stop at it."""
        config = CONFIG + "\n[budget]\nmax_cost_usd = 0.2\n"
        many = [reply(tool_use("read_file", {"path": "app.py"}))] * 30
        model = fake(lambda: 0.01, review=list(many), security=list(many), style=list(many))
        base = {**BASE, ".reviewbot.toml": config}
        with open_world(tmp_path, base=base, head=HEAD, model=model) as world:
            run = world.run(ARGS, event_name="pull_request", event=pull_request_event(world))
            model.drop_remaining()
        assert run.returncode == 0, run.stderr
        report = run.report()
        assert report["usage"]["cost_usd"] <= 0.2
        reviewers = [a for a in report["agents"] if a["name"] != "verifier"]
        assert [a["stop_reason"] for a in reviewers] == ["max_cost"] * 3
        assert all(a["turns"] > 0 for a in reviewers)
        assert run.outputs["verdict"] == "hold"

    def test_a_rate_limit_to_one_agent_delays_the_others(self, tmp_path: Path):
        """`security` is answered 429 with retry-after 1 s: nobody sends until it has passed."""
        script = scripts()
        script["security"].insert(1, rate_limited(retry_after="1"))
        script["style"] = [reply(tool_use("read_file", {"path": "app.py"}))] * 12 + [
            reply(text("fine"))
        ]
        model = fake(lambda: 0.05, **script)
        with open_world(tmp_path, base=BASE, head=HEAD, model=model) as world:
            run = world.run(
                [*ARGS, "-v"], event_name="pull_request", event=pull_request_event(world)
            )
        assert run.returncode == 0, run.stderr
        assert "holding a request back" in run.stderr
        limited = next(s for s in model.timeline if s.status == 429)
        # Requests already on their way when the 429 came arrive just after it; none is sent
        # while the gate is closed.
        window = [
            s
            for s in model.timeline
            if limited.answered + 0.5 < s.arrived < limited.answered + 0.95
        ]
        assert window == []
        assert any(
            s.agent == "style" and s.arrived >= limited.answered + 1.0 for s in model.timeline
        )


class TestInterrupt:
    def test_ctrl_c_with_three_agents_in_flight(self, tmp_path: Path):
        """SIGINT while three requests are unanswered: exit 130 at once, nothing posted."""
        in_flight, release = threading.Semaphore(0), threading.Event()

        def hang(body: Any) -> Reply:
            in_flight.release()
            release.wait(60)
            return reply(text("too late"))

        model = fake(
            None,
            review=[reply(tool_use("read_file", {"path": "app.py"})), hang],
            security=[hang],
            style=[hang],
        )
        try:
            with open_world(tmp_path, base=BASE, head=HEAD, model=model) as world:
                pending = world.start(
                    ARGS, event_name="pull_request", event=pull_request_event(world)
                )
                for _ in range(3):
                    assert in_flight.acquire(timeout=60), "three requests never came"
                pending.process.send_signal(signal.SIGINT)
                run = pending.wait()
                release.set()
                model.drop_remaining()
        finally:
            release.set()
        assert run.returncode == 130, run.stderr
        assert "reviewbot: interrupted" in run.stderr
        assert "Traceback" not in run.stderr
        assert run.writes() == []  # no review, summary or check run, not even half of one
