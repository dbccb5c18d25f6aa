"""The default local output: the review printed with rich, readable in a terminal.

Verdict banner with what decided it, the axes, the findings grouped by file with
the code they point at (read from the checkout), what the reviewers said (their
own summaries, and the harness's notes), discarded findings, coverage and usage. Untrusted text (titles, bodies, paths) is printed as plain `Text`, never as
rich markup, with control characters removed, so a PR cannot restyle or rewrite
the terminal. Must not: call GitHub or decide the verdict.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from pathlib import PurePosixPath
from typing import TextIO

from rich.console import Console, Group, RenderableType
from rich.padding import Padding
from rich.panel import Panel
from rich.syntax import Syntax
from rich.table import Table
from rich.text import Text

from reviewbot.coverage.model import SkippedFile
from reviewbot.nodes.model import ReviewNode
from reviewbot.publish.body import (
    KIND_LABEL,
    MAX_AGENT_SUMMARY,
    STATUS_LABEL,
    deciding,
    verdict_of,
)
from reviewbot.publish.discards import not_recorded
from reviewbot.publish.placement import priority_key
from reviewbot.publish.suggestion import read_head_text
from reviewbot.redact import Redactor
from reviewbot.results.report import Report, ReviewRun
from reviewbot.sources.snapshot import PRSnapshot
from reviewbot.verdict.lattice import Verdict

CONTEXT_LINES = 2
MAX_LISTED = 10  # file names per "not in context" reason; the JSON report lists them all
MAX_UNSEEN = 3  # unseen files shown with their reason and remedy
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
Clean = Callable[[str], str]  # redact, then drop control characters
_STYLE = {Verdict.SHIP: "bold green", Verdict.HOLD: "bold yellow", Verdict.BLOCK: "bold red"}
_PRIORITY_STYLE = {"P0": "bold red", "P1": "red", "P2": "yellow", "P3": "dim"}


def render_terminal(
    report: Report,
    snapshot: PRSnapshot | None,
    console: Console,
    *,
    redactor: Redactor | None = None,
) -> None:
    """Print the whole review to `console`."""
    redact = redactor if redactor is not None else Redactor()

    def clean(text: str) -> str:
        return _CONTROL.sub("", redact(text))

    verdict = verdict_of(report)
    reasons = Text("\n".join(f"• {clean(r)}" for r in deciding(report)))
    title = Text(f"{verdict.name.capitalize()}", style=_STYLE[verdict])
    head = Text(f"head {report.pr.head_sha[:12]} · {clean(report.pr.title)}", style="dim")
    box = [reasons, *_not_reviewed(report, clean), head]
    console.print(Panel(Group(*box), title=title, border_style=_STYLE[verdict]))
    console.print(_axes(report, clean))
    _print_findings(report, snapshot, console, clean)
    said = _said(report, clean)
    if said is not None:
        console.print(said)
    console.print(_footer(report, clean, _compared(report, snapshot, clean)))


def _not_reviewed(report: Report, clean: Clean) -> list[Text]:
    """The headline's line on what nobody reviewed (nothing when every changed file was seen)."""
    coverage = report.coverage
    if coverage is None:
        return [Text("Not reviewed: coverage was not reported", style="bold yellow")]
    if not coverage.partial:
        return []
    parts = []
    if coverage.unseen:
        names = ", ".join(clean(f.path) for f in coverage.unseen[:MAX_UNSEEN])
        more = ", …" if len(coverage.unseen) > MAX_UNSEEN else ""
        parts.append(
            f"{len(coverage.unseen)} of {coverage.files_total} changed file(s) ({names}{more})"
        )
    if coverage.files_unlisted:
        parts.append(f"{coverage.files_unlisted} file(s) GitHub did not list")
    what = "; ".join(parts) or "part of the PR"
    return [Text(f"Not reviewed: {what} — see Coverage below", style="bold yellow")]


def _axes(report: Report, clean: Clean) -> Table:
    table = Table(title="Axes", title_justify="left")
    for column in ("axis", "gated", "outcome", "detail"):
        table.add_column(column)
    for axis in report.axes:
        table.add_row(
            Text(clean(axis.name)),
            "yes" if axis.gated else "no",
            axis.outcome.value,
            Text(clean(axis.detail)),
        )
    return table


def _print_findings(
    report: Report, snapshot: PRSnapshot | None, console: Console, clean: Clean
) -> None:
    if not report.nodes:
        console.print(Text("No findings.", style="green"))
        return
    # Most severe first, whichever file it is in: a P0 is never printed below a P2.
    console.rule(Text("Findings, most severe first", style="bold"), align="left")
    for node in sorted(report.nodes, key=priority_key):
        console.print(_finding(node, snapshot, clean))


def _finding(node: ReviewNode, snapshot: PRSnapshot | None, clean: Clean) -> RenderableType:
    header = Text()
    header.append(f"{node.priority.value} ", style=_PRIORITY_STYLE[node.priority.value])
    header.append(f"{KIND_LABEL[node.kind]} · ")
    header.append(clean(node.title), style="bold")
    header.append(f"  (confidence {node.confidence:.2f}, {STATUS_LABEL[node.status]})", style="dim")
    parts: list[RenderableType] = [header, Text(_where(node, clean), style="bold dim")]
    if node.anchor is not None:
        code = _code(node, snapshot)
        if code is not None:
            parts.append(code)
    if node.body:
        parts.append(Padding(Text(clean(node.body)), (0, 0, 0, 2)))
    if node.suggestion is not None:
        parts.append(Text("suggested replacement:", style="dim"))
        parts.append(Syntax(clean(node.suggestion), _lexer(node), line_numbers=False))
    for dispute in node.disputes:
        parts.append(
            Text(f"disputed by {clean(dispute.by)}: {clean(dispute.reason)}", style="yellow")
        )
    return Padding(Group(*parts), (0, 0, 1, 0))


def _where(node: ReviewNode, clean: Clean) -> str:
    """`app.py · line 3`, `app.py · lines 3–5`, or `Whole PR`."""
    anchor = node.anchor
    if anchor is None:
        return "Whole PR"
    deleted = " (deleted, base version)" if anchor.side == "LEFT" else ""
    if anchor.start_line == anchor.end_line:
        return f"{clean(anchor.path)} · line {anchor.start_line}{deleted}"
    return f"{clean(anchor.path)} · lines {anchor.start_line}–{anchor.end_line}{deleted}"


def _code(node: ReviewNode, snapshot: PRSnapshot | None) -> Syntax | None:
    anchor = node.anchor
    if anchor is None or snapshot is None:
        return None
    # Deleted (LEFT) lines are not in the head: the quote is their text, as the diff has it.
    text = anchor.quote if anchor.side == "LEFT" else read_head_text(snapshot.checkout, anchor.path)
    if text is None:
        return None
    lines = text.splitlines()
    if anchor.side == "LEFT":
        lines = [""] * (anchor.start_line - 1) + lines
    first = max(1, anchor.start_line - CONTEXT_LINES)
    last = min(len(lines), anchor.end_line + CONTEXT_LINES)
    if first > last:
        return None
    snippet = _CONTROL.sub("", "\n".join(lines[first - 1 : last]))
    return Syntax(
        snippet,
        _lexer(node),
        line_numbers=True,
        start_line=first,
        highlight_lines=set(range(anchor.start_line, anchor.end_line + 1)),
    )


def _lexer(node: ReviewNode) -> str:
    suffix = PurePosixPath(node.anchor.path).suffix if node.anchor else ""
    return Syntax.guess_lexer(f"file{suffix}") if suffix else "text"


def _said(report: Report, clean: Clean) -> RenderableType | None:
    """Each agent's own summary (capped) and the harness's notes; None when there are none."""
    parts: list[RenderableType] = []
    for agent in report.agents:
        if not agent.summary and not agent.notes:
            continue
        parts.append(Text(f"{clean(agent.name)} ({agent.role}):", style="bold"))
        summary = clean(agent.summary or "").strip()  # clean redacts before the cut
        if len(summary) > MAX_AGENT_SUMMARY:
            summary = summary[:MAX_AGENT_SUMMARY].rstrip() + " … (cut; the JSON report has it all)"
        if summary:
            parts.append(Padding(Text(summary), (0, 0, 0, 2)))
        parts.extend(Text(f"  • {clean(note)}", style="dim") for note in agent.notes)
    if not parts:
        return None
    return Group(Text("What the reviewers said", style="bold underline"), *parts, Text(""))


def _compared(report: Report, snapshot: PRSnapshot | None, clean: Clean) -> str:
    """`base main at 1a2b3c4d5e6f · head 9f8e7d6c5b4a`: what the review compared."""
    base = f"base {clean(snapshot.base_ref)} at " if snapshot is not None else "base "
    return f"{base}{report.pr.base_sha[:12]} · head {report.pr.head_sha[:12]}"


def _kind(run: ReviewRun, clean: Clean) -> str:
    """Which kind of review ran, and the earlier findings it kept: a full review keeps them too."""
    kept = f"{run.carried} earlier finding(s) on unchanged code carried forward"
    if run.since:
        return f"incremental review since {run.since[:12]}: {kept}, {run.rejudged} re-judged"
    return f"full review: {clean(run.reason)}" + (f"; {kept}" if run.carried else "")


def _footer(report: Report, clean: Clean, compared: str) -> RenderableType:
    lines = [*_not_recorded(report, clean), *_learned(report, clean), compared]
    run = report.review
    if run is not None:
        lines.append(_kind(run, clean))
    coverage = report.coverage
    if coverage is None:
        lines.append("coverage: not reported")
    else:
        if report.no_model_ran:
            lines.append(
                f"coverage: no model ran: none of {coverage.files_total} changed files reviewed"
            )
        else:
            lines.append(
                f"coverage: {coverage.files_in_context} of {coverage.files_total} changed files in context"
            )
        unseen = {f.path for f in coverage.unseen}
        listed = [f for f in coverage.files_listed if f.path not in unseen]
        lines.extend(_not_in_context(listed, clean))
        # Each unseen file's reason and remedy run to several lines: the first few, then a count.
        lines.extend(
            f"  NOT SEEN: {clean(f.path)} — {clean(f.reason)}; to review it: {clean(f.remedy)}"
            for f in coverage.unseen[:MAX_UNSEEN]
        )
        if len(coverage.unseen) > MAX_UNSEEN:
            rest = ", ".join(clean(f.path) for f in coverage.unseen[MAX_UNSEEN:][:MAX_LISTED])
            more = len(coverage.unseen) - MAX_UNSEEN
            tail = " …" if more > MAX_LISTED else ""
            lines.append(
                f"  NOT SEEN, {more} more file(s) (the JSON report has each reason): {rest}{tail}"
            )
        if coverage.partial:
            lines.append("PARTIAL COVERAGE: this review does not cover the whole PR")
    u = report.usage
    lines.append(
        f"usage: {u.requests} request(s), {u.total_input_tokens:,} input / {u.output_tokens:,} output tokens, "
        f"${u.cost_usd:.4f}"
    )
    return Text("\n".join(lines), style="dim")


def _learned(report: Report, clean: Clean) -> list[str]:
    """The findings a learning suppressed (each named), and the learned P0s still shown."""
    learned = report.learnings
    if learned is None or not (learned.suppressed or learned.kept):
        return []
    lines = [
        f"{len(learned.suppressed)} finding(s) suppressed by a learning, "
        f"{len(learned.kept)} learned P0(s) not suppressed (.reviewbot/learnings.toml):"
    ]
    for match in (*learned.suppressed, *learned.kept):
        entry = match.learning
        lines.append(
            f"  • {match.priority.value} “{clean(match.title)}”: entry {entry.fingerprint} "
            f"(dismissed by {clean(entry.by)}), matched by {match.matched_by}"
        )
    return lines


def _not_recorded(report: Report, clean: Clean) -> list[str]:
    """Each finding the review could not record: its title, where it pointed, and why."""
    dropped = not_recorded(report)
    if not dropped:
        return []
    lines = [
        f"{len(dropped)} finding(s) not recorded (the JSON report's `discarded` has each input):"
    ]
    for item in dropped:
        title = f"“{clean(item.title)}”" if item.title else "(no title)"
        where = clean(item.where) if item.where else "whole PR"
        lines.append(f"  • {title} at {where}: {clean(item.why)}")
    return lines


def _not_in_context(files: Sequence[SkippedFile], clean: Clean) -> list[str]:
    """One line per reason, its files named up to a cap; the model's hints are left out."""
    by_reason: dict[str, list[str]] = {}
    for skipped in files:
        # "…; read the file if it matters" speaks to the model (it can read them); people get the reason.
        reason = skipped.reason.partition(";")[0].strip()
        by_reason.setdefault(reason, []).append(clean(skipped.path))
    lines = []
    for reason, paths in by_reason.items():
        shown = ", ".join(paths[:MAX_LISTED])
        more = f" … and {len(paths) - MAX_LISTED} more" if len(paths) > MAX_LISTED else ""
        lines.append(f"  not in context ({clean(reason)}, {len(paths)} file(s)): {shown}{more}")
    return lines


class PipeConsole(Console):
    """A Console that lets a closed pipe through as `BrokenPipeError`.

    rich's own answer is `SystemExit(1)`: the code of `--fail-on`, and the report file and the
    Actions outputs, written after the review is printed, would be lost.
    """

    def on_broken_pipe(self) -> None:
        self.quiet = True
        raise BrokenPipeError(32, "Broken pipe")


def print_report(
    report: Report, snapshot: PRSnapshot | None, stream: TextIO, *, redactor: Redactor | None = None
) -> None:
    """Print the review to `stream`, in colour only when it is a terminal."""
    render_terminal(report, snapshot, PipeConsole(file=stream, soft_wrap=False), redactor=redactor)
