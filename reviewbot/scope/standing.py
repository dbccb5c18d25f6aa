"""The earlier findings that still stand, carried to this head by one rule, in every review.

A full review and an incremental one both carry forward the earlier standing findings
whose code did not change (`carry.carry_forward`), before the axes are judged: the
agents' silence about them is no evidence (a model is not deterministic), so they stand,
counted in the verdict, and only the others may resolve. Each finding is read at the head
it was last seen on: the last review's head when its summary recorded the finding's lines
there, else the head it was posted on. That head's diff to this one comes from the clone;
a head the clone does not have (a force-push rewrote it) is read by content (carry.py).
Findings the last review found fixed past its edits (owed) resolve on that evidence.

Must not: call GitHub or the model.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from reviewbot.memory.prior import PriorState
from reviewbot.nodes.history import OPEN_STATUSES
from reviewbot.nodes.model import ReviewNode
from reviewbot.scope.carry import Carried, Lines, Rejudge, carry_forward
from reviewbot.sources.diff_index import DiffIndex
from reviewbot.sources.git_repo import diff_since, lines_at
from reviewbot.sources.snapshot import PRSnapshot


@dataclass(frozen=True, slots=True, kw_only=True)
class Seen:
    """An earlier finding, anchored as it was on the head it was last seen on."""

    node: ReviewNode
    since: str | None  # that head; None: not known (then it is read by content)


@dataclass(frozen=True, slots=True, kw_only=True)
class Standing:
    """The PR's standing earlier findings, and what carrying them to this head reads."""

    findings: tuple[Seen, ...]
    checkout: Path  # the clone, to read the anchored lines at both heads
    head: str
    pr: DiffIndex  # the PR's patch at this head (deleted lines are LEFT anchors')
    posted_at: Mapping[str, str]  # fingerprint → the path it was posted at (its fingerprint's)

    @classmethod
    def of(cls, snapshot: PRSnapshot, prior: PriorState) -> Standing:
        marker = prior.summary_marker()
        reviewed = marker.head_sha if marker is not None else None
        recorded = {s.fingerprint for s in (marker.nodes or ())} if marker is not None else set()
        owed = prior.owed()
        findings = tuple(
            Seen(node=node, since=reviewed if node.fingerprint in recorded else node.commit_sha)
            for node in prior.review_nodes(reviewed)
            if node.status in OPEN_STATUSES and node.fingerprint not in owed
        )
        return cls(
            findings=findings,
            checkout=snapshot.checkout,
            head=snapshot.head_sha,
            pr=snapshot.diff,
            posted_at=prior.posted_at(),
        )

    def carried(self, known: Mapping[str, DiffIndex] | None = None) -> Carried:
        """Each finding on this head (`kept`), or to re-judge; `known`: diffs already read."""
        by_since: dict[str | None, list[ReviewNode]] = {}
        for seen in self.findings:
            by_since.setdefault(seen.since, []).append(seen.node)
        new_lines = _reader(self.checkout, self.head)
        kept: list[ReviewNode] = []
        rejudge: list[Rejudge] = []
        for since, nodes in by_since.items():
            moved = (known or {}).get(since or "")
            if moved is None and since is not None:
                moved = diff_since(self.checkout, since, self.head)
            carried = carry_forward(
                nodes,
                moved=moved,
                since=since or "earlier",
                old_lines=_reader(self.checkout, since or self.head),
                new_lines=new_lines,
                pr=self.pr,
                posted_at=self.posted_at,
            )
            kept.extend(carried.kept)
            rejudge.extend(carried.rejudge)
        return Carried(kept=tuple(kept), rejudge=tuple(rejudge))


def _reader(checkout: Path, sha: str) -> Lines:
    """The lines of a file at `sha`, each file read once."""
    return cache(lambda path: lines_at(checkout, sha, path))
