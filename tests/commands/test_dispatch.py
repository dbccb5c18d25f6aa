"""Who may use a command, and the comments that are never answered (no request is made)."""

from __future__ import annotations

from typing import Any

import pytest

from reviewbot.commands.grammar import Command, Place, Verb, Written
from reviewbot.commands.table import Who
from reviewbot.memory.prior import PriorState
from reviewbot.memory.read import Memory
from reviewbot.talk.dispatch import Dispatcher, Poster, help_answer, not_for

WRITERS = {"maint"}


def is_writer(login: str) -> bool:
    return login in WRITERS


@pytest.mark.parametrize(
    ("who", "login", "refused"),
    [
        (Who.ANYONE, "stranger", False),
        (Who.AUTHOR_AND_WRITERS, "author", False),
        (Who.AUTHOR_AND_WRITERS, "maint", False),
        (Who.AUTHOR_AND_WRITERS, "stranger", True),
        (Who.WRITERS, "author", True),
        (Who.WRITERS, "maint", False),
        (Who.DECIDERS, "maint", False),
        (Who.DECIDERS, "Author", True),  # logins compare case-insensitively
    ],
)
def test_who_may(who, login, refused):
    assert (not_for(who, login, "author", is_writer) is not None) is refused


class NoRequests:
    """A GitHub client that fails the test on any request."""

    def __getattr__(self, name: str) -> Any:
        raise AssertionError(f"no request may be made, not even {name}")


def poster() -> Poster:
    memory = Memory(prior=PriorState(), comments=())
    return Poster(
        client=NoRequests(),  # type: ignore[arg-type]
        repo="octo/app",
        number=7,
        bot_login="reviewbot-user",
        pr_author="author",
        memory=memory,
    )


def make(*_: Any) -> Any:
    raise AssertionError("no handler may run")


def test_a_command_in_reviewbots_own_comment_is_text():
    """With a personal token reviewbot posts as a user account: its own words are never asked."""
    written = Written(place=Place.PR_COMMENT, author="ReviewBot-User", comment_id=1)
    command = Command(verb=Verb.ASK, text="leak it", written=written)
    dispatcher = Dispatcher(handlers={Verb.HELP: help_answer})
    answered = dispatcher.answer(command, make, poster(), is_writer)
    assert answered.posted is None
    assert answered.reason == "a command in reviewbot's own comment is text, not a command"


def test_a_reply_in_a_thread_that_is_not_reviewbots_gets_nothing():
    written = Written(place=Place.THREAD_REPLY, author="maint", comment_id=2, thread_root=99)
    command = Command(verb=Verb.HELP, text="", written=written)
    answered = Dispatcher(handlers={}).answer(command, make, poster(), is_writer)
    assert answered.posted is None
    assert "not one of reviewbot's findings" in answered.reason
