"""A clone's history read for the SZZ miner (GitPython): commits, a commit's changed lines, blame.

Three read-only questions, each one git command:
- `history_commits`: every commit reachable from a revision (`git log`), newest first, with
  its parents, committer time and full message.
- `changed_lines`: what a commit changed against its first parent (`git diff -U0 -M`), per
  file: the lines it deleted or modified (old path, old line number, text) and the lines it
  added. Added and deleted files, binary files and submodules are reported as such.
- `blame_lines`: for some lines of a file at a revision, the commit that brought each one
  in, following the revision's first parents (`git blame --first-parent -w -M -C`): a line
  that came in through a merged pull request is the merge's, whitespace changes are looked
  through, and a line moved or copied between files in one commit keeps its origin.

Must not: write to the repository (no checkout, no ref, no config), run hooks or external
diff/textconv drivers, or touch the network. Text is decoded as UTF-8 with errors="replace".
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from git import GitCommandError, InvalidGitRepositoryError, NoSuchPathError, Repo

from reviewbot.errors import RepositoryError

_OPTIONS = ("core.quotePath=false", "core.hooksPath=/dev/null", "core.fsmonitor=false")
_NEAR = 5  # neighbours blamed with a line, each side
_RECORD, _FIELD = "\x1e", "\x1f"  # log record and field separators: never in a commit message
_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
_REMOTE = re.compile(r"github\.com[:/]([\w.-]+)/([\w.-]+?)(?:\.git)?/?$")


@dataclass(frozen=True, slots=True)
class Commit:
    sha: str
    parents: tuple[str, ...]
    time: int  # committer time, seconds since the epoch
    message: str

    @property
    def subject(self) -> str:
        return self.message.split("\n", 1)[0].strip()


@dataclass(frozen=True, slots=True)
class ZeroHunk:
    """One `-U0` hunk: the old lines (number, text) it removed and the new texts it added."""

    removed: tuple[tuple[int, str], ...]
    added: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class FileChange:
    old_path: str | None  # None: the commit added the file
    new_path: str | None  # None: the commit deleted it
    binary: bool
    hunks: tuple[ZeroHunk, ...]


@dataclass(frozen=True, slots=True)
class LineOrigin:
    """Where a blamed line came from: the commit, and the line's path and number there."""

    sha: str
    path: str
    line: int
    text: str


class History:
    """One clone, opened read-only."""

    def __init__(self, path: Path) -> None:
        try:
            self._repo = Repo(path, search_parent_directories=False)
        except (InvalidGitRepositoryError, NoSuchPathError) as exc:
            raise RepositoryError(f"{path} is not a git repository") from exc

    def _run(self, *args: str) -> str:
        try:
            out: bytes = self._repo.git.execute(
                ["git", *_config_args(), *args], stdout_as_string=False, with_extended_output=False
            )
        except GitCommandError as exc:
            detail = str(exc.stderr or "").strip().splitlines()
            raise RepositoryError(f"git {args[0]} failed: {detail[-1] if detail else exc}") from exc
        return out.decode("utf-8", errors="replace")

    def resolve(self, revision: str) -> str:
        return self._run("rev-parse", "--verify", "--quiet", f"{revision}^{{commit}}").strip()

    def github_slug(self) -> str | None:
        """`owner/repo` of the `origin` remote when it is on github.com, else None."""
        try:
            url = self._repo.remotes.origin.url
        except (AttributeError, ValueError):
            return None
        match = _REMOTE.search(url)
        return f"{match[1]}/{match[2]}" if match else None

    def file_text(self, revision: str, path: str) -> str:
        return self._run("cat-file", "-p", f"{revision}:{path}")

    def history_commits(self, revision: str) -> list[Commit]:
        fmt = _FIELD.join(("%H", "%P", "%ct", "%B")) + _RECORD
        out = self._run("log", "--no-color", f"--format={fmt}", revision, "--")
        commits = []
        for record in out.split(_RECORD):
            fields = record.lstrip("\n").split(_FIELD)
            if len(fields) == 4:
                sha, parents, time, message = fields
                commits.append(Commit(sha, tuple(parents.split()), int(time), message.strip()))
        return commits

    def changed_lines(self, commit: Commit) -> list[FileChange]:
        """What `commit` changed against its first parent (a root commit: nothing)."""
        if not commit.parents:
            return []
        out = self._run(
            "diff", "--no-color", "--no-ext-diff", "--no-textconv", "--no-relative", "-U0", "-M",
            "--src-prefix=a/", "--dst-prefix=b/", "--ignore-submodules",
            commit.parents[0], commit.sha, "--",
        )  # fmt: skip
        return parse_unified_zero(out)

    def blame_lines(self, revision: str, path: str, lines: Iterable[int]) -> dict[int, LineOrigin]:
        """The origin of each of `lines` (1-based) of `path` at `revision`.

        Each line is blamed with its neighbours: git finds moved or copied code by blocks of
        at least 40 letters and digits, which one line alone rarely has.
        """
        wanted = set(lines)
        near = {n for line in wanted for n in range(max(1, line - _NEAR), line + _NEAR + 1)}
        # an end past the last line is cut to the file; a start is always a real line
        ranges = [arg for start, end in _runs(sorted(near)) for arg in ("-L", f"{start},{end}")]
        if not ranges:
            return {}
        out = self._run(
            "blame", "--line-porcelain", "--first-parent", "-w", "-M", "-C", *ranges,
            revision, "--", path,
        )  # fmt: skip
        return {n: o for n, o in parse_line_porcelain(out).items() if n in wanted}


def _config_args() -> list[str]:
    return [arg for option in _OPTIONS for arg in ("-c", option)]


def _runs(numbers: list[int]) -> list[tuple[int, int]]:
    """Consecutive numbers as (first, last) ranges: one `-L` each."""
    runs: list[tuple[int, int]] = []
    for n in numbers:
        if runs and runs[-1][1] == n - 1:
            runs[-1] = (runs[-1][0], n)
        else:
            runs.append((n, n))
    return runs


_BINARY = re.compile(r"^Binary files (/dev/null|a/.+) and (/dev/null|b/.+) differ$")


def parse_unified_zero(text: str) -> list[FileChange]:
    """A `git diff -U0` as file changes (the format git prints with the options above)."""
    changes: list[FileChange] = []
    for block in re.split(r"^diff --git ", text, flags=re.MULTILINE)[1:]:
        changes.append(_file_change(block.split("\n")))
    return changes


def _file_change(lines: list[str]) -> FileChange:
    old: str | None = None
    new: str | None = None
    binary = False
    hunks: list[ZeroHunk] = []
    removed: list[tuple[int, str]] = []
    added: list[str] = []
    old_line = 0
    in_hunk = False
    for line in lines[1:]:
        if not in_hunk and line.startswith("--- "):
            old = None if line == "--- /dev/null" else line[6:]
        elif not in_hunk and line.startswith("+++ "):
            new = None if line == "+++ /dev/null" else line[6:]
        elif not in_hunk and line.startswith(("rename from ", "rename to ")):
            old, new = _rename(line, old, new)
        elif line.startswith("Binary files "):
            binary = True
            old, new = _binary_paths(line, old, new)
        elif match := _HUNK.match(line):
            if in_hunk:
                hunks.append(ZeroHunk(tuple(removed), tuple(added)))
            removed, added, in_hunk = [], [], True
            old_line = int(match[1])
        elif in_hunk and line.startswith("-"):
            removed.append((old_line, line[1:]))
            old_line += 1
        elif in_hunk and line.startswith("+"):
            added.append(line[1:])
    if in_hunk:
        hunks.append(ZeroHunk(tuple(removed), tuple(added)))
    return FileChange(old_path=old, new_path=new, binary=binary, hunks=tuple(hunks))


def _binary_paths(line: str, old: str | None, new: str | None) -> tuple[str | None, str | None]:
    # A binary change has no ---/+++ lines: "Binary files a/x and b/x differ" names the paths.
    match = _BINARY.match(line)
    if match is None:
        return old, new
    named = tuple(None if p == "/dev/null" else p[2:] for p in (match[1], match[2]))
    return old or named[0], new or named[1]


def _rename(line: str, old: str | None, new: str | None) -> tuple[str | None, str | None]:
    # A pure rename has no ---/+++ lines: its paths are on the rename lines.
    if line.startswith("rename from "):
        return line.removeprefix("rename from "), new
    return old, line.removeprefix("rename to ")


def parse_line_porcelain(text: str) -> dict[int, LineOrigin]:
    """`git blame --line-porcelain` as {final line number: origin}."""
    origins: dict[int, LineOrigin] = {}
    sha, orig, final, path = "", 0, 0, ""
    for line in text.split("\n"):
        if line.startswith("\t"):
            origins[final] = LineOrigin(sha=sha, path=path, line=orig, text=line[1:])
        elif line.startswith("filename "):
            path = line.removeprefix("filename ")
        elif re.match(r"^[0-9a-f]{40} \d+ \d+", line):
            parts = line.split()
            sha, orig, final = parts[0], int(parts[1]), int(parts[2])
    return origins
