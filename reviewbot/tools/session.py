"""ReviewSession: one agent's toolbox — its surface, its guard and its run state.

It satisfies `reviewbot.tools.toolbox.Toolbox`: the loop offers the model
`tool_params()` and hands every call to `call()`, which records the guard's
decision and runs the tool only on `Allow`. Tool signals (`ToolRetry`, refusals)
become `is_error` results here; anything else a tool raises is a crash, which
propagates to the one tool-call boundary in the loop (one of the two broad excepts), where it becomes
an `is_error` result too and never ends the run.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import replace
from typing import Any

from reviewbot.coverage.seen import HeadViews
from reviewbot.modes.mode import Mode
from reviewbot.modes.profile import PROFILES, CapabilityProfile, Role
from reviewbot.results.plan import FixPlan, SplitProposal
from reviewbot.text.truncate import head_tail_chars
from reviewbot.tools.ask_user import Operator
from reviewbot.tools.context import Deadline, Proposal, ToolContext, ToolRetry, Workspace
from reviewbot.tools.guard import Allow, GuardRecord, Halt, Reject, check
from reviewbot.tools.paths import normalise
from reviewbot.tools.registry import ToolSpec
from reviewbot.tools.store import NodeStore
from reviewbot.tools.surface import Surface, compute_surface
from reviewbot.tools.toolbox import ToolResult

__all__ = ["NodeStore", "Proposal", "ReviewSession", "Workspace"]

_MIN_DATA_CHARS = 1_000


class ReviewSession:
    def __init__(
        self,
        *,
        mode: Mode = Mode.REVIEW,
        role: Role,
        agent: str,
        workspace: Workspace,
        store: NodeStore,
        operator: Operator,
        seen: Iterable[str] = (),
        targets: Iterable[str] = (),
        max_output_chars: int = 20_000,
    ) -> None:
        self.profile: CapabilityProfile = PROFILES[mode]
        self.surface: Surface = compute_surface(self.profile, role)
        self._ctx = ToolContext(
            agent=agent,
            role=role,
            workspace=workspace,
            store=store,
            operator=operator,
            seen={normalise(path) for path in seen},
            targets=frozenset(targets),
            max_output_chars=max_output_chars,
        )
        self._transcript: list[GuardRecord] = []
        # What the calls since the last delivery showed: the model has not got it yet.
        self._pending = HeadViews()

    @property
    def agent(self) -> str:
        return self._ctx.agent

    @property
    def role(self) -> Role:
        return self._ctx.role

    def tool_params(self) -> list[dict[str, Any]]:
        # Fresh dicts every call: a caller adding `cache_control` must not change the next
        # turn's bytes. Generated from the surface alone, so they are byte-stable.
        return [tool.param() for tool in self.surface]

    def call(self, name: str, tool_input: object, *, timeout: float = math.inf) -> ToolResult:
        """`timeout`: the seconds this call may take; the tools keep it (`Deadline`)."""
        self._ctx.deadline = Deadline.after(timeout)
        decision = check(self.profile, self.surface, name, tool_input)
        self._transcript.append(GuardRecord(name=name, tool_input=tool_input, decision=decision))
        match decision:
            case Reject(message=message):
                return ToolResult(content=message, is_error=True)
            case Halt(reason=reason):
                return ToolResult(
                    content=f"the run is halted: {reason}", is_error=True, ends_run=True
                )
            case Allow(tool=tool, args=args):
                return self._run(tool, args)

    def _run(self, tool: ToolSpec, args: object) -> ToolResult:
        # The call records what it shows into a fresh HeadViews, kept only if the model gets
        # the output uncut (a cut here would hide lines the tool counted as shown), and
        # pending until the loop says the model got it (`delivered`).
        views, self._ctx.views = self._ctx.views, HeadViews()
        try:
            result = tool.handler(self._ctx, args)
        except ToolRetry as signal:
            return self._bounded(ToolResult(content=str(signal), data=signal.data, is_error=True))
        finally:
            shown, self._ctx.views = self._ctx.views, views
        bounded = self._bounded(result)
        if bounded == result:
            self._pending.update(shown)
        return bounded

    def delivered(self) -> None:
        """The model got the results so far: what they showed now counts as seen (coverage)."""
        self._ctx.views.update(self._pending)
        self._pending = HeadViews()

    def _bounded(self, result: ToolResult) -> ToolResult:
        """`result` within the output budget, which its content and data share."""
        hint = "ask for less (a line range, a narrower glob or regex)"
        content = head_tail_chars(result.content, self._ctx.max_output_chars, hint)
        data = result.data
        if data is not None:
            room = max(self._ctx.max_output_chars - len(content), _MIN_DATA_CHARS)
            data = replace(data, text=head_tail_chars(data.text, room, hint))
        return replace(result, content=content, data=data)

    @property
    def proposal(self) -> Proposal | None:
        return self._ctx.proposal

    @property
    def plan(self) -> FixPlan | None:
        return self._ctx.plan

    @property
    def split(self) -> SplitProposal | None:
        return self._ctx.split

    @property
    def transcript(self) -> list[GuardRecord]:
        return list(self._transcript)

    @property
    def seen(self) -> frozenset[str]:
        return frozenset(self._ctx.seen)

    @property
    def views(self) -> HeadViews:
        """The head lines this agent's read tools showed it in full, delivered (a copy)."""
        copy = HeadViews()
        copy.update(self._ctx.views)
        return copy
