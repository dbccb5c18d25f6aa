"""What a tool handler works on: the workspace, the node store and the run's mutable state.

Owns `Workspace`, `Proposal`, `Plan`, `ToolContext` and `ToolRetry`, the signal a
handler raises to answer the model with an `is_error` result it can act on.
`ToolRetry` is deliberately not in `reviewbot.errors`: it never ends a run.
This module must not import the registry or any handler.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from reviewbot.agent.toolbox import Untrusted
from reviewbot.errors import RepositoryError
from reviewbot.modes.profile import Role
from reviewbot.sources.diff_index import DiffIndex
from reviewbot.tools.store import NodeStore
from reviewbot.verdict.lattice import Verdict

if TYPE_CHECKING:
    from reviewbot.tools.ask_user import Operator

_SHA = re.compile(r"^[0-9a-f]{7,64}$")


class ToolRetry(Exception):  # a signal to the model, named as a verb (STYLE 9)
    """Raised by a handler: the message goes back to the model as an `is_error` result.

    `data` is PR text the message refers to (the lines an anchor really points at),
    shown fenced after it like a result's data.
    """

    def __init__(self, message: str, *, data: Untrusted | None = None) -> None:
        super().__init__(message)
        self.data = data


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


@dataclass(frozen=True, slots=True, kw_only=True)
class Plan:
    """What `submit_plan` delivered (plan mode's required verb)."""

    summary: str
    steps: tuple[str, ...]


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
    root: Path = field(init=False)
    proposal: Proposal | None = None
    plan: Plan | None = None

    def __post_init__(self) -> None:
        # Resolved once, so every containment check compares against the same real path.
        try:
            self.root = self.workspace.checkout.resolve(strict=True)
        except OSError as exc:
            raise RepositoryError(f"the checkout {self.workspace.checkout} does not exist") from exc
        if not self.root.is_dir():
            raise RepositoryError(f"the checkout {self.workspace.checkout} is not a directory")
