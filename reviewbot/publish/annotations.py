"""Findings as annotations of the `reviewbot` check run: which, at which level, what text, batches.

Pure: nodes, the diff index and the run's sanitizer in, annotation payloads out. The
publisher (github/publisher.py) sends them: the first batch with the check run it creates, the
rest with `PATCH /check-runs/{id}`, where GitHub appends them.

Which nodes: every standing finding (open or confirmed) of this run's head whose
anchor is on the head (RIGHT side) of a file the PR changes and has there — the
Files tab and the checks UI show annotations on head lines, also on lines outside the
diff. Not annotated, and listed in the review and the summary as always:

- findings about the whole PR (no anchor): an annotation needs a file and lines;
- findings on deleted lines (LEFT): their numbers are lines of the base version, and
  an annotation always names head lines;
- findings in a file the PR does not change, or deletes;
- findings standing from the review of an earlier head: their lines belong to it (an
  incremental review's carried findings are mapped onto this head and annotated);
- past `MAX_ANNOTATIONS`, by priority (most severe first, as the inline comments).

Level: P0 and P1 `failure` (what blocks or holds the verdict, shown red), P2 `warning`,
P3 `notice` — the same split as the SARIF output (`error`, `warning`, `note`). The
check's conclusion is the verdict's alone (github/publisher.py); levels do not change it.

Text: GitHub shows an annotation's title, message and raw details as plain text, so
each is model text run through `Inert.text` (redacted first, invisibles shown, URLs
outside the repository, mentions and references defanged) and cut to its limit after
redaction (a cut never halves a secret before it is masked). GitHub's limits are a
255-character title and 64 KB message and details; the cuts here are far below them,
so 50 annotations stay a small request.

Batches: at most `PER_REQUEST` (GitHub's 50) per request, in priority order. Writes
stay bounded: `MAX_ANNOTATIONS` = 150 means at most two PATCH requests beyond the check
run's own POST. GitHub appends what each PATCH carries, so repeating one would
duplicate annotations: `remaining` gives the batches still to send from the count
GitHub reports (`output.annotations_count`), which the publisher reads back after a
lost answer instead of re-sending blindly.

Must not: call GitHub, or decide the check's conclusion.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Literal

from reviewbot.nodes.model import Anchor, Priority, ReviewNode, Status
from reviewbot.publish.body import STATUS_LABEL
from reviewbot.publish.inert import Inert
from reviewbot.publish.placement import SIDE, priority_key
from reviewbot.sources.diff_index import DiffIndex, FileStatus

PER_REQUEST = 50  # GitHub: "No more than 50 items are allowed" per create or update request
MAX_ANNOTATIONS = 150  # per run: the create and at most two updates
MAX_TITLE = 255  # GitHub's limit, in characters
MAX_MESSAGE = 4_000  # characters; GitHub allows 64 KB
MAX_DETAILS = 4_000  # characters; GitHub allows 64 KB
CUT = " […]"  # ends a cut text: the full one is in the review comment or the summary

Level = Literal["failure", "warning", "notice"]
LEVELS: dict[Priority, Level] = {
    Priority.P0: "failure",
    Priority.P1: "failure",
    Priority.P2: "warning",
    Priority.P3: "notice",
}
_STANDING = (Status.OPEN, Status.CONSENSUS_READY)


class Unannotated(StrEnum):
    """Why a standing finding has no annotation (it is in the review and the summary)."""

    NO_ANCHOR = "no_anchor"
    DELETED_LINES = "deleted_lines"
    FILE_NOT_CHANGED = "file_not_changed"
    EARLIER_HEAD = "earlier_head"
    OVER_LIMIT = "over_limit"

    @property
    def text(self) -> str:
        return _WHY[self]


_WHY = {
    Unannotated.NO_ANCHOR: "about the whole PR",
    Unannotated.DELETED_LINES: "on deleted lines (numbered in the base version)",
    Unannotated.FILE_NOT_CHANGED: "in a file this PR does not change at its head",
    Unannotated.EARLIER_HEAD: "carried from the review of an earlier head",
    Unannotated.OVER_LIMIT: f"past the limit of {MAX_ANNOTATIONS} annotations a run",
}


@dataclass(frozen=True, slots=True, kw_only=True)
class Annotation:
    """One annotation as GitHub takes it; the text fields are already made inert."""

    node_id: str
    path: str
    start_line: int
    end_line: int
    level: Level
    title: str
    message: str
    raw_details: str | None = None

    def payload(self) -> dict[str, Any]:
        # No columns: GitHub takes them on one line only, and an anchor names whole lines.
        out: dict[str, Any] = {
            "path": self.path,
            "start_line": self.start_line,
            "end_line": self.end_line,
            "annotation_level": self.level,
            "title": self.title,
            "message": self.message,
        }
        if self.raw_details:
            out["raw_details"] = self.raw_details
        return out


@dataclass(frozen=True, slots=True, kw_only=True)
class Annotations:
    """What the check run carries, and the standing findings it cannot carry and why."""

    items: tuple[Annotation, ...] = ()
    left_out: tuple[tuple[str, Unannotated], ...] = ()  # (node id, why)

    def notes(self) -> tuple[str, ...]:
        """One line for the check run's summary: what is annotated and what is not."""
        if not self.items and not self.left_out:
            return ()
        said = f"{len(self.items)} finding(s) are annotated on the changed files."
        if not self.left_out:
            return (said,)
        why = Counter(reason for _, reason in self.left_out)
        parts = ", ".join(f"{n} {reason.text}" for reason, n in sorted(why.items()))
        return (f"{said} Not annotated, and listed in the review and above: {parts}.",)


def plan_annotations(
    nodes: Sequence[ReviewNode],
    diff: DiffIndex,
    *,
    head_sha: str,
    inert: Inert,
    limit: int = MAX_ANNOTATIONS,
    rebased: frozenset[str] = frozenset(),
) -> Annotations:
    """The annotations of the standing `nodes` on `head_sha`; see the module docstring.

    `rebased`: ids of earlier findings an incremental review carried forward, their anchors
    mapped onto `head_sha`'s lines, so they are annotated like this run's own.
    """
    items: list[Annotation] = []
    left_out: list[tuple[str, Unannotated]] = []
    for node in sorted(nodes, key=priority_key):
        if node.status not in _STANDING:
            continue
        why = _unannotated(node, diff, None if node.id in rebased else head_sha)
        if why is None and len(items) >= limit:
            why = Unannotated.OVER_LIMIT
        if why is not None:
            left_out.append((node.id, why))
            continue
        assert node.anchor is not None  # _unannotated refuses a node without one
        items.append(_annotation(node, node.anchor, inert))
    return Annotations(items=tuple(items), left_out=tuple(left_out))


def _unannotated(node: ReviewNode, diff: DiffIndex, head_sha: str | None) -> Unannotated | None:
    """Why `node` gets no annotation (None: it does); `head_sha` None: its anchor is this head's."""
    anchor = node.anchor
    if anchor is None:
        return Unannotated.NO_ANCHOR
    if anchor.side != SIDE:
        return Unannotated.DELETED_LINES
    if head_sha and node.commit_sha is not None and not head_sha.startswith(node.commit_sha):
        return Unannotated.EARLIER_HEAD
    file = diff.get(anchor.path)
    if file is None or file.status is FileStatus.DELETED:
        return Unannotated.FILE_NOT_CHANGED
    return None


def _annotation(node: ReviewNode, anchor: Anchor, inert: Inert) -> Annotation:
    title = inert.text(f"{node.priority.value} {node.kind.value}: {node.title}", one_line=True)
    status = STATUS_LABEL[node.status]
    footer = f"\n\n{node.priority.value} · {status} · confidence {node.confidence:.2f}"
    body = inert.text(node.body).strip() or title
    details = None
    if node.suggestion is not None:
        details = "Suggested replacement of these lines:\n" + inert.text(node.suggestion)
    return Annotation(
        node_id=node.id,
        path=anchor.path,
        start_line=anchor.start_line,
        end_line=anchor.end_line,
        level=LEVELS[node.priority],
        title=_cut(title, MAX_TITLE),
        message=_cut(body, MAX_MESSAGE - len(footer)) + footer,
        raw_details=_cut(details, MAX_DETAILS) if details is not None else None,
    )


def _cut(text: str, limit: int) -> str:
    """At most `limit` characters; a cut one ends with `CUT` (the text is already redacted)."""
    if len(text) <= limit:
        return text
    return text[: limit - len(CUT)].rstrip() + CUT


def remaining(
    items: Sequence[Annotation], stored: int, *, size: int = PER_REQUEST
) -> list[tuple[Annotation, ...]]:
    """The batches still to send when GitHub holds the first `stored` of `items`.

    Batches are sent in order and GitHub appends each whole, so its count says exactly
    which annotations it has: sending only the rest never duplicates one.
    """
    rest = items[max(stored, 0) :]
    return [tuple(rest[i : i + size]) for i in range(0, len(rest), size)]
