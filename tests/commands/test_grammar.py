"""The one command grammar: what is a command, which one, with what argument."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from reviewbot.commands.grammar import (
    MAX_ARGUMENT,
    Command,
    Place,
    Unknown,
    Verb,
    Written,
    command_of,
    parse,
)

HERE = Written(place=Place.PR_COMMENT, author="alice", comment_id=7)
THREAD = Written(place=Place.THREAD_REPLY, author="alice", comment_id=8, thread_root=3)


def parsed(body: str | None, written: Written = HERE) -> Command:
    command = parse(body, written)
    assert isinstance(command, Command), command
    return command


class TestVerbs:
    @pytest.mark.parametrize(
        ("body", "verb", "text"),
        [
            ("/review", Verb.REVIEW, ""),
            ("/review full", Verb.REVIEW, "full"),
            ("/Review FULL  \n", Verb.REVIEW, "full"),
            ("/confirm", Verb.CONFIRM, ""),
            (
                "/dismiss not reachable: the input is validated",
                Verb.DISMISS,
                "not reachable: the input is validated",
            ),
            (
                "/dismiss\nthe reason, on the next line",
                Verb.DISMISS,
                "the reason, on the next line",
            ),
            ("/ask why is this safe?", Verb.ASK, "why is this safe?"),
            ("/ASK why\nand what about b.py?", Verb.ASK, "why\nand what about b.py?"),
            ("/plan", Verb.PLAN, ""),
            ("/split", Verb.SPLIT, ""),
            ("/help", Verb.HELP, ""),
            ("/help\tme", Verb.HELP, "me"),
        ],
    )
    def test_each_verb(self, body, verb, text):
        """Every verb in any case; the argument is the rest (a reason or question may go on)."""
        command = parsed(body)
        assert (command.verb, command.text) == (verb, text)
        assert command.written == HERE

    def test_review_full(self):
        assert parsed("/review full").full
        assert parsed("/Review Full please").full
        assert not parsed("/review").full
        assert not parsed("/review fully").full

    def test_the_argument_is_bounded(self):
        assert len(parsed("/ask " + "x" * 10_000).text) == MAX_ARGUMENT


class TestFindingIds:
    def test_an_id_before_the_reason(self):
        """`/dismiss <id> <reason>`: the id is the fingerprint, or 8+ of its leading digits."""
        command = parsed("/dismiss 0e27869c698d63c1 validated upstream")
        assert (command.finding_id, command.text) == ("0e27869c698d63c1", "validated upstream")
        assert parsed("/confirm 0E27869C").finding_id == "0e27869c"

    @pytest.mark.parametrize(
        "body", ["/dismiss because", "/dismiss 0e2786 short", "/ask 0e27869c698d63c1"]
    )
    def test_no_id(self, body):
        """A word that is not 8–16 hex digits is the reason; only decisions take an id."""
        assert parsed(body).finding_id is None

    def test_in_a_thread(self):
        command = parsed("/dismiss fine here", THREAD)
        assert command.written.thread_root == 3
        assert command.finding_id is None


class TestNotCommands:
    @pytest.mark.parametrize(
        "body",
        [
            None,
            "",
            "LGTM",
            "please /review",
            "thanks\n/review",
            "  /review",
            "\n/review",
            "/ review",
            "/usr/bin/env fails here",
            "/tmp.",
            "/etc/passwd",
            "//review",
            "/9lives",
            "/review,",
            "`/review`",
        ],
    )
    def test_conversation(self, body):
        """A path, a `/` inside the text or after a blank, a command on a later line: conversation."""
        assert parse(body, HERE) is None

    @pytest.mark.parametrize("body", ["/lgtm", "/reviewer", "/Approve now", "/etc"])
    def test_unknown_words(self, body):
        """A `/word` that is none of ours is an Unknown (answered with the known ones)."""
        unknown = parse(body, HERE)
        assert isinstance(unknown, Unknown)
        assert unknown.word == body.split()[0].casefold()
        assert command_of(body, HERE) is None

    @given(st.text(max_size=200))
    def test_never_raises(self, body):
        """Any text parses to a command, an unknown word, or nothing."""
        result = parse(body, HERE)
        assert result is None or isinstance(result, Command | Unknown)
