"""The command table: `/help`'s answer and the README's table are the same text."""

from __future__ import annotations

import re
from pathlib import Path

from reviewbot.commands.grammar import Verb
from reviewbot.commands.table import TABLE, markdown_table, unknown_line

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
