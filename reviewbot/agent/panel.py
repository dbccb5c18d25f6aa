"""The review panel: reviewers, then a verifier, orchestrated in plain code: the agent that raised a finding never confirms it.

Owns the order of the agents, what each is given, and how each reviewer's run
becomes its axis. There is no coordinator agent: this module decides who runs,
and it reads results from the node store, never from what an agent says.

    pack the PR once ──▶ the reviewers (config.all_reviewers) at the same time, at most
                         `[budget] max_parallel_agents` at once: each its own session,
                         loop and NodeStore, the packed files counted as seen (what
                         their read tools show them becomes the coverage). The first
                         one's first request goes alone (it writes the cached prefix
                         the others read); the others start once it is answered, or at
                         once when they use another model (another cache).
                    ──▶ their nodes merged in configured order, each reviewer's in its own
                         order: a finding a later reviewer raised too becomes one node
                         raised by both (`also_raised`), so ids, order and text never
                         depend on which agent finished first
                    ──▶ the verifier: a separate agent with a skeptical brief and the
                         confirm/dispute verbs, given the open nodes of the configured
                         priorities, with the earlier ones carried to this head that no
                         verifier or person judged (`recheck`; skipped when there are none)
                    ──▶ human decisions (`carry`), then one axis per reviewer, from the
                         nodes IT raised (first or again) after verification

Every agent — reviewers, focused reviewers, the verifier — is sent the same tools,
system prompt and PR context block, so the agents on one model share one cached
prefix; what is the agent's own (its role's brief, a reviewer's focus, the nodes the
verifier is given) follows the context as a separate block. Which agent may judge
which node is the lifecycle's rule, not the surface's (an author never confirms its
own node).
A reviewer sees only its own nodes while it runs (a peer's confirmation comes from the
verifier or a person). The agents share one `Ledger`: the token and cost budgets are
totals over all of them, reserved before each request. A rejected key
(CREDENTIALS_REFUSED) halts it, which stops every other agent before its next request;
any other model error, a 403 for one model included, stops only the agent it happened to.

Coverage counts the packed patches only when some reviewer's first request was
answered: with no client, a refused key or an API that never answered, nothing was
seen (`coverage.unseen.Unreached`), whatever was packed.

A reviewer's axis is `not_run` when there is no model client (no credentials) or
its loop stopped on an error, a budget, the timeout or a refusal; otherwise it is
`axis_outcome` over its nodes — a reviewer that ended normally without nodes or
without `finalize_review` passes (review mode requires no output verb: a clean PR has no nodes).
The verifier has an axis only when findings it was given are left unjudged, whatever
stopped it (an API error, a budget, the timeout, or a normal end without judging them):
`verifier`, `not_run`, gated when a gated reviewer raised one of them — the
confirmations it would have given are missing evidence, so the review holds instead of
passing without them (verdict/verified.py; the summary records them for the next run).
Turns are budgeted per agent; tokens, cost and wall time for the whole panel.
This module must not publish, fold the final verdict or import `anthropic`.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial

from reviewbot.agent.context import PackedContext, pack_context
from reviewbot.agent.crew import run_all
from reviewbot.agent.learned import with_learnings
from reviewbot.agent.ledger import Ledger
from reviewbot.agent.loop import Limits, ToolLoop
from reviewbot.agent.messages import ModelClient
from reviewbot.agent.progress import Progress
from reviewbot.agent.prompt import focus_text, guidelines_text, role_text, system_prompt
from reviewbot.config.file import ReviewConfig, ReviewerConfig
from reviewbot.coverage.model import Coverage
from reviewbot.coverage.seen import HeadViews, merged
from reviewbot.coverage.unseen import Unreached, assess
from reviewbot.errors import LifecycleError
from reviewbot.modes import Mode, Role
from reviewbot.nodes import also_raised
from reviewbot.nodes.boundary import Discarded
from reviewbot.nodes.model import ReviewNode, Status
from reviewbot.redact import Redactor
from reviewbot.render import render
from reviewbot.results.report import AgentReport
from reviewbot.results.run import StopReason, Usage
from reviewbot.scope.review_scope import Carry
from reviewbot.sources.snapshot import PRSnapshot
from reviewbot.text import hygiene
from reviewbot.tools.ask_user import Operator
from reviewbot.tools.context import Workspace
from reviewbot.tools.session import ReviewSession
from reviewbot.tools.store import NodeStore
from reviewbot.verdict.axes import VERIFIER_AXIS, AxisResult, Outcome
from reviewbot.verdict.fold import axis_outcome, findings_detail
from reviewbot.verdict.lattice import Verdict
from reviewbot.verdict.verified import unverified, unverified_axis

NO_CREDENTIALS = "ANTHROPIC_API_KEY is not set"
_SELF_EXPLAINED = frozenset(
    {StopReason.NO_CREDENTIALS, StopReason.CREDENTIALS_REFUSED, StopReason.ERROR}
)


@dataclass(frozen=True, slots=True, kw_only=True)
class PanelOutcome:
    nodes: tuple[ReviewNode, ...]
    discarded: tuple[Discarded, ...]
    # One per reviewer, in config order; then the verifier's when it left findings unjudged.
    axes: tuple[AxisResult, ...]
    given: frozenset[str]  # the fingerprints of the findings the verifier was given
    agents: tuple[AgentReport, ...]  # every agent run, the verifier last
    proposals: tuple[Verdict, ...]  # the verdicts proposed with finalize_review
    usage: Usage
    coverage: Coverage
    packed_context_tokens: int

    @property
    def proposed(self) -> Verdict | None:
        """The strictest proposal, for `reviewbot.verdict.finalize`; None when nobody finalized."""
        return max(self.proposals, default=None)


def run_panel(
    snapshot: PRSnapshot,
    config: ReviewConfig,
    *,
    client: ModelClient | None,
    operator: Operator,
    redactor: Redactor,
    progress: Progress,
    excluded: Callable[[str], bool],
    clock: Callable[[], float] = time.monotonic,
    carry: Carry | None = None,
    packed: PackedContext | None = None,
    recheck: Sequence[ReviewNode] = (),
) -> PanelOutcome:
    """Run every reviewer, then the verifier; never raises for a model or tool failure.

    `carry` applies what people and earlier runs decided (human `/confirm`, `/dismiss`)
    to the nodes through the lifecycle BEFORE the axes are judged from them. `packed`:
    a context packed by the caller (what the review's scope shows) instead of the PR's.
    `recheck`: earlier findings carried to this head that no verifier or person judged:
    the verifier is given them with this run's own.
    """
    limits = Limits.of(config.budget, started=clock())
    packed = packed or pack_context(
        snapshot,
        budget_tokens=config.budget.context_tokens,
        excluded=excluded,
        redactor=redactor,
    )
    packed = with_learnings(packed, snapshot, redactor)  # after the PR: agent/learned.py
    panel = _Panel(
        snapshot=snapshot,
        config=config,
        client=client,
        operator=operator,
        redactor=redactor,
        progress=progress,
        clock=clock,
        limits=limits,
        packed=packed,
    )
    return panel.run(carry or tuple, recheck)


class _Panel:
    def __init__(
        self,
        *,
        snapshot: PRSnapshot,
        config: ReviewConfig,
        client: ModelClient | None,
        operator: Operator,
        redactor: Redactor,
        progress: Progress,
        clock: Callable[[], float],
        limits: Limits,
        packed: PackedContext,
    ) -> None:
        self.config = config
        self.client = client
        self.operator = operator
        self.redactor = redactor
        self.progress = progress
        self.clock = clock
        self.limits = limits
        self.packed = packed
        self.store = NodeStore()
        self.workspace = Workspace(
            checkout=snapshot.checkout, head_sha=snapshot.head_sha, diff=snapshot.diff
        )
        self.ledger = Ledger(limits.totals, clock=clock)
        self.targets: frozenset[str] = frozenset()  # the fingerprints the verifier was given
        # Rendered once: every agent's first message opens with these same bytes.
        self.guidelines = guidelines_text(
            snapshot.guidelines, base_ref=snapshot.base_ref, redactor=redactor
        )

    def run(self, carry: Carry, recheck: Sequence[ReviewNode]) -> PanelOutcome:
        reviewers = self._reviewers()
        for (
            node
        ) in recheck:  # in the store, so the verifier may judge them; `carry` keeps them once
            if self.store.by_fingerprint(node.fingerprint) is None:
                self.store.add(node)
        verifier = self._verify()
        runs = (*reviewers, verifier)
        nodes = tuple(carry(tuple(self.store.all())))
        axes = tuple(
            self._axis(reviewer, run.report, nodes)
            for reviewer, run in zip(self.config.all_reviewers, reviewers, strict=True)
        )
        unverified = self._unverified(verifier.report, nodes)
        if unverified is not None:
            axes = (*axes, unverified)
        usage = Usage()
        for run in runs:  # in configured order: the same float sum whoever finished first
            usage = usage + run.report.usage
        return PanelOutcome(
            nodes=nodes,
            discarded=tuple(self.store.discarded),
            axes=axes,
            given=self.targets,
            agents=tuple(run.report for run in runs),
            proposals=tuple(run.proposal for run in runs if run.proposal is not None),
            usage=usage,
            coverage=assess(
                self.packed,
                self.workspace.diff,
                merged([run.views for run in reviewers]),
                context_tokens=self.config.budget.context_tokens,
                unreached=_unreached([run.report for run in reviewers]),
            ),
            packed_context_tokens=self.packed.tokens,
        )

    # -- agents -------------------------------------------------------------------------

    def _reviewers(self) -> list[_AgentRun]:
        """Every reviewer, at the same time; their nodes merged into `self.store` in config order."""
        reviewers = self.config.all_reviewers
        stores = [NodeStore() for _ in reviewers]
        first_answer = threading.Event()
        lead = (reviewers[0].model or self.config.model) if reviewers else None
        tasks = [
            partial(
                self._review,
                reviewer,
                stores[index],
                opens=first_answer if index == 0 else None,
                # Another model has another cache: nothing to wait for.
                after=first_answer
                if index > 0 and (reviewer.model or self.config.model) == lead
                else None,
            )
            for index, reviewer in enumerate(reviewers)
        ]
        runs = run_all(
            tasks,
            limit=self.config.budget.max_parallel_agents,
            interrupted=lambda: self.ledger.halt(StopReason.ERROR, "interrupted"),
        )
        for reviewer, store in zip(reviewers, stores, strict=True):
            _merge(self.store, store, reviewer=reviewer.name)
        return runs

    def _review(
        self,
        reviewer: ReviewerConfig,
        store: NodeStore,
        *,
        opens: threading.Event | None,
        after: threading.Event | None,
    ) -> _AgentRun:
        model = reviewer.model or self.config.model
        if after is not None:  # the first reviewer's first answer wrote the shared prefix
            after.wait(timeout=max(self.limits.deadline - self.clock(), 0.0))
        try:
            return self._run_agent(
                name=reviewer.name,
                role=Role.REVIEWER,
                model=model,
                brief=reviewer.brief,  # the focus from the base branch's config; the role brief is the prompt's
                context=self.packed.text,
                store=store,
                answered=opens.set if opens is not None else None,
            )
        finally:
            if opens is not None:  # also when the first never got an answer: nobody waits forever
                opens.set()

    def _verify(self) -> _AgentRun:
        settings = self.config.verifier
        model = settings.model or self.config.model
        targets = [
            n
            for n in self.store.all()
            if n.priority in settings.verifies and n.status is Status.OPEN
        ]
        if not settings.enabled or (self.client is not None and not targets):
            why = "disabled in .reviewbot.toml" if not settings.enabled else "no finding to verify"
            return _AgentRun(
                report=_not_started(VERIFIER_AXIS, Role.VERIFIER, model, StopReason.SKIPPED, why)
            )
        nodes = render(
            "prompts/verifier_nodes.j2", nodes=[shown_node(n, self.redactor) for n in targets]
        )
        self.targets = frozenset(n.fingerprint for n in targets)
        return self._run_agent(
            name=VERIFIER_AXIS,
            role=Role.VERIFIER,
            model=model,
            brief="",
            context=self.packed.text,
            after=nodes,
            targets=tuple(n.id for n in targets),
            store=self.store,
        )

    def _run_agent(
        self,
        *,
        name: str,
        role: Role,
        model: str,
        brief: str,
        context: str,
        store: NodeStore,
        after: str = "",
        targets: Sequence[str] = (),
        answered: Callable[[], None] | None = None,
    ) -> _AgentRun:
        if self.client is None:
            return _AgentRun(
                report=_not_started(name, role, model, StopReason.NO_CREDENTIALS, NO_CREDENTIALS)
            )
        halted = self.ledger.halted
        if halted is not None and halted.reason is StopReason.CREDENTIALS_REFUSED:
            return _AgentRun(report=_not_started(name, role, model, halted.reason, halted.error))
        session = ReviewSession(
            mode=Mode.REVIEW,
            role=role,
            agent=name,
            workspace=self.workspace,
            store=store,
            operator=self.operator,
            seen=self.packed.in_context,
            targets=targets,  # the verifier's run ends once it judged each of them
        )
        # After the shared prefix: what is this agent's own (role, focus, nodes to verify).
        parts = (role_text(session.surface), focus_text(brief), after)
        own = "\n\n".join(part.strip() for part in parts if part.strip())
        result = self._loop(name, model, self.client, session, answered).run(
            system=system_prompt(session), context=context, brief=own, guidelines=self.guidelines
        )
        if result.stop_reason is StopReason.CREDENTIALS_REFUSED:
            self.ledger.halt(result.stop_reason, result.error or "the key was rejected")
        proposal = session.proposal
        report = AgentReport(
            name=name,
            role=role,
            model=model,
            stop_reason=result.stop_reason,
            turns=result.turns,
            error=result.error,
            exit_code=result.exit_code,
            usage=result.usage,
            # Model text bound for the JSON report and the summary comment: secrets masked here.
            summary=self.redactor(proposal.summary) if proposal is not None else None,
            notes=result.notes,
        )
        return _AgentRun(
            report=report,
            proposal=proposal.verdict if proposal is not None else None,
            views=session.views,
        )

    def _loop(
        self,
        name: str,
        model: str,
        client: ModelClient,
        session: ReviewSession,
        answered: Callable[[], None] | None,
    ) -> ToolLoop:
        return ToolLoop(
            agent=name,
            model=model,
            client=client,
            toolbox=session,
            limits=self.limits,
            redactor=self.redactor,
            progress=self.progress,
            clock=self.clock,
            ledger=self.ledger,
            answered=answered,
        )

    # -- axes ---------------------------------------------------------------------------

    def _unverified(self, report: AgentReport, nodes: Sequence[ReviewNode]) -> AxisResult | None:
        """The verifier's axis, only when findings it was given are left unjudged.

        Its confirmation is the evidence the rules for confirmed findings wait for: a verifier
        the API, a budget or the timeout stopped, or one that ended without judging them,
        leaves that evidence missing, so the review may not pass as if it had judged them. A
        finding a person decided on meanwhile (the carry) is judged (verdict/verified.py).
        """
        left = unverified(nodes, wanted=self.targets, priorities=self.config.verifier.verifies)
        why = (
            "the verifier ended without judging them"
            if report.stop_reason.completed
            else _stopped(report)
        )
        return unverified_axis(left, gated=self.config.gated_reviewers, why=why)

    def _axis(
        self, reviewer: ReviewerConfig, report: AgentReport, nodes: Sequence[ReviewNode]
    ) -> AxisResult:
        if not report.stop_reason.completed:
            return AxisResult(
                name=reviewer.name,
                gated=reviewer.gated,
                outcome=Outcome.NOT_RUN,
                detail=_stopped(report),
            )
        # Every node this reviewer raised counts, also one another agent recorded first.
        own = [n for n in nodes if reviewer.name in n.raisers]
        outcome = axis_outcome(own, self.config.policy.node_policy())
        return AxisResult(
            name=reviewer.name, gated=reviewer.gated, outcome=outcome, detail=findings_detail(own)
        )


def shown_node(node: ReviewNode, redactor: Redactor) -> dict[str, object]:
    """A node as `prompts/verifier_nodes.j2` shows it to an agent: its text fenced as untrusted."""
    anchor = node.anchor
    # The path is the PR's (a file name can say anything): a quoted name, never bare.
    where = (
        f"{hygiene.quoted(anchor.path, redactor)}, lines {anchor.start_line}–{anchor.end_line}"
        if anchor
        else ""
    )
    if anchor is not None and anchor.side == "LEFT":  # not in the head: the patch shows them
        where += " (lines the PR deletes, base numbering; see the patch)"
    text = f"{node.title}\n\n{node.body}"
    if anchor is not None:
        text += f"\n\nQuoted lines:\n{anchor.quote}"
    return {
        "id": node.id,
        "priority": node.priority.value,
        "kind": node.kind.value,
        "author": ", ".join(node.raisers),
        "confidence": f"{node.confidence:g}",
        "where": where,
        "text": hygiene.wrap(text, kind="review_node", redactor=redactor, label=node.id),
    }


@dataclass(frozen=True, slots=True, kw_only=True)
class _AgentRun:
    """What one agent's run left: its report, its proposal, what its read tools showed it."""

    report: AgentReport
    proposal: Verdict | None = None
    views: HeadViews = field(default_factory=HeadViews)


def _merge(into: NodeStore, store: NodeStore, *, reviewer: str) -> None:
    """`reviewer`'s nodes and discards, in its own order, into the panel's store.

    A finding an earlier reviewer (in config order) recorded too is one node raised by
    both, as when the second records it into a shared store; never lost, never twice.
    """
    for node in store.all():
        existing = into.by_fingerprint(node.fingerprint)
        if existing is None:
            into.add(node)
            continue
        try:
            into.replace(also_raised(existing, reviewer, node))
        except LifecycleError:  # the earlier one is closed: keep this one as it is
            into.add(node)
    for discarded in store.discarded:
        into.discard(discarded)


_FAILED = frozenset({StopReason.ERROR, StopReason.CREDENTIALS_REFUSED, StopReason.TIMEOUT})


def _unreached(reviewers: Sequence[AgentReport]) -> Unreached | None:
    """Why no reviewer's model got the PR context; None when a first request was answered."""
    if any(report.turns > 0 for report in reviewers):
        return None
    first = reviewers[0] if reviewers else None
    stop = first.stop_reason if first is not None else StopReason.SKIPPED
    detail = (first.error if first is not None else None) or stop.value
    if stop is StopReason.NO_CREDENTIALS:
        return Unreached(
            reason=f"no model ran: {detail}",
            remedy="set `ANTHROPIC_API_KEY` and review again",
        )
    if stop is StopReason.CREDENTIALS_REFUSED:
        return Unreached(
            reason=f"the request to the model failed: {detail}",
            remedy="give `ANTHROPIC_API_KEY` a valid key and review again",
        )
    if stop in _FAILED:
        return Unreached(
            reason=f"the request to the model failed: {detail}",
            remedy="review again once the Messages API answers",
        )
    return Unreached(
        reason=f"no request was sent to the model ({stop.value}: {detail})",
        remedy="raise the `[budget]` limit it names in the base branch's `.reviewbot.toml`",
    )


def _not_started(name: str, role: Role, model: str, reason: StopReason, why: str) -> AgentReport:
    # A skip is not an error: its reason is the stop reason itself.
    error = None if reason is StopReason.SKIPPED else why
    return AgentReport(name=name, role=role, model=model, stop_reason=reason, error=error)


def _stopped(report: AgentReport) -> str:
    """Why an agent's run stopped short, as an axis' detail."""
    detail = report.error or report.stop_reason.value
    if report.stop_reason not in _SELF_EXPLAINED:
        detail = f"{report.stop_reason.value}: {detail}"
    return detail
