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
thread. One open thread a finding: a body that cannot fit with every marker is known before any
write, so its thread is never touched; a reopen GitHub refuses because the comment is gone (404)
or will not take the body (422) is placed as a new finding in this run's review
(`Placement.post_anew`), and the thread this run unresolved for it is resolved again, a person's
reply in it or not (it was resolved when the run came). One GraphQL then fails to resolve is
reported `left_open`, with a note.

Must not: decide which findings resolve (review/resolution.py) or reopen (publish/placement.py),
write the bodies (publish/resolution.py), or import PyGithub.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import replace
from typing import Protocol

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


class Settle(Protocol):
    """github/threads.py's `settle_threads` for one PR, by root comment id: what was done."""

    def __call__(
        self, resolve: Collection[int], reopen: Collection[int], *, undo: Collection[int] = ()
    ) -> ThreadChanges: ...


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
        first; `plan` with those it could not edit placed as new findings instead."""
        bodies = self._bodies(plan)  # one that cannot fit is posted anew, its thread untouched
        plan = plan.post_anew(item.node.id for item in plan.reopened if item.node.id not in bodies)
        threads = settle((), [item.earlier.comment_id for item in plan.reopened])
        edited = plan.post_anew(self._refused(plan, bodies))
        kept = {item.earlier.comment_id for item in edited.reopened}
        undone = settle((), (), undo=[root for root in threads.reopened if root not in kept])
        reopened = tuple(root for root in threads.reopened if root in kept)
        notes = (*threads.notes, *undone.notes, *map(_two_threads, undone.left_open))
        return edited, replace(threads, reopened=reopened, left_open=undone.left_open, notes=notes)

    def _bodies(self, plan: Placement) -> dict[str, str]:
        """Each reopened finding's comment open again, by node id; none for one that cannot
        fit with every marker."""
        bodies = {
            item.node.id: reopened_body(item.earlier.body, item.node, redactor=self._redact)
            for item in plan.reopened
        }
        return {node_id: body for node_id, body in bodies.items() if body is not None}

    def _refused(self, plan: Placement, bodies: Mapping[str, str]) -> list[str]:
        """Edit each reopened comment back to open; the findings whose edit GitHub refused."""
        refused: list[str] = []
        for item in plan.reopened:
            try:
                self._edit(Where.INLINE, item.earlier.comment_id, bodies[item.node.id])
            except GitHubRefusal as exc:
                if exc.status not in _GONE:
                    raise
                refused.append(item.node.id)
        return refused

    def _edit(self, where: Where, comment_id: int, body: str) -> None:
        body = seal_body(body, self._sealer, at=location(where, comment_id))
        if where is Where.INLINE:
            self._api.call("PATCH", f"/pulls/comments/{comment_id}", {"body": body})
        else:
            self._api.call("PUT", f"/pulls/{self._number}/reviews/{comment_id}", {"body": body})


def _two_threads(root: int) -> str:
    return (
        f"The thread of comment {root} was unresolved to reopen its finding, GitHub then refused "
        "the edit and the thread could not be resolved again: the finding is posted anew, so "
        "that old thread, its comment still saying Resolved, stays open until someone resolves it."
    )
