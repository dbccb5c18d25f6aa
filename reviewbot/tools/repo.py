"""Read-only tools over the PR head checkout: read_file, list_files, search_code.

Every path goes through `paths.resolve_inside` (refused when it leaves the
checkout, symlinks included); every output is bounded, with a note saying how to
read the rest. Reading a file marks it seen, which is what lets the agent anchor
a node on it. Nothing here writes to disk or starts a process.
"""

from __future__ import annotations

import re
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

from reviewbot.agent.toolbox import ToolResult
from reviewbot.nodes.model import RelPath
from reviewbot.tools.context import ToolContext, ToolRetry
from reviewbot.tools.paths import (
    MAX_FILE_BYTES,
    glob_match,
    iter_files,
    normalise,
    read_lines,
    resolve_inside,
)
from reviewbot.tools.truncate import MAX_LINE_CHARS, clip, head_tail, numbered
from reviewbot.tools.views import bounded_rows

MAX_MATCH_CHARS = 300
MAX_LISTED = 2_000

Line = Annotated[int, Field(strict=True, ge=1, le=10_000_000)]


class _Input(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class ReadFileInput(_Input):
    path: RelPath = Field(description="File path relative to the repository root.")
    start_line: Line | None = Field(default=None, description="First line to show (1-based).")
    end_line: Line | None = Field(default=None, description="Last line to show (inclusive).")


class ListFilesInput(_Input):
    glob: str = Field(
        default="**",
        max_length=500,
        description="Glob over repository paths: `*` within a directory, `**/` any depth, e.g. `src/**/*.py`.",
    )


class SearchCodeInput(_Input):
    regex: str = Field(
        min_length=1, max_length=500, description="Python regular expression, matched per line."
    )
    glob: str = Field(default="**", max_length=500, description="Only files matching this glob.")
    max_matches: int = Field(
        default=50, strict=True, ge=1, le=200, description="Stop after this many matching lines."
    )


def read_file(ctx: ToolContext, args: ReadFileInput) -> ToolResult:
    real = resolve_inside(ctx.root, args.path)
    shown = normalise(args.path)
    lines = read_lines(real, shown)
    if lines is None:
        return ToolResult(
            content=f"`{shown}` is a binary file ({real.stat().st_size:,} bytes); not shown"
        )
    inner = real.relative_to(ctx.root).as_posix()
    ctx.seen.update({shown, inner})
    total = len(lines)
    if total == 0:
        ctx.views.show(inner, (), total=0)
        return ToolResult(content=f"`{shown}` is empty (0 lines)")
    start = args.start_line or 1
    end = min(args.end_line or total, total)
    if start > total:
        raise ToolRetry(f"`{shown}` has {total:,} lines; start_line {start} is past the end")
    if end < start:
        raise ToolRetry(f"end_line {end} is before start_line {start}")
    header = f"{shown} — lines {start}–{end} of {total:,}"
    numbers = range(start, end + 1)
    texts = [lines[n - 1] for n in numbers]
    rows = [numbered(n, line) for n, line in zip(numbers, texts, strict=True)]

    def note(first: int, last: int) -> str:
        return (
            f"… {last - first + 1:,} lines omitted; call read_file with "
            f"start_line={start + first} end_line={start + last} to read them"
        )

    budget = ctx.max_output_chars - len(header) - 1
    body, whole = bounded_rows(rows, numbers, texts, budget, note)
    ctx.views.show(inner, whole, total=total)  # the file's own path: a link shows its target
    return ToolResult(content=f"{header}\n{body}")


def list_files(ctx: ToolContext, args: ListFilesInput) -> ToolResult:
    matches = [path for path in iter_files(ctx.root) if glob_match(args.glob, path)]
    if not matches:
        return ToolResult(content=f"no file matches `{args.glob}`")
    listed = [_listed(ctx, path) for path in matches[:MAX_LISTED]]
    if len(matches) > MAX_LISTED:
        listed.append(f"… {len(matches) - MAX_LISTED:,} more; narrow the glob to list them")

    def note(first: int, last: int) -> str:
        return f"… {last - first + 1:,} paths omitted; narrow the glob to list them"

    header = f"{len(matches):,} files match `{args.glob}`"
    return ToolResult(content=f"{header}\n{head_tail(listed, ctx.max_output_chars, note)}")


def search_code(ctx: ToolContext, args: SearchCodeInput) -> ToolResult:
    try:
        pattern = re.compile(args.regex)
    except re.error as exc:
        raise ToolRetry(f"invalid regex {args.regex!r}: {exc}") from exc
    found: list[str] = []
    skipped = 0
    for path in iter_files(ctx.root):
        if len(found) >= args.max_matches:
            break
        if not glob_match(args.glob, path):
            continue
        lines = _searchable(ctx, path)
        if lines is None:
            skipped += 1
            continue
        for number, line in enumerate(lines, start=1):
            # Matching at most MAX_LINE_CHARS per line bounds the time a hostile line can cost.
            if pattern.search(line[:MAX_LINE_CHARS]):
                found.append(f"{path}:{number}: {clip(line.strip(), MAX_MATCH_CHARS)}")
                if len(found) >= args.max_matches:
                    break
    return ToolResult(content=_search_report(args, found, skipped, ctx.max_output_chars))


def _searchable(ctx: ToolContext, path: str) -> list[str] | None:
    """The lines of a text file inside the checkout; None for binaries, links out, huge files."""
    try:
        real = resolve_inside(ctx.root, path)
        if real.stat().st_size > MAX_FILE_BYTES:
            return None
        return read_lines(real, path)
    except (ToolRetry, OSError):
        return None


def _search_report(args: SearchCodeInput, found: list[str], skipped: int, budget: int) -> str:
    def note(first: int, last: int) -> str:
        return f"… {last - first + 1:,} matches omitted; narrow the regex or the glob"

    if not found:
        text = f"no line matches {args.regex!r} in files matching `{args.glob}`"
    else:
        text = f"{len(found)} matching lines (path:line: text)\n" + head_tail(found, budget, note)
        if len(found) >= args.max_matches:
            text += f"\n… stopped at {args.max_matches} matches; narrow the regex or the glob"
    if skipped:
        text += f"\n({skipped} binary, oversized or linked-out files were not searched)"
    return text


def _listed(ctx: ToolContext, path: str) -> str:
    change = ctx.workspace.diff.get(path)
    return f"{path}  (changed in this PR: {change.status.value})" if change else path
