"""An incremental review: the agents see the changes since the reviewed head.

What the push did not change keeps what the earlier review said of it: its findings on
unchanged lines are carried forward to their new lines (`standing.py`, the rule a full
review carries by too), those on changed lines are shown to the agents to re-judge, and the files that did not change keep that
review's coverage and resolve nothing (`coverage.inherited`). The carried findings are
worked out once, from the clone, the first time the review asks.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from reviewbot.coverage.inherited import joined
from reviewbot.coverage.model import Coverage
from reviewbot.results.report import ReviewRun
from reviewbot.scope.carry import Carried
from reviewbot.scope.review_scope import Packed, Packer, ReviewScope
from reviewbot.scope.standing import Standing
from reviewbot.sources.diff_index import DiffIndex
from reviewbot.sources.git_repo import Push
from reviewbot.sources.snapshot import PRSnapshot


@dataclass(frozen=True, kw_only=True)  # no slots: `_carried` is cached on the instance
class IncrementalScope(ReviewScope):
    """The push, the author's changes, and what the reviewed head's review recorded."""

    run: ReviewRun
    push: Push
    changed: DiffIndex  # the author's changes since the reviewed head, on the PR's files,
    # and the whole PR patch of each file whose patch that review did not see (patches.py)
    entered: tuple[str, ...]  # files in `changed` the push did not touch: their PR diff is new
    earlier: Coverage  # the reviewed head's coverage, as its summary recorded it
    standing: Standing  # the PR's standing findings, human decisions applied

    @property
    def since(self) -> str:
        return self.push.since

    def shown(self, packer: Packer[Packed]) -> Packed:
        return packer.since(self.since, changed=self.changed, rejudge=self._carried.rejudge)

    def carried(self) -> Carried:
        return self._carried

    def coverage(self, seen: Coverage, pr: DiffIndex) -> Coverage:
        return joined(
            seen,
            earlier=self.earlier,
            pr=pr,
            changed=self.changed,
            since=self.since,
            entered=self.entered,
        )

    def recorded(self, snapshot: PRSnapshot) -> ReviewRun:
        return self._seen(snapshot)

    @cached_property
    def _carried(self) -> Carried:
        return self.standing.carried(known={self.push.since: self.push.moved})
