"""`propose_orchestration`: orchestrate mode's required output verb. Records how the PR could
be split into a stack of smaller PRs; pushes, branches and creates nothing.

Checked at the boundary like `submit_plan`: every changed file of the PR in exactly one
part, no file the PR does not change, unique part keys, known dependencies and no cycle.
A proposal that fails is refused with the reason as the tool result; the parts of a valid
one are kept in merge order (each after the parts it depends on).
"""

from __future__ import annotations

from pydantic import Field

from reviewbot.results.plan import SplitPart, SplitProposal
from reviewbot.text.hygiene import quoted
from reviewbot.tools.context import ToolContext, ToolRetry
from reviewbot.tools.dag import dependency_order
from reviewbot.tools.plan_verbs import Key, StepTitle, Text, VerbInput
from reviewbot.tools.toolbox import ToolResult


class PartInput(VerbInput):
    key: Key = Field(description="A short key of your choosing: lower-case, e.g. `schema`.")
    title: StepTitle = Field(description="The smaller PR's title.")
    files: list[str] = Field(
        min_length=1, max_length=3_000, description="The changed files it holds."
    )
    depends_on: list[Key] = Field(
        default_factory=list, max_length=50, description="Keys of parts that must merge first."
    )


class ProposeOrchestrationInput(VerbInput):
    summary: Text = Field(description="Why this split, in a sentence or two.")
    parts: list[PartInput] = Field(min_length=2, max_length=50, description="The smaller PRs.")


def propose_orchestration(ctx: ToolContext, args: ProposeOrchestrationInput) -> ToolResult:
    if ctx.split is not None:
        return ToolResult(
            content="a split was already proposed; the first one stands",
            is_error=True,
            ends_run=True,
        )
    order = dependency_order([(p.key, p.depends_on) for p in args.parts], what="part")
    check_files(args.parts, tuple(ctx.workspace.diff.files))
    by_key = {p.key: p for p in args.parts}
    parts = tuple(
        SplitPart(
            key=key,
            title=by_key[key].title,
            files=tuple(by_key[key].files),
            depends_on=tuple(dict.fromkeys(by_key[key].depends_on)),
        )
        for key in order
    )
    ctx.split = SplitProposal(summary=args.summary, parts=parts)
    return ToolResult(content=f"split recorded ({len(parts)} parts)", ends_run=True)


def check_files(parts: list[PartInput], changed: tuple[str, ...]) -> None:
    """Every changed file in exactly one part, and nothing else."""
    known = set(changed)
    owner: dict[str, str] = {}
    for part in parts:
        for path in part.files:
            if path not in known:
                raise ToolRetry(
                    f"part {part.key!r} lists {quoted(path, limit=200)}, which this PR does not "
                    "change: list only the PR's changed files"
                )
            if path in owner:
                raise ToolRetry(
                    f"{quoted(path, limit=200)} is in parts {owner[path]!r} and {part.key!r}: "
                    "put each file in exactly one part"
                )
            owner[path] = part.key
    missing = [path for path in changed if path not in owner]
    if missing:
        shown = ", ".join(quoted(p, limit=200) for p in missing[:20])
        more = f" and {len(missing) - 20} more" if len(missing) > 20 else ""
        raise ToolRetry(
            f"{len(missing)} changed file(s) are in no part: {shown}{more}; "
            "put every changed file in exactly one part"
        )
