"""Incremental review never looser than a full one, end to end: the gaps it had.

Each flow runs the real CLI against the loopback GitHub and Messages API fakes, on heads
pushed to a real repository:

- reverted: A changes `app.py`; the base branch then fixes `auth.py`; the author merges
  the base but keeps the PR's old `auth.py`, which reverts the fix. `auth.py` did not
  change since A, yet its PR diff is new: the agents are shown it.
- refolded: A could not see 25 files (more than the summary marker names); a
  `check_suite` re-fold rewrites the summary; the next push must not forget them.
- renamed: a confirmed finding in `app.py`; `git mv app.py main_app.py` (and, in a second
  world, the rename with lines inserted above the finding): the finding is carried to the
  new path, never resolved for want of a repeat.
- many: eleven findings vanish at once: ten comments are edited and the report says ten;
  the eleventh stands and resolves on the next run.
- unseen: B confirmed a finding first posted as a P3 on A (as a P0, recorded only in the
  summary); a force-push C makes its file unseen: the finding stands as B judged it.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from tests.fakes.gitrepo import git
from tests.fakes.messages_api import reply, text, tool_use
from tests.fakes.pulls import seed_pull
from tests.fakes.runs import Run, context_of
from tests.fakes.scenario import clean
from tests.fakes.webhooks import check_suite_event, pull_request_event
from tests.fakes.world import AUTHOR, REPO, World

ARGS = ["review", "--github-event", "--post"]
NO_VERIFIER = "[verifier]\nenabled = false\n"
AUTH_OLD = "def allowed(user):\n    return True\n"
AUTH_FIXED = "def allowed(user):\n    return user.is_admin\n"
APP_BASE = (
    "import json\n\n\ndef load(path):\n    return ''\n\n\n"
    "def save(path, data):\n    open(path, 'w').write(json.dumps(data))\n"
)
APP = APP_BASE.replace("return ''", "return eval(open(path).read())")
EVAL = {
    "kind": "bug",
    "priority": "P0",
    "confidence": 0.95,
    "title": "eval of a file's content",
    "body": "Whoever writes the file runs code.",
    "anchor": {
        "path": "app.py",
        "start_line": 5,
        "end_line": 5,
        "quote": "    return eval(open(path).read())",
    },
}


def raised(*findings: dict) -> list:
    return [reply(*(tool_use("add_review_node", f) for f in findings)), reply(text("Recorded."))]


def check_conclusions(run: Run) -> list[str]:
    posted = run.calls("POST", f"/repos/{REPO}/check-runs")
    return [p.json()["conclusion"] for p in posted]


def merge_keeping_ours(world: World, path: str, fixed: str) -> None:
    """The base fixes `path`; the author merges the base but keeps the PR's old `path`."""
    repo = world.repo
    git(repo, "checkout", "-q", "main")
    (repo / path).write_text(fixed, encoding="utf-8")
    git(repo, "commit", "-q", "-am", "the base fixes it")
    git(repo, "checkout", "-q", "feature")
    git(repo, "merge", "-q", "--no-commit", "main")
    git(repo, "checkout", "HEAD", "--", path)  # the PR's old file wins the merge
    git(repo, "commit", "-q", "-m", "merge main")
    world.seed()


def base_with(world: World, path: str, content: str) -> str:
    """`main` changes `path` and the PR merges it (before any review); the old base's SHA."""
    repo = world.repo
    old_base = git(repo, "rev-parse", "main")
    git(repo, "checkout", "-q", "main")
    (repo / path).write_text(content, encoding="utf-8")
    git(repo, "commit", "-q", "-am", "main changes it")
    git(repo, "checkout", "-q", "feature")
    git(repo, "merge", "-q", "--no-edit", "main")
    world.seed()
    return old_base


def retarget(world: World, base: str, files: dict[str, str]) -> None:
    """The PR's base branch becomes `release` (at `base`), and the author pushes `files`."""
    git(world.repo, "branch", "-f", "release", base)
    for name, content in files.items():
        (world.repo / name).write_text(content, encoding="utf-8")
    git(world.repo, "commit", "-q", "-am", "push")
    world.pull = seed_pull(
        world.github, world.repo, "release", "feature", author=AUTHOR, base_ref="release"
    )


def rename(world: World, old: str, new: str, *, prefix: str = "") -> None:
    repo = world.repo
    git(repo, "mv", old, new)
    if prefix:
        path = repo / new
        path.write_text(prefix + path.read_text(encoding="utf-8"), encoding="utf-8")
    git(repo, "commit", "-q", "-am", "rename")
    world.seed()


MANY = 11
DIVIDE = "def f{i}(x):\n    return x / {i}0\n"


def many_finding(i: int) -> dict:
    line = f"    return x / {i}0"
    return {
        "kind": "bug",
        "priority": "P2",
        "confidence": 0.8,
        "title": f"Division by the constant {i}0 is suspicious",
        "body": "Check the divisor.",
        "anchor": {
            "path": "calc.py",
            "start_line": 2 * i + 2,
            "end_line": 2 * i + 2,
            "quote": line,
        },
    }


@dataclass(frozen=True, slots=True, kw_only=True)
class Flows:
    reverted_b: Run
    retargeted_b: Run
    refolded_a: Run
    refolded_b: Run
    renamed_b: Run
    moved_b: Run
    many_b: Run
    many_c: Run
    unseen_b: Run
    unseen_c: Run


def _calc(fixed: bool) -> str:
    body = "".join(DIVIDE.format(i=i) for i in range(MANY))
    return body.replace(" / ", " / max(1, ") if fixed else body


@pytest.fixture(scope="module")
def flows(worlds) -> Flows:
    reverted = worlds(
        "reverted",
        base={"app.py": "X = 1\n", "auth.py": AUTH_OLD},
        head={"app.py": "X = 2\n"},
        script=[*clean(), *clean()],
    )
    retargeted = worlds(
        "retargeted",
        base={"app.py": "X = 1\n", "auth.py": AUTH_FIXED},
        head={"app.py": "X = 2\n"},
        script=[*clean(), *clean()],
    )
    release = base_with(retargeted, "auth.py", AUTH_OLD)
    filler = "".join(
        f"value_{i} = {i} * 2  # a line long enough to cost tokens\n" for i in range(120)
    )
    small = {".reviewbot.toml": "[budget]\ncontext_tokens = 3000\n", "app.py": "X = 1\n"}
    refolded = worlds(
        "refolded",
        base=small,
        head={"app.py": "X = 2\n", **{f"big_{i:02}.py": filler for i in range(25)}},
        script=[*clean(), *clean()],
    )
    renamed = worlds(
        "renamed",
        base={".reviewbot.toml": NO_VERIFIER, "app.py": APP_BASE},
        head={"app.py": APP},
        script=[*raised(EVAL), *clean()],
    )
    moved = worlds(
        "moved",
        base={".reviewbot.toml": NO_VERIFIER, "app.py": APP_BASE},
        head={"app.py": APP},
        script=[*raised(EVAL), *clean()],
    )
    many = worlds(
        "many",
        base={"calc.py": "", "other.py": "Y = 1\n"},
        head={"calc.py": _calc(fixed=False)},
        script=[*raised(*map(many_finding, range(MANY))), *clean(), *clean()],
    )
    p3 = {**EVAL, "priority": "P3", "confidence": 0.5}
    unseen = worlds(
        "unseen",
        base={".reviewbot.toml": "[budget]\ncontext_tokens = 3000\n", "app.py": "X = 1\n"},
        head={"app.py": APP},
        script=[
            *raised(p3),
            *raised(EVAL),
            reply(tool_use("confirm_review_node", {"id": "review-1", "reason": "read it"})),
            *clean(),
        ],
    )
    first = [
        w.start(ARGS, event_name="pull_request", event=pull_request_event(w))
        for w in (reverted, retargeted, refolded, renamed, moved, many, unseen)
    ]
    for run in (p.wait() for p in first):
        assert run.returncode == 0, run.stderr
    refolded_a = refolded.run(ARGS, event_name="check_suite", event=check_suite_event(refolded))

    merge_keeping_ours(reverted, "auth.py", AUTH_FIXED)
    retarget(retargeted, release, {"app.py": "X = 3\n"})
    refolded.push({"app.py": "X = 3\n"})
    rename(renamed, "app.py", "main_app.py")
    rename(moved, "app.py", "main_app.py", prefix="import os\n\n")
    many.push({"calc.py": _calc(fixed=True)})
    unseen.push({"app.py": APP + "\n\ndef total(xs):\n    return sum(xs)\n"})
    second = [
        w.start(ARGS, event_name="pull_request", event=pull_request_event(w, action="synchronize"))
        for w in (reverted, retargeted, refolded, renamed, moved, many, unseen)
    ]
    reverted_b, retargeted_b, refolded_b, renamed_b, moved_b, many_b, unseen_b = (
        p.wait() for p in second
    )

    many.push({"other.py": "Y = 2\n"})
    # C rewrites B (a force-push: a full review) and makes app.py too big to be seen.
    unseen.push({"app.py": APP + filler * 3}, amend=True)
    third = [
        w.start(ARGS, event_name="pull_request", event=pull_request_event(w, action="synchronize"))
        for w in (many, unseen)
    ]
    many_c, unseen_c = (p.wait() for p in third)
    return Flows(
        reverted_b=reverted_b,
        retargeted_b=retargeted_b,
        refolded_a=refolded_a,
        refolded_b=refolded_b,
        renamed_b=renamed_b,
        moved_b=moved_b,
        many_b=many_b,
        many_c=many_c,
        unseen_b=unseen_b,
        unseen_c=unseen_c,
    )


def _nodes(run: Run) -> dict[str, dict]:
    return {n["title"]: n for n in run.report()["nodes"]}


class TestRevertedByAMerge:
    def test_a_file_whose_pr_diff_is_new_is_shown(self, flows):
        """auth.py did not change since A, but it entered the PR (reverting the base's fix)."""
        run = flows.reverted_b
        assert run.returncode == 0, run.stderr
        report = run.report()
        assert report["review"]["kind"] == "incremental", report["review"]
        assert "auth.py" not in report["coverage"]["files_carried"]
        assert "-     return user.is_admin" in context_of(run)

    def test_a_new_base_branch_shows_the_files_it_brings_into_the_pr(self, flows):
        """The base became `release`, where auth.py is still fixed: the PR now reverts it."""
        run = flows.retargeted_b
        assert run.returncode == 0, run.stderr
        report = run.report()
        assert report["review"]["kind"] == "incremental", report["review"]
        assert "auth.py" not in report["coverage"]["files_carried"]
        assert "-     return user.is_admin" in context_of(run)


class TestRefoldKeepsTheUnseen:
    def test_the_refold_keeps_the_count(self, flows):
        """The re-fold's coverage is partial, and its summary still counts the 25 unseen files."""
        assert flows.refolded_a.returncode == 0, flows.refolded_a.stderr
        assert flows.refolded_a.report()["coverage"]["partial"] is True

    def test_the_next_push_is_not_a_clean_pass(self, flows):
        """The names were never recorded: the push after the re-fold is a full review, partial."""
        run = flows.refolded_b
        report = run.report()
        assert report["review"]["kind"] == "full", report["review"]
        assert report["coverage"]["partial"] is True
        assert check_conclusions(run) == ["failure"]


class TestRename:
    @pytest.mark.parametrize("name", ["renamed_b", "moved_b"])
    def test_the_finding_is_carried_to_the_new_path(self, flows, name):
        """A rename (with lines inserted above, or none) carries the P0 re-anchored, unresolved."""
        run = getattr(flows, name)
        report = run.report()
        assert report["review"]["kind"] == "incremental", report["review"]
        node = _nodes(run)[EVAL["title"]]
        assert node["anchor"]["path"] == "main_app.py"
        line = 7 if name == "moved_b" else 5
        assert (node["anchor"]["start_line"], node["anchor"]["end_line"]) == (line, line)
        assert node["status"] == "open"
        assert report["published"]["resolved"] == []
        assert report["verdict"] != "ship"
        assert check_conclusions(run) == ["failure"]


class TestResolvedBeyondTheEdits:
    def test_the_report_says_what_was_resolved(self, flows):
        """Eleven vanished findings: ten comments edited, ten resolved; the eleventh stands."""
        report = flows.many_b.report()
        assert len(report["published"]["resolved"]) == MANY - 1
        assert any("stand until the next run marks them" in n for n in report["published"]["notes"])
        standing = [n for n in report["nodes"] if n["title"].startswith("Division by")]
        assert len(standing) == 1
        assert standing[0]["status"] == "open"

    def test_the_rest_resolve_on_the_next_run(self, flows):
        """The next run resolves the eleventh, and nothing of them stands any more."""
        report = flows.many_c.report()
        assert len(report["published"]["resolved"]) == 1
        assert not [n for n in report["nodes"] if n["title"].startswith("Division by")]


class TestUnseenStanding:
    def test_a_finding_in_an_unseen_file_keeps_its_recorded_judgement(self, flows):
        """B confirmed the P0 (its inline comment says P3): standing unseen in C, it blocks."""
        run = flows.unseen_c
        report = run.report()
        assert report["review"]["kind"] == "full"
        node = _nodes(run)[EVAL["title"]]
        assert (node["priority"], node["status"]) == ("P0", "consensusReady")
        assert report["verdict"] == "block"
