"""GitHub's GraphQL endpoint (`POST /graphql`, `/api/graphql` on Enterprise) as far as reviewbot
uses it: a pull request's review threads, and resolving or unresolving one.

Exactly three operations are answered, recognised by the field they select (the fake does
not parse GraphQL): the `pullRequest.reviewThreads` query (paginated with `first`/`after`
and `pageInfo`), `resolveReviewThread` and `unresolveReviewThread`. Anything else is a
GraphQL error, as GitHub answers an unknown field. The shapes are GitHub's: HTTP 200 with
`data`, or with `errors` (each with `type`, `path`, `locations`, `message`) and `data`
null where the failure is; a thread's node id is `PRRT_…`, its comments carry their
REST id as `databaseId` and their author's `login`.

A thread is what GitHub makes of the REST review comments: a comment with no
`in_reply_to_id` and every reply to it. Its resolution lives in `FakeRepo.resolved_threads`
(root comment ids); `graphql_allowed=False`, or a request with one of `read_only_tokens`,
answers every mutation with GitHub's FORBIDDEN error (a token without `pull-requests: write`).
"""

from __future__ import annotations

import base64
from typing import Any

from tests.fakes.server import Request, Response

THREAD_PREFIX = "PRRT_"
MAX_FIRST = 100  # GitHub's cap for `first`


def thread_id(root_comment_id: int) -> str:
    return f"{THREAD_PREFIX}{root_comment_id}"


def _error(kind: str, message: str, path: list[str | int]) -> dict[str, Any]:
    return {"type": kind, "path": path, "locations": [{"line": 1, "column": 1}], "message": message}


def _answer(data: Any = None, errors: list[dict[str, Any]] | None = None) -> Response:
    payload: dict[str, Any] = {"data": data}
    if errors:
        payload["errors"] = errors
    return Response.json(200, payload)


def serve_graphql(fake: Any, request: Request) -> Response:
    """`fake` is the FakeGitHub whose repositories and review comments the answer reads."""
    body = request.json()
    if not isinstance(body, dict) or not isinstance(body.get("query"), str):
        return Response.json(400, {"message": "Problems parsing JSON"})
    query, variables = body["query"], body.get("variables") or {}
    if "resolveReviewThread(" in query:
        return _set_resolved(fake, variables, resolved="unresolveReviewThread(" not in query)
    if "reviewThreads(" in query:
        return _threads(fake, variables)
    return _answer(None, [_error("undefinedField", "Field is not defined on Query", ["query"])])


def _threads(fake: Any, variables: dict[str, Any]) -> Response:
    owner, name, number = variables.get("owner"), variables.get("name"), variables.get("number")
    repo = fake.repos.get(f"{owner}/{name}")
    where: list[str | int] = ["repository"]
    if repo is None:
        message = f"Could not resolve to a Repository with the name '{owner}/{name}'."
        return _answer({"repository": None}, [_error("NOT_FOUND", message, where)])
    if number not in repo.pulls:
        message = f"Could not resolve to a PullRequest with the number of {number}."
        return _answer(
            {"repository": {"pullRequest": None}},
            [_error("NOT_FOUND", message, [*where, "pullRequest"])],
        )
    comments = repo.review_comments.get(number, [])
    roots = [c for c in comments if c.get("in_reply_to_id") is None]
    first = min(int(variables.get("first") or MAX_FIRST), MAX_FIRST)
    start = int(base64.b64decode(variables["after"]).decode()) if variables.get("after") else 0
    page = roots[start : start + first]
    nodes = [
        {
            "id": thread_id(root["id"]),
            "isResolved": root["id"] in repo.resolved_threads,
            "comments": {
                "nodes": [
                    {"databaseId": c["id"], "author": {"login": c["user"]["login"]}}
                    for c in comments
                    if c["id"] == root["id"] or c.get("in_reply_to_id") == root["id"]
                ]
            },
        }
        for root in page
    ]
    end = start + len(page)
    info = {
        "hasNextPage": end < len(roots),
        "endCursor": base64.b64encode(str(end).encode()).decode() if page else None,
    }
    threads = {"nodes": nodes, "pageInfo": info}
    return _answer({"repository": {"pullRequest": {"reviewThreads": threads}}})


def _set_resolved(fake: Any, variables: dict[str, Any], *, resolved: bool) -> Response:
    field = "resolveReviewThread" if resolved else "unresolveReviewThread"
    ident = str(variables.get("threadId") or "")
    if not fake.graphql_allowed or fake.reading_only:
        return _answer(
            {field: None},
            [_error("FORBIDDEN", "Resource not accessible by integration", [field])],
        )
    root = int(ident.removeprefix(THREAD_PREFIX)) if ident.startswith(THREAD_PREFIX) else None
    repo = next(
        (
            r
            for r in fake.repos.values()
            if root is not None
            and any(c["id"] == root for cs in r.review_comments.values() for c in cs)
        ),
        None,
    )
    if repo is None or root is None:
        message = f"Could not resolve to a node with the global id of '{ident}'"
        return _answer({field: None}, [_error("NOT_FOUND", message, [field])])
    if resolved:
        repo.resolved_threads.add(root)
    else:
        repo.resolved_threads.discard(root)
    fake.thread_changes.append((field, root))
    return _answer({field: {"thread": {"id": ident, "isResolved": resolved}}})
