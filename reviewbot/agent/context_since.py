"""What the agents of an incremental review get: the changes since the reviewed head.

The changes (`scope.changes.authored`) are packed by the same packer as a full review
(`agent.context.pack_context`, over a snapshot whose diff is the changes), so budget,
ranking, listing and hygiene are the packer's. After it, in the same shared context
block (every agent reads the same bytes): which head was reviewed, the PR's other
changed files (unchanged since then, readable with the read tools), and the earlier
findings on lines the push changed, to raise again if they still hold.

Must not: read files or call anything; decide what is carried (scope/carry.py).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

from reviewbot.agent.context import PackedContext, pack_context
from reviewbot.estimate import estimate_text
from reviewbot.redact import Redactor
from reviewbot.render import render
from reviewbot.scope.carry import Rejudge
from reviewbot.sources.diff_index import DiffIndex
from reviewbot.sources.snapshot import PRSnapshot
from reviewbot.text import hygiene

TEMPLATE = "prompts/since.j2"
MAX_NAMED = 200  # unchanged files named; the rest are counted
MAX_QUOTE_LINES = 30


def pack_since(
    snapshot: PRSnapshot,
    *,
    since: str,
    changed: DiffIndex,
    rejudge: Sequence[Rejudge],
    budget_tokens: int,
    excluded: Callable[[str], bool],
    redactor: Redactor,
) -> PackedContext:
    """The packed changes since `since`, followed by the PR's other files and what to re-judge."""
    packed = pack_context(
        replace(snapshot, diff=changed),
        budget_tokens=budget_tokens,
        excluded=excluded,
        redactor=redactor,
    )
    unchanged = sorted(path for path in snapshot.diff.files if path not in changed.files)
    text = render(
        TEMPLATE,
        since=since,
        head=snapshot.head_sha,
        changed=len(changed),
        unchanged=[hygiene.quoted(path, redactor) for path in unchanged[:MAX_NAMED]],
        more=max(len(unchanged) - MAX_NAMED, 0),
        rejudge=[_shown(item, redactor) for item in rejudge],
    )
    whole = f"{packed.text.rstrip()}\n\n{text.strip()}\n"
    return replace(packed, text=whole, tokens=estimate_text(whole))


def _shown(item: Rejudge, redactor: Redactor) -> dict[str, str]:
    node, anchor = item.node, item.node.anchor
    where = ""
    if anchor is not None:
        side = " (deleted lines, base numbering)" if anchor.side == "LEFT" else ""
        where = f"{hygiene.quoted(anchor.path, redactor)}, lines {anchor.start_line}–{anchor.end_line}{side}"
    lines = item.quote.split("\n")
    quote = "\n".join(lines[:MAX_QUOTE_LINES]) + (
        f"\n…({len(lines) - MAX_QUOTE_LINES} more lines)" if len(lines) > MAX_QUOTE_LINES else ""
    )
    text = node.title + (f"\n\nThe lines then:\n{quote}" if item.quote else "")
    return {
        "priority": node.priority.value,
        "kind": node.kind.value,
        "where": where,
        "why": item.why,
        "text": hygiene.wrap(text, kind="review_node", redactor=redactor, label=node.id),
    }
