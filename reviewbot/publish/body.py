"""The markdown people read: inline comment bodies, the review body and the summary.

Builds plain view values from the report and the plan and renders them with the
templates in `reviewbot/templates/comments/`. Untrusted text (titles, bodies,
paths, reasons, notes, CI details, error text, the agents' own summaries — all
written by the model or taken from the PR) goes through the run's `Inert`
sanitizer (inert.py) before it reaches a template, so it renders no image, link,
HTML, mention or reference, never leaves its table cell, list item or quote, and
never opens an HTML comment (so never forges a marker in the bot's own, trusted
comments). Suggestion blocks are built by suggestion.py. Every finished body goes through the
`Redactor` and fits GitHub's 65,536-character limit (65,535 for a check run's
text) — a long review is shortened, never failed: the review body first shortens
its listed findings to their title line, then leaves out whole findings from the
end (the publisher notes them; the next run posts them), so every finding shown
keeps its node marker and none is posted twice. Any other cut (`finish`) ends on a
whole line, never inside an HTML comment or a code fence, so the notice saying so
stays visible. Markers are redacted before they are escaped (see memory/markers.py).

Must not: call GitHub or decide placement (see `placement.py`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from reviewbot.memory.markers import SummaryMarker, node_marker, summary_marker
from reviewbot.memory.seal import SEAL_ROOM
from reviewbot.nodes.model import Anchor, Kind, Priority, ReviewNode, Status
from reviewbot.publish.discards import not_recorded
from reviewbot.publish.inert import Inert, RepoLinks, neutralize
from reviewbot.publish.learned import learned_section
from reviewbot.publish.placement import BodyItem, CommentTarget, LinkBuilder, Placement
from reviewbot.publish.suggestion import read_head_text, render_suggestion
from reviewbot.redact import Redactor
from reviewbot.render import render
from reviewbot.results.report import Report, ReviewKind
from reviewbot.verdict.lattice import Verdict

# GitHub: comment, review and issue-comment bodies, less the room the publisher seals them in.
MAX_BODY = 65_536 - SEAL_ROOM
MAX_CHECK_TEXT = 65_535  # GitHub: check-run output.summary / output.text
MAX_LISTED_FILES = 200  # skipped files named in the summary; the JSON report has them all
MAX_AGENT_SUMMARY = 1_500  # characters of one agent's own summary shown in the summary comment
TRUNCATED = (
    "\n\n---\n_This comment was cut to fit GitHub's size limit; "
    "the full report is in the `reviewbot` check run._\n"
)
SHORTENED = (
    "_Shortened to fit GitHub's size limit: the full text is in this run's JSON report "
    "(`reviewbot review --format json`)._"
)
# Per listed finding, kept free: a later run marking it resolved adds a banner and a longer
# status to the body, and that edit must not push the last markers past the limit.
RESOLVE_ROOM = 96
_FENCE = re.compile(r"^[ \t]*(`{3,}|~{3,})", re.MULTILINE)

KIND_LABEL = {
    Kind.BUG: "🐛 Bug",
    Kind.SUGGESTION: "💡 Suggestion",
    Kind.RECOMMENDATION: "📝 Recommendation",
    Kind.QUESTION: "❓ Question",
    Kind.TICKET: "🎫 Ticket",
}
STATUS_LABEL = {status: status.label for status in Status}
VERDICT_LABEL = {Verdict.SHIP: "✅ Ship", Verdict.HOLD: "🟡 Hold", Verdict.BLOCK: "⛔ Block"}

HeadReader = Callable[[str], str | None]


def no_head(path: str) -> str | None:
    """A head reader for when there is no checkout: suggestions become diff blocks."""
    return None


def checkout_reader(checkout: Path) -> HeadReader:
    return lambda path: read_head_text(checkout, path)


def verdict_of(report: Report) -> Verdict:
    return report.verdict


def inert_for(redactor: Redactor, link_of: LinkBuilder | None) -> Inert:
    """The run's sanitizer: links may point into the repository `link_of` links to, nowhere else."""
    links = RepoLinks(web_url=link_of.web_url, repo=link_of.repo) if link_of is not None else None
    return Inert(redactor=redactor, links=links)


def where(
    anchor: Anchor | None, link_of: LinkBuilder | None, inert: Inert, *, table: bool = False
) -> str:
    """`path` L3–5, linked to the head commit's lines; the path is PR-controlled (a code span)."""
    if anchor is None:
        return "whole PR"
    lines = f"L{anchor.start_line}"
    if anchor.end_line != anchor.start_line:
        lines += f"–{anchor.end_line}"
    if anchor.side == "LEFT":
        lines += " (deleted lines, base version)"
    text = f"{inert.code(anchor.path, table=table)} {lines}"
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
    return _safe_cut(body, limit - len(pointer) - len(tail)) + pointer + tail


def _safe_cut(text: str, room: int) -> str:
    """At most `room` characters of `text`, ending on a whole line outside comments and fences.

    A cut inside `<!--` would hide everything after it (the notice too) and a cut inside a
    code fence would show the notice as code; a half line is a half table row.
    """
    head = text[: max(room, 0)]
    if len(text) > len(head) and not text[len(head)].startswith("\n"):
        head = head[: head.rfind("\n") + 1]
    opened = head.rfind("<!--")
    if opened > head.rfind("-->"):
        head = head[:opened]
    fence_at, fence = -1, ""
    for match in _FENCE.finditer(head):
        mark = match.group(1)
        if fence_at < 0:
            fence_at, fence = match.start(), mark
        elif mark[0] == fence[0] and len(mark) >= len(fence):
            fence_at = -1
    if fence_at >= 0:
        head = head[:fence_at]
    return head.rstrip()


# ---- inline comments -------------------------------------------------------------------------


def inline_body(
    node: ReviewNode,
    target: CommentTarget,
    *,
    head: HeadReader,
    redactor: Redactor,
    link_of: LinkBuilder | None = None,
) -> str:
    """The body of one inline review comment, marker last."""
    inert = inert_for(redactor, link_of)
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
        title=inert.line(node.title),
        body=inert.block(node.body),
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
    item: BodyItem, link_of: LinkBuilder | None, head: HeadReader, redactor: Redactor, inert: Inert
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
        title=inert.line(node.title),
        where=where(node.anchor, link_of, inert),
        reason=item.reason.text,
        body=_indent(inert.block(node.body)),
        suggestion=suggestion,
        marker=node_marker(item.recorded, redactor=redactor),
    )


def deciding(report: Report) -> list[str]:
    """What decided the verdict: the reasons at the verdict's level, as written (untrusted)."""
    reasons = [r.text for r in report.reasons if r.verdict == report.verdict]
    if reasons:
        return reasons
    if verdict_of(report) is Verdict.SHIP:
        return ["no gated axis failed and no finding holds this PR"]
    return ["the verdict was raised without a recorded reason"]


def review_body(
    report: Report,
    plan: Placement,
    *,
    link_of: LinkBuilder | None,
    head: HeadReader = no_head,
    notes: Sequence[str] = (),
    redactor: Redactor,
    tail: str = "",
) -> str:
    """The body of the one review of this run: verdict, reasons, and what is not inline.

    `tail` (the publisher's marker of this write) ends the body and is never cut.
    """
    return review_text(
        report, plan, link_of=link_of, head=head, notes=notes, redactor=redactor, tail=tail
    ).text


@dataclass(frozen=True, slots=True, kw_only=True)
class ReviewText:
    text: str
    left_out: tuple[str, ...]  # ids of listed findings that did not fit (not posted at all)


def review_text(
    report: Report,
    plan: Placement,
    *,
    link_of: LinkBuilder | None,
    head: HeadReader = no_head,
    notes: Sequence[str] = (),
    redactor: Redactor,
    tail: str = "",
    limit: int = MAX_BODY,
) -> ReviewText:
    """The review body fitted to `limit`, with the ids of the findings it had to leave out.

    Never cut mid-finding (that would drop the trailing markers, and the next run would
    post those findings again): the last findings are shortened to their title line
    first, then left out whole, each step the fewest that fit (a binary search).
    """
    inert = inert_for(redactor, link_of)
    counts = plan.counts()
    items = [_body_item(item, link_of, head, redactor, inert) for item in plan.body]
    short = [replace(item, body=f"  {SHORTENED}", suggestion="") for item in items]

    def text(shortened: int, left_out: int) -> str:
        kept = len(items) - left_out
        shown = items[: kept - shortened] + short[kept - shortened : kept]
        extra = []
        if left_out:
            extra.append(
                f"{left_out} more finding(s) did not fit in this review (GitHub's size limit); "
                "the summary comment lists them and the next review posts them."
            )
        rendered = render(
            "comments/review.md.j2",
            verdict=VERDICT_LABEL[verdict_of(report)],
            deciding=[inert.line(reason) for reason in deciding(report)],
            counts=counts,
            items=shown,
            notes=[inert.line(note) for note in (*notes, *extra)],
        )
        return redactor(rendered)

    every = len(items)
    room = limit - len(redactor(tail)) - RESOLVE_ROOM * every
    shortened, left_out = 0, 0
    if len(text(0, 0)) > room:
        shortened = _fewest(every, lambda k: len(text(k, 0)) <= room)
    if shortened > every:  # even every finding on its title line is too long
        left_out = min(_fewest(every, lambda k: len(text(every - k, k)) <= room), every)
        shortened = every - left_out
    body = finish(text(shortened, left_out), redactor, limit=limit, tail=tail)
    return ReviewText(
        text=body, left_out=tuple(item.node.id for item in plan.body[every - left_out :])
    )


def _fewest(most: int, fits: Callable[[int], bool]) -> int:
    """The smallest k in 0..most with `fits(k)` (monotone), or most + 1 when none fits."""
    low, high = 0, most + 1
    while low < high:
        middle = (low + high) // 2
        if middle <= most and fits(middle):
            high = middle
        else:
            low = middle + 1
    return low


# ---- the summary -----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class _Row:
    priority: str
    kind: str
    title: str
    where: str
    status: str
    placed: str


def _placements(plan: Placement | None) -> dict[str, str]:
    if plan is None:
        return {}
    placed = {item.node.id: "inline" for item in plan.inline}
    placed.update({item.node.id: f"review body ({item.reason.text})" for item in plan.body})
    placed.update({node.id: "earlier review" for node in plan.already_posted})
    # Resolved or dismissed: posted by an earlier run, or never (then the summary is all).
    placed.update(
        {n.id: "earlier review" if n.fingerprint in plan.posted else "—" for n in plan.quiet}
    )
    placed.update({item.node.id: "reopened" for item in plan.reopened})
    return placed


def _row(
    node: ReviewNode,
    link_of: LinkBuilder | None,
    placed: dict[str, str],
    inert: Inert,
    *,
    table: bool = True,
) -> _Row:
    return _Row(
        priority=node.priority.value,
        kind=KIND_LABEL[node.kind],
        title=inert.line(node.title, table=table),
        where=where(node.anchor, link_of, inert, table=table),
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


def _coverage(report: Report, inert: Inert) -> list[str]:
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
    if report.guidelines:
        lines.append(_guidelines_line(report, inert))
    # What matters most first: a long list of skipped files must not push the partial-coverage
    # notes past GitHub's size limit, so the list comes last and is capped.
    if coverage.partial:
        lines.append("**Partial coverage**: this review does not cover the whole PR")
    lines.extend(inert.line(note) for note in coverage.notes)
    # Files nobody saw come first, each with what to change; they are not repeated below.
    unseen = coverage.unseen[:MAX_LISTED_FILES]
    lines.extend(
        f"**Not seen** by any reviewer: {inert.code(f.path)} — {inert.line(f.reason)}; "
        f"to review it: {inert.line(f.remedy)}"
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
        f"Not in context: {inert.code(f.path)} — "
        + ("read in full by a reviewer" if f.path in read else inert.line(f.reason))
        for f in shown
    )
    if len(listed) > len(shown):
        more = len(listed) - len(shown)
        lines.append(f"… and {more:,} more file(s) not in context (the JSON report lists them all)")
    return lines


def _guidelines_line(report: Report, inert: Inert) -> str:
    """Which of the base branch's guideline files the agents were given, and how much of each."""
    said = []
    for g in report.guidelines:
        scope = f" for {inert.code(g.scope)}" if g.scope else ""
        size = f"{g.size:,} bytes, ~{g.tokens:,} tokens"
        note = f", {inert.line(g.note)}" if g.note else ""
        said.append(f"{inert.code(g.path)}{scope} ({size}{note})")
    return "Guidelines from the base branch: " + "; ".join(said)


@dataclass(frozen=True, slots=True, kw_only=True)
class _Said:
    name: str
    role: str
    summary: str  # a blockquote, or "" when the agent gave no summary
    notes: tuple[str, ...]


def _said(report: Report, redactor: Redactor, inert: Inert) -> list[_Said]:
    """What each agent said about the PR (its finalize_review summary) and the harness's notes."""
    out = []
    for agent in report.agents:
        if not agent.summary and not agent.notes:
            continue
        # Redacted before the cut (a secret cut in half no longer matches the redactor), cut
        # before it is made inert (a cut through an escape or a fence would undo it).
        summary = redactor(agent.summary or "").strip()
        cut = len(summary) > MAX_AGENT_SUMMARY
        summary = inert.block(summary[:MAX_AGENT_SUMMARY])
        if cut:
            summary += "\n\n… (cut; the JSON report has it all)"
        quoted = "\n".join(f"> {line}".rstrip() for line in summary.splitlines())
        notes = tuple(inert.line(note) for note in agent.notes)
        out.append(_Said(name=inert.line(agent.name), role=agent.role, summary=quoted, notes=notes))
    return out


def _usage(report: Report) -> str:
    u = report.usage
    return (
        f"{u.requests} model request(s) · {u.total_input_tokens:,} input tokens "
        f"({u.cache_read_tokens:,} cache read, {u.cache_write_tokens:,} cache write) · "
        f"{u.output_tokens:,} output tokens · ${u.cost_usd:.4f}"
    )


def _not_recorded_line(report: Report) -> str:
    """How many findings could not be recorded, and why in short (each is in the JSON report)."""
    dropped = not_recorded(report)
    if not dropped:
        return ""
    malformed = sum(1 for d in dropped if d.malformed)
    parts = [f"{malformed} malformed"] if malformed else []
    if len(dropped) > malformed:
        parts.append(f"{len(dropped) - malformed} whose anchor was refused")
    return (
        f"{len(dropped)} finding(s) could not be recorded ({', '.join(parts)}); the JSON "
        "report's `discarded` lists each with its reason."
    )


def _kind(report: Report, inert: Inert) -> str:
    """Which kind of review ran, and since which head (an incremental review of a push)."""
    run = report.review
    if run is None:
        return ""
    if run.kind is ReviewKind.INCREMENTAL and run.since:
        return (
            f"Incremental review: the changes since `{run.since[:12]}`; "
            f"{run.carried} earlier finding(s) on unchanged lines carried forward, "
            f"{run.rejudged} on changed lines re-judged."
        )
    # Counted before the agents ran: a carried finding the review raises again is its own.
    kept = "earlier finding(s) on unchanged code carried forward (each stands unless raised again)"
    tail = f" {run.carried} {kept}." if run.carried else ""
    return f"Full review ({inert.line(run.reason)}).{tail}"


def _axis_rows(report: Report, inert: Inert) -> list[dict[str, str]]:
    return [
        {
            "name": inert.line(a.name, table=True),
            "gated": "yes" if a.gated else "no",
            "outcome": a.outcome.value,
            "detail": inert.line(a.detail, table=True) or "—",
        }
        for a in report.axes
    ]


def _agent_rows(report: Report, inert: Inert) -> list[dict[str, object]]:
    return [
        {
            "name": inert.line(a.name, table=True),
            "role": a.role,
            "model": inert.line(a.model, table=True),
            "stop": a.stop_reason.value
            + (f" ({inert.line(a.error, table=True)})" if a.error else ""),
            "turns": a.turns,
        }
        for a in report.agents
    ]


def summary_body(
    report: Report,
    *,
    plan: Placement | None = None,
    resolved: Sequence[ReviewNode] = (),
    marker: SummaryMarker | None = None,
    link_of: LinkBuilder | None = None,
    notes: Sequence[str] = (),
    redactor: Redactor,
    limit: int = MAX_BODY,
    pointer: str = TRUNCATED,
) -> str:
    """The summary comment (and `--format markdown`): verdict, reasons, axes, findings, coverage, usage."""
    inert = inert_for(redactor, link_of)
    placed = _placements(plan)
    nodes = sorted(report.nodes, key=lambda n: (n.priority.rank, -n.confidence, n.id))
    partial = report.coverage is not None and report.coverage.partial
    discarded = _not_recorded_line(report)
    text = render(
        "comments/summary.md.j2",
        marker=summary_marker(marker, redactor=redactor) if marker is not None else "",
        verdict=VERDICT_LABEL[verdict_of(report)],
        head=report.pr.head_sha[:12],
        kind=_kind(report, inert),
        deciding=[inert.line(reason) for reason in deciding(report)],
        partial=partial,
        axes=_axis_rows(report, inert),
        counts=_counts(nodes),
        findings=[_row(n, link_of, placed, inert) for n in nodes],
        placed=plan is not None,
        resolved=[_row(n, link_of, placed, inert, table=False) for n in resolved],
        discarded=discarded,
        coverage=_coverage(report, inert),
        usage=_usage(report),
        agents=_agent_rows(report, inert),
        said=_said(report, redactor, inert),
        notes=[inert.line(n) for n in (*notes, *(plan.choices() if plan is not None else ()))],
        learned=learned_section(report, inert),
    )
    return finish(text, redactor, limit=limit, pointer=pointer)
