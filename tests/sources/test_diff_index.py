"""The diff index builders: hunks, statuses and commentable lines against hand-checked answers."""

from __future__ import annotations

import pytest

from reviewbot.errors import RepositoryError
from reviewbot.sources.diff_index import (
    EMPTY_BLOB_SHA,
    FileStatus,
    LineKind,
    file_diff_from_patch,
    index_from_unified_diff,
    parse_hunks,
)

# GitHub's `patch` field: hunks only, no file header, no trailing newline.
TWO_HUNKS = (
    "@@ -1,4 +1,5 @@ def alpha():\n"
    " line1\n"
    "-line2\n"
    "+line2 changed\n"
    "+inserted\n"
    " line3\n"
    " line4\n"
    "@@ -20,3 +21,2 @@ def beta():\n"
    " ctx20\n"
    "-gone21\n"
    " ctx22"
)

NO_NEWLINE = (
    "@@ -1,2 +1,2 @@\n"
    " keep\n"
    "-old last\n"
    "\\ No newline at end of file\n"
    "+new last\n"
    "\\ No newline at end of file"
)


class TestFileDiffFromPatch:
    def test_commentable_lines_of_two_hunks(self):
        """RIGHT is added+context lines, LEFT is deleted+context lines, hunk by hunk."""
        diff = file_diff_from_patch("src/a.py", TWO_HUNKS, status=FileStatus.MODIFIED)
        assert diff.commentable("RIGHT") == {1, 2, 3, 4, 5, 21, 22}
        assert diff.commentable("LEFT") == {1, 2, 3, 4, 20, 21, 22}
        assert (diff.additions, diff.deletions) == (2, 2)
        assert [h.section for h in diff.hunks] == ["def alpha():", "def beta():"]

    def test_line_numbers_and_kinds(self):
        """Each line carries its kind and its number on each side it exists on."""
        hunk = file_diff_from_patch("a", TWO_HUNKS, status=FileStatus.MODIFIED).hunks[0]
        assert [(ln.kind, ln.old_no, ln.new_no, ln.text) for ln in hunk.lines] == [
            (LineKind.CONTEXT, 1, 1, "line1"),
            (LineKind.DELETED, 2, None, "line2"),
            (LineKind.ADDED, None, 2, "line2 changed"),
            (LineKind.ADDED, None, 3, "inserted"),
            (LineKind.CONTEXT, 3, 4, "line3"),
            (LineKind.CONTEXT, 4, 5, "line4"),
        ]

    @pytest.mark.parametrize(
        ("start", "end", "side", "expected"),
        [
            (1, 5, "RIGHT", True),
            (21, 22, "RIGHT", True),
            (4, 21, "RIGHT", False),
            (5, 6, "RIGHT", False),
            (20, 20, "RIGHT", False),
            (20, 22, "LEFT", True),
            (3, 2, "RIGHT", False),
        ],
        ids=[
            "whole-first-hunk",
            "second-hunk",
            "spans-hunks",
            "past-hunk",
            "left-only-line",
            "left-range",
            "reversed",
        ],
    )
    def test_can_comment(self, start, end, side, expected):
        """A range is commentable only when every line is in the diff and in one hunk."""
        diff = file_diff_from_patch("a", TWO_HUNKS, status=FileStatus.MODIFIED)
        assert diff.can_comment(start, end, side) is expected

    def test_no_newline_markers_are_not_lines(self):
        """`\\ No newline at end of file` neither shifts numbers nor becomes a line."""
        diff = file_diff_from_patch("a", NO_NEWLINE, status=FileStatus.MODIFIED)
        assert [ln.text for ln in diff.hunks[0].lines] == ["keep", "old last", "new last"]
        assert diff.commentable("RIGHT") == {1, 2}
        assert diff.commentable("LEFT") == {1, 2}

    def test_crlf_endings_are_stripped_from_text(self):
        """CRLF files keep their line numbers; the text has no line ending."""
        diff = file_diff_from_patch(
            "w.txt", "@@ -1,2 +1,2 @@\n a\r\n-b\r\n+B\r\n", status=FileStatus.MODIFIED
        )
        assert [ln.text for ln in diff.hunks[0].lines] == ["a", "b", "B"]
        assert diff.commentable("RIGHT") == {1, 2}

    def test_only_newline_ends_a_line(self):
        """Form feeds, lone CRs and U+2028 inside a line do not split it (git splits on LF only)."""
        patch = "@@ -1,2 +1,2 @@\n-x\x0cy\n-p\rq\n+x\u2028y\n+p\rq\n"
        diff = file_diff_from_patch("a", patch, status=FileStatus.MODIFIED)
        assert [ln.text for ln in diff.hunks[0].lines] == ["x\x0cy", "p\rq", "x\u2028y", "p\rq"]
        assert diff.commentable("RIGHT") == {1, 2}

    def test_added_file_has_no_left_side(self):
        """A new file is commentable on every line on the RIGHT and nowhere on the LEFT."""
        diff = file_diff_from_patch("n.txt", "@@ -0,0 +1,3 @@\n+a\n+b\n+c", status=FileStatus.ADDED)
        assert diff.commentable("RIGHT") == {1, 2, 3}
        assert diff.commentable("LEFT") == frozenset()

    def test_deleted_file_has_no_right_side(self):
        """A deleted file is commentable only on the LEFT."""
        diff = file_diff_from_patch("d.txt", "@@ -1,2 +0,0 @@\n-a\n-b", status=FileStatus.DELETED)
        assert diff.commentable("LEFT") == {1, 2}
        assert diff.commentable("RIGHT") == frozenset()

    def test_given_counts_win_over_patch_counts(self):
        """GitHub's additions/deletions are kept as reported."""
        diff = file_diff_from_patch(
            "a", TWO_HUNKS, status=FileStatus.MODIFIED, additions=7, deletions=9
        )
        assert (diff.additions, diff.deletions) == (7, 9)

    @pytest.mark.parametrize(
        ("status", "binary", "missing"),
        [
            (FileStatus.MODIFIED, False, True),
            (FileStatus.ADDED, False, True),
            (FileStatus.RENAMED, False, False),
            (FileStatus.MODE_CHANGED, False, False),
            (FileStatus.MODIFIED, True, False),
        ],
        ids=["modified", "added", "pure-rename", "mode-only", "binary"],
    )
    def test_patch_missing_only_when_a_patch_was_expected(self, status, binary, missing):
        """No patch means "missing" unless the change has no content or is binary."""
        diff = file_diff_from_patch("a", None, status=status, binary=binary)
        assert diff.patch_missing is missing
        assert diff.hunks == ()

    @pytest.mark.parametrize(
        ("status", "counts", "sha", "binary", "missing"),
        [
            (FileStatus.MODIFIED, (0, 0), "1" * 40, True, False),
            (FileStatus.MODIFIED, (40_000, 0), "1" * 40, False, True),
            (FileStatus.ADDED, (0, 0), EMPTY_BLOB_SHA, False, False),
            (FileStatus.ADDED, (0, 0), "1" * 40, True, False),
            (FileStatus.RENAMED, (0, 0), "1" * 40, False, False),
            (FileStatus.RENAMED, (5_000, 10), "1" * 40, False, True),
            (FileStatus.MODIFIED, (0, 9_000), EMPTY_BLOB_SHA, False, True),
        ],
        ids=[
            "no-lines-counted-is-binary",
            "lines-counted-is-too-large",
            "empty-added-file-is-text",
            "added-without-lines-is-binary",
            "pure-rename",
            "rename-with-too-large-patch",
            "emptied-file-with-too-large-patch",
        ],
    )
    def test_one_rule_for_a_file_listed_without_a_patch(self, status, counts, sha, binary, missing):
        """GitHub's counts, status and blob SHA tell binary, empty, contentless and too-large apart."""
        additions, deletions = counts
        diff = file_diff_from_patch(
            "a", None, status=status, additions=additions, deletions=deletions, blob_sha=sha
        )
        assert (diff.binary, diff.patch_missing) == (binary, missing)

    def test_an_empty_patch_text_is_never_missing(self):
        """git's own diff always has the patch text (maybe empty): nothing is missing then."""
        diff = file_diff_from_patch("e.txt", "", status=FileStatus.ADDED)
        assert (diff.binary, diff.patch_missing, diff.hunks) == (False, False, ())

    @pytest.mark.parametrize(
        "patch",
        ["not a patch", "@@ -1,3 +1,3 @@\n a\n", "@@ -1 +1 @@\n*weird\n"],
        ids=["no-hunk-header", "short-hunk", "bad-line-prefix"],
    )
    def test_malformed_patch_is_a_repository_error(self, patch):
        """A patch unidiff cannot read raises RepositoryError naming the file."""
        with pytest.raises(RepositoryError, match=r"could not parse the diff of broken\.py"):
            parse_hunks(patch, path="broken.py")


# Real `git diff` output (core.quotePath=false, --submodule=short, -M -C), trimmed by hand.
GIT_DIFF = """\
diff --git a/b.bin b/b.bin
index 88768ef..3e3315e 100644
Binary files a/b.bin and b/b.bin differ
diff --git a/src.txt b/copy.txt
similarity index 100%
copy from src.txt
copy to copy.txt
diff --git a/crlf.txt b/crlf.txt
index 0aa0f34..a092d71 100644
--- a/crlf.txt
+++ b/crlf.txt
@@ -1,2 +1,2 @@
 x\r
-y\r
+Y\r
diff --git a/del.txt b/del.txt
deleted file mode 100644
index 286c5f5..0000000
--- a/del.txt
+++ /dev/null
@@ -1 +0,0 @@
-gone
diff --git a/empty.txt b/empty.txt
new file mode 100644
index 0000000..e69de29
diff --git a/latin.txt b/latin.txt
index 6f83395..7721c5c 100644
--- a/latin.txt
+++ b/latin.txt
@@ -1 +1 @@
-caf\ufffd
+caf\ufffd cr\ufffdme
diff --git a/mode.sh b/mode.sh
old mode 100644
new mode 100755
diff --git a/both.sh b/both.sh
old mode 100644
new mode 100755
index f2ad6c7..18ebd85
--- a/both.sh
+++ b/both.sh
@@ -1 +1,2 @@
 c
+d
diff --git a/old.txt b/new name é.txt
similarity index 82%
rename from old.txt
rename to new name é.txt
index b566061..2019eda 100644
--- a/old.txt
+++ b/new name é.txt\t
@@ -4,3 +4,4 @@ three
 four
 five
 six
+seven
diff --git a/same.txt b/moved.txt
similarity index 100%
rename from same.txt
rename to moved.txt
diff --git a/link b/link
deleted file mode 100644
index 718f4d2..0000000
--- a/link
+++ /dev/null
@@ -1 +0,0 @@
-t
diff --git a/link b/link
new file mode 120000
index 0000000..1de5659
--- /dev/null
+++ b/link
@@ -0,0 +1 @@
+target
\\ No newline at end of file
diff --git a/sub b/sub
index 1111111..2222222 160000
--- a/sub
+++ b/sub
@@ -1 +1 @@
-Subproject commit 1111111111111111111111111111111111111111
+Subproject commit 2222222222222222222222222222222222222222
diff --git "a/ta\\tb.txt" "b/ta\\tb.txt"
new file mode 100644
index 0000000..b78059d
--- /dev/null
+++ "b/ta\\tb.txt"
@@ -0,0 +1 @@
+tab\there
\\ No newline at end of file
diff --git a/with space.txt b/with space.txt
index 587be6b..b77b4eb 100644
--- a/with space.txt\t
+++ b/with space.txt\t
@@ -1 +1,2 @@
 x
+y
"""


@pytest.fixture(scope="module")
def index():
    return index_from_unified_diff(GIT_DIFF)


class TestIndexFromUnifiedDiff:
    def test_every_file_is_indexed_once(self, index):
        """Each `diff --git` section becomes one entry, keyed by its head path."""
        assert sorted(index.files) == sorted(
            [
                "b.bin",
                "copy.txt",
                "crlf.txt",
                "del.txt",
                "empty.txt",
                "latin.txt",
                "mode.sh",
                "both.sh",
                "new name é.txt",
                "moved.txt",
                "link",
                "sub",
                "ta\tb.txt",
                "with space.txt",
            ]
        )
        assert index.total_files == len(index) == 14
        assert index.listing_truncated is False

    @pytest.mark.parametrize(
        ("path", "status", "old_path"),
        [
            ("b.bin", FileStatus.MODIFIED, None),
            ("copy.txt", FileStatus.COPIED, "src.txt"),
            ("crlf.txt", FileStatus.MODIFIED, None),
            ("del.txt", FileStatus.DELETED, None),
            ("empty.txt", FileStatus.ADDED, None),
            ("mode.sh", FileStatus.MODE_CHANGED, None),
            ("both.sh", FileStatus.MODIFIED, None),
            ("new name é.txt", FileStatus.RENAMED, "old.txt"),
            ("moved.txt", FileStatus.RENAMED, "same.txt"),
            ("link", FileStatus.MODIFIED, None),
            ("sub", FileStatus.MODIFIED, None),
            ("ta\tb.txt", FileStatus.ADDED, None),
        ],
        ids=lambda v: str(v),
    )
    def test_status_and_old_path(self, index, path, status, old_path):
        """Statuses come from git's extended headers; old_path only for renames and copies."""
        diff = index.files[path]
        assert (diff.status, diff.old_path) == (status, old_path)

    @pytest.mark.parametrize(
        ("path", "right", "left"),
        [
            ("crlf.txt", {1, 2}, {1, 2}),
            ("del.txt", set(), {1}),
            ("empty.txt", set(), set()),
            ("latin.txt", {1}, {1}),
            ("mode.sh", set(), set()),
            ("both.sh", {1, 2}, {1}),
            ("new name é.txt", {4, 5, 6, 7}, {4, 5, 6}),
            ("moved.txt", set(), set()),
            ("link", {1}, {1}),
            ("sub", {1}, {1}),
            ("ta\tb.txt", {1}, set()),
            ("with space.txt", {1, 2}, {1}),
        ],
        ids=lambda v: str(v) if isinstance(v, str) else "",
    )
    def test_commentable_lines(self, index, path, right, left):
        """Commentable lines per side, checked by hand against the diff above."""
        diff = index.files[path]
        assert diff.commentable("RIGHT") == right
        assert diff.commentable("LEFT") == left

    def test_binary_file_has_no_hunks_and_is_not_missing(self, index):
        """`Binary files … differ` marks the file binary, with nothing to comment on."""
        diff = index.files["b.bin"]
        assert (diff.binary, diff.hunks, diff.patch_missing) == (True, (), False)

    def test_modes_are_recorded(self, index):
        """Mode changes keep both modes, with or without content changes."""
        assert (index.files["mode.sh"].old_mode, index.files["mode.sh"].new_mode) == (
            "100644",
            "100755",
        )
        assert index.files["both.sh"].new_mode == "100755"
        assert index.files["empty.txt"].new_mode == "100644"

    def test_submodule_is_flagged(self, index):
        """A gitlink (mode 160000) is a submodule; its pointer lines are its hunk."""
        sub = index.files["sub"]
        assert sub.submodule is True
        assert sub.hunks[0].lines[1].text == "Subproject commit " + "2" * 40
        assert not any(d.submodule for p, d in index.files.items() if p != "sub")

    def test_type_change_merges_into_one_modified_entry(self, index):
        """git shows file → symlink as a deletion and an addition; the index keeps both sides."""
        link = index.files["link"]
        assert (link.additions, link.deletions) == (1, 1)
        assert (link.old_mode, link.new_mode) == ("100644", "120000")

    def test_undecodable_bytes_stay_replaced_without_shifting_lines(self, index):
        """Text decoded with errors="replace" keeps U+FFFD and exact line numbers."""
        lines = index.files["latin.txt"].hunks[0].lines
        assert [(ln.old_no, ln.new_no, ln.text) for ln in lines] == [
            (1, None, "caf\ufffd"),
            (None, 1, "caf\ufffd cr\ufffdme"),
        ]

    def test_crlf_text_has_no_carriage_return(self, index):
        """CRLF content lines lose their CR in `text`."""
        assert [ln.text for ln in index.files["crlf.txt"].hunks[0].lines] == ["x", "y", "Y"]

    def test_leading_text_and_empty_input(self):
        """Text before the first `diff --git` (a commit message) is ignored; empty text is empty."""
        assert len(index_from_unified_diff("")) == 0
        index = index_from_unified_diff(
            "commit abc\n\n    message\n\ndiff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n"
        )
        assert list(index.files) == ["x"]
        assert index.files["x"].commentable("RIGHT") == {1}

    def test_quoted_paths_with_octal_escapes(self):
        """With core.quotePath on, non-ASCII paths arrive octal-escaped and are decoded."""
        text = (
            'diff --git "a/caf\\303\\251.txt" "b/caf\\303\\251.txt"\n'
            "old mode 100644\nnew mode 100755\n"
        )
        index = index_from_unified_diff(text)
        assert list(index.files) == ["café.txt"]
        assert index.files["café.txt"].status is FileStatus.MODE_CHANGED
