"""Earlier findings through a push: carried forward when their lines did not change.

This is the one rule of what a later run's silence means, for a full review and an
incremental one alike (`scope/standing.py` hands every standing finding here): a finding
the model does not raise again is fixed only when its code changed where it was. A
standing finding (open or confirmed, human decisions applied), anchored at the head it
was last seen on (`since`), is **carried forward** — into this run's report, counted in
its verdict, its comment and thread left open, with the note "not raised again, code
unchanged: kept" — when:

- it has no anchor (a note about the whole PR: no line of it changes, so no run's silence
  shows it fixed; a person `/dismiss`es it), or
- it is anchored on the head (RIGHT): the anchored lines at `since` are the ones its
  fingerprint was made from (the quote is read back from the clone and the fingerprint
  recomputed, with the path it was first posted at), every one of them maps through
  `git diff since head` to an unchanged line, they stay consecutive (nothing inserted
  between them), and the new head has the same text there; the anchor moves to the new
  line numbers — and to the new path when the push renamed the file (a rename moves the
  lines, it does not fix them; edits elsewhere in the file just shift them); a file the
  push deleted is looked for by content in the files it added (a rename git did not
  detect, the rest of the file rewritten); or
- it is anchored on the base (LEFT: deleted lines, and the context lines between them)
  and the PR's patch still shows those lines there, of the file or where it renamed it
  (found by their text: after the base branch is merged into the PR its merge base moves,
  and the same lines are numbered as the new base has them); a context line the push
  added back is a deletion undone, not a line the review saw.

When `since` is not in the clone (a force-push rewrote it), or the lines recorded for it
cannot be read or do not check out against the fingerprint, the rule is conservative: the
finding is carried when the new head still has lines that read as its fingerprint says
(nearest the old numbers first), in its file or where it was renamed since (by the push,
or by the PR's patch when the push is not known), and, when its file is gone, in the files
added since; only when none do is it re-judged.

Anything else — lines changed, deleted or moved apart, the file deleted with no new file
reading as its lines, lines the PR no longer shows on the base side — is to be
**re-judged**: an incremental review shows it to the agents with the lines it was
anchored on. If the
agents do not raise it again it counts as fixed only where they saw the file (coverage,
review/resolution.py); elsewhere it stands.

Pure: the line readers and the diffs are passed in.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from reviewbot.nodes.fingerprint import fingerprint, fingerprint_at
from reviewbot.nodes.model import Anchor, ReviewNode
from reviewbot.sources.diff_index import (
    DiffIndex,
    DiffLine,
    FileDiff,
    FileStatus,
    Hunk,
    LineKind,
)

Lines = Callable[[str], list[str] | None]  # a file's lines at one commit; None: not a text file
KEPT = "not raised again, code unchanged: kept"  # the note of a finding its run did not repeat


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
    moved: DiffIndex | None,
    since: str,
    old_lines: Lines,
    new_lines: Lines,
    pr: DiffIndex,
    posted_at: Mapping[str, str] | None = None,
) -> Carried:
    """`nodes` anchored at `since`, through `moved` (`git diff since head`) onto the new head.

    `moved` None: `since` is not in the clone (a force-push rewrote it): each anchor is
    looked for by what it says in the new head instead. `pr`: the PR's patch at the new
    head (LEFT anchors are its deleted lines). `posted_at`: fingerprint → the path the
    finding was first posted at (its fingerprint's).
    """
    kept: list[ReviewNode] = []
    rejudge: list[Rejudge] = []
    for node in nodes:
        made_at = (posted_at or {}).get(node.fingerprint)
        result = _carry(node, moved, old_lines, new_lines, pr, made_at=made_at)
        if isinstance(result, Rejudge):
            rejudge.append(result)
            continue
        kept.append(
            node.model_copy(
                update={
                    "id": f"{since[:12]}:{node.id}"[:100],
                    "anchor": result,
                    "notes": (*node.notes, _kept_note(since, by_content=moved is None)),
                }
            )
        )
    return Carried(kept=tuple(kept), rejudge=tuple(rejudge))


def _kept_note(since: str, *, by_content: bool = False) -> str:
    """Why a carried finding stands when this run did not raise it again."""
    if by_content:
        return f"{KEPT}: {since[:12]} is not in the clone, and its lines read the same here"
    return f"{KEPT}: its lines did not change since the review of {since[:12]}"


def _carry(
    node: ReviewNode,
    moved: DiffIndex | None,
    old_lines: Lines,
    new_lines: Lines,
    pr: DiffIndex,
    *,
    made_at: str | None,
) -> Anchor | Rejudge | None:
    """The node's anchor on the new head (None: it has none), or why it must be re-judged."""
    anchor = node.anchor
    if anchor is None:
        return None
    if anchor.side == "LEFT":
        return _deleted(node, anchor, pr, moved, made_at=made_at)
    diffs = (pr,) if moved is None else (moved,)  # what moved its file since it was seen
    if moved is None:
        why = "the head it was last seen on is not in the clone"
        return _still_there(node, anchor, new_lines, diffs, made_at=made_at, why=why)
    touched = next(iter(_renamed(moved, anchor.path)), None) or moved.get(anchor.path)
    before = old_lines(anchor.path)
    if before is None or anchor.end_line > len(before):
        why = "its lines could not be read at the reviewed head"
        return _still_there(node, anchor, new_lines, diffs, made_at=made_at, why=why)
    quote = "\n".join(before[anchor.start_line - 1 : anchor.end_line])
    checked = anchor.model_copy(update={"quote": quote})
    if _fingerprint(node, checked, made_at) != node.fingerprint:
        why = "its lines do not match its fingerprint"
        return _still_there(node, anchor, new_lines, diffs, made_at=made_at, why=why)
    if touched is None:
        return checked
    if touched.status is FileStatus.DELETED:  # or renamed too far for git to see a rename
        why = "the push deleted its file"
        return _still_there(node, checked, new_lines, diffs, made_at=made_at, why=why)
    mapped = _mapped(touched, anchor.start_line, anchor.end_line)
    if mapped is None:
        return Rejudge(node=node, quote=quote, why="the push changed its lines")
    start, end = mapped
    after = new_lines(touched.path)
    if after is None or after[start - 1 : end] != before[anchor.start_line - 1 : anchor.end_line]:
        return Rejudge(node=node, quote=quote, why="its lines read differently in the new head")
    return checked.model_copy(update={"path": touched.path, "start_line": start, "end_line": end})


def _fingerprint(node: ReviewNode, anchor: Anchor, made_at: str | None) -> str:
    """The fingerprint `node` has with `anchor`, at the path it was first posted at."""
    made = anchor.model_copy(update={"path": made_at or anchor.path})
    return fingerprint(node.model_copy(update={"anchor": made}))


def _still_there(
    node: ReviewNode,
    anchor: Anchor,
    new_lines: Lines,
    diffs: Sequence[DiffIndex],
    *,
    made_at: str | None,
    why: str,
) -> Anchor | Rejudge:
    """The anchor where the new head has its lines, nearest first; else re-judged.

    What decides is the fingerprint (the quoted code), never the line numbers or the path:
    lines that read the same are the same code, so their finding stands wherever they moved
    to. They are looked for in the anchor's file, then where `diffs` renamed it; when it is
    gone from the head, in the files `diffs` add too (renamed by a push git no longer sees).
    """
    for path in _where_now(anchor.path, diffs, gone=new_lines(anchor.path) is None):
        lines = dict(enumerate(new_lines(path) or (), start=1))
        found = _nearest(node, anchor, lines, made_at)
        if found is not None:
            return found.model_copy(update={"path": path})
    return Rejudge(node=node, quote=anchor.quote, why=f"{why}, and the new head has no such lines")


def _where_now(path: str, diffs: Sequence[DiffIndex], *, gone: bool) -> list[str]:
    """Where the lines of `path` may be at the head: itself, its renames, and (`gone`) new files."""
    renamed = [f.path for diff in diffs for f in _renamed(diff, path)]
    added = [f.path for diff in diffs for f in diff if f.status is FileStatus.ADDED] if gone else []
    return list(dict.fromkeys((path, *renamed, *added)))


def _renamed(diff: DiffIndex, path: str) -> list[FileDiff]:
    """The files `diff` renamed `path` to."""
    return [f for f in diff if f.old_path == path and f.status is FileStatus.RENAMED]


def _deleted(
    node: ReviewNode,
    anchor: Anchor,
    pr: DiffIndex,
    moved: DiffIndex | None,
    *,
    made_at: str | None,
) -> Anchor | Rejudge:
    """A LEFT anchor: base lines the PR's patch still shows, renumbered as its base has them now.

    The LEFT side of a hunk is every base line in it, deleted or context (both take a LEFT
    comment), so an anchor may span both. A context line the push (`moved`) just added back
    is not one the review saw: the PR deleted it then. Base numbering moves when the base
    branch is merged into the PR (the merge base moves): the same code is found by its text
    in the patch, wherever it is numbered now, in the anchor's file or where the PR renamed it.
    """
    for change in _changes(pr, anchor.path):
        pushed = moved.get(change.path) if moved is not None else None
        restored = {line.new_no for line in _lines(pushed) if line.kind is LineKind.ADDED}
        left = {
            line.old_no: line.text
            for line in _lines(change)
            if line.old_no is not None and line.new_no not in restored
        }
        found = _nearest(node, anchor, left, made_at)
        if found is not None:
            return found.model_copy(update={"path": change.path})
    return Rejudge(node=node, quote=anchor.quote, why="the PR no longer deletes these lines")


def _changes(diff: DiffIndex, path: str) -> list[FileDiff]:
    """The change `diff` makes to `path`, then those of the files it renamed `path` to."""
    here = diff.get(path)
    return [*(() if here is None else (here,)), *_renamed(diff, path)]


def _lines(change: FileDiff | None) -> list[DiffLine]:
    return [line for hunk in (change.hunks if change else ()) for line in hunk.lines]


def _nearest(
    node: ReviewNode, anchor: Anchor, lines: Mapping[int, str], made_at: str | None
) -> Anchor | None:
    """The consecutive `lines` (number → text) nearest the anchor's that have its fingerprint."""
    size = anchor.end_line - anchor.start_line + 1
    of_quote = fingerprint_at(node, path=made_at or anchor.path)
    for start in sorted(lines, key=lambda n: abs(n - anchor.start_line)):
        window = [lines.get(number) for number in range(start, start + size)]
        if any(line is None for line in window):
            continue
        quote = "\n".join(line for line in window if line is not None)
        if of_quote(quote) == node.fingerprint:
            update = {"start_line": start, "end_line": start + size - 1, "quote": quote}
            return anchor.model_copy(update=update)
    return None


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
