"""What `reviewbot eval` shows on the terminal: progress while it runs, then the tables.

`EvalProgress` is the seam the runner calls; `TerminalProgress` prints one line per PR
on stderr (started, scored or reused from the cache, failed) — at a terminal also a live line while
the judge works, in the style of `reviewbot.agent.progress` — and `render_result`
prints the result tables on stdout: per PR, by severity, by category (the golden
comments' categories the profile counts), and tokens and cost. Text from the benchmark file or a model goes
through `for_terminal` and the redactor, never through rich markup. Progress never
decides anything.
"""

from __future__ import annotations

from typing import Protocol

from rich.console import Console
from rich.live import Live
from rich.table import Table
from rich.text import Text

from reviewbot.agent.progress import describe
from reviewbot.eval.bench import Severity, short_name
from reviewbot.eval.result import CountsReport, EvalResult, PRResult
from reviewbot.redact import Redactor
from reviewbot.results.run import Usage
from reviewbot.text.hygiene import for_terminal


class EvalProgress(Protocol):
    def started(self, index: int, total: int, url: str) -> None: ...

    def judging(self, url: str, *, finding: int, findings: int) -> None: ...

    def scored(self, index: int, total: int, result: PRResult, *, cached: bool) -> None: ...

    def failed(self, index: int, total: int, url: str, error: str) -> None: ...


class TerminalProgress:
    """One line per PR on stderr; a live judging line only at a terminal."""

    def __init__(self, console: Console, redactor: Redactor, *, live: bool) -> None:
        self._console = console
        self._redact = redactor
        self._live_allowed = live
        self._live: Live | None = None

    def started(self, index: int, total: int, url: str) -> None:
        self._print(
            f"… [{index}/{total}] {short_name(url)}: reviewing (dry run, nothing is posted)"
        )

    def judging(self, url: str, *, finding: int, findings: int) -> None:
        if not self._live_allowed:
            return
        line = Text.assemble(
            (f"… {short_name(url)}", "bold"), f" judging finding {finding}/{findings}"
        )
        if self._live is None:
            self._live = Live(line, console=self._console, transient=True, auto_refresh=False)
            self._live.start()
        self._live.update(line, refresh=True)

    def scored(self, index: int, total: int, result: PRResult, *, cached: bool) -> None:
        self._stop()
        c = result.score.total
        matched = f"{c.tp}/{len(result.golden)} golden matched"
        how = (
            "cached"
            if cached
            else f"reviewers {describe(result.reviewers)} · judge ${result.judge.cost_usd:.3f}"
        )
        self._print(
            f"✓ [{index}/{total}] {short_name(result.url)}: {len(result.findings)} finding(s), "
            f"{matched} · P {c.precision:.1%} R {c.recall:.1%} F1 {c.f1:.1%} "
            f"Fβ {c.fbeta:.1%} · {how}"
        )

    def failed(self, index: int, total: int, url: str, error: str) -> None:
        self._stop()
        self._print(f"✗ [{index}/{total}] {short_name(url)}: not scored: {error}")

    def note(self, line: str) -> None:
        self._print(f"reviewbot: {line}")

    def _print(self, line: str) -> None:
        self._console.print(
            Text(self._redact(for_terminal(line, single_line=True))), soft_wrap=True
        )

    def _stop(self) -> None:
        if self._live is not None:
            self._live.stop()
            self._live = None


# ---------------------------------------------------------------- the result tables


def render_result(result: EvalResult, console: Console, redactor: Redactor) -> None:
    console.print(Text(_profile_line(result)))
    console.print(_pr_table(result, redactor))
    console.print(_severity_table(result))
    console.print(_category_table(result))
    console.print(_usage_table(result))
    if result.failed or result.problems:
        console.print(
            Text(
                f"Not scored: {len(result.failed)} PR(s) failed, "
                f"{len(result.problems)} benchmark entr(ies) invalid (see above)."
            )
        )


def _profile_line(result: EvalResult) -> str:
    score = result.score
    line = (
        f"Profile {result.profile.value} (categories: {', '.join(result.categories)}), "
        f"F{result.beta:g} beside F1."
    )
    if score.golden_outside:
        line += (
            f" Left out by the profile: {score.golden_outside} golden comment(s), and "
            f"{score.findings_outside} finding(s) matched only to them (neither TP nor FP)."
        )
    return line


def _ratios(counts: CountsReport) -> list[str]:
    return [
        str(counts.tp),
        str(counts.fp),
        str(counts.fn),
        f"{counts.precision:.1%}",
        f"{counts.recall:.1%}",
        f"{counts.f1:.1%}",
        f"{counts.fbeta:.1%}",
    ]


def _count_columns(result: EvalResult) -> tuple[str, ...]:
    return ("TP", "FP", "FN", "Precision", "Recall", "F1", f"F{result.beta:g}")


def _pr_table(result: EvalResult, redactor: Redactor) -> Table:
    table = Table(
        title=f"reviewbot eval: {result.model} (judge {result.judge_model})", show_footer=False
    )
    table.add_column("PR")
    table.add_column("Findings", justify="right")
    table.add_column("In body", justify="right")
    table.add_column("Golden", justify="right")
    for name in _count_columns(result):
        table.add_column(name, justify="right")
    table.add_column("Cost", justify="right")
    for pr in result.prs:
        name = redactor(for_terminal(short_name(pr.url), single_line=True))
        cost = pr.reviewers.cost_usd + pr.judge.cost_usd
        table.add_row(
            Text(name),
            str(len(pr.findings)),
            str(_in_body(pr)),
            str(len(pr.golden)),
            *_ratios(pr.score.total),
            f"${cost:.3f}",
        )
    for failure in result.failed:
        name = redactor(for_terminal(short_name(failure.url), single_line=True))
        table.add_row(Text(name), "-", "-", "-", "not scored", *[""] * 6, "")
    findings = sum(len(pr.findings) for pr in result.prs)
    golden = sum(len(pr.golden) for pr in result.prs)
    spent = result.usage.reviewers.cost_usd + result.usage.judge.cost_usd
    table.add_section()
    table.add_row(
        Text("overall", style="bold"),
        str(findings),
        str(sum(_in_body(pr) for pr in result.prs)),
        str(golden),
        *_ratios(result.score.total),
        f"${spent:.3f}",
    )
    return table


def _in_body(pr: PRResult) -> int:
    return sum(1 for f in pr.findings if f.placement == "body")


def _severity_table(result: EvalResult) -> Table:
    table = Table(title="By severity")
    table.add_column("Severity")
    for name in _count_columns(result):
        table.add_column(name, justify="right")
    for severity in reversed(Severity):
        table.add_row(severity.value, *_ratios(result.score.by_severity[severity]))
    return table


def _category_table(result: EvalResult) -> Table:
    """TP, FN and recall per category: an FP matched no golden comment, so it has none."""
    table = Table(title=f"By category ({result.profile.value}; an FP has none)")
    for name in ("Category", "Golden", "TP", "FN", "Recall"):
        table.add_column(name, justify="right" if name != "Category" else "left")
    for category, counts in result.score.by_category.items():
        table.add_row(
            category,
            str(counts.tp + counts.fn),
            str(counts.tp),
            str(counts.fn),
            f"{counts.recall:.1%}",
        )
    return table


def _usage_table(result: EvalResult) -> Table:
    table = Table(title="Tokens and cost")
    for name in ("", "Requests", "Input", "Cache read", "Cache write", "Output", "Cost"):
        table.add_column(name, justify="right" if name else "left")
    rows: tuple[tuple[str, Usage], ...] = (
        (f"reviewers ({result.model})", result.usage.reviewers),
        (f"judge ({result.judge_model})", result.usage.judge),
    )
    for label, usage in rows:
        table.add_row(
            label,
            str(usage.requests),
            str(usage.input_tokens),
            str(usage.cache_read_tokens),
            str(usage.cache_write_tokens),
            str(usage.output_tokens),
            f"${usage.cost_usd:.4f}",
        )
    return table
