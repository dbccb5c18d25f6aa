"""The sanitizer of posted text, rendered as GitHub renders it: nothing untrusted turns live."""

from __future__ import annotations

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from reviewbot.memory.markers import NODE_TAG, find_markers
from reviewbot.publish.inert import Inert, RepoLinks, code_span, fence, plain, visible
from reviewbot.redact import MASK, Redactor
from tests.fakes import hostile
from tests.fakes.github_markdown import assert_inert, render

LINKS = RepoLinks(web_url="https://github.com", repo="octo/app")
INERT = Inert(links=LINKS)
OWN_FILE = "https://github.com/octo/app/blob/abc1234/src/app.py#L3"

hostile_text = st.lists(
    st.one_of(
        st.sampled_from(hostile.FRAGMENTS),
        st.text(st.characters(codec="utf-8"), max_size=4),
    ),
    max_size=14,
).map("".join)


def _indent(text: str) -> str:
    return "\n".join(f"  {line}" if line else "" for line in text.splitlines())


class TestEachPayload:
    @pytest.mark.parametrize(
        "payload",
        [*hostile.ALL, *hostile.OWN_IMAGES],
        ids=repr,
    )
    def test_payload_renders_inert_as_a_paragraph(self, payload):
        """Each payload of the hostile fixture renders as text: no image, link, tag, mention or block."""
        shown = assert_inert(INERT.block(payload), LINKS)
        assert set(shown.structure()) <= {"pre"}  # only a fenced block may make structure
        assert "reviewbot:node" not in "".join(shown.comments)

    @pytest.mark.parametrize("payload", hostile.OWN_IMAGES, ids=repr)
    def test_no_image_even_from_the_own_repository(self, payload):
        """A link into the PR's own repository stays a link; with `!` before it, never an image."""
        for text in (INERT.block(payload), INERT.line(payload), INERT.line(payload, table=True)):
            assert not render(text).images, text

    def test_text_stays_readable(self):
        """Inert, not deleted: the reader still sees what the model wrote."""
        shown = render(INERT.block("![x](http://attacker.invalid/i) cc @octocat on #12 <b>hi</b>"))
        assert shown.text() == "![x](http://attacker.invalid/i) cc @\u200boctocat on #12 <b>hi</b>"

    def test_safe_subset_still_renders(self):
        """Emphasis, strikethrough, inline code and fenced code keep their meaning."""
        shown = assert_inert(
            INERT.block("**Impact**: _this_ ~~that~~ `eval(x)`\n\n```python\nx = '```'\n```"), LINKS
        )
        assert shown.tags["strong"] == shown.tags["em"] == shown.tags["del"] == 1
        assert shown.code == ("eval(x)", "x = '```'\n")
        assert '<pre lang="python">' in shown.html

    @pytest.mark.parametrize("info", ["suggestion", "mermaid", "geojson", "STL", "math"], ids=str)
    def test_fence_never_becomes_a_suggestion_or_a_rich_block(self, info):
        """A model's fence is plain code: never committable, never a diagram or a map."""
        shown = render(INERT.block(f"```{info}\nx = 1\n```"))
        assert "<pre><code>x = 1\n</code></pre>" in shown.html

    def test_fence_cannot_be_closed_by_its_content(self):
        """A longer fence inside a fence stays content; an unclosed fence closes at the end."""
        shown = render(INERT.block("`````\n````\n# not a heading\n"))
        assert shown.structure() == {"pre": 1}
        assert shown.code == ("````\n# not a heading\n",)

    def test_mask_stays_readable_but_never_a_link(self):
        """The redaction mask is shown as itself, and text after it cannot make it a link."""
        text = Inert(redactor=Redactor.of(["hunter2-secret"])).block(
            "key hunter2-secret(http://x) and hunter2-secret: http://y"
        )
        assert text.count(MASK) == 2
        assert_inert(text, LINKS)

    def test_secret_is_redacted_before_it_is_escaped(self):
        """A secret with markdown characters in it is masked whole, not escaped past the redactor."""
        secret = "p@ss|w0rd#1[x]"
        text = Inert(redactor=Redactor.of([secret])).line(f"leaked {secret}")
        assert text == f"leaked {MASK}"


class TestLinks:
    @pytest.mark.parametrize(
        "url",
        [
            OWN_FILE,
            "https://github.com/OCTO/App/tree/main/src",
            "https://github.com/octo/app/commit/abc1234",
        ],
        ids=["blob", "tree-any-case", "commit"],
    )
    def test_own_repository_files_stay_links(self, url):
        """A link to the PR's own files or commits on the same host stays a link."""
        for text in (url, f"[the file]({url})"):
            assert render(INERT.block(text)).links == (url,)

    @pytest.mark.parametrize(
        "url",
        [
            "https://github.com/octo/app/issues/1",
            "https://github.com/octo/app/pull/2",
            "https://github.com/octo/other/blob/main/x",
            "https://github.com.attacker.invalid/octo/app/blob/x/y",
            "https://github.com@attacker.invalid/octo/app/blob/x/y",
            "http://github.com/octo/app/blob/x/y",
            "https://github.com/octo/app/blob/x/../../../evil/repo/issues/1",
            "https://github.com/octo/app/blob/x/%2e%2e/%2e%2e/%2e%2e/evil/repo",
            "https://github.com/octo/app/blob/x/&#46;&#46;/y",
        ],
        ids=[
            "issue",
            "pull",
            "other-repo",
            "other-host",
            "userinfo",
            "http",
            "dotdot",
            "encoded-dotdot",
            "entity",
        ],
    )
    def test_anything_else_is_inert_text(self, url):
        """Issues and pulls (backlinks), other repositories and hosts, traversal: inert text."""
        for text in (url, f"[x]({url})", f"<{url}>"):
            assert_inert(INERT.block(text), LINKS)

    def test_without_a_repository_nothing_links(self):
        """`--format markdown` without a snapshot knows no repository: no link survives."""
        assert render(Inert().block(OWN_FILE)).links == ()


class TestInvisible:
    @pytest.mark.parametrize(
        ("char", "shown"),
        [
            ("\u202e", "⟨U+202E⟩"),
            ("\u200b", "⟨U+200B⟩"),
            ("\U000e0041", "⟨U+E0041⟩"),
            ("\x1b", "⟨U+001B⟩"),
            ("\ufeff", "⟨U+FEFF⟩"),
        ],
        ids=["rlo", "zwsp", "tag", "escape", "bom"],
    )
    def test_invisible_characters_are_shown(self, char, shown):
        """Bidi controls, zero-width and tag characters, control characters: shown, not hidden."""
        assert visible(f"a{char}b") == f"a{shown}b"
        assert render(INERT.line(f"a{char}b")).text() == f"a{shown}b"

    def test_plain_text_surfaces(self):
        """The check title and status description: visible characters on one line, nothing else."""
        assert plain("Hold: P0 “x`y” \u202e\n@octocat") == "Hold: P0 “x`y” ⟨U+202E⟩ @octocat"


class TestCodeSpans:
    @given(
        st.text(
            st.sampled_from("`|\\ a<!-") | st.characters(codec="utf-8", exclude_characters="\n"),
            min_size=1,
        )
    )
    @settings(max_examples=300, deadline=None)
    def test_code_span_shows_exactly_its_text(self, text):
        """Whatever backticks or pipes it holds, a code span shows exactly its text, in a cell too."""
        text = visible(
            text, keep_newlines=False
        )  # what reaches a code span (NUL is U+FFFD in cmark)
        expected = text.replace("<!--", "&lt;!--")
        assert render(f"x {code_span(text)}").code == (expected,)
        table = render(f"| a |\n|---|\n| {code_span(text, table=True)} |")
        assert table.code == (expected,)
        assert table.tags["td"] == 1

    @pytest.mark.parametrize("path", [hostile.BACKTICK_PATH, "``", "a\nb", "<!--x-->.py"], ids=repr)
    def test_paths_are_shown_whole(self, path):
        """A path with backticks, a newline or an HTML comment opener is one code span, all visible."""
        assert render(INERT.code(path)).code == (
            visible(path, keep_newlines=False).replace("<!--", "&lt;!--"),
        )

    def test_fence_is_longer_than_any_run_inside(self):
        """The fence of a code block is longer than the longest backtick run of its content."""
        assert (fence("x"), fence("``"), fence("a ```` b")) == ("```", "```", "`````")


class TestProperties:
    """Over arbitrary hostile text, in every container reviewbot puts untrusted text into."""

    @given(hostile_text)
    @settings(max_examples=400, deadline=None)
    def test_block_at_top_level(self, text):
        """An inline comment's body: inert, and no structure but fenced code."""
        markdown = INERT.block(text)
        shown = assert_inert(markdown, LINKS)
        assert set(shown.structure()) <= {"pre"}
        assert find_markers(markdown, NODE_TAG) == []

    @given(hostile_text)
    @settings(max_examples=300, deadline=None)
    def test_block_in_a_list_item(self, text):
        """A review-body item: the body stays inside its one list item."""
        shown = assert_inert(f"- **item**\n\n{_indent(INERT.block(text))}\n\n- next\n", LINKS)
        assert {k: v for k, v in shown.structure().items() if k != "pre"} == {"ul": 1, "li": 2}

    @given(hostile_text)
    @settings(max_examples=300, deadline=None)
    def test_block_in_a_quote(self, text):
        """An agent's summary: the quote holds all of it, and nothing after it is swallowed."""
        quoted = "\n".join(f"> {line}".rstrip() for line in INERT.block(text).splitlines())
        shown = assert_inert(f"{quoted}\n\n### after\n", LINKS)
        assert {k: v for k, v in shown.structure().items() if k != "pre"} == {
            "blockquote": 1,
            "h3": 1,
        } or not quoted

    @given(hostile_text, hostile_text)
    @settings(max_examples=300, deadline=None)
    def test_line_in_a_table_cell(self, first, second):
        """A table row keeps its cells whatever its texts hold."""
        row = (
            f"| {INERT.line(first, table=True) or '—'} | {INERT.line(second, table=True) or '—'} |"
        )
        shown = assert_inert(f"| a | b |\n|---|---|\n{row}\n| c | d |\n", LINKS)
        assert shown.structure() == {"table": 1, "tr": 3, "th": 2, "td": 4}

    @given(hostile_text)
    @settings(max_examples=300, deadline=None)
    def test_line_in_a_list_item_and_in_bold(self, text):
        """A reason or a title (never empty): one line, inside its list item or its bold run."""
        assume(INERT.line(text))
        shown = assert_inert(f"- **{INERT.line(text)}**\n- end\n", LINKS)
        assert shown.structure() == {"ul": 1, "li": 2}


class TestPlainText:
    """`Inert.text`: plain text (annotations), where a viewer may still make a URL clickable."""

    @pytest.mark.parametrize(
        ("text", "shown"),
        [
            ("see http://attacker.invalid/x now", "see http[:]//attacker.invalid/x now"),
            ("HTTPS://ATTACKER.INVALID/U", "HTTPS[:]//ATTACKER.INVALID/U"),
            ("at www.attacker.invalid/w", "at www[.]attacker.invalid/w"),
            ("cc @octocat", "cc @\u200boctocat"),
            ("fixes #12 and GH-3", "fixes #\u200b12 and GH-\u200b3"),
            ("mailto:x@attacker.invalid", "mailto:x@\u200battacker.invalid"),
            (f"read {OWN_FILE}.", f"read {OWN_FILE}."),
            ("https://github.com/octo/app/issues/2", "https[:]//github.com/octo/app/issues/2"),
            ("<b>*kept* as text</b> a\\b", "<b>*kept* as text</b> a\\b"),
        ],
        ids=[
            "url",
            "upper-case-scheme",
            "www",
            "mention",
            "references",
            "e-mail",
            "own-file-link",
            "own-repo-issue",
            "markup-unescaped",
        ],
    )
    def test_defanged_not_escaped(self, text, shown):
        """Links out, mentions and references are broken; markup is left as the text it is."""
        assert INERT.text(text) == shown

    def test_redacted_first_and_invisibles_shown(self):
        """A secret is masked before anything else; a bidi control is shown, not obeyed."""
        secret = "sk-ant-" + "k" * 30
        assert Inert(redactor=Redactor()).text(f"key {secret}\u202e") == f"key {MASK}⟨U+202E⟩"

    def test_one_line(self):
        """`one_line` folds newlines and runs of spaces, for a title."""
        assert INERT.text("a\n\n b\tc", one_line=True) == "a b c"
        assert INERT.text("a\n\nb") == "a\n\nb"
