"""Read-only tools over the PR head checkout: read_file, list_files, search_code.

Every path goes through `paths.resolve_inside` (refused when it leaves the
checkout, symlinks included); every output is bounded, with a note saying how to
read the rest. Paths in harness text are `quoted`; file lines and matches are the
result's untrusted `data`. Reading a file marks it seen, which is what lets the
agent anchor a node on it. Nothing here writes to disk or starts a process.
"""

from __future__ import annotations

import re
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

from reviewbot.agent.hygiene import quoted
from reviewbot.agent.toolbox import ToolResult, Untrusted
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
            content=f"{quoted(shown)} is a binary file ({real.stat().st_size:,} bytes); not shown"
        )
    ctx.seen.update({shown, real.relative_to(ctx.root).as_posix()})
    total = len(lines)
    if total == 0:
        return ToolResult(content=f"{quoted(shown)} is empty (0 lines)")
    start = args.start_line or 1
    end = min(args.end_line or total, total)
    if start > total:
        raise ToolRetry(f"{quoted(shown)} has {total:,} lines; start_line {start} is past the end")
    if end < start:
        raise ToolRetry(f"end_line {end} is before start_line {start}")
    header = f"{quoted(shown)} — lines {start}–{end} of {total:,}"
    rows = [numbered(n, lines[n - 1]) for n in range(start, end + 1)]

    def note(first: int, last: int) -> str:
        return (
            f"… {last - first + 1:,} lines omitted; call read_file with "
            f"start_line={start + first} end_line={start + last} to read them"
        )

    body = head_tail(rows, ctx.max_output_chars - len(header) - 1, note)
    return ToolResult(content=header, data=Untrusted(text=body, kind="file_lines"))


def list_files(ctx: ToolContext, args: ListFilesInput) -> ToolResult:
    matches = [path for path in iter_files(ctx.root) if glob_match(args.glob, path)]
    if not matches:
        return ToolResult(content=f"no file matches {quoted(args.glob)}")
    listed = [_listed(ctx, path) for path in matches[:MAX_LISTED]]
    if len(matches) > MAX_LISTED:
        listed.append(f"… {len(matches) - MAX_LISTED:,} more; narrow the glob to list them")

    def note(first: int, last: int) -> str:
        return f"… {last - first + 1:,} paths omitted; narrow the glob to list them"

    header = f"{len(matches):,} files match {quoted(args.glob)}"
    return ToolResult(content=f"{header}\n{head_tail(listed, ctx.max_output_chars, note)}")


def search_code(ctx: ToolContext, args: SearchCodeInput) -> ToolResult:
    try:
        pattern = re.compile(args.regex)
    except re.error as exc:
        raise ToolRetry(f"invalid regex {quoted(args.regex)}: {exc}") from exc
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
                found.append(f"{quoted(path)}:{number}: {clip(line.strip(), MAX_MATCH_CHARS)}")
                if len(found) >= args.max_matches:
                    break
    return _search_report(args, found, skipped, ctx.max_output_chars)


def _searchable(ctx: ToolContext, path: str) -> list[str] | None:
    """The lines of a text file inside the checkout; None for binaries, links out, huge files."""
    try:
        real = resolve_inside(ctx.root, path)
        if real.stat().st_size > MAX_FILE_BYTES:
            return None
        return read_lines(real, path)
    except (ToolRetry, OSError):
        return None


def _search_report(
    args: SearchCodeInput, found: list[str], skipped: int, budget: int
) -> ToolResult:
    def note(first: int, last: int) -> str:
        return f"… {last - first + 1:,} matches omitted; narrow the regex or the glob"

    where = f"{quoted(args.regex)} in files matching {quoted(args.glob)}"
    lines = [
        f"{len(found)} lines match {where} (path:line: text)"
        if found
        else f"no line matches {where}"
    ]
    if len(found) >= args.max_matches:
        lines.append(f"… stopped at {args.max_matches} matches; narrow the regex or the glob")
    if skipped:
        lines.append(f"({skipped} binary, oversized or linked-out files were not searched)")
    data = Untrusted(text=head_tail(found, budget, note), kind="matches") if found else None
    return ToolResult(content="\n".join(lines), data=data)


def _listed(ctx: ToolContext, path: str) -> str:
    change = ctx.workspace.diff.get(path)
    name = quoted(path)
    return f"{name}  (changed in this PR: {change.status.value})" if change else name
