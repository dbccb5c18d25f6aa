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
    path: str | None = "src/app.py",
    line: int = 3,
    quote: str = "x = 1",
) -> ReviewNode:
    anchor = Anchor(path=path, start_line=line, end_line=line, quote=quote) if path else None
    finding = Finding(
        kind=kind, priority=priority, confidence=confidence, title=title, anchor=anchor
    )
    return stamp(finding, id=id, author=author, commit_sha="abc1234").model_copy(
        update={"status": status}
    )
