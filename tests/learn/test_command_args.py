"""`reviewbot learn`'s arguments: when `--since` starts, and which PR URL names the repository."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from reviewbot.errors import UsageError
from reviewbot.learn.command import pr_url_of, since_of

NOW = datetime(2026, 12, 2, 12, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("text", "when"),
    [
        ("30d", datetime(2026, 11, 2, 12, 0, tzinfo=UTC)),
        ("12h", datetime(2026, 12, 2, 0, 0, tzinfo=UTC)),
        ("2w", datetime(2026, 11, 18, 12, 0, tzinfo=UTC)),
        ("2026-11-01", datetime(2026, 11, 1, tzinfo=UTC)),
        ("2026-11-01T09:30:00Z", datetime(2026, 11, 1, 9, 30, tzinfo=UTC)),
    ],
)
def test_since_is_a_duration_or_a_date(text, when):
    assert since_of(text, now=NOW) == when


def test_since_that_is_neither_is_one_usage_line():
    with pytest.raises(UsageError, match="give a duration"):
        since_of("last week", now=NOW)


@pytest.mark.parametrize(
    ("target", "pr", "url", "number"),
    [
        ("octo/app", None, "https://github.com/octo/app/pull/1", None),
        ("octo/app", 7, "https://github.com/octo/app/pull/7", 7),
        ("https://github.com/octo/app/pull/9", None, "https://github.com/octo/app/pull/9", 9),
        ("https://ghe.example/octo/app.git", 3, "https://ghe.example/octo/app/pull/3", 3),
    ],
)
def test_the_target_names_the_repository(target, pr, url, number):
    assert pr_url_of(target, pr, "https://github.com") == (url, number)


def test_a_target_that_is_no_repository_is_one_usage_line():
    with pytest.raises(UsageError, match="is not a repository"):
        pr_url_of("https://github.com/octo", None, "https://github.com")
