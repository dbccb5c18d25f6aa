"""The command table: `/help`'s answer and the README's table are the same text."""

from __future__ import annotations

import re
from pathlib import Path

from reviewbot.commands.grammar import Verb
from reviewbot.commands.table import TABLE, Who, markdown_table, unknown_line, who_may

README = Path(__file__).resolve().parents[2] / "README.md"


def test_the_readme_shows_the_table_help_posts():
    text = README.read_text(encoding="utf-8")
    shown = re.search(r"<!-- commands-table -->\n(.*?)\n<!-- /commands-table -->", text, re.S)
    assert shown is not None, "README.md lost its commands table"
    assert shown.group(1) == markdown_table()


def test_every_verb_has_a_row():
    assert {entry.verb for entry in TABLE} == set(Verb)
    assert all(entry.who and entry.cost and entry.answer for entry in TABLE)


def test_unknown_line_names_every_command():
    line = unknown_line("/lgtm")
    assert "\n" not in line
    for verb in Verb:
        assert f"`/{verb.value}`" in line


def test_each_command_is_held_to_one_rule():
    """Who may use each command is declared once, in the table; `/ask`'s row is the default of
    `[ask] who`, which replaces it."""
    assert {verb: who_may(verb) for verb in Verb} == {
        Verb.REVIEW: Who.WRITERS,  # the bare `/review`; `/review full` is a decision's rule
        Verb.CONFIRM: Who.DECIDERS,
        Verb.DISMISS: Who.DECIDERS,
        Verb.ASK: Who.AUTHOR_AND_WRITERS,
        Verb.PLAN: Who.WRITERS,
        Verb.SPLIT: Who.WRITERS,
        Verb.HELP: Who.ANYONE,
    }
    assert who_may(Verb.ASK, configured=Who.ANYONE) is Who.ANYONE
    assert who_may(Verb.PLAN, configured=Who.ANYONE) is Who.WRITERS  # not a setting's
