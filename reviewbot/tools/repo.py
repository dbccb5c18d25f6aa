"""Read-only tools over the PR head checkout: read_file, list_files, search_code.

Every path goes through `paths.resolve_inside` (refused when it leaves the
checkout, symlinks included); every output is bounded, with a note saying how to
read the rest. Paths in harness text are `quoted`; file lines and matches are the
result's untrusted `data`. Reading a file marks it seen, which is what lets the
agent anchor a node on it. Nothing here writes to disk or starts a process.

Every call is bounded in time too: the model's regex and globs are matched by RE2
(`pattern.py`, linear time), and the loops over files and matches check the call's
deadline (`ctx.deadline`); a call past it answers with what it did so far.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

from reviewbot.nodes.model import RelPath
from reviewbot.text.hygiene import quoted
from reviewbot.text.truncate import clip, head_tail, numbered
from reviewbot.tools.context import ToolContext, ToolRetry
from reviewbot.tools.paths import (
    MAX_FILE_BYTES,
    glob_matching,
    iter_files,
    normalise,
    read_lines,
    read_text,
    resolve_inside,
)
from reviewbot.tools.pattern import LinePattern
from reviewbot.tools.toolbox import ToolResult, Untrusted
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
        min_length=1,
        max_length=500,
        description="Regular expression in RE2 syntax (as ripgrep's: no backreferences or "
        "lookaround), matched per line.",
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
    inner = real.relative_to(ctx.root).as_posix()
    ctx.seen.update({shown, inner})
    total = len(lines)
    if total == 0:
        ctx.views.show(inner, (), total=0)
        return ToolResult(content=f"{quoted(shown)} is empty (0 lines)")
    start = args.start_line or 1
    end = min(args.end_line or total, total)
    if start > total:
        raise ToolRetry(f"{quoted(shown)} has {total:,} lines; start_line {start} is past the end")
    if end < start:
        raise ToolRetry(f"end_line {end} is before start_line {start}")
    header = f"{quoted(shown)} — lines {start}–{end} of {total:,}"
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
    return ToolResult(content=header, data=Untrusted(text=body, kind="file_lines"))


def list_files(ctx: ToolContext, args: ListFilesInput) -> ToolResult:
    matching = glob_matching(args.glob)
    matches: list[str] = []
    for walked, path in enumerate(iter_files(ctx.root)):
        ctx.deadline.check(
            "list_files", f"walking {walked:,} file(s)", "narrow the glob to a directory"
        )
        if matching(path):
            matches.append(path)
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
    pattern = LinePattern(args.regex)
    matching = glob_matching(args.glob)
    found: list[str] = []
    skipped = searched = 0
    for path in iter_files(ctx.root):
        if len(found) >= args.max_matches:
            break
        _check(ctx, searched, found)
        if not matching(path):
            continue
        text = _searchable(ctx, path)
        if text is None:
            skipped += 1
            continue
        searched += 1
        for number, line in pattern.matching_lines(text):
            found.append(f"{quoted(path)}:{number}: {clip(line.strip(), MAX_MATCH_CHARS)}")
            if len(found) >= args.max_matches:
                break
            _check(ctx, searched, found)
    return _search_report(args, found, skipped, ctx.max_output_chars)


def _check(ctx: ToolContext, searched: int, found: list[str]) -> None:
    so_far = f"; {len(found)} matching lines so far (path:line: text):" if found else ""
    ctx.deadline.check(
        "search_code",
        f"searching {searched:,} file(s)",
        "narrow the glob (a directory, a file type) or the regex" + so_far,
        data=Untrusted(text="\n".join(found), kind="matches") if found else None,
    )


def _searchable(ctx: ToolContext, path: str) -> str | None:
    """The text of a file inside the checkout; None for binaries, links out, huge files."""
    try:
        real = resolve_inside(ctx.root, path)
        if real.stat().st_size > MAX_FILE_BYTES:
            return None
        return read_text(real, path)
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
