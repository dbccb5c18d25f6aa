"""What a review's PR was: a digest of each changed file's patch against the base.

An earlier review covers a file only if that file, with the same change against the base,
was part of the PR it reviewed. The head's content alone cannot say so: merging the base
branch into the PR while keeping the PR's old `auth.py` reverts a fix the base made, and
`auth.py` enters the PR's diff without changing since the reviewed head; changing the PR's
base branch does the same. So every review records a digest of each file's PR patch
(path, status, the path before a rename, and the hunks' lines without their numbers: a
base that only moved the hunk leaves it the same) and the base commit, and an incremental
review shows every file whose digest it does not find (`shown_again`):

- a file the push did not touch: its whole PR patch (nothing else shows what changed);
- a file the push touched, when the base moved or was merged in between: its whole PR
  patch too, since the changes since the reviewed head need not show what the base
  changed under it; otherwise those changes are exactly what changed in its PR patch.

A file without a patch (binary, too large for GitHub to send) has no digest: it is
shown every time (and is listed or unseen as in a full review). More files than
`MAX_PATCHES_MARKED`: nothing is recorded and the next review is full.

Pure.
"""

from __future__ import annotations

import hashlib
from collections.abc import Collection

from reviewbot.memory.markers import MAX_PATCHES_MARKED
from reviewbot.sources.diff_index import DiffIndex, FileDiff

DIGEST_HEX = 20  # 80 bits: no PR author finds another patch with a recorded digest


def patch_digest(change: FileDiff) -> str | None:
    """The digest of one file's PR patch; None when it has no patch to compare."""
    if change.binary or change.submodule or change.patch_missing:
        return None
    parts = [change.path, change.old_path or "", change.status.value]
    for hunk in change.hunks:
        parts.append("@@")
        parts.extend(f"{line.kind.value}{line.text}" for line in hunk.lines)
    digest = hashlib.sha256("\x1f".join(parts).encode("utf-8", "surrogatepass"))
    return digest.hexdigest()[:DIGEST_HEX]


def digests(pr: DiffIndex) -> tuple[str, ...] | None:
    """Every file's digest, sorted; None when they cannot all be recorded."""
    if pr.listing_truncated or len(pr) > MAX_PATCHES_MARKED:
        return None
    return tuple(sorted({d for change in pr for d in [patch_digest(change)] if d is not None}))


def shown_again(
    changed: DiffIndex, pr: DiffIndex, *, recorded: Collection[str], base_moved: bool
) -> DiffIndex:
    """`changed` (the author's changes since the reviewed head) with every file whose PR
    patch that review did not see: its whole PR patch where the changes do not show it."""
    files = dict(changed.files)
    seen = frozenset(recorded)
    for change in pr:
        if patch_digest(change) in seen:
            continue
        if change.path not in files or base_moved:
            files[change.path] = change
    return DiffIndex(files=files)


def entered(changed: DiffIndex, pr: DiffIndex, *, recorded: Collection[str]) -> tuple[str, ...]:
    """The files shown although the push did not touch them: their PR diff is new."""
    seen = frozenset(recorded)
    return tuple(
        sorted(
            change.path
            for change in pr
            if change.path not in changed.files and patch_digest(change) not in seen
        )
    )
