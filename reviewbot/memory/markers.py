"""Hidden markers: the wire format of what reviewbot writes into its GitHub comments.

Owns the markers (and their models) that let a later run read back what this one
posted (memory/prior.py reads them; nodes/history.py carries the nodes over):

    <!-- reviewbot:node {"id":"review-1","kind":"bug",…,"fingerprint":"…"} -->
    <!-- reviewbot:summary {"head_sha":"…","verdict":"hold","axes":[…],"coverage":{…},"nodes":[…]} -->
    <!-- reviewbot:seal {"v":1,"mac":"…"} -->     last in every body reviewbot posts (seal.py)

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

Trust (applied by memory/prior.py) — how reviewbot recognises what it wrote (the account is not enough: in
Actions every workflow posts as `github-actions[bot]`, and any of them can post a
verbatim copy of a marker):

- A marker counts only in a comment by reviewbot's account whose body carries a
  valid seal (seal.py: a keyed MAC over the whole body, so a copy with other visible
  text or one marker changed fails). Everything else is counted, noted in the
  summary and ignored, whatever account posted it. Without a key nothing is sealed
  and nothing earlier is trusted.
- No marker sets a status on its own. A prior node's status is rebuilt through the
  lifecycle (`apply`): its peers' confirmations (stricter only), and `resolved` only
  from reviewbot's resolution record — a seal bound to the very comment it was
  edited into, which no copy can carry, or the believed summary's `resolved_here` for the
  postings of a comment too long to edit, each named with its comment (the summary, like
  `resolve_later`, is reviewbot's own record of what a run found fixed). `dismissed` comes only from a `/dismiss`
  reply to a sealed inline comment by a person the adapter's permission lookup says
  has write access, never the PR's author on their own PR (nor the bot's account).
- The summary is the sealed summary comment edited in place (else the oldest sealed
  one); what it recorded for the axes and the agents' proposal holds only for the
  head it names: a re-fold of another head takes nothing from it.

What a seal cannot stop: a verbatim copy of a whole sealed body re-asserts what
reviewbot said when it posted it (open findings and their confirmations: never
looser), and a workflow that misuses the same token to edit or delete reviewbot's
comments can remove evidence (never forge it); it could as well post a `reviewbot`
check itself, so the defence there is a dedicated account (a GitHub App). Every node
a marker carries also passes through the read boundary (`read_boundary` with
`ReviewNode`); a malformed one is a discard. Nothing untrusted may carry a marker
into reviewbot's own comments: every untrusted text a comment shows is made inert
first (publish/inert.py turns `<` into `&lt;` and breaks `<!--` in code), and `inert.neutralize`
holds it again for a whole inline comment and for diff blocks (publish/body.py, publish/suggestion.py).

Must not: call GitHub, decide what to post, or judge what a marker's node means now
(memory/prior.py and nodes/history.py do).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Collection, Mapping
from enum import StrEnum
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from reviewbot.config.file import MAX_REVIEWERS
from reviewbot.coverage.model import Coverage
from reviewbot.memory.seal import Sealer
from reviewbot.nodes.assessment import stricter
from reviewbot.nodes.boundary import Discarded, admit
from reviewbot.nodes.history import Judged
from reviewbot.nodes.model import Priority, ReviewNode, Status
from reviewbot.redact import Redactor
from reviewbot.results.report import AxisReport, Report, ReviewKind
from reviewbot.sources.comments import CommentRecord
from reviewbot.verdict.axes import Outcome
from reviewbot.verdict.fold import Source
from reviewbot.verdict.lattice import Label

NODE_TAG = "reviewbot:node"
SUMMARY_TAG = "reviewbot:summary"
SEAL_TAG = "reviewbot:seal"
# Marker bodies are one line of JSON; `.*?` stops at the first `-->`, which escaped JSON never contains.
_MARKER = re.compile(r"<!--\s*(reviewbot:(?:node|summary|seal))\s+(.*?)\s*-->")
_SEAL = re.compile(r"\s*<!--\s*reviewbot:seal\s+(.*?)\s*-->")
_ESCAPES = {c: f"\\u{ord(c):04x}" for c in "<>&-"}
MAX_AXIS_DETAIL = 300  # the summary marker stays small; the full detail is in the summary text
MAX_UNSEEN_MARKED = 20  # unseen files the summary marker names (all of them, or none)
MAX_UNSEEN_TEXT = 300
MAX_PATCHES_MARKED = 300  # file digests a summary marker holds (scope/patches.py)
MAX_OWED_MARKED = 200  # owed resolutions the marker records; past them, they need new evidence
_RESOLVED_AT = r"^[0-9a-f]{16}@(inline|review|issue):[0-9]+$"  # a `resolved_at` entry
MAX_AXIS_NODES = 100  # node states one axis records for a re-fold; more: the outcome is kept as is
# Token shapes only: the default for callers without the run's redactor (tests, tooling).
# Publishing always passes the run's own `Redactor`, which also knows its secret values.
SHAPES_ONLY = Redactor()


def resolved_at(fingerprint: str, at: str) -> str:
    """A `resolved_here` entry: the finding's posting in the comment at `at` (`location`)."""
    return f"{fingerprint}@{at}"


class Sealed(StrEnum):
    """How a body carries reviewbot's seal (see seal.py)."""

    POSTED = "posted"  # sealed when it was posted: valid wherever the same body appears
    EDITED = "edited"  # sealed when reviewbot edited it in place: valid in that comment only


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
    list would let a re-fold believe the others were seen. Their count is always kept,
    also when a re-fold writes the record again from a count without names.
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
        # Named only when every one can be: a count with some names would read as the rest seen.
        if not coverage.unseen_unnamed and len(coverage.unseen) <= MAX_UNSEEN_MARKED:
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
            files_unseen=len(coverage.unseen) + coverage.unseen_unnamed,
            unseen=unseen,
            files_unlisted=coverage.files_unlisted,
        )


def _cut(text: str, redactor: Redactor) -> str:
    # Redacted before the cut: a secret cut in half no longer matches the redactor.
    return redactor(text)[:MAX_UNSEEN_TEXT]


class NodeState(_Marker):
    """A node's state as the last review folded it, so a re-fold can judge its axis again.

    A finding already on the PR is not posted again, so its inline marker keeps the
    assessment of the head it was first posted on: what this head's review judged
    (priority, confidence, raisers) is recorded here and overlays it (`as_judged`).
    """

    fingerprint: str = Field(pattern=r"^[0-9a-f]{16}$")
    # Every agent that raised it, the author first: whose axes it counted for.
    # As many as a config can have reviewers (the general one and every focused one), so a
    # finding all of them raised still fits: a cap below it would fail after the review posted.
    raisers: tuple[str, ...] = Field(min_length=1, max_length=MAX_REVIEWERS + 1)
    status: Status
    confirmed_by: tuple[str, ...] = ()
    # None: a summary written before they were recorded (the marker's own then stand).
    priority: Priority | None = None
    confidence: float | None = Field(default=None, ge=0.0, le=1.0, allow_inf_nan=False)
    # The anchored lines in THIS head (the inline marker keeps the head it was posted on),
    # so an incremental review can map them through the next push.
    lines: tuple[int, int] | None = None
    # …and its path in THIS head, when a rename carried it away from the path it was posted at.
    path: str | None = Field(default=None, max_length=MAX_UNSEEN_TEXT)

    @classmethod
    def of(cls, node: ReviewNode, *, posted_at: str | None = None) -> NodeState:
        """`posted_at`: the path of the comment the finding is on (None: not posted yet)."""
        anchor = node.anchor
        moved = anchor is not None and posted_at not in (None, anchor.path)
        return cls(
            fingerprint=node.fingerprint,
            raisers=node.raisers,
            status=node.status,
            confirmed_by=node.confirmed_by,
            priority=node.priority,
            confidence=node.confidence,
            lines=(anchor.start_line, anchor.end_line) if anchor else None,
            path=anchor.path if moved and anchor and len(anchor.path) <= MAX_UNSEEN_TEXT else None,
        )

    def as_judged(self, node: ReviewNode) -> ReviewNode:
        """`node` (from its inline marker) with the raisers and the assessment this review folded.

        The assessment is the stricter of the two (nodes/assessment.py): a summary can make
        a finding weigh more than its inline marker says, never less.
        """
        update: dict[str, object] = {
            "author": self.raisers[0],
            "also_raised_by": self.raisers[1:],
        }
        if self.priority is not None and self.confidence is not None:
            # Never below the node's own: an assessment only gets stricter (nodes/assessment.py).
            judged = Judged(
                fingerprint=self.fingerprint, priority=self.priority, confidence=self.confidence
            )
            node = stricter(node, judged)
        if self.lines is not None and node.anchor is not None and self.lines[0] <= self.lines[1]:
            start, end = self.lines
            moved = {"path": self.path} if self.path else {}
            update["anchor"] = node.anchor.model_copy(
                update={"start_line": start, "end_line": end, **moved}
            )
        return node.model_copy(update=update)


class SealMarker(_Marker):
    """The seal at the end of a body reviewbot wrote (see seal.py)."""

    v: Literal[1]
    at: str | None = Field(default=None, pattern=r"^(inline|review|issue):[0-9]{1,20}$")
    mac: str = Field(pattern=r"^[0-9a-f]{32}$")


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
    # The nodes as this review folded them (None: too many to record, the axes are kept as is).
    nodes: tuple[NodeState, ...] | None = None
    # Which kind of review this was (scope/decision.py decides the next one from these).
    kind: ReviewKind | None = None
    since: str | None = Field(default=None, pattern=r"^[0-9a-f]{7,64}$")
    config_digest: str | None = Field(default=None, pattern=r"^[0-9a-f]{16}$")
    last_comment: int | None = Field(default=None, ge=0)
    # The PR as this review saw it: the base, and a digest of each file's patch against it
    # (None: not recorded, so the next review is full; see scope/patches.py).
    base_sha: str | None = Field(default=None, pattern=r"^[0-9a-f]{7,64}$")
    patches: tuple[Annotated[str, Field(pattern=r"^[0-9a-f]{20}$")], ...] | None = Field(
        default=None, max_length=MAX_PATCHES_MARKED
    )
    # Findings this review found fixed past its edits: the next run marks them resolved.
    resolve_later: tuple[Annotated[str, Field(pattern=r"^[0-9a-f]{16}$")], ...] = Field(
        default=(), max_length=MAX_OWED_MARKED
    )
    # Postings resolved here, not in their comment (too long to edit without cutting a
    # marker), each `resolved_at(fingerprint, location)`: only the posting in that comment
    # reads back as resolved, never a later one of the same finding. Each summary keeps
    # them while their comment is on the PR.
    resolved_here: tuple[Annotated[str, Field(pattern=_RESOLVED_AT)], ...] = Field(
        default=(), max_length=MAX_OWED_MARKED
    )

    # Findings nobody judged that the verifier should have (verdict/verified.py): they hold
    # later runs too. None: not recorded (an older summary, or too many to record).
    unverified: tuple[Annotated[str, Field(pattern=r"^[0-9a-f]{16}$")], ...] | None = Field(
        default=None, max_length=MAX_OWED_MARKED
    )

    @classmethod
    def of(
        cls,
        report: Report,
        *,
        head_sha: str,
        redactor: Redactor = SHAPES_ONLY,
        posted_at: Mapping[str, str] | None = None,
    ) -> SummaryMarker:
        """`posted_at`: fingerprint → the path of the comment each finding is on."""
        where = posted_at or {}
        proposals = [r.verdict for r in report.reasons if r.source is Source.PROPOSAL]
        run = report.review
        return cls(
            kind=run.kind if run else None,
            since=run.since if run else None,
            config_digest=run.config_digest if run else None,
            last_comment=run.last_comment if run else None,
            base_sha=run.base_sha if run else None,
            patches=run.patches if run else None,
            resolve_later=run.resolve_later[:MAX_OWED_MARKED] if run else (),
            unverified=run.unverified if run and len(run.unverified) <= MAX_OWED_MARKED else None,
            head_sha=head_sha,
            verdict=report.verdict.label,
            axes=tuple(AxisMarker.of(axis, redactor=redactor) for axis in report.axes),
            coverage=(
                CoverageMarker.of(report.coverage, redactor=redactor) if report.coverage else None
            ),
            proposed=max(proposals).label if proposals else None,
            nodes=tuple(NodeState.of(n, posted_at=where.get(n.fingerprint)) for n in report.nodes)
            if len(report.nodes) <= MAX_AXIS_NODES
            else None,
        )


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
        if node.anchor.side != "RIGHT":  # the default is left out: old readers read it as RIGHT
            payload["anchor"]["side"] = node.anchor.side
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

    def rewrite(node: ReviewNode) -> str:
        new = node_marker(node.model_copy(update={"status": status}), redactor=redactor)
        return f"{banner} {new}" if banner else new

    return _rewrite(body, fingerprints, rewrite)


def restate(body: str, node: ReviewNode, *, redactor: Redactor = SHAPES_ONLY) -> str:
    """`body` with the markers of `node`'s fingerprint replaced by `node`'s own: an earlier
    comment that shows the finding again records it as this run found it (status, head, lines)."""
    return _rewrite(body, {node.fingerprint}, lambda _: node_marker(node, redactor=redactor))


def _rewrite(body: str, fingerprints: Collection[str], rewrite: Callable[[ReviewNode], str]) -> str:
    """`body` with each node marker of `fingerprints` that passes the read boundary rewritten."""

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
        return rewrite(node)

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


def seal_body(body: str, sealer: Sealer | None, *, at: str | None = None) -> str:
    """`body` ending in reviewbot's seal (see seal.py); `at` binds it to the comment edited in place.

    Without a key the body goes out unsealed, and no later run will trust it.
    """
    if sealer is None:
        return body
    plain = unsealed(body).rstrip()
    payload: dict[str, Any] = {"v": 1} | ({"at": at} if at else {})
    payload["mac"] = sealer.mac(plain, at=at)
    return f"{plain}\n\n{dumps_marker(SEAL_TAG, payload)}\n"


def unsealed(body: str) -> str:
    """`body` without its seal: what the seal's MAC covers."""
    return _SEAL.sub("", body)


def sealed_by(record: CommentRecord, sealer: Sealer | None) -> Sealed | None:
    """Whether reviewbot wrote `record` (posted it, or edited it in place here); None: not ours."""
    if sealer is None:
        return None
    seals = find_markers(record.body, SEAL_TAG)
    if len(seals) != 1:
        return None
    try:
        seal = SealMarker.model_validate(seals[0])
    except ValidationError:
        return None
    # A seal bound to another comment is a copy of an edit: not ours here.
    if seal.at is not None and seal.at != record.location:
        return None
    if not sealer.verify(unsealed(record.body).rstrip(), seal.mac, at=seal.at):
        return None
    return Sealed.EDITED if seal.at else Sealed.POSTED
