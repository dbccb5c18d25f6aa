"""The token rule: GITHUB_TOKEN goes only to the configured API, never over plain HTTP to a
host that is not loopback, and a PR URL on a host that API does not serve is refused."""

from __future__ import annotations

import pytest

from reviewbot.errors import ExitCode, UsageError
from reviewbot.sources.pr_ref import may_carry_token, parse_pr_url, read_pr_url, served_hosts


class TestWithoutGitHubApiUrl:
    def test_github_com_goes_to_githubs_api(self):
        assert parse_pr_url("https://github.com/o/r/pull/1").api_url == "https://api.github.com"

    @pytest.mark.parametrize(
        "url",
        [
            "http://127.0.0.1:8123/o/r/pull/1",  # a poisoned benchmark entry on loopback
            "https://attacker.example/o/r/pull/1",
            "http://attacker.example/o/r/pull/1",
            "https://api.github.com.attacker.example/o/r/pull/1",
            "https://ghe.corp.example/o/r/pull/5",  # GitHub Enterprise needs GITHUB_API_URL
        ],
    )
    def test_any_other_host_is_refused_with_one_line(self, url):
        with pytest.raises(UsageError) as caught:
            parse_pr_url(url)
        message = str(caught.value)
        assert "\n" not in message
        assert "sends GITHUB_TOKEN only to https://api.github.com" in message
        assert caught.value.exit_code == ExitCode.USAGE


class TestWithGitHubApiUrl:
    def test_a_ghe_pr_goes_to_its_configured_api(self):
        ref = parse_pr_url(
            "https://ghe.corp.example/o/r/pull/5", api_url="https://ghe.corp.example/api/v3"
        )
        assert ref.api_url == "https://ghe.corp.example/api/v3"

    def test_ghe_com_serves_the_host_without_api(self):
        api = "https://api.octocorp.ghe.com"
        assert parse_pr_url("https://octocorp.ghe.com/o/r/pull/2", api_url=api).api_url == api

    def test_the_server_url_names_the_web_host_of_a_loopback_api(self):
        ref = parse_pr_url(
            "https://github.com/o/r/pull/1",
            api_url="http://127.0.0.1:9/",
            server_url="https://github.com",
        )
        assert ref.api_url == "http://127.0.0.1:9"

    def test_a_pr_on_another_host_is_refused(self):
        """The configured API would be asked about a PR of another server: refused, not guessed."""
        with pytest.raises(UsageError, match="sends GITHUB_TOKEN only to GITHUB_API_URL"):
            parse_pr_url(
                "https://attacker.example/o/r/pull/1",
                api_url="https://ghe.corp.example/api/v3",
                server_url="https://ghe.corp.example",
            )

    @pytest.mark.parametrize(
        "api", ["http://ghe.corp.example/api/v3", "http://10.0.0.5/api/v3", "ftp://ghe/api"]
    )
    def test_plain_http_to_a_host_that_is_not_loopback_is_refused(self, api):
        with pytest.raises(UsageError, match="sends GITHUB_TOKEN only over https"):
            parse_pr_url("https://ghe.corp.example/o/r/pull/1", api_url=api)


class TestMayCarryToken:
    @pytest.mark.parametrize(
        ("url", "allowed"),
        [
            ("https://github.com/o/r.git", True),
            ("http://127.0.0.1:8080/api", True),
            ("http://127.1.2.3/api", True),
            ("http://[::1]:9/api", True),
            ("http://localhost:9/api", True),
            ("http://github.com/o/r.git", False),
            ("http://localhost.attacker.example/", False),
            ("file:///tmp/repo", False),
            ("https://", False),
        ],
    )
    def test_https_or_loopback_http_only(self, url, allowed):
        assert may_carry_token(url) is allowed


def test_served_hosts():
    assert served_hosts("https://api.github.com", None) == {"github.com"}
    assert served_hosts("https://ghe.example/api/v3", "https://ghe.example") == {"ghe.example"}


def test_reading_a_url_decides_nothing():
    """The benchmark's loader normalises any PR URL's shape; where the token goes is not its call."""
    where = read_pr_url("http://attacker.example:81/o/r.git/pull/3/files")
    assert (where.html_url, str(where)) == ("http://attacker.example:81/o/r/pull/3", "o/r#3")
