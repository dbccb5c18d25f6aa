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
  the head commit), no anchor (about the whole PR), over the inline limit or a
  file's, held back on a re-review, rejected by GitHub, or suppressed by a learning
  (dismissed for the verdict, listed once so later runs read it back);
- **quiet** for nodes already resolved or dismissed: never posted again (the summary says
  where an earlier run posted one, `Placement.posted`);
- **reopened** for a resolved finding found again whose earlier inline comment the head's diff
  still shows on the lines it would be posted on (`reopen`): that comment is edited back to open
  and its thread unresolved, so the finding keeps one thread. At most `edits` a run (the edits
  the run's resolutions left), most severe first; past them, or when the old comment is gone,
  outdated (GitHub shows it on no line of the current diff) or on other lines, the finding is
  placed as a new one and the old comment stays resolved, as history. A reopen the publisher
  then cannot make (GitHub refuses the edit) is placed as it would have been had it never been
  reopenable (`Placement.post_anew`): ranked with the new findings under the same limits.

Ranking, not truncation: nodes are taken most severe first, then confirmed before
open, then most confident (`priority_key`), so when more are commentable than
`InlineRules.max_inline` (or a file's `max_per_file`) the inline ones are the top of
that order and the rest are listed in the body in the same order. On a re-review
(a later push of a PR reviewbot reviewed before) a new node less severe than
`held_below` goes in the body too. Nodes whose fingerprint is already on the PR are
not posted again, inline or in the body. `Placement.choices` states each of these
choices in words, for the review body and the summary.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from enum import StrEnum
from types import MappingProxyType
from urllib.parse import quote, urlsplit

from reviewbot.config.file import PublishConfig
from reviewbot.memory.postings import PriorNode
from reviewbot.nodes.model import Anchor, Priority, ReviewNode, Side, Status
from reviewbot.sources.comments import DiffLines
from reviewbot.sources.diff_index import DiffIndex

SIDE: Side = "RIGHT"  # the default side: an anchor without one is on the PR head


class BodyReason(StrEnum):
    NO_ANCHOR = "no_anchor"
    FILE_NOT_IN_DIFF = "file_not_in_diff"
    OUTSIDE_DIFF = "outside_diff"
    OVER_LIMIT = "over_limit"
    OVER_FILE_LIMIT = "over_file_limit"
    HELD_BACK = "held_back"
    SUPPRESSED = "suppressed"
    REJECTED = "rejected"

    @property
    def text(self) -> str:
        return _REASON_TEXT[self]


_REASON_TEXT = {
    BodyReason.NO_ANCHOR: "about the whole PR",
    BodyReason.FILE_NOT_IN_DIFF: "file not changed in this PR",
    BodyReason.OUTSIDE_DIFF: "outside the diff",
    BodyReason.OVER_LIMIT: "over the inline comment limit",
    BodyReason.OVER_FILE_LIMIT: "over the inline comment limit of its file",
    BodyReason.HELD_BACK: "held back from inline on a re-review",
    BodyReason.SUPPRESSED: "suppressed by a learning: dismissed for the verdict",
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

    def shows(self, earlier: PriorNode) -> bool:
        """Whether the head's diff shows `earlier`'s comment on exactly these lines."""
        here = DiffLines(path=self.path, line=self.line, start_line=self.start_line, side=self.side)
        return earlier.shown_at == here


@dataclass(frozen=True, slots=True, kw_only=True)
class InlineItem:
    node: ReviewNode
    target: CommentTarget


@dataclass(frozen=True, slots=True, kw_only=True)
class ReopenItem:
    """A resolved finding found again, shown by its earlier inline comment, edited back to open."""

    node: ReviewNode
    target: CommentTarget
    earlier: PriorNode  # the resolved inline posting: its comment id and body


@dataclass(frozen=True, slots=True, kw_only=True)
class BodyItem:
    node: ReviewNode
    reason: BodyReason

    @property
    def recorded(self) -> ReviewNode:
        """The node as its marker records it. A suppressed one as it stood before the learning
        dismissed it: each later run reads it back and applies the base branch's learnings
        again, so it stays dismissed while its learning stays and counts once it is gone."""
        if self.reason is not BodyReason.SUPPRESSED:
            return self.node
        standing = Status.CONSENSUS_READY if self.node.confirmed_by else Status.OPEN
        return self.node.model_copy(update={"status": standing})


@dataclass(frozen=True, slots=True, kw_only=True)
class InlineRules:
    """How many new findings go inline, and which, for one review.

    `held_below`: on a re-review, the least severe priority still posted inline (new
    findings below it go in the body); None on a PR's first review.
    """

    max_inline: int
    max_per_file: int | None = None
    held_below: Priority | None = None


def inline_rules(config: PublishConfig, *, rereview: bool) -> InlineRules:
    """The `[publish]` limits of one review; `rereview`: reviewbot reviewed this PR before."""
    return InlineRules(
        max_inline=config.max_inline_comments,
        max_per_file=config.max_inline_per_file,
        held_below=config.rereview_min_priority if rereview else None,
    )


@dataclass(frozen=True, slots=True, kw_only=True)
class Placement:
    inline: tuple[InlineItem, ...] = ()
    body: tuple[BodyItem, ...] = ()
    already_posted: tuple[ReviewNode, ...] = ()
    quiet: tuple[ReviewNode, ...] = ()  # resolved or dismissed: listed in the summary only
    rules: InlineRules
    # Fingerprints already on the PR: a quiet finding among them was posted by an earlier run.
    posted: frozenset[str] = frozenset()
    reopened: tuple[ReopenItem, ...] = ()  # shown again by their own earlier comment

    def choices(self) -> tuple[str, ...]:
        """Why commentable findings are in the body, one sentence per rule that moved one."""
        rules = self.rules
        moved = dict.fromkeys(BodyReason, 0)
        for item in self.body:
            moved[item.reason] += 1
        said: list[str] = []
        if moved[BodyReason.HELD_BACK] and rules.held_below is not None:
            said.append(
                f"{moved[BodyReason.HELD_BACK]} new finding(s) less severe than "
                f"{rules.held_below.value} held back from inline: this PR was reviewed before, "
                "so a later push gets inline comments only for what matters most "
                "(`[publish] rereview_min_priority`); they are listed in the review body."
            )
        if moved[BodyReason.OVER_LIMIT] or moved[BodyReason.OVER_FILE_LIMIT]:
            caps = [f"{rules.max_inline} a review"]
            if rules.max_per_file is not None:
                caps.append(f"{rules.max_per_file} a file")
            over = moved[BodyReason.OVER_LIMIT] + moved[BodyReason.OVER_FILE_LIMIT]
            said.append(
                f"{over} finding(s) over the inline comment limit ({', '.join(caps)}): the "
                "inline ones were chosen by priority, then confirmation, then confidence, "
                "and the rest are listed in the review body in that order."
            )
        return tuple(said)

    def counts(self) -> str:
        """How many inline comments are new, what is not repeated, why findings are in the body."""
        said = [f"{len(self.inline)} new inline comment(s)."]
        if self.already_posted:
            said.append(
                f"{len(self.already_posted)} finding(s) already on this PR are not repeated."
            )
        if self.reopened:
            said.append(
                f"{len(self.reopened)} resolved finding(s) found again are reopened in their "
                "earlier comment."
            )
        return " ".join([*said, *self.choices()])

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
        return replace(self, inline=kept, body=(*self.body, *moved))

    def post_anew(self, node_ids: Iterable[str]) -> Placement:
        """Reopened items whose comment could not be edited, placed as new findings instead.

        Ranked with the new inline comments by the same rules (`_capped`), as `place_nodes`
        would have placed them had they not been reopenable: the limits hold and the inline
        ones stay the most severe; those past them are listed in the body, in rank order.
        """
        anew = set(node_ids)
        moved = [
            InlineItem(node=item.node, target=item.target)
            for item in self.reopened
            if item.node.id in anew
        ]
        if not moved:
            return self
        inline: list[InlineItem] = []
        body: list[BodyItem] = []
        per_file: dict[str, int] = {}
        for item in sorted((*self.inline, *moved), key=lambda item: priority_key(item.node)):
            _admit(item, self.rules, inline, body, per_file)
        return replace(
            self,
            inline=tuple(inline),
            body=tuple(sorted((*self.body, *body), key=lambda item: priority_key(item.node))),
            reopened=tuple(item for item in self.reopened if item.node.id not in anew),
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


def priority_key(node: ReviewNode) -> tuple[int, bool, float, str, int, str]:
    """Most severe first, then confirmed before open, then most confident; stable for equal nodes."""
    anchor = node.anchor
    return (
        node.priority.rank,
        node.status is not Status.CONSENSUS_READY,
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
    max_inline: int | InlineRules,
    posted: frozenset[str] = frozenset(),
    suppressed: frozenset[str] = frozenset(),
    reopen: Mapping[str, PriorNode] = MappingProxyType({}),
    edits: int = 0,
) -> Placement:
    """Place every node; see the module docstring for the rules.

    `suppressed`: fingerprints a learning dismissed this run: in the body once, so the PR keeps
    their marker and later runs apply the learnings again (one whose learning is gone counts).
    `reopen`: fingerprint → the resolved inline posting a returning finding may be reopened in
    (`NodeHistory.reopenable`), at most `edits` of them.
    """
    rules = (
        max_inline if isinstance(max_inline, InlineRules) else InlineRules(max_inline=max_inline)
    )
    inline: list[InlineItem] = []
    body: list[BodyItem] = []
    already: list[ReviewNode] = []  # already on the PR (`posted`), and not closed
    quiet: list[ReviewNode] = []
    reopened: list[ReopenItem] = []
    per_file: dict[str, int] = {}
    for node in sorted(nodes, key=priority_key):
        if node.fingerprint in suppressed and node.status is Status.DISMISSED:
            if node.fingerprint in posted:
                already.append(node)
            else:
                body.append(BodyItem(node=node, reason=BodyReason.SUPPRESSED))
            continue
        if node.status in (Status.RESOLVED, Status.DISMISSED):
            quiet.append(node)
            continue
        if node.fingerprint in posted:
            already.append(node)
            continue
        place = locate(node.anchor, diff) if node.anchor is not None else BodyReason.NO_ANCHOR
        back = _shown(place, reopen.get(node.fingerprint))
        if back is not None and len(reopened) < edits:  # no new comment: no inline limit
            reopened.append(ReopenItem(node=node, target=back[0], earlier=back[1]))
            continue
        if isinstance(place, BodyReason):
            body.append(BodyItem(node=node, reason=place))
        else:
            _admit(InlineItem(node=node, target=place), rules, inline, body, per_file)
    return Placement(
        inline=tuple(inline),
        body=tuple(body),
        already_posted=tuple(already),
        quiet=tuple(quiet),
        rules=rules,
        reopened=tuple(reopened),
        posted=posted,
    )


def _shown(
    place: CommentTarget | BodyReason, earlier: PriorNode | None
) -> tuple[CommentTarget, PriorNode] | None:
    """The target and the earlier comment, when the head's diff shows it on the target's lines."""
    if isinstance(place, BodyReason) or earlier is None or not place.shows(earlier):
        return None
    return place, earlier


def _admit(
    item: InlineItem,
    rules: InlineRules,
    inline: list[InlineItem],
    body: list[BodyItem],
    per_file: dict[str, int],
) -> None:
    """`item` among the inline comments, or in the body when a rule keeps it out (`_capped`);
    items come most severe first."""
    place = _capped(item.node, item.target, rules, per_file, len(inline))
    if isinstance(place, BodyReason):
        body.append(BodyItem(node=item.node, reason=place))
    else:
        inline.append(item)
        per_file[place.path] = per_file.get(place.path, 0) + 1


def _capped(
    node: ReviewNode,
    target: CommentTarget,
    rules: InlineRules,
    per_file: dict[str, int],
    inline: int,
) -> CommentTarget | BodyReason:
    """`target`, unless a rule keeps this commentable node out of the inline comments."""
    if rules.held_below is not None and node.priority.rank > rules.held_below.rank:
        return BodyReason.HELD_BACK
    if inline >= rules.max_inline:
        return BodyReason.OVER_LIMIT
    if rules.max_per_file is not None and per_file.get(target.path, 0) >= rules.max_per_file:
        return BodyReason.OVER_FILE_LIMIT
    return target
