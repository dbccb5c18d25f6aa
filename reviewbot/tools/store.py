"""The node store of one review: shared by its reviewers and its verifier.

Owns the nodes (in the order they were added), the discards of the read boundary
and the id counters. It holds values only; checks on what may be added live in
`review_verbs.py`, status changes in `reviewbot.nodes.lifecycle`.
"""

from __future__ import annotations

from reviewbot.nodes import Discarded, ReviewNode


class NodeStore:
    def __init__(self) -> None:
        self._nodes: dict[str, ReviewNode] = {}
        self._discarded: list[Discarded] = []
        self._counters: dict[str, int] = {}

    def add(self, node: ReviewNode) -> None:
        """Add a new node; its id must be new (ids come from `next_id`)."""
        if node.id in self._nodes:
            raise ValueError(f"review node {node.id} already exists")
        self._nodes[node.id] = node

    def get(self, id: str) -> ReviewNode | None:
        return self._nodes.get(id)

    def replace(self, node: ReviewNode) -> None:
        """Store the new state of an existing node (after a lifecycle event)."""
        if node.id not in self._nodes:
            raise KeyError(f"no review node {node.id}")
        self._nodes[node.id] = node

    def all(self) -> list[ReviewNode]:
        return list(self._nodes.values())

    def by_fingerprint(self, fingerprint: str) -> ReviewNode | None:
        return next((n for n in self._nodes.values() if n.fingerprint == fingerprint), None)

    def discard(self, discarded: Discarded) -> None:
        self._discarded.append(discarded)

    @property
    def discarded(self) -> list[Discarded]:
        return list(self._discarded)

    def next_id(self, author: str) -> str:
        """`review-1`, `review-2`, `security-1`…: per author, never reused."""
        count = self._counters.get(author, 0)
        while True:
            count += 1
            candidate = f"{author}-{count}"
            if candidate not in self._nodes:
                self._counters[author] = count
                return candidate
