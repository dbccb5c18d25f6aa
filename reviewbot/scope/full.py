"""A full review: the agents see the whole PR, and no coverage is inherited.

What carries over is an incremental review's too (`ReviewScope.carry`): earlier decisions
apply (a `/dismiss` holds through a full review), and the earlier standing findings whose
code did not change since they were last seen are carried forward (`scope/standing.py`):
a full review re-reads everything, but its silence about unchanged code proves nothing
fixed. An earlier finding in a file this run did not see stands too (the pipeline's
`unseen_standing`).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from reviewbot.config.file import ReviewConfig
from reviewbot.coverage.model import Coverage
from reviewbot.results.report import ReviewKind, ReviewRun
from reviewbot.scope.carry import Carried
from reviewbot.scope.digest import config_digest
from reviewbot.scope.review_scope import Packed, Packer, ReviewScope
from reviewbot.scope.standing import Standing
from reviewbot.sources.diff_index import DiffIndex
from reviewbot.sources.snapshot import PRSnapshot


@dataclass(frozen=True, kw_only=True)  # no slots: `_carried` is cached on the instance
class FullScope(ReviewScope):
    run: ReviewRun
    standing: Standing | None = None  # the PR's earlier findings (None: it has none)

    @classmethod
    def of(
        cls,
        reason: str,
        *,
        config: ReviewConfig,
        last_comment: int | None = None,
        standing: Standing | None = None,
    ) -> FullScope:
        """A full review, and why it is not incremental."""
        return cls(
            run=ReviewRun(
                kind=ReviewKind.FULL,
                reason=reason,
                config_digest=config_digest(config),
                last_comment=last_comment,
            ),
            standing=standing,
        )

    def shown(self, packer: Packer[Packed]) -> Packed:
        return packer.whole()

    def carried(self) -> Carried:
        return self._carried

    def coverage(self, seen: Coverage, pr: DiffIndex) -> Coverage:
        return seen

    def recorded(self, snapshot: PRSnapshot) -> ReviewRun:
        return self._seen(snapshot)

    @cached_property
    def _carried(self) -> Carried:
        if self.standing is None:
            return Carried(kept=(), rejudge=())
        return self.standing.carried()
