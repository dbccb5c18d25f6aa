"""Coverage is what the agents saw: padding a file past the context budget hides nothing.

Head A changes two small files; the reviewer finds a P0 in `store.py` (the verifier confirms
it) and a P2 in `app.py`, and the PR is blocked. Head B fixes `app.py` and pads `store.py`
with 1,500 lines, so its patch no longer fits `[budget] context_tokens`; the reviewer reads
twenty lines of it and reports nothing. The P0 is still in the code. The run must not call it
resolved: it still stands and blocks, and the run says which file nobody saw and what to
change; the P2 in `app.py`, which the reviewer did see, may resolve.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from tests.fakes.messages_api import Scripted, reply, text, tool_use
from tests.fakes.runs import Run
from tests.fakes.talk import DROP_ZERO as P2
from tests.fakes.webhooks import check_suite_event, pull_request_event
from tests.fakes.world import REPO, World

# Full reviews on every push: this flow is about what a full review sees (incremental
# review carries the P0 forward instead: tests/e2e/test_incremental.py).
CONFIG = "[budget]\ncontext_tokens = 2000\n\n[review]\nincremental = false\n"
STORE_BASE = "def find(query):\n    return lookup(query)\n"
STORE_HEAD = "def find(query):\n    return eval(query)\n"
PADDING = "".join(f"PAD_{n} = {n}\n" for n in range(1_500))
APP_BASE = "def total(items):\n    return sum(items)\n"
APP_HEAD_A = "def total(items):\n    return sum(items) + 0\n"
APP_HEAD_B = "def total(items):\n    return sum(items)  # plain\n"

P0 = {
    "kind": "bug",
    "priority": "P0",
    "confidence": 0.95,
    "title": "eval() on the query",
    "body": "Any caller can run arbitrary code.",
    "anchor": {
        "path": "store.py",
        "start_line": 2,
        "end_line": 2,
        "quote": "    return eval(query)",
    },
}
ARGS = ["review", "--github-event", "--post"]


def first_script() -> list[Scripted]:
    return [
        reply(tool_use("add_review_node", P0), tool_use("add_review_node", P2)),
        reply(tool_use("finalize_review", {"summary": "One P0.", "verdict": "block"})),
        reply(tool_use("confirm_review_node", {"id": "review-1", "reason": "eval of input"})),
    ]


def second_script() -> list[Scripted]:
    """The reviewer glances at the top of the padded file and ends its turn without nodes."""
    return [
        reply(tool_use("read_file", {"path": "store.py", "start_line": 1, "end_line": 20})),
        reply(text("Only padding was added; nothing to report.")),
    ]


@dataclass(frozen=True, slots=True, kw_only=True)
class Flow:
    world: World
    first: Run
    second: Run
    refold: Run  # check_suite completed on head B: no model, the summary re-rendered


@pytest.fixture(scope="module")
def flow(worlds) -> Flow:
    """Review head A, push head B (store.py padded past the budget), review again."""
    world = worlds(
        "padded",
        base={".reviewbot.toml": CONFIG, "store.py": STORE_BASE, "app.py": APP_BASE},
        head={"store.py": STORE_HEAD, "app.py": APP_HEAD_A},
        script=[*first_script(), *second_script()],
    )
    first = world.run(ARGS, event_name="pull_request", event=pull_request_event(world))
    world.push({"store.py": STORE_HEAD + PADDING, "app.py": APP_HEAD_B}, author=world.pull.author)
    event = pull_request_event(world, action="synchronize")
    second = world.run(ARGS, event_name="pull_request", event=event)
    refold = world.run(ARGS, event_name="check_suite", event=check_suite_event(world))
    return Flow(world=world, first=first, second=second, refold=refold)


def _summary(flow: Flow, run: str = "second") -> str:
    """The summary comment as the run left it (it is edited in place, so read the PATCH)."""
    done: Run = getattr(flow, run)
    [edit] = done.calls("PATCH", "")[-1:]
    return str(edit.json()["body"])


class TestHeadA:
    def test_blocks_with_both_files_in_context(self, flow):
        """The first review saw both files and blocks on the confirmed P0."""
        assert flow.first.returncode == 0, flow.first.stderr
        report = flow.first.report()
        assert report["verdict"] == "block"
        assert report["coverage"]["partial"] is False
        assert report["coverage"]["files_in_context"] == 2


class TestPaddedPastTheBudget:
    def test_the_padded_file_was_not_in_context(self, flow):
        """Head B's store.py patch did not fit: it is listed, app.py is packed."""
        assert flow.second.returncode == 0, flow.second.stderr
        coverage = flow.second.report()["coverage"]
        assert [f["path"] for f in coverage["files_listed"]] == ["store.py"]
        assert coverage["files_in_context"] == 1

    def test_coverage_is_partial_and_names_the_unseen_file(self, flow):
        """store.py was neither packed nor read in full: coverage is partial, with reason and remedy."""
        coverage = flow.second.report()["coverage"]
        assert coverage["partial"] is True
        [unseen] = coverage["unseen"]
        assert unseen["path"] == "store.py"
        assert "context" in unseen["reason"]
        assert "[budget] context_tokens" in unseen["remedy"]

    def test_the_confirmed_p0_is_not_resolved(self, flow):
        """The P0 in the unseen file stays open: its comment is not marked Resolved."""
        published = flow.second.report()["published"]
        resolved_titles = {
            n["title"] for n in flow.first.report()["nodes"] if n["id"] in published["resolved"]
        }
        assert "eval() on the query" not in resolved_titles
        inline = flow.world.github.repo(REPO).review_comments[flow.world.pull.number]
        p0 = next(c for c in inline if c["path"] == "store.py")
        assert "Resolved" not in p0["body"]

    def test_the_finding_in_a_seen_file_still_resolves(self, flow):
        """The P2 in app.py, which was in context, vanished on a new head: it is resolved."""
        published = flow.second.report()["published"]
        assert published["resolved"] == ["review-2"]

    def test_the_p0_still_stands_and_blocks(self, flow):
        """Its lines did not change (and nobody saw store.py): the confirmed P0 stands and blocks."""
        report = flow.second.report()
        assert report["verdict"] == "block"
        [carried] = report["nodes"]
        assert (carried["title"], carried["status"]) == ("eval() on the query", "consensusReady")
        assert carried["id"].endswith(":review-1")
        assert carried["notes"][-1].startswith("not raised again, code unchanged: kept")

    def test_the_check_run_fails(self, flow):
        """A review that did not see store.py never concludes `success`: it blocks."""
        posts = flow.second.calls("POST", f"/repos/{REPO}/check-runs")
        assert [p.json()["conclusion"] for p in posts] == ["failure"]

    def test_the_review_does_not_approve(self, flow):
        """Partial coverage is not a clean pass: no APPROVE event is even attempted."""
        posts = flow.second.calls("POST", f"/repos/{REPO}/pulls/{flow.world.pull.number}/reviews")
        assert all(p.json().get("event") != "APPROVE" for p in posts)

    def test_the_summary_names_the_file_the_reason_and_the_remedy(self, flow):
        """The summary comment says which file nobody saw, why, and which setting to change."""
        body = _summary(flow)
        assert "Partial coverage" in body
        [line] = [ln for ln in body.splitlines() if ln.startswith("- **Not seen**")]
        assert line.startswith("- **Not seen** by any reviewer: `store.py` — its patch (about")
        assert "did not fit the context budget" in line
        assert "to review it: raise `[budget] context_tokens` (now 2,000;" in line


class TestRefold:
    def test_a_refold_keeps_the_unseen_file_named_and_the_block(self, flow):
        """check_suite re-folds from the summary marker: still Block, store.py still named."""
        assert flow.refold.returncode == 0, flow.refold.stderr
        report = flow.refold.report()
        assert report["verdict"] == "block"
        assert [f["path"] for f in report["coverage"]["unseen"]] == ["store.py"]
        body = _summary(flow, "refold")
        assert "**Not seen** by any reviewer: `store.py`" in body
        assert "context_tokens" in body


def final_turn_read_script() -> list[Scripted]:
    """The reviewer reads all of the padded file (in two halves) and finalizes in the same turn."""
    return [
        reply(
            tool_use("read_file", {"path": "store.py", "start_line": 1, "end_line": 760}),
            tool_use("read_file", {"path": "store.py", "start_line": 761, "end_line": 1502}),
            tool_use("finalize_review", {"summary": "Only padding.", "verdict": "ship"}),
        ),
    ]


@pytest.fixture(scope="module")
def final_turn(worlds) -> Flow:
    """As `flow`, but head B's read of store.py comes in the turn that ends the run."""
    world = worlds(
        "final-turn-read",
        base={".reviewbot.toml": CONFIG, "store.py": STORE_BASE, "app.py": APP_BASE},
        head={"store.py": STORE_HEAD, "app.py": APP_HEAD_A},
        script=[*first_script(), *final_turn_read_script()],
    )
    first = world.run(ARGS, event_name="pull_request", event=pull_request_event(world))
    world.push({"store.py": STORE_HEAD + PADDING, "app.py": APP_HEAD_B}, author=world.pull.author)
    event = pull_request_event(world, action="synchronize")
    second = world.run(ARGS, event_name="pull_request", event=event)
    return Flow(world=world, first=first, second=second, refold=second)


class TestReadInTheFinalTurn:
    """A read whose result was never sent to the model is not something the model saw."""

    def test_the_reviewer_finalized_after_its_read(self, final_turn):
        assert final_turn.second.returncode == 0, final_turn.second.stderr
        [reviewer] = [a for a in final_turn.second.report()["agents"] if a["role"] == "reviewer"]
        assert reviewer["stop_reason"] == "finalized"

    def test_the_unread_result_does_not_count_as_seen(self, final_turn):
        coverage = final_turn.second.report()["coverage"]
        assert coverage["files_read"] == []
        assert (coverage["partial"], [f["path"] for f in coverage["unseen"]]) == (
            True,
            ["store.py"],
        )

    def test_the_p0_is_not_resolved_and_blocks(self, final_turn):
        report = final_turn.second.report()
        assert report["published"]["resolved"] == ["review-2"]
        assert report["verdict"] == "block"
