"""The action guard: every tool call is checked against the profile before anything runs.

Decisions are values (`Allow | Reject | Halt`) and the run goes on after a
`Reject`: the model reads the message as an `is_error` tool result. The guard
enforces checkable facts only, each decision a value: is the tool on the surface,
does its input validate. It never reads the input's meaning. A `Halt` means the
surface and the profile disagree — a tool with a denied effect reached the
surface — and the run must stop rather than run it. The guard runs nothing.
"""

from __future__ import annotations

from dataclasses import dataclass

from pydantic import BaseModel, ValidationError

from reviewbot.modes.profile import CapabilityProfile
from reviewbot.nodes.boundary import explain
from reviewbot.text.hygiene import quoted
from reviewbot.tools.registry import REGISTRY, ToolSpec
from reviewbot.tools.surface import Surface, exclusion


@dataclass(frozen=True, slots=True, kw_only=True)
class Allow:
    tool: ToolSpec  # the surface's tool that may run: the caller never looks it up again
    args: BaseModel | object  # the validated input model; the raw input for a boundary tool


@dataclass(frozen=True, slots=True, kw_only=True)
class Reject:
    message: str


@dataclass(frozen=True, slots=True, kw_only=True)
class Halt:
    reason: str


Ruling = Allow | Reject | Halt


@dataclass(frozen=True, slots=True, kw_only=True)
class GuardRecord:
    """One entry of a run's transcript: what was asked, and what the guard decided."""

    name: str
    tool_input: object
    decision: Ruling


def check(profile: CapabilityProfile, surface: Surface, name: str, tool_input: object) -> Ruling:
    spec = surface.get(name)
    if spec is None:
        return Reject(message=_off_surface(profile, surface, name))
    # Defence in depth: the surface is computed from this profile, so this is never
    # true unless something is broken; then nothing may run.
    clash = spec.effects & profile.denied_effects
    if clash:
        effects = ", ".join(sorted(clash))
        return Halt(
            reason=f"`{name}` is on the {profile.mode} surface with denied effects: {effects}"
        )
    if spec.boundary:
        return Allow(tool=spec, args=tool_input)
    try:
        return Allow(tool=spec, args=spec.input_model.model_validate(tool_input))
    except ValidationError as exc:
        return Reject(message=f"invalid input for `{name}`: {explain(exc)}")


def _off_surface(profile: CapabilityProfile, surface: Surface, name: str) -> str:
    spec = REGISTRY.get(name)
    reason = exclusion(profile, spec) if spec is not None else None
    if reason is None:
        listed = ", ".join(surface.names)
        return f"{quoted(str(name), limit=80)} is not a tool; the tools are: {listed}"
    return f"`{name}` does not exist in {profile.mode} mode: {reason}"
