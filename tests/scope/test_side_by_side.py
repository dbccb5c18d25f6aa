"""An incremental review side by side with a full one: never looser, on the same evidence.

Each scenario reviews head A of a real repository (the real agents and client against the
fake Messages API), remembers that review as the publisher leaves it on the PR (its summary
marker and its findings' postings), moves the PR to head B, and reviews B twice with the
same memory and the same model replies: once in the scope `decide_review` picks (it must
be incremental, or the comparison says nothing) and once in a full scope. Only the scope
differs, and the incremental review must never come out looser: its verdict and its check
conclusion at least as strict, its coverage at least as partial, no file covered that the
full review did not cover, and every finding the full review leaves standing standing in it.

Scenarios: a push that leaves the findings' files unchanged, a base that moved under the PR
(a merge that reverts the base's fix of a file the PR did not touch), a rename of a file
with a finding, and a file the first review could not see that the push did not change.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from reviewbot.coverage.policy import coverage_gap
from reviewbot.nodes.model import Status
from reviewbot.publish.conclusion import check_conclusion
from reviewbot.results.report import Report
from reviewbot.scope.decision import decide_review
from reviewbot.scope.full import FullScope
from reviewbot.scope.incremental import IncrementalScope
from reviewbot.scope.standing import Standing
from reviewbot.sources.git_repo import local_snapshot
from tests.fakes.gitrepo import GitRepo, make_repo
from tests.fakes.messages_api import reply, text, tool_use
from tests.fakes.reviewed import commit, remembered, review
from tests.fakes.two_bugs import BASE, HEAD, LEAK, ZERO

AUTH = "def allowed(token):\n    return token == 'admin'\n"
FOUND_BOTH = (
    reply(tool_use("add_review_node", LEAK), tool_use("add_review_node", ZERO)),
    reply(text("Two bugs.")),
)
FOUND_LEAK = (reply(tool_use("add_review_node", LEAK)), reply(text("One bug.")))
CLEAN = (reply(text("Nothing to report.")),)
BIG = "".join(f"line_{i} = {i} * 2  # a long enough line to cost tokens\n" for i in range(700))
STRICTNESS = {"success": 0, "neutral": 1, "failure": 2}


@dataclass(frozen=True, slots=True, kw_only=True)
class SideBySide:
    scope: IncrementalScope
    incremental: Report
    full: Report
    paths: tuple[str, ...]  # every path of the PR at B, with the paths before a rename


def side_by_side(repo: GitRepo, first, push, then) -> SideBySide:
    """Review A with `first`, `push(repo)` to B, and review B both ways with `then`."""
    with local_snapshot(repo.path, base="main") as snapshot:
        prior = remembered(review(snapshot, first))
    push(repo)
    with local_snapshot(repo.path, base="main") as snapshot:
        scope = decide_review(snapshot, prior)
        assert isinstance(scope, IncrementalScope), scope.run.reason
        standing = Standing.of(snapshot, prior)
        full = FullScope.of("side by side", config=snapshot.config, standing=standing)
        diff = snapshot.diff.files.values()
        return SideBySide(
            scope=scope,
            incremental=review(snapshot, then, prior=prior, plan=scope),
            full=review(snapshot, then, prior=prior, plan=full),
            paths=tuple(
                sorted({*(f.path for f in diff), *(f.old_path for f in diff if f.old_path)})
            ),
        )


def unchanged_files(repo: GitRepo) -> None:
    commit(repo, {"new.py": "VALUE = 1\n"})


def base_moved(repo: GitRepo) -> None:
    """The base fixes auth.py; the author merges it in but keeps the old auth.py."""
    repo.git("checkout", "--quiet", "main")
    commit(repo, {"auth.py": AUTH.replace("== 'admin'", "in ADMINS")}, "base fix")
    repo.git("checkout", "--quiet", "feature")
    repo.git("merge", "--quiet", "--no-edit", "main")
    commit(repo, {"auth.py": AUTH}, "keep our auth.py")


def renamed(repo: GitRepo) -> None:
    repo.git("mv", "util.py", "helpers.py")
    repo.git("commit", "--quiet", "-m", "rename")


def assert_never_looser(seen: SideBySide) -> None:
    incremental, full = seen.incremental, seen.full
    assert incremental.verdict >= full.verdict
    for advisory in (False, True):
        assert (
            STRICTNESS[check_conclusion(incremental, advisory_hold=advisory)]
            >= STRICTNESS[check_conclusion(full, advisory_hold=advisory)]
        )
    assert incremental.coverage is not None
    assert full.coverage is not None
    assert incremental.coverage.partial >= full.coverage.partial
    assert coverage_gap(full.coverage) is None or coverage_gap(incremental.coverage) is not None
    for path in (*seen.paths, None):
        assert full.coverage.covers(path) or not incremental.coverage.covers(path), path
    standing = {Status.OPEN, Status.CONSENSUS_READY}
    assert {n.fingerprint for n in full.nodes if n.status in standing} <= {
        n.fingerprint for n in incremental.nodes if n.status in standing
    }


@pytest.fixture
def repo(tmp_path) -> GitRepo:
    return make_repo(tmp_path / "repo", {**BASE, "auth.py": AUTH}, HEAD)


class TestNeverLooserThanFull:
    def test_a_push_that_leaves_the_findings_files_unchanged(self, repo):
        """Both findings carried; the full review raises one again and keeps the other (unchanged)."""
        seen = side_by_side(repo, FOUND_BOTH, unchanged_files, FOUND_LEAK)
        assert (seen.scope.run.kind, seen.scope.carried().rejudge) == ("incremental", ())
        assert len(seen.scope.carried().kept) == 2
        assert_never_looser(seen)
        both = {LEAK["title"], ZERO["title"]}
        assert {n.title for n in seen.incremental.nodes} == both
        assert {n.title for n in seen.full.nodes} == both

    def test_a_base_that_moved_under_the_pr(self, repo):
        """auth.py enters the PR's diff without changing since A: the agents see it."""
        seen = side_by_side(repo, FOUND_BOTH, base_moved, CLEAN)
        assert "auth.py" in seen.scope.changed.files
        assert_never_looser(seen)
        assert seen.incremental.coverage is not None
        assert "auth.py" not in seen.incremental.coverage.files_carried

    def test_a_rename_of_a_file_with_a_finding(self, repo):
        """ZERO moves with util.py to helpers.py and stands; the full review found nothing."""
        seen = side_by_side(repo, FOUND_BOTH, renamed, CLEAN)
        assert_never_looser(seen)
        zero = next(n for n in seen.incremental.nodes if n.title == ZERO["title"])
        assert zero.anchor is not None
        assert zero.anchor.path == "helpers.py"

    def test_a_file_the_first_review_could_not_see(self, tmp_path):
        """big.py did not fit A's context and did not change: unseen in both, never covered."""
        repo = make_repo(
            tmp_path / "repo",
            {".reviewbot.toml": "[budget]\ncontext_tokens = 4000\n", **BASE},
            {**HEAD, "big.py": BIG},
        )
        seen = side_by_side(repo, CLEAN, unchanged_files, CLEAN)
        assert_never_looser(seen)
        assert seen.incremental.coverage is not None
        assert seen.incremental.coverage.partial
        assert not seen.incremental.coverage.covers("big.py")
        assert check_conclusion(seen.incremental) == "failure"
