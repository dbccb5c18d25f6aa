"""The tool surface, computed from a profile and a role, for every mode."""

from __future__ import annotations

import dataclasses
import json

import pytest

from reviewbot.modes import PROFILES, Effect, Mode, Tier
from reviewbot.modes.profile import JUDGE_VERBS
from reviewbot.tools.registry import REGISTRY
from reviewbot.tools.surface import ProfileError, compute_surface, exclusion

CASES = [(mode, role) for mode in Mode for role in ("reviewer", "verifier")]
IDS = [f"{mode}-{role}" for mode, role in CASES]


class TestEveryMode:
    @pytest.mark.parametrize(("mode", "role"), CASES, ids=IDS)
    def test_no_tool_with_a_denied_effect_is_on_the_surface(self, mode, role):
        """surface ∩ tools-with-a-denied-effect = ∅."""
        profile = PROFILES[mode]
        surface = compute_surface(profile, role)
        with_denied = {n for n, spec in REGISTRY.items() if spec.effects & profile.denied_effects}
        assert with_denied, "the registry must give the surface something to exclude"
        assert set(surface.names) & with_denied == set()

    @pytest.mark.parametrize(("mode", "role"), CASES, ids=IDS)
    def test_pinned_verbs_survive_a_deny_list_naming_them(self, mode, role):
        """Pinned verbs stay on the surface even when the deny list and allow list say otherwise."""
        profile = PROFILES[mode]
        hostile = dataclasses.replace(profile, deny=profile.pinned_verbs, allow=frozenset())
        surface = compute_surface(hostile, role)
        assert profile.pinned_verbs <= set(surface.names)
        assert surface.pinned <= set(surface.names)

    @pytest.mark.parametrize(("mode", "role"), CASES, ids=IDS)
    def test_nothing_above_the_tier_unless_pinned(self, mode, role):
        """Every tool on the surface is within the tier, or pinned."""
        profile = PROFILES[mode]
        surface = compute_surface(profile, role)
        assert all(t.tier <= profile.max_tier or t.name in surface.pinned for t in surface)

    @pytest.mark.parametrize(("mode", "role"), CASES, ids=IDS)
    def test_every_excluded_tool_has_a_reason(self, mode, role):
        """Each registered tool is either on the surface or has a stated reason not to be."""
        profile = PROFILES[mode]
        surface = compute_surface(profile, role)
        for name, spec in REGISTRY.items():
            assert (name in surface.names) == (exclusion(profile, spec) is None), name

    @pytest.mark.parametrize(("mode", "role"), CASES, ids=IDS)
    def test_tool_params_are_byte_stable(self, mode, role):
        """Computing the surface twice gives the same bytes, in registry order."""
        first = compute_surface(PROFILES[mode], role)
        second = compute_surface(PROFILES[mode], role)
        dump = [json.dumps(t.param(), sort_keys=False) for t in first]
        assert dump == [json.dumps(t.param(), sort_keys=False) for t in second]
        assert list(first.names) == [n for n in REGISTRY if n in first.names]


class TestReviewSurface:
    def test_review_reviewer_surface(self):
        """A reviewer reads, records nodes, finalizes and asks; nothing else exists."""
        surface = compute_surface(PROFILES[Mode.REVIEW], "reviewer")
        assert surface.names == (
            "read_file",
            "list_files",
            "search_code",
            "read_patch",
            "git_log",
            "git_show",
            "git_blame",
            "add_review_node",
            "finalize_review",
            "confirm_review_node",
            "dispute_review_node",
            "ask_user",
        )

    def test_every_role_has_the_same_surface(self):
        """The surface belongs to the mode: reviewer and verifier get the same tools, judge verbs included."""
        reviewer = compute_surface(PROFILES[Mode.REVIEW], "reviewer")
        verifier = compute_surface(PROFILES[Mode.REVIEW], "verifier")
        assert reviewer.tools == verifier.tools
        assert set(JUDGE_VERBS) <= set(reviewer.names)

    def test_every_review_tool_is_read_tier_without_effects(self):
        """Nothing on the review surface writes, executes or publishes."""
        for tool in compute_surface(PROFILES[Mode.REVIEW], "verifier"):
            assert tool.tier is Tier.READ
            assert tool.effects == frozenset()

    @pytest.mark.parametrize(
        ("name", "reason"),
        [
            ("write_file", "the worktree is read-only"),
            ("bash", "starting processes is denied"),
            ("delete_file", "deleting files is denied"),
            ("git_commit", "committing is denied"),
            ("git_push", "pushing is denied"),
            ("create_pull_request", "creating or publishing a pull request is denied"),
            ("install_package", "starting processes is denied"),
            ("submit_plan", "it belongs to other modes"),
        ],
        ids=[
            "write_file",
            "bash",
            "delete_file",
            "git_commit",
            "git_push",
            "create_pull_request",
            "install_package",
            "submit_plan",
        ],
    )
    def test_exclusion_reasons(self, name, reason):
        """Each excluded tool's reason is derived from the profile."""
        assert exclusion(PROFILES[Mode.REVIEW], REGISTRY[name]) == reason


class TestOtherModes:
    def test_orchestrate_is_read_only_with_its_one_privileged_verb(self):
        """Orchestrate proposes a split: read tools and `propose_orchestration`, nothing that writes."""
        names = set(compute_surface(PROFILES[Mode.ORCHESTRATE]).names)
        assert "propose_orchestration" in names
        assert {
            "write_file",
            "bash",
            "git_commit",
            "git_push",
            "create_pull_request",
        } & names == set()
        assert {"add_review_node", "submit_plan"} & names == set()
        assert exclusion(PROFILES[Mode.ORCHESTRATE], REGISTRY["write_file"]) == (
            "the worktree is read-only"
        )

    def test_tier_cap_alone_excludes(self):
        """With no denied effects, the tier cap still keeps execute tools off a read surface."""
        profile = dataclasses.replace(PROFILES[Mode.CHAT], denied_effects=frozenset(), allow=None)
        surface = compute_surface(profile)
        assert "bash" not in surface.names
        assert exclusion(profile, REGISTRY["bash"]) == (
            "its tier (execute) is above the mode's maximum (read)"
        )

    def test_plan_requires_a_registered_pinned_verb(self):
        """Plan mode's required verb exists and is pinned."""
        profile = PROFILES[Mode.PLAN]
        assert profile.required_verbs == ("submit_plan",)
        assert "submit_plan" in compute_surface(profile).names


class TestProfileErrors:
    def test_pinning_a_tool_with_a_denied_effect_is_a_profile_error(self):
        """A profile that pins a tool whose effect it denies contradicts itself."""
        profile = dataclasses.replace(
            PROFILES[Mode.REVIEW], pinned_verbs=frozenset({"ask_user", "write_file"})
        )
        with pytest.raises(
            ProfileError, match="pins `write_file`, whose effects it denies: worktree_write"
        ):
            compute_surface(profile)

    def test_naming_an_unknown_tool_is_a_profile_error(self):
        """A pinned verb must be a registered tool."""
        profile = dataclasses.replace(PROFILES[Mode.REVIEW], pinned_verbs=frozenset({"frobnicate"}))
        with pytest.raises(
            ProfileError, match="names `frobnicate`, which is not a registered tool"
        ):
            compute_surface(profile)

    def test_a_required_verb_must_be_pinned(self):
        """A required verb that a deny list could remove is refused."""
        profile = dataclasses.replace(PROFILES[Mode.REVIEW], required_verbs=("read_file",))
        with pytest.raises(ProfileError, match="requires `read_file` but does not pin it"):
            compute_surface(profile)

    def test_effect_phrases_cover_every_effect(self):
        """Every effect class has words for the prompt and the guard."""
        assert all(effect.phrase for effect in Effect)
