"""The repository's instructions to reviewers, read from the BASE branch only.

Which files: `[review] guidelines` in the base branch's `.reviewbot.toml`; by default
the first of `DEFAULT_GUIDELINES` that exists (`.cursor/rules/*.mdc`: every such file),
`[]` for none. An entry is a path from the repository root, or a folder and a file
pattern (`docs/review/*.md`: `*` in the last part only). When the list is the default
or names `AGENTS.md`, a nested `AGENTS.md` applies to the files below its directory
(monorepos): it is read for each directory above a changed path, deepest last, so the
agents only see the ones that apply to this change, each with its scope.

Bounded by `[review] guidelines_tokens`, counted as the context packer counts: files
are taken in order (the repository's own first, then nested ones from the shallowest)
and the one that does not fit is cut, with a line saying so in what the agents read
and `cut` in the report; files after it are `left_out`. Never silently: every file read
or refused (not UTF-8, over 1 MB) is a `GuidelineFile` of the report.

Why the base: a pull request must not write the instructions its own review follows
(as for `.reviewbot.toml`). The reads go through `BaseFiles`, which the GitHub source
(the contents API at the base SHA) and the local source (the tree of the base commit)
implement; a PR that edits these files changes nothing for its own review.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Protocol

from reviewbot.config.file import DEFAULT_GUIDELINES, RunConfig
from reviewbot.estimate import CHARS_PER_TOKEN, estimate_text
from reviewbot.sources.diff_index import DiffIndex
from reviewbot.sources.guideline_file import GuidelineFile

NESTED = "AGENTS.md"
MAX_BYTES = 1_000_000  # the contents API sends larger files unencoded; no guideline is that long
MAX_NESTED_DIRECTORIES = 64  # directories looked up for a nested AGENTS.md, shallowest first
CUT_NOTE = "…(cut here: the rest of this file is over the guidelines budget of {budget:,} tokens)"


class UnreadableFile(Exception):
    """A guideline file exists but cannot be used; the message says why."""


class BaseFiles(Protocol):
    """Files of the base commit, by path from the repository root."""

    def text(self, path: str) -> str | None:
        """The file's text; None when there is no such file; `UnreadableFile` when not text."""
        ...

    def names(self, folder: str) -> tuple[str, ...]:
        """The names of the files directly in `folder` (empty when there is no such folder)."""
        ...


@dataclass(frozen=True, slots=True, kw_only=True)
class Guideline:
    """A guideline file as the agents are shown it: its text (cut to the budget) and its report."""

    text: str
    file: GuidelineFile


@dataclass(frozen=True, slots=True, kw_only=True)
class Guidelines:
    shown: tuple[Guideline, ...] = ()  # in the order the agents read them
    files: tuple[GuidelineFile, ...] = ()  # every file found, shown or not, for the report
    notes: tuple[str, ...] = ()  # what was looked for and not read (too many directories)


def read_guidelines(files: BaseFiles, config: RunConfig, diff: DiffIndex) -> Guidelines:
    """The guidelines of the base commit that apply to the paths `diff` changes; see the module."""
    changed = [path for d in diff for path in (d.path, d.old_path) if path]  # a move: both sides
    names = DEFAULT_GUIDELINES if config.guidelines is None else config.guidelines
    found = _own(files, names, first_only=config.guidelines is None)
    notes: list[str] = []
    if NESTED in names:
        folders = _folders_above(changed)
        if len(folders) > MAX_NESTED_DIRECTORIES:
            notes.append(
                f"nested {NESTED} files were looked up in the {MAX_NESTED_DIRECTORIES} "
                f"shallowest of the {len(folders)} directories this change touches"
            )
        for folder in folders[:MAX_NESTED_DIRECTORIES]:
            found += _read(files, f"{folder}{NESTED}", scope=folder)
    return _within(found, config.guidelines_tokens, tuple(notes))


@dataclass(frozen=True, slots=True, kw_only=True)
class _Read:
    path: str
    scope: str
    text: str | None  # None: unreadable (`problem` says why)
    size: int
    problem: str | None = None


def _own(files: BaseFiles, names: Sequence[str], *, first_only: bool) -> list[_Read]:
    """The repository-wide files: every one named, or the first that exists (the default)."""
    found: list[_Read] = []
    for name in names:
        read = [r for path in _expand(files, name) for r in _read(files, path, scope="")]
        found += read
        if read and first_only:
            break
    return found


def _expand(files: BaseFiles, name: str) -> list[str]:
    folder, _, pattern = name.rpartition("/")
    if "*" not in pattern and "?" not in pattern:
        return [name]
    prefix = f"{folder}/" if folder else ""
    return [f"{prefix}{n}" for n in sorted(files.names(folder)) if fnmatch.fnmatchcase(n, pattern)]


def _read(files: BaseFiles, path: str, *, scope: str) -> list[_Read]:
    try:
        text = files.text(path)
    except UnreadableFile as exc:
        return [_Read(path=path, scope=scope, text=None, size=0, problem=str(exc))]
    if text is None:
        return []
    size = len(text.encode("utf-8"))
    if size > MAX_BYTES:
        return [_Read(path=path, scope=scope, text=None, size=size, problem="over 1 MB")]
    return [_Read(path=path, scope=scope, text=text, size=size)]


def _folders_above(changed: Iterable[str]) -> list[str]:
    """Every directory above a changed path, root excluded, as `a/b/`: shallowest first."""
    folders: set[str] = set()
    for path in changed:
        parents = PurePosixPath(path).parents
        folders.update(f"{p.as_posix()}/" for p in parents if p.as_posix() != ".")
    return sorted(folders, key=lambda f: (f.count("/"), f))


def _within(found: Sequence[_Read], budget: int, notes: tuple[str, ...]) -> Guidelines:
    """Each file whole while the budget lasts; the one that does not fit is cut; the rest left out."""
    shown: list[Guideline] = []
    reports: list[GuidelineFile] = []
    left = budget
    for read in found:
        if read.text is None:
            reports.append(_report(read, 0, "left_out", f"not read: {read.problem}"))
            continue
        tokens = estimate_text(read.text)
        if tokens <= left:
            text, use, note = read.text, "used", None
        elif left > 0:
            cut = CUT_NOTE.format(budget=budget)
            room = max(left - estimate_text(cut) - 1, 0)
            text = read.text[: int(room * CHARS_PER_TOKEN)] + "\n" + cut
            tokens, use = left, "cut"
            note = f"cut to the guidelines budget of {budget:,} tokens"
        else:
            reports.append(_report(read, 0, "left_out", "over the guidelines budget"))
            continue
        left -= tokens
        file = _report(read, tokens, use, note)
        shown.append(Guideline(text=text, file=file))
        reports.append(file)
    return Guidelines(shown=tuple(shown), files=tuple(reports), notes=notes)


def _report(read: _Read, tokens: int, use: str, note: str | None) -> GuidelineFile:
    return GuidelineFile.model_validate(
        {
            "path": read.path,
            "scope": read.scope,
            "size": read.size,
            "tokens": tokens,
            "use": use,
            "note": note,
        }
    )
