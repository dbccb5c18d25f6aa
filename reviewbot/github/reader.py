"""The read side of GitHub: the PR snapshot, its comments, CI checks, who may act.

Owns: reading a PR (its URL is parsed by sources/pr_ref.py) (metadata, the changed files
through the paginated files API, commits, `.reviewbot.toml` from the BASE commit),
its comments (as `CommentRecord`s, read once per run by the publisher and handed to
`fetch_snapshot` for the model's context), the head commit's check runs and
statuses, and the permission API. The files and commits are those of the head SHA
the run checked out: the files API answers for the PR's head of the moment, so a
listing naming another head is replaced by the compare API's, pinned to both SHAs.
Every call goes through the `GitHubClient` Protocol (reviewbot/github/rest.py; the one
implementation, github/client.py, owns PyGithub, retries and the error mapping), and
each answer is read into a pydantic shape: callers get reviewbot types only.

Must not: write to GitHub (github/publisher.py does), import PyGithub, read the
environment, run git (sources/git_repo.py does the checkout), or ask for the PR with the diff
media type (GitHub answers 406 past 300 files or 20,000 lines; the files API has no
such limit below 3,000 files).
"""

from __future__ import annotations

import base64
import binascii
import logging
import re
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar
from urllib.parse import parse_qs, urlsplit

from pydantic import ValidationError

from reviewbot.config.file import (
    CONFIG_FILE,
    ReviewConfig,
    config_of,
    config_origin,
)
from reviewbot.config.learnings import LEARNINGS_FILE, Learnings, load_learnings
from reviewbot.errors import ConfigError, NetworkError, NotFoundError
from reviewbot.github.answers import IssueComment, Review, ReviewComment, Shape, User, shapes
from reviewbot.github.rest import GitHubClient, GitHubRefusal, RefusedNotFound, repo_path
from reviewbot.nodes.boundary import explain
from reviewbot.sources.ci import CheckKind, CheckState, CheckStatus
from reviewbot.sources.comments import CommentRecord, Where
from reviewbot.sources.diff_index import DiffIndex, FileDiff, FileStatus, file_diff_from_patch
from reviewbot.sources.guidelines import UnreadableFile
from reviewbot.sources.pr_ref import PRRef, is_login
from reviewbot.sources.snapshot import Origin, PRComment, PRCommit, PRSnapshot

FILES_LISTING_LIMIT = 3_000  # GET /pulls/{n}/files lists no more, whatever the PR has

_SHA = re.compile(r"^[0-9a-f]{40}$")

log = logging.getLogger(__name__)


# ------------------------------------------------------------------ GitHub's answers


class _RepoRef(Shape):
    full_name: str
    clone_url: str = ""


class _Branch(Shape):
    ref: str
    sha: str
    repo: _RepoRef | None = None  # None when the fork was deleted


class _Pull(Shape):
    title: str | None = None
    body: str | None = None
    user: User | None = None
    base: _Branch
    head: _Branch
    draft: bool | None = None
    state: str
    changed_files: int = 0
    commits: int | None = None


class _File(Shape):
    filename: str
    status: str = "modified"
    sha: str | None = None
    additions: int = 0
    deletions: int = 0
    patch: str | None = None
    previous_filename: str | None = None
    contents_url: str | None = None


class _GitAuthor(Shape):
    name: str | None = None


class _GitCommit(Shape):
    message: str = ""
    author: _GitAuthor | None = None


class _Commit(Shape):
    sha: str
    commit: _GitCommit


class _Content(Shape):
    type: str
    encoding: str | None = None
    content: str | None = None


class _Entry(Shape):
    name: str
    type: str


class _CheckRun(Shape):
    name: str
    status: str | None = None
    conclusion: str | None = None
    html_url: str | None = None


class _Status(Shape):
    context: str
    state: str | None = None
    target_url: str | None = None


_S = TypeVar("_S", bound=Shape)


def _one(data: object, shape: type[_S], *, what: str) -> _S:
    try:
        return shape.model_validate(data)
    except ValidationError as exc:
        raise NetworkError(f"GitHub sent a malformed {what}: {explain(exc, limit=1)}") from exc


@contextmanager
def _not_found_as(message: str) -> Iterator[None]:
    """A 404 said in the reader's words (which object, and what to check)."""
    try:
        yield
    except RefusedNotFound as exc:
        raise NotFoundError(message) from exc


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


def fetch_pull_request(client: GitHubClient, ref: PRRef) -> PullRequestInfo:
    """GET /repos/{o}/{r}/pulls/{n} (JSON, never the diff media type)."""
    with _not_found_as(_not_found_message(ref)):
        data = client.get(repo_path(ref.full_name, "pulls", ref.number))
    return _info(ref, _one(data, _Pull, what="pull request"))


def _info(ref: PRRef, pull: _Pull) -> PullRequestInfo:
    head_repo = pull.head.repo.full_name if pull.head.repo is not None else None
    base_repo = pull.base.repo.full_name if pull.base.repo is not None else ref.full_name
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
        clone_url=pull.base.repo.clone_url if pull.base.repo is not None else "",
        commits=pull.commits or 0,
    )


def _login(user: User | None) -> str:
    # A deleted account comes back as null; GitHub shows it as "ghost".
    return user.login if user is not None else "ghost"


def fetch_snapshot(
    client: GitHubClient,
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
    listed, commits = _listing_of_head(client, info)
    files = _diff_index(listed, total=info.changed_files)
    pr_commits = tuple(
        PRCommit(
            sha=c.sha,
            message=c.commit.message,
            author=(c.commit.author.name if c.commit.author else None) or "",
        )
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


def _listing_of_head(
    client: GitHubClient, info: PullRequestInfo
) -> tuple[list[_File], list[_Commit]]:
    """The PR's files and commits as of `info.head_sha`, never of a head pushed since."""
    ref = info.ref
    with _not_found_as(_not_found_message(ref)):
        listed = shapes(client.pages(repo_path(ref.full_name, "pulls", ref.number, "files")), _File)
        commits = shapes(
            client.pages(repo_path(ref.full_name, "pulls", ref.number, "commits")), _Commit
        )
        shas = [c.sha for c in commits]
        moved = _listed_head(listed, info.head_sha)
        if moved is None and info.head_sha in shas:
            return listed, commits[: shas.index(info.head_sha) + 1]  # later ones were pushed since
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
        return _compare(client, ref, info.base_sha, info.head_sha)


def _compare(
    client: GitHubClient, ref: PRRef, base: str, head: str
) -> tuple[list[_File], list[_Commit]]:
    """GET /compare/base...head: the files (first page) and the commits (every page)."""
    first, commits = client.first_and_rest(
        repo_path(ref.full_name, "compare", f"{base}...{head}"), "commits"
    )
    files = first.get("files") if isinstance(first, dict) else None
    return shapes(files if isinstance(files, list) else [], _File), shapes(commits, _Commit)


def _listed_head(listing: Sequence[_File], head_sha: str) -> str | None:
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


def _diff_index(listing: Sequence[_File], *, total: int) -> DiffIndex:
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


def _file_diff(item: _File) -> FileDiff:
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
    client: GitHubClient, info: PullRequestInfo, *, path: str = CONFIG_FILE, required: bool = False
) -> ReviewConfig:
    """`.reviewbot.toml` at the BASE commit (never the head: the PR must not set its own policy).

    No file → the defaults, unless `required` (an explicit --config): then exit 2.
    """
    origin = config_origin(info.base_ref, path)
    return config_of(_base_text(client, info, path, origin), origin=origin, required=required)


def fetch_base_learnings(client: GitHubClient, info: PullRequestInfo) -> Learnings:
    """`.reviewbot/learnings.toml` at the BASE commit, read as `.reviewbot.toml` is; none: none."""
    origin = config_origin(info.base_ref, LEARNINGS_FILE)
    text = _base_text(client, info, LEARNINGS_FILE, origin)
    return Learnings() if text is None else load_learnings(text, origin=origin)


def _base_text(client: GitHubClient, info: PullRequestInfo, path: str, origin: str) -> str | None:
    """A repository file's text at the base commit; None when there is no such file."""
    try:
        return _file_text(client, info.ref.full_name, path, info.base_sha)
    except UnreadableFile as exc:
        raise ConfigError(f"{origin}: {exc}") from None


def _file_text(client: GitHubClient, repo: str, path: str, sha: str) -> str | None:
    """A file's text at `sha` through the contents API; None when there is no such file."""
    try:
        found = client.get(repo_path(repo, "contents", *path.split("/")), {"ref": sha})
    except RefusedNotFound:
        return None
    try:
        content = _Content.model_validate(found)
    except ValidationError:
        content = None  # a directory is listed as an array
    if content is None or content.type != "file":
        raise UnreadableFile("is not a file")
    if content.encoding != "base64":  # the contents API leaves files over 1 MB unencoded
        raise UnreadableFile("is too large (over 1 MB)")
    try:
        return base64.b64decode(content.content or "").decode("utf-8")
    except (binascii.Error, UnicodeDecodeError):
        raise UnreadableFile("is not valid UTF-8") from None


@dataclass(frozen=True, slots=True, kw_only=True)
class BaseContents:
    """The base commit's files through the contents API (`BaseFiles`), for the guidelines."""

    client: GitHubClient
    repo: str
    sha: str

    def text(self, path: str) -> str | None:
        return _file_text(self.client, self.repo, path, self.sha)

    def names(self, folder: str) -> tuple[str, ...]:
        try:
            found = self.client.get(
                repo_path(self.repo, "contents", *folder.split("/")), {"ref": self.sha}
            )
        except RefusedNotFound:
            return ()
        if not isinstance(found, list):  # a file, not a folder
            return ()
        entries = (_Entry.model_validate(entry) for entry in found)
        return tuple(entry.name for entry in entries if entry.type == "file")


# ------------------------------------------------------------------ the PR's comments


def fetch_comment_records(client: GitHubClient, repo: str, number: int) -> list[CommentRecord]:
    """The PR's inline comments, reviews and discussion comments, in the order GitHub lists them."""
    records = [
        CommentRecord(
            id=c.id,
            where=Where.INLINE,
            author=c.user.login if c.user else None,
            body=c.body or "",
            in_reply_to=c.in_reply_to_id,
            path=c.path,
            line=c.line,
            start_line=c.start_line,
            side=c.side,
            created_at=c.created_at,
        )
        for c in shapes(client.pages(repo_path(repo, "pulls", number, "comments")), ReviewComment)
    ]
    records += [
        CommentRecord(
            id=r.id,
            where=Where.REVIEW,
            author=r.user.login if r.user else None,
            body=r.body or "",
            state=r.state,
        )
        for r in shapes(client.pages(repo_path(repo, "pulls", number, "reviews")), Review)
    ]
    records += [
        CommentRecord(
            id=c.id,
            where=Where.ISSUE,
            author=c.user.login if c.user else None,
            body=c.body or "",
            created_at=c.created_at,
        )
        for c in shapes(client.pages(repo_path(repo, "issues", number, "comments")), IssueComment)
    ]
    return records


# ------------------------------------------------------------------ CI


_RUNNING = {
    "queued": CheckStatus.QUEUED,
    "in_progress": CheckStatus.IN_PROGRESS,
    "waiting": CheckStatus.PENDING,
    "requested": CheckStatus.PENDING,
    "pending": CheckStatus.PENDING,
}


def fetch_ci_checks(client: GitHubClient, repo: str, head_sha: str) -> list[CheckState]:
    """The check runs (latest per name) and commit statuses (latest per context) of `head_sha`."""
    with _not_found_as(f"commit {head_sha} not found in {repo}"):
        listing = client.pages(repo_path(repo, "commits", head_sha, "check-runs"), key="check_runs")
        runs = shapes(listing, _CheckRun)
        statuses = shapes(client.pages(repo_path(repo, "statuses", head_sha)), _Status)
    latest: dict[str, CheckState] = {}
    for status in statuses:  # newest first: the first one seen per context is current
        latest.setdefault(status.context, _status_state(status))
    return [*map(_check_run_state, runs), *latest.values()]


def _check_run_state(run: _CheckRun) -> CheckState:
    if run.status == "completed":
        status = _parse_status(run.conclusion, default=CheckStatus.PENDING)
    else:
        status = _RUNNING.get(run.status or "", CheckStatus.PENDING)
    return CheckState(name=run.name, status=status, kind=CheckKind.CHECK_RUN, url=run.html_url)


def _status_state(status: _Status) -> CheckState:
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


def fetch_login(client: GitHubClient) -> str | None:
    """The token's own login (GET /user); None when the token may not ask (GITHUB_TOKEN, apps)."""
    try:
        data = client.get("/user")
    except GitHubRefusal:
        return None
    try:
        return User.model_validate(data).login
    except ValidationError:
        return None


def fetch_permission(client: GitHubClient, repo: str, user: str) -> str:
    """`admin`, `write`, `read` or `none`: what `user` may do on `repo`.

    A name that is not a GitHub login (`x/../maintainer`) has no access and is never asked
    about: the payload or comment that carried it was not written by GitHub.
    """
    if not is_login(user):
        log.warning("%r is not a GitHub login: it has no access", user)
        return "none"
    try:
        data = client.get(repo_path(repo, "collaborators", user, "permission"))
    except RefusedNotFound:
        return "none"  # GitHub answers 404 for a user who is not a collaborator
    permission = data.get("permission") if isinstance(data, dict) else None
    return str(permission) if permission else "none"
