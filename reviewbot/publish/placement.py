"""Where each review node goes: an inline comment, the review body, or the summary only.

Pure: nodes + the diff index in, a `Placement` out. GitHub accepts an inline comment
only on lines of one hunk of one side — RIGHT (the head: added or context lines,
the default) or LEFT (the base: deleted or context lines, for a node anchored on
code the PR deletes) — and one bad comment fails the whole review, so placement is
decided here, on the anchor's own side, before anything is sent, and no finding is
ever dropped:

- **inline** when every anchored line is commentable in one hunk;
- **narrowed inline** when the anchor only partly overlaps the diff. Rule: take
  the hunk with the largest overlap; narrow to that overlap when it contains the
  anchor's first line (where the problem starts) or covers at least half of the
  anchored lines. The comment then says which lines were meant, and a suggestion
  is never committable (its range would no longer match);
- **body** otherwise: anchored outside the diff (body.py links it to the file at
  the head commit), no anchor (about the whole PR), over the inline limit, or
  rejected by GitHub;
- **quiet** for nodes already resolved or dismissed: summary only, never inline.

At most `max_inline` new inline comments, highest priority first, then highest
confidence; nodes whose fingerprint is already on the PR are not posted again.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from urllib.parse import quote, urlsplit

from reviewbot.nodes.model import Anchor, ReviewNode, Side, Status
from reviewbot.sources.diff_index import DiffIndex

SIDE: Side = "RIGHT"  # the default side: an anchor without one is on the PR head


class BodyReason(StrEnum):
    NO_ANCHOR = "no_anchor"
    FILE_NOT_IN_DIFF = "file_not_in_diff"
    OUTSIDE_DIFF = "outside_diff"
    OVER_LIMIT = "over_limit"
    REJECTED = "rejected"

    @property
    def text(self) -> str:
        return _REASON_TEXT[self]


_REASON_TEXT = {
    BodyReason.NO_ANCHOR: "about the whole PR",
    BodyReason.FILE_NOT_IN_DIFF: "file not changed in this PR",
    BodyReason.OUTSIDE_DIFF: "outside the diff",
    BodyReason.OVER_LIMIT: "over the inline comment limit",
    BodyReason.REJECTED: "GitHub refused the inline comment",
}


@dataclass(frozen=True, slots=True, kw_only=True)
class CommentTarget:
    """Lines of one hunk GitHub accepts a comment on: `start..line` (start None for one line)."""

    path: str
    line: int
    start_line: int | None = None
    narrowed: bool = False
    side: Side = SIDE  # GitHub's `side` and `start_side` (a range lies on one side)

    @property
    def first(self) -> int:
        return self.start_line if self.start_line is not None else self.line


@dataclass(frozen=True, slots=True, kw_only=True)
class InlineItem:
    node: ReviewNode
    target: CommentTarget


@dataclass(frozen=True, slots=True, kw_only=True)
class BodyItem:
    node: ReviewNode
    reason: BodyReason


@dataclass(frozen=True, slots=True, kw_only=True)
class Placement:
    inline: tuple[InlineItem, ...] = ()
    body: tuple[BodyItem, ...] = ()
    already_posted: tuple[ReviewNode, ...] = ()
    quiet: tuple[ReviewNode, ...] = ()  # resolved or dismissed: listed in the summary only

    @property
    def new_count(self) -> int:
        return len(self.inline) + len(self.body)

    def reject(self, node_ids: Iterable[str]) -> Placement:
        """Move inline items GitHub refused into the body: nothing is lost."""
        refused = set(node_ids)
        moved = tuple(
            BodyItem(node=item.node, reason=BodyReason.REJECTED)
            for item in self.inline
            if item.node.id in refused
        )
        kept = tuple(item for item in self.inline if item.node.id not in refused)
        return Placement(
            inline=kept,
            body=(*self.body, *moved),
            already_posted=self.already_posted,
            quiet=self.quiet,
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class LinkBuilder:
    """Links to lines of the head commit: https://{host}/{repo}/blob/{sha}/{path}#L{a}-L{b}."""

    web_url: str  # e.g. "https://github.com" (a GitHub Enterprise host works the same)
    repo: str
    head_sha: str

    def __call__(self, anchor: Anchor | None) -> str | None:
        # LEFT lines are numbered as in the base version: a link to the head would point
        # at other lines, so deleted lines get no link (the comment names them).
        if anchor is None or anchor.side != SIDE:
            return None
        lines = f"L{anchor.start_line}"
        if anchor.end_line != anchor.start_line:
            lines += f"-L{anchor.end_line}"
        path = quote(anchor.path, safe="/")
        return f"{self.web_url.rstrip('/')}/{self.repo}/blob/{self.head_sha}/{path}#{lines}"


def web_url_of(pr_url: str | None) -> str:
    """The web host of a PR's URL (`https://ghe.example.com`), which its links must name too."""
    parts = urlsplit(pr_url or "")
    if parts.scheme and parts.netloc:
        return f"{parts.scheme}://{parts.netloc}"
    return "https://github.com"


def priority_key(node: ReviewNode) -> tuple[int, float, str, int, str]:
    """Most severe first, then most confident; stable for equal nodes."""
    anchor = node.anchor
    return (
        node.priority.rank,
        -node.confidence,
        anchor.path if anchor else "",
        anchor.start_line if anchor else 0,
        node.id,
    )


def locate(anchor: Anchor, diff: DiffIndex) -> CommentTarget | BodyReason:
    """The comment target for `anchor`, narrowed when the rule allows, else why it cannot be inline."""
    file = diff.get(anchor.path)
    if file is None:
        return BodyReason.FILE_NOT_IN_DIFF
    start, end, side = anchor.start_line, anchor.end_line, anchor.side
    if file.can_comment(start, end, side):
        return _target(anchor.path, start, end, side=side, narrowed=False)
    best: list[int] = []
    for hunk in file.hunks:
        overlap = sorted(n for n in hunk.commentable(side) if start <= n <= end)
        if len(overlap) > len(best):
            best = overlap
    if not best or not file.can_comment(best[0], best[-1], side):
        return BodyReason.OUTSIDE_DIFF
    covers_start = best[0] == start
    covers_half = 2 * len(best) >= end - start + 1
    if not (covers_start or covers_half):
        return BodyReason.OUTSIDE_DIFF
    return _target(anchor.path, best[0], best[-1], side=side, narrowed=True)


def _target(path: str, start: int, end: int, *, side: Side, narrowed: bool) -> CommentTarget:
    return CommentTarget(
        path=path,
        line=end,
        start_line=start if start < end else None,
        narrowed=narrowed,
        side=side,
    )


def place_nodes(
    nodes: Sequence[ReviewNode],
    diff: DiffIndex,
    *,
    max_inline: int,
    posted: frozenset[str] = frozenset(),
) -> Placement:
    """Place every node; see the module docstring for the rules."""
    inline: list[InlineItem] = []
    body: list[BodyItem] = []
    already: list[ReviewNode] = []
    quiet: list[ReviewNode] = []
    for node in sorted(nodes, key=priority_key):
        if node.status in (Status.RESOLVED, Status.DISMISSED):
            quiet.append(node)
            continue
        if node.fingerprint in posted:
            already.append(node)
            continue
        if node.anchor is None:
            body.append(BodyItem(node=node, reason=BodyReason.NO_ANCHOR))
            continue
        place = locate(node.anchor, diff)
        if isinstance(place, BodyReason):
            body.append(BodyItem(node=node, reason=place))
        elif len(inline) >= max_inline:
            body.append(BodyItem(node=node, reason=BodyReason.OVER_LIMIT))
        else:
            inline.append(InlineItem(node=node, target=place))
    return Placement(
        inline=tuple(inline), body=tuple(body), already_posted=tuple(already), quiet=tuple(quiet)
    )
