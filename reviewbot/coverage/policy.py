"""What a coverage lacks, in words: the verdict folds it in as a gap (a Ship becomes a Hold),
and the check's conclusion names it (a gap is never a pass).

Pure.
"""

from __future__ import annotations

from reviewbot.coverage.model import Coverage


def coverage_gap(coverage: Coverage | None) -> str | None:
    """What the reviewers did not see, in words (None: every changed file was seen).

    Unreported coverage is a gap too: absence of evidence is not a pass.
    """
    if coverage is None:
        return "coverage was not reported"
    if not coverage.partial:
        return None
    gaps = []
    if coverage.unseen:
        gaps.append(f"{len(coverage.unseen)} of {coverage.files_total} changed file(s) unseen")
    if coverage.files_unlisted:
        gaps.append(f"{coverage.files_unlisted} changed file(s) GitHub did not list")
    return "coverage is partial: " + "; ".join(gaps) if gaps else "coverage is partial"


def brief_gap(coverage: Coverage | None) -> str | None:
    """The gap in a few words, for the check's title (None: every changed file was seen)."""
    if coverage is None:
        return "coverage was not reported"
    return "coverage is partial" if coverage.partial else None
