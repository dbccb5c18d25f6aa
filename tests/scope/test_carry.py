"""Earlier findings through a push: carried when their lines did not change (scope/carry.py).

Each case is a real push in a real repository: `main` is the reviewed head, `feature` the new one.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from git import Repo

from reviewbot.nodes.model import Anchor, Finding, Kind, Priority
from reviewbot.nodes.stamp import stamp
from reviewbot.scope.carry import Carried, carry_forward
from reviewbot.sources.diff_index import DiffIndex, index_from_unified_diff
from reviewbot.sources.git_repo import diff_index, lines_at, push_since
from tests.fakes.gitrepo import make_repo

NO_PATCH = DiffIndex(files={})
OLD = "def f(x):\n    y = x + 1\n    return y * 2\n\n\ndef g():\n    pass\n"


def node(
    start: int, end: int, *, path: str = "a.py", quote: str | None = None, side: str = "RIGHT"
):
    text = OLD.split("\n")
    anchor = None
    if start:
        anchor = Anchor(
            path=path,
            start_line=start,
            end_line=end,
            quote="\n".join(text[start - 1 : end]) if quote is None else quote,
            side=side,  # type: ignore[arg-type]
        )
    finding = Finding(
        kind=Kind.BUG, priority=Priority.P1, confidence=0.9, title="Off by one", anchor=anchor
    )
    return stamp(finding, id="review-1", author="review", commit_sha=None)


def carried(
    tmp_path: Path,
    new: dict[str, str | None],
    *nodes,
    pr: DiffIndex = NO_PATCH,
    gone: bool = False,
) -> Carried:
    """`nodes` of `main` carried to `feature`; `gone`: `main` is not in the clone (a force-push)."""
    repo = make_repo(tmp_path / "r", base={"a.py": OLD, "b.py": "b = 1\n"}, head=new)
    since, head = repo.sha("main"), repo.sha("feature")
    push = push_since(repo.path, since, head)
    assert not isinstance(push, str)
    return carry_forward(
        nodes,
        moved=None if gone else push.moved,
        since=since,
        old_lines=lambda path: None if gone else lines_at(repo.path, since, path),
        new_lines=lambda path: lines_at(repo.path, head, path),
        pr=pr,
    )


def deleting(old_start: int, *removed: str) -> DiffIndex:
    """The PR's patch of a.py: it deletes `removed`, numbered from `old_start` in its base."""
    lines = "".join(f"-{line}\n" for line in removed)
    count = len(removed)
    return index_from_unified_diff(
        "diff --git a/a.py b/a.py\n--- a/a.py\n+++ b/a.py\n"
        f"@@ -{old_start},{count} +{old_start - 1},0 @@\n{lines}"
    )


class TestCarried:
    def test_lines_shifted_by_an_insertion_above_are_re_anchored(self, tmp_path: Path):
        """Two lines inserted above: the same text two lines down, carried there."""
        out = carried(tmp_path, {"a.py": "import os\n\n" + OLD}, node(2, 3))
        assert out.rejudge == ()
        (kept,) = out.kept
        assert kept.anchor is not None
        assert (kept.anchor.start_line, kept.anchor.end_line) == (4, 5)
        assert kept.anchor.quote == "    y = x + 1\n    return y * 2"
        assert kept.id.endswith(":review-1")

    def test_a_change_below_leaves_the_lines_where_they_are(self, tmp_path: Path):
        """An edit after the anchored lines does not move them."""
        out = carried(tmp_path, {"a.py": OLD.replace("pass", "return 1")}, node(2, 2))
        assert [(n.anchor.start_line, n.anchor.end_line) for n in out.kept if n.anchor] == [(2, 2)]

    def test_a_file_the_push_did_not_touch_keeps_its_findings(self, tmp_path: Path):
        """Only b.py changed: the finding in a.py is carried as it is."""
        out = carried(tmp_path, {"b.py": "b = 2\n"}, node(2, 2))
        assert len(out.kept) == 1

    def test_a_note_about_the_whole_pr_is_carried(self, tmp_path: Path):
        """No anchor: nothing a push changes shows it fixed."""
        out = carried(tmp_path, {"a.py": "# x\n" + OLD}, node(0, 0))
        assert len(out.kept) == 1
        assert out.kept[0].anchor is None

    def test_deleted_lines_the_pr_still_deletes_are_carried(self, tmp_path: Path):
        """A LEFT anchor: the PR's patch still deletes its line, where it was."""
        pr = deleting(2, "    y = x + 1")
        out = carried(tmp_path, {"a.py": "# x\n" + OLD}, node(2, 2, side="LEFT"), pr=pr)
        (kept,) = out.kept
        assert kept.anchor is not None
        assert (kept.anchor.start_line, kept.anchor.side) == (2, "LEFT")

    def test_deleted_lines_renumbered_by_a_merged_base_move_with_them(self, tmp_path: Path):
        """The base grew two lines above and was merged in: the same deletion is now base line 4."""
        pr = deleting(4, "    y = x + 1")
        out = carried(tmp_path, {"b.py": "b = 2\n"}, node(2, 2, side="LEFT"), pr=pr)
        (kept,) = out.kept
        assert kept.anchor is not None
        assert (kept.anchor.start_line, kept.anchor.end_line) == (4, 4)

    def test_deleted_lines_around_a_context_line_are_carried_when_nothing_changed(
        self, tmp_path: Path
    ):
        """A LEFT anchor on base lines 2–4, where the PR deletes 2 and 4 and keeps 3 (a context
        line, commentable on the LEFT side too). The push touched b.py only: carried as it is."""
        pr = index_from_unified_diff(
            "diff --git a/a.py b/a.py\n--- a/a.py\n+++ b/a.py\n"
            "@@ -1,5 +1,3 @@\n def f(x):\n-    y = x + 1\n     return y * 2\n-\n \n"
        )
        left = node(2, 4, quote="    y = x + 1\n    return y * 2\n", side="LEFT")
        out = carried(tmp_path, {"b.py": "b = 2\n"}, left, pr=pr)
        assert out.rejudge == (), [r.why for r in out.rejudge]
        (kept,) = out.kept
        assert kept.anchor is not None
        assert (kept.anchor.start_line, kept.anchor.end_line, kept.anchor.side) == (2, 4, "LEFT")

    def test_lines_that_read_the_same_carry_when_the_reviewed_head_is_gone(self, tmp_path: Path):
        """A force-push: the old head cannot be read, the lines are found by what they say."""
        out = carried(tmp_path, {"a.py": "import os\n\n" + OLD}, node(2, 3), gone=True)
        (kept,) = out.kept
        assert kept.anchor is not None
        assert (kept.anchor.start_line, kept.anchor.end_line) == (4, 5)
        assert "is not in the clone, and its lines read the same here" in kept.notes[-1]

    def test_a_kept_finding_says_why(self, tmp_path: Path):
        """Its note is what the summary and the report show when the run does not repeat it."""
        (kept,) = carried(tmp_path, {"b.py": "b = 2\n"}, node(2, 2)).kept
        assert kept.notes[-1].startswith("not raised again, code unchanged: kept")

    def test_a_quote_its_recorded_lines_do_not_have_is_found_by_its_fingerprint(self, tmp_path):
        """The recorded lines are not the fingerprint's: carried where the fingerprint's lines are."""
        out = carried(tmp_path, {"b.py": "b = 2\n"}, node(2, 2, quote="    return y * 2"))
        (kept,) = out.kept
        assert kept.anchor is not None
        assert (kept.anchor.start_line, kept.anchor.quote) == (3, "    return y * 2")


class TestRejudged:
    @pytest.mark.parametrize(
        ("new", "why"),
        [
            (OLD.replace("x + 1", "x + 2"), "the push changed its lines"),
            (
                OLD.replace("    y = x + 1\n", "    y = x + 1\n    y += 0\n"),
                "the push changed its lines",
            ),
            (None, "the push deleted its file, and the new head has no such lines"),
        ],
        ids=["edited", "a line inserted between", "file deleted"],
    )
    def test_changed_lines_are_re_judged(self, tmp_path: Path, new, why):
        """An anchored line edited, a line inserted between two anchored ones, the file gone."""
        out = carried(tmp_path, {"a.py": new}, node(2, 3))
        assert out.kept == ()
        (item,) = out.rejudge
        assert item.why == why
        assert item.quote == "    y = x + 1\n    return y * 2"

    def test_a_quote_that_is_nowhere_in_the_file_is_re_judged(self, tmp_path: Path):
        """The fingerprint's lines are neither where recorded nor anywhere else: never carried blind."""
        out = carried(tmp_path, {"b.py": "b = 2\n"}, node(2, 2, quote="    return None"))
        assert out.kept == ()
        assert out.rejudge[0].why == (
            "its lines do not match its fingerprint, and the new head has no such lines"
        )

    def test_changed_lines_are_re_judged_when_the_reviewed_head_is_gone(self, tmp_path: Path):
        """A force-push that changed the anchored line: nothing reads as the fingerprint says."""
        new = OLD.replace("x + 1", "x + 2")
        out = carried(tmp_path, {"a.py": new}, node(2, 2), gone=True)
        assert out.kept == ()
        assert out.rejudge[0].why == (
            "the head it was last seen on is not in the clone, and the new head has no such lines"
        )

    def test_an_edit_of_the_lines_in_a_renamed_file_is_re_judged(self, tmp_path: Path):
        """Renamed and the anchored line edited: the code changed where the finding was."""
        out = carried(tmp_path, {"a.py": None, "c.py": OLD.replace("x + 1", "x + 2")}, node(2, 2))
        assert out.kept == ()
        assert out.rejudge[0].why == "the push changed its lines"

    def test_deleted_lines_the_pr_no_longer_deletes_are_re_judged(self, tmp_path: Path):
        """A LEFT anchor whose line the PR's patch does not delete any more (it was restored)."""
        pr = deleting(3, "    return y * 2")
        out = carried(tmp_path, {"b.py": "b = 2\n"}, node(2, 2, side="LEFT"), pr=pr)
        assert out.kept == ()
        assert out.rejudge[0].why == "the PR no longer deletes these lines"

    def test_a_deleted_line_the_push_restored_is_re_judged_though_it_is_context_now(
        self, tmp_path: Path
    ):
        """The PR deleted lines 2 and 4; the push restores line 2. It is a context line of the
        PR's patch now (LEFT-commentable), but not the deletion the review saw: re-judged."""
        gone_2_4 = OLD.replace("    y = x + 1\n", "").replace("\n\n\ndef g", "\n\ndef g")
        repo = make_repo(tmp_path / "r", base={"a.py": OLD}, head={"a.py": gone_2_4})
        since = repo.sha("feature")
        repo.write("a.py", OLD.replace("\n\n\ndef g", "\n\ndef g"))
        repo.git("commit", "--quiet", "--all", "-m", "restore line 2")
        head = repo.sha("feature")
        pr = diff_index(Repo(repo.path), repo.sha("main"), head)
        assert any(line.old_no == 2 for hunk in pr.files["a.py"].hunks for line in hunk.lines)
        push = push_since(repo.path, since, head)
        assert not isinstance(push, str)
        out = carry_forward(
            (node(2, 2, side="LEFT"),),
            moved=push.moved,
            since=since,
            old_lines=lambda path: lines_at(repo.path, since, path),
            new_lines=lambda path: lines_at(repo.path, head, path),
            pr=pr,
        )
        assert out.kept == ()
        assert out.rejudge[0].why == "the PR no longer deletes these lines"

    def test_lines_past_the_end_of_the_reviewed_file_are_re_judged(self, tmp_path: Path):
        """An anchor past the end of the file at the reviewed head cannot be checked: re-judged."""
        out = carried(tmp_path, {"b.py": "b = 2\n"}, node(20, 21, quote="gone"))
        assert out.kept == ()
        (item,) = out.rejudge
        assert (item.why, item.quote) == (
            "its lines could not be read at the reviewed head, and the new head has no such lines",
            "gone",
        )

    def test_a_finding_in_a_file_missing_at_the_reviewed_head_is_re_judged(self, tmp_path: Path):
        """No such file at the reviewed head (a stale anchor): never carried blind."""
        out = carried(tmp_path, {"b.py": "b = 2\n"}, node(1, 1, path="nowhere.py", quote="x"))
        assert out.kept == ()
        assert out.rejudge[0].why == (
            "its lines could not be read at the reviewed head, and the new head has no such lines"
        )


class TestRenamed:
    def test_a_pure_rename_carries_the_finding_to_the_new_path(self, tmp_path: Path):
        """`git mv a.py c.py`: the lines moved unchanged, so the finding moves with them."""
        out = carried(tmp_path, {"a.py": None, "c.py": OLD}, node(2, 3))
        assert out.rejudge == ()
        (kept,) = out.kept
        assert kept.anchor is not None
        assert (kept.anchor.path, kept.anchor.start_line, kept.anchor.end_line) == ("c.py", 2, 3)
        assert kept.fingerprint == node(2, 3).fingerprint  # the same finding, the same comment

    def test_a_rename_with_lines_inserted_above_re_anchors(self, tmp_path: Path):
        """Renamed, two lines inserted above the finding and an edit below it: carried, shifted."""
        new = "import os\n\n" + OLD.replace("pass", "return 1")
        out = carried(tmp_path, {"a.py": None, "c.py": new}, node(2, 3))
        assert out.rejudge == ()
        (kept,) = out.kept
        assert kept.anchor is not None
        assert (kept.anchor.path, kept.anchor.start_line, kept.anchor.end_line) == ("c.py", 4, 5)

    def test_a_finding_renamed_twice_is_checked_against_where_it_was_posted(self, tmp_path: Path):
        """Already carried to a.py from `first.py`: its fingerprint names first.py, still carried."""
        repo = make_repo(tmp_path / "r", base={"a.py": OLD}, head={"a.py": None, "d.py": OLD})
        since, head = repo.sha("main"), repo.sha("feature")
        push = push_since(repo.path, since, head)
        assert not isinstance(push, str)
        posted = node(2, 2, path="first.py")
        assert posted.anchor is not None
        here = posted.model_copy(
            update={"anchor": posted.anchor.model_copy(update={"path": "a.py"})}
        )
        kwargs = {
            "moved": push.moved,
            "since": since,
            "old_lines": lambda path: lines_at(repo.path, since, path),
            "new_lines": lambda path: lines_at(repo.path, head, path),
            "pr": NO_PATCH,
        }
        out = carry_forward((here,), posted_at={posted.fingerprint: "first.py"}, **kwargs)
        assert [n.anchor.path for n in out.kept if n.anchor] == ["d.py"]
        # Without knowing where it was posted, the fingerprint does not check out: re-judged.
        assert carry_forward((here,), **kwargs).kept == ()

    def test_a_renamed_file_read_by_content_keeps_its_finding(self, tmp_path: Path):
        """A force-push (the reviewed head is gone) that also renamed a.py to c.py, its lines
        untouched: the PR's patch shows the rename, the text is the same, so the finding is
        carried to c.py, not re-judged (a full review's silence would then resolve it)."""
        repo = make_repo(tmp_path / "r", base={"a.py": OLD}, head={"a.py": None, "c.py": OLD})
        since, head = repo.sha("main"), repo.sha("feature")
        pr = diff_index(Repo(repo.path), since, head)  # the PR's patch against its base
        assert any(f.old_path == "a.py" and f.path == "c.py" for f in pr)
        posted = node(2, 3)
        out = carry_forward(
            (posted,),
            moved=None,  # `since` is not in the clone
            since=since,
            old_lines=lambda path: None,
            new_lines=lambda path: lines_at(repo.path, head, path),
            pr=pr,
            posted_at={posted.fingerprint: "a.py"},
        )
        assert out.rejudge == (), [r.why for r in out.rejudge]
        (kept,) = out.kept
        assert kept.anchor is not None
        assert (kept.anchor.path, kept.anchor.start_line, kept.anchor.end_line) == ("c.py", 2, 3)

    def test_a_file_the_pr_added_then_renamed_by_a_force_push_keeps_its_finding(
        self, tmp_path: Path
    ):
        """The PR added a.py, and a force-push renamed it to c.py: the PR's patch only adds
        c.py (no rename to follow), yet its lines read as the finding's: carried there."""
        repo = make_repo(tmp_path / "r", base={"b.py": "b = 1\n"}, head={"c.py": OLD})
        head = repo.sha("feature")
        posted = node(2, 3)
        out = carry_forward(
            (posted,),
            moved=None,
            since="0" * 40,
            old_lines=lambda path: None,
            new_lines=lambda path: lines_at(repo.path, head, path),
            pr=diff_index(Repo(repo.path), repo.sha("main"), head),
            posted_at={posted.fingerprint: "a.py"},
        )
        assert [n.anchor.path for n in out.kept if n.anchor] == ["c.py"]

    def test_deleted_lines_in_a_file_the_pr_now_renames_are_carried(self, tmp_path: Path):
        """A LEFT anchor in a.py; a force-push renamed a.py to c.py, still deleting the line:
        the PR's patch of c.py deletes it, so the finding is carried to c.py."""
        head_text = OLD.replace("    y = x + 1\n", "")
        repo = make_repo(tmp_path / "r", base={"a.py": OLD}, head={"a.py": None, "c.py": head_text})
        head = repo.sha("feature")
        pr = diff_index(Repo(repo.path), repo.sha("main"), head)
        assert pr.files["c.py"].old_path == "a.py"
        out = carry_forward(
            (node(2, 2, side="LEFT"),),
            moved=None,
            since="0" * 40,
            old_lines=lambda path: None,
            new_lines=lambda path: lines_at(repo.path, head, path),
            pr=pr,
        )
        assert [(n.anchor.path, n.anchor.start_line) for n in out.kept if n.anchor] == [("c.py", 2)]

    def test_a_rename_git_does_not_detect_keeps_the_unchanged_lines_finding(self, tmp_path):
        """a.py deleted and c.py added with most of it rewritten (too little alike for git to
        call it a rename), the anchored lines among what stayed: carried to c.py."""
        rest = "".join(f"def h{n}():\n    return {n}\n" for n in range(12))
        out = carried(
            tmp_path, {"a.py": None, "c.py": OLD.split("\n\n\n")[0] + "\n" + rest}, node(2, 3)
        )
        assert out.rejudge == (), [r.why for r in out.rejudge]
        assert [(n.anchor.path, n.anchor.start_line) for n in out.kept if n.anchor] == [("c.py", 2)]


class TestShiftedBelowAHunk:
    def test_lines_below_every_hunk_move_by_the_net_insertion(self, tmp_path: Path):
        """Lines after the last hunk move by what the hunks added minus what they removed."""
        new = "import os\nimport sys\n\n" + OLD.replace("x + 1", "x + 10")  # +3, one line edited
        out = carried(tmp_path, {"a.py": new}, node(6, 7))
        assert out.rejudge == ()
        (kept,) = out.kept
        assert kept.anchor is not None
        assert (kept.anchor.start_line, kept.anchor.end_line) == (9, 10)
        assert kept.anchor.quote == "def g():\n    pass"

    def test_lines_between_two_hunks_move_by_the_first_only(self, tmp_path: Path):
        """Between two hunks, only the hunk above shifts the lines."""
        body = "".join(f"v{n} = {n}\n" for n in range(1, 31))
        old = OLD + body
        new = "# top\n" + OLD + body.replace("v30 = 30", "v30 = 31")
        repo = make_repo(tmp_path / "r", base={"a.py": old}, head={"a.py": new})
        since, head = repo.sha("main"), repo.sha("feature")
        push = push_since(repo.path, since, head)
        assert not isinstance(push, str)
        line = old.split("\n").index("v15 = 15") + 1
        finding = Finding(
            kind=Kind.BUG,
            priority=Priority.P1,
            confidence=0.9,
            title="Off by one",
            anchor=Anchor(path="a.py", start_line=line, end_line=line, quote="v15 = 15"),
        )
        out = carry_forward(
            (stamp(finding, id="review-1", author="review", commit_sha=None),),
            moved=push.moved,
            since=since,
            old_lines=lambda path: lines_at(repo.path, since, path),
            new_lines=lambda path: lines_at(repo.path, head, path),
            pr=NO_PATCH,
        )
        (kept,) = out.kept
        assert kept.anchor is not None
        assert kept.anchor.start_line == line + 1
