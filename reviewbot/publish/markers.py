"""Hidden markers: how a run finds what earlier runs posted on the PR, and what humans said.

Owns the two markers reviewbot writes into its GitHub comments and the reading
of them back into review nodes:

    <!-- reviewbot:node {"id":"review-1","kind":"bug",…,"fingerprint":"…"} -->
    <!-- reviewbot:summary {"head_sha":"…","verdict":"hold","axes":[…],"coverage":{…}} -->

A node marker is a compact `ReviewNode` (without body, suggestion and quote), so a
later run can rebuild the node state — id, fingerprint, status, priority, kind,
title, anchor — and re-fold a verdict without a model call; the summary marker
keeps the verdict, the axes and the coverage counts of the last review for the
same purpose. Every string of a marker passes through the run's `Redactor` BEFORE
it is escaped (an escaped secret no longer looks like itself, so redacting the
finished comment would miss it). Then every character that could end an HTML
comment early or start another one (`<`, `>`, `&`, `-`) is written as a JSON
`\\u` escape, so the marker stays one hidden HTML comment through GitHub's
markdown rendering whatever the title says.

Trust: a marker is read ONLY from a comment authored by reviewbot's own account,
and every node it carries passes through the read boundary (`read_boundary` with
`ReviewNode`); a forged or malformed marker is a discard, never trusted. Since the
bot's own comments are trusted, nothing untrusted may ever carry a marker into
them: `neutralize` is applied to every untrusted text a comment shows (see
body.py and suggestion.py). Human `/confirm` and `/dismiss` replies count only
from accounts with write access.

Must not: call GitHub (the adapter hands it plain `CommentRecord`s), or decide
what to post.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from reviewbot.errors import LifecycleError
from reviewbot.nodes.boundary import Discarded, admit, read_boundary
from reviewbot.nodes.lifecycle import Action, Event, apply
from reviewbot.nodes.model import ReviewNode, Status
from reviewbot.redact import Redactor
from reviewbot.report import AxisReport, Coverage, Report, UnseenFile
from reviewbot.verdict.axes import AxisResult, Outcome
from reviewbot.verdict.fold import Source
from reviewbot.verdict.lattice import Label, Verdict

NODE_TAG = "reviewbot:node"
SUMMARY_TAG = "reviewbot:summary"
# Marker bodies are one line of JSON; `.*?` stops at the first `-->`, which escaped JSON never contains.
_MARKER = re.compile(r"<!--\s*(reviewbot:(?:node|summary))\s+(.*?)\s*-->")
_ESCAPES = {c: f"\\u{ord(c):04x}" for c in "<>&-"}
# GitHub's author_association values of accounts that can push: only they may confirm or dismiss.
TRUSTED_ASSOCIATIONS = frozenset({"OWNER", "MEMBER", "COLLABORATOR"})
_OPEN_STATUSES = frozenset({Status.OPEN, Status.CONSENSUS_READY})
MAX_AXIS_DETAIL = 300  # the summary marker stays small; the full detail is in the summary text
MAX_UNSEEN_MARKED = 20  # unseen files the summary marker names (all of them, or none)
MAX_UNSEEN_TEXT = 300
# Token shapes only: the default for callers without the run's redactor (tests, tooling).
# Publishing always passes the run's own `Redactor`, which also knows its secret values.
SHAPES_ONLY = Redactor()


class Where(StrEnum):
    """Where a comment lives on the PR."""

    INLINE = "inline"  # a review comment on a line
    REVIEW = "review"  # the body of a review
    ISSUE = "issue"  # a discussion (issue) comment


@dataclass(frozen=True, slots=True, kw_only=True)
class CommentRecord:
    """One comment read from GitHub, reduced to what marker reading needs."""

    id: int
    where: Where
    author: str | None  # None for deleted ("ghost") accounts
    body: str
    association: str = "NONE"
    in_reply_to: int | None = None
    path: str | None = None
    line: int | None = None
    start_line: int | None = None
    state: str | None = None  # reviews only: PENDING, COMMENTED, APPROVED, …


class _Marker(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class AxisMarker(_Marker):
    """One axis as the last review judged it, so a re-fold can reuse it without a model call."""

    name: str = Field(min_length=1, max_length=100)
    gated: bool
    outcome: Outcome
    detail: str = Field(default="", max_length=MAX_AXIS_DETAIL)

    @classmethod
    def of(cls, axis: AxisReport, *, redactor: Redactor = SHAPES_ONLY) -> AxisMarker:
        # Redacted before the cut: a secret cut in half no longer matches the redactor.
        return cls(
            name=axis.name,
            gated=axis.gated,
            outcome=axis.outcome,
            detail=redactor(axis.detail)[:MAX_AXIS_DETAIL],
        )


class UnseenMarker(_Marker):
    """A file the last review did not see, so a re-fold's summary still names it."""

    path: str = Field(max_length=MAX_UNSEEN_TEXT)
    old_path: str | None = Field(default=None, max_length=MAX_UNSEEN_TEXT)
    reason: str = Field(max_length=MAX_UNSEEN_TEXT)
    remedy: str = Field(max_length=MAX_UNSEEN_TEXT)


class CoverageMarker(_Marker):
    """The coverage counts of the last review (the listed files stay in the summary text).

    The unseen files are kept only when all of them fit (`MAX_UNSEEN_MARKED`): a partial
    list would let a re-fold believe the others were seen.
    """

    files_total: int = Field(ge=0)
    files_in_context: int = Field(ge=0)
    files_listed: int = Field(ge=0)
    partial: bool
    files_unseen: int = Field(default=0, ge=0)
    unseen: tuple[UnseenMarker, ...] = Field(default=(), max_length=MAX_UNSEEN_MARKED)
    files_unlisted: int = Field(default=0, ge=0)

    @classmethod
    def of(cls, coverage: Coverage, *, redactor: Redactor = SHAPES_ONLY) -> CoverageMarker:
        unseen: tuple[UnseenMarker, ...] = ()
        if len(coverage.unseen) <= MAX_UNSEEN_MARKED:
            unseen = tuple(
                UnseenMarker(
                    path=_cut(f.path, redactor),
                    old_path=_cut(f.old_path, redactor) if f.old_path else None,
                    reason=_cut(f.reason, redactor),
                    remedy=_cut(f.remedy, redactor),
                )
                for f in coverage.unseen
            )
        return cls(
            files_total=coverage.files_total,
            files_in_context=coverage.files_in_context,
            files_listed=len(coverage.files_listed),
            partial=coverage.partial,
            files_unseen=len(coverage.unseen),
            unseen=unseen,
            files_unlisted=coverage.files_unlisted,
        )


def _cut(text: str, redactor: Redactor) -> str:
    # Redacted before the cut: a secret cut in half no longer matches the redactor.
    return redactor(text)[:MAX_UNSEEN_TEXT]


class SummaryMarker(_Marker):
    """What the summary comment remembers between runs."""

    # extra="ignore" here only: summaries written before `review_id` was dropped still carry
    # it, and an unreadable summary marker would make a re-fold forget the last axes.
    # Nothing is lost by ignoring a field: the marker is trusted only from the bot's account.
    model_config = ConfigDict(frozen=True, extra="ignore")

    head_sha: str = Field(pattern=r"^[0-9a-f]{7,64}$")
    verdict: Label
    axes: tuple[AxisMarker, ...] = ()
    coverage: CoverageMarker | None = None
    # The agents' own proposal: a re-fold without a model must not fall below it.
    proposed: Label | None = None

    @classmethod
    def of(
        cls, report: Report, *, head_sha: str, redactor: Redactor = SHAPES_ONLY
    ) -> SummaryMarker:
        proposals = [r.verdict for r in report.reasons if r.source is Source.PROPOSAL]
        return cls(
            head_sha=head_sha,
            verdict=report.verdict,
            axes=tuple(AxisMarker.of(axis, redactor=redactor) for axis in report.axes),
            coverage=(
                CoverageMarker.of(report.coverage, redactor=redactor) if report.coverage else None
            ),
            proposed=max(proposals, key=Verdict.parse) if proposals else None,
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class PriorNode:
    """A node found in a trusted marker, with the comment that carries it."""

    node: ReviewNode
    comment_id: int
    where: Where
    body: str  # the comment's full body, to edit it in place when the node is resolved


@dataclass(frozen=True, slots=True, kw_only=True)
class HumanDecision:
    """A `/confirm` or `/dismiss` reply by a person in a node's thread."""

    fingerprint: str
    event: Event
    comment_id: int


@dataclass(frozen=True, slots=True, kw_only=True)
class PriorSummary:
    comment_id: int
    marker: SummaryMarker | None  # None when the marker was unreadable: the comment is still edited


@dataclass(frozen=True, slots=True, kw_only=True)
class PriorState:
    """Everything earlier runs (and people) left on the PR that this run builds on."""

    nodes: tuple[PriorNode, ...] = ()
    decisions: tuple[HumanDecision, ...] = ()
    summary: PriorSummary | None = None
    pending_reviews: tuple[
        int, ...
    ] = ()  # the bot's own PENDING reviews (a crashed run's leftovers)
    discarded: tuple[Discarded, ...] = ()
    untrusted_markers: int = 0  # markers found in comments by other accounts, ignored
    ignored_commands: int = 0  # /confirm or /dismiss from accounts without write access

    def by_fingerprint(self) -> dict[str, PriorNode]:
        """The latest prior node for each fingerprint (later comments win)."""
        return {prior.node.fingerprint: prior for prior in self.nodes}

    def posted(self) -> frozenset[str]:
        """Fingerprints already on the PR and still standing (a resolved one may be posted again)."""
        standing = _OPEN_STATUSES | {Status.DISMISSED}
        return frozenset(
            fp for fp, prior in self.by_fingerprint().items() if prior.node.status in standing
        )

    def proposed(self) -> Verdict | None:
        """The verdict the agents proposed last time, for a re-fold: it can only add strictness."""
        marker = self.summary.marker if self.summary else None
        return Verdict.parse(marker.proposed) if marker and marker.proposed else None

    def axes(self) -> tuple[AxisResult, ...]:
        """The axes the last summary recorded; empty when there is no readable summary."""
        marker = self.summary.marker if self.summary else None
        if marker is None:
            return ()
        return tuple(
            AxisResult(name=a.name, gated=a.gated, outcome=a.outcome, detail=a.detail)
            for a in marker.axes
        )

    def coverage(self) -> Coverage | None:
        """The last review's coverage (counts and `partial`), for a re-fold's report."""
        marker = self.summary.marker if self.summary else None
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
            partial=recorded.partial,
            notes=tuple(notes),
        )

    def review_nodes(self) -> tuple[ReviewNode, ...]:
        """The prior nodes with human decisions applied: the input of a re-fold without a model."""
        latest = [prior.node for prior in self.by_fingerprint().values()]
        return carry_over(latest, self, keep_status=True)


def dumps_marker(tag: str, payload: dict[str, Any], *, redactor: Redactor = SHAPES_ONLY) -> str:
    """`<!-- tag {json} -->` on one line, redacted then escaped (see the module docstring)."""
    # json.dumps escapes newlines and other control characters itself: the marker is one line.
    text = json.dumps(
        _redacted(payload, redactor), separators=(",", ":"), ensure_ascii=False, sort_keys=False
    )
    for char, escape in _ESCAPES.items():
        text = text.replace(char, escape)
    return f"<!-- {tag} {text} -->"


def _redacted(value: object, redactor: Redactor) -> object:
    """`value` with every string in it redacted (keys are ours and stay as they are)."""
    match value:
        case str():
            return redactor(value)
        case dict():
            return {key: _redacted(item, redactor) for key, item in value.items()}
        case list() | tuple():
            return [_redacted(item, redactor) for item in value]
    return value


def node_marker(node: ReviewNode, *, redactor: Redactor = SHAPES_ONLY) -> str:
    """The hidden marker for `node`: enough to rebuild its state, none of its prose."""
    payload = node.model_dump(
        mode="json", exclude={"body", "suggestion", "disputes", "notes"}, exclude_defaults=True
    )
    if node.anchor is not None:
        payload["anchor"] = {
            "path": node.anchor.path,
            "start_line": node.anchor.start_line,
            "end_line": node.anchor.end_line,
            "quote": "",
        }
    payload["status"] = node.status.value  # always explicit, even when it is the default
    return dumps_marker(NODE_TAG, payload, redactor=redactor)


def summary_marker(marker: SummaryMarker, *, redactor: Redactor = SHAPES_ONLY) -> str:
    return dumps_marker(SUMMARY_TAG, marker.model_dump(mode="json"), redactor=redactor)


def rewrite_status(
    body: str,
    fingerprints: Collection[str],
    status: Status,
    *,
    banner: str = "",
    redactor: Redactor = SHAPES_ONLY,
) -> str:
    """`body` with the node markers of `fingerprints` set to `status`, `banner` shown before each.

    Used to mark an earlier comment's findings resolved in place. Each marker is
    re-admitted through the read boundary before it is re-written; one that does not
    pass is left untouched.
    """

    def replace(match: re.Match[str]) -> str:
        if match.group(1) != NODE_TAG:
            return match.group(0)
        try:
            raw = json.loads(match.group(2))
        except ValueError:
            return match.group(0)
        node = admit(raw, ReviewNode, origin="rewrite")
        if isinstance(node, Discarded) or node.fingerprint not in fingerprints:
            return match.group(0)
        new = node_marker(node.model_copy(update={"status": status}), redactor=redactor)
        return f"{banner} {new}" if banner else new

    return _MARKER.sub(replace, body)


def find_markers(text: str, tag: str) -> list[object]:
    """The decoded payloads of every `tag` marker in `text`; undecodable JSON stays a string."""
    found: list[object] = []
    for match in _MARKER.finditer(text or ""):
        if match.group(1) != tag:
            continue
        try:
            found.append(json.loads(match.group(2)))
        except ValueError:
            found.append(match.group(2))  # the boundary turns it into a discard with a reason
    return found


def neutralize(text: str) -> str:
    """Untrusted text can never open an HTML comment, so it can never carry a marker."""
    return text.replace("<!--", "&lt;!--")


def is_trusted(record: CommentRecord, bot_login: str) -> bool:
    """Markers count only in comments written by reviewbot's own account."""
    return record.author is not None and record.author.casefold() == bot_login.casefold()


def read_prior(records: Iterable[CommentRecord], bot_login: str) -> PriorState:
    """Turn the PR's comments into the prior state; never raises on hostile content."""
    records = list(records)
    nodes: list[PriorNode] = []
    discarded: list[Discarded] = []
    untrusted = 0
    summary: PriorSummary | None = None
    pending: list[int] = []
    for record in records:
        if not is_trusted(record, bot_login):
            has_marker = any(find_markers(record.body, tag) for tag in (NODE_TAG, SUMMARY_TAG))
            untrusted += has_marker
            continue
        if record.where is Where.REVIEW and record.state == "PENDING":
            pending.append(record.id)
            continue
        origin = f"marker in {record.where.value} comment {record.id}"
        result = read_boundary(find_markers(record.body, NODE_TAG), ReviewNode, origin=origin)
        discarded.extend(result.discarded)
        nodes.extend(
            PriorNode(node=node, comment_id=record.id, where=record.where, body=record.body)
            for node in result.valid
        )
        if record.where is Where.ISSUE and summary is None:
            summary = _summary_of(record)
    decisions, ignored = _decisions(records, nodes, bot_login)
    return PriorState(
        nodes=tuple(nodes),
        decisions=decisions,
        summary=summary,
        pending_reviews=tuple(pending),
        discarded=tuple(discarded),
        untrusted_markers=untrusted,
        ignored_commands=ignored,
    )


def _summary_of(record: CommentRecord) -> PriorSummary | None:
    payloads = find_markers(record.body, SUMMARY_TAG)
    if not payloads:
        return None
    try:
        marker: SummaryMarker | None = SummaryMarker.model_validate(payloads[0])
    except ValidationError:
        marker = None
    return PriorSummary(comment_id=record.id, marker=marker)


def _decisions(
    records: Sequence[CommentRecord], nodes: Sequence[PriorNode], bot_login: str
) -> tuple[tuple[HumanDecision, ...], int]:
    """`/confirm` and `/dismiss` replies to the bot's inline comments, in the order written."""
    inline = {p.comment_id: p.node.fingerprint for p in nodes if p.where is Where.INLINE}
    decisions: list[HumanDecision] = []
    ignored = 0
    for record in records:
        if record.in_reply_to not in inline or is_trusted(record, bot_login) or not record.author:
            continue
        command = _command(record.body)
        if command is None:
            continue
        if record.association not in TRUSTED_ASSOCIATIONS:
            ignored += 1  # a drive-by account must not be able to dismiss a finding
            continue
        action, reason = command
        event = Event(action=action, by=f"human:{record.author}", reason=reason)
        fingerprint = inline[record.in_reply_to]
        decisions.append(HumanDecision(fingerprint=fingerprint, event=event, comment_id=record.id))
    return tuple(decisions), ignored


def _command(body: str) -> tuple[Action, str] | None:
    first, _, rest = body.strip().partition("\n")
    word, _, reason = first.strip().partition(" ")
    action = {"/confirm": Action.CONFIRM, "/dismiss": Action.DISMISS}.get(word.casefold())
    return None if action is None else (action, reason.strip() or rest.strip()[:500])


def carry_over(
    nodes: Iterable[ReviewNode], prior: PriorState, *, keep_status: bool = False
) -> tuple[ReviewNode, ...]:
    """Apply what earlier runs and people decided to this run's nodes, matched by fingerprint.

    A node a human dismissed stays dismissed; peers who confirmed it earlier (the
    verifier or a human) still count; `/confirm` and `/dismiss` replies are applied
    in the order they were written. Illegal moves (confirming a dismissed node) are
    skipped: a stale reply must not end the run. With `keep_status`, the prior
    node's own status is kept as well (used when re-folding prior nodes).
    """
    earlier = prior.by_fingerprint()
    decided: dict[str, list[Event]] = {}
    for decision in prior.decisions:
        decided.setdefault(decision.fingerprint, []).append(decision.event)
    out = []
    for node in nodes:
        before = earlier.get(node.fingerprint)
        events = list(_prior_events(before.node, keep_status) if before else ())
        events.extend(decided.get(node.fingerprint, ()))
        if keep_status and before is not None:
            node = node.model_copy(update={"status": Status.OPEN, "confirmed_by": ()})
        out.append(_apply_all(node, events))
    return tuple(out)


def _prior_events(node: ReviewNode, keep_status: bool) -> list[Event]:
    events = [Event(action=Action.CONFIRM, by=peer) for peer in node.confirmed_by]
    if node.status is Status.DISMISSED:
        events.append(Event(action=Action.DISMISS, by="prior"))
    elif keep_status and node.status is Status.RESOLVED:
        events.append(Event(action=Action.RESOLVE, by="prior"))
    return events


def _apply_all(node: ReviewNode, events: Iterable[Event]) -> ReviewNode:
    for event in events:
        try:
            node = apply(node, event)
        except LifecycleError:
            continue  # e.g. /confirm after /dismiss: dismissed is final, the reply is moot
    return node
