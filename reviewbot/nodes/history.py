"""A node's history across runs: human decisions, and a marker's node rebuilt by the lifecycle.

Pure lifecycle logic, fed by reviewbot's memory of a PR (memory/prior.py turns sealed
markers into prior nodes and `/confirm` / `/dismiss` replies into `HumanDecision`s;
memory/postings.py folds a node's postings and applies the decisions to a run's nodes):

- a prior node's status is rebuilt through the lifecycle (`recorded`, `apply_all`), never
  copied from a marker: its peers' confirmations (stricter only), `resolved` only from
  reviewbot's resolution record (`recorded(edited=True)`), `dismissed` never.

Must not: know where a comment lives on a forge, import the wire format (memory/markers.py),
redaction or GitHub.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from reviewbot.errors import LifecycleError
from reviewbot.nodes.lifecycle import Action, Transition, apply
from reviewbot.nodes.model import Priority, ReviewNode, Status

OPEN_STATUSES = frozenset({Status.OPEN, Status.CONSENSUS_READY})
HUMAN = "human:"  # how a person's /confirm or /dismiss names its author (`human:<login>`)


@dataclass(frozen=True, slots=True, kw_only=True)
class HumanDecision:
    """A `/confirm` or `/dismiss` reply by a person with write access in a node's thread."""

    fingerprint: str
    transition: Transition
    comment_id: int
    login: str
    at: str | None = None  # when the reply was written (ISO 8601), when the forge says


@dataclass(frozen=True, slots=True, kw_only=True)
class IgnoredCommand:
    """A `/confirm` or `/dismiss` that changed nothing, and why."""

    login: str
    comment_id: int
    why: str


@dataclass(frozen=True, slots=True, kw_only=True)
class Judged:
    """How a review judged a node it did not post again (the summary records it)."""

    fingerprint: str
    priority: Priority
    confidence: float


def confirmations(peers: Iterable[str]) -> list[Transition]:
    return [Transition(action=Action.CONFIRM, by=peer) for peer in peers]


def recorded(node: ReviewNode, *, edited: bool) -> ReviewNode:
    """A marker's node as the lifecycle allows it: the status is rebuilt, never copied.

    Peers' confirmations count (they only add strictness); `resolved` only in reviewbot's
    resolution record (a seal bound to this comment); `dismissed` never from a marker.
    """
    events = confirmations(node.confirmed_by)
    if node.status is Status.RESOLVED and edited:
        events.append(Transition(action=Action.RESOLVE, by="reviewbot"))
    return apply_all(fresh(node), events)


def fresh(node: ReviewNode) -> ReviewNode:
    return node.model_copy(update={"status": Status.OPEN, "confirmed_by": ()})


def apply_all(node: ReviewNode, events: Iterable[Transition]) -> ReviewNode:
    """`events` applied in order; an illegal move is skipped (a stale reply must not end a run)."""
    for event in events:
        try:
            node = apply(node, event)
        except LifecycleError:
            continue  # e.g. /confirm after /dismiss: dismissed is final, the reply is moot
    return node
