"""Suggestions: committable only on the exact range and when the result still parses."""

from __future__ import annotations

import os

import pytest

from reviewbot.nodes import Anchor
from reviewbot.publish.suggestion import (
    Form,
    fence,
    parses,
    read_head_text,
    render_suggestion,
    splice,
)
from tests.publish.conftest import app_text

APP = app_text()


def anchor(start=3, end=4, path="src/app.py"):
    return Anchor(path=path, start_line=start, end_line=end, quote="x3 = 3\nx4 = 4")


class TestRender:
    def test_exact_range_that_parses_is_committable(self):
        """The comment covers the anchored lines and the Python still parses: a suggestion block."""
        out = render_suggestion(anchor(), "x3 = 30\nx4 = 40", comment_range=(3, 4), head_text=APP)
        assert out.form is Form.SUGGESTION
        assert out.markdown == "```suggestion\nx3 = 30\nx4 = 40\n```"

    @pytest.mark.parametrize(
        ("comment_range", "head", "suggestion", "note"),
        [
            ((3, 3), APP, "x3 = 30", "covers only part"),
            ((3, 4), None, "x3 = 30", "could not be read"),
            ((3, 4), APP, "x3 = (", "would not parse"),
            ((3, 4), "x = 1\n", "x3 = 30", "not in the head file"),
        ],
        ids=["narrowed", "no-head", "breaks-parse", "lines-missing"],
    )
    def test_otherwise_a_diff_block_with_the_reason(self, comment_range, head, suggestion, note):
        """Anything that could commit broken code is shown as a non-committable diff."""
        out = render_suggestion(anchor(), suggestion, comment_range=comment_range, head_text=head)
        assert out.form is Form.DIFF
        assert out.markdown.startswith("```diff\n-x3 = 3\n-x4 = 4\n+x3")
        assert note in out.note

    def test_unknown_language_is_not_committable(self):
        """Without a parser for the language the suggestion is shown as a diff, and says why."""
        js = "const a = 1;\nconst b = 2;\n"
        out = render_suggestion(
            anchor(1, 1, "web/a.js"), "const a = 2;", comment_range=(1, 1), head_text=js
        )
        assert (out.form, out.note) == (
            Form.DIFF,
            "not committable: no parser to check this language",
        )

    def test_fence_outgrows_backticks_in_the_suggestion(self):
        """A suggestion containing a code fence cannot close the block early."""
        text = 'doc = """\n```\n"""'
        out = render_suggestion(
            Anchor(path="d.py", start_line=1, end_line=1, quote="doc = 1"),
            text,
            comment_range=(1, 1),
            head_text="doc = 1\n",
        )
        assert out.markdown.startswith("````suggestion\n")
        assert out.markdown.endswith("\n````")

    def test_comment_opener_is_never_committable(self):
        """A suggestion that parses but holds `<!--` becomes a diff whose lines cannot open a comment."""
        out = render_suggestion(
            anchor(), "x3 = '<!-- hidden -->'\nx4 = 40", comment_range=(3, 4), head_text=APP
        )
        assert out.form is Form.DIFF
        assert out.note == (
            "not committable: the suggestion opens an HTML comment, which reviewbot never posts"
        )
        assert (
            out.markdown == "```diff\n-x3 = 3\n-x4 = 4\n+x3 = '&lt;!-- hidden -->'\n+x4 = 40\n```"
        )

    @pytest.mark.parametrize("hidden", ["\u202e", "\u200b", "\U000e0041"], ids=repr)
    def test_invisible_characters_are_never_committable(self, hidden):
        """A suggestion that parses but hides a character is a diff that shows it, never one click."""
        out = render_suggestion(
            anchor(), f"x3 = 30  # {hidden}ok\nx4 = 40", comment_range=(3, 4), head_text=APP
        )
        assert out.form is Form.DIFF
        assert out.note == (
            "not committable: the suggestion holds invisible or bidirectional characters"
        )
        assert f"+x3 = 30  # ⟨U+{ord(hidden):04X}⟩ok" in out.markdown
        assert hidden not in out.markdown

    def test_old_lines_are_neutralised(self):
        """Head lines shown in a diff block cannot open an HTML comment either."""
        head = APP.replace("x3 = 3\n", "x3 = 3  # <!-- old -->\n")
        out = render_suggestion(anchor(), "x3 = 30", comment_range=(3, 3), head_text=head)
        assert out.markdown.startswith("```diff\n-x3 = 3  # &lt;!-- old -->\n-x4 = 4\n+x3 = 30\n")


class TestParses:
    @pytest.mark.parametrize(
        ("path", "text", "expected"),
        [
            ("a.py", "x = 1\n", True),
            ("a.py", "x = (\n", False),
            ("a.json", '{"a": 1}', True),
            ("a.json", '{"a": }', False),
            ("a.toml", "a = 1\n", True),
            ("a.toml", "a = \n", False),
            ("a.go", "package main", None),
        ],
        ids=["py-ok", "py-bad", "json-ok", "json-bad", "toml-ok", "toml-bad", "go-unknown"],
    )
    def test_languages(self, path, text, expected):
        """Python, JSON and TOML are checked; other languages are unknown, not assumed fine."""
        assert parses(path, text) is expected

    def test_apply_replaces_exactly_the_lines(self):
        """Only lines start..end change, and the final newline is kept."""
        assert splice("a\nb\nc\n", 2, 2, "B1\nB2") == "a\nB1\nB2\nc\n"
        assert splice("a\nb", 2, 2, "B") == "a\nB"
        assert splice("a\n", 2, 2, "B") is None

    def test_fence_length(self):
        """Three backticks, or one more than the longest run inside."""
        assert (fence("x"), fence("````")) == ("```", "`````")


class TestReadHead:
    def test_reads_a_file_of_the_checkout(self, checkout):
        """A file inside the checkout is read as text."""
        assert read_head_text(checkout, "src/app.py") == APP

    def test_symlink_out_of_the_checkout_is_not_read(self, checkout, tmp_path):
        """A PR's symlink to a file outside the checkout must never be read (or posted)."""
        secret = tmp_path / "secret.txt"
        secret.write_text("token", encoding="utf-8")
        os.symlink(secret, checkout / "src" / "link.py")
        assert read_head_text(checkout, "src/link.py") is None

    @pytest.mark.parametrize("path", ["missing.py", "src"], ids=["missing", "directory"])
    def test_missing_or_not_a_file(self, checkout, path):
        """Nothing to read is None, not an error."""
        assert read_head_text(checkout, path) is None
