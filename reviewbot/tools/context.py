"""What a tool handler works on: the workspace, the node store and the run's mutable state.

Owns `Workspace`, `Proposal`, `ToolContext`, `Deadline` and `ToolRetry`, the
signal a handler raises to answer the model with an `is_error` result it can act on
(`ToolTimedOut` when the call ran out of time). `ToolRetry` is deliberately not in
`reviewbot.errors`: it never ends a run.
This module must not import the registry or any handler.
"""

from __future__ import annotations

import math
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from reviewbot.coverage.seen import HeadViews
from reviewbot.errors import RepositoryError
from reviewbot.modes.profile import Role
from reviewbot.results.plan import FixPlan, SplitProposal
from reviewbot.sources.diff_index import DiffIndex
from reviewbot.tools.store import NodeStore
from reviewbot.tools.toolbox import Untrusted
from reviewbot.verdict.lattice import Verdict

if TYPE_CHECKING:
    from reviewbot.tools.ask_user import Operator

_SHA = re.compile(r"^[0-9a-f]{7,64}$")


class ToolRetry(Exception):  # a signal to the model, named as a verb (not an error)
    """Raised by a handler: the message goes back to the model as an `is_error` result.

    `data` is PR text the message refers to (the lines an anchor really points at),
    shown fenced after it like a result's data.
    """

    def __init__(self, message: str, *, data: Untrusted | None = None) -> None:
        super().__init__(message)
        self.data = data


class ToolTimedOut(ToolRetry):
    """The call reached its deadline: the message says what was done and how to ask for less."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Deadline:
    """When the current tool call must stop. Python cannot interrupt a running tool, so the
    bound is kept by the tools: every loop that can run long checks it, and what runs
    inside a step is bounded too (RE2 is linear, a git command is killed at the deadline)."""

    at: float
    seconds: float  # the limit the call was given, for messages
    clock: Callable[[], float] = time.monotonic

    @classmethod
    def after(cls, seconds: float, clock: Callable[[], float] = time.monotonic) -> Deadline:
        return cls(at=clock() + seconds, seconds=seconds, clock=clock)

    @classmethod
    def never(cls) -> Deadline:
        return cls(at=math.inf, seconds=math.inf)

    def remaining(self) -> float:
        return self.at - self.clock()

    @property
    def expired(self) -> bool:
        return self.clock() >= self.at

    def check(self, tool: str, done: str, hint: str, data: Untrusted | None = None) -> None:
        """Raise `ToolTimedOut` once the deadline has passed; `data`: what was found so far."""
        if self.expired:
            raise ToolTimedOut(
                f"{tool} stopped at its time limit ({self.seconds:.3g} s) after {done}; {hint}",
                data=data,
            )


@dataclass(frozen=True, slots=True, kw_only=True)
class Workspace:
    """The PR head as the read tools see it: a checkout, its commit and the diff."""

    checkout: Path
    head_sha: str
    diff: DiffIndex

    def __post_init__(self) -> None:
        if not _SHA.match(self.head_sha):
            raise ValueError(f"head_sha must be a lower-case hex commit id (got {self.head_sha!r})")


@dataclass(frozen=True, slots=True, kw_only=True)
class Proposal:
    """What `finalize_review` proposed; folded with the axes, it can only make things stricter."""

    summary: str
    verdict: Verdict


@dataclass(slots=True, kw_only=True)
class ToolContext:
    """One agent's run state. Mutable on purpose: reading a file marks it seen."""

    agent: str
    role: Role
    workspace: Workspace
    store: NodeStore
    operator: Operator
    seen: set[str]
    max_output_chars: int
    # The nodes this agent was given to judge (the verifier's); judging the last ends its run.
    targets: frozenset[str] = frozenset()
    root: Path = field(init=False)
    proposal: Proposal | None = None
    plan: FixPlan | None = None  # what `submit_plan` delivered (plan mode)
    split: SplitProposal | None = None  # what `propose_orchestration` delivered
    views: HeadViews = field(default_factory=HeadViews)  # head lines shown in full (coverage)
    deadline: Deadline = field(default_factory=Deadline.never)  # set for each call

    def __post_init__(self) -> None:
        # Resolved once, so every containment check compares against the same real path.
        try:
            self.root = self.workspace.checkout.resolve(strict=True)
        except OSError as exc:
            raise RepositoryError(f"the checkout {self.workspace.checkout} does not exist") from exc
        if not self.root.is_dir():
            raise RepositoryError(f"the checkout {self.workspace.checkout} is not a directory")
