"""Where GitHub shows a review comment after later pushes: on its re-mapped lines, or outdated.

GitHub keeps a review comment's `original_line` (and `original_commit_id`) for ever, and lists
its current `line` against the PR's head: the commented lines followed through the file's
changes since the comment's commit. When a commented line changed, or left the PR's diff, the
comment is *outdated*: `line`, `start_line` and `position` are null in the REST answer, and
the comment can no longer be answered on a line of the current diff.

The fake follows the file's text at the comment's commit to its text at the head (both known
when the PR was mirrored from a real repository: tests/fakes/pulls.py serves every file of
every head); without both texts it lists the comment as it was stored. A LEFT comment stays on
its base line while the head's diff still shows it.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable
from typing import Any

from tests.fakes.github_api import FakePull, FakeRepo, parse_hunks


def as_listed(repo: FakeRepo, pull: FakePull, comment: dict[str, Any]) -> dict[str, Any]:
    """`comment` as GitHub lists it at the PR's head: re-mapped, or outdated (nulls)."""
    commit = comment.get("original_commit_id") or comment.get("commit_id")
    if commit == pull.head_sha or comment.get("original_line") is None:
        return comment
    path, side = comment["path"], comment.get("side") or "RIGHT"
    if side == "RIGHT":
        old = repo.contents.get((commit, path))
        new = repo.contents.get((pull.head_sha, path))
        if old is None or new is None:
            return comment
        moved = _follow(old, new)
    else:
        moved = _same
    line = moved(comment["original_line"])
    start = comment.get("original_start_line")
    start_line = moved(start) if start is not None else None
    shown = _in_diff(pull, path, side)
    if line is None or line not in shown or (start is not None and start_line not in shown):
        return comment | {"line": None, "start_line": None, "position": None}
    return comment | {"line": line, "start_line": start_line, "commit_id": pull.head_sha}


def _same(line: int) -> int | None:
    return line


def _follow(old: str, new: str) -> Callable[[int], int | None]:
    """Old line number → its number in `new`, when the line is unchanged (else None)."""
    matcher = difflib.SequenceMatcher(a=old.splitlines(), b=new.splitlines(), autojunk=False)
    kept = {
        a + 1 + k: b + 1 + k for a, b, size in matcher.get_matching_blocks() for k in range(size)
    }
    return kept.get


def _in_diff(pull: FakePull, path: str, side: str) -> frozenset[int]:
    """The lines of `path` the head's diff shows on `side` (where a comment can sit)."""
    file = pull.file(path)
    hunks, _ = parse_hunks(file.patch or "") if file is not None else ((), 0)
    return frozenset(n for h in hunks for n in (h.right if side == "RIGHT" else h.left))
