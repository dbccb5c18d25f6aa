"""Earlier findings through a push: carried when their lines did not change (scope/carry.py).

Each case is a real push in a real repository: `main` is the reviewed head, `feature` the new one.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from reviewbot.nodes.model import Anchor, Finding, Kind, Priority
from reviewbot.nodes.stamp import stamp
from reviewbot.scope.carry import Carried, carry_forward
from reviewbot.sources.git_repo import lines_at, push_since
from tests.fakes.gitrepo import make_repo

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


def carried(tmp_path: Path, new: dict[str, str | None], *nodes) -> Carried:
    repo = make_repo(tmp_path / "r", base={"a.py": OLD, "b.py": "b = 1\n"}, head=new)
    since, head = repo.sha("main"), repo.sha("feature")
    push = push_since(repo.path, since, head)
    assert not isinstance(push, str)
    return carry_forward(
        nodes,
        moved=push.moved,
        since=since,
        old_lines=lambda path: lines_at(repo.path, since, path),
        new_lines=lambda path: lines_at(repo.path, head, path),
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

    def test_deleted_lines_in_an_untouched_file_are_carried(self, tmp_path: Path):
        """A LEFT anchor in a file the push did not touch: the PR's patch there is the same."""
        out = carried(tmp_path, {"b.py": "b = 2\n"}, node(2, 2, side="LEFT"))
        assert len(out.kept) == 1


class TestRejudged:
    @pytest.mark.parametrize(
        ("new", "why"),
        [
            (OLD.replace("x + 1", "x + 2"), "the push changed its lines"),
            (
                OLD.replace("    y = x + 1\n", "    y = x + 1\n    y += 0\n"),
                "the push changed its lines",
            ),
            (None, "the push changed its lines"),
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

    def test_a_quote_that_does_not_match_the_fingerprint_is_re_judged(self, tmp_path: Path):
        """The recorded lines are not the ones the fingerprint was made from: never carried blind."""
        out = carried(tmp_path, {"b.py": "b = 2\n"}, node(2, 2, quote="    return y * 2"))
        assert out.kept == ()
        assert out.rejudge[0].why == "its lines do not match its fingerprint"

    def test_an_edit_of_the_lines_in_a_renamed_file_is_re_judged(self, tmp_path: Path):
        """Renamed and the anchored line edited: the code changed where the finding was."""
        out = carried(tmp_path, {"a.py": None, "c.py": OLD.replace("x + 1", "x + 2")}, node(2, 2))
        assert out.kept == ()
        assert out.rejudge[0].why == "the push changed its lines"

    def test_deleted_lines_in_a_touched_file_are_re_judged(self, tmp_path: Path):
        """A LEFT anchor in a file the push changed: its base numbering may have moved."""
        out = carried(tmp_path, {"a.py": "# x\n" + OLD}, node(2, 2, side="LEFT"))
        assert out.kept == ()

    def test_lines_past_the_end_of_the_reviewed_file_are_re_judged(self, tmp_path: Path):
        """An anchor past the end of the file at the reviewed head cannot be checked: re-judged."""
        out = carried(tmp_path, {"b.py": "b = 2\n"}, node(20, 21, quote="gone"))
        assert out.kept == ()
        (item,) = out.rejudge
        assert (item.why, item.quote) == ("its lines could not be read at the reviewed head", "")

    def test_a_finding_in_a_file_missing_at_the_reviewed_head_is_re_judged(self, tmp_path: Path):
        """No such file at the reviewed head (a stale anchor): never carried blind."""
        out = carried(tmp_path, {"b.py": "b = 2\n"}, node(1, 1, path="nowhere.py", quote="x"))
        assert out.kept == ()
        assert out.rejudge[0].why == "its lines could not be read at the reviewed head"


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
        }
        out = carry_forward((here,), posted_at={posted.fingerprint: "first.py"}, **kwargs)
        assert [n.anchor.path for n in out.kept if n.anchor] == ["d.py"]
        # Without knowing where it was posted, the fingerprint does not check out: re-judged.
        assert carry_forward((here,), **kwargs).kept == ()


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
        )
        (kept,) = out.kept
        assert kept.anchor is not None
        assert kept.anchor.start_line == line + 1
