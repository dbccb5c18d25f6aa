"""API paths built from data: every segment encoded whole, logins checked before any lookup."""

from __future__ import annotations

import re

import pytest
import responses

from reviewbot.errors import UsageError
from reviewbot.github.client import make_client
from reviewbot.github.reader import fetch_permission
from reviewbot.github.rest import api_path, repo_path
from reviewbot.sources.pr_ref import is_login

API = "https://api.github.com"
REPO = "Codertocat/Hello-World"


@pytest.fixture
def gh():
    with responses.RequestsMock(assert_all_requests_are_fired=False) as rsps:
        yield rsps


@pytest.fixture
def client():
    return make_client(API, "ghs_s3cret", backoff=0, retries=0)


class TestApiPath:
    def test_a_slash_in_data_stays_inside_its_segment(self):
        """`x/../maintainer` is one encoded segment, not three."""
        path = repo_path(REPO, "collaborators", "x/../maintainer", "permission")
        assert path == "/repos/Codertocat/Hello-World/collaborators/x%2F..%2Fmaintainer/permission"

    @pytest.mark.parametrize("segment", ["", ".", ".."], ids=["empty", "dot", "dot-dot"])
    def test_dot_and_empty_segments_are_refused(self, segment):
        """A dot segment would be resolved away by the HTTP client, encoded or not."""
        with pytest.raises(UsageError):
            api_path("repos", segment, "x")

    def test_the_encoded_path_reaches_github_as_sent(self, gh, client):
        """Through PyGithub and requests, `%2F` arrives as it was sent (no dot-segment removal)."""
        gh.add(responses.GET, re.compile(r".*"), json={"permission": "read"})
        client.get(repo_path(REPO, "contents", "a%2F/../b"))
        (call,) = gh.calls
        assert call.request.path_url == f"/repos/{REPO}/contents/a%252F%2F..%2Fb"


class TestLogins:
    @pytest.mark.parametrize(
        "login", ["octocat", "a", "dependabot[bot]", "my-app[bot]", "a1-b2", "jane_acme"]
    )
    def test_github_logins_are_accepted(self, login):
        """Accounts, GitHub Apps' `slug[bot]` and managed users' `name_shortcode`."""
        assert is_login(login)

    @pytest.mark.parametrize(
        "login",
        ["x/../maintainer", "", "-lead", "a" * 40, "octocat\n", "..", "a b", "x[bot][bot]"],
        ids=[
            "traversal",
            "empty",
            "leading-hyphen",
            "too-long",
            "newline",
            "dots",
            "space",
            "bot-twice",
        ],
    )
    def test_anything_else_is_not_a_login(self, login):
        """Slashes, dots, spaces, newlines, a leading hyphen or 40 characters: no account."""
        assert not is_login(login)

    def test_no_lookup_is_made_for_a_name_that_is_no_login(self, gh, client):
        """`x/../maintainer` has no access, and GitHub is not asked about anyone."""
        assert fetch_permission(client, REPO, "x/../maintainer") == "none"
        assert len(gh.calls) == 0

    def test_a_login_is_asked_about_by_its_own_path(self, gh, client):
        """A valid login is looked up at exactly its own permission URL."""
        gh.add(responses.GET, re.compile(r".*"), json={"permission": "write"})
        assert fetch_permission(client, REPO, "my-app[bot]") == "write"
        (call,) = gh.calls
        assert call.request.path_url == f"/repos/{REPO}/collaborators/my-app%5Bbot%5D/permission"
