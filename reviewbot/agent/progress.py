"""Progress of the agents, as the loop reports it: a live terminal line, or nothing.

`Progress` is the seam the loop and the panel call; `RichProgress` draws one live
line on stderr (agent, turn, tokens, cost, the tool running now) and leaves a
one-line summary per agent; `SilentProgress` is for CI logs and tests. Whoever made
a progress calls `close()` when a run ends early, so no live line (and no hidden
cursor) outlives it. Progress
never decides anything and must never raise into the loop. The tool name is the
model's text: it is shown with its control characters revealed and cut short.
"""

from __future__ import annotations

from typing import Protocol

from rich.console import Console
from rich.live import Live
from rich.text import Text

from reviewbot.run import StopReason, Usage
from reviewbot.text.hygiene import for_terminal

MAX_TOOL_NAME = 60  # a real tool name is short; a longer one is the model's invention


class Progress(Protocol):
    def started(self, agent: str, model: str) -> None: ...

    def update(self, agent: str, *, turn: int, usage: Usage, tool: str | None = None) -> None: ...

    def finished(
        self, agent: str, *, stop_reason: StopReason, turns: int, usage: Usage
    ) -> None: ...


class SilentProgress:
    """Reports nothing."""

    def started(self, agent: str, model: str) -> None:
        return None

    def update(self, agent: str, *, turn: int, usage: Usage, tool: str | None = None) -> None:
        return None

    def finished(self, agent: str, *, stop_reason: StopReason, turns: int, usage: Usage) -> None:
        return None

    def close(self) -> None:
        return None


def describe(usage: Usage) -> str:
    """`12.3k in (80% cached) · 1.2k out · $0.042`"""
    total = usage.total_input_tokens
    cached = f" ({usage.cache_read_tokens / total:.0%} cached)" if total else ""
    return f"{_k(total)} in{cached} · {_k(usage.output_tokens)} out · ${usage.cost_usd:.3f}"


def _shown(tool: str) -> str:
    name = for_terminal(tool, single_line=True)
    return name if len(name) <= MAX_TOOL_NAME else name[: MAX_TOOL_NAME - 1] + "…"


def _k(n: int) -> str:
    return f"{n / 1000:.1f}k" if n >= 1000 else str(n)


class RichProgress:
    """A live status line on stderr while an agent runs, then one summary line."""

    def __init__(self, console: Console | None = None) -> None:
        self._console = console or Console(stderr=True)
        self._live: Live | None = None
        self._model = ""

    def started(self, agent: str, model: str) -> None:
        self._stop()
        self._model = model
        self._live = Live(
            self._line(agent, "starting"), console=self._console, transient=True, auto_refresh=False
        )
        self._live.start()

    def update(self, agent: str, *, turn: int, usage: Usage, tool: str | None = None) -> None:
        doing = f"running {_shown(tool)}" if tool else "waiting for the model"
        state = f"turn {turn} · {describe(usage)} · {doing}"
        if self._live is not None:
            self._live.update(self._line(agent, state), refresh=True)

    def finished(self, agent: str, *, stop_reason: StopReason, turns: int, usage: Usage) -> None:
        self._stop()
        mark = "✓" if stop_reason.completed else "✗"
        self._console.print(
            Text(f"{mark} {agent} ({self._model}): {stop_reason.value} after {turns} turn(s) · ")
            + Text(describe(usage))
        )

    def close(self) -> None:
        """Stop the live line (the run ended early: Ctrl-C, an error) and show the cursor again."""
        self._stop()

    def _line(self, agent: str, state: str) -> Text:
        return Text.assemble((f"… {agent}", "bold"), f" ({self._model}) {state}")

    def _stop(self) -> None:
        if self._live is not None:
            self._live.stop()
            self._live = None
