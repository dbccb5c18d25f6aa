"""The benchmark's candidates in a review: each finding the review would post, once, wherever.

The benchmark's pipeline (see profiles.py for the files and commits) takes a line-specific
comment as one candidate, and splits a general comment — a summary, a review body — into
its distinct issues, each one candidate. A reviewbot finding is already one issue, so every
finding the review would post is one candidate whether it lands inline or in the review
body (anchored outside the diff, about the whole PR, over the inline limit); the summary
comment repeats them, and repeats are not counted again (the benchmark's duplicate groups
collapse them). Findings the review closed (resolved or dismissed) are listed in the
summary as closed, not raised: they are not candidates, and the judge never sees them.

Placement is the publisher's own (`place_nodes` on the dry run's diff and config), so the
split is exactly what a real run would post. Must not: post or print.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from reviewbot.nodes.model import ReviewNode, Status
from reviewbot.publish.placement import place_nodes
from reviewbot.results.report import Report
from reviewbot.sources.snapshot import PRSnapshot

CandidatePlace = Literal["inline", "body"]
CLOSED = frozenset({Status.RESOLVED, Status.DISMISSED})


@dataclass(frozen=True, slots=True, kw_only=True)
class Candidate:
    node: ReviewNode
    placement: CandidatePlace


@dataclass(frozen=True, slots=True, kw_only=True)
class Candidates:
    found: tuple[Candidate, ...]  # in the report's order
    closed: tuple[str, ...]  # ids of the findings listed as closed: not candidates


def candidates(report: Report, snapshot: PRSnapshot | None) -> Candidates:
    """The findings `report` would post and where; without a snapshot, by anchor alone."""
    open_nodes = [n for n in report.nodes if n.status not in CLOSED]
    closed = tuple(n.id for n in report.nodes if n.status in CLOSED)
    if snapshot is None:
        where = {n.id: "inline" if n.anchor is not None else "body" for n in open_nodes}
    else:
        plan = place_nodes(
            open_nodes, snapshot.diff, max_inline=snapshot.config.publish.max_inline_comments
        )
        where = {item.node.id: "inline" for item in plan.inline}
        where |= {item.node.id: "body" for item in plan.body}
    found = tuple(
        Candidate(node=n, placement="inline" if where.get(n.id) == "inline" else "body")
        for n in open_nodes
    )
    return Candidates(found=found, closed=closed)
