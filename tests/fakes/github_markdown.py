"""GitHub's rendering of posted markdown, for tests: what a reader of a comment would get.

GitHub renders comments, reviews, check-run summaries and step summaries with
cmark-gfm and its extensions (table, autolink, tagfilter, strikethrough,
tasklist); raw HTML is kept (GitHub's own sanitizer lets `img`, `picture`,
`source`, `a`, `details` … through), so the renderer runs with UNSAFE. Then, on
the rendered HTML and only in text outside `code`, `pre` and `a` elements,
GitHub links `@login` and `@org/team` mentions (a notification) and `#123`,
`owner/repo#5`, `GH-12` references (a backlink on that issue), and may autolink
what looks like a URL. `LIVE` is that rule, stricter than GitHub: any `@`
followed by a letter or digit, any `#` followed by a digit, `GH-` and a digit,
`://` or `www.` in such text counts as live.

Must not: be used for anything but assertions (it is a model of GitHub, not GitHub).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from html.parser import HTMLParser

import cmarkgfm
from cmarkgfm.cmark import Options

from reviewbot.publish.inert import RepoLinks

GITHUB_OPTIONS = Options.CMARK_OPT_UNSAFE | Options.CMARK_OPT_GITHUB_PRE_LANG
LIVE = re.compile(r"@[A-Za-z0-9]|#[0-9]|\bGH-[0-9]|://|\bwww\.", re.IGNORECASE)
_INERT_PARENTS = frozenset({"code", "pre", "a"})
_IMAGE_ATTRIBUTES = frozenset({"src", "srcset", "poster", "background", "data"})
# Every tag reviewbot's own templates and the kept markdown subset produce; anything else in
# a posted body came from untrusted text.
MARKDOWN_TAGS = frozenset(
    {"p", "em", "strong", "del", "code", "pre", "a", "br", "sub", "hr", "blockquote"}
    | {"h2", "h3", "h4", "ul", "li", "table", "thead", "tbody", "tr", "th", "td"}
)
STRUCTURE = ("h1", "h2", "h3", "h4", "h5", "h6", "ul", "ol", "li", "blockquote", "hr", "table")
STRUCTURE += ("tr", "td", "th", "pre")


@dataclass(frozen=True, slots=True, kw_only=True)
class Rendered:
    html: str
    tags: Counter[str]
    links: tuple[str, ...]  # every href
    images: tuple[str, ...]  # every image-like tag or attribute, as `tag attr=value`
    free_text: tuple[str, ...]  # text nodes outside code, pre and a: where GitHub links things
    code: tuple[str, ...]  # the text of each code element
    comments: tuple[str, ...]
    texts: tuple[str, ...]  # every text node

    def live(self) -> list[str]:
        """Text GitHub would turn into a mention, a reference or a link."""
        return [text for text in self.free_text if LIVE.search(text)]

    def structure(self) -> dict[str, int]:
        return {tag: self.tags[tag] for tag in STRUCTURE if self.tags[tag]}

    def text(self) -> str:
        """What a reader sees, roughly: every text node, comments left out."""
        return "".join(self.texts).strip()


class _Walk(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: Counter[str] = Counter()
        self.links: list[str] = []
        self.images: list[str] = []
        self.free: list[str] = []
        self.code: list[str] = []
        self.comments: list[str] = []
        self.all: list[str] = []
        self._inert = 0
        self._in_code = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags[tag] += 1
        values = dict(attrs)
        if tag == "a" and values.get("href") is not None:
            self.links.append(values["href"] or "")
        if tag in ("img", "picture", "source", "image", "svg", "video", "audio", "object"):
            self.images.append(tag)
        self.images.extend(f"{tag} {k}={v}" for k, v in attrs if k in _IMAGE_ATTRIBUTES)
        if tag in _INERT_PARENTS:
            self._inert += 1
        if tag == "code":
            self._in_code += 1
            self.code.append("")

    def handle_endtag(self, tag: str) -> None:
        if tag in _INERT_PARENTS:
            self._inert -= 1
        if tag == "code":
            self._in_code -= 1

    def handle_data(self, data: str) -> None:
        self.all.append(data)
        if self._in_code:
            self.code[-1] += data
        if not self._inert:
            self.free.append(data)

    def handle_comment(self, data: str) -> None:
        self.comments.append(data)


def render(markdown: str) -> Rendered:
    html = cmarkgfm.github_flavored_markdown_to_html(markdown, options=GITHUB_OPTIONS)
    walk = _Walk()
    walk.feed(html)
    walk.close()
    return Rendered(
        html=html,
        tags=walk.tags,
        links=tuple(walk.links),
        images=tuple(walk.images),
        free_text=tuple(walk.free),
        code=tuple(walk.code),
        comments=tuple(walk.comments),
        texts=tuple(walk.all),
    )


def assert_inert(markdown: str, links: RepoLinks | None = None) -> Rendered:
    """Rendered as GitHub would: no image, no raw HTML, links only into `links`, nothing live."""
    shown = render(markdown)
    assert not shown.images, f"images: {shown.images}\n{shown.html}"
    assert set(shown.tags) <= MARKDOWN_TAGS, f"tags {set(shown.tags) - MARKDOWN_TAGS}\n{shown.html}"
    refused = [href for href in shown.links if links is None or not links.allows(href)]
    assert not refused, f"links outside the repository: {refused}\n{shown.html}"
    assert not shown.live(), f"live mentions, references or URLs: {shown.live()}\n{shown.html}"
    return shown
