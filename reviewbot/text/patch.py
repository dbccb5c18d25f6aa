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
    """The file's hunks, numbered: head numbers on added and context lines, base ones on deleted.

    A hunk starts with `@@` and the enclosing function git names, without the
    `-a,b +c,d` ranges: every line carries its own number, so the ranges would only
    repeat them (they cost about a quarter of a small patch's tokens).
    """
    numbers = [ln.new_no or ln.old_no or 0 for h in diff.hunks for ln in h.lines]
    width = max(_NUMBER_WIDTH, len(str(max(numbers, default=0))))
    out: list[str] = []
    for hunk in diff.hunks:
        out.append(f"@@ {hunk.section}" if hunk.section else "@@")
        for line in hunk.lines:
            number = line.new_no if line.new_no is not None else line.old_no
            out.append(f"{number:>{width}} {_MARK[line.kind]} {line.text}")
    return "\n".join(out) if out else "(no content change)"
