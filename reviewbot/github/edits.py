"""Edits of reviewbot's earlier comments: vanished findings marked resolved, returning ones reopened.

    PATCH /pulls/comments/{id}        an inline comment: its finding resolved, or reopened
    PUT   /pulls/{n}/reviews/{id}     a review body: its findings resolved

At most `MAX_RESOLVE_EDITS` comments are edited a run, so the writes stay few whatever the
PR: the resolutions first (`review.resolution.resolution` chose them), the reopens in the edits
they leave (`publish.resolution.edits_left`; `publish.placement.place_nodes` chose those, most severe first). A
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
from reviewbot.publish.resolution import Edit, reopened_body
from reviewbot.redact import Redactor
from reviewbot.sources.comments import Where, location

_GONE = (404, 422)  # the comment was deleted since it was read, or refuses the body
# (threads to resolve, threads to unresolve) → what was done: github/threads.py's settle_threads
Settle = Callable[[Collection[int], Collection[int]], ThreadChanges]


class CommentEditor:
    """Edits one PR's earlier comments in place, each body sealed bound to its comment."""

    def __init__(
        self, api: RepoApi, number: int, *, sealer: Sealer | None, redactor: Redactor
    ) -> None:
        self._api = api
        self._number = number
        self._sealer = sealer
        self._redact = redactor

    def mark_resolved(self, edits: Sequence[Edit]) -> tuple[list[PriorNode], list[str]]:
        """Make the resolution edits (`publish.resolution.resolution_edits`: one a comment).

        Returns this run's resolutions (those of a comment too long to edit too: the summary's
        marker resolves them, `resolved_here`) and notes.
        """
        notes = []
        for edit in edits:
            if edit.body is None:  # left as it is: the summary's marker resolves its findings
                notes.append(
                    f"Comment {edit.comment_id} is too long to edit without cutting a finding's "
                    "marker: its findings are marked resolved in this summary instead."
                )
                continue
            self._edit(edit.where, edit.comment_id, edit.body)
        return [p for edit in edits for p in edit.priors], notes

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
