"""The author's changes since the reviewed head: `git diff since head` on the PR's files.

A file that is no longer part of the PR (the author reverted it entirely) is left out:
a full review would not see it either. When a merge commit came in between — the base
branch merged into the PR — the diff also holds what the base brought in, which is not
the author's new work: a hunk is kept only when it adds a line the PR itself adds (a `+`
line of the PR's patch at the head) or when it only deletes lines (a deletion cannot be
told apart from the author reverting their own line without the old merge base, so it
is shown: shown too much is safe, shown too little is not). What is left out stays in
the PR's patch, readable with the read tools, and its file keeps the earlier coverage.

Pure: two diff indexes in, one out.
"""

from __future__ import annotations

from dataclasses import replace

from reviewbot.sources.diff_index import DiffIndex, FileDiff, Hunk, LineKind


def authored(moved: DiffIndex, pr: DiffIndex, *, merged: bool) -> DiffIndex:
    """The files (and, after a merge, the hunks) of `moved` that are the author's changes."""
    files: dict[str, FileDiff] = {}
    for change in moved:
        in_pr = pr.get(change.path)
        if in_pr is None:
            continue
        if merged and change.hunks:
            change = _own_hunks(change, in_pr)
            if not change.hunks:
                continue  # every hunk came from the base branch
        files[change.path] = change
    return DiffIndex(files=files)


def _own_hunks(change: FileDiff, in_pr: FileDiff) -> FileDiff:
    added_by_pr = {
        line.new_no
        for hunk in in_pr.hunks
        for line in hunk.lines
        if line.kind is LineKind.ADDED and line.new_no is not None
    }
    kept = tuple(hunk for hunk in change.hunks if _is_own(hunk, added_by_pr))
    return replace(
        change,
        hunks=kept,
        additions=_count(kept, LineKind.ADDED),
        deletions=_count(kept, LineKind.DELETED),
    )


def _is_own(hunk: Hunk, added_by_pr: set[int]) -> bool:
    added = [line.new_no for line in hunk.lines if line.kind is LineKind.ADDED]
    if not added:
        return any(line.kind is LineKind.DELETED for line in hunk.lines)
    return any(number in added_by_pr for number in added)


def _count(hunks: tuple[Hunk, ...], kind: LineKind) -> int:
    return sum(1 for hunk in hunks for line in hunk.lines if line.kind is kind)
