"""The terminal output: everything a reader needs, and nothing a PR can use to restyle it."""

from __future__ import annotations

import io

from rich.console import Console

from reviewbot.coverage.model import UnseenFile
from reviewbot.output.terminal import render_terminal
from reviewbot.publish.body import MAX_AGENT_SUMMARY
from reviewbot.redact import MASK, Redactor
from reviewbot.results.report import ReviewRun
from tests.publish.conftest import (
    AGENT_SUMMARY,
    PRICE_NOTE,
    every_kind,
    make_report,
    make_snapshot,
    node,
)


def printed(report, snapshot=None, redactor=None):
    out = io.StringIO()
    console = Console(file=out, width=120, color_system=None, force_terminal=False)
    render_terminal(report, snapshot, console, redactor=redactor)
    return out.getvalue()


class TestTerminal:
    def test_banner_axes_findings_and_footer(self, checkout):
        """Verdict with its reason, axes, findings grouped by file, discarded, coverage, usage."""
        text = printed(make_report(every_kind(), partial=True), make_snapshot(checkout))
        for expected in (
            "Block",
            "gated axis `review` failed",
            "Axes",
            "2 checks pending",
            "src/app.py",
            "docs/format.md",
            "Whole PR",
            "x3 is off by one",
            "1 finding(s) not recorded",
            "(no title) at whole PR: malformed: priority: missing",
            "1 of 2 changed files in context",
            "package-lock.json",
            "PARTIAL COVERAGE",
            "$0.1234",
        ):
            assert expected in text, expected

    def test_code_context_from_the_checkout(self, checkout):
        """The anchored lines are shown with their neighbours and line numbers."""
        text = printed(make_report(every_kind()[:1]), make_snapshot(checkout))
        for line in ("1 x1 = 1", "3 x3 = 3", "4 x4 = 4", "6 x6 = 6"):
            assert line in " ".join(text.split()), line

    def test_no_snapshot_still_prints_findings(self):
        """Without a checkout the findings are printed without code."""
        text = printed(make_report(every_kind()))
        assert "Name the constant" in text
        assert "x1 = 1" not in text

    def test_untrusted_text_cannot_inject_markup_or_escapes(self):
        """Rich markup and terminal escape sequences in a title are printed inert."""
        hostile = node(id="n", title="[bold red]pwned[/] \x1b[2Jclear", body="\x1b]0;title\x07x")
        text = printed(make_report((hostile,)))
        assert "[bold red]pwned[/]" in text
        assert "\x1b" not in text

    def test_secrets_are_redacted(self):
        """A secret in a finding body is masked before it is printed."""
        leaky = node(id="n", body="key s3cr3t-value-123")
        text = printed(make_report((leaky,)), redactor=Redactor.of(["s3cr3t-value-123"]))
        assert "s3cr3t" not in text
        assert MASK in text

    def test_what_the_reviewers_said(self):
        """Each agent's own summary and the harness's notes are printed after the findings."""
        text = printed(make_report(every_kind()))
        said = text.index("What the reviewers said")
        assert text.index("Name the constant") < said < text.index("coverage:")
        flat = " ".join(text[said:].split())
        assert "review (reviewer):" in flat
        assert " ".join(AGENT_SUMMARY.split()) in flat
        assert f"• {PRICE_NOTE}" in flat

    def test_agent_summary_is_redacted_capped_and_inert(self):
        """A summary is redacted before it is capped, and printed without markup or escapes."""
        secret = "s3cr3t-value-123"
        report = make_report(())
        long = f"[bold]x[/] \x1b[2J {secret} " + "z" * (MAX_AGENT_SUMMARY + 500)
        agent = report.agents[0].model_copy(update={"summary": long, "notes": ()})
        text = printed(
            report.model_copy(update={"agents": (agent,)}), redactor=Redactor.of([secret])
        )
        assert "[bold]x[/]" in text
        assert "\x1b" not in text
        assert secret not in text
        assert MASK in text
        assert "(cut; the JSON report has it all)" in text
        assert "z" * (MAX_AGENT_SUMMARY + 100) not in "".join(text.split())

    def test_nothing_said_prints_no_section(self):
        """Agents without a summary or notes leave no empty heading."""
        report = make_report(())
        agent = report.agents[0].model_copy(update={"summary": None, "notes": ()})
        assert "What the reviewers said" not in printed(
            report.model_copy(update={"agents": (agent,)})
        )


class TestHeadline:
    """The verdict box says what nobody reviewed, not twenty lines below it."""

    @staticmethod
    def box(text: str) -> str:
        return text.split("╰", 1)[0]

    def test_unseen_files_are_in_the_verdict_box(self):
        """Partial coverage: the box names the count and the first unseen files."""
        report = make_report(verdict="hold", partial=True)
        unseen = tuple(
            UnseenFile(path=f"f{i}.py", reason="did not fit", remedy="raise it") for i in range(5)
        )
        coverage = report.coverage.model_copy(update={"unseen": unseen, "files_total": 7})
        box = self.box(printed(report.model_copy(update={"coverage": coverage})))
        assert "Not reviewed: 5 of 7 changed file(s) (f0.py, f1.py, f2.py, …)" in box

    def test_unreported_coverage_is_in_the_verdict_box(self):
        """No coverage at all: the box says so."""
        report = make_report(verdict="hold").model_copy(update={"coverage": None})
        assert "Not reviewed: coverage was not reported" in self.box(printed(report))

    def test_full_coverage_adds_nothing(self):
        """Every changed file seen: no such line."""
        assert "Not reviewed" not in printed(make_report(verdict="hold"))


class TestKindOfReview:
    """The footer says which kind of review ran and how many earlier findings it kept."""

    @staticmethod
    def footer(**run: object) -> str:
        report = make_report(every_kind())
        kept = report.model_copy(update={"review": ReviewRun.model_validate(run)})
        return " ".join(printed(kept).split())

    def test_a_full_review_says_what_it_kept(self):
        """A full review keeps findings on unchanged code too: the count is printed."""
        text = self.footer(kind="full", reason="asked", carried=2)
        assert "full review: asked; 2 earlier finding(s) on unchanged code carried forward" in text

    def test_an_incremental_review_says_the_same(self):
        """The same words for an incremental review, with what it re-judged."""
        text = self.footer(
            kind="incremental", since="a" * 40, reason="a push", carried=1, rejudged=3
        )
        assert (
            "incremental review since aaaaaaaaaaaa: 1 earlier finding(s) on unchanged code carried forward, "
            "3 re-judged"
        ) in text

    def test_nothing_kept_says_nothing_about_it(self):
        """A first review keeps nothing: the footer gives only its kind."""
        assert "kept" not in self.footer(kind="full", reason="first review")
