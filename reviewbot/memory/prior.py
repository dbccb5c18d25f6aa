"""The prior state: what earlier runs and people left on the PR, read back from its comments.

`read_prior` turns the PR's comments (`CommentRecord`s, read by github/reader.py)
into a `PriorState`: the sealed node markers of reviewbot's own comments (the trust
rules are in memory/markers.py's docstring), the summary marker, the bot's PENDING
reviews left by a crashed run, and the `/confirm` and `/dismiss` replies of people
entitled to decide. What those mean for the nodes is lifecycle logic, in
nodes/history.py; a re-fold without a model reads the summary marker through the
methods here.

Must not: call GitHub, or decide what to post.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace

from pydantic import ValidationError

from reviewbot.commands.grammar import Place, Written, command_of
from reviewbot.coverage.model import Coverage, UnseenFile
from reviewbot.memory.markers import (
    NODE_TAG,
    SUMMARY_TAG,
    Sealed,
    SummaryMarker,
    find_markers,
    resolved_at,
    sealed_by,
)
from reviewbot.memory.postings import NodeHistory, PriorNode, apply_decisions, decisions_of
from reviewbot.memory.seal import Sealer
from reviewbot.nodes.boundary import Discarded, read_boundary
from reviewbot.nodes.history import (
    IgnoredCommand,
    Judged,
    apply_all,
    confirmations,
    fresh,
    recorded,
)
from reviewbot.nodes.lifecycle import Action, Transition
from reviewbot.nodes.model import ReviewNode
from reviewbot.results.report import ReviewRun
from reviewbot.sources.comments import CommentRecord, Where, location
from reviewbot.verdict.axes import VERIFIER_AXIS, AxisResult
from reviewbot.verdict.lattice import Verdict


@dataclass(frozen=True, slots=True, kw_only=True)
class PriorSummary:
    comment_id: int
    marker: SummaryMarker | None  # None when unreadable or unsealed: the comment is still edited


@dataclass(frozen=True, slots=True, kw_only=True)
class Trust:
    """What reading the PR's comments needs to tell reviewbot's own words and people's rights.

    `sealer` None: the run has no key, so no earlier comment can be recognised as
    reviewbot's. `is_writer` answers from the repository permission API (the adapter
    asks once per account); the default trusts nobody.
    """

    bot_login: str
    sealer: Sealer | None
    pr_author: str | None = None
    is_writer: Callable[[str], bool] = field(default=lambda login: False)


@dataclass(frozen=True, slots=True, kw_only=True)
class PriorState(NodeHistory):
    """Everything earlier runs (and people) left on the PR that this run builds on."""

    summary: PriorSummary | None = None
    pending_reviews: tuple[
        int, ...
    ] = ()  # the bot's own PENDING reviews (a crashed run's leftovers)
    discarded: tuple[Discarded, ...] = ()
    untrusted_markers: int = 0  # markers found in comments by other accounts, ignored
    unsealed_markers: int = 0  # markers in the bot account's comments without a valid seal
    ignored: tuple[IgnoredCommand, ...] = ()
    sealed: bool = True  # False: the run had no key, nothing earlier could be recognised
    # `/review full` issue comments by people entitled to decide (as for /confirm), by id.
    full_requests: tuple[int, ...] = ()
    ignored_full: tuple[IgnoredCommand, ...] = ()  # `/review full` by someone not entitled
    newest_comment: int | None = None  # the newest discussion comment id read

    @property
    def ignored_commands(self) -> int:
        return len(self.ignored)

    def recorded_run(self, head_sha: str) -> ReviewRun | None:
        """What the review of `head_sha` recorded about its kind (a re-fold keeps it)."""
        marker = self._of_head(head_sha)
        if marker is None or marker.kind is None:
            return None
        return ReviewRun(
            kind=marker.kind,
            since=marker.since,
            reason="as recorded by the review of this head",
            config_digest=marker.config_digest,
            last_comment=marker.last_comment,
            base_sha=marker.base_sha,
            patches=marker.patches,
            resolve_later=marker.resolve_later,
        )

    def owed(self) -> frozenset[str]:
        """Findings the last review found fixed but did not mark (past its edits): owed."""
        marker = self.summary_marker()
        return frozenset(marker.resolve_later) if marker is not None else frozenset()

    def unverified(self) -> frozenset[str]:
        """Findings the last recorded review left unverified: they wait for a judgement still.

        A summary that recorded the verifier's axis but not which findings (an older one, or
        too many to record) may have left any of the PR's findings unverified.
        """
        marker = self.summary_marker()
        if marker is None:
            return frozenset()
        if marker.unverified is not None:
            return frozenset(marker.unverified)
        if all(axis.name != VERIFIER_AXIS for axis in marker.axes):
            return frozenset()
        return frozenset(self.by_fingerprint())

    def summary_marker(self) -> SummaryMarker | None:
        """The last recorded review's summary marker, whatever head it names."""
        return self.summary.marker if self.summary else None

    def reviewed_head(self) -> str | None:
        """The head the last recorded review was of."""
        marker = self.summary.marker if self.summary else None
        return marker.head_sha if marker else None

    def _of_head(self, head_sha: str) -> SummaryMarker | None:
        """The summary marker, only when it recorded a review of `head_sha` (never another head's)."""
        marker = self.summary.marker if self.summary else None
        return marker if marker is not None and marker.head_sha == head_sha else None

    def proposed(self, head_sha: str) -> Verdict | None:
        """The agents' proposal for `head_sha`, for a re-fold: it can only add strictness."""
        marker = self._of_head(head_sha)
        return Verdict.parse(marker.proposed) if marker and marker.proposed else None

    def axes(self, head_sha: str) -> tuple[AxisResult, ...]:
        """The axes the last summary recorded for `head_sha`; empty for another head or none."""
        marker = self._of_head(head_sha)
        if marker is None:
            return ()
        return tuple(
            AxisResult(name=a.name, gated=a.gated, outcome=a.outcome, detail=a.detail)
            for a in marker.axes
        )

    def axis_nodes(self, head_sha: str, reviewer: str) -> tuple[ReviewNode, ...] | None:
        """The nodes `reviewer` raised, as the review of `head_sha` folded them, with today's
        human decisions.

        None when that review recorded no node states (or a node's content is not on the
        PR any more): the recorded outcome must then stand as it is.
        """
        marker = self._of_head(head_sha)
        if marker is None or marker.nodes is None:
            return None
        earlier = self.by_fingerprint()
        rebuilt = []
        for state in marker.nodes:
            if reviewer not in state.raisers:
                continue
            prior = earlier.get(state.fingerprint)
            if prior is None:
                return None
            peers = confirmations(state.confirmed_by)
            rebuilt.append(apply_all(fresh(state.as_judged(prior.node)), peers))
        return apply_decisions(rebuilt, self)

    def coverage(self, head_sha: str) -> Coverage | None:
        """The coverage the review of `head_sha` recorded; None for another head (never full)."""
        marker = self._of_head(head_sha)
        if marker is None or marker.coverage is None:
            return None
        recorded = marker.coverage
        notes = [
            f"as recorded by the review of {marker.head_sha[:12]}; "
            f"{recorded.files_listed} file(s) were not in the reviewer's context"
        ]
        if recorded.files_unseen > len(recorded.unseen):
            notes.append(
                f"{recorded.files_unseen} file(s) were not seen by any reviewer (the JSON report "
                "of that review lists them)"
            )
        return Coverage(
            files_total=recorded.files_total,
            files_in_context=recorded.files_in_context,
            unseen=tuple(
                UnseenFile(path=f.path, old_path=f.old_path, reason=f.reason, remedy=f.remedy)
                for f in recorded.unseen
            ),
            files_unlisted=recorded.files_unlisted,
            # Counted without their names: kept, so a re-fold's record forgets none of them.
            unseen_unnamed=max(recorded.files_unseen - len(recorded.unseen), 0),
            partial=recorded.partial or recorded.files_unseen > 0,
            notes=tuple(notes),
        )

    def review_nodes(self, head_sha: str | None = None) -> tuple[ReviewNode, ...]:
        """The prior nodes with human decisions applied: the input of a re-fold without a model.

        Nodes recorded for other heads still count (they can only make it stricter); for
        `head_sha` the assessment and confirmations the last review folded are applied.
        """
        marker = self._of_head(head_sha) if head_sha else None
        recorded = {s.fingerprint: s for s in (marker.nodes or ())} if marker else {}
        latest = [
            recorded[fp].as_judged(prior.node) if fp in recorded else prior.node
            for fp, prior in self.by_fingerprint().items()
        ]
        out = []
        for node in apply_decisions(latest, self, keep_status=True):
            state = recorded.get(node.fingerprint)
            peers = state.confirmed_by if state else ()
            out.append(apply_all(node, confirmations(peers)))
        return tuple(out)


def by_bot(record: CommentRecord, bot_login: str) -> bool:
    """Whether `record` was posted by the account reviewbot posts as (necessary, not sufficient)."""
    return record.author is not None and record.author.casefold() == bot_login.casefold()


def read_prior(records: Iterable[CommentRecord], trust: Trust) -> PriorState:
    """Turn the PR's comments into the prior state; never raises on hostile content."""
    records = list(records)
    nodes: list[PriorNode] = []
    discarded: list[Discarded] = []
    untrusted = unsealed_count = 0
    summaries: list[tuple[bool, PriorSummary]] = []  # (edited in place, summary)
    fallback: PriorSummary | None = None  # the oldest summary comment: edited, never believed
    pending: list[int] = []
    for record in records:
        has_marker = any(find_markers(record.body, tag) for tag in (NODE_TAG, SUMMARY_TAG))
        if not by_bot(record, trust.bot_login):
            untrusted += has_marker
            continue
        if record.where is Where.REVIEW and record.state == "PENDING":
            pending.append(record.id)
            continue
        sealed = sealed_by(record, trust.sealer)
        is_summary = record.where is Where.ISSUE and bool(find_markers(record.body, SUMMARY_TAG))
        if sealed is None:
            unsealed_count += has_marker
            if is_summary and fallback is None:
                fallback = PriorSummary(comment_id=record.id, marker=None)
            continue
        origin = f"marker in {record.where.value} comment {record.id}"
        result = read_boundary(find_markers(record.body, NODE_TAG), ReviewNode, origin=origin)
        discarded.extend(result.discarded)
        nodes.extend(
            PriorNode(
                node=recorded(node, edited=sealed is Sealed.EDITED),
                comment_id=record.id,
                where=record.where,
                body=record.body,
                shown_at=record.shown_at,
            )
            for node in result.valid
        )
        if is_summary:
            summaries.append((sealed is Sealed.EDITED, _summary_of(record)))
    # The summary reviewbot keeps editing (bound to its comment) beats a copy of its first version.
    summary = min(summaries, key=lambda s: (not s[0], s[1].comment_id))[1] if summaries else None
    nodes = _resolved_here(nodes, summary)
    decisions, ignored = decisions_of(records, nodes, lambda login: _not_entitled(login, trust))
    full_requests, ignored_full = _full_requests(records, trust)
    discussion = [r.id for r in records if r.where is Where.ISSUE]
    return PriorState(
        judged=_judged(summary),
        full_requests=full_requests,
        ignored_full=ignored_full,
        newest_comment=max(discussion, default=None),
        nodes=tuple(nodes),
        decisions=decisions,
        summary=summary or fallback,
        pending_reviews=tuple(pending),
        discarded=tuple(discarded),
        untrusted_markers=untrusted,
        unsealed_markers=unsealed_count,
        ignored=ignored,
        sealed=trust.sealer is not None,
    )


def _resolved_here(nodes: list[PriorNode], summary: PriorSummary | None) -> list[PriorNode]:
    """`nodes` with the postings the summary resolved (their comment was too long to edit)
    resolved: those in the very comments it names, never a later posting of the finding.

    Such a comment is not reopened in place either (`shown_at` None): it still says open,
    and a finding that comes back is posted anew, as after a resolution in a review body.
    """
    here = frozenset(summary.marker.resolved_here) if summary and summary.marker else frozenset()
    resolve = [Transition(action=Action.RESOLVE, by="reviewbot")]
    return [
        replace(p, node=apply_all(p.node, resolve), shown_at=None) if here_of(p) in here else p
        for p in nodes
    ]


def here_of(prior: PriorNode) -> str:
    """`prior`'s entry in a summary's `resolved_here` (`markers.resolved_at`)."""
    return resolved_at(prior.node.fingerprint, location(prior.where, prior.comment_id))


def _judged(summary: PriorSummary | None) -> tuple[Judged, ...]:
    """The assessments the believed summary recorded: a later run never goes below them."""
    states = summary.marker.nodes if summary and summary.marker else None
    return tuple(
        Judged(fingerprint=s.fingerprint, priority=s.priority, confidence=s.confidence)
        for s in states or ()
        if s.priority is not None and s.confidence is not None
    )


def _summary_of(record: CommentRecord) -> PriorSummary:
    payloads = find_markers(record.body, SUMMARY_TAG)
    try:
        marker: SummaryMarker | None = SummaryMarker.model_validate(payloads[0])
    except ValidationError:
        marker = None
    return PriorSummary(comment_id=record.id, marker=marker)


def _full_requests(
    records: Sequence[CommentRecord], trust: Trust
) -> tuple[tuple[int, ...], tuple[IgnoredCommand, ...]]:
    """`/review full` discussion comments by people who may decide findings, and the rest."""
    asked, ignored = [], []
    for record in records:
        written = Written(place=Place.PR_COMMENT, author=record.author or "", comment_id=record.id)
        command = command_of(record.body, written) if record.where is Where.ISSUE else None
        if command is None or not command.full:
            continue
        why = _not_entitled(record.author, trust) if record.author else "is unknown"
        if why is None:
            asked.append(record.id)
        else:  # said in the summary, as an ignored /confirm is
            ignored.append(
                IgnoredCommand(login=record.author or "ghost", comment_id=record.id, why=why)
            )
    return tuple(asked), tuple(ignored)


def _not_entitled(login: str, trust: Trust) -> str | None:
    """Why `login` may not decide a finding (None: they may)."""
    if login.casefold() == trust.bot_login.casefold():
        return "is the account reviewbot posts as"  # every workflow can post as it
    if trust.pr_author is not None and login.casefold() == trust.pr_author.casefold():
        return "is the PR's author"  # nobody judges their own PR, write access or not
    if not trust.is_writer(login):
        return "has no write access"
    return None


def prior_notes(prior: PriorState) -> list[str]:
    """What reading the PR's earlier comments applied and ignored, for the notes of the summary."""
    notes: list[str] = []
    if not prior.sealed:
        notes.append(
            "No key to seal reviewbot's comments with (REVIEWBOT_MARKER_KEY or ANTHROPIC_API_KEY): "
            "earlier findings were not recognised, and the next run will not recognise these."
        )
    if prior.untrusted_markers:
        notes.append(
            f"Ignored {prior.untrusted_markers} reviewbot marker(s) in comments by other accounts."
        )
    if prior.unsealed_markers:
        notes.append(
            f"Ignored {prior.unsealed_markers} reviewbot marker(s) in comments without reviewbot's "
            "seal (posted by another workflow as the same account, or by a run without the key)."
        )
    if prior.discarded:
        notes.append(f"Discarded {len(prior.discarded)} malformed reviewbot marker(s).")
    notes.extend(_decision_notes(prior))
    return notes


def _decision_notes(prior: PriorState) -> list[str]:
    """Who confirmed or dismissed what, and which commands were ignored and why."""
    titles = {fp: p.node for fp, p in prior.by_fingerprint().items()}
    notes = []
    for decision in prior.decisions:
        node = titles.get(decision.fingerprint)
        what = f"{node.priority.value} “{node.title}”" if node else decision.fingerprint
        said = f": {decision.transition.reason[:200]}" if decision.transition.reason else ""
        verb = "confirmed" if decision.transition.action is Action.CONFIRM else "dismissed"
        notes.append(f"`{decision.login}` {verb} {what}{said}")
    if prior.ignored:
        reasons: dict[str, list[str]] = {}
        for command in prior.ignored:
            reasons.setdefault(command.why, []).append(f"`{command.login}`")
        why = "; ".join(
            f"{len(logins)} by an account that {why} ({', '.join(dict.fromkeys(logins))})"
            for why, logins in reasons.items()
        )
        notes.append(f"Ignored {len(prior.ignored)} /confirm or /dismiss: {why}.")
    for command in prior.ignored_full:
        notes.append(
            f"Ignored `/review full` by `{command.login}` (comment {command.comment_id}): "
            f"an account that {command.why}."
        )
    return notes
