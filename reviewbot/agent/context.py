"""Packing the pull request into the first user message, within a token budget.

Owns which changed files the model gets in full (their patch, with head-file line
numbers) and which are only listed, and why. Nothing is dropped silently: every
changed file is either packed or listed with its status, +/- sizes and a reason,
and the same lists become the report's `Coverage`.

Ranking, in order:
1. files left out by policy are listed with the reason: binary, submodule, and those
   the `excluded` predicate matches (lockfiles, generated, vendored — the `[paths]`
   config), which rarely hide the bug and would eat the budget;
2. files GitHub sent no patch for (too large) are listed, to be read with a tool;
3. the remaining source files are packed smallest change first, deletions last.
   Smallest first maximises how many files the model sees in full for a given
   budget, and the largest changes are the likeliest to be mechanical (moves,
   regenerations); the model sees the list of the rest and can `read_file` them.

The rendered text is the cached prefix of every turn, so it is computed once and
must not change during a run. Untrusted text passes through `hygiene`: bodies,
comments and patches are fenced (`wrap`), names in the headings and lists (paths,
branches, the author) are JSON strings (`quoted`), never bare. This module must
not read files or call any API.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from reviewbot.coverage.model import (
    REASON_BINARY,
    REASON_BUDGET,
    REASON_EXCLUDED,
    REASON_NO_PATCH,
    REASON_SUBMODULE,
    Coverage,
    SkippedFile,
)
from reviewbot.estimate import estimate_text
from reviewbot.redact import Redactor
from reviewbot.render import render
from reviewbot.sources.diff_index import FileDiff, FileStatus
from reviewbot.sources.snapshot import PRComment, PRSnapshot
from reviewbot.text import hygiene
from reviewbot.text.patch import render_patch

TEMPLATE = "prompts/pr_context.j2"
MAX_COMMENTS = 50  # the most recent ones; older ones are counted in a note
MAX_COMMENT_CHARS = 4_000
MAX_BODY_CHARS = 20_000
# A line of names and numbers (a quoted path, its status and sizes) splits into many short
# tokens (`/`, `_`, `.`, digits, quotes, signs): counted at 3.5 characters a token
# (`estimate_text`) a listing of thousands of such lines would be priced at about half
# what the API counts, and take twice its share of the budget.
_NAME_CHARS_PER_TOKEN = 2.0
LISTING_SHARE = 4  # the file listing may take at most 1/4 of the context budget
MAX_GROUPS = 40  # directories named when files are only counted

_REASONS = (REASON_BUDGET, REASON_NO_PATCH, REASON_EXCLUDED, REASON_BINARY, REASON_SUBMODULE)


@dataclass(frozen=True, slots=True, kw_only=True)
class PackedFile:
    path: str
    label: str  # the path as shown to the model: `hygiene.quoted`, never bare
    old_path: str | None
    status: str
    additions: int
    deletions: int
    patch: str  # rendered and cleaned, inside its untrusted_data block


@dataclass(frozen=True, slots=True, kw_only=True)
class ListedFile:
    path: str
    label: str
    status: str
    additions: int
    deletions: int
    reason: str


@dataclass(frozen=True, slots=True, kw_only=True)
class DirectoryCount:
    """Listed files past the listing's share of the budget, counted per directory."""

    folder: str
    files: int
    additions: int
    deletions: int


@dataclass(frozen=True, slots=True, kw_only=True)
class PackedContext:
    text: str  # the first user message: PR metadata, discussion, patches, the listing
    in_context: tuple[str, ...]  # paths whose patch is in `text` (the rest: coverage.files_listed)
    tokens: int  # local estimate of `text`
    coverage: Coverage
    # What each file left out for the budget would have cost, for the remedy coverage names.
    patch_tokens: Mapping[str, int] = field(default_factory=dict)


def pack_context(
    snapshot: PRSnapshot,
    *,
    budget_tokens: int,
    excluded: Callable[[str], bool],
    redactor: Redactor,
) -> PackedContext:
    files = list(snapshot.diff)
    listed: dict[str, ListedFile] = {}
    candidates: list[FileDiff] = []
    for diff in files:
        reason = _unpackable(diff, excluded)
        if reason is None:
            candidates.append(diff)
        else:
            listed[diff.path] = _listed(diff, reason, redactor)
    candidates.sort(key=lambda d: (d.status is FileStatus.DELETED, d.changes, d.path))

    metadata, notes = _metadata(snapshot, redactor)
    # Start as if every candidate were only listed, then swap listings for patches
    # while the budget allows: the listing is part of the message and costs tokens too,
    # so it gets a bounded share of the budget (files past it are counted per directory).
    for diff in candidates:
        listed[diff.path] = _listed(diff, REASON_BUDGET, redactor)
    listing_share = min(sum(map(_listing_cost, listed.values())), budget_tokens // LISTING_SHARE)
    remaining = budget_tokens - estimate_text(
        render(TEMPLATE, **metadata, files=(), listed=(), by_reason=(), grouped=())
    )
    remaining -= listing_share + _headings_cost(tuple(listed.values()))
    packed: list[PackedFile] = []
    patch_tokens: dict[str, int] = {}
    for diff in candidates:
        item = _packed(diff, redactor)
        cost = _packed_cost(item)
        if cost <= remaining:
            packed.append(item)
            del listed[diff.path]
            remaining -= cost
        else:
            patch_tokens[diff.path] = cost
    packed.sort(key=lambda f: f.path)  # file order in the message follows the tree, not the rank
    ordered_listing = tuple(sorted(listed.values(), key=lambda f: f.path))
    named, grouped = _name_within(ordered_listing, listing_share + max(remaining, 0), redactor)
    text = render(
        TEMPLATE,
        **metadata,
        files=packed,
        listed=named,
        by_reason=_by_reason(named),
        grouped=grouped,
    )
    coverage = _coverage(snapshot, packed, ordered_listing, notes)
    return PackedContext(
        text=text,
        in_context=tuple(f.path for f in packed),
        tokens=estimate_text(text),
        coverage=coverage,
        patch_tokens=patch_tokens,
    )


def _name_within(
    listing: Sequence[ListedFile], budget: int, redactor: Redactor
) -> tuple[tuple[ListedFile, ...], tuple[DirectoryCount, ...]]:
    """Name listed files while `budget` lasts (reviewable source first); count the rest by directory."""
    ranked = sorted(
        listing, key=lambda f: (f.reason != REASON_BUDGET, -(f.additions + f.deletions), f.path)
    )
    named: list[ListedFile] = []
    for item in ranked:
        budget -= _listing_cost(item)
        if budget < 0:
            break
        named.append(item)
    rest = ranked[len(named) :]
    counts: dict[str, list[int]] = {}
    for item in rest:
        folder = item.path.rsplit("/", 1)[0] + "/" if "/" in item.path else "./"
        entry = counts.setdefault(folder, [0, 0, 0])
        entry[0] += 1
        entry[1] += item.additions
        entry[2] += item.deletions
    biggest = sorted(counts.items(), key=lambda kv: (-kv[1][0], kv[0]))
    grouped = [
        DirectoryCount(folder=hygiene.quoted(folder, redactor), files=n, additions=a, deletions=d)
        for folder, (n, a, d) in biggest[:MAX_GROUPS]
    ]
    others = biggest[MAX_GROUPS:]
    if others:
        grouped.append(
            DirectoryCount(
                folder=f"({len(others)} other directories)",
                files=sum(n for _, (n, _, _) in others),
                additions=sum(a for _, (_, a, _) in others),
                deletions=sum(d for _, (_, _, d) in others),
            )
        )
    return tuple(sorted(named, key=lambda f: f.path)), tuple(grouped)


def _unpackable(diff: FileDiff, excluded: Callable[[str], bool]) -> str | None:
    # Policy first: a file the config leaves out is not a coverage gap, whether or not
    # GitHub sent its patch (a huge lockfile is the very file it omits the patch for).
    if diff.binary:
        return REASON_BINARY
    if diff.submodule:
        return REASON_SUBMODULE
    if excluded(diff.path):
        return REASON_EXCLUDED
    if diff.patch_missing:
        return REASON_NO_PATCH
    return None


def _listed(diff: FileDiff, reason: str, redactor: Redactor) -> ListedFile:
    return ListedFile(
        path=diff.path,
        label=hygiene.quoted(diff.path, redactor),
        status=diff.status.value,
        additions=diff.additions,
        deletions=diff.deletions,
        reason=reason,
    )


def _packed(diff: FileDiff, redactor: Redactor) -> PackedFile:
    # No `from=` label: the heading right above the block names the file.
    patch = hygiene.wrap(render_patch(diff), kind="patch", redactor=redactor, markdown=False)
    return PackedFile(
        path=diff.path,
        label=hygiene.quoted(diff.path, redactor),
        old_path=hygiene.quoted(diff.old_path, redactor) if diff.old_path else None,
        status=diff.status.value,
        additions=diff.additions,
        deletions=diff.deletions,
        patch=patch,
    )


def _packed_cost(item: PackedFile) -> int:
    heading = f"### {item.label} ({item.status}, +{item.additions} -{item.deletions})"
    return estimate_text(item.patch) + _name_cost(heading)


def _listing_cost(item: ListedFile) -> int:
    # The reason is said once per group of files (`_by_reason`), not on each file's line.
    return _name_cost(f"- {item.label} ({item.status}, +{item.additions} -{item.deletions})")


def _name_cost(line: str) -> int:
    return math.ceil((len(line) + 1) / _NAME_CHARS_PER_TOKEN)  # + 1: its line break


def _by_reason(listing: Sequence[ListedFile]) -> tuple[tuple[str, tuple[ListedFile, ...]], ...]:
    """The named files under one heading per reason, in the order of `_REASONS` (others last)."""
    groups: dict[str, list[ListedFile]] = {}
    for item in listing:
        groups.setdefault(item.reason, []).append(item)
    order = sorted(groups, key=lambda r: (_REASONS.index(r) if r in _REASONS else len(_REASONS), r))
    return tuple((reason, tuple(groups[reason])) for reason in order)


def _headings_cost(listing: Sequence[ListedFile]) -> int:
    return sum(estimate_text(reason) + 4 for reason in {item.reason for item in listing})


def _metadata(snapshot: PRSnapshot, redactor: Redactor) -> tuple[dict[str, object], list[str]]:
    notes: list[str] = []
    body = snapshot.body
    if len(body) > MAX_BODY_CHARS:
        notes.append(f"PR description cut to {MAX_BODY_CHARS:,} of {len(body):,} characters")
        body = body[:MAX_BODY_CHARS] + "\n…(cut)"
    comments = snapshot.comments[-MAX_COMMENTS:]
    if len(snapshot.comments) > MAX_COMMENTS:
        older = len(snapshot.comments) - MAX_COMMENTS
        notes.append(f"{older} older PR comment(s) not shown to the model")
    metadata: dict[str, object] = {
        "repo": snapshot.repo or "(local repository)",
        "number": snapshot.number,
        "author": hygiene.quoted(snapshot.author, redactor),
        "base_ref": hygiene.quoted(snapshot.base_ref, redactor),
        "head_ref": hygiene.quoted(snapshot.head_ref, redactor),
        "base_sha": snapshot.base_sha,
        "head_sha": snapshot.head_sha,
        "files_total": _files_total(snapshot),
        "title": hygiene.wrap(snapshot.title, kind="pr_title", redactor=redactor),
        "body": hygiene.wrap(body, kind="pr_body", redactor=redactor),
        "comments": [_comment(c, redactor) for c in comments],
        "comments_omitted": len(snapshot.comments) - len(comments),
    }
    return metadata, notes


def _comment(comment: PRComment, redactor: Redactor) -> str:
    where = f" on {comment.path}:{comment.line}" if comment.path else ""
    text = comment.body
    if len(text) > MAX_COMMENT_CHARS:
        text = text[:MAX_COMMENT_CHARS] + "\n…(cut)"
    return hygiene.wrap(
        text, kind="pr_comment", redactor=redactor, label=f"{comment.author}{where}"
    )


def _files_total(snapshot: PRSnapshot) -> int:
    return max(snapshot.diff.total_files or 0, len(snapshot.diff))


def _coverage(
    snapshot: PRSnapshot,
    packed: Sequence[PackedFile],
    listed: Sequence[ListedFile],
    notes: list[str],
) -> Coverage:
    total = _files_total(snapshot)
    unlisted = total - len(snapshot.diff)
    partial = snapshot.diff.listing_truncated or unlisted > 0
    if partial:
        notes.append(
            f"{unlisted} changed file(s) were not listed by the API (it lists at most 3,000)"
            " and were not reviewed"
        )
    if listed:
        notes.append(
            f"{len(listed)} changed file(s) were listed without their patch; the agents could"
            " read them with the read tools"
        )
    return Coverage(
        files_total=total,
        files_in_context=len(packed),
        files_listed=tuple(SkippedFile(path=f.path, reason=f.reason) for f in listed),
        partial=partial,
        notes=tuple(notes),
    )
