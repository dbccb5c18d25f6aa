"""Untrusted text made inert for GitHub: the one sanitizer every posted string goes through.

Model text and PR-controlled text (node titles and bodies, the agents' summaries,
file paths, CI details, error text) are untrusted: a prompt-injected PR can make
the model write anything. GitHub renders markdown in comments, reviews, check-run
summaries and the Actions step summary, fetches every image through its proxy (a
channel to send data out of the repository), and, after rendering, links
`@user` / `@org/team` mentions (notifications) and `#123`, `owner/repo#5`,
`GH-12` references (backlinks) in the rendered text outside `code`, `pre` and
`a` elements. So untrusted text renders as:

    kept            paragraphs, emphasis (`*`, `_`), strikethrough (`~~`), inline
                    code, fenced code blocks (re-fenced, so they cannot be closed
                    early), links to the files and commits of the PR's own
                    repository on the GitHub host reviewbot talks to
    literal text    images (also of the PR's own repository: the `!` before a kept
                    link is escaped), other links, autolinks, raw HTML, entities, headings,
                    lists, block quotes, thematic breaks, tables, reference
                    definitions, footnotes, math
    code spans      URLs, `www.` hosts, references (`#123`, `GH-12`), mentions and
                    the `@` of e-mail addresses and `repo@sha`; a mention also gets
                    a zero-width space after its `@` (plain-text e-mail replies
                    quote comments without their markup; Dependabot does the same)
    `⟨U+XXXX⟩`      invisible, bidirectional and control characters (the rule of the
                    prompt side, text/hygiene.py)
    plain text      the check-run title and commit-status descriptions (`plain`):
                    GitHub shows them as text, so only invisibles and newlines change
    defanged text   check-run annotations (`Inert.text`): shown as plain text, but a
                    viewer may still make a URL clickable, so a URL outside the PR's
                    repository loses its `://` (`https[:]//…`, `www[.]…`) and a mention
                    or reference gets a zero-width space after its `@`, `#` or `GH-`

How: every untrusted string is redacted FIRST (an escaped secret no longer looks
like itself), then tokenized. Block level: fenced code is recognised and
re-fenced, every other line is prose. Inline level, one token at a time: a
backslash escape, a code span, a link, a URL, a mention, a reference, or one
character; a character with markdown meaning outside the kept set is
backslash-escaped (`<` becomes `&lt;`, so no `<!--` survives and no marker can
be forged). No token depends on the character before it: the code spans made
here split the text GitHub looks at, so `#1GH-2` is two references, not one word.
Adjacent code spans are merged (two fences side by side would be one longer
run), and an author's backslash before a character tokens are made of (`\\@`,
`\\.`) is dropped first, since GitHub links what the escape renders to. Finally
no prose line may start a block (heading, list item, block quote, thematic
break, setext underline, fence): its marker is escaped. A fenced
block's info string keeps one language word, never `suggestion` (a committable
block is built only by suggestion.py) nor GitHub's rich renderers.

Must not: touch what reviewbot writes itself (its links, suggestion blocks,
markers): callers sanitise the untrusted parts before they reach a template.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from urllib.parse import unquote, urlsplit

from reviewbot.redact import MASK, Redactor
from reviewbot.text.hygiene import reveal_invisible

# Inline tokens, tried in this order at each position (see the module docstring).
_TOKEN = re.compile(
    r"""
      \\(?P<escaped>[!-/:-@\[-`{-~])
    | (?P<mask>"""
    + re.escape(MASK)
    + r""")(?P<after>[(\[:]?)
    | (?P<ticks>`+)(?!`)(?P<code>.*?)(?<!`)(?P=ticks)(?!`)
    | (?P<run>`+)
    | (?P<bang>!)(?=\[)
    | \[(?P<label>[^\[\]\n]*)\]\((?P<target>[^\s()<>]*)\)
    | (?P<url>(?:(?:[A-Za-z][A-Za-z0-9+.\-]{0,31})?://|www\.)[^\s<>`]*)
    | (?P<mention>@[A-Za-z0-9][A-Za-z0-9\-]*(?:/[A-Za-z0-9][\w.\-]*)?)
    | (?P<ref>\#[0-9]+|[Gg][Hh]-[0-9]+)
    """,
    re.VERBOSE | re.DOTALL,
)
# An author's escape of a character live tokens are made of (`\@user`, `www\.x`) is dropped, so
# the token is found and defused: GitHub links mentions in the rendered text, after escapes.
_TOKEN_ESCAPE = re.compile(r"\\([\\@#:/.\-])")
# What a plain-text surface may still link: URLs, mentions and references (see `Inert.text`).
_PLAIN_TOKEN = re.compile(
    r"""
      (?P<url>(?:[A-Za-z][A-Za-z0-9+.\-]{0,31})?://[^\s<>]*|(?<![\w.])www\.[^\s<>]*)
    | (?P<mention>@)(?=[A-Za-z0-9])
    | (?P<ref>\#|[Gg][Hh]-)(?=[0-9])
    """,
    re.VERBOSE,
)
# Characters with markdown meaning anywhere in a line (emphasis and strikethrough are kept).
_ESCAPED = frozenset("\\`[]&|$")
# A line that would open a block: the group `mark` is where the escaping backslash goes.
_BLOCK_START = re.compile(
    r"""
      (?P<mark>)(?:
          [>]
        | [-+*](?=[ \t]|$)
        | \#{1,6}(?=[ \t]|$)
        | ~{3,}
        | (?P<rule>[-*_=])(?:[ \t]*(?P=rule))*[ \t]*$
      )
    | [0-9]{1,9}(?P<delim>)[.)](?=[ \t]|$)
    """,
    re.VERBOSE,
)
_FENCE_OPEN = re.compile(r"[ ]{0,3}(?P<fence>`{3,}|~{3,})(?P<info>.*)")
_BACKTICK_RUN = re.compile(r"`+")
_LANGUAGE = re.compile(r"[A-Za-z0-9_+.#\-]{1,32}")
# Info strings GitHub renders as something other than code, and the committable block.
_SPECIAL_INFO = frozenset({"suggestion", "mermaid", "geojson", "topojson", "stl", "math"})
# Link targets: a strict URL alphabet (no entity or escape can hide a `..`), own repository only.
_URL_CHARS = re.compile(r"[A-Za-z0-9\-._~:/?#@!$'*+,;=%]+")
_LINKABLE = frozenset({"blob", "tree", "commit", "blame"})  # never issues or pulls: backlinks
_URL_TRAILING = ".,:;!?'\"*_~)"  # GFM leaves these out of an autolink's end
_ZWSP = "\u200b"


def visible(text: str, *, keep_newlines: bool = True) -> str:
    """`text` with every invisible, bidi-control or control character shown as `⟨U+XXXX⟩`.

    The same rule as the prompt side (`reveal_invisible`); line ends become `\\n`, and
    without `keep_newlines` (a name) newlines and tabs are shown too.
    """
    text = reveal_invisible(text.replace("\r\n", "\n").replace("\r", "\n"))
    if keep_newlines:
        return text
    return text.replace("\n", "⟨U+000A⟩").replace("\t", "⟨U+0009⟩")


def plain(text: str) -> str:
    """Untrusted text for a surface GitHub shows as plain text: visible characters, one line."""
    return " ".join(visible(text).split())


def fence(content: str) -> str:
    """A backtick fence longer than any run of three or more backticks inside `content`."""
    longest = max((len(m.group()) for m in _BACKTICK_RUN.finditer(content)), default=0)
    return "`" * max(3, longest + 1)


def code_span(text: str, *, table: bool = False) -> str:
    """`text` as one code span whatever backticks it holds; `table` escapes pipes for a cell."""
    text = neutralize(text.replace("\n", " "))  # never a marker, even in code
    if not text:
        return ""
    runs = {len(m.group()) for m in _BACKTICK_RUN.finditer(text)}
    ticks = "`" * next(n for n in range(1, len(runs) + 2) if n not in runs)
    # CommonMark strips one space from each end of a padded span: pad when that would eat
    # ours, or when the content touches a backtick.
    pad = text[0] == "`" or text[-1] == "`" or (text[0] == text[-1] == " " and text.strip())
    if table:
        text = text.replace("|", "\\|")
    return f"{ticks} {text} {ticks}" if pad else f"{ticks}{text}{ticks}"


@dataclass(frozen=True, slots=True, kw_only=True)
class RepoLinks:
    """Which links untrusted text may keep: files and commits of one repository on one host."""

    web_url: str  # e.g. "https://github.com" or a GitHub Enterprise host
    repo: str  # "owner/name"

    def allows(self, url: str) -> bool:
        if not _URL_CHARS.fullmatch(url):
            return False
        parts, home = urlsplit(url), urlsplit(self.web_url)
        if (parts.scheme.lower(), parts.netloc.lower()) != (
            home.scheme.lower(),
            home.netloc.lower(),
        ):
            return False  # also refuses `https://github.com@evil.example/…` (another netloc)
        segments = [unquote(s) for s in parts.path.split("/")]
        if any(s in (".", "..") for s in segments):
            return False  # a browser would resolve them out of the repository
        return (
            len(segments) > 4
            and "/".join(segments[1:3]).casefold() == self.repo.casefold()
            and segments[3] in _LINKABLE
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class Inert:
    """The sanitizer of one run: its redactor, and the repository links may point into."""

    redactor: Redactor = field(default_factory=Redactor)
    links: RepoLinks | None = None  # None: no link survives

    def block(self, text: str) -> str:
        """Markdown of several paragraphs and fenced code, none of it able to leave its container."""
        lines = visible(self.redactor(text)).split("\n")
        out: list[str] = []
        prose: list[str] = []
        i = 0
        while i < len(lines):
            opened = _FENCE_OPEN.fullmatch(lines[i])
            if opened is None or ("`" in opened["fence"] and "`" in opened["info"]):
                prose.append(lines[i])
                i += 1
                continue
            out.extend(self._prose(prose))
            prose = []
            mark = opened["fence"]
            closing = re.compile(f"[ ]{{0,3}}{re.escape(mark[0])}{{{len(mark)},}}[ \\t]*")
            end = next((j for j in range(i + 1, len(lines)) if closing.fullmatch(lines[j])), None)
            body = lines[i + 1 : end if end is not None else len(lines)]
            while end is None and body and not body[-1].strip():
                body.pop()  # an unclosed fence ends at the text's end, not at its blank lines
            out.extend(["", _code_block(body, opened["info"]), ""])
            i = end + 1 if end is not None else len(lines)
        out.extend(self._prose(prose))
        return re.sub(r"\n{3,}", "\n\n", "\n".join(out)).strip("\n")

    def line(self, text: str, *, table: bool = False) -> str:
        """One line of inline markdown (a title, a reason, a note); `table` makes it cell-safe."""
        flat = " ".join(visible(self.redactor(text)).split())
        return _no_block_start(self._inline(flat, table=table, links=self.links))

    def text(self, text: str, *, one_line: bool = False) -> str:
        """Plain text for a surface GitHub does not render as markdown (an annotation).

        Redacted first, invisibles shown; nothing is escaped (a backslash would show), but
        what a viewer could still turn into a link, a mention or a reference is defanged.
        """
        shown = visible(self.redactor(text))
        if one_line:
            shown = " ".join(shown.split())
        return _PLAIN_TOKEN.sub(self._defang, shown)

    def _defang(self, token: re.Match[str]) -> str:
        url = token["url"]
        if url is None:  # a mention or a reference: the zero-width space breaks the link
            return token.group() + _ZWSP
        if self.links is not None and self.links.allows(url.rstrip(_URL_TRAILING)):
            return url
        if url.startswith("www."):
            return "www[.]" + url[4:]
        return url.replace("://", "[:]//", 1)

    def code(self, text: str, *, table: bool = False) -> str:
        """A PR-controlled name (a file path) as a code span; even newlines and tabs shown."""
        return code_span(visible(self.redactor(text), keep_newlines=False), table=table)

    def _prose(self, lines: list[str]) -> list[str]:
        """Paragraphs: each run of non-blank lines tokenized as one (code spans may span lines)."""
        out: list[str] = []
        paragraph: list[str] = []
        for line in [*lines, ""]:
            if line.strip():
                paragraph.append(line.strip())
                continue
            if paragraph:
                text = self._inline("\n".join(paragraph), table=False, links=self.links)
                out.extend(_no_block_start(part) for part in text.split("\n"))
                paragraph = []
            out.append("")
        return out

    def _inline(self, text: str, *, table: bool, links: RepoLinks | None) -> str:
        text = _TOKEN_ESCAPE.sub(lambda m: m.group() if m[1] == "\\" else m[1], text)
        pieces: list[str | _Code] = []
        pos = 0
        while pos < len(text):
            token = _TOKEN.match(text, pos)
            if token is None or not _kept(token, text, links):
                pieces.append(_char(text[pos]))
                pos += 1
                continue
            pieces.append(self._token(token, table=table, links=links))
            pos = token.end()
        return _joined(pieces, table=table)

    def _token(self, token: re.Match[str], *, table: bool, links: RepoLinks | None) -> str | _Code:
        match token.lastgroup:
            case "escaped":
                return _char(token["escaped"], literal=True)
            case "code":
                content = token["code"].replace("\n", " ")
                if len(content) > 2 and content[0] == content[-1] == " " and content.strip():
                    content = content[1:-1]
                return _Code(content)
            case "mask" | "after":
                # The redaction mask stays readable as itself; what follows it is escaped, so
                # it can never become a link text, a reference or a definition.
                return MASK + ("\\" + token["after"] if token["after"] else "")
            case "run":
                return "\\`" * len(token["run"])
            case "bang":
                # `!` before a link makes it an image, and GitHub fetches an image even from
                # the PR's own repository (`…/blob/<sha>/banner.png?raw=true`): never one.
                return "\\!"
            case "target":
                label = self._inline(token["label"], table=table, links=None)
                return f"[{label or token['target']}]({token['target']})"
            case "url":
                url = token["url"].rstrip(_URL_TRAILING)
                tail = token["url"][len(url) :]
                if links is not None and links.allows(url):
                    return f"<{url}>" + "".join(_char(c) for c in tail)
                return _Code(token["url"])
            case "mention":
                return _Code("@" + _ZWSP + token["mention"][1:])
            case _:  # a reference
                return _Code(token.group())


@dataclass(frozen=True, slots=True)
class _Code:
    """The content of a code span still to be built (adjacent ones become one span)."""

    content: str


def _joined(pieces: list[str | _Code], *, table: bool) -> str:
    """The pieces as markdown. Adjacent code spans are merged: two spans side by side would make
    their backtick fences one longer run, which closes neither."""
    out: list[str] = []
    code: list[str] = []
    for piece in [*pieces, ""]:
        if isinstance(piece, _Code):
            code.append(piece.content)
            continue
        if code:
            out.append(code_span("".join(code), table=table))
            code = []
        out.append(piece)
    return "".join(out)


def _allowed(token: re.Match[str], links: RepoLinks | None) -> bool:
    return links is not None and links.allows(token["target"])


def _kept(token: re.Match[str], text: str, links: RepoLinks | None) -> bool:
    """Whether `token` is rendered as a token: a link only into the repository, and the `!`
    only before such a link (before an escaped `[` it is plain text already)."""
    if token["label"] is not None:
        return _allowed(token, links)
    if token["bang"] is not None:
        link = _TOKEN.match(text, token.end())
        return link is not None and link["label"] is not None and _allowed(link, links)
    return True


def _char(char: str, *, literal: bool = False) -> str:
    """One character of prose; `literal` when the author escaped it (so it stays literal)."""
    if char == "<":
        return "&lt;"  # never `\<`: the raw text must not hold a `<!--` (a forged marker)
    return "\\" + char if char in _ESCAPED or literal else char


def _no_block_start(line: str) -> str:
    """`line` with the marker of any block it would open escaped (it stays a paragraph line)."""
    line = line.lstrip(" \t")
    opened = _BLOCK_START.match(line)
    if opened is None:
        return line
    at = opened.start("mark") if opened["mark"] is not None else opened.start("delim")
    return line[:at] + "\\" + line[at:]


def _code_block(lines: list[str], info: str) -> str:
    """Fenced code with a fence no line inside can close, and at most one plain language word."""
    content = neutralize("\n".join(lines))  # never a marker, even in code
    words = info.split()
    language = words[0] if words and _LANGUAGE.fullmatch(words[0]) else ""
    if language.casefold() in _SPECIAL_INFO:
        language = ""
    mark = fence(content)
    return f"{mark}{language}\n{content}\n{mark}" if content else f"{mark}{language}\n{mark}"


def neutralize(text: str) -> str:
    """Untrusted text can never open an HTML comment, so it can never carry a marker."""
    return text.replace("<!--", "&lt;!--")
