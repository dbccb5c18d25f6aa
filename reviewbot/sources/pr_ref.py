"""Where a pull request is, and the one rule of where `GITHUB_TOKEN` may go.

`read_pr_url` parses the shape of a PR URL (host, repository, number) and decides
nothing. `parse_pr_url` resolves it to a `PRRef` under the token rule: the token goes
only to the configured API — `GITHUB_API_URL` when set, else https://api.github.com —
never to a host the PR URL names, and never over plain HTTP except to a loopback host
(a local fake or proxy). So the PR URL must be on a web host that API serves
(github.com; with `GITHUB_API_URL`, `GITHUB_SERVER_URL`'s host or the API's own);
any other URL is a one-line `UsageError` before a request is made. `may_carry_token`
is the scheme half of the rule, shared with the clone (sources/git_repo.py).

Must not: talk to GitHub or read the environment (the caller passes GITHUB_API_URL
and GITHUB_SERVER_URL).
"""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass
from urllib.parse import urlsplit

from reviewbot.errors import UsageError

PUBLIC_HOST = "github.com"
PUBLIC_API = "https://api.github.com"

_EXPECTED_URL = "https://github.com/OWNER/REPO/pull/NUMBER"
# GitHub's names: an account of 1–39 letters, digits and hyphens, not starting with a hyphen
# (`_` only in Enterprise Managed Users' `name_shortcode`); a repository of 1–100 letters,
# digits, `.`, `_` and `-`. `\Z`, not `$`: `$` also matches before a final newline.
_OWNER = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,38}\Z")
_REPO = re.compile(r"^[A-Za-z0-9._-]{1,100}\Z")
# A login: an account name, or a GitHub App's `slug[bot]`.
_LOGIN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,38}(?:\[bot\])?\Z")
_TAILS = frozenset({"files", "commits", "checks", "changes"})


@dataclass(frozen=True, slots=True, kw_only=True)
class PRUrl:
    """A PR URL's parts, as written: nothing here says the token may go to `host`."""

    scheme: str
    host: str
    netloc: str  # host[:port]
    owner: str
    repo: str
    number: int

    @property
    def full_name(self) -> str:
        return f"{self.owner}/{self.repo}"

    @property
    def html_url(self) -> str:
        return f"{self.scheme}://{self.netloc}/{self.full_name}/pull/{self.number}"

    def __str__(self) -> str:
        return f"{self.full_name}#{self.number}"


@dataclass(frozen=True, slots=True, kw_only=True)
class PRRef:
    host: str
    owner: str
    repo: str
    number: int
    api_url: str  # where GITHUB_TOKEN goes: the configured API, checked by `parse_pr_url`
    html_url: str

    @property
    def full_name(self) -> str:
        return f"{self.owner}/{self.repo}"

    def __str__(self) -> str:
        return f"{self.full_name}#{self.number}"


def read_pr_url(url: str) -> PRUrl:
    """`https://HOST/OWNER/REPO/pull/N[/files|/commits|/checks…][?…][#…]` → its parts."""
    parts = urlsplit(url.strip())
    segments = [s for s in parts.path.split("/") if s]
    host = (parts.hostname or "").lower()
    if (
        parts.scheme not in ("https", "http")
        or not host
        or len(segments) < 4
        or segments[2] != "pull"
        or not _OWNER.match(segments[0])
        or not _REPO.match(segments[1])
        or not segments[3].isdigit()
        or int(segments[3]) < 1
        or (len(segments) > 4 and segments[4] not in _TAILS)
    ):
        raise UsageError(f"not a pull request URL: {url!r} — expected {_EXPECTED_URL}")
    host = PUBLIC_HOST if host == "www.github.com" else host
    return PRUrl(
        scheme=parts.scheme,
        host=host,
        netloc=host if parts.port is None else f"{host}:{parts.port}",
        owner=segments[0],
        repo=segments[1].removesuffix(".git"),
        number=int(segments[3]),
    )


def parse_repo_name(full_name: str, *, what: str = "the repository") -> str:
    """`OWNER/REPO` exactly as GitHub spells a repository, else a UsageError naming `what`.

    Nothing is normalised away: `acme/shop.git`, `acme/shop/`, `acme//shop`, `"acme/shop\\n"`,
    `.` and `..` are refused, never read as `acme/shop`, since the name ends up in API paths.
    """
    owner, sep, repo = full_name.partition("/")
    if (
        not sep
        or not _OWNER.match(owner)
        or not _REPO.match(repo)
        or repo in (".", "..")
        or repo.lower().endswith(".git")
    ):
        raise UsageError(f"{what} {full_name!r} is not a repository name: expected OWNER/REPO")
    return full_name


def is_login(text: str) -> bool:
    """Whether `text` can be a GitHub login (`octocat`, `my-app[bot]`), as GitHub allows them."""
    return _LOGIN.match(text) is not None


def parse_pr_url(url: str, *, api_url: str | None = None, server_url: str | None = None) -> PRRef:
    """The PR a URL names, on the configured API (`api_url`: GITHUB_API_URL, else github.com's).

    Refused (UsageError, exit 2): an API over plain HTTP to a host that is not loopback, and
    a PR URL on a host the API does not serve (`server_url`: GITHUB_SERVER_URL's host).
    """
    where = read_pr_url(url)
    api = (api_url or PUBLIC_API).rstrip("/")
    if not may_carry_token(api):
        raise UsageError(
            f"GITHUB_API_URL {api!r} is plain http to a host that is not loopback: reviewbot "
            "sends GITHUB_TOKEN only over https"
        )
    served = served_hosts(api, server_url)
    if where.host not in served:
        raise UsageError(_foreign(url, where.host, api, served, configured=api_url is not None))
    return PRRef(
        host=where.host,
        owner=where.owner,
        repo=where.repo,
        number=where.number,
        api_url=api,
        html_url=where.html_url,
    )


def may_carry_token(url: str) -> bool:
    """https, or plain http to a loopback host; anything else could show the token on the way."""
    parts = urlsplit(url)
    if parts.scheme == "https":
        return bool(parts.hostname)
    return parts.scheme == "http" and _is_loopback(parts.hostname or "")


def served_hosts(api_url: str, server_url: str | None) -> frozenset[str]:
    """The web hosts whose PRs `api_url` answers for: github.com's for GitHub's API; else
    GITHUB_SERVER_URL's host and the API's own (GHE `HOST/api/v3`, GHE.com `api.HOST`)."""
    api_host = (urlsplit(api_url).hostname or "").lower()
    if api_host == urlsplit(PUBLIC_API).hostname:
        return frozenset({PUBLIC_HOST})
    hosts = {api_host, api_host.removeprefix("api.")}
    if server_url:
        hosts.add((urlsplit(server_url).hostname or "").lower())
    return frozenset(h for h in hosts if h)


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def _foreign(url: str, host: str, api: str, served: frozenset[str], *, configured: bool) -> str:
    hosts = ", ".join(sorted(served))
    if configured:
        return (
            f"{url!r} is on {host}, not on {hosts}: reviewbot sends GITHUB_TOKEN only to "
            f"GITHUB_API_URL ({api}); for a PR on {host}, set GITHUB_API_URL (and "
            "GITHUB_SERVER_URL) to that server"
        )
    return (
        f"{url!r} is not on {PUBLIC_HOST}: reviewbot sends GITHUB_TOKEN only to {PUBLIC_API}; "
        f"for a GitHub Enterprise server, set GITHUB_API_URL to its API (https://{host}/api/v3)"
    )
