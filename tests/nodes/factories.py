"""Small builders for review nodes in tests."""

from __future__ import annotations

from reviewbot.nodes import Anchor, Finding, Kind, Priority, ReviewNode, Status
from reviewbot.nodes.stamp import stamp


def make_node(
    *,
    id: str = "review-1",
    author: str = "review",
    priority: Priority = Priority.P1,
    confidence: float = 0.9,
    status: Status = Status.OPEN,
    kind: Kind = Kind.BUG,
    title: str = "Something is wrong",
    body: str = "",
    path: str | None = "src/app.py",
    line: int = 3,
    end_line: int | None = None,
    quote: str = "x = 1",
    suggestion: str | None = None,
    commit_sha: str = "abc1234",
) -> ReviewNode:
    """A stamped node anchored on `line`..`end_line` (one line by default), or unanchored."""
    anchor = None
    if path is not None:
        last = line if end_line is None else end_line
        anchor = Anchor(path=path, start_line=line, end_line=last, quote=quote)
    finding = Finding(
        kind=kind,
        priority=priority,
        confidence=confidence,
        title=title,
        body=body,
        anchor=anchor,
        suggestion=suggestion,
    )
    made = stamp(finding, id=id, author=author, commit_sha=commit_sha)
    return made.model_copy(update={"status": status})
