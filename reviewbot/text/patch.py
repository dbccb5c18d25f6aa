"""One file's hunks as the model reads them: numbered, with `+`, `-` or a space.

The packed context (agent/context.py) and the `read_patch` tool (tools/patch.py) show
patches the same way: head numbers on added and context lines, base numbers on deleted
ones, so an anchor copied from either means the same lines.
"""

from __future__ import annotations

from reviewbot.sources.diff_index import FileDiff, LineKind

_NUMBER_WIDTH = 4
_MARK = {LineKind.ADDED: "+", LineKind.DELETED: "-", LineKind.CONTEXT: " "}


def render_patch(diff: FileDiff) -> str:
    """The file's hunks, numbered: head numbers on added and context lines, base ones on deleted."""
    numbers = [ln.new_no or ln.old_no or 0 for h in diff.hunks for ln in h.lines]
    width = max(_NUMBER_WIDTH, len(str(max(numbers, default=0))))
    out: list[str] = []
    for hunk in diff.hunks:
        section = f" {hunk.section}" if hunk.section else ""
        out.append(
            f"@@ -{hunk.old_start},{hunk.old_length} +{hunk.new_start},{hunk.new_length} @@{section}"
        )
        for line in hunk.lines:
            number = line.new_no if line.new_no is not None else line.old_no
            out.append(f"{number:>{width}} {_MARK[line.kind]} {line.text}")
    return "\n".join(out) if out else "(no content change)"
