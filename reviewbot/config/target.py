"""What `reviewbot review` reviews: one `ReviewTarget`, parsed from the flags in one place.

    PullTarget      a PR URL
    LocalTarget     --local: this repository's HEAD (or working tree) against a base
    EventTarget     --github-event, or no target at all inside GitHub Actions
    SnapshotTarget  --from-snapshot: stage two of the fork-safe setup

Stdlib only: the CLI parses the target before it imports anything heavy (start-up).
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path

from reviewbot.errors import UsageError


@dataclass(frozen=True, slots=True)
class PullTarget:
    url: str


@dataclass(frozen=True, slots=True, kw_only=True)
class LocalTarget:
    base: str | None = None  # None: the repository's default branch
    head: str = "HEAD"
    worktree: bool = False  # the working tree instead of `head`


@dataclass(frozen=True, slots=True)
class EventTarget:
    """The PR(s) of the GitHub Actions event (GITHUB_EVENT_NAME / GITHUB_EVENT_PATH)."""


@dataclass(frozen=True, slots=True)
class SnapshotTarget:
    folder: Path


ReviewTarget = PullTarget | LocalTarget | EventTarget | SnapshotTarget


@dataclass(frozen=True, slots=True, kw_only=True)
class TargetFlags:
    """The flags that choose the target, as given (`given`: the option names set explicitly)."""

    pr_url: str | None = None
    local: bool = False
    github_event: bool = False
    from_snapshot: Path | None = None
    base: str | None = None
    head: str = "HEAD"
    worktree: bool = False
    post: bool = False
    post_from_env: bool = False
    given: Collection[str] = ()


def parse_target(flags: TargetFlags, *, in_event: bool) -> ReviewTarget:
    """The one target the flags name; `in_event`: GitHub Actions set GITHUB_EVENT_NAME.

    Exactly one of a PR URL, --local, --github-event and --from-snapshot; none at all is
    the event inside GitHub Actions. An option the target would silently ignore is a
    `UsageError` too.
    """
    chosen = [
        bool(flags.pr_url),
        flags.local,
        flags.github_event,
        flags.from_snapshot is not None,
    ]
    if sum(chosen) > 1:
        raise UsageError("give one of: a PR URL, --local, --github-event, --from-snapshot")
    if not any(chosen) and not in_event:
        raise UsageError(
            "nothing to review: give a PR URL, or --local (see reviewbot review --help)"
        )
    _refuse_ignored(flags)
    if flags.pr_url:
        return PullTarget(flags.pr_url)
    if flags.local:
        return LocalTarget(base=flags.base, head=flags.head, worktree=flags.worktree)
    if flags.from_snapshot is not None:
        return SnapshotTarget(flags.from_snapshot)
    return EventTarget()


def _refuse_ignored(flags: TargetFlags) -> None:
    """An option the chosen target would silently ignore is a mistake worth one line."""
    if flags.local and flags.post:
        raise UsageError(
            "--post publishes on a pull request, and --local has none"
            + (" (REVIEWBOT_POST is set: unset it)" if flags.post_from_env else " (drop --post)")
        )
    head_given = "head" in flags.given
    if not flags.local and ("base" in flags.given or head_given or flags.worktree):
        raise UsageError(
            "--base, --head and --worktree only apply to --local; a pull request has its own "
            "base and head"
        )
    if flags.worktree and head_given:
        raise UsageError("--worktree reviews the working tree: give it or --head, not both")
