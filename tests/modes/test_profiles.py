"""The capability profiles: one declaration per mode, consistent with the registry."""

from __future__ import annotations

import dataclasses

import pytest

from reviewbot.modes import PROFILES, READ_ONLY_DENIED, Effect, Mode, Tier
from reviewbot.tools.registry import REGISTRY


class TestDeclarations:
    def test_one_profile_per_mode(self):
        """Every mode has exactly one profile, which names its own mode."""
        assert set(PROFILES) == set(Mode)
        assert all(profile.mode is mode for mode, profile in PROFILES.items())

    def test_the_mode_enum_carries_no_policy(self):
        """Mode is a bare StrEnum: its members have no attributes beyond name and value."""
        public = {name for name in vars(Mode) if not name.startswith("_")}
        assert public == {member.name for member in Mode}

    @pytest.mark.parametrize("mode", list(Mode), ids=str)
    def test_every_named_tool_is_registered(self, mode):
        """Allow, deny, pinned and required names are all registered tools."""
        profile = PROFILES[mode]
        names = (
            (profile.allow or frozenset())
            | profile.deny
            | profile.pinned_verbs
            | set(profile.required_verbs)
        )
        assert names <= set(REGISTRY), names - set(REGISTRY)

    @pytest.mark.parametrize("mode", list(Mode), ids=str)
    def test_ask_user_is_pinned_everywhere(self, mode):
        """ask_user is pinned in every mode and is read tier."""
        assert "ask_user" in PROFILES[mode].pinned_verbs
        assert REGISTRY["ask_user"].tier is Tier.READ


class TestReviewProfile:
    def test_review_is_read_only_without_a_completion_contract(self):
        """Review: read tier, read-only worktree, no required verbs, its verbs (judging too) pinned."""
        review = PROFILES[Mode.REVIEW]
        assert review.max_tier is Tier.READ
        assert review.worktree == "read_only"
        assert review.required_verbs == ()
        assert review.pinned_verbs == {
            "add_review_node",
            "finalize_review",
            "confirm_review_node",
            "dispute_review_node",
            "ask_user",
        }

    def test_review_denies_exactly_the_spec_effects(self):
        """Every write, execute and publish effect is denied; network and secret reads are not."""
        denied = PROFILES[Mode.REVIEW].denied_effects
        assert denied == READ_ONLY_DENIED
        assert denied == {
            Effect.FILE_DELETE,
            Effect.WRITE_OUTSIDE_WORKTREE,
            Effect.WORKTREE_WRITE,
            Effect.COMMIT,
            Effect.PUSH,
            Effect.PR_PUBLISH,
            Effect.VENDOR_SYNC_WRITE,
            Effect.PACKAGE_INSTALL,
            Effect.PROCESS_SPAWN,
            Effect.WORKSPACE_CHANGE,
            Effect.ENCLOSURE_CONTROL,
        }

    @pytest.mark.parametrize(
        ("effect", "words"),
        [
            (Effect.WORKTREE_WRITE, "the worktree is read-only"),
            (Effect.PROCESS_SPAWN, "starting processes is denied"),
        ],
        ids=["worktree", "process"],
    )
    def test_denial_is_worded_from_the_profile(self, effect, words):
        """The refusal wording comes from the profile's own declarations."""
        assert PROFILES[Mode.REVIEW].denial(effect) == words

    def test_a_writable_worktree_words_the_denial_as_an_effect(self):
        """In a read-write profile, denying worktree writes reads as a denied effect."""
        writable = dataclasses.replace(PROFILES[Mode.PLAN], worktree="read_write")
        assert writable.denial(Effect.WORKTREE_WRITE) == "writing the worktree is denied"


class TestProposalProfiles:
    @pytest.mark.parametrize(
        ("mode", "verb"),
        [(Mode.PLAN, "submit_plan"), (Mode.ORCHESTRATE, "propose_orchestration")],
        ids=["plan", "orchestrate"],
    )
    def test_read_only_with_one_pinned_required_verb(self, mode, verb):
        """Plan and orchestrate are read-only like review: read tier, read-only worktree, every
        write/execute/publish effect denied, and their one privileged verb required and pinned."""
        profile = PROFILES[mode]
        assert profile.max_tier is Tier.READ
        assert profile.worktree == "read_only"
        assert profile.denied_effects == READ_ONLY_DENIED
        assert profile.required_verbs == (verb,)
        assert profile.pinned_verbs == {verb, "ask_user"}
        assert REGISTRY[verb].tier is Tier.READ
        assert not REGISTRY[verb].effects
