"""The diff index: per changed file, its status, hunks and commentable lines.

One module, used by the agent tools (which lines the model saw, line numbers in
the packed diff) and by publishing (which lines GitHub accepts an inline comment
on). GitHub accepts a RIGHT-side comment on an added or context line of a hunk,
a LEFT-side one on a deleted or context line; a range must lie in one hunk.

The types and queries live here; building the index from patches (with
`unidiff`, imported nowhere else) lives here too, so the two can never disagree.
Two builders: `file_diff_from_patch` for one file's hunks as GitHub's files API
returns them (no `diff --git` header), `index_from_unified_diff` for the whole
output of `git diff` (the local source). Both take text: decoding bytes is the
caller's job (the local source decodes with errors="replace", see git_repo.py).
This module never runs git and never talks to GitHub.
"""

from __future__ import annotations

import io
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from unidiff import PatchSet
from unidiff.errors import UnidiffParseError

from reviewbot.errors import RepositoryError
from reviewbot.nodes.model import Side


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
    old_mode: str | None = None  # git file modes ("100644", "100755", "120000", "160000")
    new_mode: str | None = None  # when known (local diffs) and different, or the file is added
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


# ---------------------------------------------------------------- building the index

# Statuses where "no patch" is normal rather than a patch GitHub left out.
_CONTENTLESS = frozenset({FileStatus.RENAMED, FileStatus.COPIED, FileStatus.MODE_CHANGED})
# git's SHA of the empty blob: an empty file has no lines, so no patch, and is still text.
EMPTY_BLOB_SHA = "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391"
_KINDS = {"+": LineKind.ADDED, "-": LineKind.DELETED, " ": LineKind.CONTEXT}
# unidiff wants file headers before the first hunk; GitHub's per-file patches have none.
_PLACEHOLDER_HEADER = "--- a/file\n+++ b/file\n"
_SUBMODULE_MODE = "160000"


def file_diff_from_patch(
    path: str,
    patch: str | None,
    *,
    status: FileStatus,
    old_path: str | None = None,
    additions: int | None = None,
    deletions: int | None = None,
    binary: bool = False,
    submodule: bool = False,
    blob_sha: str | None = None,
    old_mode: str | None = None,
    new_mode: str | None = None,
) -> FileDiff:
    """One file's diff from its hunks (`patch` None: GitHub sent none).

    `additions`/`deletions` default to the counts in the patch. A patch that is
    text (even empty: git's own diff) is never missing; for `patch` None the one
    rule is `_without_patch`'s. `binary` says the caller knows the file is binary
    (git's `Binary files … differ`); `blob_sha` is the head blob GitHub lists.
    """
    hunks = parse_hunks(patch, path=path) if patch else ()
    patch_missing = False
    if patch is None:
        binary, patch_missing = _without_patch(
            status=status, additions=additions, deletions=deletions, binary=binary, sha=blob_sha
        )
    return FileDiff(
        path=path,
        old_path=old_path,
        status=status,
        binary=binary,
        submodule=submodule,
        hunks=hunks,
        additions=_count(hunks, LineKind.ADDED) if additions is None else additions,
        deletions=_count(hunks, LineKind.DELETED) if deletions is None else deletions,
        patch_missing=patch_missing,
        old_mode=old_mode,
        new_mode=new_mode,
    )


def _without_patch(
    *,
    status: FileStatus,
    additions: int | None,
    deletions: int | None,
    binary: bool,
    sha: str | None,
) -> tuple[bool, bool]:
    """(binary, patch_missing) of a file GitHub listed without a patch.

    Counts of None mean "not known". In order: a rename, copy or mode change that
    changed no line has no patch to miss; the empty blob is an empty text file
    (an added empty file has no patch and no lines, and is not binary); a file
    known to be binary, or with no line counted, is binary (GitHub counts the
    lines of a text file even when its patch is too large to send); anything else
    is text whose patch is missing.
    """
    lines = None if additions is None or deletions is None else additions + deletions
    if status in _CONTENTLESS and not lines:
        return binary, False
    if sha == EMPTY_BLOB_SHA and not lines:
        return False, False
    if binary or lines == 0:
        return True, False
    return False, True


def parse_hunks(patch: str, *, path: str = "<patch>") -> tuple[Hunk, ...]:
    """The hunks of one file's patch (text starting at its first `@@` line)."""
    if not patch.startswith("@@"):
        raise RepositoryError(f"could not parse the diff of {path}: it does not start with a hunk")
    text = patch if patch.endswith("\n") else patch + "\n"
    try:
        # StringIO splits on "\n" only, so CR, form feeds and U+2028 inside a line stay in it.
        parsed = PatchSet(io.StringIO(_PLACEHOLDER_HEADER + text))
    except UnidiffParseError as exc:
        raise RepositoryError(f"could not parse the diff of {path}: {exc}") from exc
    return tuple(_hunk(raw) for raw in parsed[0])


def _count(hunks: Sequence[Hunk], kind: LineKind) -> int:
    return sum(1 for hunk in hunks for line in hunk.lines if line.kind is kind)


def _hunk(raw: Any) -> Hunk:
    return Hunk(
        old_start=int(raw.source_start),
        old_length=int(raw.source_length),
        new_start=int(raw.target_start),
        new_length=int(raw.target_length),
        section=str(raw.section_header).strip(),
        # "\ No newline at end of file" markers are not lines of either file.
        lines=tuple(_line(line) for line in raw if line.line_type in _KINDS),
    )


def _line(raw: Any) -> DiffLine:
    value = str(raw.value)
    for ending in ("\r\n", "\n"):
        if value.endswith(ending):
            value = value[: -len(ending)]
            break
    return DiffLine(
        kind=_KINDS[raw.line_type],
        old_no=raw.source_line_no,
        new_no=raw.target_line_no,
        text=value,
    )


def index_from_unified_diff(text: str) -> DiffIndex:
    """The index of a whole `git diff` (with `a/` and `b/` prefixes, as git_repo.py asks for)."""
    files: dict[str, FileDiff] = {}
    for chunk in _file_chunks(text):
        diff = _file_from_chunk(chunk)
        earlier = files.get(diff.path)
        files[diff.path] = diff if earlier is None else _merge_type_change(earlier, diff)
    return DiffIndex(files=files, total_files=len(files))


def _file_chunks(text: str) -> Iterator[list[str]]:
    chunk: list[str] = []
    for line in io.StringIO(text):  # lines end at "\n" only
        if line.startswith("diff --git "):
            if chunk:
                yield chunk
            chunk = [line]
        elif chunk:  # text before the first file header (a commit message) is not diff
            chunk.append(line)
    if chunk:
        yield chunk


@dataclass(slots=True)
class _Header:
    """The extended header lines git writes between `diff --git` and the first hunk."""

    old_path: str | None = None
    new_path: str | None = None
    added: bool = False
    deleted: bool = False
    renamed: bool = False
    copied: bool = False
    binary: bool = False
    old_mode: str | None = None
    new_mode: str | None = None
    index_mode: str | None = None

    def read(self, line: str) -> None:
        key, _, value = line.partition(" ")
        match key, value.split(" ", 1)[0]:
            case ("old", "mode") | ("new", "mode") | ("deleted", "file") | ("new", "file"):
                self._read_mode(line)
            case ("rename" | "copy", "from" | "to"):
                self._read_move(line)
            case ("index", _) if value.count(" ") == 1:
                self.index_mode = value.split(" ")[1]
            # git ends these with a tab when the path has a space (GNU diff's convention).
            case ("---", _):
                self.old_path = self.old_path or _strip_prefix(_unquote(value.rstrip("\t")), "a/")
            case ("+++", _):
                self.new_path = self.new_path or _strip_prefix(_unquote(value.rstrip("\t")), "b/")
            case ("Binary", "files") | ("GIT", "binary"):
                self.binary = True

    def _read_mode(self, line: str) -> None:
        mode = line.rsplit(" ", 1)[1]
        if line.startswith("old mode "):
            self.old_mode = mode
        elif line.startswith("new mode "):
            self.new_mode = mode
        elif line.startswith("deleted file mode "):
            self.deleted, self.old_mode = True, mode
        else:
            self.added, self.new_mode = True, mode

    def _read_move(self, line: str) -> None:
        verb, direction, path = line.split(" ", 2)
        self.renamed = self.renamed or verb == "rename"
        self.copied = self.copied or verb == "copy"
        if direction == "from":
            self.old_path = _unquote(path)
        else:
            self.new_path = _unquote(path)

    @property
    def status(self) -> FileStatus:
        if self.added:
            return FileStatus.ADDED
        if self.deleted:
            return FileStatus.DELETED
        if self.renamed:
            return FileStatus.RENAMED
        if self.copied:
            return FileStatus.COPIED
        return FileStatus.MODIFIED

    @property
    def submodule(self) -> bool:
        return _SUBMODULE_MODE in (self.old_mode, self.new_mode, self.index_mode)


def _file_from_chunk(chunk: list[str]) -> FileDiff:
    header = _Header()
    first_hunk = next((i for i, line in enumerate(chunk) if line.startswith("@@")), len(chunk))
    for line in chunk[1:first_hunk]:
        header.read(line.rstrip("\n"))
    git_old, git_new = _paths_from_git_line(chunk[0].rstrip("\n"))
    old_path = header.old_path or git_old
    new_path = header.new_path or git_new
    path = (old_path if header.deleted else new_path) or old_path or new_path
    if path is None:
        raise RepositoryError(f"could not parse the diff header {chunk[0].strip()!r}")
    patch = "".join(chunk[first_hunk:])
    status = header.status
    if status is FileStatus.MODIFIED and not patch and not header.binary and header.new_mode:
        status = FileStatus.MODE_CHANGED
    return file_diff_from_patch(
        path,
        patch,
        status=status,
        old_path=old_path if status in (FileStatus.RENAMED, FileStatus.COPIED) else None,
        binary=header.binary,
        submodule=header.submodule,
        old_mode=header.old_mode,
        new_mode=header.new_mode,
    )


def _merge_type_change(deleted: FileDiff, added: FileDiff) -> FileDiff:
    """git shows a type change (file ↔ symlink) as a deletion and an addition of one path."""
    return FileDiff(
        path=added.path,
        status=FileStatus.MODIFIED,
        binary=deleted.binary or added.binary,
        submodule=deleted.submodule or added.submodule,
        hunks=deleted.hunks + added.hunks,
        additions=deleted.additions + added.additions,
        deletions=deleted.deletions + added.deletions,
        old_mode=deleted.old_mode,
        new_mode=added.new_mode,
    )


def _paths_from_git_line(line: str) -> tuple[str | None, str | None]:
    """Both paths of `diff --git a/X b/Y`; only unambiguous when quoted or X == Y."""
    rest = line.removeprefix("diff --git ")
    if rest.startswith('"'):
        first, _, second = _split_quoted(rest)
        return _strip_prefix(first, "a/"), _strip_prefix(_unquote(second), "b/")
    half = (len(rest) - 5) // 2  # "a/" + P + " b/" + P
    old, new = rest[2 : 2 + half], rest[5 + half :]
    if rest.startswith("a/") and rest[2 + half : 5 + half] == " b/" and old == new:
        return old, new
    return None, None


def _split_quoted(text: str) -> tuple[str, str, str]:
    """Split `"quoted" rest` after the closing quote; returns (unquoted, " ", rest)."""
    i = 1
    while i < len(text) and text[i] != '"':
        i += 2 if text[i] == "\\" else 1
    return _unquote(text[: i + 1]), " ", text[i + 2 :]


_ESCAPES = {"a": 7, "b": 8, "t": 9, "n": 10, "v": 11, "f": 12, "r": 13, '"': 34, "\\": 92}


def _unquote(text: str) -> str:
    """Undo git's C-style path quoting (octal escapes are UTF-8 bytes)."""
    if len(text) < 2 or not (text.startswith('"') and text.endswith('"')):
        return text
    out = bytearray()
    body, i = text[1:-1], 0
    while i < len(body):
        char = body[i]
        if char != "\\" or i + 1 == len(body):
            out += char.encode("utf-8")
            i += 1
        elif body[i + 1 : i + 4].isdigit():
            out.append(int(body[i + 1 : i + 4], 8) & 0xFF)
            i += 4
        else:
            out.append(_ESCAPES.get(body[i + 1], ord(body[i + 1])))
            i += 2
    return out.decode("utf-8", errors="replace")


def _strip_prefix(path: str, prefix: str) -> str | None:
    if path == "/dev/null":
        return None
    return path.removeprefix(prefix)
