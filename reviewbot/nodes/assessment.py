"""A finding's assessment — priority and confidence — only ever gets stricter.

One rule wherever two assessments of the same finding (same fingerprint) meet: a second
reviewer raising it in the same run, this run's node meeting the one an earlier run
posted or recorded, several postings of it on the PR. The result takes the most severe
priority and the highest confidence of them, each on its own: every node rule matches
a set of priorities and a minimum confidence, so neither can loosen the verdict, and a
re-raise at a lower priority (PR text asking the model to re-record a confirmed P0 as a
P3) changes nothing. Nothing but a person lowers what a finding weighs: a writer's
`/dismiss`, which ends it (nodes/lifecycle.py); there is no other way down.
"""

from __future__ import annotations

from typing import Protocol, TypeVar

from reviewbot.nodes.model import Finding, Priority


class Assessed(Protocol):
    """Anything that says how severe a finding is and how sure its author was."""

    @property
    def priority(self) -> Priority: ...

    @property
    def confidence(self) -> float: ...


F = TypeVar("F", bound=Finding)


def stricter(node: F, *others: Assessed) -> F:
    """`node` with the most severe priority and the highest confidence of it and `others`."""
    if not others:
        return node
    every: list[Assessed] = [node, *others]
    priority = min((a.priority for a in every), key=lambda p: p.rank)
    confidence = max(a.confidence for a in every)
    if (priority, confidence) == (node.priority, node.confidence):
        return node
    return node.model_copy(update={"priority": priority, "confidence": confidence})
