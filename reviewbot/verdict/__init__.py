"""The verdict: lattice, axes, node policy and the fold. Pure core (stdlib + pydantic)."""

from reviewbot.verdict.axes import AxisResult, Outcome
from reviewbot.verdict.fold import (
    Decision,
    Reason,
    Source,
    axis_outcome,
    finalize,
    fold_axes,
    fold_nodes,
)
from reviewbot.verdict.lattice import Verdict, strictest
from reviewbot.verdict.policy import (
    DEFAULT_MIN_CONFIDENCE,
    Consequence,
    NodePolicy,
    NodeRule,
    default_policy,
)

__all__ = [
    "DEFAULT_MIN_CONFIDENCE",
    "AxisResult",
    "Consequence",
    "Decision",
    "NodePolicy",
    "NodeRule",
    "Outcome",
    "Reason",
    "Source",
    "Verdict",
    "axis_outcome",
    "default_policy",
    "finalize",
    "fold_axes",
    "fold_nodes",
    "strictest",
]
