"""The edited comments of earlier findings this run resolves (which resolve: review/resolution.py),
and of resolved findings it reopens in place (which: publish/placement.py).

Earlier findings missing from this run are marked resolved only when their code
changed and the run could have found them: the lines they are anchored to changed since
the head they were last seen on (otherwise the scope carried them into this run's report,
`scope/standing.py`, and they are not missing), a new head, every reviewer agent ran to a
normal end, the coverage was reported, and it covers the finding's file (`Coverage.covers`:
a file no reviewer saw keeps its findings open; past GitHub's file-listing limit, nothing
resolves). A run without a key, with a rejected key, a crash or an exhausted
budget resolves nothing. At most `MAX_RESOLVE_EDITS` comments are marked a run
(`review.resolution.resolution`): the findings past them stand in this run's report, and the summary
records them as owed, so the next run marks them on this run's evidence.

A resolved finding found again is shown by its own inline comment while the head's diff still
shows that comment on the finding's lines: the banner is taken off again and the marker records
the finding as this run found it (open, this head, its lines), so the next run reads it as
standing and posts it nowhere else.

A person's `/confirm` or `/dismiss` edits no comment: the reply in the finding's own thread
is the decision, checked again by every run (who wrote it, with which permission), and a
marker never records it (memory/markers.py: `dismissed` comes only from that reply), so an
edit could only change the shown header, at the cost of the edits a run may make, which
stay for what changes a comment's finding (a resolution, a reopen). The inline comment's
header keeps the status it was posted with; the summary and the check run (their Findings
table, its Posted column included) give the current one.

Owns too: rewriting the markers' status, showing the resolution banner, and keeping the
result within the body limit without ever cutting a marker. A cut marker would drop its
finding out of the prior state (it would be posted again), and an unterminated
`<!--` would hide the rest of the comment. The old seal is stripped first: it is
re-made over the new body by the caller, and must not count against the limit.

An inline comment keeps its banner on top and loses prose instead: its thread is resolved
too, and the banner is what says so. A comment too long for all that (a review body packed
with markers) is left as it is and makes no write: its findings are resolved in the summary
instead, which records each posting with its comment (`resolved_here`) for the next run to
read back as resolved, and keeps it while the comment is on the PR. Only those postings: a
finding found again is posted anew, and that posting stands.

Must not: call GitHub or seal (that is `github/edits.py` and `markers.seal_body`).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass

from reviewbot.memory.markers import MAX_OWED_MARKED, restate, rewrite_status, unsealed
from reviewbot.memory.postings import PriorNode
from reviewbot.memory.prior import PriorState, here_of
from reviewbot.nodes.model import ReviewNode, Status
from reviewbot.publish.body import MAX_BODY, finish
from reviewbot.redact import Redactor
from reviewbot.review.resolution import MAX_RESOLVE_EDITS
from reviewbot.sources.comments import Where

_OPENER, _CLOSER = "<!--", "-->"
RESOLVED = "✅ **Resolved**"  # how the banner starts: a reopen takes it off by this


def resolved_banner(head_sha: str) -> str:
    return f"{RESOLVED} — no longer reported on `{head_sha[:12]}`."


@dataclass(frozen=True, slots=True, kw_only=True)
class Edit:
    """One comment carrying findings this run resolves, and its new body.

    `body` None: the comment is too long to edit without cutting a marker, so it is left
    as it is and its findings are resolved in the summary instead (`resolved_here`).
    """

    where: Where
    comment_id: int
    priors: tuple[PriorNode, ...]
    body: str | None


def resolution_edits(
    vanished: Sequence[PriorNode], head_sha: str, *, redactor: Redactor
) -> tuple[Edit, ...]:
    """The edits of the comments of `vanished`, one a comment (at most `MAX_RESOLVE_EDITS`
    comments: `review.resolution.resolution` chose them).

    Made before the run's first write (the summary's marker records what cannot be edited).
    """
    by_comment: dict[tuple[Where, int], list[PriorNode]] = {}
    for prior in vanished:
        by_comment.setdefault((prior.where, prior.comment_id), []).append(prior)
    banner = resolved_banner(head_sha)
    return tuple(
        Edit(
            where=where,
            comment_id=comment_id,
            priors=tuple(priors),
            body=resolved_body(
                priors[0].body,
                {p.node.fingerprint for p in priors},
                banner,
                on_top=where is Where.INLINE,  # the whole comment is the finding
                redactor=redactor,
            ),
        )
        for (where, comment_id), priors in by_comment.items()
    )


def edits_left(edits: Sequence[Edit]) -> int:
    """The edits a run's resolution `edits` leave for reopens (publish/placement.py): a
    comment too long to edit makes no write, so it takes none."""
    return max(MAX_RESOLVE_EDITS - sum(edit.body is not None for edit in edits), 0)


def resolved_here(prior: PriorState, edits: Sequence[Edit]) -> tuple[str, ...]:
    """The postings this run's summary resolves (`markers.resolved_at`): those of a comment
    too long to edit, and the earlier summary's.

    Each names its comment, so it resolves that posting only: a finding found again is
    posted anew, and that posting stands. Kept while the comment is on the PR, since it
    still says open.
    """
    marker = prior.summary_marker()
    earlier = marker.resolved_here if marker is not None else ()
    now = [here_of(p) for edit in edits if edit.body is None for p in edit.priors]
    on_the_pr = {here_of(p) for p in prior.nodes}
    kept = [entry for entry in dict.fromkeys((*earlier, *now)) if entry in on_the_pr]
    return tuple(kept[-MAX_OWED_MARKED:])


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

    `on_top`: the whole comment is the finding (an inline comment), the banner goes first
    and stays: it is what says the finding is resolved (its thread is resolved too), so
    lines of prose go before it. Otherwise the banner is shown at each resolved item; when
    the banners do not fit they are left out (the summary still lists the resolution), then
    whole lines of prose go, last first.
    """
    plain = unsealed(old)
    if on_top:
        marked = rewrite_status(plain, fingerprints, Status.RESOLVED, redactor=redactor)
        tries = [f"{banner}\n\n{marked}"]
    else:
        tries = [
            rewrite_status(plain, fingerprints, Status.RESOLVED, banner=shown, redactor=redactor)
            for shown in (banner, "")
        ]
    for new in tries:
        body = finish(new, redactor, limit=limit)
        if _intact(body, new):
            return body
    return _without_prose(redactor(tries[-1]), limit, keep_first=on_top)


def reopened_body(
    old: str, node: ReviewNode, *, redactor: Redactor, limit: int = MAX_BODY
) -> str | None:
    """`old`, the inline comment of a resolved finding, open again as `node`; unsealed.

    The banner a resolution put on top is taken off and the marker says what `node` says.
    None when it cannot fit with every marker (the finding is then posted anew).
    """
    plain = unsealed(old)
    banner, _, rest = plain.partition("\n\n")
    new = restate(rest if banner.startswith(RESOLVED) else plain, node, redactor=redactor)
    body = finish(new, redactor, limit=limit)
    return body if _intact(body, new) else None


def _intact(cut: str, whole: str) -> bool:
    """No marker was cut: each opened and closed one is still there."""
    return all(cut.count(end) == whole.count(end) for end in (_OPENER, _CLOSER))


def _without_prose(body: str, limit: int, *, keep_first: bool = False) -> str | None:
    """`body` with lines that carry no marker dropped from the end until it fits
    (`keep_first`: never its first line, the banner)."""
    lines = body.split("\n")
    dropped: set[int] = set()
    size = len(body)
    for index in reversed(range(int(keep_first), len(lines))):
        if size <= limit:
            break
        if _OPENER not in lines[index]:
            dropped.add(index)
            size -= len(lines[index]) + 1
    kept = "\n".join(line for index, line in enumerate(lines) if index not in dropped)
    return kept if len(kept) <= limit else None
