"""Ordering keyed items by what each depends on: the one check both proposal verbs share.

`dependency_order` returns the keys so that each comes after everything it depends on,
keeping the given order wherever the dependencies allow it (the agent's order is the
tie-break, so the same input always gives the same order), or raises `ToolRetry` with
an error the model can act on: a duplicate key, an unknown dependency, or a cycle named
by its keys (`a → b → a`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from reviewbot.tools.context import ToolRetry


def dependency_order(
    items: Sequence[tuple[str, Sequence[str]]], *, what: str = "node"
) -> tuple[str, ...]:
    """`items`: (key, the keys it depends on), in the agent's order."""
    graph: dict[str, tuple[str, ...]] = {}
    for key, depends in items:
        if key in graph:
            raise ToolRetry(f"two {what}s have the key {key!r}: give each {what} its own key")
        graph[key] = tuple(dict.fromkeys(depends))
    for key, depends in graph.items():
        unknown = [d for d in depends if d not in graph]
        if unknown:
            known = ", ".join(graph)
            raise ToolRetry(
                f"{what} {key!r} depends on {unknown[0]!r}, which is not a {what} key "
                f"(the keys are: {known})"
            )
        if key in depends:
            raise ToolRetry(f"{what} {key!r} depends on itself: remove it from its depends_on")
    return _ordered(graph, what)


def _ordered(graph: Mapping[str, tuple[str, ...]], what: str) -> tuple[str, ...]:
    done: list[str] = []
    placed: set[str] = set()
    while len(done) < len(graph):
        ready = next((k for k in graph if k not in placed and set(graph[k]) <= placed), None)
        if ready is None:
            cycle = _cycle(graph, placed)
            raise ToolRetry(
                f"the {what}s' dependencies form a cycle: {' → '.join(cycle)}; "
                "break it by removing one of these depends_on entries"
            )
        done.append(ready)
        placed.add(ready)
    return tuple(done)


def _cycle(graph: Mapping[str, tuple[str, ...]], placed: set[str]) -> list[str]:
    """A cycle among the keys not yet placed: walk unplaced dependencies until a key repeats."""
    key = next(k for k in graph if k not in placed)
    path: list[str] = []
    while key not in path:
        path.append(key)
        key = next(d for d in graph[key] if d not in placed)
    return [*path[path.index(key) :], key]
