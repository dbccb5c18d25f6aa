"""The review-node state machine: every status change goes through `apply` (or `also_raised`).

    open ──confirm by a peer──▶ consensusReady
      │  (confirm by a raiser: no-op)     │
      ├──resolve──▶ resolved ◀──resolve───┤
      │              │ reopen             │
      │              ▼                    │
      │            open                   │
      └──dismiss──▶ dismissed ◀─dismiss───┘   (dismissed is final: a human said no)

A dispute never changes the status; it is recorded on the node and shown. The
rule that a worker never confirms its own work lives here, in the type
of transition, not in any prompt. Every agent that raised a finding is one of its
workers: when a second agent raises the same finding (`also_raised`), the node
counts for that agent's axis too, and that agent's confirmation never counts (a
raiser's confirmation is a no-op here, and the `confirm_review_node` verb refuses
it with that reason). A peer is any agent of the run that did not raise the node:
the verifier, or another reviewer, which holds the same verbs since every agent of
a review run has one surface; a peer's confirmation counts.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from reviewbot.errors import LifecycleError
from reviewbot.nodes.assessment import stricter
from reviewbot.nodes.model import Dispute, Finding, ReviewNode, Status


class Action(StrEnum):
    CONFIRM = "confirm"
    DISPUTE = "dispute"
    RESOLVE = "resolve"
    DISMISS = "dismiss"
    REOPEN = "reopen"


@dataclass(frozen=True, slots=True, kw_only=True)
class Transition:
    action: Action
    by: str
    reason: str = ""


_O, _C, _R, _D = Status.OPEN, Status.CONSENSUS_READY, Status.RESOLVED, Status.DISMISSED

# (from, action) → to. A pair missing from this table is an illegal move.
TRANSITIONS: dict[tuple[Status, Action], Status] = {
    (_O, Action.CONFIRM): _C,
    (_C, Action.CONFIRM): _C,
    (_O, Action.DISPUTE): _O,
    (_C, Action.DISPUTE): _C,
    (_O, Action.RESOLVE): _R,
    (_C, Action.RESOLVE): _R,
    (_R, Action.RESOLVE): _R,
    (_O, Action.DISMISS): _D,
    (_C, Action.DISMISS): _D,
    (_R, Action.DISMISS): _D,
    (_D, Action.DISMISS): _D,
    (_R, Action.REOPEN): _O,
}


def apply(node: ReviewNode, transition: Transition) -> ReviewNode:
    """Return the node after `transition`; raise `LifecycleError` for an illegal move."""
    target = TRANSITIONS.get((node.status, transition.action))
    if target is None:
        raise LifecycleError(
            f"cannot {transition.action.value} review node {node.id}: it is {node.status.value}"
            f" (allowed from {node.status.value}: {_allowed(node.status)})"
        )
    if transition.action is Action.CONFIRM:
        return _confirm(node, transition.by)
    if transition.action is Action.DISPUTE:
        dispute = Dispute(by=transition.by, reason=transition.reason)
        return node.model_copy(update={"disputes": (*node.disputes, dispute)})
    return node.model_copy(update={"status": target})


def also_raised(node: ReviewNode, by: str, finding: Finding) -> ReviewNode:
    """`by` raised `finding` again (same fingerprint): one node, with `by` among its raisers.

    The node keeps its text and anchor; its priority and confidence only get stricter
    (`assessment.stricter`: more evidence never loosens). A confirmation `by` gave earlier is
    withdrawn (a raiser is not a peer), and a node no peer confirms any more is open again.
    """
    if node.status not in (_O, _C):
        raise LifecycleError(f"cannot raise review node {node.id} again: it is {node.status.value}")
    if by in node.raisers:
        return node
    confirmed = tuple(peer for peer in node.confirmed_by if peer != by)
    update: dict[str, object] = {
        "also_raised_by": (*node.also_raised_by, by),
        "confirmed_by": confirmed,
        "status": _C if confirmed else _O,
    }
    return stricter(node.model_copy(update=update), finding)


def _confirm(node: ReviewNode, peer: str) -> ReviewNode:
    if peer in node.raisers:
        return node  # a worker never confirms its own work: no-op, by construction
    if peer in node.confirmed_by:
        return node
    return node.model_copy(
        update={"status": Status.CONSENSUS_READY, "confirmed_by": (*node.confirmed_by, peer)}
    )


def _allowed(status: Status) -> str:
    actions = [action.value for (source, action) in TRANSITIONS if source is status]
    return ", ".join(actions) or "nothing"
