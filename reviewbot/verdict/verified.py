"""The verifier's axis: the findings the policy wants verified that nobody judged.

A finding of a priority the verifier is configured for waits for a judgement: the
verifier's confirmation or dispute, a peer's confirmation, or a person's `/confirm` or
`/dismiss` (a person's decision is the evidence). One nobody judged holds the verdict
whatever stopped the verifier (an API error, a budget, the timeout, or a normal end
without judging it), on every run that has it: the review that raised it, the reviews that
carry it to later heads, a re-fold. Callers say which findings were given to a verifier
(`wanted`, by fingerprint: this run's targets and those earlier runs left unverified).

Must not: know where the findings came from (pure: nodes and axes only).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence

from reviewbot.nodes.model import Priority, ReviewNode, Status
from reviewbot.verdict.axes import VERIFIER_AXIS, AxisResult, Outcome


def judged(node: ReviewNode) -> bool:
    """Whether anyone judged `node`: any status but open (a peer or a person), or the verifier."""
    return (
        node.status is not Status.OPEN
        or VERIFIER_AXIS in node.confirmed_by
        or any(d.by == VERIFIER_AXIS for d in node.disputes)
    )


def unverified(
    nodes: Iterable[ReviewNode], *, wanted: Collection[str], priorities: Collection[Priority]
) -> tuple[ReviewNode, ...]:
    """The `wanted` findings of a verified priority (none when disabled) nobody judged."""
    return tuple(
        n for n in nodes if n.fingerprint in wanted and n.priority in priorities and not judged(n)
    )


def unverified_axis(
    left: Sequence[ReviewNode], *, gated: Collection[str], why: str
) -> AxisResult | None:
    """`verifier`, not_run, while any finding is `left`; gated when a gated reviewer raised one."""
    if not left:
        return None
    return AxisResult(
        name=VERIFIER_AXIS,
        gated=any(raiser in gated for n in left for raiser in n.raisers),
        outcome=Outcome.NOT_RUN,
        detail=f"{len(left)} finding(s) not verified: {why}",
    )
