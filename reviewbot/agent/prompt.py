"""The system prompt, generated from the surface an agent actually has (its mode's profile); a role and a focus.

A capability preamble listing each tool of the materialised surface with its
one-line purpose, the mode's guidance and the rules for untrusted input. It never
names a tool that is not on the surface, and contains nothing that changes from
turn to turn or from agent to agent: with the tools and the PR context it is the
cached prefix every agent of a run shares. What differs between agents is
rendered apart and sent after the PR context: the role's brief (`role_text`) and a
reviewer's configured focus (`focus_text`). The repository's guidelines
(`guidelines_text`) come from the base branch and are the same for every agent: they
open the first message, before the PR context, inside the shared prefix. The text lives in
`reviewbot/templates/prompts/`; this module only chooses it.
"""

from __future__ import annotations

from reviewbot.modes.effect import Effect
from reviewbot.modes.mode import Mode
from reviewbot.redact import Redactor
from reviewbot.render import render
from reviewbot.sources.guidelines import Guidelines
from reviewbot.text import hygiene
from reviewbot.tools.session import ReviewSession
from reviewbot.tools.surface import Surface


def system_prompt(session_or_surface: ReviewSession | Surface) -> str:
    """The prompt for the agent of `session_or_surface`: the same bytes for the same surface."""
    surface = (
        session_or_surface.surface
        if isinstance(session_or_surface, ReviewSession)
        else session_or_surface
    )
    profile = surface.profile
    denied = [effect.phrase for effect in Effect if effect in profile.denied_effects]
    return render(
        "prompts/system.j2",
        mode=profile.mode.value,
        tools=[{"name": tool.name, "description": tool.description} for tool in surface],
        read_only=profile.worktree == "read_only",
        denied=", ".join(denied),
        guidance=profile.guidance,
        records="add_review_node" in surface.names,
    )


def role_text(surface: Surface) -> str:
    """The role's brief as it follows the PR context; empty outside review mode.

    Role briefs speak of review nodes, which exist in review mode only.
    """
    if surface.profile.mode is not Mode.REVIEW:
        return ""
    return render("prompts/role.j2", brief=render(f"prompts/role_{surface.role}.j2").strip())


def focus_text(brief: str) -> str:
    """A reviewer's focus as it follows the PR context; empty when it has none.

    `brief` comes from the base branch's `.reviewbot.toml`, never from the PR.
    """
    focus = brief.strip()
    return render("prompts/focus.j2", focus=focus) if focus else ""


def guidelines_text(guidelines: Guidelines, *, base_ref: str, redactor: Redactor) -> str:
    """The base branch's guidelines as the first message opens with them; empty when none.

    Each file is a data block labelled with its path and, for a nested one, its scope:
    the framing says what they may and may not change.
    """
    if not guidelines.shown:
        return ""
    items = [
        {
            "label": hygiene.quoted(g.file.path, redactor),
            "scope": hygiene.quoted(g.file.scope, redactor) if g.file.scope else "",
            "text": hygiene.wrap(
                g.text, kind="guideline", redactor=redactor, label=g.file.path, markdown=False
            ),
        }
        for g in guidelines.shown
    ]
    return render(
        "prompts/guidelines.j2",
        base_ref=hygiene.quoted(base_ref, redactor),
        items=items,
        notes=guidelines.notes,
    )
