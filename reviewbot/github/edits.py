"""Edits of reviewbot's earlier comments: vanished findings marked resolved, returning ones reopened.

    PATCH /pulls/comments/{id}        an inline comment: its finding resolved, or reopened
    PUT   /pulls/{n}/reviews/{id}     a review body: its findings resolved

At most `MAX_RESOLVE_EDITS` comments are edited a run, so the writes stay few whatever the
PR: the resolutions first (`review.resolution.resolution` chose them), the reopens in the edits
they leave (`edits_left`; `publish.placement.place_nodes` chose those, most severe first). A
returning finding past them is posted anew instead, never both nor neither.

Every edit is sealed bound to its comment (`seal_body(..., at=...)`): that binding is what makes
a resolution reviewbot's record (memory/markers.py). PATCH and PUT are idempotent: the client
makes them again after a lost answer, and an edit it cannot confirm ends the run before the
review is posted (exit 5), so the next run reads the comment as it is and reopens it or finds
it standing: one comment either way. A reopened comment's thread is unresolved just before its
edit, so a run that ends after the edit (an answer lost for good, a push) leaves it in an open
thread. A reopen GitHub refuses because the comment is gone (404) or will not take the body
(422) is posted anew in this run's review, and the thread it unresolved is resolved again.

Must not: decide which findings resolve (review/resolution.py) or reopen (publish/placement.py),
write the bodies (publish/resolution.py), or import PyGithub.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import replace

from reviewbot.github.rest import GitHubRefusal
from reviewbot.github.shapes import RepoApi
from reviewbot.github.threads import ThreadChanges
from reviewbot.memory.markers import seal_body
from reviewbot.memory.postings import PriorNode
from reviewbot.memory.seal import Sealer
from reviewbot.publish.placement import Placement
from reviewbot.publish.resolution import reopened_body, resolved_banner, resolved_body
from reviewbot.redact import Redactor
from reviewbot.review.resolution import MAX_RESOLVE_EDITS
from reviewbot.sources.comments import Where, location

_GONE = (404, 422)  # the comment was deleted since it was read, or refuses the body
# (threads to resolve, threads to unresolve) → what was done: github/threads.py's settle_threads
Settle = Callable[[Collection[int], Collection[int]], ThreadChanges]


def edits_left(vanished: Sequence[PriorNode]) -> int:
    """The edits a run's resolutions of `vanished` leave for reopens."""
    comments = {(prior.where, prior.comment_id) for prior in vanished}
    return max(MAX_RESOLVE_EDITS - len(comments), 0)


class CommentEditor:
    """Edits one PR's earlier comments in place, each body sealed bound to its comment."""

    def __init__(
        self, api: RepoApi, number: int, *, sealer: Sealer | None, redactor: Redactor
    ) -> None:
        self._api = api
        self._number = number
        self._sealer = sealer
        self._redact = redactor

    def mark_resolved(
        self, vanished: Sequence[PriorNode], head_sha: str
    ) -> tuple[list[PriorNode], list[str]]:
        """Edit the comments that carry vanished findings: one edit per comment, at most 10 a run.

        Returns the findings it marked resolved (only those are this run's resolutions) and notes.
        """
        by_comment: dict[tuple[Where, int], list[PriorNode]] = {}
        for prior in vanished:
            by_comment.setdefault((prior.where, prior.comment_id), []).append(prior)
        edits = list(by_comment.items())
        skipped: list[int] = []
        marked: list[PriorNode] = []
        for (where, comment_id), priors in edits[:MAX_RESOLVE_EDITS]:
            fingerprints = {p.node.fingerprint for p in priors}
            on_top = where is Where.INLINE  # the whole comment is the finding
            body = resolved_body(
                priors[0].body,
                fingerprints,
                resolved_banner(head_sha),
                on_top=on_top,
                redactor=self._redact,
            )
            if body is None:  # it cannot fit with every marker: left as it is, said so
                skipped.append(comment_id)
                continue
            self._edit(where, comment_id, body)
            marked.extend(priors)
        notes = [
            f"Comment {comment_id} was not marked resolved: it is too long to edit without "
            "cutting a finding's marker."
            for comment_id in skipped
        ]
        left = len(edits) - MAX_RESOLVE_EDITS
        if left > 0:
            notes.append(
                f"{left} more comment(s) with resolved findings will be marked on the next run."
            )
        return marked, notes

    def reopen(self, plan: Placement, settle: Settle) -> tuple[Placement, ThreadChanges]:
        """Edit each reopened finding's earlier comment back to open, its thread unresolved
        first; `plan` with those it could not edit moved to the new inline comments."""
        roots = [item.earlier.comment_id for item in plan.reopened]
        threads = settle((), roots)
        edited = self._edit_back(plan)
        kept = {item.earlier.comment_id for item in edited.reopened}
        undone = settle([root for root in threads.reopened if root not in kept], ())
        reopened = tuple(root for root in threads.reopened if root in kept)
        return edited, replace(threads, reopened=reopened, notes=(*threads.notes, *undone.notes))

    def _edit_back(self, plan: Placement) -> Placement:
        anew: list[str] = []
        for item in plan.reopened:
            body = reopened_body(item.earlier.body, item.node, redactor=self._redact)
            try:
                if body is None:  # it cannot fit with every marker: posted anew instead
                    anew.append(item.node.id)
                else:
                    self._edit(Where.INLINE, item.earlier.comment_id, body)
            except GitHubRefusal as exc:
                if exc.status not in _GONE:
                    raise
                anew.append(item.node.id)
        return plan.post_anew(anew)

    def _edit(self, where: Where, comment_id: int, body: str) -> None:
        body = seal_body(body, self._sealer, at=location(where, comment_id))
        if where is Where.INLINE:
            self._api.call("PATCH", f"/pulls/comments/{comment_id}", {"body": body})
        else:
            self._api.call("PUT", f"/pulls/{self._number}/reviews/{comment_id}", {"body": body})
