"""The two-bug PR the incremental, scope, proposal and thread tests review.

The head's `app.py` leaks a file handle on line 2 (`LEAK`, a finding the reviewer records) and
its `util.py` divides by zero on line 2 (`ZERO`); the base has neither. `found_both` is a
review that records both.
"""

from __future__ import annotations

from tests.fakes.messages_api import Scripted, reply, text, tool_use

APP = "def load(path):\n    return open(path).read()\n\n\ndef size(path):\n    return len(load(path))\n"
UTIL = "def ratio(a, b):\n    return a / b\n"
BASE = {"app.py": "def load(path):\n    return ''\n", "util.py": "def ratio(a, b):\n    return 0\n"}
HEAD = {"app.py": APP, "util.py": UTIL}
LEAK = {
    "kind": "bug",
    "priority": "P2",
    "confidence": 0.8,
    "title": "File handle never closed",
    "body": "`open(path).read()` leaks the handle; use `with open(path)`.",
    "anchor": {
        "path": "app.py",
        "start_line": 2,
        "end_line": 2,
        "quote": "    return open(path).read()",
    },
}
ZERO = {
    "kind": "bug",
    "priority": "P2",
    "confidence": 0.9,
    "title": "Division by zero when b is 0",
    "body": "`ratio(1, 0)` raises ZeroDivisionError.",
    "anchor": {"path": "util.py", "start_line": 2, "end_line": 2, "quote": "    return a / b"},
}


def found_both() -> list[Scripted]:
    """The reviewer records LEAK and ZERO, then ends its turn."""
    return [
        reply(tool_use("add_review_node", LEAK), tool_use("add_review_node", ZERO)),
        reply(text("Two bugs.")),
    ]
