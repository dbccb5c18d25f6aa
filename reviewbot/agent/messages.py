"""The Messages API seam: a `ModelClient` protocol and the small values it exchanges.

The loop, the panel and the tests import this module, never `anthropic`: the one
real implementation lives in `reviewbot/agent/client.py`. A request is the exact
JSON-shaped payload for the Messages API (`system`, `tools`, `messages`), built
by the loop; a response is reduced to what the loop needs (content blocks, stop
reason, usage, request id). This module must not import any third-party library.

Errors: `ModelClient.create` raises only `reviewbot.errors` types (`AuthError` and
its `CredentialsRefusedError`, `ModelAPIError`, `NetworkError`), never a library
exception.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

JSON = dict[str, Any]


@dataclass(frozen=True, slots=True, kw_only=True)
class TextBlock:
    text: str

    def to_param(self) -> JSON:
        return {"type": "text", "text": self.text}


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolUseBlock:
    id: str
    name: str
    input: object  # what the model sent; the toolbox validates it

    def to_param(self) -> JSON:
        return {"type": "tool_use", "id": self.id, "name": self.name, "input": self.input}


@dataclass(frozen=True, slots=True, kw_only=True)
class OtherBlock:
    """A block the loop does not act on (thinking, server tools…), echoed back unchanged."""

    type: str
    raw: JSON = field(default_factory=dict)

    def to_param(self) -> JSON:
        return dict(self.raw)


Block = TextBlock | ToolUseBlock | OtherBlock


@dataclass(frozen=True, slots=True, kw_only=True)
class TokenUsage:
    """The API's own count for one response."""

    input_tokens: int = 0  # uncached input after the last cache breakpoint
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0


@dataclass(frozen=True, slots=True, kw_only=True)
class ModelRequest:
    model: str
    max_tokens: int
    system: tuple[JSON, ...]
    tools: tuple[JSON, ...]
    messages: tuple[JSON, ...]
    # Seconds the whole call may take, retries and their waits included (the run's remaining
    # wall time); None: only the client's own per-attempt ceiling.
    timeout: float | None = None
    tool_choice: JSON | None = None  # e.g. {"type": "tool", "name": …}; None: the API's default


@dataclass(frozen=True, slots=True, kw_only=True)
class ModelResponse:
    content: tuple[Block, ...]
    stop_reason: str | None
    usage: TokenUsage
    model: str = ""
    request_id: str | None = None

    @property
    def tool_uses(self) -> tuple[ToolUseBlock, ...]:
        return tuple(b for b in self.content if isinstance(b, ToolUseBlock))

    @property
    def text(self) -> str:
        return "\n".join(b.text for b in self.content if isinstance(b, TextBlock))


class ModelClient(Protocol):
    def create(self, request: ModelRequest) -> ModelResponse:
        """Send one Messages API request (retrying transient failures); raise a ReviewbotError."""
        ...

    def close(self) -> None:
        """Release the connection pool; the client is not used afterwards."""
        ...
