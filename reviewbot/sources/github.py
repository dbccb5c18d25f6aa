"""The read side of GitHub (PyGithub): PR URLs, the client, the PR snapshot, CI checks.

Owns: parsing a PR URL into a `PRRef`, building the `github.Github` client (retries
for 5xx and secondary rate limits, timeouts), reading a PR (metadata, the changed
files through the paginated files API, commits, `.reviewbot.toml` from the BASE
commit) and the head commit's check runs and statuses. The files and commits are
those of the head SHA the run checked out: the files API answers for the PR's head
of the moment, so a listing naming another head is replaced by the compare API's,
pinned to both SHAs. The PR's comments are read
once, by the publisher (publish/github.py), and handed to `fetch_snapshot`. PyGithub objects
never leave this module: callers get reviewbot types, and every PyGithub or
`requests` failure is re-raised as a `reviewbot.errors` error with a one-line
message.

Must not: write to GitHub (publish/github.py does), read the environment (the
composition root passes `api_url` and `token` in), run git (git_repo.py does the
checkout), or ask for the PR with the diff media type (GitHub answers 406 past
300 files or 20,000 lines; the files API has no such limit below 3,000 files).
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

from github import (
    Auth,
    BadCredentialsException,
    Github,
    GithubException,
    GithubRetry,
    RateLimitExceededException,
    UnknownObjectException,
)
from github.CommitStatus import CommitStatus
from github.ContentFile import ContentFile
from github.File import File
from github.GithubException import RateLimitExceededExceedsMaxWait
from github.PaginatedList import PaginatedList
from github.PullRequest import PullRequest

from reviewbot.config import CONFIG_FILE, ReviewConfig, config_missing, config_origin, load_config
from reviewbot.errors import (
    AuthError,
    ConfigError,
    GitHubAPIError,
    NetworkError,
    NotFoundError,
    UsageError,
)
from reviewbot.sources.ci import CheckKind, CheckState, CheckStatus
from reviewbot.sources.diff_index import DiffIndex, FileDiff, FileStatus, file_diff_from_patch
from reviewbot.sources.snapshot import Origin, PRComment, PRCommit, PRSnapshot

PUBLIC_HOST = "github.com"
PUBLIC_API = "https://api.github.com"
FILES_LISTING_LIMIT = 3_000  # GET /pulls/{n}/files lists no more, whatever the PR has
PER_PAGE = 100  # the maximum GitHub allows

_EXPECTED_URL = "https://github.com/OWNER/REPO/pull/NUMBER"
_OWNER = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})$")
_REPO = re.compile(r"^[A-Za-z0-9._-]{1,100}$")
_TAILS = frozenset({"files", "commits", "checks", "changes"})
_SHA = re.compile(r"^[0-9a-f]{40}$")

log = logging.getLogger(__name__)


# ------------------------------------------------------------------ the PR URL


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


def _default_api_url(scheme: str, netloc: str) -> str:
    return PUBLIC_API if netloc == PUBLIC_HOST else f"{scheme}://{netloc}/api/v3"


# ------------------------------------------------------------------ the client


def make_client(
    api_url: str,
    token: str | None,
    *,
    timeout: int = 30,
    retries: int = 5,
    backoff: float = 1.0,
    pace_seconds: float = 0,
    max_rate_limit_wait: float = 300.0,
) -> Github:
    """A PyGithub client; makes no request.

    Retries 5xx with exponential backoff and rate limits after `Retry-After` or
    `x-ratelimit-reset` (GithubRetry), gives up when a rate limit asks for more than
    `max_rate_limit_wait` seconds, and spaces requests by `pace_seconds` (none by
    default: a review makes a few dozen sequential requests at most). A POST is
    never retried blindly (`WriteOnceRetry`).
    """
    retry = WriteOnceRetry(
        total=retries,
        backoff_factor=backoff,
        max_rate_limit_wait=max_rate_limit_wait,
    )
    return Github(
        auth=Auth.Token(token) if token else None,
        base_url=api_url,
        timeout=timeout,
        user_agent="reviewbot",
        per_page=PER_PAGE,
        retry=retry,
        seconds_between_requests=pace_seconds or None,
        seconds_between_writes=None,
        lazy=True,  # objects are fetched when read, so building a Repository costs nothing
    )


IDEMPOTENT_METHODS = frozenset({"GET", "HEAD", "OPTIONS", "PUT", "PATCH", "DELETE"})


class WriteOnceRetry(GithubRetry):
    """GithubRetry, minus its blind retries of POST (PyGithub's default includes POST).

    A POST that GitHub stored but whose answer was lost (a 502, a reset, a timeout)
    would be made twice: two reviews, two summaries, two check runs. So a POST is
    retried only after a rate-limit refusal (403 — GithubRetry reads its body and
    re-raises any other 403 — or 429 with `Retry-After`), which stores nothing, and
    after a connection that never opened (urllib3 retries those for any method). Any
    other failure reaches the publisher, which reads back before writing again. PUT,
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


# ------------------------------------------------------------------ errors


def _one_line(text: object) -> str:
    return " ".join(str(text).split())


def _github_message(exc: GithubException) -> str:
    data = exc.data
    message = data.get("message") if isinstance(data, dict) else None
    return _one_line(message or exc.message or f"HTTP {exc.status}")


@contextmanager
def _github_errors(*, not_found: str, api_url: str) -> Iterator[None]:
    """Map PyGithub and `requests` failures to reviewbot errors with one-line messages."""
    try:
        yield
    except UnknownObjectException as exc:
        raise NotFoundError(not_found) from exc
    except BadCredentialsException as exc:
        raise AuthError("GitHub rejected the token — check GITHUB_TOKEN") from exc
    except RateLimitExceededException as exc:
        raise GitHubAPIError(
            f"GitHub rate limit exceeded ({_github_message(exc)}) — retry later, or use a token with a higher limit"
        ) from exc
    except GithubException as exc:
        if exc.status == 404:  # PyGithub only maps the message "Not Found" to UnknownObject
            raise NotFoundError(not_found) from exc
        if exc.status == 401:
            raise AuthError("GitHub rejected the token — check GITHUB_TOKEN") from exc
        if exc.status == 403:
            raise AuthError(
                f"GitHub refused access ({_github_message(exc)}) — the token needs read access to this repository's pull requests, contents and checks"
            ) from exc
        raise GitHubAPIError(f"GitHub answered {exc.status}: {_github_message(exc)}") from exc
    except OSError as exc:  # requests' ConnectionError, Timeout and RetryError are OSErrors
        raise NetworkError(
            f"GitHub at {api_url} could not be reached or kept failing: {_one_line(exc)}"
        ) from exc


def _not_found_message(ref: PRRef) -> str:
    return f"pull request {ref} not found — check the URL, or set GITHUB_TOKEN for a private repository"


# ------------------------------------------------------------------ the pull request


@dataclass(frozen=True, slots=True, kw_only=True)
class PullRequestInfo:
    """The PR's metadata: what is needed before the checkout and the snapshot."""

    ref: PRRef
    title: str
    body: str
    author: str
    base_ref: str
    base_sha: str
    head_ref: str
    head_sha: str
    head_repo: str | None  # "owner/name"; None when the fork was deleted
    draft: bool
    fork: bool
    state: str  # "open" or "closed"
    changed_files: int
    clone_url: str  # of the BASE repository: refs/pull/N/head exists there, forks included
    commits: int = 0  # the PR's commit count: how deep a clone must be to hold its history


def fetch_pull_request(client: Github, ref: PRRef) -> PullRequestInfo:
    """GET /repos/{o}/{r}/pulls/{n} (JSON, never the diff media type)."""
    with _github_errors(not_found=_not_found_message(ref), api_url=ref.api_url):
        pull = client.get_repo(ref.full_name).get_pull(ref.number)
        return _info(ref, pull)


def _info(ref: PRRef, pull: PullRequest) -> PullRequestInfo:
    head_repo = pull.head.repo.full_name if pull.head.repo is not None else None
    base_repo = pull.base.repo.full_name
    return PullRequestInfo(
        ref=ref,
        title=pull.title or "",
        body=pull.body or "",
        author=_login(pull.user),
        base_ref=pull.base.ref,
        base_sha=pull.base.sha,
        head_ref=pull.head.ref,
        head_sha=pull.head.sha,
        head_repo=head_repo,
        draft=bool(pull.draft),
        fork=head_repo != base_repo,
        state=pull.state,
        changed_files=pull.changed_files,
        clone_url=pull.base.repo.clone_url,
        commits=pull.commits or 0,
    )


def _login(user: Any) -> str:
    # A deleted account comes back as null; GitHub shows it as "ghost".
    return str(user.login) if user is not None else "ghost"


def fetch_snapshot(
    client: Github,
    info: PullRequestInfo,
    *,
    checkout: Path,
    config: ReviewConfig,
    comments: tuple[PRComment, ...],
) -> PRSnapshot:
    """Everything a review reads about the PR; `checkout` is the PR head's working tree.

    `config` is the base branch's (`fetch_base_config`, read before deciding to
    review at all) and `comments` are the publisher's reads of the PR's comments:
    neither is read twice. The files listing stops at 3,000 files (GitHub's
    limit): then `diff.listing_truncated` is set and `diff.total_files` is the
    PR's real count.
    """
    ref = info.ref
    with _github_errors(not_found=_not_found_message(ref), api_url=ref.api_url):
        repository = client.get_repo(ref.full_name)
        pull = repository.get_pull(ref.number)
        listed, commits = list(pull.get_files()), list(pull.get_commits())
        shas = [c.sha for c in commits]
        moved = _listed_head(listed, info.head_sha)
        if moved is not None or info.head_sha not in shas:
            # GET /pulls/N/files and /commits answer for the PR's head NOW: after a push they
            # describe another commit than the checkout. The compare API is pinned to SHAs.
            log.warning(
                "%s: the files and commits listed are not all of %s (%s); listing them by SHA",
                ref,
                info.head_sha[:12],
                f"the listing names {moved[:12]}, a later push"
                if moved
                else "a push since, or more commits than GitHub lists",
            )
            comparison = repository.compare(info.base_sha, info.head_sha)
            listed, commits = list(comparison.files), list(comparison.commits)
        else:
            commits = commits[: shas.index(info.head_sha) + 1]  # later ones were pushed since
        files = _diff_index(listed, total=info.changed_files)
        pr_commits = tuple(
            PRCommit(sha=c.sha, message=c.commit.message, author=c.commit.author.name)
            for c in commits
        )
    return PRSnapshot(
        origin=Origin.GITHUB,
        url=ref.html_url,
        repo=ref.full_name,
        number=ref.number,
        title=info.title,
        body=info.body,
        author=info.author,
        base_ref=info.base_ref,
        head_ref=info.head_ref,
        base_sha=info.base_sha,
        head_sha=info.head_sha,
        draft=info.draft,
        fork=info.fork,
        diff=files,
        checkout=checkout,
        comments=comments,
        config=config,
        commits=pr_commits,
    )


def _listed_head(listing: Sequence[File], head_sha: str) -> str | None:
    """The other commit a files listing answered for, or None when it is `head_sha`'s.

    Each listed file's `contents_url` ends in `?ref=<the head the listing was made for>`.
    A removed file is not in that head, so only the others are asked.
    """
    for item in listing:
        if item.status == "removed":
            continue
        query = parse_qs(urlsplit(item.contents_url or "").query)
        listed = (query.get("ref") or [""])[0]
        if _SHA.match(listed) and listed != head_sha:
            return listed
    return None


def _diff_index(listing: Sequence[File], *, total: int) -> DiffIndex:
    files: dict[str, FileDiff] = {}
    for item in listing:
        diff = _file_diff(item)
        files[diff.path] = diff
    return DiffIndex(files=files, listing_truncated=total > len(files), total_files=total)


_GITHUB_STATUS = {
    "added": FileStatus.ADDED,
    "removed": FileStatus.DELETED,
    "modified": FileStatus.MODIFIED,
    "renamed": FileStatus.RENAMED,
    "copied": FileStatus.COPIED,
    "changed": FileStatus.MODE_CHANGED,  # a mode or type change; MODIFIED when it has a patch
    "unchanged": FileStatus.MODIFIED,
}
_SUBMODULE_LINE = re.compile(r"^[-+]Subproject commit [0-9a-f]{40}$")


def _file_diff(item: File) -> FileDiff:
    # No patch: too large, binary, empty, or no content change. file_diff_from_patch tells
    # which from the counts, the status and the blob SHA (its one rule for a missing patch).
    patch: str | None = item.patch or None
    status = _GITHUB_STATUS.get(item.status, FileStatus.MODIFIED)
    if status is FileStatus.MODE_CHANGED and patch is not None:
        status = FileStatus.MODIFIED
    return file_diff_from_patch(
        item.filename,
        patch,
        status=status,
        old_path=item.previous_filename
        if status in (FileStatus.RENAMED, FileStatus.COPIED)
        else None,
        additions=item.additions,
        deletions=item.deletions,
        submodule=_is_submodule(patch),
        blob_sha=item.sha,
    )


def _is_submodule(patch: str | None) -> bool:
    """GitHub shows a submodule bump as `-Subproject commit A` / `+Subproject commit B`."""
    if patch is None:
        return False
    body = [line for line in patch.splitlines()[1:] if line and not line.startswith("\\")]
    return bool(body) and all(_SUBMODULE_LINE.match(line) for line in body)


# ------------------------------------------------------------------ config from the base


def fetch_base_config(
    client: Github, info: PullRequestInfo, *, path: str = CONFIG_FILE, required: bool = False
) -> ReviewConfig:
    """`.reviewbot.toml` at the BASE commit (never the head: the PR must not set its own policy).

    No file → the defaults, unless `required` (an explicit --config): then exit 2.
    """
    ref, origin = info.ref, config_origin(info.base_ref, path)
    try:
        with _github_errors(not_found="", api_url=ref.api_url):
            found = client.get_repo(ref.full_name).get_contents(path, ref=info.base_sha)
    except NotFoundError:
        if required:
            raise config_missing(origin) from None
        return ReviewConfig()
    if not isinstance(found, ContentFile) or found.type != "file":
        raise ConfigError(f"{origin}: is not a file")
    if found.encoding != "base64":  # the contents API leaves files over 1 MB unencoded
        raise ConfigError(f"{origin}: is too large to be a configuration file")
    try:
        text = found.decoded_content.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{origin}: is not valid UTF-8") from exc
    return load_config(text, origin=origin)


# ------------------------------------------------------------------ CI


_RUNNING = {
    "queued": CheckStatus.QUEUED,
    "in_progress": CheckStatus.IN_PROGRESS,
    "waiting": CheckStatus.PENDING,
    "requested": CheckStatus.PENDING,
    "pending": CheckStatus.PENDING,
}


def fetch_ci_checks(client: Github, repo: str, head_sha: str) -> list[CheckState]:
    """The check runs (latest per name) and commit statuses (latest per context) of `head_sha`."""
    api_url = client.requester.base_url
    with _github_errors(not_found=f"commit {head_sha} not found in {repo}", api_url=api_url):
        repository = client.get_repo(repo)
        runs = [_check_run_state(run) for run in repository.get_commit(head_sha).get_check_runs()]
        listing = PaginatedList(
            CommitStatus, client.requester, f"{repository.url}/statuses/{head_sha}", None
        )
        latest: dict[str, CheckState] = {}
        for status in listing:  # newest first: the first one seen per context is current
            latest.setdefault(status.context, _status_state(status))
    return [*runs, *latest.values()]


def _check_run_state(run: Any) -> CheckState:
    if run.status == "completed":
        status = _parse_status(run.conclusion, default=CheckStatus.PENDING)
    else:
        status = _RUNNING.get(run.status, CheckStatus.PENDING)
    return CheckState(name=run.name, status=status, kind=CheckKind.CHECK_RUN, url=run.html_url)


def _status_state(status: CommitStatus) -> CheckState:
    return CheckState(
        name=status.context,
        status=_parse_status(status.state, default=CheckStatus.PENDING),
        kind=CheckKind.STATUS,
        url=status.target_url,
    )


def _parse_status(value: str | None, *, default: CheckStatus) -> CheckStatus:
    # An unknown value (GitHub adds some now and then) counts as unfinished, never as success.
    try:
        return CheckStatus(value or "")
    except ValueError:
        return default


# ------------------------------------------------------------------ who is asking

GitHubClient = Github  # the type callers hold without importing PyGithub themselves


def fetch_login(client: Github) -> str | None:
    """The token's own login (GET /user); None when the token may not ask (GITHUB_TOKEN, apps)."""
    try:
        return str(client.get_user().login)
    except GithubException:
        return None
    except OSError as exc:
        api_url = client.requester.base_url
        raise NetworkError(
            f"GitHub at {api_url} could not be reached or kept failing: {_one_line(exc)}"
        ) from exc


def fetch_permission(client: Github, repo: str, user: str) -> str:
    """`admin`, `write`, `read` or `none`: what `user` may do on `repo`."""
    with _github_errors(
        not_found=f"repository {repo} not found", api_url=client.requester.base_url
    ):
        try:
            return str(client.get_repo(repo).get_collaborator_permission(user))
        except UnknownObjectException:
            return "none"  # GitHub answers 404 for a user who is not a collaborator
