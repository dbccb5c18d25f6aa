"""The review verbs: add_review_node, finalize_review, and the verifier's confirm/dispute.

`add_review_node` takes the model's raw input through the one read boundary
(`reviewbot.nodes.admit`), so a malformed node costs a recorded discard and an
error the model can act on. Then it enforces checkable facts about the anchor:
the file exists in the PR head, the agent has seen it in this run, the
lines exist, and the quote is what those lines say (re-located when it is found
elsewhere). The model copies quotes from tool output and patches, which show the
file through `reviewbot.text.hygiene` (hidden characters revealed, delimiters
defused), so quotes are compared with the file *as the model saw it*; the node
stores the file's actual text. Status changes go through `reviewbot.nodes.apply`
only. Nothing here decides a verdict.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from reviewbot.errors import LifecycleError
from reviewbot.modes.profile import Role
from reviewbot.nodes import (
    Action,
    Anchor,
    Discarded,
    Finding,
    Transition,
    admit,
    also_raised,
    apply,
    fingerprint,
)
from reviewbot.nodes.boundary import ANCHOR_REFUSED
from reviewbot.nodes.model import MAX_BODY, MAX_QUOTE, ReviewNode, Side
from reviewbot.nodes.stamp import stamp
from reviewbot.sources.diff_index import FileDiff, LineKind
from reviewbot.text.hygiene import neutralise_delimiters, quoted, reveal_invisible
from reviewbot.text.truncate import numbered
from reviewbot.tools.context import Proposal, ToolContext, ToolRetry
from reviewbot.tools.paths import normalise, read_lines, resolve_inside
from reviewbot.tools.toolbox import ToolResult, Untrusted
from reviewbot.verdict.lattice import Verdict

_SHOWN_LINES = 40
RELOCATE_WINDOW = 20  # lines: how far a quote may move an anchor from the lines named
_UNSHOWN = "\x00"  # a base line the diff does not show (see _base_text)
_NOT_SHOWN = "(not in the diff: only its deleted and unchanged lines are known)"
BINARY_ANCHOR = (
    "{path} is a binary file: it has no lines, so it cannot carry an anchor. Send the node "
    "without an anchor and name {path} in its title or body"
)
_LISTED_IDS = 50


class _Input(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class FinalizeInput(_Input):
    summary: str = Field(
        min_length=1,
        max_length=MAX_BODY,
        description="Markdown summary of the review: what you checked and what you found.",
    )
    verdict: Literal["ship", "hold", "block"] = Field(
        description="ship = merge as is; hold = needs a look or a fix first; block = must not merge."
    )


class NodeJudgementInput(_Input):
    id: str = Field(
        min_length=1, max_length=100, description="The review node's id, e.g. `review-3`."
    )
    reason: str = Field(
        min_length=1,
        max_length=2_000,
        description="The evidence you checked in the code, and what it shows.",
    )


@dataclass(frozen=True, slots=True, kw_only=True)
class _Placed:
    """An anchor after its checks: possibly moved to where its quote is."""

    finding: Finding
    notes: tuple[str, ...] = ()
    remarks: tuple[str, ...] = ()  # told to the model, not stored on the node


@dataclass(frozen=True, slots=True, kw_only=True)
class _Text:
    """A head file's lines: as they are (stored on the node) and as the model saw them (compared)."""

    path: str
    actual: tuple[str, ...]
    shown: tuple[str, ...]

    @classmethod
    def of(cls, path: str, lines: list[str]) -> _Text:
        return cls(path=path, actual=tuple(lines), shown=tuple(_as_shown(line) for line in lines))


def add_review_node(ctx: ToolContext, raw: object) -> ToolResult:
    admitted = admit(raw, Finding, origin=f"model:{ctx.agent}")
    if isinstance(admitted, Discarded):
        ctx.store.discard(admitted)
        raise ToolRetry(f"the node was not added: {admitted.reason}")
    try:
        placed = _place(ctx, admitted)
    except ToolRetry as refusal:
        # Refused on a checkable fact: kept as a discard too, so nothing is lost silently.
        ctx.store.discard(
            Discarded(raw=raw, reason=f"{ANCHOR_REFUSED}{refusal}", origin=f"model:{ctx.agent}")
        )
        raise
    existing = ctx.store.by_fingerprint(fingerprint(placed.finding))
    if existing is not None:
        return _raise_again(ctx, existing, placed.finding)
    node = stamp(
        placed.finding,
        id=ctx.store.next_id(ctx.agent),
        author=ctx.agent,
        commit_sha=ctx.workspace.head_sha,
        notes=placed.notes,
    )
    ctx.store.add(node)
    lines = [f"added {node.id} ({node.priority.value} {node.kind.value}): {quoted(node.title)}"]
    lines += [*placed.notes, *placed.remarks]
    return ToolResult(content="\n".join(lines))


def _raise_again(ctx: ToolContext, node: ReviewNode, finding: Finding) -> ToolResult:
    """The same finding from another reviewer: one node (one comment), counted for both axes.

    Only reviewers join a node's raisers: a raiser is whose axis the node counts for, and
    the verifier has no axis. It is the judge, so its restatement is answered as before and
    its confirmation still counts.
    """
    if ctx.role != Role.REVIEWER or ctx.agent in node.raisers:
        return ToolResult(content=f"already recorded as {node.id}; a node is not added twice")
    try:
        after = also_raised(node, ctx.agent, finding)
    except LifecycleError as exc:
        raise ToolRetry(str(exc)) from exc
    ctx.store.replace(after)
    return ToolResult(
        content=(
            f"already recorded as {node.id} by {node.author}; a node is not added twice, so it "
            f"now counts as raised by you too ({after.priority.value}, confidence "
            f"{after.confidence:g})"
        )
    )


def finalize_review(ctx: ToolContext, args: FinalizeInput) -> ToolResult:
    if ctx.proposal is not None:
        return ToolResult(
            content="the review is already finalized; the first finalize_review stands",
            is_error=True,
            ends_run=True,
        )
    ctx.proposal = Proposal(summary=args.summary, verdict=Verdict.parse(args.verdict))
    return ToolResult(
        content=(
            f"finalized with the proposed verdict {args.verdict}; the published verdict is the "
            "strictest of yours and the evidence"
        ),
        ends_run=True,
    )


def confirm_review_node(ctx: ToolContext, args: NodeJudgementInput) -> ToolResult:
    node = _node(ctx, args.id)
    if ctx.agent in node.raisers:
        # Every agent holds the verb (one surface per mode); a node's raiser never confirms it.
        raise ToolRetry(
            f"refused: you raised {node.id}, and a node's author never confirms it; only "
            f"another agent's confirmation moves it to consensusReady (it stays {node.status.value})"
        )
    after = _apply(node, Transition(action=Action.CONFIRM, by=ctx.agent, reason=args.reason))
    if after == node:
        return _judged(ctx, f"no change: you already confirmed {node.id}")
    ctx.store.replace(after)
    return _judged(ctx, f"confirmed {node.id}: it is now {after.status.value}")


def dispute_review_node(ctx: ToolContext, args: NodeJudgementInput) -> ToolResult:
    node = _node(ctx, args.id)
    after = _apply(node, Transition(action=Action.DISPUTE, by=ctx.agent, reason=args.reason))
    ctx.store.replace(after)
    return _judged(
        ctx,
        f"dispute recorded on {node.id}; it stays {after.status.value} and the dispute is shown",
    )


def _judged(ctx: ToolContext, content: str) -> ToolResult:
    """A judgement's result; the last of the nodes the agent was given to judge ends its run.

    Its task done, the agent would only be asked once more to say so: a request that
    re-reads the whole cached prefix for nothing. Results of the turn's other calls still run.
    """
    if not ctx.targets or any(not _judged_by(ctx, id) for id in ctx.targets):
        return ToolResult(content=content)
    return ToolResult(
        content=f"{content}; every node you were given is judged, so your run ends here",
        ends_run=True,
    )


def _judged_by(ctx: ToolContext, id: str) -> bool:
    node = ctx.store.get(id)
    if node is None:
        return True  # nothing left to judge
    return ctx.agent in node.confirmed_by or any(d.by == ctx.agent for d in node.disputes)


def _node(ctx: ToolContext, id: str) -> ReviewNode:
    node = ctx.store.get(id)
    if node is None:
        ids = [n.id for n in ctx.store.all()]
        known = ", ".join(ids[:_LISTED_IDS]) + (" …" if len(ids) > _LISTED_IDS else "")
        raise ToolRetry(f"no review node {quoted(id)}; the nodes are: {known or 'none yet'}")
    return node


def _apply(node: ReviewNode, event: Transition) -> ReviewNode:
    try:
        return apply(node, event)
    except LifecycleError as exc:
        raise ToolRetry(str(exc)) from exc


def _place(ctx: ToolContext, finding: Finding) -> _Placed:
    """Check the anchor against the PR; move it to its quote when the numbers are a little off."""
    anchor = finding.anchor
    if anchor is None:
        return _Placed(finding=finding)
    path = normalise(anchor.path)
    if anchor.side == "LEFT":
        return _place_deleted(ctx, finding, anchor, _seen_change(ctx, path))
    real = resolve_inside(ctx.root, path)
    if not real.is_file():
        change = ctx.workspace.diff.get(path)
        deletes = (
            " (or on the lines it deletes, with side LEFT)" if change and change.deletions else ""
        )
        raise ToolRetry(
            f"{quoted(path)} is not a file in the PR head ({ctx.workspace.head_sha[:12]}); anchor "
            f"on a file of the head{deletes}, or omit the anchor for a note about the whole PR"
        )
    lines = read_lines(real, path)
    if lines is None:
        # Before the seen check: read_file shows no lines of a binary file, so it is never
        # "seen", and telling the model to read it first would send it round in circles.
        raise ToolRetry(BINARY_ANCHOR.format(path=quoted(path)))
    _require_seen(ctx, path)
    start, end = anchor.start_line, anchor.end_line
    text = _Text.of(path, lines)
    # Both sides go through the same transform, so a quote copied from tool output and
    # one copied from the raw file (with its hidden characters) both match.
    quote = _block(_as_shown(anchor.quote).split("\n"))
    if end > len(lines):
        # A miscount past the end is a miscount like any other: moved to its quote when near.
        try:
            return _relocate(ctx, finding, anchor, text, quote)
        except ToolRetry:
            raise ToolRetry(
                f"{quoted(path)} has {len(lines):,} lines; lines {start}–{end} go past the end of "
                "the file, and the quote is not within "
                f"{RELOCATE_WINDOW} lines of them"
            ) from None
    if quote == _block(text.shown[start - 1 : end]):
        return _with_remarks(ctx, finding, _at(text, start, end))
    deleted = _deleted_at(ctx.workspace.diff.get(path), path, start, end, quote)
    if deleted is not None:
        return deleted.placed(ctx, finding)
    return _relocate(ctx, finding, anchor, text, quote)


def _require_seen(ctx: ToolContext, path: str) -> None:
    if path not in ctx.seen:
        raise ToolRetry(
            f"you have not seen {quoted(path)} in this run; read it with read_file first (an "
            "anchor may only point at code you have read)"
        )


def _seen_change(ctx: ToolContext, path: str) -> FileDiff:
    """The diff of `path` for a LEFT anchor: the only place deleted lines are shown."""
    change = ctx.workspace.diff.get(path)
    if change is None or not change.commentable("LEFT"):
        raise ToolRetry(
            f"{quoted(path)} has no deleted or unchanged lines in this PR's diff, so a LEFT anchor "
            "cannot point into it; anchor on head lines (side RIGHT) or omit the anchor"
        )
    _require_seen(ctx, path)
    return change


def _base_text(change: FileDiff) -> _Text:
    """The base-version lines the diff shows (deleted and context), by base line number.

    Lines the diff does not show are a placeholder (a NUL) no quote can equal.
    """
    known = {ln.old_no: ln.text for h in change.hunks for ln in h.lines if ln.old_no is not None}
    lines = [known.get(n) for n in range(1, max(known, default=0) + 1)]
    return _Text(
        path=change.path,
        actual=tuple(_UNSHOWN if line is None else line for line in lines),
        # Kept raw: _as_shown reveals every NUL, so no shown quote can equal the placeholder.
        shown=tuple(_UNSHOWN if line is None else _as_shown(line) for line in lines),
    )


@dataclass(frozen=True, slots=True, kw_only=True)
class _Deleted:
    """A RIGHT anchor whose quote is exactly the lines the PR deletes at the numbers named."""

    text: _Text
    start: int
    end: int

    def placed(self, ctx: ToolContext, finding: Finding) -> _Placed:
        note = (
            f"anchor put on the deleted lines {self.start}–{self.end} of {quoted(self.text.path)} "
            "(base version, side LEFT): the quoted text is what the PR deletes there"
        )
        placed = _with_remarks(ctx, finding, _at(self.text, self.start, self.end, side="LEFT"))
        return _Placed(finding=placed.finding, notes=(note,), remarks=placed.remarks)


def _deleted_at(
    change: FileDiff | None, path: str, start: int, end: int, quote: list[str]
) -> _Deleted | None:
    """The model named base numbers of deleted lines without side LEFT: a checkable fact, kept."""
    if change is None or not quote:
        return None
    kinds = {ln.old_no: ln.kind for h in change.hunks for ln in h.lines if ln.old_no is not None}
    if not all(kinds.get(n) is LineKind.DELETED for n in range(start, end + 1)):
        return None
    text = _base_text(change)
    if quote != _block(text.shown[start - 1 : end]):
        return None
    return _Deleted(text=text, start=start, end=end)


def _place_deleted(ctx: ToolContext, finding: Finding, anchor: Anchor, change: FileDiff) -> _Placed:
    text = _base_text(change)
    start, end = anchor.start_line, anchor.end_line
    quote = _block(_as_shown(anchor.quote).split("\n"))
    shown = text.shown[start - 1 : end]
    if end <= len(text.shown) and _UNSHOWN not in shown and quote == _block(shown):
        return _with_remarks(ctx, finding, _at(text, start, end, side="LEFT"))
    return _relocate(ctx, finding, anchor, text, quote)


def _relocate(
    ctx: ToolContext, finding: Finding, anchor: Anchor, text: _Text, quote: list[str]
) -> _Placed:
    """Move the anchor to its quote, only within RELOCATE_WINDOW lines of the lines named.

    Farther away, the same text is more likely another line than a miscount (encode/httpx#58:
    a deleted `class Client:` matched the new one 343 lines away), so the anchor is refused.
    """
    starts = _occurrences([line.rstrip() for line in text.shown], quote) if quote else []
    near = [s for s in starts if abs(s - anchor.start_line) <= RELOCATE_WINDOW]
    if not near:
        raise ToolRetry(
            _refusal(ctx, anchor, text, quote, far=starts),
            data=Untrusted(
                text=_numbered(text.shown, anchor.start_line, anchor.end_line), kind="file_lines"
            ),
        )
    start = min(near, key=lambda s: (abs(s - anchor.start_line), s))
    end = start + len(quote) - 1
    note = (
        f"anchor moved from lines {anchor.start_line}–{anchor.end_line} to {start}–{end} of "
        f"{quoted(text.path)}, where the quoted text is"
    )
    if len(near) > 1:
        note += f" (it occurs {len(near)} times; the one nearest the lines named was used)"
    placed = _with_remarks(ctx, finding, _at(text, start, end, side=anchor.side))
    return _Placed(finding=placed.finding, notes=(note,), remarks=placed.remarks)


def _refusal(
    ctx: ToolContext, anchor: Anchor, text: _Text, quote: list[str], *, far: list[int]
) -> str:
    version = "base version" if anchor.side == "LEFT" else "file"
    if far:
        where = ", ".join(str(s) for s in far[:_LISTED_IDS])
        found = (
            f"it is found only at line(s) {where}, more than {RELOCATE_WINDOW} lines from the lines "
            "named, so the anchor is not moved there"
        )
    else:
        found = f"is not found elsewhere in the {version}"
    side = " (base version, side LEFT)" if anchor.side == "LEFT" else ""
    hint = _deleted_hint(ctx.workspace.diff.get(text.path), anchor, quote)
    # The numbered lines follow as the error's data (PR text, fenced), after this message.
    return (
        f"the quote does not match lines {anchor.start_line}–{anchor.end_line} of "
        f"{quoted(text.path)}{side} and {found}. {hint + ' ' if hint else ''}Copy the quote "
        "from the file (without line numbers) and send the node again. Those lines are:"
    )


def _deleted_hint(change: FileDiff | None, anchor: Anchor, quote: list[str]) -> str | None:
    """For a RIGHT anchor whose quote is code the PR deletes: how to anchor on the deletion."""
    if anchor.side == "LEFT" or change is None or not quote:
        return None
    text = _base_text(change)
    kinds = {ln.old_no: ln.kind for h in change.hunks for ln in h.lines if ln.old_no is not None}
    starts = _occurrences([line.rstrip() for line in text.shown], quote)
    deleted = [
        s for s in starts if any(kinds.get(n) is LineKind.DELETED for n in range(s, s + len(quote)))
    ]
    if not deleted:
        return None
    first = deleted[0]
    return (
        f"The quoted text is deleted by this PR at lines {first}–{first + len(quote) - 1} of the "
        'base version: to comment on the deletion, send the anchor with "side": "LEFT" and '
        "those line numbers."
    )


def _with_remarks(ctx: ToolContext, finding: Finding, anchor: Anchor) -> _Placed:
    placed = finding.model_copy(update={"anchor": anchor})
    change = ctx.workspace.diff.get(anchor.path)
    if change is None:
        remark = f"note: {quoted(anchor.path)} is not changed by this PR, so the node will be listed in the review body"
    elif not change.can_comment(anchor.start_line, anchor.end_line, anchor.side):
        remark = (
            f"note: lines {anchor.start_line}–{anchor.end_line} are not all in one hunk of the diff, "
            "so the node will be listed in the review body instead of as an inline comment"
        )
    else:
        return _Placed(finding=placed)
    return _Placed(finding=placed, remarks=(remark,))


def _at(text: _Text, start: int, end: int, *, side: Side = "RIGHT") -> Anchor:
    """The anchor as stored: the file's own text of the lines, so fingerprints and suggestions see the code."""
    quote = "\n".join(text.actual[start - 1 : end])
    if len(quote) > MAX_QUOTE:
        raise ToolRetry(
            f"lines {start}–{end} of {quoted(text.path)} are {len(quote):,} characters, more than a "
            f"quote may hold ({MAX_QUOTE:,}); anchor fewer lines"
        )
    return Anchor(path=text.path, start_line=start, end_line=end, quote=quote, side=side)


def _as_shown(text: str) -> str:
    """Text as tool output and patches show it to the model (`hygiene.clean`, less redaction)."""
    return neutralise_delimiters(reveal_invisible(text))


def _block(lines: Sequence[str]) -> list[str]:
    """Lines compared as the brief says: trailing whitespace and CR ignored, trailing blank lines too."""
    out = [line.rstrip() for line in lines]
    while out and not out[-1]:
        out.pop()
    return out


def _occurrences(lines: list[str], quote: list[str]) -> list[int]:
    """1-based start lines where `quote` occurs as consecutive lines."""
    size = len(quote)
    return [i + 1 for i in range(len(lines) - size + 1) if lines[i : i + size] == quote]


def _numbered(lines: tuple[str, ...], start: int, end: int) -> str:
    last = min(end, start + _SHOWN_LINES - 1)
    shown = [
        numbered(n, lines[n - 1] if n <= len(lines) and lines[n - 1] != _UNSHOWN else _NOT_SHOWN)
        for n in range(start, last + 1)
    ]
    if last < end:
        shown.append(f"… {end - last} more lines; read them with read_file")
    return "\n".join(shown)
