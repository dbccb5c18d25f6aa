"""The terminal progress line and the silent implementation."""

from __future__ import annotations

import io
import re

from rich.console import Console

from reviewbot.agent.progress import (
    MAX_TOOL_NAME,
    LogProgress,
    RichProgress,
    SilentProgress,
    describe,
)
from reviewbot.results.run import StopReason, Usage
from tests.agent.factories import FakeClock

USAGE = Usage(
    requests=2, input_tokens=1_000, cache_read_tokens=9_000, output_tokens=1_500, cost_usd=0.0421
)


class TestDescribe:
    def test_tokens_cache_share_and_cost(self):
        """The line shows input with its cached share, output and cost."""
        assert describe(USAGE) == "10.0k in (90% cached) · 1.5k out · $0.042"

    def test_nothing_yet(self):
        """Before any request there is no cache share to show."""
        assert describe(Usage()) == "0 in · 0 out · $0.000"


class TestRichProgress:
    def test_summary_line_per_agent(self):
        """After an agent, one summary line with its stop reason, turns and usage remains."""
        out = io.StringIO()
        progress = RichProgress(Console(file=out, width=200, force_terminal=False))
        progress.started("review", "claude-sonnet-4-5")
        progress.update("review", turn=1, usage=USAGE, tool="read_file")
        progress.finished("review", stop_reason=StopReason.FINALIZED, turns=2, usage=USAGE)
        assert out.getvalue().splitlines()[-1] == (
            "✓ review (claude-sonnet-4-5): finalized after 2 turn(s) · 10.0k in (90% cached) · 1.5k out · $0.042"
        )

    def test_failed_agent_is_marked(self):
        """An agent that did not complete is marked with ✗."""
        out = io.StringIO()
        progress = RichProgress(Console(file=out, width=200, force_terminal=False))
        progress.started("security", "m")
        progress.finished("security", stop_reason=StopReason.MAX_COST, turns=5, usage=Usage())
        assert out.getvalue().startswith("✗ security (m): max_cost after 5 turn(s)")


class TestTerminalSafety:
    def test_a_tool_name_cannot_send_escape_sequences(self):
        """A model-chosen tool name is drawn with its control characters revealed, on one line."""
        out = io.StringIO()
        progress = RichProgress(Console(file=out, width=300, force_terminal=True))
        progress.started("review", "m")
        progress.update("review", turn=1, usage=USAGE, tool="x\x1b]52;c;ZXZpbA==\x07\ny")
        progress.finished("review", stop_reason=StopReason.END_TURN, turns=1, usage=USAGE)
        drawn = out.getvalue()
        assert "running x⟨U+001B⟩]52;c;ZXZpbA==⟨U+0007⟩ y" in drawn
        assert "\x1b]" not in drawn  # rich's own styling uses CSI (ESC [), never OSC

    def test_a_long_tool_name_is_cut(self):
        """An invented tool name longer than any real one is cut with an ellipsis."""
        out = io.StringIO()
        progress = RichProgress(Console(file=out, width=300, force_terminal=True))
        progress.started("review", "m")
        progress.update("review", turn=1, usage=USAGE, tool="t" * 500)
        progress.finished("review", stop_reason=StopReason.END_TURN, turns=1, usage=USAGE)
        assert f"running {'t' * (MAX_TOOL_NAME - 1)}…" in out.getvalue()
        assert "t" * MAX_TOOL_NAME not in out.getvalue()


class TestSilent:
    def test_silent_progress_prints_nothing(self, capsys):
        """The silent implementation writes nothing anywhere."""
        progress = SilentProgress()
        progress.started("review", "m")
        progress.update("review", turn=1, usage=USAGE, tool="x")
        progress.finished("review", stop_reason=StopReason.END_TURN, turns=1, usage=USAGE)
        captured = capsys.readouterr()
        assert captured.out == captured.err == ""


class TestSeveralAgents:
    def test_a_live_line_per_agent_in_flight(self):
        """Two agents at once: both lines are drawn; each leaves its summary when it ends."""
        out = io.StringIO()
        progress = RichProgress(Console(file=out, width=200, force_terminal=True))
        progress.started("review", "m")
        progress.started("security", "m")
        progress.update("security", turn=1, usage=USAGE, tool="read_file")
        drawn = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", out.getvalue())  # without the styling
        assert (
            "… review (m) starting\n"
            "… security (m) turn 1 · 10.0k in (90% cached) · 1.5k out · $0.042 · running read_file"
        ) in drawn
        progress.finished("security", stop_reason=StopReason.END_TURN, turns=1, usage=USAGE)
        progress.finished("review", stop_reason=StopReason.END_TURN, turns=1, usage=Usage())
        assert "✓ security (m): end_turn after 1 turn(s)" in out.getvalue()
        assert "✓ review (m): end_turn after 1 turn(s) · 0 in · 0 out · $0.000" in out.getvalue()

    def test_nothing_is_drawn_after_close(self):
        """Ctrl-C closed the view: an agent thread still reporting draws nothing more."""
        out = io.StringIO()
        progress = RichProgress(Console(file=out, width=200, force_terminal=True))
        progress.started("review", "m")
        progress.close()
        before = out.getvalue()
        progress.update("review", turn=2, usage=USAGE, tool="read_file")
        progress.finished("review", stop_reason=StopReason.END_TURN, turns=2, usage=USAGE)
        assert out.getvalue() == before


class TestLogProgress:
    def test_one_line_per_turn_at_most_every_interval(self):
        """Off a terminal: started, a line per turn (throttled per agent), the summary."""
        out, clock = io.StringIO(), FakeClock()
        progress = LogProgress(out, interval=3.0, clock=clock)
        progress.started("review", "m")
        progress.started("security", "m")
        for turn in (1, 2, 3):
            for agent in ("review", "security"):
                progress.update(agent, turn=turn, usage=USAGE)  # the answer: before its tools
                progress.update(agent, turn=turn, usage=USAGE, tool="read_file")
                progress.update(agent, turn=turn, usage=USAGE, tool="search_code")
            clock.now += 2.0  # turns 2 s apart: turn 2 is within 3 s of turn 1, turn 3 is not
        progress.finished("review", stop_reason=StopReason.FINALIZED, turns=3, usage=USAGE)
        assert out.getvalue().splitlines() == [
            "reviewbot: review (m) started",
            "reviewbot: security (m) started",
            "reviewbot: review turn 1 · 10.0k in (90% cached) · 1.5k out · $0.042 (run $0.042) · running read_file",
            "reviewbot: security turn 1 · 10.0k in (90% cached) · 1.5k out · $0.042 (run $0.084) · running read_file",
            "reviewbot: review turn 3 · 10.0k in (90% cached) · 1.5k out · $0.042 (run $0.084) · running read_file",
            "reviewbot: security turn 3 · 10.0k in (90% cached) · 1.5k out · $0.042 (run $0.084) · running read_file",
            "reviewbot: ✓ review (m): finalized after 3 turn(s) · 10.0k in (90% cached) · 1.5k out · $0.042",
        ]

    def test_a_tool_name_stays_on_its_line(self):
        """A model-chosen tool name cannot start a new log line (no `::` workflow command)."""
        out = io.StringIO()
        progress = LogProgress(out, clock=FakeClock())
        progress.started("review", "m")
        progress.update("review", turn=1, usage=USAGE, tool="x\n::error::forged")
        lines = out.getvalue().splitlines()
        assert len(lines) == 2
        assert all(line.startswith("reviewbot: ") for line in lines)

    def test_a_closed_stream_does_not_stop_the_review(self):
        stream = io.StringIO()
        stream.close()
        progress = LogProgress(stream)
        progress.started("review", "m")
        progress.finished("review", stop_reason=StopReason.END_TURN, turns=0, usage=Usage())
        progress.close()
