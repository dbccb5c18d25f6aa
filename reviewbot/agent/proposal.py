"""One read-only agent that proposes, not reviews: `/plan` (plan mode) and `/split` (orchestrate).

Each run is one agent on its mode's profile, over the PR head as the review panel sees it
(the same packed context), with what it is to propose from as its brief: the head's
open and confirmed findings for a fix plan, the changed files for a split. Its mode's
required verb (`submit_plan`, `propose_orchestration`) is what it delivers; a run that
ends its turn without calling it is reminded once (the loop's `reminder`), and a run
that still ends without it delivered nothing (`ProposalRun.delivered` is False).

It decides nothing about the PR: no finding is added or judged, no verdict is moved
(the surface has no review verb). This module must not publish or import `anthropic`.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from reviewbot.agent.context import pack_context
from reviewbot.agent.loop import Limits, ToolLoop
from reviewbot.agent.messages import ModelClient
from reviewbot.agent.panel import NO_CREDENTIALS, shown_node
from reviewbot.agent.progress import Progress
from reviewbot.agent.prompt import system_prompt
from reviewbot.config.file import ReviewConfig, is_excluded
from reviewbot.modes import Mode, Role
from reviewbot.modes.profile import PROFILES
from reviewbot.nodes.model import ReviewNode
from reviewbot.redact import Redactor
from reviewbot.render import render
from reviewbot.results.plan import FixPlan, SplitProposal
from reviewbot.results.report import AgentReport
from reviewbot.results.run import StopReason, Usage
from reviewbot.sources.snapshot import PRSnapshot
from reviewbot.text import hygiene
from reviewbot.tools.ask_user import Operator
from reviewbot.tools.context import Workspace
from reviewbot.tools.session import ReviewSession
from reviewbot.tools.store import NodeStore

AGENT = {Mode.PLAN: "planner", Mode.ORCHESTRATE: "splitter"}
REMINDER = (
    "Your run counts as delivered only once `{verb}` has been called. Call it now with "
    "your proposal; if you cannot, say why in one sentence."
)


@dataclass(frozen=True, slots=True, kw_only=True)
class ProposalRun:
    """What the agent delivered (one of `plan`, `split`, or neither) and its run's report."""

    agent: AgentReport
    plan: FixPlan | None = None
    split: SplitProposal | None = None

    @property
    def delivered(self) -> bool:
        return self.plan is not None or self.split is not None

    @property
    def usage(self) -> Usage:
        return self.agent.usage


@dataclass(frozen=True, slots=True, kw_only=True)
class Proposer:
    """What the agent runs with; `client` None: no credentials, no request is made."""

    config: ReviewConfig
    client: ModelClient | None
    operator: Operator
    redactor: Redactor
    progress: Progress
    clock: Callable[[], float] = time.monotonic

    def plan(self, snapshot: PRSnapshot, findings: Sequence[ReviewNode]) -> ProposalRun:
        """A fix plan for `findings` (the head's open and confirmed ones; there is at least one)."""
        store = NodeStore()
        for node in findings:
            store.add(node)  # the ids `submit_plan` accepts in `fixes`
        brief = render(
            "prompts/plan_findings.j2", nodes=[shown_node(n, self.redactor) for n in findings]
        )
        return self._run(Mode.PLAN, snapshot, store, brief)

    def split(self, snapshot: PRSnapshot) -> ProposalRun:
        """A proposed stack of smaller PRs covering every changed file of `snapshot`."""
        files = [hygiene.quoted(path, self.redactor) for path in snapshot.diff.files]
        brief = render("prompts/split_files.j2", files=files)
        return self._run(Mode.ORCHESTRATE, snapshot, NodeStore(), brief)

    def _run(self, mode: Mode, snapshot: PRSnapshot, store: NodeStore, brief: str) -> ProposalRun:
        name, model = AGENT[mode], self.config.model
        if self.client is None:
            return ProposalRun(
                agent=_report(name, model, StopReason.NO_CREDENTIALS, NO_CREDENTIALS)
            )
        packed = pack_context(
            snapshot,
            budget_tokens=self.config.budget.context_tokens,
            excluded=lambda path: is_excluded(path, self.config.paths),
            redactor=self.redactor,
        )
        session = ReviewSession(
            mode=mode,
            role=Role.REVIEWER,
            agent=name,
            workspace=Workspace(
                checkout=snapshot.checkout, head_sha=snapshot.head_sha, diff=snapshot.diff
            ),
            store=store,
            operator=self.operator,
            seen=packed.in_context,
        )
        verb = PROFILES[mode].required_verbs[0]
        delivered = (lambda: session.plan) if mode is Mode.PLAN else (lambda: session.split)
        loop = ToolLoop(
            agent=name,
            model=model,
            client=self.client,
            toolbox=session,
            limits=Limits.of(self.config.budget, started=self.clock()),
            redactor=self.redactor,
            progress=self.progress,
            clock=self.clock,
            reminder=lambda: None if delivered() is not None else REMINDER.format(verb=verb),
        )
        result = loop.run(system=system_prompt(session), context=packed.text, brief=brief)
        report = AgentReport(
            name=name,
            role=Role.REVIEWER,
            model=model,
            stop_reason=result.stop_reason,
            turns=result.turns,
            error=result.error,
            exit_code=result.exit_code,
            usage=result.usage,
            notes=result.notes,
        )
        return ProposalRun(agent=report, plan=session.plan, split=session.split)


def _report(name: str, model: str, reason: StopReason, error: str) -> AgentReport:
    return AgentReport(
        name=name, role=Role.REVIEWER, model=model, stop_reason=reason, turns=0, error=error
    )
