"""Read-only views of the checkout's git history: git_log, git_show, git_blame (gitpython).

The model names revisions and paths; neither ever reaches git's command line as
an option. A revision must look like a revision and is resolved to a commit id
first (so `--output=…` can never be one), paths come after `--` or are looked up
in the commit's tree, and diffs run without external diff drivers or textconv
filters. The default revision is the PR head. What the history says (messages,
author names, diffs, file lines) is the result's untrusted `data`; names in the
harness text around it are `quoted`. Nothing here writes.

Bounded in time and size: every git command runs with the call's deadline as
gitpython's `kill_after_timeout` (a command past it is killed and the model told so),
and a blob larger than `MAX_FILE_BYTES` is never read into memory.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager

import git
from pydantic import BaseModel, ConfigDict, Field

from reviewbot.nodes.model import RelPath
from reviewbot.text.hygiene import quoted
from reviewbot.text.truncate import clip, first_line, head_tail, numbered
from reviewbot.tools.context import ToolContext, ToolRetry
from reviewbot.tools.paths import GIT_DIR, MAX_FILE_BYTES, decode_lines, normalise, split_lines
from reviewbot.tools.toolbox import ToolResult, Untrusted
from reviewbot.tools.views import bounded_rows

_REV = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._/@{}^~-]{0,199}$")


class _Input(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class GitLogInput(_Input):
    path: RelPath | None = Field(default=None, description="Only commits that touched this path.")
    max_count: int = Field(default=20, strict=True, ge=1, le=100, description="Newest first.")


class GitShowInput(_Input):
    rev: str = Field(
        default="HEAD",
        max_length=200,
        description="A commit id, branch, tag or expression like `HEAD~2`.",
    )
    path: RelPath | None = Field(
        default=None, description="Show this file as it was at `rev` instead of the commit."
    )


class GitBlameInput(_Input):
    path: RelPath = Field(description="File path relative to the repository root.")
    start_line: int = Field(strict=True, ge=1, le=10_000_000, description="First line (1-based).")
    end_line: int = Field(strict=True, ge=1, le=10_000_000, description="Last line (inclusive).")


def git_log(ctx: ToolContext, args: GitLogInput) -> ToolResult:
    with _repository(ctx, "git_log") as repo:
        head = _commit(repo, ctx.workspace.head_sha)
        paths = [_git_path(args.path)] if args.path else []
        listed = repo.git.rev_list(
            f"--max-count={args.max_count}",
            head.hexsha,
            "--",
            *paths,
            kill_after_timeout=_seconds_left(ctx, "git_log"),
        )
        commits = [repo.commit(sha) for sha in listed.split()]
    touching = f" touching {quoted(args.path)}" if args.path else ""
    if not commits:
        return ToolResult(content=f"no commit{touching} up to the PR head")
    rows = [
        f"{c.hexsha[:12]} {c.committed_datetime.date().isoformat()} {c.author.name}: {c.summary!s}"
        for c in commits
    ]
    return ToolResult(
        content=f"{len(rows)} commit(s){touching}, newest first (id date author: subject)",
        data=Untrusted(text="\n".join(rows), kind="git_log"),
    )


def git_show(ctx: ToolContext, args: GitShowInput) -> ToolResult:
    rev = ctx.workspace.head_sha if args.rev == "HEAD" else args.rev
    with _repository(ctx, "git_show") as repo:
        commit = _commit(repo, rev)
        if args.path is None:
            text = repo.git.show(
                commit.hexsha,
                "--format=fuller",
                "--stat",
                "--patch",
                "--no-color",
                "--no-ext-diff",  # never run a diff driver named by the repository
                "--no-textconv",
                kill_after_timeout=_seconds_left(ctx, "git_show"),
            )
            return ToolResult(
                content=f"commit {commit.hexsha[:12]}: message, files and patch",
                data=Untrusted(
                    text=_bounded(ctx, split_lines(text), "call git_show with a path"),
                    kind="commit",
                ),
            )
        return _show_path(ctx, commit, _git_path(args.path))


def git_blame(ctx: ToolContext, args: GitBlameInput) -> ToolResult:
    path = _git_path(args.path)
    with _repository(ctx, "git_blame") as repo:
        head = _commit(repo, ctx.workspace.head_sha)
        total = len(_blob_lines(head, path))
        if args.start_line > total:
            raise ToolRetry(
                f"{quoted(path)} has {total:,} lines; start_line {args.start_line} is past the end"
            )
        end = min(max(args.end_line, args.start_line), total)
        try:
            blamed = repo.blame(
                head.hexsha,
                path,
                L=f"{args.start_line},{end}",
                kill_after_timeout=_seconds_left(ctx, "git_blame"),
            )
        except git.GitCommandError as exc:
            _timed_out(ctx, "git_blame", "blame fewer lines")  # killed by its watchdog
            raise ToolRetry(f"git blame failed: {_why(exc.stderr)}") from exc
    rows: list[str] = []
    numbers: list[int] = []
    texts: list[str] = []
    number = args.start_line
    for entry in blamed or []:
        commit, lines = entry[0], entry[1]
        if not isinstance(commit, git.Commit) or not isinstance(lines, list):
            continue
        stamp = f"{commit.hexsha[:8]} {commit.committed_datetime.date().isoformat()}"
        for line in lines:
            text = line.decode("utf-8", "replace") if isinstance(line, bytes) else line
            rows.append(f"{number:>6}  {stamp} {str(commit.author.name)[:20]}\t{clip(text)}")
            numbers.append(number)
            texts.append(text)
            number += 1
    ctx.seen.add(path)  # blame shows the head's lines with their numbers

    def note(first: int, last: int) -> str:
        return f"… {last - first + 1:,} lines omitted; blame fewer lines"

    rendered, whole = bounded_rows(rows, numbers, texts, ctx.max_output_chars, note)
    ctx.views.show(path, whole, total=total)
    return ToolResult(
        content=f"blame of {quoted(path)}, lines {args.start_line}–{end} (line commit date author, text)",
        data=Untrusted(text=rendered, kind="blame"),
    )


@contextmanager
def _repository(ctx: ToolContext, tool: str) -> Iterator[git.Repo]:
    try:
        repo = git.Repo(ctx.root)
    except (git.InvalidGitRepositoryError, git.NoSuchPathError) as exc:
        raise ToolRetry("the checkout has no git history, so git tools cannot answer") from exc
    try:
        yield repo
    except (git.GitCommandError, ValueError) as exc:
        _timed_out(ctx, tool, "ask for less (a path, fewer commits)")
        raise ToolRetry(f"git could not answer: {_why(str(exc))}") from exc
    finally:
        repo.close()


def _seconds_left(ctx: ToolContext, tool: str) -> float | None:
    """gitpython's watchdog: the command is killed when the call's deadline passes."""
    left = ctx.deadline.remaining()
    if left == float("inf"):
        return None
    ctx.deadline.check(tool, "resolving the revision", "ask for less (a path, fewer commits)")
    return left


def _timed_out(ctx: ToolContext, tool: str, hint: str) -> None:
    """A git command that failed because its watchdog killed it is a time-out, said so."""
    ctx.deadline.check(tool, "git was killed", hint)


def _commit(repo: git.Repo, rev: str) -> git.Commit:
    """`rev` resolved to a commit without ever passing it to git as an argument."""
    if not _REV.match(rev) or ".." in rev:
        raise ToolRetry(f"{quoted(rev)} is not a revision (a commit id, branch, tag or `HEAD~n`)")
    try:
        return repo.commit(rev)
    except (git.BadName, git.BadObject, ValueError) as exc:
        raise ToolRetry(f"no commit {quoted(rev)} in this repository") from exc


def _git_path(path: str) -> str:
    relative = normalise(path)
    if relative.split("/")[0] in {"..", GIT_DIR}:
        raise ToolRetry(f"{quoted(path)} is not a path in the repository")
    return relative


def _blob_lines(commit: git.Commit, path: str) -> list[str]:
    try:
        obj = commit.tree / path
    except KeyError as exc:
        raise ToolRetry(f"{quoted(path)} does not exist at {commit.hexsha[:12]}") from exc
    if not isinstance(obj, git.Blob):
        raise ToolRetry(f"{quoted(path)} is a directory at {commit.hexsha[:12]}")
    if obj.size > MAX_FILE_BYTES:
        raise ToolRetry(
            f"{quoted(path)} is {obj.size:,} bytes at {commit.hexsha[:12]}, too large to read"
        )
    lines = decode_lines(obj.data_stream.read())
    if lines is None:
        raise ToolRetry(f"{quoted(path)} is a binary file at {commit.hexsha[:12]}")
    return lines


def _show_path(ctx: ToolContext, commit: git.Commit, path: str) -> ToolResult:
    try:
        obj = commit.tree / path
    except KeyError as exc:
        raise ToolRetry(f"{quoted(path)} does not exist at {commit.hexsha[:12]}") from exc
    if isinstance(obj, git.Tree):
        names = [quoted(f"{item.path}{'/' if isinstance(item, git.Tree) else ''}") for item in obj]
        header = f"{quoted(path)} at {commit.hexsha[:12]} is a directory:"
        return ToolResult(content=_bounded(ctx, [header, *names], "narrow the path"))
    lines = _blob_lines(commit, path)
    shown = [numbered(n, line) for n, line in enumerate(lines, start=1)]
    return ToolResult(
        content=f"{quoted(path)} at {commit.hexsha[:12]} — {len(lines):,} lines",
        data=Untrusted(
            text=_bounded(ctx, shown, "git_blame shows a range of the head version"),
            kind="file_lines",
        ),
    )


def _bounded(ctx: ToolContext, lines: list[str], hint: str) -> str:
    def note(first: int, last: int) -> str:
        return f"… {last - first + 1:,} lines omitted; {hint}"

    return head_tail(lines, ctx.max_output_chars, note)


def _why(text: str) -> str:
    """git's first line of complaint, quoted: it may echo a path or a revision."""
    return quoted(first_line(text) or "unknown error")
