"""Learnings end to end: a `/dismiss` teaches reviewbot, through a file on the base branch.

Each flow runs the real CLI against the loopback GitHub and Messages API fakes:

- taught: a P1 is posted, a maintainer dismisses it; the re-fold's summary shows the TOML
  entry to add; `reviewbot learn --pr 7` writes it (twice: nothing changes), and so does
  `learn --since` (the PR listing).
- later: that file, committed on the base with a learned P0, reviews a PR where both are
  found again: the P1 is suppressed (listed, counted, not inline), the P0 is posted with the
  learning beside it; the agents were shown the learnings. `learn --check` finds the stale
  entries (a scope that matches no file, code that is gone) and keeps the live ones.
- malformed: a bad entry in the base's file is one error line naming it, exit 2, nothing
  posted, no model asked.
- head only: a learnings file the PR itself adds changes nothing for its review.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from reviewbot.config.learnings import load_learnings
from tests.e2e.harness import REPO, Run, World, check_suite_event, pull_request_event
from tests.fakes.messages_api import reply, text, tool_use

ARGS = ["review", "--github-event", "--post"]
BASE = {"app.py": "def mean(xs):\n    return sum(xs) / len(xs) if xs else 0\n"}
HEAD = {"app.py": "def mean(xs):\n    return sum(xs) / len(xs)\n"}
ANCHOR = {"path": "app.py", "start_line": 2, "end_line": 2, "quote": "    return sum(xs) / len(xs)"}
P1 = {
    "kind": "bug",
    "priority": "P1",
    "confidence": 0.9,
    "title": "Division by zero on an empty list",
    "body": "`mean([])` raises ZeroDivisionError; the old guard was removed.",
    "anchor": ANCHOR,
}
P0 = {**P1, "priority": "P0", "title": "Unchecked input reaches the division"}
NO_VERIFIER = "[verifier]\nenabled = false\n"
# A learned P0 (same kind and title, another file once) and two stale entries.
MORE = """
[[learning]]
fingerprint = "00000000000000a0"
kind = "bug"
title = "Unchecked input reaches the division"
scope = "*.py"
reason = "inputs are validated upstream"
by = "maintainer"
at = "2026-11-01T10:00:00Z"
path = "old.py"
quote = "return sum(xs) / len(xs)"

[[learning]]
fingerprint = "00000000000000b0"
kind = "suggestion"
title = "Rename the helper"
scope = "gone/**"
by = "maintainer"
at = "2026-11-01T10:00:00Z"

[[learning]]
fingerprint = "00000000000000c0"
kind = "bug"
title = "eval on user input"
scope = "app.py"
by = "maintainer"
at = "2026-11-01T10:00:00Z"
path = "app.py"
quote = "return eval(xs)"
"""
BAD = """
[[learning]]
fingerprint = "00000000000000d0"
kind = "bug"
title = "Fine"
scope = "app.py"
by = "maintainer"
at = "2026-11-01"

[[learning]]
fingerprint = "00000000000000e0"
kind = "bug"
title = "Not fine"
scope = "../outside/**"
by = "maintainer"
at = "2026-11-01"
"""


def inline_comments(world: World) -> list[dict]:
    return world.github.repo(REPO).review_comments.get(world.pull.number, [])


def summary(world: World) -> str:
    comments = world.github.repo(REPO).issue_comments.get(world.pull.number, [])
    return next(c["body"] for c in comments if "reviewbot review of" in c["body"])


@dataclass(frozen=True, slots=True, kw_only=True)
class Runs:
    first: Run
    refold: Run
    taught: World
    learn: Run
    learn_again: Run
    learn_since: Run
    written: str
    written_again: str
    written_since: str
    later: Run
    later_refold: Run
    later_world: World
    check: Run
    malformed: Run
    head_only: Run
    head_world: World


@pytest.fixture(scope="module")
def runs(worlds, tmp_path_factory) -> Runs:
    out = tmp_path_factory.mktemp("learned")
    taught = worlds(
        "taught",
        base=BASE,
        head=HEAD,
        script=[
            reply(tool_use("add_review_node", P1)),
            reply(text("One bug.")),
            reply(tool_use("confirm_review_node", {"id": "review-1", "reason": "len([]) is 0"})),
        ],
        permissions={"maintainer": "write"},
    )
    first = taught.run(ARGS, event_name="pull_request", event=pull_request_event(taught))
    parent = inline_comments(taught)[0]["id"]
    taught.github.add_reply(
        REPO,
        taught.pull.number,
        in_reply_to=parent,
        body="/dismiss intended: callers never pass an empty list",
        author="maintainer",
        association="COLLABORATOR",
    )
    refold = taught.run(ARGS, event_name="check_suite", event=check_suite_event(taught))
    taught.github.repo(REPO).contents_from_git = True  # learn reads the anchored lines
    target = out / "learnings.toml"
    learn = taught.run(["learn", REPO, "--pr", "7", "--out", str(target)])
    written = target.read_text(encoding="utf-8")
    learn_again = taught.run(["learn", REPO, "--pr", "7", "--out", str(target)])
    written_again = target.read_text(encoding="utf-8")
    since = out / "since.toml"
    learn_since = taught.run(["learn", REPO, "--since", "2026-01-01", "--out", str(since)])

    later_world = worlds(
        "later",
        base={**BASE, ".reviewbot.toml": NO_VERIFIER, ".reviewbot/learnings.toml": written + MORE},
        head=HEAD,
        script=[
            reply(tool_use("add_review_node", P1)),
            reply(tool_use("add_review_node", P0)),
            reply(text("Two bugs.")),
        ],
    )
    later = later_world.run(ARGS, event_name="pull_request", event=pull_request_event(later_world))
    later_refold = later_world.run(
        ARGS, event_name="check_suite", event=check_suite_event(later_world)
    )
    learned_file = out / "later.toml"
    learned_file.write_text(written + MORE, encoding="utf-8")
    fake = later_world.github.repo(REPO)
    fake.trees["main"] = ["app.py", ".reviewbot.toml", ".reviewbot/learnings.toml"]
    later_world.github.set_content(REPO, "main", "app.py", BASE["app.py"])
    check = later_world.run(["learn", REPO, "--check", "--out", str(learned_file)])

    bad = worlds("malformed", base={**BASE, ".reviewbot/learnings.toml": BAD}, head=HEAD)
    malformed = bad.run(ARGS, event_name="pull_request", event=pull_request_event(bad))

    head_world = worlds(
        "head-only",
        base={**BASE, ".reviewbot.toml": NO_VERIFIER},
        head={**HEAD, ".reviewbot/learnings.toml": written},
        script=[reply(tool_use("add_review_node", P1)), reply(text("One bug."))],
    )
    head_only = head_world.run(
        ARGS, event_name="pull_request", event=pull_request_event(head_world)
    )
    return Runs(
        first=first,
        refold=refold,
        taught=taught,
        learn=learn,
        learn_again=learn_again,
        learn_since=learn_since,
        written=written,
        written_again=written_again,
        written_since=since.read_text(encoding="utf-8"),
        later=later,
        later_refold=later_refold,
        later_world=later_world,
        check=check,
        malformed=malformed,
        head_only=head_only,
        head_world=head_world,
    )


def _fingerprint(run: Run) -> str:
    (node,) = run.report()["nodes"]
    return str(node["fingerprint"])


class TestADismissalTeaches:
    def test_the_summary_shows_the_entry_to_add(self, runs):
        """After the maintainer's /dismiss, the summary carries the TOML entry, sanitised."""
        assert runs.refold.returncode == 0, runs.refold.stderr
        body = summary(runs.taught)
        assert "**Teach reviewbot this dismissal**" in body
        assert "```toml\n[[learning]]\n" in body
        assert f'fingerprint = "{_fingerprint(runs.first)}"' in body
        assert 'reason = "intended: callers never pass an empty list"' in body
        assert "reviewbot learn octo/app --pr 7" in body
        (entry,) = runs.refold.report()["learnings"]["to_add"]
        assert entry["by"] == "maintainer"

    def test_learn_writes_one_entry(self, runs):
        """`reviewbot learn --pr 7` writes the dismissed finding, with who, why, when, where."""
        assert runs.learn.returncode == 0, runs.learn.stderr
        assert "1 learning(s) added" in runs.learn.stderr
        (entry,) = load_learnings(runs.written, origin="written").entries
        assert entry.fingerprint == _fingerprint(runs.first)
        assert (entry.kind.value, entry.title) == ("bug", P1["title"])
        assert (entry.scope, entry.path, entry.pr, entry.by) == (
            "/app.py",
            "app.py",
            7,
            "maintainer",
        )
        assert entry.reason == "intended: callers never pass an empty list"
        assert entry.quote == "return sum(xs) / len(xs)"

    def test_learning_twice_changes_nothing(self, runs):
        """Run again: the same bytes, said to be unchanged, no entry repeated."""
        assert runs.learn_again.returncode == 0, runs.learn_again.stderr
        assert runs.written_again == runs.written
        assert "(unchanged)" in runs.learn_again.stderr

    def test_the_listing_finds_the_same(self, runs):
        """`--since` reads the PRs updated since then: the same file as `--pr 7`."""
        assert runs.learn_since.returncode == 0, runs.learn_since.stderr
        assert runs.written_since == runs.written


class TestALaterPR:
    def test_the_learned_p1_is_suppressed_not_posted(self, runs):
        """The P1 the file holds is not posted inline; the P0 is."""
        run = runs.later
        assert run.returncode == 0, run.stderr
        bodies = [c["body"] for c in inline_comments(runs.later_world)]
        assert len(bodies) == 1
        assert P0["title"] in bodies[0]

    def test_the_report_counts_and_names_the_entry(self, runs):
        """Suppressed by fingerprint, with its entry; the P0 matched by rule and kept."""
        learned = runs.later.report()["learnings"]
        (suppressed,) = learned["suppressed"]
        assert (suppressed["priority"], suppressed["matched_by"]) == ("P1", "fingerprint")
        assert suppressed["learning"]["by"] == "maintainer"
        (kept,) = learned["kept"]
        assert (kept["priority"], kept["matched_by"]) == ("P0", "rule")
        assert kept["learning"]["fingerprint"] == "00000000000000a0"

    def test_the_suppressed_finding_never_vanishes(self, runs):
        """It stays in the nodes, dismissed, with the note naming the entry; the P0 stands."""
        nodes = {n["priority"]: n for n in runs.later.report()["nodes"]}
        assert nodes["P1"]["status"] == "dismissed"
        assert any("suppressed by a learning" in note for note in nodes["P1"]["notes"])
        assert nodes["P0"]["status"] == "open"
        assert any("not applied to a P0" in note for note in nodes["P0"]["notes"])
        assert runs.later.outputs["verdict"] == "hold"  # an open, unconfirmed P0 holds

    def test_the_summary_lists_both(self, runs):
        """As the review posted it (a later re-fold rebuilds nodes from posted markers only)."""
        (posted,) = runs.later.calls("POST", f"/repos/{REPO}/issues/7/comments")
        body = posted.json()["body"]
        assert "**Suppressed by a learning** (1)" in body
        assert "**Learned, but a P0 is never suppressed** (1)" in body

    def test_the_agents_were_shown_the_learnings(self, runs):
        """The first request's PR context ends with the learnings that apply to app.py."""
        first = runs.later.model[0]["messages"][0]["content"][0]["text"]
        assert "# What the maintainers already decided (learnings)" in first
        assert '"Division by zero on an empty list"' in first
        assert '"Rename the helper"' not in first  # its scope matches no changed file

    def test_a_refold_keeps_the_suppression(self, runs):
        """CI finishes: the re-fold reads the suppressed finding back from the review body and
        applies the learnings again: still dismissed, still listed; nothing more is posted."""
        run = runs.later_refold
        assert run.returncode == 0, run.stderr
        assert run.model == ()
        assert run.outputs["verdict"] == "hold"
        assert len(inline_comments(runs.later_world)) == 1
        statuses = {n["priority"]: n["status"] for n in run.report()["nodes"]}
        assert statuses == {"P0": "open", "P1": "dismissed"}
        (suppressed,) = run.report()["learnings"]["suppressed"]
        assert (suppressed["priority"], suppressed["matched_by"]) == ("P1", "fingerprint")
        assert suppressed["learning"]["by"] == "maintainer"
        summary = runs.later_world.github.repo(REPO).issue_comments[7][-1]["body"]
        assert "**Suppressed by a learning** (1)" in summary

    def test_the_review_body_keeps_the_suppressed_finding(self, runs):
        """Listed once in the review body, its marker as it stood before the learning, so the
        next run can apply the learnings again (and count it if its learning is gone)."""
        (review,) = runs.later.calls("POST", f"/repos/{REPO}/pulls/7/reviews")
        body = review.json()["body"]
        assert "suppressed by a learning: dismissed for the verdict" in body
        assert '"priority":"P1"' in body
        assert '"status":"open"' in body


class TestCheck:
    def test_stale_learnings_are_listed(self, runs):
        """A scope that matches no file, code that is gone: stale, exit 1; the rest are live."""
        run = runs.check
        assert run.returncode == 1, run.stderr
        stale = [line for line in run.stderr.splitlines() if line.startswith("stale:")]
        assert len(stale) == 2, run.stderr
        assert "00000000000000b0" in stale[0]
        assert "matches no file" in stale[0]
        assert "00000000000000c0" in stale[1]
        assert "code it was dismissed on" in stale[1]
        assert "2 of 4 learning(s) stale at main" in run.stderr


class TestMalformed:
    def test_is_one_line_exit_2_nothing_posted(self, runs):
        run = runs.malformed
        assert run.returncode == 2, run.stderr
        errors = [line for line in run.stderr.splitlines() if line.startswith("reviewbot: error:")]
        assert errors == [
            "reviewbot: error: `.reviewbot/learnings.toml` (base branch main): entry 2 "
            "(fingerprint 00000000000000e0): scope: must not contain '..'"
        ]
        assert run.writes() == []
        assert run.model == ()


class TestHeadOnly:
    def test_a_learnings_file_the_pr_adds_changes_nothing(self, runs):
        """The head's file would suppress the P1: it is ignored, the P1 is posted."""
        run = runs.head_only
        assert run.returncode == 0, run.stderr
        assert run.report()["learnings"] is None
        bodies = [c["body"] for c in inline_comments(runs.head_world)]
        assert len(bodies) == 1
        assert P1["title"] in bodies[0]
        first = run.model[0]["messages"][0]["content"][0]["text"]
        assert "What the maintainers already decided" not in first
