"""An earlier finding not raised again resolves only when its code changed and a reviewer saw it.

Head A of a real repository gets two findings (`LEAK` in app.py, `ZERO` in util.py); a push
moves the PR to head B and a full review of B (`/review full`) does not raise them again. The
model is not deterministic: its silence is no evidence of a fix unless the lines a finding is
anchored to changed between the head it was last seen on and B. Then, and only then, it
resolves as before; otherwise it stands in B's report, counted in the verdict, its comment and
thread left open, with a note that says why. The same holds through a rename read by
content (a force-push) and for a finding on the base's lines (LEFT) across a context line.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from reviewbot.coverage.model import Coverage, UnseenFile
from reviewbot.memory.markers import SummaryMarker
from reviewbot.memory.prior import PriorState, PriorSummary
from reviewbot.nodes.model import Status
from reviewbot.results.report import Report
from reviewbot.review.pipeline import unseen_standing
from reviewbot.review.resolution import resolution
from reviewbot.scope.decision import decide_review
from reviewbot.scope.full import FullScope
from reviewbot.sources.diff_index import LineKind
from reviewbot.sources.git_repo import local_snapshot
from reviewbot.verdict.lattice import Verdict
from tests.fakes.gitrepo import GitRepo, make_repo
from tests.fakes.messages_api import reply, text, tool_use
from tests.fakes.reviewed import commit, remembered, review
from tests.fakes.two_bugs import APP, BASE, HEAD, LEAK, UTIL, ZERO

FOUND_BOTH = (
    reply(tool_use("add_review_node", LEAK), tool_use("add_review_node", ZERO)),
    reply(text("Two bugs.")),
)
CLEAN = (reply(text("Nothing to report.")),)
KEPT = "not raised again, code unchanged: kept"
# An open P2 holds: the verdict shows whether a finding stood.
HOLD_ON_P2 = '[[policy.rules]]\nstatus = "open"\npriorities = ["P2"]\neffect = "hold"\n'


@pytest.fixture
def repo(tmp_path) -> GitRepo:
    return make_repo(tmp_path / "repo", {**BASE, ".reviewbot.toml": HOLD_ON_P2}, HEAD)


def first_review(repo: GitRepo) -> tuple[Report, PriorState]:
    with local_snapshot(repo.path, base="main") as snapshot:
        report = review(snapshot, FOUND_BOTH)
    # A maintainer asked for `/review full` after it: the next review is full.
    return report, replace(remembered(report), full_requests=(99,))


def full_again(repo: GitRepo, prior: PriorState, push: dict[str, str | None]):
    """Push, then review the new head in full with a model that raises nothing."""
    commit(repo, push)
    with local_snapshot(repo.path, base="main") as snapshot:
        scope = decide_review(snapshot, prior)
        assert isinstance(scope, FullScope), scope
        report = review(snapshot, CLEAN, prior=prior, plan=scope)
        settled = resolution(
            report.nodes, report.coverage, report.agents, prior=prior, head_sha=snapshot.head_sha
        )
    return report, settled


def standing(report: Report) -> dict[str, str]:
    """Title → the last note of each standing finding."""
    return {
        n.title: n.notes[-1] if n.notes else ""
        for n in report.nodes
        if n.status in (Status.OPEN, Status.CONSENSUS_READY)
    }


class TestUnchangedCodeKeepsItsFinding:
    def test_a_full_review_of_a_push_that_did_not_touch_the_files(self, repo):
        """Neither file changed: both findings stand, the verdict is A's, nothing resolves."""
        first, prior = first_review(repo)
        report, settled = full_again(repo, prior, {"new.py": "VALUE = 1\n"})
        kept = standing(report)
        assert set(kept) == {LEAK["title"], ZERO["title"]}
        assert all(KEPT in note for note in kept.values()), kept
        assert (first.verdict, report.verdict) == (Verdict.HOLD, Verdict.HOLD)
        assert (settled.now, settled.later) == ((), ())

    def test_an_edit_elsewhere_in_the_file_keeps_the_finding(self, repo):
        """app.py changed below LEAK's line: LEAK stands on its line, unchanged."""
        first, prior = first_review(repo)
        edited = APP.replace("len(load(path))", "len(load(path)) + 0")
        report, settled = full_again(repo, prior, {"app.py": "import os\n\n\n" + edited})
        leak = next(n for n in report.nodes if n.title == LEAK["title"])
        assert leak.status is Status.OPEN
        assert leak.anchor is not None
        assert (leak.anchor.start_line, leak.anchor.end_line) == (5, 5)
        assert (first.verdict, report.verdict) == (Verdict.HOLD, Verdict.HOLD)
        assert settled.now == ()

    def test_changed_anchored_lines_resolve_as_before(self, repo):
        """LEAK's own line changed and the reviewer saw app.py: LEAK resolves; ZERO stands."""
        _, prior = first_review(repo)
        fixed = APP.replace(
            "return open(path).read()", "with open(path) as f:\n        return f.read()"
        )
        report, settled = full_again(repo, prior, {"app.py": fixed})
        assert set(standing(report)) == {ZERO["title"]}
        assert [p.node.title for p in settled.now] == [LEAK["title"]]

    def test_a_head_no_longer_in_the_clone_keeps_what_still_reads_the_same(self, repo):
        """A force-push: A is gone, so the findings' lines are read at B; LEAK's changed, ZERO's not."""
        _, prior = first_review(repo)
        assert prior.summary is not None
        assert prior.summary.marker is not None
        gone = prior.summary.marker.model_copy(update={"head_sha": "0" * 40})
        prior = replace(prior, summary=replace(prior.summary, marker=gone))
        fixed = APP.replace("return open(path).read()", "return ''")
        report, settled = full_again(repo, prior, {"app.py": "# moved\n" + fixed})
        assert set(standing(report)) == {ZERO["title"]}
        assert [p.node.title for p in settled.now] == [LEAK["title"]]

    def test_a_force_push_that_renamed_the_file_keeps_its_finding_at_the_new_path(self, repo):
        """A force-push: A is gone, and the push renamed util.py to helpers.py, ZERO's line
        untouched. Read by content, the renamed file has it: ZERO stands there, unresolved,
        and the summary records its new path (what the next run's coverage is asked about)."""
        _, prior = first_review(repo)
        prior = _gone(prior)
        report, settled = full_again(repo, prior, {"util.py": None, "helpers.py": UTIL})
        assert set(standing(report)) == {LEAK["title"], ZERO["title"]}
        zero = next(n for n in report.nodes if n.title == ZERO["title"])
        assert zero.anchor is not None
        assert zero.anchor.path == "helpers.py"
        assert settled.now == ()
        marker = SummaryMarker.of(report, head_sha="b" * 40, posted_at=prior.posted_at())
        assert {s.fingerprint: s.path for s in marker.nodes or ()}[zero.fingerprint] == "helpers.py"
        # The next run edits helpers.py's line 2 and does not see helpers.py: util.py (where
        # ZERO was posted) is gone from the PR, but what counts is where ZERO is now.
        later = replace(prior, summary=PriorSummary(comment_id=1, marker=marker))
        blind = Coverage(files_total=2, files_in_context=1, unseen=(UNSEEN_HELPERS,), partial=True)
        kept = unseen_standing(later, (), blind)
        assert [n.title for n in kept] == [ZERO["title"]]
        after = resolution(kept, blind, report.agents, prior=later, head_sha="c" * 40)
        assert ZERO["title"] not in [p.node.title for p in after.now]

    def test_a_full_review_again_of_the_same_head(self, repo):
        """A push, an incremental review carries both; a full review of that head again keeps them."""
        first, _ = first_review(repo)
        prior = remembered(first)  # no `/review full`: the push is reviewed incrementally
        commit(repo, {"new.py": "VALUE = 1\n"})
        with local_snapshot(repo.path, base="main") as snapshot:
            carried = review(snapshot, CLEAN, prior=prior, plan=decide_review(snapshot, prior))
            assert carried.review is not None
            assert carried.review.kind == "incremental"
            again = remembered(carried)
            scope = decide_review(snapshot, again)
            assert isinstance(scope, FullScope)
            report = review(snapshot, CLEAN, prior=again, plan=scope)
            settled = resolution(
                report.nodes,
                report.coverage,
                report.agents,
                prior=again,
                head_sha=snapshot.head_sha,
            )
        assert set(standing(report)) == {LEAK["title"], ZERO["title"]}
        assert report.verdict == Verdict.HOLD
        assert settled.now == ()


UNSEEN_HELPERS = UnseenFile(path="helpers.py", reason="budget", remedy="raise the budget")


def _gone(prior: PriorState) -> PriorState:
    """`prior` as if its reviewed head had been force-pushed away (not in the clone)."""
    assert prior.summary is not None
    assert prior.summary.marker is not None
    gone = prior.summary.marker.model_copy(update={"head_sha": "0" * 40})
    return replace(prior, summary=replace(prior.summary, marker=gone))


HEADER = "".join(f"# line {n}\n" for n in range(1, 6))
LIB_BASE = HEADER + "def check(x):\n    validate(x)\n    return x\n"
REMOVED = {
    "kind": "bug",
    "priority": "P2",
    "confidence": 0.8,
    "title": "Validation removed",
    "body": "`check` no longer validates its input.",
    "anchor": {
        "path": "lib.py",
        "start_line": 7,
        "end_line": 7,
        "quote": "    validate(x)",
        "side": "LEFT",
    },
}
FOUND_REMOVED = (reply(tool_use("add_review_node", REMOVED)), reply(text("One bug.")))


def merge_base_above(repo: GitRepo) -> None:
    """The base grows three lines above the PR's deletion; the author merges it in."""
    repo.git("checkout", "--quiet", "main")
    commit(repo, {"lib.py": "# a\n# b\n# c\n" + LIB_BASE}, "base grows")
    repo.git("checkout", "--quiet", "feature")
    repo.git("merge", "--quiet", "--no-edit", "main")


class TestDeletedLinesAfterTheBaseIsMergedIn:
    @pytest.mark.parametrize("full", [False, True], ids=["incremental", "full"])
    def test_the_finding_on_deleted_lines_moves_with_them(self, tmp_path, full):
        """The PR still deletes `validate(x)`, now base line 10: the finding stands there."""
        head = {"lib.py": LIB_BASE.replace("    validate(x)\n", "")}
        repo = make_repo(tmp_path / "repo", {"lib.py": LIB_BASE}, head)
        with local_snapshot(repo.path, base="main") as snapshot:
            prior = remembered(review(snapshot, FOUND_REMOVED))
        merge_base_above(repo)
        with local_snapshot(repo.path, base="main") as snapshot:
            prior = replace(prior, full_requests=(99,)) if full else prior
            scope = decide_review(snapshot, prior)
            assert isinstance(scope, FullScope) is full, scope.run.reason
            report = review(snapshot, CLEAN, prior=prior, plan=scope)
            deleted = {
                line.old_no: line.text
                for hunk in snapshot.diff.files["lib.py"].hunks
                for line in hunk.lines
                if line.kind is LineKind.DELETED
            }
        [node] = [n for n in report.nodes if n.title == REMOVED["title"]]
        assert node.anchor is not None
        assert (node.anchor.start_line, node.anchor.side) == (10, "LEFT")
        assert deleted == {10: "    validate(x)"}
        assert node.notes[-1].startswith(KEPT)


AUDITED = HEADER + "def check(x):\n    validate(x)\n    log(x)\n    audit(x)\n    return x\n"
SPANNING = {
    **REMOVED,
    "anchor": {
        "path": "lib.py",
        "start_line": 7,
        "end_line": 9,
        "quote": "    validate(x)\n    log(x)\n    audit(x)",
        "side": "LEFT",
    },
}


class TestDeletedLinesAroundAContextLine:
    @pytest.mark.parametrize("full", [False, True], ids=["incremental", "full"])
    def test_an_untouched_left_anchor_over_a_context_line_stands(self, tmp_path, full):
        """The PR deletes base lines 7 and 9 and keeps 8; a LEFT finding spans 7–9. The push
        touches another file: the finding stands as it was, in both scopes, never resolved."""
        head = {"lib.py": AUDITED.replace("    validate(x)\n", "").replace("    audit(x)\n", "")}
        repo = make_repo(tmp_path / "repo", {"lib.py": AUDITED}, head)
        script = (reply(tool_use("add_review_node", SPANNING)), reply(text("One bug.")))
        with local_snapshot(repo.path, base="main") as snapshot:
            first = review(snapshot, script)
            assert [n.title for n in first.nodes] == [REMOVED["title"]]
            prior = remembered(first)
        commit(repo, {"new.py": "VALUE = 1\n"})
        with local_snapshot(repo.path, base="main") as snapshot:
            prior = replace(prior, full_requests=(99,)) if full else prior
            scope = decide_review(snapshot, prior)
            assert isinstance(scope, FullScope) is full, scope.run.reason
            assert scope.carried().rejudge == ()
            report = review(snapshot, CLEAN, prior=prior, plan=scope)
            settled = resolution(
                report.nodes,
                report.coverage,
                report.agents,
                prior=prior,
                head_sha=snapshot.head_sha,
            )
        [node] = [n for n in report.nodes if n.title == REMOVED["title"]]
        assert node.anchor is not None
        assert (node.anchor.start_line, node.anchor.end_line, node.anchor.side) == (7, 9, "LEFT")
        assert node.notes[-1].startswith(KEPT)
        assert settled.now == ()
