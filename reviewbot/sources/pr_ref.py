"""Where a pull request is: its URL parsed into a `PRRef` (host, repository, number, API URL).

github.com maps to https://api.github.com, any other host (GitHub Enterprise) to
https://HOST/api/v3. Must not: talk to GitHub or read the environment (the caller
passes GITHUB_API_URL).
"""

from __future__ import annotations

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
class PRRef:
    host: str
    owner: str
    repo: str
    number: int
    api_url: str
    html_url: str

    @property
    def full_name(self) -> str:
        return f"{self.owner}/{self.repo}"

    def __str__(self) -> str:
        return f"{self.full_name}#{self.number}"


def parse_pr_url(url: str, *, api_url: str | None = None) -> PRRef:
    """`https://HOST/OWNER/REPO/pull/N[/files|/commits|/checks…][?…][#…]` → PRRef.

    github.com maps to https://api.github.com, any other host to https://HOST/api/v3;
    `api_url` (GITHUB_API_URL, read by the caller) overrides both.
    """
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
    netloc = host if parts.port is None else f"{host}:{parts.port}"
    owner, repo, number = segments[0], segments[1].removesuffix(".git"), int(segments[3])
    return PRRef(
        host=host,
        owner=owner,
        repo=repo,
        number=number,
        api_url=(api_url or _default_api_url(parts.scheme, netloc)).rstrip("/"),
        html_url=f"{parts.scheme}://{netloc}/{owner}/{repo}/pull/{number}",
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


def _default_api_url(scheme: str, netloc: str) -> str:
    return PUBLIC_API if netloc == PUBLIC_HOST else f"{scheme}://{netloc}/api/v3"
