"""The coverage of an incremental review: this run's of the changes, the earlier one's of the rest.

A changed file of the PR that did not change since the reviewed head, and whose PR patch
that review saw as it is now (patches.py), keeps that review's coverage. Unseen then is
unseen now — the same reason, and the review stays partial until a review sees it (a full
one, or a push that touches it and is seen); seen then is not a gap now. Those files are `files_carried`: this run did not
look at them, so they resolve nothing (`Coverage.covers`), and nor does the whole PR.
A changed file nobody saw in this run is unseen as in a full review. Only an earlier
coverage that names every file it did not see can be carried (decision.py checks that).

Pure.
"""

from __future__ import annotations

from collections.abc import Sequence

from reviewbot.coverage.model import Coverage, UnseenFile
from reviewbot.sources.diff_index import DiffIndex


def joined(
    now: Coverage,
    *,
    earlier: Coverage,
    pr: DiffIndex,
    changed: DiffIndex,
    since: str,
    entered: Sequence[str] = (),
) -> Coverage:
    carried = tuple(sorted(path for path in pr.files if path not in changed.files))
    kept = set(carried)
    named = {f.path for f in now.unseen}
    still = tuple(
        f.model_copy(update={"reason": f"at the review of {since[:12]}: {f.reason}"})
        for f in earlier.unseen
        if f.path in kept and f.path not in named
    )
    unseen: tuple[UnseenFile, ...] = (*now.unseen, *still)
    total = max(pr.total_files or 0, len(pr))
    unlisted = max(total - len(pr), 0)
    notes = [
        f"An incremental review: {len(changed)} file(s) changed since {since[:12]} were "
        f"reviewed; {len(carried)} other changed file(s) keep that review's coverage"
        + (f" ({len(still)} of them unseen then, and still)" if still else "")
        + " and resolve nothing."
    ]
    if entered:
        notes.append(
            f"{len(entered)} file(s) did not change since {since[:12]}, but their diff against "
            "the base did (the base merged in, or a new base): reviewed again in full."
        )
    return Coverage(
        files_total=total,
        files_in_context=now.files_in_context,
        files_listed=now.files_listed,
        files_read=now.files_read,
        unseen=unseen,
        files_unlisted=unlisted,
        partial=bool(unseen) or unlisted > 0 or pr.listing_truncated,
        files_carried=carried,
        notes=(*now.notes, *notes),
    )
