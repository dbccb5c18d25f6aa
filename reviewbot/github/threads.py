"""Review threads on GitHub: resolving the thread of a finding reviewbot marked resolved, and
unresolving it when the finding comes back and its comment is reopened. GraphQL is the only
API for threads.

    query     repository.pullRequest.reviewThreads   each thread's node id, `isResolved`, and its
                                                     comments' REST ids (`databaseId`) and authors
    mutation  resolveReviewThread / unresolveReviewThread(input: {threadId})

A thread is found by its first comment: reviewbot's inline comment of the finding. A thread
a person replied in (any comment by another account) is a conversation: it is left open,
and the comment's "Resolved" note (edited in by the publisher) is all that changes. Only
threads whose state must change are written, and nothing is asked when nothing is to be
done (a review without resolutions makes no GraphQL request).

One open thread a finding: only the thread of a comment the publisher edits back to open is
unresolved, just before that edit (github/edits.py), so a run that ends after it leaves no
reopened comment in a resolved thread; an edit GitHub then refuses resolves it again (`undo`),
a person's reply in it or not: it was resolved when the run came, and its finding is posted
anew. A finding that comes back where its old comment cannot be reopened (deleted,
outdated, on other lines, past the run's edits) is posted anew, and its old thread stays
resolved, as history.

Threads are a courtesy: the finding's status lives in reviewbot's sealed markers, not in
GitHub's thread state. So a GraphQL failure (a token without `pull-requests: write`, an
Enterprise without the API, GitHub unreachable) costs one warning and one note, never the
review: the comment's edit has reopened it already. Must not: decide which findings are
resolved (review/resolution.py does) or reopened (publish/placement.py does), or import PyGithub.
"""

from __future__ import annotations

import logging
from collections.abc import Collection
from dataclasses import dataclass

from pydantic import ValidationError

from reviewbot.errors import ReviewbotError
from reviewbot.github.answers import Shape
from reviewbot.github.rest import GitHubClient

log = logging.getLogger(__name__)

MAX_THREAD_PAGES = 10  # 100 threads a page: a PR with more leaves the rest as they are
THREADS_QUERY = """\
query($owner: String!, $name: String!, $number: Int!, $first: Int!, $after: String) {
  repository(owner: $owner, name: $name) {
    pullRequest(number: $number) {
      reviewThreads(first: $first, after: $after) {
        pageInfo { hasNextPage endCursor }
        nodes { id isResolved comments(first: 100) { nodes { databaseId author { login } } } }
      }
    }
  }
}"""
RESOLVE = """\
mutation($threadId: ID!) { resolveReviewThread(input: {threadId: $threadId}) { thread { id isResolved } } }"""
UNRESOLVE = """\
mutation($threadId: ID!) { unresolveReviewThread(input: {threadId: $threadId}) { thread { id isResolved } } }"""


class _Author(Shape):
    login: str | None = None


class _Comment(Shape):
    databaseId: int | None = None
    author: _Author | None = None  # None: a deleted account ("ghost")


class _Comments(Shape):
    nodes: tuple[_Comment, ...] = ()


class _Thread(Shape):
    id: str
    isResolved: bool
    comments: _Comments = _Comments()


class _PageInfo(Shape):
    hasNextPage: bool = False
    endCursor: str | None = None


class _Threads(Shape):
    nodes: tuple[_Thread, ...] = ()
    pageInfo: _PageInfo = _PageInfo()


@dataclass(frozen=True, slots=True, kw_only=True)
class Thread:
    id: str
    resolved: bool
    root: int | None  # the REST id of its first comment
    authors: tuple[str, ...]  # every comment's author, in order ("" for a deleted account)

    def answered_by_person(self, bot_login: str) -> bool:
        return any(a.casefold() != bot_login.casefold() for a in self.authors[1:])


@dataclass(frozen=True, slots=True, kw_only=True)
class ThreadChanges:
    """What a run did to threads, by root comment id, and what to say about it."""

    resolved: tuple[int, ...] = ()
    reopened: tuple[int, ...] = ()
    # a person replied (only the "Resolved" note), or a reopen's unresolve could not be undone
    left_open: tuple[int, ...] = ()
    notes: tuple[str, ...] = ()

    def __add__(self, other: ThreadChanges) -> ThreadChanges:
        return ThreadChanges(
            resolved=self.resolved + other.resolved,
            reopened=self.reopened + other.reopened,
            left_open=self.left_open + other.left_open,
            notes=tuple(dict.fromkeys(self.notes + other.notes)),  # one failure, said once
        )

    def published(self) -> dict[str, tuple[int, ...]]:
        """The `Published` fields that report it."""
        return {
            "threads_resolved": self.resolved,
            "threads_reopened": self.reopened,
            "threads_left_open": self.left_open,
        }


def review_threads(client: GitHubClient, repo: str, number: int) -> list[Thread]:
    owner, _, name = repo.partition("/")
    threads: list[Thread] = []
    after: str | None = None
    for _ in range(MAX_THREAD_PAGES):
        variables = {"owner": owner, "name": name, "number": number, "first": 100, "after": after}
        data = client.graphql(THREADS_QUERY, variables)
        try:
            raw = data["repository"]["pullRequest"]["reviewThreads"]
            page = _Threads.model_validate(raw)
        except (KeyError, TypeError, ValidationError) as exc:
            raise ReviewbotError(
                f"GitHub's review threads answer has another shape: {exc}"
            ) from exc
        threads.extend(_thread(t) for t in page.nodes)
        if not page.pageInfo.hasNextPage or page.pageInfo.endCursor is None:
            break
        after = page.pageInfo.endCursor
    return threads


def _thread(raw: _Thread) -> Thread:
    comments = raw.comments.nodes
    return Thread(
        id=raw.id,
        resolved=raw.isResolved,
        root=comments[0].databaseId if comments else None,
        authors=tuple((c.author.login or "") if c.author else "" for c in comments),
    )


def settle_threads(
    client: GitHubClient,
    repo: str,
    number: int,
    *,
    resolve: Collection[int],
    reopen: Collection[int],
    bot_login: str,
    undo: Collection[int] = (),
) -> ThreadChanges:
    """Resolve the threads rooted at `resolve`, unresolve those at `reopen`, and resolve again
    those at `undo` (this run unresolved them, whoever replied since); never raises. When
    GraphQL fails, the `undo` threads are reported left open: this run opened them."""
    if not resolve and not reopen and not undo:
        return ThreadChanges()
    try:
        return _settle(client, repo, number, (resolve, reopen, undo), bot_login)
    except ReviewbotError as exc:
        log.warning("review threads were left as they are: %s", exc)
        return ThreadChanges(
            left_open=tuple(sorted(undo)),
            notes=(f"Review threads were left as they are: GitHub's GraphQL API failed ({exc}).",),
        )


def _settle(
    client: GitHubClient,
    repo: str,
    number: int,
    roots: tuple[Collection[int], Collection[int], Collection[int]],
    bot_login: str,
) -> ThreadChanges:
    resolve, reopen, undo = roots
    by_root = {t.root: t for t in review_threads(client, repo, number) if t.root is not None}
    resolved: list[int] = []
    reopened: list[int] = []
    left_open: list[int] = []
    for root in sorted({*resolve, *undo} - set(reopen)):
        thread = by_root.get(root)
        if thread is None or thread.resolved:
            continue
        if root not in undo and thread.answered_by_person(bot_login):
            left_open.append(root)
            continue
        client.graphql(RESOLVE, {"threadId": thread.id})
        resolved.append(root)
    for root in sorted(reopen):
        thread = by_root.get(root)
        if thread is not None and thread.resolved:
            client.graphql(UNRESOLVE, {"threadId": thread.id})
            reopened.append(root)
    return ThreadChanges(
        resolved=tuple(resolved), reopened=tuple(reopened), left_open=tuple(left_open)
    )
