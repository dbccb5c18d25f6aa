"""Earlier findings through a push: carried forward when their lines did not change.

A standing finding of the reviewed head (open or confirmed, human decisions applied) is
**carried forward** — into this run's report, without a model call — when:

- it has no anchor (a note about the whole PR: a push does not show it fixed), or
- it is anchored on the head (RIGHT): the anchored lines at the reviewed head are the
  ones its fingerprint was made from (the quote is read back from the clone and the
  fingerprint recomputed, with the path it was first posted at), every one of them maps
  through `git diff since head` to an unchanged line, they stay consecutive (nothing
  inserted between them), and the new head has the same text there; the anchor moves to
  the new line numbers — and to the new path when the push renamed the file (a rename
  moves the lines, it does not fix them; edits elsewhere in the file just shift them); or
- it is anchored on deleted lines (LEFT) in a file the push did not touch (the PR's
  patch of that file, and so its base numbering, is the same).

Anything else — lines changed, deleted or moved apart, the file deleted, deleted lines
in a renamed file, a quote or fingerprint that does not check out — is to be
**re-judged**: shown to the agents with the lines it was anchored on. If they do not
raise it again it counts as fixed only where they saw the file (coverage); elsewhere it
stands.

Pure: the line readers are passed in.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from reviewbot.nodes.fingerprint import fingerprint
from reviewbot.nodes.model import Anchor, ReviewNode
from reviewbot.sources.diff_index import DiffIndex, FileDiff, FileStatus, Hunk

Lines = Callable[[str], list[str] | None]  # a file's lines at one commit; None: not a text file


@dataclass(frozen=True, slots=True, kw_only=True)
class Rejudge:
    """An earlier finding on lines the push changed, and what those lines said then."""

    node: ReviewNode
    quote: str  # the anchored lines at the reviewed head ("" when they could not be read)
    why: str


@dataclass(frozen=True, slots=True, kw_only=True)
class Carried:
    kept: tuple[ReviewNode, ...]  # carried forward, re-anchored on the new head
    rejudge: tuple[Rejudge, ...]


def carry_forward(
    nodes: Sequence[ReviewNode],
    *,
    moved: DiffIndex,
    since: str,
    old_lines: Lines,
    new_lines: Lines,
    posted_at: Mapping[str, str] | None = None,
) -> Carried:
    """`posted_at`: fingerprint → the path the finding was first posted at (its fingerprint's)."""
    kept: list[ReviewNode] = []
    rejudge: list[Rejudge] = []
    for node in nodes:
        made_at = (posted_at or {}).get(node.fingerprint)
        result = _carry(node, moved, old_lines, new_lines, made_at=made_at)
        if isinstance(result, Rejudge):
            rejudge.append(result)
            continue
        note = f"carried forward from the review of {since[:12]}: its lines did not change"
        kept.append(
            node.model_copy(
                update={
                    "id": f"{since[:12]}:{node.id}"[:100],
                    "anchor": result,
                    "notes": (*node.notes, note),
                }
            )
        )
    return Carried(kept=tuple(kept), rejudge=tuple(rejudge))


def _carry(
    node: ReviewNode, moved: DiffIndex, old_lines: Lines, new_lines: Lines, *, made_at: str | None
) -> Anchor | Rejudge | None:
    """The node's anchor on the new head (None: it has none), or why it must be re-judged."""
    anchor = node.anchor
    if anchor is None:
        return None
    renamed = next(
        (f for f in moved if f.old_path == anchor.path and f.status is FileStatus.RENAMED), None
    )
    touched = renamed or moved.get(anchor.path)
    if anchor.side == "LEFT":
        if touched is None:
            return anchor
        return Rejudge(node=node, quote="", why="the push changed the file it was anchored in")
    before = old_lines(anchor.path)
    if before is None or anchor.end_line > len(before):
        return Rejudge(node=node, quote="", why="its lines could not be read at the reviewed head")
    quote = "\n".join(before[anchor.start_line - 1 : anchor.end_line])
    checked = anchor.model_copy(update={"quote": quote})
    made = checked.model_copy(update={"path": made_at or anchor.path})
    if fingerprint(node.model_copy(update={"anchor": made})) != node.fingerprint:
        return Rejudge(node=node, quote=quote, why="its lines do not match its fingerprint")
    if touched is None:
        return checked
    mapped = _mapped(touched, anchor.start_line, anchor.end_line)
    if mapped is None:
        return Rejudge(node=node, quote=quote, why="the push changed its lines")
    start, end = mapped
    after = new_lines(touched.path)
    if after is None or after[start - 1 : end] != before[anchor.start_line - 1 : anchor.end_line]:
        return Rejudge(node=node, quote=quote, why="its lines read differently in the new head")
    return checked.model_copy(update={"path": touched.path, "start_line": start, "end_line": end})


def _mapped(change: FileDiff, start: int, end: int) -> tuple[int, int] | None:
    """`start..end` of the old file on the new one; None when any line changed or moved apart."""
    if change.status is FileStatus.DELETED or change.binary or change.patch_missing:
        return None
    numbers = [_new_number(change.hunks, n) for n in range(start, end + 1)]
    if any(n is None for n in numbers):
        return None
    found = [n for n in numbers if n is not None]
    if any(b != a + 1 for a, b in itertools.pairwise(found)):
        return None  # lines were inserted between them
    return found[0], found[-1]


def _new_number(hunks: Sequence[Hunk], old: int) -> int | None:
    """Old line `old` in the new file, or None when the diff deletes it."""
    offset = 0
    for hunk in hunks:
        first = hunk.old_start if hunk.old_length else hunk.old_start + 1
        if old < first:
            break
        if old < first + hunk.old_length:
            for line in hunk.lines:
                if line.old_no == old:
                    return line.new_no  # None for a deleted line
            return None
        new_first = hunk.new_start if hunk.new_length else hunk.new_start + 1
        offset = (new_first + hunk.new_length) - (first + hunk.old_length)
    return old + offset
