"""What the PR's `/dismiss` replies teach: one `.reviewbot/learnings.toml` entry per finding.

Only decisions `read_prior` accepted count (a reply to a sealed finding of reviewbot's, by
someone entitled to decide findings: write access, not the PR's author, not the bot), so
the entries are exactly the dismissals that changed the review. Used by `reviewbot learn`
(to write the file) and by the summary (to show the entry a dismissal teaches).

Must not: read or write the file, or call a forge.
"""

from __future__ import annotations

from collections.abc import Callable

from reviewbot.config.learnings import Learning, learning_of
from reviewbot.memory.postings import NodeHistory
from reviewbot.nodes.lifecycle import Action
from reviewbot.nodes.model import ReviewNode

UNKNOWN_TIME = "1970-01-01T00:00:00Z"  # a forge that gives no time: a fixed one, never "now"


def taught(
    history: NodeHistory, *, pr: int | None, code: Callable[[ReviewNode], str | None] | None = None
) -> tuple[Learning, ...]:
    """One entry per dismissed finding, from its first `/dismiss` (a later one repeats it).

    `code(node)`: its anchored lines, read where the finding was made (markers keep none).
    """
    nodes = history.by_fingerprint()
    out: dict[str, Learning] = {}
    for decision in history.decisions:
        prior = nodes.get(decision.fingerprint)
        if decision.transition.action is not Action.DISMISS or prior is None:
            continue
        if decision.fingerprint in out:
            continue
        out[decision.fingerprint] = learning_of(
            prior.node,
            reason=decision.transition.reason,
            by=decision.login,
            at=decision.at or UNKNOWN_TIME,
            pr=pr,
            code=code(prior.node) if code is not None else None,
        )
    return tuple(out.values())
