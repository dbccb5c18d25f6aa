"""A comment's first line → the command it asks for, or None: the one place commands are parsed.

A comment is a command when its first character is `/`, followed by a word of letters and
hyphens and then whitespace or the end of the line: `/review full`, `/ask why?`, `/Dismiss`.
Nothing may come before the `/`, not a space nor a blank line: that is the rule the comment
workflow's cheap `if:` (`startsWith(github.event.comment.body, '/')`) can test too, so a
command the grammar reads never goes unanswered because the job did not start.
The verb is matched case-insensitively. Anything else is a conversation, never a command: a
path (`/usr/bin/env fails`, `/tmp.`), a `/` inside the text (`please /review`), a `/word` on a later
line. A word that looks like a command but is none of ours (`/lgtm`) is an `Unknown`, so
the caller can answer with the list of known ones.

Where the comment was written matters (a reply in a finding's thread decides that finding, a
`/dismiss` in the PR's discussion names it by id), so the caller says where (`Place`) and the
`Command` carries it. Must not: import anything of reviewbot (it sits below every layer that
reads comments) or decide who may use a command (`table.py` declares it, the caller checks).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum

MAX_ARGUMENT = 2_000  # characters of argument text kept (a question, a reason)
# `/word` then whitespace or the end: `/usr/bin`, `/tmp.` and `/日本` are not commands.
_COMMAND = re.compile(r"/([A-Za-z][A-Za-z-]{0,31})(?=\s|$)")
# A finding's id is its fingerprint (16 hex digits); a prefix of 8 or more names it too.
_FINDING_ID = re.compile(r"[0-9a-f]{8,16}")


class Verb(StrEnum):
    """Every command reviewbot knows, by the word written after the `/`."""

    REVIEW = "review"
    CONFIRM = "confirm"
    DISMISS = "dismiss"
    ASK = "ask"
    PLAN = "plan"
    SPLIT = "split"
    HELP = "help"


class Place(StrEnum):
    """Where a command was written."""

    PR_COMMENT = "pr_comment"  # the PR's discussion (an issue comment)
    THREAD_REPLY = "thread_reply"  # a reply in a review thread (a review comment)


@dataclass(frozen=True, slots=True, kw_only=True)
class Written:
    """Where a comment was written and by whom: what the grammar needs besides its text."""

    place: Place
    author: str
    comment_id: int
    thread_root: int | None = None  # with THREAD_REPLY: the id of the thread's first comment


@dataclass(frozen=True, slots=True, kw_only=True)
class Command:
    """One parsed command.

    `text` is the argument: the question of `/ask`, the reason of `/dismiss` (after the id),
    `full` for `/review full`. It is untrusted text, never an instruction to anyone.
    """

    verb: Verb
    text: str
    written: Written
    finding_id: str | None = None  # /confirm and /dismiss: the id written before the reason

    @property
    def full(self) -> bool:
        """`/review full`: review every changed file, not only what changed since the last review."""
        return self.verb is Verb.REVIEW and self.text.split()[:1] == ["full"]


@dataclass(frozen=True, slots=True, kw_only=True)
class Unknown:
    """A `/word` that is not one of reviewbot's commands."""

    word: str
    written: Written


def parse(body: str | None, written: Written) -> Command | Unknown | None:
    """The command on `body`'s first line, an `Unknown` `/word`, or None (not a command)."""
    first, _, rest = (body or "").partition("\n")
    match = _COMMAND.match(first)  # at the first character: nothing before the `/`
    if match is None:
        return None
    word = match.group(1).casefold()
    try:
        verb = Verb(word)
    except ValueError:
        return Unknown(word=f"/{word}", written=written)
    argument = first[match.end() :].strip()
    if verb in (Verb.CONFIRM, Verb.DISMISS, Verb.ASK) and not argument:
        argument = rest.strip()  # the reason or question may start on the next line
    elif verb is Verb.ASK:
        argument = f"{argument}\n{rest.strip()}".strip()  # a question may run over lines
    finding_id = None
    if verb in (Verb.CONFIRM, Verb.DISMISS):
        head, _, tail = argument.partition(" ")
        if _FINDING_ID.fullmatch(head.casefold()):
            finding_id, argument = head.casefold(), tail.strip()
    if verb is Verb.REVIEW:
        argument = argument.casefold()
    return Command(verb=verb, text=argument[:MAX_ARGUMENT], written=written, finding_id=finding_id)


def command_of(body: str | None, written: Written) -> Command | None:
    """The known command on `body`'s first line, or None (an unknown `/word` too)."""
    parsed = parse(body, written)
    return parsed if isinstance(parsed, Command) else None
