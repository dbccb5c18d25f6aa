"""Turning an admitted finding into a review node: the harness fields, set once."""

from __future__ import annotations

from reviewbot.nodes.fingerprint import fingerprint
from reviewbot.nodes.model import Finding, ReviewNode


def stamp(
    finding: Finding, *, id: str, author: str, commit_sha: str | None, notes: tuple[str, ...] = ()
) -> ReviewNode:
    """A new `open` node authored by `author`, fingerprinted from what it says."""
    return ReviewNode(
        **finding.model_dump(exclude_none=False, round_trip=True, mode="python"),
        id=id,
        author=author,
        fingerprint=fingerprint(finding),
        commit_sha=commit_sha,
        notes=notes,
    )
