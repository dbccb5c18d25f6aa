"""The GitHub REST surface the PR readers and the publisher use, and the errors it raises.

`GitHubClient` is the small Protocol both sides program against: exact REST calls
with JSON in and out, pages followed, and writes made once (`write_once`). The one
implementation is `reviewbot.github.client.PyGithubClient` (the only module that imports
PyGithub); tests may implement it too. Every failure arrives as a `reviewbot.errors`
error, so nothing above this line sees a PyGithub or `requests` type:

    GitHubRefusal      GitHub answered an HTTP error; `status` for the fallbacks that read it
      RefusedAuth        401, 403               (AuthError, exit 3)
      RefusedNotFound    404                    (NotFoundError, exit 4)
      RefusedOther       422, rate limits, …    (GitHubAPIError, exit 5)
    GitHubUnreachable  no answer, a cut or empty answer, a 5xx after retries (NetworkError, exit 5)

Every path built from data (a repository, a login, a SHA, a file path) is made with
`api_path` / `repo_path`: each segment fully percent-encoded (`/` included), so a value
such as a login `x/../maintainer` stays one segment and can never name another resource.

Must not: import PyGithub, or know what reviewbot reads or posts.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Protocol
from urllib.parse import quote

from reviewbot.errors import (
    AuthError,
    GitHubAPIError,
    NetworkError,
    NotFoundError,
    ReviewbotError,
    UsageError,
)

MAX_PAGES = 30  # × 100 items per listing: GitHub's 3,000-file cap, and a bound on reads


def api_path(*segments: str | int) -> str:
    """`/seg/seg/…`, each segment percent-encoded whole: the one way a GitHub API path is built
    from data. `.`, `..` and empty segments are refused: HTTP clients resolve dot segments
    away (even encoded ones, which `requests` decodes first), so no encoding keeps them."""
    parts = []
    for segment in segments:
        text = str(segment)
        if text.strip(".") == "":
            raise UsageError(f"{text!r} cannot be part of a GitHub API path")
        parts.append(quote(text, safe=""))
    return "/" + "/".join(parts)


def repo_path(full_name: str, *segments: str | int) -> str:
    """`/repos/{owner}/{repo}/…` for `owner/repo`, every segment encoded (`api_path`)."""
    owner, _, repo = full_name.partition("/")
    return api_path("repos", owner, repo, *segments)


class GitHubClient(Protocol):
    """One run's connection to one GitHub (public or Enterprise). Building one makes no request."""

    @property
    def base_url(self) -> str: ...

    def get(self, path: str, params: Mapping[str, Any] | None = None) -> Any:
        """GET `path` (relative to the API root, e.g. `/repos/o/r/pulls/1`): its JSON."""
        ...

    def pages(
        self,
        path: str,
        params: Mapping[str, Any] | None = None,
        *,
        key: str | None = None,
        limit: int = MAX_PAGES,
    ) -> list[Any]:
        """Every item of a paginated listing (`key`: the list inside each page's object)."""
        ...

    def first_and_rest(
        self, path: str, key: str, params: Mapping[str, Any] | None = None
    ) -> tuple[Any, list[Any]]:
        """A paginated object: its first page as it is, and `key`'s items over every page."""
        ...

    def call(self, verb: str, path: str, body: Mapping[str, Any] | None = None) -> Any:
        """An idempotent write (PATCH, PUT) or a read with a body: retried by the client."""
        ...

    def write_once(
        self, path: str, body: Mapping[str, Any], *, find: Callable[[], Any | None]
    ) -> Any:
        """POST `body` once; after a lost answer, `find` it on GitHub and post again only if absent."""
        ...

    def append(self, path: str, body: Mapping[str, Any]) -> Any:
        """PATCH a write GitHub appends (a check run's annotations): never repeated by the
        client; a lost answer is `GitHubUnreachable`, and the caller reads back."""
        ...

    def graphql(self, query: str, variables: Mapping[str, Any]) -> Any:
        """One GraphQL operation: its `data`; an answer with `errors` is a `GitHubRefusal`."""
        ...

    def delete(self, path: str) -> None:
        """DELETE, where a 404 means done (a retry after a lost answer finds it gone)."""
        ...

    def close(self) -> None: ...


class GitHubRefusal(ReviewbotError):
    """GitHub answered `verb path` with an HTTP error status."""

    def __init__(self, text: str, *, status: int, message: str, verb: str, path: str) -> None:
        super().__init__(text)
        self.status = status
        self.message = message  # GitHub's own words, on one line
        self.verb = verb
        self.path = path


class RefusedAuth(GitHubRefusal, AuthError):
    """401 or 403: the token was rejected or may not do this."""


class RefusedNotFound(GitHubRefusal, NotFoundError):
    """404: no such object, or not visible to the token."""


class RefusedOther(GitHubRefusal, GitHubAPIError):
    """Any other error answer (422, a rate limit past the wait cap, …)."""


class RateLimited(RefusedOther):
    """A rate limit that asks for a longer wait than the client allows."""


class GitHubUnreachable(NetworkError):
    """No usable answer to `verb path`: GitHub may or may not have done a write."""

    def __init__(self, text: str, *, reason: str, verb: str, path: str) -> None:
        super().__init__(text)
        self.reason = reason
        self.verb = verb
        self.path = path
