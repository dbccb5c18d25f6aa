"""Progress of the agents, as the loop reports it: a live terminal view, log lines, or nothing.

`Progress` is the seam the loop and the panel call, from every agent's thread at once
(agents run at the same time); each implementation takes its own lock.
`RichProgress` draws one live line per agent in flight on stderr (agent, turn, tokens,
cost, the tool running now) and leaves a one-line summary per agent; `LogProgress` is
for a stderr that is not a terminal (CI logs, a pipe): a line when an agent starts, at
most one line per agent turn and per `interval` seconds (agent, turn, tokens, its cost
and the run's so far, what it is doing), and its summary line; `SilentProgress` is for
tests. Whoever made a progress calls `close()` when a run ends early, so no live line
(and no hidden cursor) outlives it. Progress never decides anything and must never
raise into the loop. The tool name is the model's text: it is shown with its control
characters revealed, on one line, cut short.
"""

from __future__ import annotations

import math
import sys
import threading
import time
from collections.abc import Callable
from typing import Protocol, TextIO

from rich.console import Console, Group
from rich.live import Live
from rich.text import Text

from reviewbot.results.run import StopReason, Usage
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


def _summary(agent: str, model: str, stop_reason: StopReason, turns: int, usage: Usage) -> str:
    mark = "✓" if stop_reason.completed else "✗"
    return (
        f"{mark} {agent} ({model}): {stop_reason.value} after {turns} turn(s) · {describe(usage)}"
    )


def _doing(tool: str | None) -> str:
    return f"running {_shown(tool)}" if tool else "waiting for the model"


class RichProgress:
    """Live status lines on stderr, one per agent in flight, then one summary line each."""

    def __init__(self, console: Console | None = None) -> None:
        self._console = console or Console(stderr=True)
        self._live: Live | None = None
        self._models: dict[str, str] = {}
        self._lines: dict[str, Text] = {}  # the agents in flight, in the order they started
        self._lock = threading.Lock()
        self._closed = False

    def started(self, agent: str, model: str) -> None:
        with self._lock:
            if self._closed:
                return
            self._models[agent] = model
            self._lines[agent] = self._line(agent, "starting")
            if self._live is None:
                self._live = Live(
                    self._view(), console=self._console, transient=True, auto_refresh=False
                )
                self._live.start()
            self._draw()

    def update(self, agent: str, *, turn: int, usage: Usage, tool: str | None = None) -> None:
        with self._lock:
            if self._closed or agent not in self._lines:
                return
            self._lines[agent] = self._line(
                agent, f"turn {turn} · {describe(usage)} · {_doing(tool)}"
            )
            self._draw()

    def finished(self, agent: str, *, stop_reason: StopReason, turns: int, usage: Usage) -> None:
        with self._lock:
            if self._closed:
                return
            self._lines.pop(agent, None)
            model = self._models.get(agent, "")
            if not self._lines:
                self._stop()
            else:
                self._draw()
            self._console.print(Text(_summary(agent, model, stop_reason, turns, usage)))

    def close(self) -> None:
        """Stop the live lines (the run ended early: Ctrl-C, an error) and show the cursor again."""
        with self._lock:
            self._closed = True
            self._stop()

    def _line(self, agent: str, state: str) -> Text:
        return Text.assemble((f"… {agent}", "bold"), f" ({self._models.get(agent, '')}) {state}")

    def _view(self) -> Group:
        return Group(*self._lines.values())

    def _draw(self) -> None:
        if self._live is not None:
            self._live.update(self._view(), refresh=True)

    def _stop(self) -> None:
        if self._live is not None:
            self._live.stop()
            self._live = None


class LogProgress:
    """Plain lines for a log: started, at most one per agent turn and `interval`, finished."""

    def __init__(
        self,
        stream: TextIO | None = None,
        *,
        interval: float = 3.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._stream = stream
        self._interval = interval
        self._clock = clock
        self._lock = threading.Lock()
        self._models: dict[str, str] = {}
        self._cost: dict[str, float] = {}  # each agent's cost so far: the run's is their sum
        self._said: dict[str, tuple[int, float]] = {}  # the last turn told, and when

    def started(self, agent: str, model: str) -> None:
        with self._lock:
            self._models[agent] = model
            self._said[agent] = (0, -math.inf)
            self._say(f"{agent} ({model}) started")

    def update(self, agent: str, *, turn: int, usage: Usage, tool: str | None = None) -> None:
        with self._lock:
            self._cost[agent] = usage.cost_usd
            told, when = self._said.get(agent, (0, -math.inf))
            # The first update of a turn comes before its tools run: wait for the first tool,
            # or the next turn, to say what the agent does now.
            if tool is None or turn <= told or self._clock() - when < self._interval:
                return
            self._said[agent] = (turn, self._clock())
            run = sum(self._cost.values())
            self._say(f"{agent} turn {turn} · {describe(usage)} (run ${run:.3f}) · {_doing(tool)}")

    def finished(self, agent: str, *, stop_reason: StopReason, turns: int, usage: Usage) -> None:
        with self._lock:
            self._cost[agent] = usage.cost_usd
            self._say(_summary(agent, self._models.get(agent, ""), stop_reason, turns, usage))

    def close(self) -> None:
        return None

    def _say(self, line: str) -> None:
        stream = self._stream or sys.stderr
        try:
            stream.write(f"reviewbot: {line}\n")
            stream.flush()
        except (OSError, ValueError):  # a closed log must not stop the review
            pass


def progress_for(stream: TextIO) -> RichProgress | LogProgress:
    """Live lines only for a person at a terminal; a log (CI, a pipe) gets a line per turn."""
    return RichProgress() if stream.isatty() else LogProgress()
