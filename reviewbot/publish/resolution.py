"""Earlier findings this run no longer reports: which count as fixed, and their edited comments.

Earlier findings missing from this run are marked resolved only when the run
could have found them: a new head, every reviewer agent ran to a normal end, the
coverage was reported, and it covers the finding's file (`Coverage.covers`: a file
no reviewer saw keeps its findings open; past GitHub's file-listing limit, nothing
resolves). A run without a key, with a rejected key, a crash or an exhausted
budget resolves nothing. At most `MAX_RESOLVE_EDITS` comments are marked a run
(`resolution`): the findings past them stand in this run's report, and the summary
records them as owed, so the next run marks them on this run's evidence.

Owns too: rewriting the markers' status, showing the resolution banner, and keeping the
result within the body limit without ever cutting a marker. A cut marker would drop its
finding out of the prior state (it would be posted again), and an unterminated
`<!--` would hide the rest of the comment. The old seal is stripped first: it is
re-made over the new body by the caller, and must not count against the limit.

Must not: call GitHub or seal (that is `github/publisher.py` and `markers.seal_body`).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass

from reviewbot.memory.markers import rewrite_status, unsealed
from reviewbot.memory.prior import PriorState
from reviewbot.modes.profile import Role
from reviewbot.nodes.history import OPEN_STATUSES, PriorNode
from reviewbot.nodes.model import ReviewNode, Status
from reviewbot.publish.body import MAX_BODY, finish
from reviewbot.redact import Redactor
from reviewbot.results.report import AgentReport
from reviewbot.results.run import Coverage

_OPENER, _CLOSER = "<!--", "-->"
MAX_RESOLVE_EDITS = 10  # comments marked resolved per run; the rest on the next (writes stay O(1))


def resolved_body(
    old: str,
    fingerprints: Collection[str],
    banner: str,
    *,
    on_top: bool,
    redactor: Redactor,
    limit: int = MAX_BODY,
) -> str | None:
    """`old` with `fingerprints` resolved, unsealed; None when it cannot fit with every marker.

    `on_top`: the whole comment is the finding, the banner goes first; otherwise the
    banner is shown at each resolved item. When the banners do not fit they are left out
    (the summary still lists the resolution); then whole lines of prose go, last first.
    """
    plain = unsealed(old)
    for shown in (banner, ""):
        if on_top:
            new = rewrite_status(plain, fingerprints, Status.RESOLVED, redactor=redactor)
            new = f"{shown}\n\n{new}" if shown else new
        else:
            new = rewrite_status(
                plain, fingerprints, Status.RESOLVED, banner=shown, redactor=redactor
            )
        body = finish(new, redactor, limit=limit)
        if _intact(body, new):
            return body
    return _without_prose(redactor(new), limit)


def _intact(cut: str, whole: str) -> bool:
    """No marker was cut: each opened and closed one is still there."""
    return all(cut.count(end) == whole.count(end) for end in (_OPENER, _CLOSER))


def _without_prose(body: str, limit: int) -> str | None:
    """`body` with lines that carry no marker dropped from the end until it fits."""
    lines = body.split("\n")
    dropped: set[int] = set()
    size = len(body)
    for index in reversed(range(len(lines))):
        if size <= limit:
            break
        if _OPENER not in lines[index]:
            dropped.add(index)
            size -= len(lines[index]) + 1
    kept = "\n".join(line for index, line in enumerate(lines) if index not in dropped)
    return kept if len(kept) <= limit else None


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
        same_head = node.commit_sha is not None and head_sha.startswith(node.commit_sha)
        if fingerprint not in current and node.status in OPEN_STATUSES and not same_head:
            out.append(found)
    return out
