"""A node's postings on the PR, folded into one per fingerprint, and the decisions on them.

- one node per fingerprint over all its sealed postings (`NodeHistory.by_fingerprint`);
- `decisions_of` reads the `/confirm` and `/dismiss` decisions: replies in a sealed inline
  comment's thread, and discussion comments that name a finding by id;
- `apply_decisions` applies what earlier runs and people decided to this run's nodes (not to
  be confused with carrying a finding forward to its new lines: scope/carry.py).

Must not: import the wire format (memory/markers.py), redaction or a forge.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace

from reviewbot.commands.grammar import Command, Place, Verb, Written, command_of
from reviewbot.nodes.assessment import stricter
from reviewbot.nodes.history import (
    HUMAN,
    OPEN_STATUSES,
    HumanDecision,
    IgnoredCommand,
    Judged,
    apply_all,
    confirmations,
    fresh,
)
from reviewbot.nodes.lifecycle import Action, Transition
from reviewbot.nodes.model import ReviewNode, Status
from reviewbot.sources.comments import CommentRecord, DiffLines, Where

MAX_REASON = 500  # characters of a decision's reason kept in the record
_ACTIONS = {Verb.CONFIRM: Action.CONFIRM, Verb.DISMISS: Action.DISMISS}


@dataclass(frozen=True, slots=True, kw_only=True)
class PriorNode:
    """A node found in a sealed marker, with the comment that carries it."""

    node: ReviewNode  # its status rebuilt through the lifecycle, never copied from the marker
    comment_id: int
    where: Where
    body: str  # the comment's full body, to edit it in place when the node is resolved
    shown_at: DiffLines | None = (
        None  # an inline comment's lines on the head's diff (None: outdated)
    )


@dataclass(frozen=True, slots=True, kw_only=True)
class NodeHistory:
    """Every sealed posting of a node on the PR, and what people decided about them."""

    nodes: tuple[PriorNode, ...] = ()  # every sealed posting, in the order GitHub listed them
    decisions: tuple[HumanDecision, ...] = ()
    judged: tuple[Judged, ...] = ()  # the last recorded review's assessments (its summary)

    def by_fingerprint(self) -> dict[str, PriorNode]:
        """One prior node per fingerprint, its status folded through the lifecycle.

        Its peers are everyone who confirmed any posting of it; it is `resolved` only
        when every posting carries reviewbot's resolution record (a finding found again
        after it was resolved is posted again, and that posting stands). The comment
        kept is the latest standing posting, the one a resolution would edit. Its priority
        and confidence are the strictest any posting or recorded review gave it
        (`assessment.stricter`): across runs a finding only gets stricter.
        """
        groups: dict[str, list[PriorNode]] = {}
        for prior in self.nodes:
            groups.setdefault(prior.node.fingerprint, []).append(prior)
        judged: dict[str, list[Judged]] = {}
        for assessment in self.judged:
            judged.setdefault(assessment.fingerprint, []).append(assessment)
        out = {}
        for fingerprint, postings in groups.items():
            standing = [p for p in postings if p.node.status is not Status.RESOLVED]
            kept = (standing or postings)[-1]
            peers = dict.fromkeys(peer for p in postings for peer in p.node.confirmed_by)
            events = confirmations(peers)
            if not standing:
                events.append(Transition(action=Action.RESOLVE, by="reviewbot"))
            node = stricter(kept.node, *(p.node for p in postings), *judged.get(fingerprint, ()))
            out[fingerprint] = replace(kept, node=apply_all(fresh(node), events))
        return out

    def posted_at(self) -> dict[str, str]:
        """Fingerprint → the path of the comment each anchored finding is on (its fingerprint's)."""
        return {
            fp: prior.node.anchor.path
            for fp, prior in self.by_fingerprint().items()
            if prior.node.anchor is not None
        }

    def reopenable(self) -> dict[str, PriorNode]:
        """Fingerprint → the inline comment a resolved finding that comes back can be reopened in:
        its latest inline posting, while the head's diff still shows it (an outdated one cannot
        be, nor a finding that was only in a review body: those are posted anew)."""
        resolved = {
            fp
            for fp, prior in self.by_fingerprint().items()
            if prior.node.status is Status.RESOLVED
        }
        latest = {
            prior.node.fingerprint: prior
            for prior in self.nodes
            if prior.where is Where.INLINE and prior.node.fingerprint in resolved
        }
        return {fp: prior for fp, prior in latest.items() if prior.shown_at is not None}

    def posted(self) -> frozenset[str]:
        """Fingerprints already on the PR and still standing (a resolved one may be posted again)."""
        return frozenset(
            fp for fp, prior in self.by_fingerprint().items() if prior.node.status in OPEN_STATUSES
        )


def decisions_of(
    records: Sequence[CommentRecord],
    nodes: Sequence[PriorNode],
    not_entitled: Callable[[str], str | None],
) -> tuple[tuple[HumanDecision, ...], tuple[IgnoredCommand, ...]]:
    """`/confirm` and `/dismiss` decisions, in the order written.

    A reply in a sealed inline comment's thread decides that comment's finding (no id needed);
    in the PR's discussion, `/dismiss <id> <reason>` names the finding by its fingerprint (or a
    prefix of at least 8 of its digits). `not_entitled(login)` says why an account may not
    decide (None: it may).
    """
    inline = {p.comment_id: p.node.fingerprint for p in nodes if p.where is Where.INLINE}
    known = {p.node.fingerprint for p in nodes}
    decisions: list[HumanDecision] = []
    ignored: list[IgnoredCommand] = []
    for record in records:
        command = _decision_command(record, inline)
        if command is None or not record.author:
            continue
        fingerprint, why = _finding_of(command, inline, known)
        why = why or not_entitled(record.author)
        if fingerprint is None or why is not None:
            ignored.append(IgnoredCommand(login=record.author, comment_id=record.id, why=why or ""))
            continue
        action = _ACTIONS[command.verb]
        reason = _reason(command, fingerprint)[:MAX_REASON]
        transition = Transition(action=action, by=f"{HUMAN}{record.author}", reason=reason)
        decisions.append(
            HumanDecision(
                fingerprint=fingerprint,
                transition=transition,
                comment_id=record.id,
                login=record.author,
                at=record.created_at,
            )
        )
    return tuple(decisions), tuple(ignored)


def _decision_command(record: CommentRecord, inline: dict[int, str]) -> Command | None:
    """The `/confirm` or `/dismiss` of a reply in a finding's thread or of a discussion comment."""
    if record.where is Where.INLINE and record.in_reply_to in inline:
        place, root = Place.THREAD_REPLY, record.in_reply_to
    elif record.where is Where.ISSUE:
        place, root = Place.PR_COMMENT, None
    else:
        return None
    written = Written(
        place=place, author=record.author or "", comment_id=record.id, thread_root=root
    )
    command = command_of(record.body, written)
    return command if command is not None and command.verb in _ACTIONS else None


def _reason(command: Command, fingerprint: str) -> str:
    """The reason as written: a first word the grammar took for an id stays in it when it does
    not name the finding decided (a date, a number)."""
    named = command.finding_id
    if named is None or fingerprint.startswith(named):
        return command.text
    return f"{named} {command.text}".strip()


def _finding_of(
    command: Command, inline: dict[int, str], known: set[str]
) -> tuple[str | None, str | None]:
    """The fingerprint a decision applies to, or why it applies to none."""
    named = command.finding_id
    if command.written.thread_root is not None:
        fingerprint = inline[command.written.thread_root]
        others = [fp for fp in known if fp != fingerprint and fp.startswith(named or "-")]
        if named is not None and not fingerprint.startswith(named) and others:
            return None, f"named finding {named} in the thread of finding {fingerprint}"
        return fingerprint, None  # a first word naming no finding is the reason's ("20261130 …")
    if named is None:
        return None, f"wrote no finding id (/{command.verb.value} <id> … in the PR's discussion)"
    matches = sorted(fp for fp in known if fp.startswith(named))
    if len(matches) != 1:
        return None, f"named {named}, which is {'no' if not matches else 'more than one'} finding"
    return matches[0], None


def apply_decisions(
    nodes: Iterable[ReviewNode], history: NodeHistory, *, keep_status: bool = False
) -> tuple[ReviewNode, ...]:
    """Apply what earlier runs and people decided to this run's nodes, matched by fingerprint.

    Peers who confirmed a node earlier (the verifier or a human) still count; `/confirm`
    and `/dismiss` replies are applied in the order they were written. The node's priority
    and confidence are never below what earlier runs gave it (`assessment.stricter`): a
    re-raise at a lower priority does not downgrade a finding, nor inherit its confirmations
    at the lower weight. Illegal moves
    (confirming a dismissed node) are skipped: a stale reply must not end the run. With
    `keep_status`, the prior node's own status (e.g. resolved) is kept as well (used when
    re-folding prior nodes).
    """
    earlier = history.by_fingerprint()
    decided: dict[str, list[Transition]] = {}
    for decision in history.decisions:
        decided.setdefault(decision.fingerprint, []).append(decision.transition)
    out = []
    for node in nodes:
        before = earlier.get(node.fingerprint)
        if before is not None:
            node = stricter(node, before.node)
        events = list(_prior_events(before.node, keep_status) if before else ())
        events.extend(decided.get(node.fingerprint, ()))
        if keep_status and before is not None:
            node = fresh(node)
        out.append(apply_all(node, events))
    return tuple(out)


def _prior_events(node: ReviewNode, keep_status: bool) -> list[Transition]:
    events = confirmations(node.confirmed_by)
    if keep_status and node.status is Status.RESOLVED:
        events.append(Transition(action=Action.RESOLVE, by="prior"))
    return events
