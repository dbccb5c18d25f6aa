"""The markdown people read: inline comment bodies, the review body and the summary.

Builds plain view values from the report and the plan and renders them with the
templates in `reviewbot/templates/comments/`. Untrusted text (titles, bodies,
suggestions, quoted head lines, the agents' own summaries — all written by the
model or taken from the PR) is neutralised before it reaches a template, so it
can never open an HTML comment (and so never forge a marker in the bot's own,
trusted comments) or break a table. Every finished body goes through the
`Redactor` and is cut to GitHub's 65,536-character limit with a pointer to the
check run — a long review is shortened, never failed; markers are redacted
before they are escaped (see markers.py).

Must not: call GitHub or decide placement (see `plan.py`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from reviewbot.nodes.model import Anchor, Kind, Priority, ReviewNode, Status
from reviewbot.publish.markers import SummaryMarker, neutralize, node_marker, summary_marker
from reviewbot.publish.plan import BodyItem, LinkBuilder, Plan, Target
from reviewbot.publish.suggestion import read_head_text, render_suggestion
from reviewbot.redact import Redactor
from reviewbot.render import render
from reviewbot.report import Report
from reviewbot.verdict.lattice import Verdict

MAX_BODY = 65_536  # GitHub: comment, review and issue-comment bodies
MAX_CHECK_TEXT = 65_535  # GitHub: check-run output.summary / output.text
MAX_LISTED_FILES = 200  # skipped files named in the summary; the JSON report has them all
MAX_AGENT_SUMMARY = 1_500  # characters of one agent's own summary shown in the summary comment
TRUNCATED = (
    "\n\n---\n_This comment was cut to fit GitHub's size limit; "
    "the full report is in the `reviewbot` check run._\n"
)

KIND_LABEL = {
    Kind.BUG: "🐛 Bug",
    Kind.SUGGESTION: "💡 Suggestion",
    Kind.RECOMMENDATION: "📝 Recommendation",
    Kind.QUESTION: "❓ Question",
    Kind.TICKET: "🎫 Ticket",
}
STATUS_LABEL = {
    Status.OPEN: "open",
    Status.CONSENSUS_READY: "confirmed",
    Status.RESOLVED: "resolved",
    Status.DISMISSED: "dismissed",
}
VERDICT_LABEL = {Verdict.SHIP: "✅ Ship", Verdict.HOLD: "🟡 Hold", Verdict.BLOCK: "⛔ Block"}

HeadReader = Callable[[str], str | None]


def no_head(path: str) -> str | None:
    """A head reader for when there is no checkout: suggestions become diff blocks."""
    return None


def checkout_reader(checkout: Path) -> HeadReader:
    return lambda path: read_head_text(checkout, path)


def verdict_of(report: Report) -> Verdict:
    return Verdict.parse(report.verdict)


def cell(text: str) -> str:
    """Untrusted text made safe for one markdown table cell."""
    text = neutralize(text).replace("\r", " ").replace("\n", " ")
    return text.replace("|", "\\|").replace("<", "&lt;")


def untrusted(text: str) -> str:
    """Untrusted markdown kept as markdown, minus the power to open an HTML comment."""
    return neutralize(text).strip()


def where(anchor: Anchor | None, link_of: LinkBuilder | None) -> str:
    if anchor is None:
        return "whole PR"
    lines = f"L{anchor.start_line}"
    if anchor.end_line != anchor.start_line:
        lines += f"–{anchor.end_line}"
    text = f"`{cell(anchor.path)}` {lines}"
    link = link_of(anchor) if link_of is not None else None
    return f"[{text}]({link})" if link else text


TRUNCATED_CHECK = (
    "\n\n---\n_This summary was cut to fit GitHub's size limit; "
    "`reviewbot review --format json` prints the full report._\n"
)


def finish(
    body: str,
    redactor: Redactor,
    *,
    limit: int = MAX_BODY,
    tail: str = "",
    pointer: str = TRUNCATED,
) -> str:
    """Redact, then cut to `limit` characters with `pointer`; `tail` (a marker) always survives."""
    body, tail = redactor(body), redactor(tail)
    if len(body) + len(tail) <= limit:
        return body + tail
    return body[: limit - len(pointer) - len(tail)].rstrip() + pointer + tail


# ---- inline comments -------------------------------------------------------------------------


def inline_body(node: ReviewNode, target: Target, *, head: HeadReader, redactor: Redactor) -> str:
    """The body of one inline review comment, marker last."""
    suggestion, note = "", ""
    if node.suggestion is not None and node.anchor is not None:
        rendered = render_suggestion(
            node.anchor,
            node.suggestion,
            comment_range=(target.first, target.line),
            head_text=head(node.anchor.path),
        )
        suggestion, note = rendered.markdown, rendered.note
    narrowed = ""
    if target.narrowed and node.anchor is not None:
        anchor = node.anchor
        narrowed = (
            f"This finding is about lines {anchor.start_line}–{anchor.end_line}; "
            f"only lines {target.first}–{target.line} are part of the diff."
        )
    text = render(
        "comments/inline.md.j2",
        kind=KIND_LABEL[node.kind],
        priority=node.priority.value,
        confidence=f"{node.confidence:.2f}",
        status=STATUS_LABEL[node.status],
        title=untrusted(node.title),
        body=untrusted(node.body),
        narrowed=narrowed,
        suggestion=suggestion,
        suggestion_note=note,
    )
    # Everything above the marker is shown text: none of it may open an HTML comment (the
    # parts are neutralised one by one already; this holds it for the whole comment).
    text = neutralize(text)
    # The marker goes last and is never cut: without it a later run would post the finding again.
    marker = node_marker(node, redactor=redactor)
    return finish(text.rstrip() + "\n\n", redactor, tail=marker + "\n")


# ---- the review body -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class _Item:
    priority: str
    kind: str
    title: str
    where: str
    reason: str
    body: str
    suggestion: str
    marker: str


def _indent(text: str) -> str:
    """Markdown indented two spaces, so it stays inside its list item."""
    return "\n".join(f"  {line}" if line else "" for line in text.splitlines())


def _body_item(
    item: BodyItem, link_of: LinkBuilder | None, head: HeadReader, redactor: Redactor
) -> _Item:
    node = item.node
    suggestion = ""
    if node.suggestion is not None and node.anchor is not None:
        rendered = render_suggestion(
            node.anchor, node.suggestion, comment_range=None, head_text=head(node.anchor.path)
        )
        suggestion = _indent(rendered.markdown)
    return _Item(
        priority=node.priority.value,
        kind=KIND_LABEL[node.kind],
        title=cell(node.title),
        where=where(node.anchor, link_of),
        reason=item.reason.text,
        body=_indent(untrusted(node.body)),
        suggestion=suggestion,
        marker=node_marker(node, redactor=redactor),
    )


def deciding(report: Report) -> list[str]:
    """What decided the verdict: the reasons at the verdict's level."""
    reasons = [cell(r.text) for r in report.reasons if r.verdict == report.verdict]
    if reasons:
        return reasons
    if verdict_of(report) is Verdict.SHIP:
        return ["no gated axis failed and no finding holds this PR"]
    return ["the verdict was raised without a recorded reason"]


def review_body(
    report: Report,
    plan: Plan,
    *,
    link_of: LinkBuilder | None,
    head: HeadReader = no_head,
    notes: Sequence[str] = (),
    redactor: Redactor,
) -> str:
    """The body of the one review of this run: verdict, reasons, and what is not inline."""
    counts = f"{len(plan.inline)} new inline comment(s)."
    if plan.already_posted:
        counts += f" {len(plan.already_posted)} finding(s) already on this PR are not repeated."
    text = render(
        "comments/review.md.j2",
        verdict=VERDICT_LABEL[verdict_of(report)],
        deciding=deciding(report),
        counts=counts,
        items=[_body_item(item, link_of, head, redactor) for item in plan.body],
        notes=[cell(note) for note in notes],
    )
    return finish(text, redactor)


# ---- the summary -----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class _Row:
    priority: str
    kind: str
    title: str
    where: str
    status: str
    placed: str


def _placements(plan: Plan | None) -> dict[str, str]:
    if plan is None:
        return {}
    placed = {item.node.id: "inline" for item in plan.inline}
    placed.update({item.node.id: f"review body ({item.reason.text})" for item in plan.body})
    placed.update({node.id: "earlier review" for node in plan.already_posted})
    placed.update({node.id: "—" for node in plan.quiet})
    return placed


def _row(node: ReviewNode, link_of: LinkBuilder | None, placed: dict[str, str]) -> _Row:
    return _Row(
        priority=node.priority.value,
        kind=KIND_LABEL[node.kind],
        title=cell(node.title),
        where=where(node.anchor, link_of),
        status=STATUS_LABEL[node.status],
        placed=placed.get(node.id, "—"),
    )


def _counts(nodes: Sequence[ReviewNode]) -> str:
    live = [n for n in nodes if n.status in (Status.OPEN, Status.CONSENSUS_READY)]
    if not nodes:
        return "No findings."
    by_priority = " · ".join(f"{p.value}: {sum(n.priority is p for n in live)}" for p in Priority)
    extra = [
        f"{sum(n.status is s for n in nodes)} {label}"
        for s, label in (
            (Status.CONSENSUS_READY, "of them confirmed by a peer"),
            (Status.RESOLVED, "resolved"),
            (Status.DISMISSED, "dismissed"),
        )
        if any(n.status is s for n in nodes)
    ]
    tail = f" ({'; '.join(extra)})" if extra else ""
    return f"{len(live)} finding(s) to address — {by_priority}{tail}."


def _coverage(report: Report) -> list[str]:
    lines = [f"Head commit reviewed: `{report.pr.head_sha}`"]
    coverage = report.coverage
    if coverage is None:
        return [*lines, "Coverage was not reported for this review."]
    if report.no_model_ran:
        lines.append(f"Files reviewed: none of {coverage.files_total} changed files (no model ran)")
    else:
        lines.append(
            f"Files reviewed: {coverage.files_in_context} of {coverage.files_total} changed files "
            "were in the reviewer's context"
        )
    # What matters most first: a long list of skipped files must not push the partial-coverage
    # notes past GitHub's size limit, so the list comes last and is capped.
    if coverage.partial:
        lines.append("**Partial coverage**: this review does not cover the whole PR")
    lines.extend(cell(note) for note in coverage.notes)
    # Files nobody saw come first, each with what to change; they are not repeated below.
    unseen = coverage.unseen[:MAX_LISTED_FILES]
    lines.extend(
        f"**Not seen** by any reviewer: `{cell(f.path)}` — {cell(f.reason)}; "
        f"to review it: {cell(f.remedy)}"
        for f in unseen
    )
    if len(coverage.unseen) > len(unseen):
        more = len(coverage.unseen) - len(unseen)
        lines.append(f"… and {more:,} more file(s) not seen (the JSON report lists them all)")
    named = {f.path for f in coverage.unseen}
    read = set(coverage.files_read)
    listed = [f for f in coverage.files_listed if f.path not in named]
    shown = listed[: max(MAX_LISTED_FILES - len(unseen), 0)]
    lines.extend(
        f"Not in context: `{cell(f.path)}` — "
        + ("read in full by a reviewer" if f.path in read else cell(f.reason))
        for f in shown
    )
    if len(listed) > len(shown):
        more = len(listed) - len(shown)
        lines.append(f"… and {more:,} more file(s) not in context (the JSON report lists them all)")
    return lines


@dataclass(frozen=True, slots=True, kw_only=True)
class _Said:
    name: str
    role: str
    summary: str  # a blockquote, or "" when the agent gave no summary
    notes: tuple[str, ...]


def _said(report: Report, redactor: Redactor) -> list[_Said]:
    """What each agent said about the PR (its finalize_review summary) and the harness's notes."""
    out = []
    for agent in report.agents:
        if not agent.summary and not agent.notes:
            continue
        # Redacted before the cut: a secret cut in half no longer matches the redactor.
        summary = untrusted(redactor(agent.summary or ""))
        if len(summary) > MAX_AGENT_SUMMARY:
            summary = summary[:MAX_AGENT_SUMMARY].rstrip() + " … (cut; the JSON report has it all)"
        quoted = "\n".join(f"> {line}".rstrip() for line in summary.splitlines())
        notes = tuple(cell(redactor(note)) for note in agent.notes)
        out.append(_Said(name=cell(agent.name), role=agent.role, summary=quoted, notes=notes))
    return out


def _usage(report: Report) -> str:
    u = report.usage
    return (
        f"{u.requests} model request(s) · {u.total_input_tokens:,} input tokens "
        f"({u.cache_read_tokens:,} cache read, {u.cache_write_tokens:,} cache write) · "
        f"{u.output_tokens:,} output tokens · ${u.cost_usd:.4f}"
    )


def summary_body(
    report: Report,
    *,
    plan: Plan | None = None,
    resolved: Sequence[ReviewNode] = (),
    marker: SummaryMarker | None = None,
    link_of: LinkBuilder | None = None,
    notes: Sequence[str] = (),
    redactor: Redactor,
    limit: int = MAX_BODY,
    pointer: str = TRUNCATED,
) -> str:
    """The summary comment (and `--format markdown`): verdict, reasons, axes, findings, coverage, usage."""
    placed = _placements(plan)
    nodes = sorted(report.nodes, key=lambda n: (n.priority.rank, -n.confidence, n.id))
    partial = report.coverage is not None and report.coverage.partial
    discarded = ""
    if report.discarded:
        discarded = (
            f"{len(report.discarded)} malformed finding(s) were discarded at the read boundary "
            "(reasons in the JSON report)."
        )
    text = render(
        "comments/summary.md.j2",
        marker=summary_marker(marker, redactor=redactor) if marker is not None else "",
        verdict=VERDICT_LABEL[verdict_of(report)],
        head=report.pr.head_sha[:12],
        deciding=deciding(report),
        partial=partial,
        axes=[
            {
                "name": cell(a.name),
                "gated": "yes" if a.gated else "no",
                "outcome": a.outcome.value,
                "detail": cell(a.detail) or "—",
            }
            for a in report.axes
        ],
        counts=_counts(nodes),
        findings=[_row(n, link_of, placed) for n in nodes],
        placed=plan is not None,
        resolved=[_row(n, link_of, placed) for n in resolved],
        discarded=discarded,
        coverage=_coverage(report),
        usage=_usage(report),
        agents=[
            {
                "name": cell(a.name),
                "role": a.role,
                "model": cell(a.model),
                "stop": a.stop_reason.value + (f" ({cell(a.error)})" if a.error else ""),
                "turns": a.turns,
            }
            for a in report.agents
        ],
        said=_said(report, redactor),
        notes=[cell(n) for n in notes],
    )
    return finish(text, redactor, limit=limit, pointer=pointer)
