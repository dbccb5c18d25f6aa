"""A full review: the agents see the whole PR, nothing is inherited, nothing carried forward.

Earlier decisions still apply (`ReviewScope.carry`): a `/dismiss` holds through a full
review, and an earlier finding in a file this run did not see still stands (the pipeline's
`unseen_standing`), as does one of this same head that it did not repeat
(`unrepeated_standing`).
"""

from __future__ import annotations

from dataclasses import dataclass

from reviewbot.config.file import ReviewConfig
from reviewbot.coverage.model import Coverage
from reviewbot.results.report import ReviewKind, ReviewRun
from reviewbot.scope.carry import Carried
from reviewbot.scope.digest import config_digest
from reviewbot.scope.review_scope import Packed, Packer, ReviewScope
from reviewbot.sources.diff_index import DiffIndex
from reviewbot.sources.snapshot import PRSnapshot


@dataclass(frozen=True, slots=True, kw_only=True)
class FullScope(ReviewScope):
    run: ReviewRun

    @classmethod
    def of(cls, reason: str, *, config: ReviewConfig, last_comment: int | None = None) -> FullScope:
        """A full review, and why it is not incremental."""
        return cls(
            run=ReviewRun(
                kind=ReviewKind.FULL,
                reason=reason,
                config_digest=config_digest(config),
                last_comment=last_comment,
            )
        )

    def shown(self, packer: Packer[Packed]) -> Packed:
        return packer.whole()

    def carried(self) -> Carried:
        return Carried(kept=(), rejudge=())

    def coverage(self, seen: Coverage, pr: DiffIndex) -> Coverage:
        return seen

    def recorded(self, snapshot: PRSnapshot) -> ReviewRun:
        return self._seen(snapshot)
