"""RE2 patterns: one pass over a file finds exactly the lines a per-line search finds."""

from __future__ import annotations

import re

import pytest

from reviewbot.text.hygiene import quoted
from reviewbot.tools.context import ToolRetry
from reviewbot.tools.paths import glob_matching, split_lines
from reviewbot.tools.pattern import LinePattern

TEXT = (
    "def load(path):\r\n"
    "    return open(path)\r\n"
    "\n"
    "x = 1   \n"
    "café = 'naïve'\n"
    "foo_bar foo\n"
    "last line without newline"
)
PATTERNS = [
    r"^def ",
    r"path\)$",
    r"\s+$",
    r"^$",
    r"[^x]*",
    r"x*",
    r"\bfoo\b",
    r"(?i)CAFÉ",
    r"ï",
    r"return|newline$",
    r"open\(path\)\s*x",
    r"^\w+ = \d$",
]


def per_line(regex: str, text: str) -> list[tuple[int, str]]:
    """What Python's `re` finds line by line (the behaviour RE2's one pass must equal)."""
    lines = split_lines(text)
    return [(n, line) for n, line in enumerate(lines, start=1) if re.search(regex, line)]


class TestLinePattern:
    @pytest.mark.parametrize("regex", PATTERNS, ids=PATTERNS)
    def test_same_lines_as_a_per_line_search(self, regex):
        """Anchors are line ends, no match crosses a newline, a CR before LF is not content."""
        found = list(LinePattern(regex).matching_lines(TEXT))
        assert found == per_line(regex, TEXT)

    def test_each_line_is_reported_once(self):
        """A pattern matching many times on a line (even empty matches) reports the line once."""
        assert list(LinePattern("o").matching_lines("foo\nbar\nboo\n")) == [
            (1, "foo"),
            (3, "boo"),
        ]

    def test_an_empty_text_has_no_lines(self):
        """Nothing, not even `^$`, matches in an empty file."""
        assert list(LinePattern("^$").matching_lines("")) == []

    @pytest.mark.parametrize(
        "regex", [r"(\w)\1", r"a(?!b)", r"\Z", r"(?x) a"], ids=["backref", "neg-look", "Z", "x"]
    )
    def test_unsupported_syntax_is_a_tool_retry(self, regex):
        """What RE2 cannot run is refused with a message naming the model's own pattern."""
        with pytest.raises(ToolRetry, match=re.escape(f"search_code cannot run {quoted(regex)}: ")):
            LinePattern(regex)


WHOLE_TEXT = [r"\Adef", r"line\z", r"(?-m)^def", r"(?i-m)^DEF", r"(?s-m:^def)", r"x|\A"]


class TestWholeTextAnchors:
    @pytest.mark.parametrize("regex", WHOLE_TEXT, ids=WHOLE_TEXT)
    def test_an_anchor_on_the_whole_text_is_refused(self, regex):
        """A per-line search has no whole text: `\\A`, `\\z` and `(?-m)` are refused, not run."""
        with pytest.raises(ToolRetry, match=re.escape("use `^` and `$`")):
            LinePattern(regex)

    @pytest.mark.parametrize(
        "regex",
        [r"\\A", r"[\\z]", r"[(?-m)]", r"(?m)^def", r"(?i)^DEF"],
        ids=["escaped-backslash", "in-a-class", "class-of-flags", "m-on", "i-only"],
    )
    def test_lookalikes_run_as_a_per_line_search(self, regex):
        """A literal backslash, a class, or flags that keep `m` on: found like per line."""
        text = TEXT + "\\A (?-m) z\n"
        assert list(LinePattern(regex).matching_lines(text)) == per_line(regex, text)


class TestGlobs:
    def test_an_invalid_class_is_a_tool_retry_not_a_crash(self):
        """A reversed range (`[z-a]`) is told to the model instead of crashing the tool."""
        with pytest.raises(ToolRetry, match=r'the glob "src/\[z-a\]\.py" is not valid'):
            glob_matching("src/[z-a].py")

    @pytest.mark.parametrize(
        ("glob", "path", "expected"),
        [
            ("*a" * 12 + "*c", "a" * 60, False),
            ("*a" * 12 + "*c", "a" * 60 + "c", True),
            ("**/*.py", "src/" * 50 + "x.py", True),
        ],
        ids=["no-match", "match", "deep"],
    )
    def test_many_stars_match_in_linear_time(self, glob, path, expected):
        """Globs that make a backtracking engine crawl are answered right away, and rightly."""
        assert glob_matching(glob)(path) is expected
