"""The node policy: which review nodes move a verdict, as data rather than ifs.

Each rule matches nodes by status, priority and minimum confidence and has one
effect: `fail` (the node's axis fails → Block when gated) or `hold` (→ at least
Hold). A node matching several rules takes the strictest effect.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum

from reviewbot.nodes.model import Priority, ReviewNode, Status
from reviewbot.verdict.lattice import Verdict

DEFAULT_MIN_CONFIDENCE = 0.7


class Consequence(StrEnum):
    """What a matching node does to the verdict (a tool's effect class is `modes.Effect`)."""

    HOLD = "hold"
    FAIL = "fail"

    @property
    def verdict(self) -> Verdict:
        return Verdict.BLOCK if self is Consequence.FAIL else Verdict.HOLD


@dataclass(frozen=True, slots=True, kw_only=True)
class NodeRule:
    status: Status
    priorities: frozenset[Priority]
    effect: Consequence
    min_confidence: float = 0.0

    def matches(self, node: ReviewNode) -> bool:
        return (
            node.status is self.status
            and node.priority in self.priorities
            and node.confidence >= self.min_confidence
        )

    def describe(self) -> str:
        priorities = "/".join(sorted(p.value for p in self.priorities))
        confidence = f" with confidence ≥ {self.min_confidence:g}" if self.min_confidence else ""
        return f"{self.status.label} {priorities}{confidence} → {self.effect.value}"


@dataclass(frozen=True, slots=True, kw_only=True)
class NodePolicy:
    rules: tuple[NodeRule, ...]

    def effect_of(self, node: ReviewNode) -> tuple[Consequence, NodeRule] | None:
        """The strictest rule `node` matches, or None when it moves nothing."""
        matched = [rule for rule in self.rules if rule.matches(node)]
        if not matched:
            return None
        rule = max(matched, key=lambda r: r.effect.verdict)
        return rule.effect, rule

    def effects(
        self, nodes: Iterable[ReviewNode]
    ) -> list[tuple[ReviewNode, Consequence, NodeRule]]:
        found = []
        for node in nodes:
            hit = self.effect_of(node)
            if hit is not None:
                found.append((node, *hit))
        return found


def default_policy(min_confidence: float = DEFAULT_MIN_CONFIDENCE) -> NodePolicy:
    """The default: a confirmed P0 fails its axis; an open P0 or a confirmed P1 holds."""
    p0, p1 = frozenset({Priority.P0}), frozenset({Priority.P1})
    ready, open_ = Status.CONSENSUS_READY, Status.OPEN
    return NodePolicy(
        rules=(
            NodeRule(
                status=ready, priorities=p0, effect=Consequence.FAIL, min_confidence=min_confidence
            ),
            # A confirmed P0 below the confidence minimum still holds: it is not evidence of safety.
            NodeRule(status=ready, priorities=p0, effect=Consequence.HOLD),
            NodeRule(status=open_, priorities=p0, effect=Consequence.HOLD),
            NodeRule(status=ready, priorities=p1, effect=Consequence.HOLD),
        )
    )
