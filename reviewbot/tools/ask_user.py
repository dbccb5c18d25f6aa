"""`ask_user`: the agent's question to a person, pinned in every mode's surface.

An `Operator` answers, or returns None when nobody is there. With no operator
(CI, `--non-interactive`, stdin not a TTY — the caller decides which operator to
pass) the tool fails closed at once with a fixed answer: it never hangs and never
crashes the run. This module must not decide whether a terminal is interactive.
"""

from __future__ import annotations

import threading
from typing import Protocol, TextIO

from pydantic import BaseModel, ConfigDict, Field

from reviewbot.text.hygiene import for_terminal, quoted
from reviewbot.tools.context import ToolContext
from reviewbot.tools.toolbox import ToolResult

NO_OPERATOR = "no operator is connected; decide, and record the open point as a `question` node"
EMPTY_ANSWER = "the operator gave no answer; decide yourself"
MAX_ANSWER = 4_000


class Operator(Protocol):
    def ask(self, question: str) -> str | None:
        """The person's answer, or None when nobody can answer."""
        ...


class NoOperator:
    """Nobody is connected: every question gets None, immediately."""

    def ask(self, question: str) -> str | None:
        return None


class TerminalOperator:
    """A person at a terminal; the streams are injected so tests need no TTY.

    The question is model text: its control characters are shown, never sent to the
    terminal (an `ESC ]52;…` sequence could otherwise write the clipboard).
    """

    def __init__(self, *, input: TextIO, output: TextIO) -> None:
        self._input = input
        self._output = output
        self._one_at_a_time = threading.Lock()  # agents run at the same time; the person does not

    def ask(self, question: str) -> str | None:
        with self._one_at_a_time:
            self._output.write(f"\nThe reviewer asks: {for_terminal(question)}\nYour answer: ")
            self._output.flush()
            line = self._input.readline()
        if not line:
            return None  # end of input: the person has gone, fail closed as in CI
        return line.rstrip("\r\n")


def operator_for(*, input: TextIO, output: TextIO, interactive: bool) -> Operator:
    """A person at the terminal, when there is one and the run may ask; else nobody."""
    if not interactive or not input.isatty():
        return NoOperator()
    return TerminalOperator(input=input, output=output)


class AskUserInput(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    question: str = Field(
        min_length=1,
        max_length=2_000,
        description="One clear question a person can answer in a sentence.",
    )


def ask_user(ctx: ToolContext, args: AskUserInput) -> ToolResult:
    answer = ctx.operator.ask(args.question)
    if answer is None:
        return ToolResult(content=NO_OPERATOR)
    if not answer.strip():
        return ToolResult(content=EMPTY_ANSWER)
    # Quoted: whatever the answer says, it cannot start a line that poses as the harness.
    return ToolResult(content=f"the operator answered: {quoted(answer, limit=MAX_ANSWER)}")
