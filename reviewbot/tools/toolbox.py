"""The seam between the loop and the tools: what the loop may ask of a toolbox.

The loop knows nothing about modes, guards or review nodes. It offers the
model `tool_params()` and hands every `tool_use` block to `call()`, which runs
the guard and the tool: a refusal or a tool signal comes back as a `ToolResult`
with `is_error=True`, which the model reads and can act on. A tool that crashes
raises; the loop's tool-call boundary turns that into an `is_error` result too.

A result's `content` is harness text: any PR-controlled name in it is a
`hygiene.quoted` string. Text from the PR or the repository itself (file lines,
matches, commit messages, blame) is its `data`, which the loop shows fenced as
untrusted after the content; a tool never writes the fence itself, and the loop
defuses any delimiter in `content`, so the only fences are the loop's.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol


@dataclass(frozen=True, slots=True, kw_only=True)
class Untrusted:
    """A block of PR or repository text a tool shows; `kind` and `label` name it in the fence."""

    text: str
    kind: str
    label: str = ""


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolResult:
    content: str
    data: Untrusted | None = None  # shown after `content`, inside an <untrusted_data> block
    is_error: bool = False
    ends_run: bool = False  # e.g. finalize_review: the loop stops after this turn's results


class Toolbox(Protocol):
    def tool_params(self) -> list[dict[str, Any]]:
        """The Messages API `tools` list (name, description, input_schema), byte-stable across turns."""
        ...

    def call(self, name: str, tool_input: object, *, timeout: float) -> ToolResult:
        """Guard, then run, one tool call within `timeout` seconds; raises only when a tool crashes.

        A call that reaches `timeout` answers with an `is_error` result saying so."""
        ...

    def delivered(self) -> None:
        """The model answered a request that carried every result returned so far.

        What a result showed counts as seen by the agent only from here on: the results
        of a turn that ends the run (finalize, a budget or time stop, an error) never
        reach the model, so they are never delivered."""
        ...
