"""One review, start to verdict: snapshot → agents → boundary → axes → fold → report.

`review_snapshot` runs the agents over a PR snapshot; `refold` re-judges the
nodes already on a PR with fresh CI results and makes no model request. Both end
in `finalize`, so the published verdict is the strictest of the agents'
proposals, every axis and every node — nothing here can loosen it. An earlier
finding in a file this run did not see stands in the new report (`unseen_standing`):
nobody looked, so nothing says it is fixed; one on code that did not change since it was
last seen is carried by the scope (`scope.standing`): silence about it is no fix either. What the agents see, what carries over and
what coverage the run inherits is the review's scope's (`scope.review_scope`): a full
review and an incremental one answer the same questions, and this module never asks
which it is.

Must not: read the environment, build clients or publish (that is `app.py`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from reviewbot import __version__
from reviewbot.agent.messages import ModelClient
from reviewbot.agent.packer import ContextPacker
from reviewbot.agent.panel import PanelOutcome, run_panel
from reviewbot.agent.progress import Progress
from reviewbot.config.file import is_excluded
from reviewbot.coverage.model import Coverage
from reviewbot.coverage.policy import coverage_gap
from reviewbot.memory.prior import PriorState
from reviewbot.nodes.boundary import Discarded
from reviewbot.nodes.model import ReviewNode, Status
from reviewbot.redact import Redactor
from reviewbot.results.learned import LearningsReport
from reviewbot.results.report import (
    AgentReport,
    AxisReport,
    DiscardReport,
    PRInfo,
    Report,
    ReviewRun,
)
from reviewbot.results.run import Usage
from reviewbot.review.learned import Learner
from reviewbot.review.resolution import resolution
from reviewbot.scope.full import FullScope
from reviewbot.scope.review_scope import ReviewScope
from reviewbot.scope.standing import Standing
from reviewbot.sources.forge import AxisSource
from reviewbot.sources.snapshot import PRSnapshot
from reviewbot.tools.ask_user import Operator
from reviewbot.verdict.axes import AxisResult, Outcome
from reviewbot.verdict.fold import axis_outcome, finalize
from reviewbot.verdict.lattice import Verdict
from reviewbot.verdict.policy import NodePolicy
from reviewbot.verdict.verified import unverified, unverified_axis

_STANDING = frozenset({Status.OPEN, Status.CONSENSUS_READY})


@dataclass(frozen=True, slots=True, kw_only=True)
class Agents:
    """What the agents need besides the snapshot; `client` is None without credentials."""

    client: ModelClient | None
    operator: Operator
    redactor: Redactor
    progress: Progress


def review_snapshot(
    snapshot: PRSnapshot,
    *,
    agents: Agents,
    axes: Sequence[AxisSource] = (),
    prior: PriorState | None = None,
    plan: ReviewScope | None = None,
) -> Report:
    """Run the reviewers and the verifier over `snapshot` and fold everything into a report.

    `plan` is the review's scope (`scope.decision.decide_review`: full or incremental); None
    is full (with the earlier findings of `prior`). It says what the agents see, what
    carries over (the earlier findings on unchanged code, whichever kind it is) and what
    coverage the run inherits. `axes` are the axes from outside the agents (the forge's
    CI), folded with the reviewers'.
    """
    config = snapshot.config
    external = tuple(source(config) for source in axes)  # read before the agents run
    plan = plan or _full(snapshot, prior)

    def excluded(path: str) -> bool:
        return is_excluded(path, config.paths)

    packer = ContextPacker(snapshot=snapshot, excluded=excluded, redactor=agents.redactor)
    learner = Learner.of(snapshot, prior)
    earlier = prior.unverified() if prior is not None else frozenset()
    verifies = config.verifier.verifies
    panel = run_panel(
        snapshot,
        config,
        client=agents.client,
        operator=agents.operator,
        redactor=agents.redactor,
        progress=agents.progress,
        excluded=excluded,
        # Human /confirm and /dismiss replies, and earlier peers' confirmations, are peers
        # too: applied before the reviewer axes are judged, so a /dismiss can unblock.
        # Carried-forward findings count for their raisers' axes like this run's own.
        carry=learner.after(plan.carry(prior)),  # learnings last: review/learned.py
        packed=plan.shown(packer),
        recheck=unverified(plan.carried().kept, wanted=earlier, priorities=verifies),
    )
    coverage = plan.coverage(panel.coverage, snapshot.diff)
    nodes, owed = _standing(prior, panel, coverage, head_sha=snapshot.head_sha)
    left = unverified((*nodes, *owed), wanted=panel.given | earlier, priorities=verifies)
    run = plan.recorded(snapshot).model_copy(
        update={"resolve_later": _fingerprints(owed), "unverified": _fingerprints(left)}
    )
    return build_report(
        snapshot,
        proposed=panel.proposed,
        axes=(*panel.axes, *external),
        nodes=(*nodes, *owed),
        discarded=(*panel.discarded, *(prior.discarded if prior else ())),
        agents=panel.agents,
        usage=panel.usage,
        coverage=coverage,
        run=run,
        learnings=learner.report(),
    )


def _standing(
    prior: PriorState | None, panel: PanelOutcome, coverage: Coverage, *, head_sha: str
) -> tuple[tuple[ReviewNode, ...], tuple[ReviewNode, ...]]:
    """The panel's nodes with the earlier ones this run did not see, and those owed."""
    if prior is None:
        return panel.nodes, ()
    nodes = (*panel.nodes, *unseen_standing(prior, panel.nodes, coverage))
    return nodes, owed_standing(prior, nodes, coverage, panel.agents, head_sha=head_sha)


def _full(snapshot: PRSnapshot, prior: PriorState | None) -> FullScope:
    """A full review that carries the earlier findings on unchanged code, like any other."""
    standing = Standing.of(snapshot, prior) if prior is not None else None
    return FullScope.of("no scope was given", config=snapshot.config, standing=standing)


def refold(
    snapshot: PRSnapshot,
    *,
    prior: PriorState,
    axes: Sequence[AxisSource] = (),
) -> Report:
    """Re-judge the nodes already on the PR with fresh CI results: no model request.

    The reviewer axes and the agents' proposal are those the last published summary
    recorded for THIS head. A summary of another head (a push the new head's review has
    not published yet, or that crashed or was cancelled) says nothing about this one,
    and neither does no summary: each reviewer axis is then `not_run` — absence of
    evidence never turns a gate green. Nodes found on earlier heads still count (they
    can only make the verdict stricter). A recorded axis is judged again from the nodes
    it was folded from, with today's human decisions applied first; so is the `verifier`
    axis: it holds while a finding the last review left unverified is still unjudged (a
    person's `/confirm` or `/dismiss` judges it).
    """
    config = snapshot.config
    head = snapshot.head_sha
    remembered = {axis.name: axis for axis in prior.axes(head)}
    policy = config.policy.node_policy()
    reviewer_axes = tuple(
        _judged_again(remembered[r.name], prior, head, policy)
        if r.name in remembered
        else AxisResult(
            name=r.name, gated=r.gated, outcome=Outcome.NOT_RUN, detail=_unreviewed(prior, head)
        )
        for r in config.all_reviewers
    )
    learner = Learner.of(snapshot, prior)  # applied again, as the review of this head did
    learned = learner.after(None) or tuple
    nodes = tuple(learned(prior.review_nodes(head)))
    left = unverified(nodes, wanted=prior.unverified(), priorities=config.verifier.verifies)
    reviewed = (prior.reviewed_head() or "an earlier head")[:12]
    why = (
        f"left unverified by the review of {reviewed}; a person's /confirm or /dismiss judges them"
    )
    verifier = unverified_axis(left, gated=config.gated_reviewers, why=why)
    run = prior.recorded_run(head)
    return build_report(
        snapshot,
        proposed=prior.proposed(head),
        axes=(*reviewer_axes, *_some(verifier), *(source(config) for source in axes)),
        nodes=nodes,
        discarded=prior.discarded,
        agents=(),
        usage=Usage(),
        coverage=prior.coverage(head),
        run=run.model_copy(update={"unverified": _fingerprints(left)}) if run else None,
        learnings=learner.report(),
    )


def _fingerprints(nodes: Sequence[ReviewNode]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(n.fingerprint for n in nodes))


def _some(axis: AxisResult | None) -> tuple[AxisResult, ...]:
    return (axis,) if axis is not None else ()


def unseen_standing(
    prior: PriorState, nodes: Sequence[ReviewNode], coverage: Coverage
) -> tuple[ReviewNode, ...]:
    """Earlier open findings this run did not repeat and could not have: their file was unseen.

    Nobody looked, so nothing says they are fixed: they stand in this run's report, with
    their last status (human decisions applied), and count for its verdict: as the last
    review judged them (its summary records priorities and confirmations a finding already
    on the PR does not get in its old comment). Their ids get the reviewed head as a prefix
    so they never collide with this run's ids.
    """
    current = {node.fingerprint for node in nodes}
    out = []
    owed = prior.owed()  # the last review found them fixed: they resolve, they do not stand
    for node in prior.review_nodes(prior.reviewed_head()):
        path = node.anchor.path if node.anchor else None
        if node.fingerprint in current or node.status not in _STANDING or coverage.covers(path):
            continue
        if node.fingerprint in owed:
            continue
        head = (node.commit_sha or "earlier")[:12]
        note = f"carried from the review of {head}: this run did not see where it is"
        out.append(
            node.model_copy(update={"id": f"{head}:{node.id}"[:100], "notes": (*node.notes, note)})
        )
    return tuple(out)


def owed_standing(
    prior: PriorState,
    nodes: Sequence[ReviewNode],
    coverage: Coverage,
    agents: Sequence[AgentReport],
    *,
    head_sha: str,
) -> tuple[ReviewNode, ...]:
    """Earlier findings this run found fixed past the comments a run marks resolved.

    They are not resolved by this run (their comments still say open), so they stand in
    its report, as the last review judged them, and count for its verdict; the summary
    records them as owed and the next run marks them resolved on this run's evidence.
    """
    later = resolution(nodes, coverage, agents, prior=prior, head_sha=head_sha).later
    wanted = {p.node.fingerprint for p in later}
    note = (
        "found fixed by this run, past the comments a run marks resolved: it stands until "
        "the next run marks it"
    )
    return tuple(
        node.model_copy(
            update={
                "id": f"{(node.commit_sha or 'earlier')[:12]}:{node.id}"[:100],
                "notes": (*node.notes, note),
            }
        )
        for node in prior.review_nodes(prior.reviewed_head())
        if node.fingerprint in wanted
    )


def _unreviewed(prior: PriorState, head: str) -> str:
    reviewed = prior.reviewed_head()
    if reviewed is None:
        return "no earlier review of this PR recorded this axis"
    return (
        f"the last review recorded was of {reviewed[:12]}; {head[:12]} has not been reviewed "
        "(its review is still running, failed or was cancelled)"
    )


def _judged_again(axis: AxisResult, prior: PriorState, head: str, policy: NodePolicy) -> AxisResult:
    """A recorded reviewer axis, its outcome recomputed from its nodes after human decisions.

    Only a verified human decision on one of the axis's nodes may change the recorded
    outcome (a /dismiss can unblock): without one, the outcome the review recorded is the
    strictest evidence there is, and rebuilt nodes must not loosen it. An axis that could
    not run stays so; one whose nodes were not recorded keeps its outcome.
    """
    nodes = prior.axis_nodes(head, axis.name)
    if axis.outcome is Outcome.NOT_RUN or nodes is None:
        return axis
    decided = {decision.fingerprint for decision in prior.decisions}
    if decided.isdisjoint(node.fingerprint for node in nodes):
        return axis
    return replace(axis, outcome=axis_outcome(nodes, policy))


def build_report(
    snapshot: PRSnapshot,
    *,
    proposed: Verdict | None,
    axes: Sequence[AxisResult],
    nodes: Sequence[ReviewNode],
    discarded: Sequence[Discarded],
    agents: Sequence[AgentReport],
    usage: Usage,
    coverage: Coverage | None,
    run: ReviewRun | None = None,
    learnings: LearningsReport | None = None,
) -> Report:
    policy = snapshot.config.policy.node_policy()
    decision = finalize(proposed, axes, nodes, policy, coverage_gap=coverage_gap(coverage))
    return Report(
        tool_version=__version__,
        verdict=decision.verdict,
        reasons=Report.reasons_of(decision),
        axes=tuple(AxisReport.of(axis) for axis in decision.axes),
        nodes=tuple(nodes),
        discarded=tuple(DiscardReport.of(d) for d in discarded),
        usage=usage,
        agents=tuple(agents),
        coverage=coverage,
        guidelines=snapshot.guidelines.files,
        pr=pr_info(snapshot),
        review=run,
        learnings=learnings,
    )


def pr_info(snapshot: PRSnapshot) -> PRInfo:
    return PRInfo(
        origin=snapshot.origin.value,
        url=snapshot.url,
        repo=snapshot.repo,
        number=snapshot.number,
        title=snapshot.title,
        base_sha=snapshot.base_sha,
        head_sha=snapshot.head_sha,
    )
