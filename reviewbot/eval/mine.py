"""The SZZ miner: a golden set from a clone's own history, with no model.

    every commit reachable from REV ─▶ pull requests: a merge "Merge pull request #N …"
                                       (base: first parent, head: second) or a commit whose
                                       subject ends "(#N)" (a squash: base is its parent)
                                    ─▶ fixes (FIX_RULE, on the PR title for a merge)
    per fix: the lines it deleted or modified ─▶ filters (below) ─▶ blame at the fix's
    parent (first parents, -w -M -C) ─▶ a line brought in by a PR: that PR introduced it
    ─▶ one golden entry per introducing PR, one golden comment per later fix

What SZZ is known to get wrong, and what is filtered here:
- fixes that only add lines: nothing to blame (counted, never an entry);
- fixes of the tooling: the subject says so (`fix typo`, `fix tests`) or names a checker;
- whitespace-only hunks (the same text once whitespace is removed), blank lines,
  comment-only lines (by the file's comment syntax), Python docstrings, documentation,
  test, build, CI and dev-tool files;
- code the fix only moved: a deleted line the fix adds back elsewhere, word for word;
- code the fix only renamed: a line whose only change is a name the file binds, renamed
  throughout (renames.py);
- refactorings that moved the code earlier: blame follows moves and copies (-M -C) and
  looks through whitespace changes (-w), so the line's origin is found, not the move;
- merges of the base or of another branch: a line blamed to a merge that is not a PR
  merge (`Merge branch '1.x'`) is not blamed on anyone.

Issue labels are not in a clone, so a fix is known by its message only. Must not: write
to the repository or touch the network (git_history.py reads, this module decides).
"""

from __future__ import annotations

import io
import re
import tokenize
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from pathlib import PurePosixPath

from reviewbot.eval.renames import renamed_lines
from reviewbot.sources.git_history import Commit, FileChange, History, LineOrigin

# A fix says so: "fix"/"fixes"/"fixed"/"bugfix"/"hotfix"/"bug" as a word in its subject,
# or "fixes #N" / "closes #N" / "resolves #N" anywhere in its message.
FIX_SUBJECT = re.compile(r"\b(fix(e[sd]|ing)?|bug(fix)?|hotfix)\b", re.IGNORECASE)
FIX_REFERENCE = re.compile(r"\b(fix(e[sd])?|close[sd]?|resolve[sd]?)\s+#\d+", re.IGNORECASE)
# …unless what it fixes is the tooling, not the behaviour: "fix pyright findings", "Fix test
# for …", "fix merge", "fix typo" (the false entries a hand check of pallets/click's set found).
NOT_A_BUG_FIX = re.compile(
    r"\bfix(e[sd]|ing)?\s+(the\s+|a\s+|some\s+)?(typos?|spelling|grammar|tests?|merge|docs?|"
    r"documentation|docstrings?|ci|build|formatting|style|changelog|warnings?)\b",
    re.IGNORECASE,
)
# A checker or formatter named anywhere says what was fixed is its finding, whatever the words
# around it ("fix new mypy findings", "apply ruff fixes", "pydocstyle and flake8 fixes").
TOOL_FINDINGS = re.compile(
    r"\b(lint(ers?|ing)?|pyright|mypy|flake8|pyflakes|pep8|pycodestyle|pydocstyle|pylint|"
    r"ruff|isort|pre-commit|eslint|prettier|clippy|rubocop|shellcheck|codespell)\b",
    re.IGNORECASE,
)
_MERGE_PR = re.compile(r"^Merge pull request #(\d+)\b")
_SQUASH_PR = re.compile(r"\s*\(#(\d+)\)\s*$")
_NOT_CODE = {".md", ".rst", ".txt", ".adoc", ".html", ".svg", ".png", ".lock", ".json"}
_DOC_NAMES = ("README", "CHANGES", "CHANGELOG", "HISTORY", "NEWS", "AUTHORS", "LICENSE", "COPYING")
_NOT_CODE_FOLDERS = {"doc", "docs", "test", "tests", "testing"}
# Files that drive the build, the CI or a dev tool: a fix there repairs the tooling, not what
# the project ships (dotfiles and dot-folders, `.github/`, `.pre-commit-config.yaml`, are too).
_TOOLING = {
    "tox.ini", "noxfile.py", "pytest.ini", "conftest.py", "makefile", "manifest.in", "pipfile",
    "appveyor.yml", "azure-pipelines.yml", "jenkinsfile", "codecov.yml",
}  # fmt: skip
_HASH = {".py", ".pyi", ".sh", ".bash", ".toml", ".yaml", ".yml", ".cfg", ".ini", ".rb", ".pl"}
_DASHES = {".sql", ".lua", ".hs"}
_C_LIKE = ("//", "/*", "*", "*/")
MAX_LINES_IN_COMMENT = 5


@dataclass(frozen=True, slots=True)
class PullRequest:
    number: int
    title: str
    sha: str  # the merge or squash commit
    base: str
    head: str
    time: int


@dataclass(frozen=True, slots=True)
class FixLine:
    """A line a fix deleted or changed, and where it came from."""

    path: str  # at the introducing PR's head
    line: int
    text: str


@dataclass(slots=True)
class Fix:
    commit: Commit
    lines: list[FixLine] = field(default_factory=list)


@dataclass(slots=True)
class MinedPR:
    pr: PullRequest
    fixes: list[Fix] = field(default_factory=list)


@dataclass(slots=True)
class MineStats:
    commits: int = 0
    prs: int = 0
    fixes: int = 0
    add_only: int = 0
    lines: int = 0  # deleted or changed lines of the fixes, before the filters
    filtered: dict[str, int] = field(default_factory=dict)
    blamed_to_pr: int = 0

    def drop(self, reason: str, count: int = 1) -> None:
        self.filtered[reason] = self.filtered.get(reason, 0) + count


@dataclass(frozen=True, slots=True, kw_only=True)
class MineOptions:
    revision: str = "HEAD"
    since: int | None = None  # epoch seconds: PRs merged before it are not kept
    paths: tuple[str, ...] = ()  # globs or folder prefixes; empty: every path
    limit: int | None = None
    # The repository's own name (`mypy` for python/mypy): in a checker's own history a fix
    # naming that checker is a fix of the product, not of the tooling around it.
    project: str | None = None


def pull_request(commit: Commit) -> PullRequest | None:
    """The PR a commit merged (a merge or a squash naming `#N`), or None."""
    merge = _MERGE_PR.match(commit.subject)
    if merge and len(commit.parents) == 2:
        body = commit.message.split("\n", 1)[1].strip() if "\n" in commit.message else ""
        title = body.split("\n", 1)[0].strip() or commit.subject
        base, head = commit.parents
        return PullRequest(int(merge[1]), title, commit.sha, base, head, commit.time)
    squash = _SQUASH_PR.search(commit.subject)
    if squash and len(commit.parents) == 1:
        title = commit.subject[: squash.start()].strip()
        return PullRequest(
            int(squash[1]), title, commit.sha, commit.parents[0], commit.sha, commit.time
        )
    return None


def is_fix(commit: Commit, pr: PullRequest | None, *, project: str | None = None) -> bool:
    """Whether the message says the commit fixes a bug (a PR merge: its title)."""
    if len(commit.parents) != 1 and pr is None:
        return False  # a merge of branches changes whatever the branch changed
    subject = pr.title if pr is not None else commit.subject
    own = (project or "").casefold()
    tools = {m.group(0).casefold() for m in TOOL_FINDINGS.finditer(subject)} - {own}
    if NOT_A_BUG_FIX.search(subject) or tools:
        return False
    return bool(FIX_SUBJECT.search(subject) or FIX_REFERENCE.search(commit.message))


def mine(
    history: History, options: MineOptions, *, note: Callable[[str], None] = lambda _: None
) -> tuple[list[MinedPR], MineStats]:
    """The golden entries (newest PR first) and what the mining saw."""
    stats = MineStats()
    commits = history.history_commits(options.revision)
    stats.commits = len(commits)
    prs = {c.sha: pr for c in commits if (pr := pull_request(c)) is not None}
    merges = frozenset(c.sha for c in commits if len(c.parents) > 1)
    stats.prs = len(prs)
    entries: dict[str, MinedPR] = {}
    seen: set[tuple[str, str, int]] = set()
    for done, commit in enumerate(reversed(commits), start=1):  # oldest first: the first fix wins
        if done % 500 == 0:
            note(f"mined {done} of {len(commits)} commits, {len(entries)} PR(s) so far")
        if options.since is not None and commit.time < options.since:
            continue  # a fix older than --since cannot fix a PR kept by it
        if not is_fix(commit, prs.get(commit.sha), project=options.project):
            continue
        stats.fixes += 1
        for origin in _blamed(history, commit, options, stats):
            pr = prs.get(origin.sha)
            if pr is None:
                merge = origin.sha in merges
                stats.drop("blamed on a merge that is not a PR" if merge else "blamed outside a PR")
                continue
            if options.since is not None and pr.time < options.since:
                stats.drop("introduced before --since")
                continue
            if (pr.sha, origin.path, origin.line) in seen:
                continue  # an earlier fix already changed it
            seen.add((pr.sha, origin.path, origin.line))
            stats.blamed_to_pr += 1
            _add(entries.setdefault(pr.sha, MinedPR(pr)), commit, origin)
    kept = sorted(entries.values(), key=lambda e: e.pr.time, reverse=True)
    return kept[: options.limit] if options.limit is not None else kept, stats


def _add(entry: MinedPR, commit: Commit, origin: LineOrigin) -> None:
    if not entry.fixes or entry.fixes[-1].commit.sha != commit.sha:
        entry.fixes.append(Fix(commit))
    entry.fixes[-1].lines.append(FixLine(origin.path, origin.line, origin.text))


def _blamed(
    history: History, commit: Commit, options: MineOptions, stats: MineStats
) -> list[LineOrigin]:
    """The origins of the fix's deleted or changed lines that pass the filters."""
    changes = history.changed_lines(commit)
    if not any(h.removed for c in changes for h in c.hunks if c.old_path is not None):
        stats.add_only += 1
        return []
    added_anywhere = {_squeeze(text) for c in changes for h in c.hunks for text in h.added}
    added_anywhere.discard("")
    origins: list[LineOrigin] = []
    for change in changes:
        lines = _kept_lines(change, added_anywhere, options, stats)
        if not lines or change.old_path is None:
            continue
        lines = _unchanged_in_meaning(history, commit, change, change.old_path, lines, stats)
        if lines:
            blamed = history.blame_lines(commit.parents[0], change.old_path, lines)
            origins.extend(blamed[n] for n in sorted(blamed))
    return origins


def _unchanged_in_meaning(
    history: History,
    commit: Commit,
    change: FileChange,
    old_path: str,
    lines: list[int],
    stats: MineStats,
) -> list[int]:
    """`lines` without the Python docstrings and the lines the fix only renamed names in."""
    old_text = history.file_text(commit.parents[0], old_path)
    skipped: dict[str, set[int]] = {}
    if old_path.endswith(".py"):
        skipped["docstring"] = docstring_lines(old_text)
    if change.new_path is not None:
        new_text = history.file_text(commit.sha, change.new_path)
        skipped["renamed, not changed"] = renamed_lines(old_text, new_text, change.hunks)
    for reason, numbers in skipped.items():
        if dropped := sum(1 for n in lines if n in numbers):
            stats.drop(reason, dropped)
            lines = [n for n in lines if n not in numbers]
    return lines


def _kept_lines(
    change: FileChange, added_anywhere: set[str], options: MineOptions, stats: MineStats
) -> list[int]:
    """The old line numbers of `change` worth blaming; the others counted by reason."""
    removed = sum(len(h.removed) for h in change.hunks)
    stats.lines += removed
    path = change.old_path
    if path is None or change.binary or not removed:
        return []
    if not is_code(path) or not selected(path, options.paths):
        stats.drop("not a code file, or not in --paths", removed)
        return []
    kept: list[int] = []
    for hunk in change.hunks:
        if _squeeze("".join(t for _, t in hunk.removed)) == _squeeze("".join(hunk.added)):
            stats.drop("whitespace only", len(hunk.removed))
            continue
        for number, text in hunk.removed:
            if is_comment_or_blank(path, text):
                stats.drop("blank or comment only")
            elif _squeeze(text) in added_anywhere:
                stats.drop("moved, not changed")
            else:
                kept.append(number)
    return kept


def docstring_lines(source: str) -> set[int]:
    """The lines of a Python file's docstrings (strings standing alone as statements).

    A file `tokenize` cannot read (Python 2, a syntax error) has none: its lines are kept.
    """
    lines: set[int] = set()
    previous = tokenize.NEWLINE
    try:
        for token in tokenize.generate_tokens(io.StringIO(source).readline):
            standalone = previous in (tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT)
            if token.type == tokenize.STRING and standalone:
                lines.update(range(token.start[0], token.end[0] + 1))
            if token.type not in (tokenize.COMMENT, tokenize.NL):
                previous = token.type
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return set()
    return lines


def _squeeze(text: str) -> str:
    return "".join(text.split())


def is_code(path: str) -> bool:
    """Not documentation, data, a test or tooling: a fix touching those is not where the bug was."""
    pure = PurePosixPath(path)
    if pure.suffix.lower() in _NOT_CODE or _is_doc_name(pure):
        return False
    name = pure.name.lower()
    if name in _TOOLING or any(part.startswith(".") for part in pure.parts):
        return False
    in_folder = any(part.lower() in _NOT_CODE_FOLDERS for part in pure.parts[:-1])
    return not (in_folder or name.startswith("test_") or re.search(r"[._-](test|spec)\.", name))


def _is_doc_name(pure: PurePosixPath) -> bool:
    # README, LICENSE-MIT, CHANGES.rst; but history.py or license.py is a module
    named = pure.name.upper().startswith(_DOC_NAMES)
    return named and (pure.name.isupper() or not pure.suffix)


def selected(path: str, paths: Sequence[str]) -> bool:
    """`--paths`: a glob of the whole path, or a folder (or file) prefix."""
    return not paths or any(
        fnmatchcase(path, p) or path == p.rstrip("/") or path.startswith(p.rstrip("/") + "/")
        for p in paths
    )


def is_comment_or_blank(path: str, text: str) -> bool:
    line = text.strip()
    if not line:
        return True
    suffix = PurePosixPath(path).suffix.lower()
    if suffix in _HASH:
        return line.startswith("#")
    if suffix in _DASHES:
        return line.startswith("--")
    return line.startswith(_C_LIKE) or (line.startswith("#") and not suffix)
