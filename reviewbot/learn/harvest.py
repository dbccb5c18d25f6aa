"""The dismissals of a repository's pull requests, read as a review reads them.

For each PR (one with `--pr`, else those updated since `--since`), its comments are read
and trusted exactly as a review of that PR trusts them (`memory.prior.read_prior`): only
reviewbot's sealed findings, and only `/dismiss` replies by people entitled to decide
findings (write access, not the PR's author, not the account reviewbot posts as).
`memory.taught` turns each dismissed finding into one learning.

Must not: write anything (to GitHub or to disk).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from functools import partial

from reviewbot.app import GitHub
from reviewbot.config.learnings import Learning
from reviewbot.errors import AuthError
from reviewbot.github.answers import Shape, User, shapes
from reviewbot.github.reader import fetch_comment_records
from reviewbot.github.rest import GitHubClient, repo_path
from reviewbot.learn.stale import file_text
from reviewbot.memory.prior import Trust, read_prior
from reviewbot.memory.seal import Sealer
from reviewbot.memory.taught import taught
from reviewbot.nodes.model import ReviewNode

MAX_PAGES = 10  # 1,000 PRs, most recently updated first
NO_KEY = (
    "reviewbot learn needs the key reviewbot seals its comments with (REVIEWBOT_MARKER_KEY, "
    "else ANTHROPIC_API_KEY) to recognise its own findings"
)


class _ListedPull(Shape):
    number: int
    user: User | None = None
    updated_at: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Harvest:
    learnings: tuple[Learning, ...]
    pulls: tuple[int, ...]  # the PRs read
    ignored: int  # /confirm or /dismiss replies by accounts that may not decide findings


def harvest(
    github: GitHub, repo: str, *, secret: str | None, pr: int | None, since: datetime | None
) -> Harvest:
    """Every learning the chosen PRs' dismissals teach, oldest PR first."""
    if secret is None:
        raise AuthError(NO_KEY)
    pulls = [(pr, None)] if pr is not None else _recent(github, repo, since)
    learned: list[Learning] = []
    ignored = 0
    for number, author in sorted(pulls, key=lambda p: p[0]):
        trust = Trust(
            bot_login=github.login,
            sealer=Sealer.of(secret, repo=repo, number=number),
            pr_author=author or _author(github, repo, number),
            is_writer=lambda login: github.is_writer(repo, login),
        )
        prior = read_prior(fetch_comment_records(github.client, repo, number), trust)
        ignored += len(prior.ignored)
        code = partial(_anchored_code, github.client, repo)
        learned.extend(
            entry
            for entry in taught(prior, pr=number, code=code)
            if since is None or _after(entry.at, since)
        )
    return Harvest(learnings=tuple(learned), pulls=tuple(n for n, _ in pulls), ignored=ignored)


def _recent(github: GitHub, repo: str, since: datetime | None) -> list[tuple[int, str | None]]:
    params = {"state": "all", "sort": "updated", "direction": "desc", "per_page": 100}
    listed = shapes(
        github.client.pages(repo_path(repo, "pulls"), params, limit=MAX_PAGES), _ListedPull
    )
    return [
        (p.number, p.user.login if p.user else None)
        for p in listed
        if since is None or p.updated_at is None or _after(p.updated_at, since)
    ]


def _anchored_code(client: GitHubClient, repo: str, node: ReviewNode) -> str | None:
    """The lines a finding was anchored on, in the commit it was made on (None: unknown)."""
    anchor = node.anchor
    if anchor is None or anchor.side == "LEFT" or node.commit_sha is None:
        return None
    text = file_text(client, repo, anchor.path, node.commit_sha)
    if text is None:
        return None
    return "\n".join(text.splitlines()[anchor.start_line - 1 : anchor.end_line])


def _author(github: GitHub, repo: str, number: int) -> str | None:
    data = github.client.get(repo_path(repo, "pulls", number))
    found = shapes([data], _ListedPull)
    return found[0].user.login if found and found[0].user else None


def _after(stamp: str, since: datetime) -> bool:
    try:
        when = datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    except ValueError:
        return True  # a time GitHub did not write: kept, a person reviews the file
    if when.tzinfo is None:
        when = when.replace(tzinfo=since.tzinfo)
    return when >= since
