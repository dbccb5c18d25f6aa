"""The command table: for each command, who may use it, what it costs, where the answer goes.

Declared once: `/help` answers with `markdown_table()` and the README's command table is the
same text (tests/commands/test_table.py compares them), so the two cannot drift apart.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from reviewbot.commands.grammar import Verb


class Who(StrEnum):
    """Who may use a command (`[ask] who` chooses one of the first three for `/ask`)."""

    WRITERS = "writers"  # write access, re-checked through the permission API
    AUTHOR_AND_WRITERS = "author_and_writers"  # the PR's author too
    ANYONE = "anyone"
    DECIDERS = "deciders"  # write access, and not the PR's author nor reviewbot itself


WHO_TEXT = {
    Who.WRITERS: "people with write access",
    Who.AUTHOR_AND_WRITERS: "the PR's author and people with write access",
    Who.ANYONE: "anyone",
    Who.DECIDERS: "people with write access, except the PR's author",
}


@dataclass(frozen=True, slots=True, kw_only=True)
class Entry:
    """One row of the table."""

    verb: Verb
    usage: str
    does: str
    who: Who  # the rule the command is held to; `/ask`'s is `[ask] who`, this its default
    cost: str
    answer: str
    configurable: bool = False  # `who` is the default of a `.reviewbot.toml` setting

    @property
    def who_text(self) -> str:
        if self.configurable:
            return f"`[{self.verb.value}] who` (default: {WHO_TEXT[self.who]})"
        return WHO_TEXT[self.who]


TABLE: tuple[Entry, ...] = (
    Entry(
        verb=Verb.REVIEW,
        usage="/review",
        does="review the PR again (what changed since the last review)",
        who=Who.WRITERS,
        cost="a review, within `[budget]`",
        answer="the review, the summary comment and the check run",
    ),
    Entry(
        verb=Verb.REVIEW,
        usage="/review full",
        does="the next review covers every changed file, not only the changes since the last",
        who=Who.DECIDERS,
        cost="a review, within `[budget]`",
        answer="the review, the summary comment and the check run",
    ),
    Entry(
        verb=Verb.CONFIRM,
        usage="/confirm [reason]",
        does="confirm a finding: as a reply in its thread, or `/confirm <id> [reason]` here",
        who=Who.DECIDERS,
        cost="nothing: no model request",
        answer="the verdict is re-folded at once (summary and check run; no new review)",
    ),
    Entry(
        verb=Verb.DISMISS,
        usage="/dismiss <reason>",
        does="dismiss a finding: as a reply in its thread, or `/dismiss <id> <reason>` here",
        who=Who.DECIDERS,
        cost="nothing: no model request",
        answer="the verdict is re-folded at once (summary and check run; no new review)",
    ),
    Entry(
        verb=Verb.ASK,
        usage="/ask <question>",
        does="a read-only agent answers from the code, quoting what it read",
        who=Who.AUTHOR_AND_WRITERS,
        configurable=True,
        cost="one chat agent, within `[ask] budget`",
        answer="a reply in the thread it was asked in, else a PR comment",
    ),
    Entry(
        verb=Verb.PLAN,
        usage="/plan",
        does="a fix plan for the head's open findings",
        who=Who.WRITERS,
        cost="one plan agent",
        answer="a PR comment",
    ),
    Entry(
        verb=Verb.SPLIT,
        usage="/split",
        does="how to split a large PR into a stack of smaller ones",
        who=Who.WRITERS,
        cost="one orchestrate agent",
        answer="a PR comment",
    ),
    Entry(
        verb=Verb.HELP,
        usage="/help",
        does="this table",
        who=Who.ANYONE,
        cost="nothing: no model request",
        answer="a reply where it was asked",
    ),
)


def markdown_table() -> str:
    """The table as markdown, exactly as `/help` posts it and the README shows it."""
    lines = [
        "| command | what it does | who may | what it costs | where the answer goes |",
        "|---|---|---|---|---|",
    ]
    lines += [f"| `{e.usage}` | {e.does} | {e.who_text} | {e.cost} | {e.answer} |" for e in TABLE]
    return "\n".join(lines)


def who_may(verb: Verb, *, configured: Who | None = None) -> Who:
    """The rule `verb` is held to: its first row's (a bare `/review`, not `/review full`), or
    `configured` where the row's rule is a setting's default (`[ask] who`)."""
    entry = next(e for e in TABLE if e.verb is verb)
    return configured if entry.configurable and configured is not None else entry.who


def known_commands() -> str:
    """The known commands in one line: `/review`, `/confirm`, …"""
    return ", ".join(f"`/{verb.value}`" for verb in Verb)


def unknown_line(word: str) -> str:
    """The one line an unknown command gets."""
    return (
        f"`{word}` is not a reviewbot command; the commands are {known_commands()} "
        "(`/help` says what each does)."
    )
