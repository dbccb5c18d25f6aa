"""The comment workflow's `if:` and the command grammar agree: no command is filtered out.

The `if:` is the cheap first filter that keeps the job from starting for every comment;
`reviewbot.commands.grammar` decides what is a command. Every comment the grammar reads as a
command (a known one or an `Unknown` `/word`, which is answered) must pass the filter, and
the filter must stay cheap: a comment that does not start with `/` never starts the job.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from reviewbot.commands.grammar import Place, Written, parse
from tests.fakes.expressions import evaluate

ROOT = Path(__file__).resolve().parents[2]
HERE = Written(place=Place.PR_COMMENT, author="alice", comment_id=7)


def comment_filters() -> list[tuple[str, str]]:
    """Every job `if:` of the repository's and the examples' workflows that reads a comment."""
    found = []
    for path in sorted(
        [*ROOT.glob(".github/workflows/*.yml"), *ROOT.glob("examples/workflows/*.yml")]
    ):
        workflow = yaml.safe_load(path.read_text(encoding="utf-8"))
        for name, job in workflow["jobs"].items():
            condition = str(job.get("if", ""))
            if "comment.body" in condition:
                found.append((f"{path.relative_to(ROOT)}:{name}", condition))
    return found


FILTERS = comment_filters()


def passes(condition: str, body: str) -> bool:
    """Whether an `issue_comment` on a PR, by a person, with `body` starts the job."""
    event: dict[str, Any] = {
        "issue": {"number": 7, "pull_request": {"url": "https://api.github.com/x/pulls/7"}},
        "comment": {"body": body, "user": {"login": "alice", "type": "User"}},
    }
    value = evaluate(condition.removeprefix("${{").removesuffix("}}"), {"github": {"event": event}})
    return value not in (None, False, 0, "")


BODIES = [
    # (body, whether reviewbot answers it)
    ("/review", True),
    ("/review full", True),
    ("/Ask why?\nmore", True),
    ("/help\r\n", True),
    ("/lgtm", True),  # an unknown /word is answered with the known ones
    ("\n/review", False),
    ("\r\n/review", False),
    ("  /review", False),
    ("\t/ask why", False),
    ("LGTM", False),
    ("please /review", False),
    ("thanks\n/review", False),
    ("", False),
]


# Blanks, maybe a `/`, a word (ours, another, a path), then anything: comments near the rule.
COMMENTS = st.tuples(
    st.text(alphabet=" \t\r\n\u00a0", max_size=3),
    st.sampled_from(["/", ""]),
    st.sampled_from(["review", "Ask", "lgtm", "usr/bin", "9", ""]),
    st.text(alphabet=" \t\r\n/ab", max_size=4),
).map("".join)


def test_the_comment_workflow_is_found():
    assert [where for where, _ in FILTERS] == ["examples/workflows/reviewbot-comment.yml:review"]


@pytest.mark.parametrize(("where", "condition"), FILTERS, ids=[w for w, _ in FILTERS])
class TestFilterAndGrammarAgree:
    @pytest.mark.parametrize(("body", "answered"), BODIES)
    def test_on_the_table(self, where, condition, body, answered):
        """What the grammar answers, the filter lets through; what it ignores, the filter
        (at the first character) does too."""
        assert (parse(body, HERE) is not None) is answered
        if answered:
            assert passes(condition, body), where
        if not body.startswith("/"):
            assert not passes(condition, body), where

    @given(COMMENTS)
    def test_no_command_is_filtered_out(self, where, condition, body):
        if parse(body, HERE) is not None:
            assert passes(condition, body), (where, body)


class TestTheEvaluator:
    """The expression subset evaluated as GitHub documents it."""

    @pytest.mark.parametrize(
        ("expression", "value"),
        [
            ("startsWith('Review', 'r')", True),  # strings compare ignoring case
            ("'it''s' == 'IT''S'", True),  # '' is a quote; no backslash escapes
            ("startsWith(github.body, '\\n')", False),  # '\n' is two characters, not a newline
            ("startsWith(toJSON(github.body), '\"\\n')", True),  # toJSON shows it escaped
            ("github.none || 'x'", "x"),  # || and && return an operand
            ("!github.none && github.body != 'Bot'", True),
        ],
    )
    def test_values(self, expression, value):
        assert evaluate(expression, {"github": {"body": "\n/review"}}) == value
