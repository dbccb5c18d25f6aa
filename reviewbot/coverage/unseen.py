"""Coverage: what the reviewers actually saw of the PR's changed files.

Built after the reviewers ran, from the packed context (whose patches the model got
whole) and the reviewers' `HeadViews` (which head lines their read tools showed in
full). A changed file left out of the context is still seen when:

- it has hunks: a reviewer was shown every head line of them (added and context
  lines, the lines GitHub can comment on) — a read of the top of a padded file is not
  enough; a deletion has no head lines, so only its packed patch shows it;
- GitHub sent no patch (the diff is too large): a reviewer was shown the whole file;
- it changed no content (a rename, a mode change): its listing says all there is.

Anything else is `unseen`, with the reason and what to change, and makes the coverage
partial, as do files GitHub did not list at all (past its 3,000-file listing). Files left
out by policy (binary, submodule pointers, `[paths]` excludes) are listed, not unseen. The
verifier's reads do not count: it checks the findings it is given, it does not review the
PR. A packed patch counts only when some reviewer's first request was answered (the model
received the context): with no model, a refused key or an API that never answered, every
changed text file is unseen (`Unreached`), and the coverage is partial. Pure: this module reads no file and calls nothing.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Protocol

from reviewbot.coverage.model import GAPS, Coverage, SkippedFile, UnseenFile
from reviewbot.coverage.seen import HeadViews
from reviewbot.sources.diff_index import DiffIndex, FileDiff, FileStatus

CONFIG = "the base branch's `.reviewbot.toml`"
REMEDY_NO_PATCH = (
    "review it from a clone (`reviewbot review --local`), or split the change: "
    "GitHub sends no patch for a diff this large"
)
REMEDY_UNLISTED = "split the PR, or review it from a clone (`reviewbot review --local`)"


class Listing(Protocol):
    """What the packer gave the model (`agent.context.PackedContext`), as coverage reads it."""

    @property
    def coverage(self) -> Coverage:
        """The packer's listing: the files packed, and those listed with why."""

    @property
    def patch_tokens(self) -> Mapping[str, int]:
        """What each file left out for the budget would have cost."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Unreached:
    """Why no reviewer's model received the PR context (no first request was answered)."""

    reason: str
    remedy: str


def assess(
    packed: Listing,
    diff: DiffIndex,
    views: HeadViews,
    *,
    context_tokens: int,
    unreached: Unreached | None = None,
) -> Coverage:
    """The report's coverage: the packer's listing, with each gap checked against the reads.

    `unreached`: no reviewer's model got the context, so nothing was seen at all.
    """
    if unreached is not None:
        return _nothing_seen(packed, diff, unreached)
    listing = packed.coverage
    read: list[str] = []
    unseen: list[UnseenFile] = []
    for listed in listing.files_listed:
        change = diff.get(listed.path)
        if change is None or listed.reason not in GAPS:
            continue  # left out by policy: listed by name, not a gap
        if _seen(change, views):
            read.append(change.path)
        else:
            unseen.append(_unseen(change, packed.patch_tokens.get(change.path), context_tokens))
    unlisted = max(listing.files_total - len(diff), 0)
    notes = list(listing.notes)
    if unlisted:
        notes.append(f"To review the files GitHub did not list: {REMEDY_UNLISTED}.")
    if read:
        notes.append(f"{len(read)} file(s) outside the context were read in full by a reviewer.")
    if unseen:
        notes.append(
            f"{len(unseen)} changed file(s) were not seen by any reviewer: findings in them are "
            "not marked resolved, and this review is not a clean pass."
        )
    return Coverage(
        files_total=listing.files_total,
        files_in_context=listing.files_in_context,
        files_listed=tuple(SkippedFile(path=f.path, reason=f.reason) for f in listing.files_listed),
        files_read=tuple(read),
        unseen=tuple(unseen),
        files_unlisted=unlisted,
        partial=bool(unseen) or unlisted > 0 or diff.listing_truncated,
        notes=tuple(notes),
    )


def _nothing_seen(packed: Listing, diff: DiffIndex, unreached: Unreached) -> Coverage:
    """Every changed text file is unseen; policy leaves out the rest as usual."""
    listing = packed.coverage
    policy = {f.path for f in listing.files_listed if f.reason not in GAPS}
    unseen = tuple(
        UnseenFile(
            path=change.path,
            old_path=change.old_path,
            reason=unreached.reason,
            remedy=unreached.remedy,
        )
        for change in sorted(diff.files.values(), key=lambda c: c.path)
        if change.path not in policy
    )
    unlisted = max(listing.files_total - len(diff), 0)
    note = f"Nothing was reviewed: {unreached.reason}."
    return Coverage(
        files_total=listing.files_total,
        files_in_context=0,
        files_listed=tuple(SkippedFile(path=f.path, reason=f.reason) for f in listing.files_listed),
        unseen=unseen,
        files_unlisted=unlisted,
        partial=bool(unseen) or unlisted > 0 or diff.listing_truncated,
        notes=(*listing.notes, note),
    )


def _seen(change: FileDiff, views: HeadViews) -> bool:
    if change.patch_missing:
        return views.saw_whole(change.path)
    if not change.hunks:
        return True
    needed = change.commentable("RIGHT")
    return bool(needed) and views.saw(change.path, needed)


def _unseen(change: FileDiff, tokens: int | None, context_tokens: int) -> UnseenFile:
    if change.patch_missing:
        reason = "GitHub sent no patch (the diff is too large) and no reviewer read the whole file"
        return UnseenFile(
            path=change.path, old_path=change.old_path, reason=reason, remedy=REMEDY_NO_PATCH
        )
    size = f" (about {tokens:,} tokens)" if tokens is not None else ""
    why = (
        "the read tools show only the head, where it is deleted"
        if change.status is FileStatus.DELETED
        else "no reviewer read its changed lines in full"
    )
    needs = f"; this patch alone needs about {tokens:,}" if tokens is not None else ""
    return UnseenFile(
        path=change.path,
        old_path=change.old_path,
        reason=f"its patch{size} did not fit the context budget, and {why}",
        remedy=f"raise `[budget] context_tokens` (now {context_tokens:,}{needs}) in {CONFIG}",
    )
