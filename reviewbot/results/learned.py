"""What the repository's learnings did in one review, as the JSON report records it.

`suppressed`: new findings a learning matched, not posted inline and dismissed for the
verdict (the node stays in `nodes`, status `dismissed`, with a note naming the entry).
`kept`: P0 findings a learning matched: a learning never suppresses a P0, so they are
posted as any finding, with the learning beside them. `shown`: the learnings whose scope
matched a changed file, shown to the agents. `to_add`: the entries this PR's `/dismiss`
replies teach that the base branch's file does not hold yet (the summary shows them, for a
person to commit).
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

from reviewbot.config.learnings import Learning
from reviewbot.nodes.model import Priority


class LearnedMatch(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    node_id: str
    fingerprint: str
    priority: Priority
    title: str
    matched_by: Literal["fingerprint", "rule"]
    learning: Learning


class LearningsReport(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    shown: tuple[Learning, ...] = ()
    suppressed: tuple[LearnedMatch, ...] = ()
    kept: tuple[LearnedMatch, ...] = ()
    to_add: tuple[Learning, ...] = ()
