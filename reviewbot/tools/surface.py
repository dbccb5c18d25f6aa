"""The tool surface: which tools exist at all for one agent, computed from its profile and role.

A tool is on the surface when it is within the profile's tier, allowed, not
denied by name and has no denied effect; the mode's pinned verbs are always on it.
The role does not change which tools there are: every agent of a mode sees the same
ones (one cached prefix); what a role may do with a verb is checked where it runs.
`exclusion` explains, from the same profile, why a tool is not — the guard's
refusals and the prompt are derived from these two functions only.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass

from reviewbot.modes.effect import Effect
from reviewbot.modes.profile import CapabilityProfile, Role
from reviewbot.tools.registry import REGISTRY, ToolSpec


class ProfileError(ValueError):
    """A profile contradicts itself or the registry: a programming error, caught by tests."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Surface:
    profile: CapabilityProfile
    role: Role
    tools: tuple[ToolSpec, ...]  # in registry order: byte-stable across turns and runs

    def __iter__(self) -> Iterator[ToolSpec]:
        return iter(self.tools)

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(tool.name for tool in self.tools)

    def get(self, name: str) -> ToolSpec | None:
        return next((tool for tool in self.tools if tool.name == name), None)

    @property
    def pinned(self) -> frozenset[str]:
        return pinned(self.profile)


def pinned(profile: CapabilityProfile) -> frozenset[str]:
    return profile.pinned_verbs


def compute_surface(
    profile: CapabilityProfile,
    role: Role = Role.REVIEWER,
    registry: Mapping[str, ToolSpec] = REGISTRY,
) -> Surface:
    keep = pinned(profile)
    _check(profile, keep, registry)
    tools = tuple(
        spec for spec in registry.values() if spec.name in keep or exclusion(profile, spec) is None
    )
    return Surface(profile=profile, role=role, tools=tools)


def exclusion(profile: CapabilityProfile, spec: ToolSpec) -> str | None:
    """Why `spec` is not on the surface (the end of a sentence); None when it is on it."""
    if spec.name in pinned(profile):
        return None
    # Effect declaration order is precedence: the most telling denied effect is named.
    denied = [effect for effect in Effect if effect in spec.effects & profile.denied_effects]
    if denied:
        return profile.denial(denied[0])
    if spec.tier > profile.max_tier:
        return (
            f"its tier ({spec.tier.name.lower()}) is above the mode's maximum "
            f"({profile.max_tier.name.lower()})"
        )
    if spec.name in profile.deny:
        return "the mode's deny list removes it"
    if profile.allow is not None and spec.name not in profile.allow:
        return "it belongs to other modes"
    return None


def _check(
    profile: CapabilityProfile, keep: frozenset[str], registry: Mapping[str, ToolSpec]
) -> None:
    """A pinned verb must exist and must not carry an effect its own mode denies."""
    for name in sorted(keep | set(profile.required_verbs)):
        spec = registry.get(name)
        if spec is None:
            raise ProfileError(
                f"{profile.mode} mode names `{name}`, which is not a registered tool"
            )
        if name in profile.required_verbs and name not in keep:
            raise ProfileError(f"{profile.mode} mode requires `{name}` but does not pin it")
        clash = spec.effects & profile.denied_effects
        if clash:
            effects = ", ".join(sorted(clash))
            raise ProfileError(
                f"{profile.mode} mode pins `{name}`, whose effects it denies: {effects}"
            )
