"""The seam between the loop and the tools: what the loop may ask of a toolbox.

The loop knows nothing about modes, guards or review nodes. It offers the
model `tool_params()` and hands every `tool_use` block to `call()`, which runs
the guard and the tool and never raises: a refusal or a tool error comes back as
a `ToolResult` with `is_error=True`, which the model reads and can act on.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolResult:
    content: str
    is_error: bool = False
    ends_run: bool = False  # e.g. finalize_review: the loop stops after this turn's results


class Toolbox(Protocol):
    def tool_params(self) -> list[dict[str, Any]]:
        """The Messages API `tools` list (name, description, input_schema), byte-stable across turns."""
        ...

    def call(self, name: str, tool_input: object) -> ToolResult:
        """Guard, then run, one tool call. Never raises."""
        ...
