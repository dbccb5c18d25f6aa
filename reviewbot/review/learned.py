"""The repository's learnings applied to a run's findings, before the axes are judged.

A new finding that matches a learning (`config.learnings`: the same fingerprint, or the
same rule in the learning's scope) is a decision the maintainers already made and
committed on the base branch, so it is applied as a `/dismiss` is: the node becomes
`dismissed` (by `learning:<fingerprint>`), is not posted inline, and neither its axis nor
the node rules count it. It never vanishes: it stays in the report's nodes with a note
naming the entry, and `LearningsReport.suppressed` lists it with the entry.

A learning never suppresses a P0, nor a finding a person `/confirm`ed on this PR: the
finding stands and is posted, with the learning beside it (a note, `LearningsReport.kept`). Evidence only ever makes a verdict
stricter; a P0 needs a person's `/dismiss` on the PR itself.

Must not: read the file (the snapshot carries the base branch's learnings) or publish.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from reviewbot.config.learnings import LEARNINGS_FILE, Learning, Learnings
from reviewbot.memory.postings import NodeHistory
from reviewbot.memory.taught import taught
from reviewbot.nodes.history import HUMAN, apply_all
from reviewbot.nodes.lifecycle import Action, Transition
from reviewbot.nodes.model import Priority, ReviewNode, Status
from reviewbot.results.learned import LearnedMatch, LearningsReport
from reviewbot.scope.review_scope import Carry
from reviewbot.sources.snapshot import PRSnapshot

_STANDING = frozenset({Status.OPEN, Status.CONSENSUS_READY})


def _why_kept(node: ReviewNode) -> str | None:
    """Why a learning must not suppress `node`: a P0, or a person confirmed it on this PR (a
    decision on this very PR outranks one taken on an earlier PR). None: it may."""
    if node.priority is Priority.P0:
        return "to a P0"
    if any(peer.startswith(HUMAN) for peer in node.confirmed_by):
        return "to a finding a person confirmed on this PR"
    return None


def learned_from(learning: Learning) -> str:
    """How a note names the entry: file, fingerprint, who decided, on which PR, why."""
    pr = f" on PR #{learning.pr}" if learning.pr is not None else ""
    why = f": {learning.reason}" if learning.reason else ""
    return f"{LEARNINGS_FILE} entry {learning.fingerprint} (dismissed by {learning.by}{pr}){why}"


@dataclass(slots=True)
class Learner:
    """Applies `learnings` after `then` (the run's other decisions) and records each match."""

    learnings: Learnings
    changed: tuple[str, ...] = ()
    taught: tuple[Learning, ...] = ()  # what the PR's /dismiss replies teach (memory/taught.py)
    suppressed: list[LearnedMatch] = field(default_factory=list)
    kept: list[LearnedMatch] = field(default_factory=list)

    @classmethod
    def of(cls, snapshot: PRSnapshot, prior: NodeHistory | None) -> Learner:
        """The base branch's learnings for `snapshot`, and what the PR's dismissals teach."""
        return cls(
            snapshot.learnings,
            changed=tuple(f.path for f in snapshot.diff),
            taught=taught(prior, pr=snapshot.number) if prior is not None else (),
        )

    def after(self, then: Carry | None) -> Carry | None:
        if not self.learnings.entries:
            return then

        def apply(found: Sequence[ReviewNode]) -> Sequence[ReviewNode]:
            nodes = then(found) if then is not None else tuple(found)
            self.suppressed.clear()
            self.kept.clear()
            return tuple(self._one(node) for node in nodes)

        return apply

    def _one(self, node: ReviewNode) -> ReviewNode:
        found = self.learnings.matching(node) if node.status in _STANDING else None
        if found is None:
            return node
        learning, how = found
        match = LearnedMatch(
            node_id=node.id,
            fingerprint=node.fingerprint,
            priority=node.priority,
            title=node.title,
            matched_by=how,
            learning=learning,
        )
        why_kept = _why_kept(node)
        if why_kept is not None:
            self.kept.append(match)
            note = f"matches a learning, not applied {why_kept}: {learned_from(learning)}"
            return node.model_copy(update={"notes": (*node.notes, note[:2_000])})
        self.suppressed.append(match)
        event = Transition(
            action=Action.DISMISS, by=f"learning:{learning.fingerprint}", reason=learning.reason
        )
        note = f"suppressed by a learning ({how}): {learned_from(learning)}"
        dismissed = apply_all(node, (event,))
        return dismissed.model_copy(update={"notes": (*dismissed.notes, note[:2_000])})

    def report(self) -> LearningsReport | None:
        known = {entry.fingerprint for entry in self.learnings.entries}
        to_add = tuple(entry for entry in self.taught if entry.fingerprint not in known)
        if not self.learnings.entries and not to_add:
            return None
        return LearningsReport(
            shown=self.learnings.applying(self.changed),
            suppressed=tuple(self.suppressed),
            kept=tuple(self.kept),
            to_add=to_add,
        )
