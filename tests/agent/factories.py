"""Builders for the agent tests: a client over the fake API, a fake toolbox, a PR snapshot,
a model request, and the one-bug PR the panel tests review."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from reviewbot.agent.client import AnthropicClient
from reviewbot.agent.loop import Limits
from reviewbot.agent.messages import ModelRequest
from reviewbot.config.file import BudgetConfig, ReviewConfig
from reviewbot.sources.diff_index import DiffIndex, FileDiff, FileStatus, file_diff_from_patch
from reviewbot.sources.snapshot import Origin, PRComment, PRSnapshot
from reviewbot.tools.toolbox import ToolResult
from tests.fakes.messages_api import FakeMessagesAPI, tool_use

API_KEY = (
    "sk-ant-" + "api03-test-key-" + "0" * 16
)  # built, so no token-shaped literal sits in the tree
HEAD_SHA = "a1" * 20
BASE_SHA = "b2" * 20
MODEL = "claude-sonnet-4-5"


@dataclass
class Sleeps:
    """An injected sleeper: records the waits, never waits."""

    waits: list[float] = field(default_factory=list)

    def __call__(self, seconds: float) -> None:
        self.waits.append(seconds)


@dataclass
class FakeClock:
    now: float = 1000.0

    def __call__(self) -> float:
        return self.now


def client_for(
    fake: FakeMessagesAPI, *, sleeps: Sleeps | None = None, **kwargs: Any
) -> AnthropicClient:
    """The real AnthropicClient, its HTTP answered by `fake` through httpx.MockTransport."""
    return AnthropicClient(
        API_KEY,
        http_client=httpx.Client(transport=fake.transport()),
        sleep=sleeps if sleeps is not None else Sleeps(),
        jitter=lambda: 0.0,
        **kwargs,
    )


def limits(clock: FakeClock | None = None, **overrides: Any) -> Limits:
    budget = BudgetConfig(**overrides)
    return Limits.of(budget, started=(clock or FakeClock())())


Handler = Callable[[Any], ToolResult]


@dataclass
class FakeToolbox:
    """A small Toolbox: named handlers; a call to any other name is refused like the guard does."""

    handlers: Mapping[str, Handler]
    calls: list[tuple[str, Any]] = field(default_factory=list)
    timeouts: list[float] = field(default_factory=list)  # the time limit of each call
    deliveries: list[int] = field(default_factory=list)  # len(calls) at each delivery

    def tool_params(self) -> list[dict[str, Any]]:
        return [
            {
                "name": name,
                "description": f"the {name} tool",
                "input_schema": {"type": "object", "properties": {}},
            }
            for name in self.handlers
        ]

    def call(self, name: str, tool_input: object, *, timeout: float) -> ToolResult:
        self.calls.append((name, tool_input))
        self.timeouts.append(timeout)
        handler = self.handlers.get(name)
        if handler is None:
            return ToolResult(content=f"`{name}` is not a tool in review mode", is_error=True)
        return handler(tool_input)

    def delivered(self) -> None:
        self.deliveries.append(len(self.calls))


def echo(tool_input: Any) -> ToolResult:
    return ToolResult(content=f"read: {tool_input}")


def finalize(tool_input: Any) -> ToolResult:
    return ToolResult(content="finalized", ends_run=True)


def file_diff(
    path: str, patch: str | None, status: FileStatus = FileStatus.MODIFIED, **kw: Any
) -> FileDiff:
    return file_diff_from_patch(path, patch, status=status, **kw)


def index(*files: FileDiff, **kw: Any) -> DiffIndex:
    return DiffIndex(files={f.path: f for f in files}, **kw)


def snapshot(
    checkout: Path,
    diff: DiffIndex,
    *,
    title: str = "Fix the parser",
    body: str = "Handles empty input.",
    comments: tuple[PRComment, ...] = (),
    config: ReviewConfig | None = None,
) -> PRSnapshot:
    return PRSnapshot(
        origin=Origin.GITHUB,
        url="https://github.com/octo/app/pull/7",
        repo="octo/app",
        number=7,
        title=title,
        body=body,
        author="contributor",
        base_ref="main",
        head_ref="fix-parser",
        base_sha=BASE_SHA,
        head_sha=HEAD_SHA,
        diff=diff,
        checkout=checkout,
        comments=comments,
        config=config or ReviewConfig(),
    )


EPHEMERAL = {"type": "ephemeral"}


def request(**overrides: object) -> ModelRequest:
    fields: dict[str, object] = {
        "model": MODEL,
        "max_tokens": 512,
        "system": ({"type": "text", "text": "You review code.", "cache_control": EPHEMERAL},),
        "tools": (
            {
                "name": "read_file",
                "description": "Read a file.",
                "input_schema": {"type": "object", "properties": {"path": {"type": "string"}}},
                "cache_control": EPHEMERAL,
            },
        ),
        "messages": ({"role": "user", "content": [{"type": "text", "text": "The PR."}]},),
    }
    fields.update(overrides)
    return ModelRequest(**fields)  # type: ignore[arg-type]


# The PR the panel tests review: `divide` added to src/calc.py, its division by zero on line 7.
HEAD = "def parse(value):\n    if value is None:\n        return 0\n    return int(value)\n\ndef divide(a, b):\n    return a / b\n"
PATCH = (
    "@@ -1,4 +1,7 @@\n def parse(value):\n     if value is None:\n         return 0\n"
    "     return int(value)\n+\n+def divide(a, b):\n+    return a / b\n"
)


def node(
    priority: str = "P1", *, confidence: float = 0.9, title: str = "Division by zero"
) -> dict[str, Any]:
    return {
        "kind": "bug",
        "priority": priority,
        "confidence": confidence,
        "title": title,
        "body": "`divide(1, 0)` raises ZeroDivisionError; callers pass user input.",
        "anchor": {
            "path": "src/calc.py",
            "start_line": 7,
            "end_line": 7,
            "quote": "    return a / b",
        },
    }


def finalize_call(verdict: str = "hold") -> dict[str, Any]:
    return tool_use("finalize_review", {"summary": "One bug in divide().", "verdict": verdict})
