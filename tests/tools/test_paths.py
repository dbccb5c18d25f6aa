"""Glob matching, containment of paths, line splitting and head+tail truncation."""

from __future__ import annotations

import pytest

from reviewbot.text.truncate import (
    MAX_LINE_CHARS,
    first_line,
    head_tail,
    head_tail_chars,
    numbered,
)
from reviewbot.tools.context import ToolRetry
from reviewbot.tools.paths import (
    decode_lines,
    glob_matching,
    normalise,
    resolve_inside,
    split_lines,
)

GLOBS = [
    ("**", "a/b/c.py", True),
    ("**/*.py", "c.py", True),
    ("**/*.py", "a/b/c.py", True),
    ("*.py", "a/c.py", False),
    ("src/*.py", "src/a.py", True),
    ("src/*.py", "src/x/a.py", False),
    ("src/**", "src/x/a.py", True),
    ("src/?.py", "src/a.py", True),
    ("[ab].py", "b.py", True),
    ("[!ab].py", "b.py", False),
    ("[!ab].py", "c.py", True),
    ("src[!x]a.py", "src/a.py", False),
    ("src/[!x]*", "src/d/e", False),
    ("*.py", "c.py", True),
    ("a+b.py", "a+b.py", True),
    ("./src/*.py", "src/a.py", True),
    ("", "anything", True),
]


class TestGlob:
    @pytest.mark.parametrize(
        ("pattern", "path", "expected"), GLOBS, ids=[f"{p or 'empty'}~{q}" for p, q, _ in GLOBS]
    )
    def test_glob_semantics(self, pattern, path, expected):
        """`*`, `?` and `[!x]` stay within a directory, `**/` spans any depth, patterns are rooted."""
        assert glob_matching(pattern)(path) is expected


class TestContainment:
    @pytest.mark.parametrize(
        ("path", "message"),
        [
            ("", "the path is empty or contains a NUL character"),
            ("a\x00b", "the path is empty or contains a NUL character"),
            ("/etc/passwd", '"/etc/passwd" is absolute; paths are relative to the repository root'),
            ("C:/x", '"C:/x" is absolute; paths are relative to the repository root'),
            ("a/../../x", '"a/../../x" leaves the repository; paths are relative to its root'),
            (".git/HEAD", '".git/HEAD" is inside git\'s own storage, which is not part of the PR'),
        ],
        ids=["empty", "nul", "absolute", "drive", "climb", "git-dir"],
    )
    def test_refusals(self, tmp_path, path, message):
        """Each way out of the checkout is refused with its own message."""
        with pytest.raises(ToolRetry) as refused:
            resolve_inside(tmp_path, path)
        assert str(refused.value) == message

    def test_a_link_into_git_storage_is_refused(self, tmp_path):
        """A symlink that points at `.git` is refused though it stays inside."""
        (tmp_path / ".git").mkdir()
        (tmp_path / ".git" / "config").write_text("[credential]\n")
        (tmp_path / "cfg").symlink_to(".git/config")
        with pytest.raises(ToolRetry, match="points into git's own storage"):
            resolve_inside(tmp_path, "cfg")

    def test_climbing_and_returning_stays_inside(self, tmp_path):
        """`a/../b` is just `b`."""
        assert resolve_inside(tmp_path, "a/../b") == tmp_path / "b"
        assert normalise("./a//b/../c") == "a/c"


class TestSplitLines:
    def test_only_lf_splits(self):
        """Form feed and U+2028 are content, as git and GitHub count lines."""
        assert split_lines("a\fb\u2028c\r\nd\n") == ["a\fb\u2028c", "d"]

    def test_no_trailing_newline(self):
        """A last line without a newline is still a line."""
        assert split_lines("a\nb") == ["a", "b"]


class TestDecodeLines:
    def test_text_is_decoded_and_split_like_git(self):
        """UTF-8 with an invalid byte decodes with a replacement; CRLF endings are not content."""
        assert decode_lines(b"a\r\nb\xff\n") == ["a", "b\ufffd"]

    def test_a_nul_byte_early_means_binary(self):
        """A NUL in the first bytes marks the file binary: no lines."""
        assert decode_lines(b"\x00\x01binary") is None


class TestLineHelpers:
    def test_numbered_lines_share_one_format(self):
        """A numbered line is the number right-aligned in six columns, a tab, then the text."""
        assert numbered(7, "x = 1") == "     7\tx = 1"

    def test_a_long_line_is_clipped_with_a_count(self):
        """A line past MAX_LINE_CHARS is cut and says how much more it had."""
        line = numbered(1, "y" * (MAX_LINE_CHARS + 5))
        assert line.endswith("y… [5 more characters on this line]")
        assert line.count("y") == MAX_LINE_CHARS

    @pytest.mark.parametrize(
        ("text", "expected"),
        [("\n  fatal: bad rev  \nmore", "fatal: bad rev"), ("", ""), ("x" * 400, "x" * 300)],
        ids=["first-non-blank", "empty", "capped"],
    )
    def test_first_line(self, text, expected):
        """The first non-blank line, stripped and capped: how errors are quoted in one line."""
        assert first_line(text) == expected


class TestTruncate:
    def test_short_output_is_untouched(self):
        """Output within the budget comes back joined, without a note."""
        assert head_tail(["a", "b"], 100, lambda a, b: "NOTE") == "a\nb"

    def test_long_output_keeps_head_and_tail_within_budget(self):
        """Head and tail are kept, the note names the omitted index range, the budget holds."""
        lines = [f"{n:04}" for n in range(1_000)]
        out = head_tail(lines, 600, lambda a, b: f"omitted {a}-{b}")
        kept = out.splitlines()
        assert len(out) <= 600
        assert kept[0] == "0000"
        assert kept[-1] == "0999"
        note = next(line for line in kept if line.startswith("omitted"))
        first, last = map(int, note.removeprefix("omitted ").split("-"))
        assert kept[kept.index(note) - 1] == f"{first - 1:04}"
        assert kept[kept.index(note) + 1] == f"{last + 1:04}"

    def test_characters(self):
        """Text that is not line-shaped is cut in the middle with the hint."""
        out = head_tail_chars("a" * 1_000 + "b" * 1_000, 500, "ask for less")
        assert len(out) <= 500
        assert out.startswith("a")
        assert out.endswith("b")
        assert "characters omitted; ask for less" in out
