"""Findings a review could not record, told to a person: title, where, why.

The JSON report keeps each discard whole (`discarded`: origin, reason, raw input). People get
one line each: the finding's title and place as it was sent, and why it was not recorded —
*malformed* only when the input itself was (a missing field, a priority that does not exist, a
marker that is not JSON); an anchor that failed a check against the code is *refused*. A finding
refused and then sent again and recorded (same title, same agent) is not "not recorded".
Must not: decide anything, or render (output/terminal.py and body.py do, each with its own escaping).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from reviewbot.nodes.boundary import ANCHOR_REFUSED
from reviewbot.results.report import DiscardReport, Report

_TITLE = 80


@dataclass(frozen=True, slots=True, kw_only=True)
class NotRecorded:
    """One discard as a person reads it. Title and where are untrusted text: escape them."""

    title: str | None
    where: str | None  # `calc.py line 5`, `calc.py lines 3–5`; None for a note on the whole PR
    why: str  # `malformed: priority: …`, `anchor refused: the quote does not match …`
    malformed: bool


def not_recorded(report: Report) -> list[NotRecorded]:
    """The report's discards that no later recorded finding replaced, in the order they came."""
    recorded = {(n.author, n.title) for n in report.nodes}
    recorded |= {(raiser, n.title) for n in report.nodes for raiser in n.also_raised_by}
    out = []
    for discard in report.discarded:
        raw = _as_object(discard.raw)
        title = _text(raw.get("title"))
        agent = discard.origin.removeprefix("model:")
        if title is not None and (agent, title) in recorded:
            continue
        out.append(_view(discard, raw, title))
    return out


def _view(discard: DiscardReport, raw: dict[str, Any], title: str | None) -> NotRecorded:
    refused = discard.reason.startswith(ANCHOR_REFUSED)
    if refused:
        # The first sentence is the fact; the rest tells the model how to send it again.
        fact = discard.reason.removeprefix(ANCHOR_REFUSED).split(". ", 1)[0].rstrip(".:")
        why = f"{ANCHOR_REFUSED}{fact}"
    else:
        why = f"malformed: {discard.reason}"
    if not discard.origin.startswith("model:"):
        why += f" ({discard.origin})"
    cut = title if title is None or len(title) <= _TITLE else title[: _TITLE - 1] + "…"
    return NotRecorded(title=cut, where=_where(raw.get("anchor")), why=why, malformed=not refused)


def _where(anchor: object) -> str | None:
    if not isinstance(anchor, dict):
        return None
    path = _text(anchor.get("path")) or "?"
    start, end = anchor.get("start_line"), anchor.get("end_line")
    if not isinstance(start, int):
        return path
    if not isinstance(end, int) or end == start:
        return f"{path} line {start}"
    return f"{path} lines {start}–{end}"


def _as_object(raw: object) -> dict[str, Any]:
    """A discard's raw input as a mapping: markers come as JSON text, the model's as objects."""
    if isinstance(raw, str):
        try:
            raw = json.loads(raw)
        except ValueError:
            return {}
    return raw if isinstance(raw, dict) else {}


def _text(value: object) -> str | None:
    return (value.strip() or None) if isinstance(value, str) else None
