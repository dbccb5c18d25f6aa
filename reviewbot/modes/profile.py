"""Capability profiles: everything a mode guarantees, declared once.

The tool surface (`reviewbot.tools.surface`), the action guard
(`reviewbot.tools.guard`) and the system prompt (`reviewbot.agent.prompt`) are all
derived from the profile here, so they cannot disagree. Profiles name tools by
string only; this module must not import the tool registry (a test checks that
every name here is a registered tool).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Literal

from reviewbot.modes.effect import READ_ONLY_DENIED, Effect, Tier
from reviewbot.modes.mode import Mode

Worktree = Literal["read_only", "read_write"]


class Role(StrEnum):
    """What an agent does on the panel: raise review nodes, or verify the high-priority ones."""

    REVIEWER = "reviewer"
    VERIFIER = "verifier"


READ_TOOLS = (
    "read_file",
    "read_patch",
    "list_files",
    "search_code",
    "git_log",
    "git_show",
    "git_blame",
)
ASK_USER = "ask_user"
REVIEW_VERBS = ("add_review_node", "finalize_review")
JUDGE_VERBS = ("confirm_review_node", "dispute_review_node")
PLAN_VERBS = ("submit_plan",)
ORCHESTRATE_VERBS = ("propose_orchestration",)
# The surface belongs to the mode, not to the role: every agent of a review run (reviewers,
# focused reviewers, the verifier) has the same tools, so all of them share one cached
# prefix. Who may judge which node is the lifecycle's rule, enforced where the verb runs:
# an author never confirms its own node (`reviewbot.nodes.lifecycle`).


@dataclass(frozen=True, slots=True, kw_only=True)
class CapabilityProfile:
    """One mode's guarantees. `allow=None` admits every tool within `max_tier`."""

    mode: Mode
    max_tier: Tier
    allow: frozenset[str] | None
    deny: frozenset[str] = frozenset()
    denied_effects: frozenset[Effect]
    worktree: Worktree
    required_verbs: tuple[str, ...] = ()
    pinned_verbs: frozenset[str]
    guidance: str

    def denial(self, effect: Effect) -> str:
        """Why `effect` is refused, in words: "the worktree is read-only"."""
        if effect is Effect.WORKTREE_WRITE and self.worktree == "read_only":
            return "the worktree is read-only"
        return f"{effect.phrase} is denied"


_REVIEW_GUIDANCE = """\
You are reviewing a pull request. The worktree is a checkout of the PR head; you can read \
anything in it, and nothing you do changes it.
Record each finding with `add_review_node` as soon as you are sure of it, anchored to lines of \
the PR head that you have read in this run; the harness checks the anchor's quote against the \
file. A clean pull request needs no nodes.
When you are done, call `finalize_review` with a short summary and the verdict you propose \
(ship, hold or block). The published verdict is the strictest of yours and the evidence: you can \
make it stricter, never looser.
If only a person can settle a point, use `ask_user`; if nobody answers, decide, and record the \
open point as a `question` node."""

_CHAT_GUIDANCE = """\
You are answering questions about this repository. The worktree is read-only: you can read \
anything in it, and nothing you do changes it. If the question is ambiguous, use `ask_user`."""

_PLAN_GUIDANCE = """\
You are planning a change, not making it. The worktree is read-only: read what you need, then \
deliver the plan with `submit_plan`. A planning run counts as delivered only when `submit_plan` \
has been called. If only a person can settle a point, use `ask_user`."""

_ORCHESTRATE_GUIDANCE = """\
You are proposing how to split a change into a stack of smaller pull requests, not making \
them. The worktree is read-only: read what you need, then deliver the proposal with \
`propose_orchestration`. Nothing is pushed or created; a person decides. If only a person can \
settle a point, use `ask_user`."""

PROFILES: dict[Mode, CapabilityProfile] = {
    Mode.REVIEW: CapabilityProfile(
        mode=Mode.REVIEW,
        max_tier=Tier.READ,
        allow=frozenset({*READ_TOOLS, *REVIEW_VERBS, *JUDGE_VERBS, ASK_USER}),
        denied_effects=READ_ONLY_DENIED,
        worktree="read_only",
        required_verbs=(),  # no completion contract: a clean PR has no nodes
        pinned_verbs=frozenset({*REVIEW_VERBS, *JUDGE_VERBS, ASK_USER}),
        guidance=_REVIEW_GUIDANCE,
    ),
    Mode.CHAT: CapabilityProfile(
        mode=Mode.CHAT,
        max_tier=Tier.READ,
        allow=frozenset({*READ_TOOLS, ASK_USER}),
        denied_effects=READ_ONLY_DENIED,
        worktree="read_only",
        pinned_verbs=frozenset({ASK_USER}),
        guidance=_CHAT_GUIDANCE,
    ),
    Mode.PLAN: CapabilityProfile(
        mode=Mode.PLAN,
        max_tier=Tier.READ,
        allow=frozenset({*READ_TOOLS, *PLAN_VERBS, ASK_USER}),
        denied_effects=READ_ONLY_DENIED,
        worktree="read_only",
        required_verbs=PLAN_VERBS,
        pinned_verbs=frozenset({*PLAN_VERBS, ASK_USER}),
        guidance=_PLAN_GUIDANCE,
    ),
    # Read-only like plan mode: it proposes a split of the PR, it never carries one out.
    Mode.ORCHESTRATE: CapabilityProfile(
        mode=Mode.ORCHESTRATE,
        max_tier=Tier.READ,
        allow=frozenset({*READ_TOOLS, *ORCHESTRATE_VERBS, ASK_USER}),
        denied_effects=READ_ONLY_DENIED,
        worktree="read_only",
        required_verbs=ORCHESTRATE_VERBS,
        pinned_verbs=frozenset({*ORCHESTRATE_VERBS, ASK_USER}),
        guidance=_ORCHESTRATE_GUIDANCE,
    ),
}
