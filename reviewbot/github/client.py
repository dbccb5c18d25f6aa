"""The one module that imports PyGithub: the client, retries, pages, writes made once, errors.

Owns building the `github.Github` client (auth, base URL — GitHub Enterprise
included — timeouts, and `WriteOnceRetry`: reads and idempotent edits retry with
backoff, honouring `Retry-After` and the rate-limit headers; a POST is never retried
blindly), exact REST calls through its `Requester`, following `Link: rel="next"`
pages, and mapping every PyGithub, `requests` or socket failure onto the error tree
of reviewbot/github/rest.py with a one-line message. `PyGithubClient` implements the
`GitHubClient` Protocol the PR readers (github/reader.py) and the publisher
(github/publisher.py) are written against; no PyGithub type leaves this module.

A write whose answer is lost (no answer, a reset or cut connection, an empty or
truncated body, a 5xx to a POST: GitHub may or may not have stored it) is read back
with the caller's `find` before it is posted again (`write_once`, at most
`WRITE_ATTEMPTS` posts); one that cannot be confirmed either way is one line, exit 5.

Must not: know what reviewbot reads or posts (the readers and the publisher do), or
read the environment (the composition root passes `api_url` and `token` in).
"""

from __future__ import annotations

import contextlib
import datetime as dt
import time
from collections.abc import Callable, Mapping
from typing import Any

import jwt  # PyGithub's own JWT library: only to name the error a bad key raises
from github import (
    Auth,
    Github,
    GithubException,
    GithubIntegration,
    GithubRetry,
    RateLimitExceededException,
)
from github.GithubException import RateLimitExceededExceedsMaxWait
from github.Requester import Requester

from reviewbot.errors import UsageError
from reviewbot.github.rest import (
    MAX_PAGES,
    GitHubRefusal,
    GitHubUnreachable,
    RateLimited,
    RefusedAuth,
    RefusedNotFound,
    RefusedOther,
)

PER_PAGE = 100  # the maximum GitHub allows
WRITE_ATTEMPTS = 3  # posts of one write, each after a read-back found the previous one absent
IDEMPOTENT_METHODS = frozenset({"GET", "HEAD", "OPTIONS", "PUT", "PATCH", "DELETE"})
_READS = frozenset({"GET", "HEAD"})


def make_client(
    api_url: str,
    token: str | None,
    *,
    timeout: int = 30,
    retries: int = 5,
    backoff: float = 1.0,
    pace_seconds: float = 0,
    max_rate_limit_wait: float = 300.0,
) -> PyGithubClient:
    """The run's GitHub client; makes no request.

    Retries 5xx with exponential backoff and rate limits after `Retry-After` or
    `x-ratelimit-reset`, gives up when a rate limit asks for more than
    `max_rate_limit_wait` seconds, and spaces requests by `pace_seconds` (none by
    default: a review makes a few dozen sequential requests at most).
    """
    retry = WriteOnceRetry(
        total=retries, backoff_factor=backoff, max_rate_limit_wait=max_rate_limit_wait
    )
    client = Github(
        auth=Auth.Token(token) if token else None,
        base_url=api_url,
        timeout=timeout,
        user_agent="reviewbot",
        per_page=PER_PAGE,
        retry=retry,
        seconds_between_requests=pace_seconds or None,
        seconds_between_writes=None,
        lazy=True,
    )
    return PyGithubClient(client, api_url.rstrip("/"))


class WriteOnceRetry(GithubRetry):
    """GithubRetry, minus its blind retries of POST (PyGithub's default includes POST).

    A POST that GitHub stored but whose answer was lost (a 502, a reset, a timeout)
    would be made twice: two reviews, two summaries, two check runs. So a POST is
    retried only after a rate-limit refusal (403 — GithubRetry reads its body and
    re-raises any other 403 — or 429 with `Retry-After`), which stores nothing, and
    after a connection that never opened (urllib3 retries those for any method). Any
    other failure reaches `write_once`, which reads back before writing again. PUT,
    PATCH and DELETE of the same content are idempotent and keep their retries — except
    the PATCH that appends annotations to a check run (`appending`). The methods it
    retries blindly are `allowed_methods`.

    A 429 is retried for every method, as GitHub asks: after `Retry-After`, else at
    `x-ratelimit-reset` when `x-ratelimit-remaining` is 0, else after the secondary
    wait (GithubRetry reads these only on a 403).
    """

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("allowed_methods", IDEMPOTENT_METHODS)
        super().__init__(**kwargs)

    def is_retry(self, method: str, status_code: int, has_retry_after: bool = False) -> bool:
        if status_code == 429:
            return True
        if method.upper() in (self.allowed_methods or ()):
            return super().is_retry(method, status_code, has_retry_after)
        return status_code == 403

    def appending(self) -> WriteOnceRetry:
        """This policy for writes GitHub appends (a check run's annotations): PATCH as a POST.

        Each such PATCH adds what it carries, so a blind repeat after a lost answer would
        add it twice; the publisher reads back instead (publish/annotations.py).
        """
        allowed = frozenset(self.allowed_methods or ()) - {"PATCH"}
        return self.new(allowed_methods=allowed)

    def increment(
        self,
        method: str | None = None,
        url: str | None = None,
        response: Any = None,
        error: Exception | None = None,
        _pool: Any = None,
        _stacktrace: Any = None,
    ) -> Any:  # urllib3's Retry (urllib3 is PyGithub's transport, not imported here)
        retry = super().increment(method, url, response, error, _pool, _stacktrace)
        if response is None or response.status != 429 or response.headers.get("Retry-After"):
            return retry  # urllib3 sleeps for Retry-After itself
        wait = _rate_limit_wait(response.headers, self.secondary_rate_wait)
        if self.max_rate_limit_wait is not None and wait > self.max_rate_limit_wait:
            raise RateLimitExceededExceedsMaxWait(
                429, "rate limited", dict(response.headers), wait=wait
            )
        backoff = max(wait, retry.get_backoff_time())
        retry.get_backoff_time = lambda: backoff  # type: ignore[method-assign]
        return retry


def _rate_limit_wait(headers: Any, secondary: float) -> float:
    """Seconds until GitHub lets the token in again, from a 429's rate-limit headers."""
    remaining, reset = headers.get("x-ratelimit-remaining"), headers.get("x-ratelimit-reset")
    if remaining == "0" and reset and str(reset).isdigit():
        return max(int(reset) - time.time(), 0.0) + 1  # +1: the reset second is not exact
    return secondary


class PyGithubClient:
    """`GitHubClient` (reviewbot/github/rest.py) over PyGithub's Requester."""

    def __init__(self, client: Github, base_url: str) -> None:
        self._client = client
        self._requester = client.requester
        self._appender: Requester | None = None
        self._base_url = base_url

    @property
    def base_url(self) -> str:
        return self._base_url

    def close(self) -> None:
        self._client.close()

    def get(self, path: str, params: Mapping[str, Any] | None = None) -> Any:
        return self._send("GET", path, params=params)[1]

    def call(self, verb: str, path: str, body: Mapping[str, Any] | None = None) -> Any:
        return self._send(verb, path, body=body)[1]

    def pages(
        self,
        path: str,
        params: Mapping[str, Any] | None = None,
        *,
        key: str | None = None,
        limit: int = MAX_PAGES,
    ) -> list[Any]:
        items: list[Any] = []
        for data in self._walk(path, params, limit=limit):
            listing = data.get(key) if key and isinstance(data, dict) else data
            items.extend(listing if isinstance(listing, list) else [])
        return items

    def first_and_rest(
        self, path: str, key: str, params: Mapping[str, Any] | None = None
    ) -> tuple[Any, list[Any]]:
        first: Any = None
        items: list[Any] = []
        for data in self._walk(path, params, limit=MAX_PAGES):
            first = data if first is None else first
            listing = data.get(key) if isinstance(data, dict) else None
            items.extend(listing if isinstance(listing, list) else [])
        return first, items

    def write_once(
        self, path: str, body: Mapping[str, Any], *, find: Callable[[], Any | None]
    ) -> Any:
        lost: GitHubUnreachable | None = None
        for _ in range(WRITE_ATTEMPTS):
            try:
                return self.call("POST", path, body)
            except GitHubUnreachable as exc:
                lost = exc
            try:
                found = find()
            except GitHubUnreachable as exc:
                raise GitHubUnreachable(
                    f"GitHub did not answer POST {path} ({lost.reason}), and reading it back "
                    f"failed too ({exc.reason}): whether it was stored is unknown; nothing was "
                    "posted twice — run the review again",
                    reason=exc.reason,
                    verb="POST",
                    path=path,
                ) from exc
            if found is not None:
                return found
        assert lost is not None
        raise GitHubUnreachable(
            f"GitHub did not answer POST {path} ({lost.reason}) and reading back found no "
            "trace of it; nothing was posted twice — run the review again",
            reason=lost.reason,
            verb="POST",
            path=path,
        ) from lost

    def append(self, path: str, body: Mapping[str, Any]) -> Any:
        if self._appender is None:
            kwargs = self._requester.kwargs
            retry = kwargs["retry"]
            kwargs["retry"] = retry.appending() if isinstance(retry, WriteOnceRetry) else 0
            self._appender = Requester(**kwargs)
        return self._send("PATCH", path, body=body, requester=self._appender)[1]

    def graphql(self, query: str, variables: Mapping[str, Any]) -> Any:
        # Sent like every other request (PyGithub's GraphQL URL, its retry and error mapping);
        # GitHub answers a failed operation 200 with an `errors` array: that is a refusal too.
        url = self._requester.graphql_url
        data = self._send("POST", url, body={"query": query, "variables": dict(variables)})[1]
        errors = data.get("errors") if isinstance(data, dict) else None
        if errors:
            first = errors[0] if isinstance(errors[0], dict) else {}
            message = " ".join(str(first.get("message") or "a GraphQL error").split())[:300]
            kind = first.get("type") or "ERROR"
            raise GitHubRefusal(
                f"GitHub refused the GraphQL request: {message} ({kind})",
                status=200,
                message=message,
                verb="POST",
                path="/graphql",
            )
        return data.get("data") if isinstance(data, dict) else None

    def delete(self, path: str) -> None:
        with contextlib.suppress(RefusedNotFound):  # already gone: a retry after a lost answer
            self._send("DELETE", path, empty_ok=True)

    # -- the one place requests are made and failures mapped --------------------------------

    def _walk(self, path: str, params: Mapping[str, Any] | None, *, limit: int) -> list[Any]:
        pages: list[Any] = []
        url: str | None = path
        query: Mapping[str, Any] | None = {"per_page": PER_PAGE, **(params or {})}
        for _ in range(limit):
            if url is None:
                break
            headers, data = self._send("GET", url, params=query)
            pages.append(data)
            url, query = _next_link(headers), None  # the next link carries the query
        return pages

    def _send(
        self,
        verb: str,
        path: str,
        *,
        body: Mapping[str, Any] | None = None,
        params: Mapping[str, Any] | None = None,
        empty_ok: bool = False,
        requester: Requester | None = None,
    ) -> tuple[dict[str, Any], Any]:
        appends = requester is not None
        try:
            headers, data = (requester or self._requester).requestJsonAndCheck(
                verb,
                path,
                parameters=dict(params) if params is not None else None,
                input=dict(body) if body is not None else None,
            )
        except GithubException as exc:
            # A POST or an appending PATCH is not retried on a 5xx: it may have been stored.
            if exc.status >= 500 and (verb == "POST" or appends):
                raise self._unreachable(f"HTTP {exc.status}", verb, path) from exc
            raise _refusal(exc, verb=verb, path=path) from exc
        except (OSError, ValueError) as exc:
            # requests' ConnectionError, Timeout, RetryError, ChunkedEncodingError are OSErrors;
            # a body cut before its end is a ValueError (JSON that does not parse).
            reason = " ".join(str(exc).split())[:300] or type(exc).__name__
            raise self._unreachable(reason, verb, path) from exc
        if data is None and not empty_ok:  # GitHub answers every such call with JSON
            raise self._unreachable("an empty answer", verb, path)
        return headers, data

    def _unreachable(self, reason: str, verb: str, path: str) -> GitHubUnreachable:
        return GitHubUnreachable(
            f"GitHub at {self._base_url} could not be reached or kept failing: {reason}",
            reason=reason,
            verb=verb,
            path=path,
        )


# ---------------------------------------------------------------- a GitHub App's tokens


def check_app_key(app_id: int, private_key: str) -> None:
    """Sign one App JWT locally (no request): a key PyJWT cannot load is a UsageError."""
    try:
        Auth.AppAuth(app_id, private_key).token  # noqa: B018 (signing is the check)
    except (jwt.PyJWTError, ValueError, TypeError) as exc:
        raise UsageError(f"the App's private key cannot sign a JWT: {exc}") from exc


def app_login(api_url: str, app_id: int, private_key: str, *, timeout: int = 30) -> str:
    """The account the App posts as, `slug[bot]`, from `GET /app` signed with its JWT."""
    app = _as_app(api_url, app_id, private_key, timeout, "GET", "/app", lambda i: i.get_app())
    return f"{app.slug}[bot]"


def installation_token(
    api_url: str, app_id: int, private_key: str, installation_id: int, *, timeout: int = 30
) -> tuple[str, dt.datetime]:
    """A new installation token and when it expires: `POST /app/installations/{id}/access_tokens`
    signed with the App's JWT (PyGithub's App auth). Errors map like every other call's."""
    path = f"/app/installations/{installation_id}/access_tokens"
    granted = _as_app(
        api_url,
        app_id,
        private_key,
        timeout,
        "POST",
        path,
        lambda i: i.get_access_token(installation_id),
    )
    return granted.token, granted.expires_at


def _as_app(
    api_url: str,
    app_id: int,
    private_key: str,
    timeout: int,
    verb: str,
    path: str,
    call: Callable[[GithubIntegration], Any],
) -> Any:
    """One request as the App itself (its JWT, no retries: the queue retries the job)."""
    integration = GithubIntegration(
        auth=Auth.AppAuth(app_id, private_key), base_url=api_url, timeout=timeout, retry=None
    )
    try:
        return call(integration)
    except GithubException as exc:
        if exc.status < 500:
            raise _refusal(exc, verb=verb, path=path) from exc
        reason = f"HTTP {exc.status}"
    except OSError as exc:
        reason = " ".join(str(exc).split())[:300] or type(exc).__name__
    finally:
        integration.close()
    raise GitHubUnreachable(
        f"GitHub at {api_url} could not be reached or kept failing: {reason}",
        reason=reason,
        verb=verb,
        path=path,
    )


def _refusal(exc: GithubException, *, verb: str, path: str) -> GitHubRefusal:
    """GitHub's error answer as reviewbot's error, with one line that says what to do."""
    message = _message(exc.data) or exc.message or f"HTTP {exc.status}"
    fields: dict[str, Any] = {"status": exc.status, "message": message, "verb": verb, "path": path}
    read = verb in _READS
    if isinstance(exc, RateLimitExceededException):
        return RateLimited(
            f"GitHub rate limit exceeded ({message}) — retry later, or use a token with a higher limit",
            **fields,
        )
    if exc.status == 401:
        return RefusedAuth("GitHub rejected the token — check GITHUB_TOKEN", **fields)
    what = f"GitHub refused {verb} {path} ({exc.status}): {message}"
    if exc.status == 403:
        need = "read" if read else "write"
        scope = "pull requests, contents and checks" if read else "pull requests, issues and checks"
        text = f"GitHub refused access ({message})" if read else what
        return RefusedAuth(
            f"{text} — the token needs {need} access to this repository's {scope}", **fields
        )
    if exc.status == 404:
        return RefusedNotFound(what, **fields)
    return RefusedOther(f"GitHub answered {exc.status}: {message}" if read else what, **fields)


def _message(data: object) -> str:
    """GitHub's error text: `message` plus the `errors` it lists, on one line."""
    if not isinstance(data, dict):
        return " ".join(str(data or "").split())[:500]
    parts = [str(data.get("message", ""))]
    for error in data.get("errors") or ():
        parts.append(str(error.get("message", error)) if isinstance(error, dict) else str(error))
    return " ".join("; ".join(p for p in parts if p).split())[:1000]


def _next_link(headers: Mapping[str, Any]) -> str | None:
    link = next((str(v) for k, v in headers.items() if k.lower() == "link"), "")
    for part in link.split(","):
        target, _, rel = part.partition(";")
        if 'rel="next"' in rel:
            return target.strip().strip("<>")
    return None
