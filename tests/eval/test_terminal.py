"""What eval prints: literal text (no markup, no escape sequences), a live line only at a terminal."""

from __future__ import annotations

import io

from rich.console import Console

from reviewbot.eval.result import PRResult, ScoreReport
from reviewbot.eval.score import EMPTY
from reviewbot.eval.terminal import TerminalProgress
from reviewbot.redact import Redactor
from reviewbot.results.run import Usage

URL = "https://github.com/octo/app/pull/7"
RESULT = PRResult(
    url=URL,
    title="t",
    head_sha="a" * 40,
    model="m",
    judge_model="j",
    tool_version="0.1.0",
    findings=(),
    golden=(),
    score=ScoreReport.of(EMPTY, 2.0),
    reviewers=Usage(),
    judge=Usage(),
)


def progress(*, terminal: bool) -> tuple[TerminalProgress, io.StringIO]:
    out = io.StringIO()
    console = Console(file=out, force_terminal=terminal, width=200, color_system=None)
    return TerminalProgress(console, Redactor(), live=terminal), out


class TestProgress:
    def test_benchmark_text_is_printed_literally(self):
        """Rich markup and an escape sequence in a problem line are shown, not interpreted."""
        shown, out = progress(terminal=False)
        shown.note("entry 1: [bold red]title[/] \x1b[2J")
        assert "[bold red]title[/]" in out.getvalue()
        assert "\x1b[2J" not in out.getvalue()

    def test_a_live_judging_line_only_at_a_terminal(self):
        """Piped, judging prints nothing; at a terminal a live line shows and then clears."""
        piped, piped_out = progress(terminal=False)
        piped.judging(URL, finding=1, findings=2)
        assert piped_out.getvalue() == ""
        live, live_out = progress(terminal=True)
        live.judging(URL, finding=1, findings=2)
        live.scored(1, 1, RESULT, cached=True)
        text = live_out.getvalue()
        assert "judging finding 1/2" in text
        assert "✓ [1/1] octo/app#7: 0 finding(s)" in text
