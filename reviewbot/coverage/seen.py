"""What the read tools showed an agent of the PR head: per file, the lines it saw in full.

Coverage (`reviewbot.coverage.unseen`) is built from this: a changed file whose patch was
not packed into the context counts as seen only when its lines were shown here. A line
counts when a read tool showed it whole, with its head line number: `read_file` and
`git_blame` (the same tools that let an agent anchor on a file). A line cut in the middle
of a long output (head+tail truncation) or clipped at its end does not count, and neither
do `search_code` hits (fragments out of context) or `git_show` (another commit's diff, or
a file at any revision). This module only records; it reads no file and decides nothing.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field


@dataclass(slots=True)
class HeadViews:
    """Head line numbers shown in full, and head line counts learnt, per normalised path."""

    lines: dict[str, set[int]] = field(default_factory=dict)
    lengths: dict[str, int] = field(default_factory=dict)

    def show(self, path: str, numbers: Iterable[int], *, total: int) -> None:
        self.lines.setdefault(path, set()).update(numbers)
        self.lengths[path] = total

    def update(self, other: HeadViews) -> None:
        for path, numbers in other.lines.items():
            self.lines.setdefault(path, set()).update(numbers)
        self.lengths.update(other.lengths)

    def saw(self, path: str, numbers: Iterable[int]) -> bool:
        """Whether every one of `numbers` of `path` was shown."""
        shown = self.lines.get(path, set())
        return all(n in shown for n in numbers)

    def saw_whole(self, path: str) -> bool:
        """Whether every line of `path` was shown (known only once a tool read it)."""
        total = self.lengths.get(path)
        return total is not None and self.saw(path, range(1, total + 1))


def merged(views: Iterable[HeadViews]) -> HeadViews:
    out = HeadViews()
    for view in views:
        out.update(view)
    return out
