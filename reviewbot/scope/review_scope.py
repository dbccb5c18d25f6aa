"""What one review covers: the interface a full and an incremental review both answer.

The review of a snapshot (`review.pipeline.review_snapshot`) asks its scope, once each,
and never asks which kind it is:

- `shown`: what the agents see — the whole PR, or the changes since the reviewed head
  with the earlier findings to re-judge (the scope names it; the agent layer packs it,
  through the `Packer` it is handed);
- `carry`: what carries over before the axes are judged — human `/confirm` and
  `/dismiss` and earlier peers' confirmations applied to this run's findings, and the
  earlier findings on unchanged lines, moved to their new lines (`carried`: the same
  rule, `scope/standing.py`, for both kinds: unchanged code keeps its finding);
- `coverage`: this run's coverage with what the run inherits (an incremental review
  keeps the earlier review's coverage of the files that did not change);
- `recorded`: the run as the report and the next review's summary marker record it.

`full.py` and `incremental.py` are the two implementations; `decision.py` picks one.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from typing import Protocol, TypeVar

from reviewbot.coverage.model import Coverage
from reviewbot.memory.postings import apply_decisions
from reviewbot.memory.prior import PriorState
from reviewbot.nodes.assessment import stricter
from reviewbot.nodes.model import ReviewNode
from reviewbot.results.report import ReviewRun
from reviewbot.scope.carry import Carried, Rejudge
from reviewbot.scope.patches import digests
from reviewbot.sources.diff_index import DiffIndex
from reviewbot.sources.snapshot import PRSnapshot

Packed = TypeVar("Packed")
Packed_co = TypeVar("Packed_co", covariant=True)

# Applied to the panel's nodes before the axes are judged from them.
Carry = Callable[[Sequence[ReviewNode]], Sequence[ReviewNode]]


class Packer(Protocol[Packed_co]):
    """How the agent layer packs what a scope shows into the agents' context."""

    def whole(self) -> Packed_co:
        """The whole PR."""

    def since(self, since: str, *, changed: DiffIndex, rejudge: Sequence[Rejudge]) -> Packed_co:
        """The changes since the reviewed head `since`, and the earlier findings to re-judge."""


class ReviewScope(ABC):
    """Full or incremental, decided once: what the agents see, inherit and carry over."""

    run: ReviewRun  # the kind and why, as the report records it

    @abstractmethod
    def shown(self, packer: Packer[Packed]) -> Packed:
        """What the agents see, packed by `packer`."""

    @abstractmethod
    def carried(self) -> Carried:
        """Earlier findings moved to their new lines (`kept`), and those to re-judge."""

    @abstractmethod
    def coverage(self, seen: Coverage, pr: DiffIndex) -> Coverage:
        """The run's coverage: what the agents saw (`seen`) and what the run inherits."""

    @abstractmethod
    def recorded(self, snapshot: PRSnapshot) -> ReviewRun:
        """The run as recorded, with the PR as this review saw it."""

    def carry(self, prior: PriorState | None) -> Carry:
        """Earlier decisions applied to the panel's nodes, then the carried nodes added."""
        carried = self.carried()
        earlier = {n.fingerprint: n for n in (*carried.kept, *(r.node for r in carried.rejudge))}

        def apply(found: Sequence[ReviewNode]) -> tuple[ReviewNode, ...]:
            nodes = apply_decisions(found, prior) if prior is not None else tuple(found)
            # Raised again: this run's node stands, never weighing less than the one it replaces.
            nodes = tuple(stricter(n, *_of(earlier, n.fingerprint)) for n in nodes)
            again = {node.fingerprint for node in nodes}
            return (*nodes, *(n for n in carried.kept if n.fingerprint not in again))

        return apply

    def _seen(self, snapshot: PRSnapshot) -> ReviewRun:
        # The PR as this review saw it, so the next one knows which files' diffs are new.
        carried = self.carried()
        return self.run.model_copy(
            update={
                "base_sha": snapshot.base_sha,
                "patches": digests(snapshot.diff),
                "carried": len(carried.kept),
                "rejudged": len(carried.rejudge),
                "carried_ids": tuple(node.id for node in carried.kept),
            }
        )


def _of(nodes: dict[str, ReviewNode], fingerprint: str) -> tuple[ReviewNode, ...]:
    node = nodes.get(fingerprint)
    return (node,) if node is not None else ()
