"""The client's retry policy: reads and idempotent edits retry, a POST only when nothing was stored."""

from __future__ import annotations

import time

import pytest

from reviewbot.github_api import WriteOnceRetry, _rate_limit_wait


@pytest.mark.parametrize(
    ("method", "status", "retry_after", "expected"),
    [
        ("GET", 502, False, True),
        ("PATCH", 502, False, True),  # the same edit again changes nothing
        ("PUT", 500, False, True),
        ("DELETE", 503, False, True),  # a second DELETE answers 404, which the publisher accepts
        ("POST", 502, False, False),  # maybe stored: the publisher reads back instead
        ("POST", 500, False, False),
        ("POST", 403, False, True),  # GithubRetry re-raises any 403 that is not a rate limit
        ("POST", 429, False, True),  # rate limited: nothing was stored
        ("GET", 429, False, True),
        ("POST", 422, False, False),
    ],
)
def test_what_is_retried(method: str, status: int, retry_after: bool, expected: bool) -> None:
    assert WriteOnceRetry(total=3).is_retry(method, status, retry_after) is expected


def test_a_429_waits_for_the_reset_when_nothing_remains() -> None:
    reset = int(time.time()) + 30
    wait = _rate_limit_wait({"x-ratelimit-remaining": "0", "x-ratelimit-reset": str(reset)}, 60)
    assert 29 <= wait <= 32


def test_a_429_with_requests_left_waits_the_secondary_wait() -> None:
    assert _rate_limit_wait({"x-ratelimit-remaining": "12"}, 60) == 60
    assert _rate_limit_wait({}, 60) == 60
