"""The client's retry policy: reads and idempotent edits retry, a POST only when nothing was stored."""

from __future__ import annotations

import time

import pytest

from reviewbot.github.client import WriteOnceRetry, _rate_limit_wait


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


@pytest.mark.parametrize(
    ("method", "status", "expected"),
    [
        ("PATCH", 502, False),  # it appends annotations: maybe stored, the publisher reads back
        ("PATCH", 500, False),
        ("PATCH", 403, True),  # a rate limit stores nothing (GithubRetry re-raises any other 403)
        ("PATCH", 429, True),
        ("GET", 502, True),
        ("POST", 502, False),
    ],
)
def test_what_an_appending_write_retries(method: str, status: int, expected: bool) -> None:
    """The policy for PATCHes that append: a PATCH is retried only where a POST would be."""
    retry = WriteOnceRetry(total=3, max_rate_limit_wait=7).appending()
    assert retry.is_retry(method, status, False) is expected
    assert (retry.total, retry.max_rate_limit_wait) == (3, 7)  # otherwise the same policy
    assert "PATCH" not in (retry.allowed_methods or ())  # nor is a lost read repeated


def test_a_429_waits_for_the_reset_when_nothing_remains() -> None:
    reset = int(time.time()) + 30
    wait = _rate_limit_wait({"x-ratelimit-remaining": "0", "x-ratelimit-reset": str(reset)}, 60)
    assert 29 <= wait <= 32


def test_a_429_with_requests_left_waits_the_secondary_wait() -> None:
    assert _rate_limit_wait({"x-ratelimit-remaining": "12"}, 60) == 60
    assert _rate_limit_wait({}, 60) == 60
