"""The agents' context for a review's scope: the whole PR, or the changes since a review.

A `scope.review_scope.Packer`: the scope says what the agents see, this packs it
(`context.pack_context` for the whole PR, `context_since.pack_since` for the changes
since the reviewed head). Must not: read files or call anything.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from reviewbot.agent.context import PackedContext, pack_context
from reviewbot.agent.context_since import pack_since
from reviewbot.redact import Redactor
from reviewbot.scope.carry import Rejudge
from reviewbot.sources.diff_index import DiffIndex
from reviewbot.sources.snapshot import PRSnapshot


@dataclass(frozen=True, slots=True, kw_only=True)
class ContextPacker:
    snapshot: PRSnapshot
    excluded: Callable[[str], bool]
    redactor: Redactor

    def whole(self) -> PackedContext:
        return pack_context(
            self.snapshot,
            budget_tokens=self.snapshot.config.budget.context_tokens,
            excluded=self.excluded,
            redactor=self.redactor,
        )

    def since(self, since: str, *, changed: DiffIndex, rejudge: Sequence[Rejudge]) -> PackedContext:
        return pack_since(
            self.snapshot,
            since=since,
            changed=changed,
            rejudge=rejudge,
            budget_tokens=self.snapshot.config.budget.context_tokens,
            excluded=self.excluded,
            redactor=self.redactor,
        )
