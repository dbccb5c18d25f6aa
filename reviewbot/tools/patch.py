"""read_patch: the PR's whole patch of one changed file, numbered as the context numbers patches.

An incremental review packs only the changes since the reviewed head; this keeps the
whole PR's diff in reach (as does any file a full review only listed for its size).
Shown as the packer renders it (`text.patch.render_patch`): head numbers on added
and context lines, base numbers on deleted ones. Showing the patch marks the file seen
(an anchor may point at it), like a packed patch; it does not count for coverage (a
long patch is cut head+tail, and coverage counts what `read_file` showed in full).
Nothing here reads the disk: the patch is the diff index's.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from reviewbot.nodes.model import RelPath
from reviewbot.text.hygiene import quoted
from reviewbot.text.patch import render_patch
from reviewbot.text.truncate import clip, head_tail
from reviewbot.tools.context import ToolContext, ToolRetry
from reviewbot.tools.paths import normalise
from reviewbot.tools.toolbox import ToolResult, Untrusted


class ReadPatchInput(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    path: RelPath = Field(description="A file the PR changes, as the diff names it.")


def read_patch(ctx: ToolContext, args: ReadPatchInput) -> ToolResult:
    path = normalise(args.path)
    change = ctx.workspace.diff.get(path)
    if change is None:
        raise ToolRetry(f"{quoted(path)} is not changed by this PR; read_file reads any file")
    header = (
        f"{quoted(path)} — the PR's patch ({change.status.value}, "
        f"+{change.additions} -{change.deletions})"
    )
    if change.binary or change.submodule:
        return ToolResult(content=f"{header}: a binary file or submodule pointer, no lines")
    if change.patch_missing:
        return ToolResult(content=f"{header}: GitHub sent no patch (too large); use read_file")
    ctx.seen.add(path)
    rows = [clip(row) for row in render_patch(change).split("\n")]

    def note(first: int, last: int) -> str:
        return f"… {last - first + 1:,} patch lines omitted; read_file shows the head's lines"

    body = head_tail(rows, ctx.max_output_chars - len(header) - 1, note)
    return ToolResult(content=header, data=Untrusted(text=body, kind="patch", label=path))
