"""Earlier findings this run no longer reports: which count as fixed, now or on the next run.

A finding resolves only on evidence: this run saw where it was (`Coverage.covers`) and every
reviewer ran to a normal end. At most `MAX_RESOLVE_EDITS` comments are edited a run; the
rest are owed to the next. The edit itself (the comment's new body) is publish/resolution.py's.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass

from reviewbot.coverage.model import Coverage
from reviewbot.memory.postings import (
    PriorNode,
)
from reviewbot.memory.prior import PriorState
from reviewbot.modes.profile import Role
from reviewbot.nodes.history import OPEN_STATUSES
from reviewbot.nodes.model import ReviewNode
from reviewbot.results.report import AgentReport

MAX_RESOLVE_EDITS = 10  # comments marked resolved per run; the rest on the next (writes stay O(1))


@dataclass(frozen=True, slots=True, kw_only=True)
class Resolution:
    """What this run resolves: `now` (their comments are edited), and `later`.

    `later`: found fixed by this run too, but past the edits a run makes; they stand in
    this run's report (and count for its verdict) and are owed: the next run marks them
    resolved unless it raises them again, whatever it sees (this run's evidence holds).
    """

    now: tuple[PriorNode, ...]
    later: tuple[PriorNode, ...]
    notes: tuple[str, ...]


def resolution(
    nodes: Sequence[ReviewNode],
    coverage: Coverage | None,
    agents: Sequence[AgentReport],
    *,
    prior: PriorState,
    head_sha: str,
) -> Resolution:
    """The earlier findings this run resolves, at most `MAX_RESOLVE_EDITS` comments of them."""
    gone = vanished(nodes, prior, head_sha)
    due, notes = resolvable(coverage, agents, gone, owed=prior.owed())
    comments = list(dict.fromkeys((p.where, p.comment_id) for p in due))
    edited = set(comments[:MAX_RESOLVE_EDITS])
    now = tuple(p for p in due if (p.where, p.comment_id) in edited)
    later = tuple(p for p in due if (p.where, p.comment_id) not in edited)
    if later:
        notes.append(owed_note(len(later)))
    return Resolution(now=now, later=later, notes=tuple(notes))


def owed_note(count: int) -> str:
    return (
        f"{count} more earlier finding(s) were not reported again, past the "
        f"{MAX_RESOLVE_EDITS} comments a run marks resolved: they stand until the next run "
        "marks them."
    )


def _could_resolve(coverage: Coverage | None, agents: Sequence[AgentReport]) -> bool:
    """Whether this run could find anything again: every reviewer ran to a normal end."""
    reviewers = [agent for agent in agents if agent.role == Role.REVIEWER]
    return (
        bool(reviewers)
        and all(agent.stop_reason.completed for agent in reviewers)
        and coverage is not None
    )


def resolvable(
    coverage: Coverage | None,
    agents: Sequence[AgentReport],
    vanished: Sequence[PriorNode],
    *,
    owed: Collection[str] = frozenset(),
) -> tuple[list[PriorNode], list[str]]:
    """The vanished findings that count as fixed, and notes on those that stay open.

    Per file: a finding resolves only when this run saw where it was (`Coverage.covers`),
    so padding one file past the context budget resolves nothing in that file. A finding
    the last review found fixed but could not mark (`owed`) resolves on that evidence.
    """
    settled = [p for p in vanished if p.node.fingerprint in owed]
    vanished = [p for p in vanished if p.node.fingerprint not in owed]
    if not vanished:
        return settled, []
    if coverage is None or not _could_resolve(coverage, agents):
        return settled, [
            f"{len(vanished)} earlier finding(s) were not reported again, but this run did not "
            "review the whole PR to a normal end, so none is marked resolved."
        ]
    seen: list[PriorNode] = []
    unseen: list[PriorNode] = []
    for prior in vanished:
        path = prior.node.anchor.path if prior.node.anchor else None
        (seen if coverage.covers(path) else unseen).append(prior)
    if not unseen:
        return [*settled, *seen], []
    return [*settled, *seen], [
        f"{len(unseen)} earlier finding(s) were not reported again, but they are in files (or "
        "about parts of the PR) this run did not see, so they stay open."
    ]


def vanished(nodes: Sequence[ReviewNode], prior: PriorState, head_sha: str) -> list[PriorNode]:
    """Earlier findings absent from this run, on a NEW head (the same head proves nothing fixed)."""
    current = {node.fingerprint for node in nodes}
    out = []
    for fingerprint, found in prior.by_fingerprint().items():
        node = found.node
        open_elsewhere = node.status in OPEN_STATUSES and not found_at(node, head_sha)
        if fingerprint not in current and open_elsewhere:
            out.append(found)
    return out


def found_at(node: ReviewNode, head_sha: str) -> bool:
    """Whether `node` was found at `head_sha`: reviewing that head again proves nothing fixed."""
    return node.commit_sha is not None and head_sha.startswith(node.commit_sha)
