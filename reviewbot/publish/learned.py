"""The summary's learnings section: what was suppressed, what a P0 kept, the entry to add.

Every piece of text in it (titles, reasons, logins, the TOML entry) is people's or the
model's, so it goes through the run's `Inert` sanitizer like everything posted; the entry
is a fenced `toml` block a maintainer can copy into the base branch's file.

Must not: decide what is suppressed (review/learned.py) or call GitHub.
"""

from __future__ import annotations

from reviewbot.config.learnings import entry_toml
from reviewbot.publish.inert import Inert
from reviewbot.render import render
from reviewbot.results.learned import LearnedMatch
from reviewbot.results.report import Report

MAX_TO_ADD = 10  # entries shown in the summary; `reviewbot learn` writes every one


def suppressed_by_learnings(report: Report) -> frozenset[str]:
    """The fingerprints a learning dismissed in this run (placement lists them in the body)."""
    learned = report.learnings
    return frozenset(m.fingerprint for m in learned.suppressed) if learned else frozenset()


def learned_section(report: Report, inert: Inert) -> str:
    """The section's markdown, or "" when the run had no learnings and taught none."""
    learned = report.learnings
    if learned is None:
        return ""
    shown = learned.to_add[:MAX_TO_ADD]
    block = "```toml\n" + "\n".join(entry_toml(entry) for entry in shown) + "```"
    return render(
        "comments/learned.md.j2",
        shown=len(learned.shown),
        suppressed=[_row(match, inert) for match in learned.suppressed],
        kept=[_row(match, inert) for match in learned.kept],
        to_add=inert.block(block) if shown else "",
        to_add_left=len(learned.to_add) - len(shown),
        repo=inert.line(report.pr.repo or "OWNER/REPO"),
        number=report.pr.number or "N",
    ).strip()


def _row(match: LearnedMatch, inert: Inert) -> str:
    entry = match.learning
    pr = f" on PR #{entry.pr}" if entry.pr is not None else ""
    why = f": {inert.line(entry.reason)}" if entry.reason else ""
    return (
        f"{match.priority.value} “{inert.line(match.title)}” (matched by {match.matched_by}) — "
        f"entry {inert.code(entry.fingerprint)}, scope {inert.code(entry.scope)}, dismissed by "
        f"{inert.code(entry.by)}{pr}{why}"
    )
