"""Folding axes, nodes and the agent's proposal into one verdict, never looser than the evidence.

Every function here returns a `Decision`: the verdict and the reasons that raised
it, so the summary can say which axis or node decided. Folding is `strictest`;
nothing here can lower a verdict.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from enum import StrEnum

from reviewbot.nodes.model import ReviewNode, Status
from reviewbot.verdict.axes import AxisResult, Outcome, with_coverage
from reviewbot.verdict.lattice import Verdict, strictest
from reviewbot.verdict.policy import Consequence, NodePolicy


class Source(StrEnum):
    AXIS = "axis"
    NODE = "node"
    PROPOSAL = "proposal"
    RULE = "rule"


@dataclass(frozen=True, slots=True, kw_only=True)
class Reason:
    verdict: Verdict
    source: Source
    name: str
    text: str


@dataclass(frozen=True, slots=True, kw_only=True)
class Decision:
    verdict: Verdict
    reasons: tuple[Reason, ...] = ()
    # The axes as judged (`finalize`: a reviewer axis counts every finding standing on it,
    # and one that passed on partial coverage is `partial`), which is what the report shows.
    axes: tuple[AxisResult, ...] = ()

    @property
    def deciding(self) -> tuple[Reason, ...]:
        """The reasons at the level of the verdict: what decided it."""
        return tuple(r for r in self.reasons if r.verdict is self.verdict)


def _decide(reasons: Iterable[Reason]) -> Decision:
    reasons = tuple(reasons)
    return Decision(verdict=strictest(r.verdict for r in reasons), reasons=reasons)


def axis_reason(axis: AxisResult) -> Reason | None:
    """What one axis contributes; None when it moves nothing."""
    if not axis.gated:
        return None  # non-gated axes are reported, never folded
    detail = f": {axis.detail}" if axis.detail else ""
    if axis.outcome is Outcome.FAILED:
        return Reason(
            verdict=Verdict.BLOCK,
            source=Source.AXIS,
            name=axis.name,
            text=f"gated axis `{axis.name}` failed{detail}",
        )
    if axis.outcome is Outcome.NOT_RUN:
        return Reason(
            verdict=Verdict.HOLD,
            source=Source.AXIS,
            name=axis.name,
            text=f"gated axis `{axis.name}` could not run{detail}",
        )
    if axis.outcome is Outcome.PARTIAL:
        return Reason(
            verdict=Verdict.HOLD,
            source=Source.AXIS,
            name=axis.name,
            text=f"gated axis `{axis.name}` did not see the whole PR{detail}",
        )
    return None


def fold_axes(axes: Sequence[AxisResult]) -> Decision:
    """Gated fail → Block; gated not_run or partial → at least Hold; zero axes → at least Hold."""
    reasons = [r for r in map(axis_reason, axes) if r is not None]
    if not axes:
        reasons.append(
            Reason(
                verdict=Verdict.HOLD,
                source=Source.RULE,
                name="no-axes",
                text="no axis ran: absence of evidence is not a pass",
            )
        )
    return _decide(reasons)


def fold_nodes(
    nodes: Iterable[ReviewNode], policy: NodePolicy, axes: Sequence[AxisResult] = ()
) -> Decision:
    """Nodes under the policy; a node only non-gated axes raised is reported, not folded.

    A node raised by a gated reviewer counts, whoever raised it first.
    """
    ungated = {axis.name for axis in axes if not axis.gated}
    reasons = [
        Reason(
            verdict=effect.verdict,
            source=Source.NODE,
            name=node.id,
            # The title is model text: quoted, not a code span its own backticks could close.
            text=f"{node.priority.value} {node.kind.value} “{node.title}” ({rule.describe()})",
        )
        for node, effect, rule in policy.effects(nodes)
        if not set(node.raisers) <= ungated
    ]
    return _decide(reasons)


def axis_outcome(nodes: Iterable[ReviewNode], policy: NodePolicy) -> Outcome:
    """A reviewer that ran: failed when one of its nodes has a `fail` effect, else passed."""
    effects = policy.effects(nodes)
    return Outcome.FAILED if any(e is Consequence.FAIL for _, e, _ in effects) else Outcome.PASSED


_STANDING = (Status.OPEN, Status.CONSENSUS_READY)
_CLOSED = (Status.RESOLVED, Status.DISMISSED)


def findings_detail(nodes: Sequence[ReviewNode]) -> str:
    """A reviewer axis' detail: the findings standing on it, and those closed apart."""
    if not nodes:
        return "no findings"
    standing = [n for n in nodes if n.status in _STANDING]
    ready = sum(1 for n in standing if n.status is Status.CONSENSUS_READY)
    said = f"{len(standing)} finding(s), {ready} confirmed by a peer"
    closed = [
        f"{count} {status.label}"
        for status in _CLOSED
        if (count := sum(1 for n in nodes if n.status is status))
    ]
    return "; ".join([said if standing else "no standing findings", *closed])


def with_findings(axis: AxisResult, nodes: Sequence[ReviewNode], policy: NodePolicy) -> AxisResult:
    """A reviewer axis that ran, judged from every finding standing on it in the report.

    A finding stands in a report without this run raising it (kept on unchanged code, or in
    a file nobody saw): it counts for its verdict, so it counts for its raisers' axes too —
    no row says "no findings", or passed under a failing finding, while the verdict counts
    one. Never looser: a failed axis stays failed. An axis no finding names (`ci`, an axis
    source) and one that could not run are as given.
    """
    own = [n for n in nodes if axis.name in n.raisers]
    if not own or axis.outcome not in (Outcome.PASSED, Outcome.FAILED):
        return axis
    failed = Outcome.FAILED in (axis.outcome, axis_outcome(own, policy))
    outcome = Outcome.FAILED if failed else Outcome.PASSED
    return replace(axis, outcome=outcome, detail=findings_detail(own))


def finalize(
    proposed: Verdict | None,
    axes: Sequence[AxisResult],
    nodes: Iterable[ReviewNode],
    policy: NodePolicy,
    *,
    coverage_gap: str | None,
) -> Decision:
    """The published verdict: the strictest of the proposal, the axes and the nodes.

    Each reviewer axis counts every finding standing on it (`with_findings`).
    `coverage_gap` says what the reviewers did not see (None: every changed file): a
    reviewer axis that passed without seeing the whole PR did not fully run, so it is
    `partial` and, gated, holds — the verdict every output shows, never a Ship.
    """
    nodes = tuple(nodes)
    axes = tuple(with_coverage(with_findings(axis, nodes, policy), coverage_gap) for axis in axes)
    reasons = [*fold_axes(axes).reasons, *fold_nodes(nodes, policy, axes).reasons]
    if proposed is not None and proposed is not Verdict.SHIP:
        reasons.append(
            Reason(
                verdict=proposed,
                source=Source.PROPOSAL,
                name="finalize_review",
                text=f"the reviewer proposed {proposed.label}",
            )
        )
    return replace(_decide(reasons), axes=axes)
