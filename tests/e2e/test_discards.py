"""Findings the review could not record, as a person at the terminal sees them.

`reviewbot review --local` in a real repository: one finding whose anchor names the line after
the end of a 19-line file while its quote is the last line (a miscount: moved, recorded), one
whose quote is nowhere in the file (refused: not malformed), one with a priority that does not
exist (malformed). The text output lists each one not recorded with its title, place and reason.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.fakes.messages_api import reply, text, tool_use
from tests.fakes.runs import Run
from tests.fakes.world import World

LINES = [f"value_{n} = {n}" for n in range(1, 19)] + ["total = value_1 / value_2"]
BASE = {"calc.py": "\n".join(LINES[:-1]) + "\n"}
HEAD = {"calc.py": "\n".join(LINES) + "\n"}  # 19 lines


def _node(title: str, line: int, quote: str, priority: str = "P1") -> dict[str, Any]:
    return {
        "kind": "bug",
        "priority": priority,
        "confidence": 0.8,
        "title": title,
        "body": "Explained.",
        "anchor": {"path": "calc.py", "start_line": line, "end_line": line, "quote": quote},
    }


PAST_END = _node("Division by a name that may be zero", 20, "total = value_1 / value_2")
NOT_THERE = _node("Quote that is nowhere", 5, "return nothing_like_this")
BAD = _node("Priority out of range", 19, "total = value_1 / value_2", priority="P9")


@pytest.fixture(scope="module")
def runs(worlds) -> dict[str, Run]:
    out = {}
    for fmt in ("text", "json"):
        world: World = worlds(
            f"discards-{fmt}",
            base=BASE,
            head=HEAD,
            script=[
                reply(
                    tool_use("add_review_node", PAST_END),
                    tool_use("add_review_node", NOT_THERE),
                    tool_use("add_review_node", BAD),
                ),
                reply(tool_use("finalize_review", {"summary": "Done.", "verdict": "hold"})),
                reply(text("Checked.")),  # the verifier, given the P1 that was moved
            ],
        )
        args = ["review", "--local", "--base", "main", "--format", fmt]
        out[fmt] = world.run(args, github=False, cwd=world.repo, extra_env={"COLUMNS": "200"})
    return out


def test_an_anchor_past_the_end_whose_quote_is_near_is_moved_not_refused(runs):
    report = json.loads(runs["json"].stdout)
    titles = {n["title"]: n for n in report["nodes"]}
    node = titles[PAST_END["title"]]
    assert (node["anchor"]["start_line"], node["anchor"]["end_line"]) == (19, 19)
    assert PAST_END["title"] not in json.dumps(report["discarded"])


def test_each_finding_not_recorded_is_listed_with_title_place_and_reason(runs):
    out = runs["text"].stdout
    assert runs["text"].returncode == 0, runs["text"].stderr
    assert "2 finding(s) not recorded" in out
    refused = next(line for line in out.splitlines() if NOT_THERE["title"] in line)
    assert "calc.py line 5" in refused
    assert "the quote does not match" in refused
    bad = next(line for line in out.splitlines() if BAD["title"] in line)
    assert "calc.py line 19" in bad
    assert "priority" in bad
    assert "read boundary" not in out


def test_malformed_is_said_only_of_the_malformed_one(runs):
    out = runs["text"].stdout
    refused = next(line for line in out.splitlines() if NOT_THERE["title"] in line)
    bad = next(line for line in out.splitlines() if BAD["title"] in line)
    assert "malformed" not in refused
    assert "malformed" in bad
