"""`reviewbot learn OWNER/REPO`: write the repository's dismissals into `.reviewbot/learnings.toml`.

The file is written locally (`--out`, default `.reviewbot/learnings.toml` in the current
directory) for a person to review and commit to the base branch: reviewbot never commits
it. Each dismissed finding is one entry; an entry already in the file (same fingerprint)
is updated, never repeated, and the entries are in a stable order, so running it twice
changes nothing. `--check` writes nothing: it lists the learnings whose code is gone from
the default branch (`learn/stale.py`).

Exit codes (documented in the README and in `reviewbot learn --help`):

    0   the file was written or is unchanged; with --check: no learning is stale
    1   --check: at least one learning is stale (each is one line)
    2   usage: a bad target, --since or --pr; the existing file is malformed (one line)
    3   no key to recognise reviewbot's comments, or GitHub refused the token
    4   the repository or PR was not found   5  GitHub could not be reached

This is the one module besides cli.py that imports click: the command is registered in
cli.py with one `add_command` line.
"""

from __future__ import annotations

import os
import re
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import click

from reviewbot.errors import ReviewbotError, UsageError

DEFAULT_OUT = ".reviewbot/learnings.toml"  # config.learnings.LEARNINGS_FILE, imported lazily
_SINCE = re.compile(r"^(?P<n>\d{1,5})(?P<unit>[hdw])$")
_UNITS = {"h": "hours", "d": "days", "w": "weeks"}
_REPO_URL = re.compile(r"^(?P<web>https?://[^/]+)/(?P<owner>[^/]+)/(?P<repo>[^/]+?)/?$")


def since_of(text: str, *, now: datetime) -> datetime:
    """`30d`, `12h`, `2w` before `now`, or an ISO date/time (`2026-11-01`)."""
    found = _SINCE.match(text.strip())
    if found is not None:
        return now - timedelta(**{_UNITS[found["unit"]]: int(found["n"])})
    try:
        when = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except ValueError:
        raise UsageError(
            f"--since {text!r}: give a duration (30d, 12h, 2w) or a date (2026-11-01)"
        ) from None
    return when if when.tzinfo is not None else when.replace(tzinfo=UTC)


def pr_url_of(target: str, pr: int | None, web: str) -> tuple[str, int | None]:
    """The PR URL to resolve the repository through (the token rule), and the PR asked for."""
    from reviewbot.sources.pr_ref import parse_repo_name, read_pr_url

    if "://" not in target:
        repo = parse_repo_name(target.strip())
        return f"{web.rstrip('/')}/{repo}/pull/{pr or 1}", pr
    if "/pull/" in target:
        where = read_pr_url(target)
        number = pr if pr is not None else where.number
        return f"{where.html_url.rsplit('/pull/', 1)[0]}/pull/{number}", number
    found = _REPO_URL.match(target.strip())
    if found is None:
        raise UsageError(f"{target!r} is not a repository: give OWNER/REPO or its URL")
    repo = parse_repo_name(f"{found['owner']}/{found['repo'].removesuffix('.git')}")
    return f"{found['web']}/{repo}/pull/{pr or 1}", pr


@click.command(name="learn")
@click.argument("target")
@click.option(
    "--since", default="30d", show_default=True, help="PRs updated and dismissals written since."
)
@click.option("--pr", type=click.IntRange(min=1), help="Only this PR (then --since is ignored).")
@click.option(
    "--out",
    type=click.Path(path_type=Path, dir_okay=False),
    default=DEFAULT_OUT,
    show_default=True,
    help="The learnings file to write or update (or to --check).",
)
@click.option("--check", is_flag=True, help="Write nothing: list the learnings whose code is gone.")
def learn(target: str, since: str, pr: int | None, out: Path, check: bool) -> None:
    """Write the dismissals of OWNER/REPO's PRs into .reviewbot/learnings.toml, to commit.

    \b
    Exit codes:
      0   written or unchanged; with --check: no stale learning
      1   --check: some learnings are stale (one line each)
      2   bad target, --since or --pr; the existing file is malformed
      3   no marker key (REVIEWBOT_MARKER_KEY or ANTHROPIC_API_KEY), or the token was refused
      4   not found   5  GitHub could not be reached
    """
    from reviewbot.config.settings import Settings
    from reviewbot.learn.run import run_learn
    from reviewbot.output.exits import fail

    settings = Settings.from_environ(os.environ)
    try:
        now = datetime.now(UTC)
        when = None if pr is not None else since_of(since, now=now)
        web = settings.github_server_url or "https://github.com"
        url, number = pr_url_of(target, pr, web)
        code = run_learn(url, settings, pr=number, since=when, out=out, check=check)
    except ReviewbotError as exc:
        fail(exc, verbose=False, redactor=settings.redactor)
    sys.exit(code)
