"""The PR a test world reviews when a test gives none, and what its reviewer says about it.

`app.py` gains an `eval` of user input on line 3 of the head: `finding()` is the P0 a
reviewer records there, `block_script()` the whole review that blocks on it (the
reviewer records it and finalizes, the verifier confirms it), `clean()` a review that finds
nothing. `HEAD_UTIL` is a second
changed file with a lesser problem on its line 2 (`UTIL_QUOTE`).
"""

from __future__ import annotations

from typing import Any

from tests.fakes.messages_api import Scripted, reply, text, tool_use

BASE_APP = "def handler(value):\n    return value\n\n\ndef other():\n    return 1\n"
HEAD_APP = (
    "def handler(value):\n"
    "    checked = validate(value)\n"
    "    return eval(checked)\n"
    "\n"
    "\n"
    "def other():\n"
    "    return 2\n"
)
HEAD_UTIL = "def util(items):\n    return items[0]\n"
UTIL_QUOTE = "    return items[0]"


def finding(
    path: str = "app.py",
    line: int = 3,
    quote: str = "    return eval(checked)",
    *,
    priority: str = "P0",
    title: str = "eval on user input",
    kind: str = "bug",
) -> dict[str, Any]:
    """An `add_review_node` input anchored on one line of the PR head."""
    return {
        "kind": kind,
        "priority": priority,
        "confidence": 0.95,
        "title": title,
        "body": "Remote code execution: the value comes from the request.",
        "anchor": {"path": path, "start_line": line, "end_line": line, "quote": quote},
    }


def block_script() -> list[Scripted]:
    """Reviewer: one P0 and finalize; verifier: confirms it."""
    return [
        reply(tool_use("add_review_node", finding())),
        reply(tool_use("finalize_review", {"summary": "One P0.", "verdict": "block"})),
        reply(tool_use("confirm_review_node", {"id": "review-1", "reason": "eval of input"})),
    ]


def clean() -> list[Scripted]:
    """A review that finds nothing."""
    return [reply(text("Nothing to report."))]
