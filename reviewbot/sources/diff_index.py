"""The diff index: per changed file, its status, hunks and commentable lines.

One module, used by the agent tools (which lines the model saw, line numbers in
the packed diff) and by publishing (which lines GitHub accepts an inline comment
on). GitHub accepts a RIGHT-side comment on an added or context line of a hunk,
a LEFT-side one on a deleted or context line; a range must lie in one hunk.

The types and queries live here; building the index from patches (with
`unidiff`) lives here too, so the two can never disagree.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Literal

Side = Literal["RIGHT", "LEFT"]


class FileStatus(StrEnum):
    ADDED = "added"
    MODIFIED = "modified"
    DELETED = "deleted"
    RENAMED = "renamed"
    COPIED = "copied"
    MODE_CHANGED = "mode_changed"


class LineKind(StrEnum):
    ADDED = "added"
    DELETED = "deleted"
    CONTEXT = "context"


@dataclass(frozen=True, slots=True, kw_only=True)
class DiffLine:
    kind: LineKind
    old_no: int | None  # line number in the base file (None for added lines)
    new_no: int | None  # line number in the head file (None for deleted lines)
    text: str  # without the +/-/space prefix and without the line ending


@dataclass(frozen=True, slots=True, kw_only=True)
class Hunk:
    old_start: int
    old_length: int
    new_start: int
    new_length: int
    section: str  # the text after the second @@, often the enclosing function
    lines: tuple[DiffLine, ...]

    def commentable(self, side: Side) -> frozenset[int]:
        if side == "RIGHT":
            return frozenset(ln.new_no for ln in self.lines if ln.new_no is not None)
        return frozenset(ln.old_no for ln in self.lines if ln.old_no is not None)


@dataclass(frozen=True, slots=True, kw_only=True)
class FileDiff:
    path: str  # path in the head (for deleted files: the path that was deleted)
    old_path: str | None = None  # set for renames and copies
    status: FileStatus
    binary: bool = False
    submodule: bool = False
    hunks: tuple[Hunk, ...] = ()
    additions: int = 0
    deletions: int = 0
    patch_missing: bool = False  # GitHub omitted the patch (too large) or none could be made
    _right: frozenset[int] = field(default=frozenset(), repr=False, compare=False)
    _left: frozenset[int] = field(default=frozenset(), repr=False, compare=False)

    def __post_init__(self) -> None:
        # Computed once: publishing asks these sets for every comment.
        right = frozenset().union(*(h.commentable("RIGHT") for h in self.hunks))
        left = frozenset().union(*(h.commentable("LEFT") for h in self.hunks))
        object.__setattr__(self, "_right", right)
        object.__setattr__(self, "_left", left)

    @property
    def changes(self) -> int:
        return self.additions + self.deletions

    def commentable(self, side: Side = "RIGHT") -> frozenset[int]:
        return self._right if side == "RIGHT" else self._left

    def hunk_at(self, line: int, side: Side = "RIGHT") -> Hunk | None:
        for hunk in self.hunks:
            if line in hunk.commentable(side):
                return hunk
        return None

    def can_comment(self, start: int, end: int, side: Side = "RIGHT") -> bool:
        """True when every line of start..end is commentable and all lie in one hunk."""
        hunk = self.hunk_at(start, side)
        if hunk is None or end < start:
            return False
        lines = hunk.commentable(side)
        return all(n in lines for n in range(start, end + 1))


@dataclass(frozen=True, slots=True, kw_only=True)
class DiffIndex:
    files: Mapping[str, FileDiff]
    listing_truncated: bool = False  # GitHub lists at most 3,000 files per PR
    total_files: int | None = None  # as GitHub reports it; may exceed len(files)

    def __iter__(self) -> Iterator[FileDiff]:
        return iter(self.files.values())

    def __len__(self) -> int:
        return len(self.files)

    def get(self, path: str) -> FileDiff | None:
        return self.files.get(path)
