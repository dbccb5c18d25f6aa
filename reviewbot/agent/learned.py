"""The learnings block of the prompt: what the maintainers dismissed before, where it applies.

The base branch's `.reviewbot/learnings.toml` entries whose scope matches a changed file,
appended to the packed PR context (the first user message every agent of the run shares,
so the block is in the cached prefix once). Names and reasons are people's text from the
base branch: shown as JSON strings (`hygiene.quoted`), redacted, never as instructions.

Must not: decide anything about a finding (review/learned.py applies the learnings).
"""

from __future__ import annotations

from dataclasses import replace

from reviewbot.agent.context import PackedContext
from reviewbot.config.learnings import Learning
from reviewbot.estimate import estimate_text
from reviewbot.redact import Redactor
from reviewbot.render import render
from reviewbot.sources.snapshot import PRSnapshot
from reviewbot.text.hygiene import quoted

MAX_SHOWN = 30  # a short block: the rest are counted


def learnings_text(learnings: tuple[Learning, ...], redactor: Redactor) -> str:
    """The block for `learnings` (those that apply), or "" when none apply."""
    if not learnings:
        return ""
    shown = [
        {
            "kind": entry.kind.value,
            "title": quoted(entry.title, redactor),
            "scope": quoted(entry.scope, redactor),
            "by": quoted(entry.by, redactor),
            "pr": entry.pr,
            "reason": quoted(entry.reason, redactor) if entry.reason else "",
        }
        for entry in learnings[:MAX_SHOWN]
    ]
    left_out = max(len(learnings) - MAX_SHOWN, 0)
    return render("prompts/learnings.j2", learnings=shown, left_out=left_out).strip()


def with_learnings(
    packed: PackedContext, snapshot: PRSnapshot, redactor: Redactor
) -> PackedContext:
    """`packed` with the learnings that apply to the PR's changed files after it."""
    applying = snapshot.learnings.applying(tuple(f.path for f in snapshot.diff))
    block = learnings_text(applying, redactor)
    if not block:
        return packed
    text = f"{packed.text.rstrip()}\n\n{block}\n"
    return replace(packed, text=text, tokens=estimate_text(text))
