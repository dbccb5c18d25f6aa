"""Anchors end to end: a binary file, and a finding on a line the PR deletes.

A binary file has no lines: an anchor on it is refused with a message that says so
and how to report it, never "read it first" (read_file shows no lines of it, so that
advice sends the model round in circles). A finding about deleted code is posted on
the base side (`side: LEFT`) on the deleted line, never moved by its quote to a
same-text line of the head far away (encode/httpx#58: 343 lines away).
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.fakes.messages_api import reply, tool_use
from tests.fakes.runs import Run
from tests.fakes.webhooks import pull_request_event
from tests.fakes.world import REPO, World

ARGS = ["review", "--github-event", "--post"]


def _tool_results(run: Run) -> list[str]:
    """The text of every tool_result the model was sent, in order, without duplicates."""
    seen: list[str] = []
    for body in run.model:
        for message in body["messages"]:
            if message["role"] != "user" or not isinstance(message["content"], list):
                continue
            for block in message["content"]:
                if block.get("type") != "tool_result":
                    continue
                content = block["content"]
                value = content if isinstance(content, str) else content[0]["text"]
                if value not in seen:
                    seen.append(value)
    return seen


def _posted_reviews(world: World) -> list[dict[str, Any]]:
    return world.github.repo(REPO).reviews.get(world.pull.number, [])


def _posted_comments(world: World) -> list[dict[str, Any]]:
    return world.github.repo(REPO).review_comments.get(world.pull.number, [])


# ---------------------------------------------------------------- a binary file

LOGO = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256))
BINARY_NODE = {
    "kind": "question",
    "priority": "P2",
    "confidence": 0.5,
    "title": "Is the new logo meant to be committed?",
    "body": "`assets/logo.png` is a new binary.",
    "anchor": {"path": "assets/logo.png", "start_line": 1, "end_line": 1, "quote": "PNG"},
}


@pytest.fixture(scope="module")
def binary_run(worlds) -> tuple[World, Run]:
    """The model reads a binary file, anchors on it, is refused, and sends the node unanchored."""
    unanchored = {k: v for k, v in BINARY_NODE.items() if k != "anchor"}
    world = worlds(
        "binary",
        base={"app.py": "x = 1\n"},
        head={"app.py": "x = 2\n", "assets/logo.png": LOGO},  # type: ignore[dict-item]
        script=[
            reply(tool_use("read_file", {"path": "assets/logo.png"})),
            reply(tool_use("add_review_node", BINARY_NODE)),
            reply(tool_use("add_review_node", unanchored)),
            reply(tool_use("finalize_review", {"summary": "A question.", "verdict": "hold"})),
        ],
    )
    run = world.run(ARGS, event_name="pull_request", event=pull_request_event(world))
    return world, run


class TestBinaryAnchor:
    def test_the_model_is_told_a_binary_file_cannot_carry_an_anchor(self, binary_run):
        """The refusal says why and how to report it; it never says to read the file first."""
        _, run = binary_run
        assert run.returncode == 0, run.stderr
        results = _tool_results(run)
        assert results[0].startswith('"assets/logo.png" is a binary file (')
        assert results[1] == (
            '"assets/logo.png" is a binary file: it has no lines, so it cannot carry an anchor. '
            'Send the node without an anchor and name "assets/logo.png" in its title or body'
        )
        assert not any("read it with read_file first" in r for r in results)

    def test_the_unanchored_node_is_published_in_the_review_body(self, binary_run):
        """The retry without an anchor lands in the one review's body, not inline."""
        world, run = binary_run
        [review] = _posted_reviews(world)
        assert "Is the new logo meant to be committed?" in review["body"]
        assert _posted_comments(world) == []
        assert [n["anchor"] for n in run.report()["nodes"]] == [None]


# ---------------------------------------------------------------- a deleted line

FILLER = "".join(f"SETTING_{n} = {n}\n" for n in range(1, 340))
CLIENT_BASE = "import httpx\n\n\nclass Client:\n    timeout = 5\n\n\n" + FILLER
# The old class goes; a new one with the same first line appears ~340 lines further down.
CLIENT_HEAD = "import httpx\n\n\n" + FILLER + "\n\nclass Client:\n    timeout = 10\n"
NEW_CLASS_LINE = CLIENT_HEAD.splitlines().index("class Client:") + 1


def _deleted_node(**anchor: Any) -> dict[str, Any]:
    return {
        "kind": "question",
        "priority": "P2",
        "confidence": 0.7,
        "title": "Why is the old Client removed?",
        "body": "Callers still import it.",
        "anchor": {"path": "client.py", "quote": "class Client:", **anchor},
    }


@pytest.fixture(scope="module")
def deleted_run(worlds) -> tuple[World, Run]:
    """The model names the deleted line without a side and wrong numbers, then with side LEFT."""
    world = worlds(
        "deleted",
        base={"client.py": CLIENT_BASE},
        head={"client.py": CLIENT_HEAD},
        script=[
            reply(tool_use("add_review_node", _deleted_node(start_line=5, end_line=5))),
            reply(
                tool_use("add_review_node", _deleted_node(start_line=4, end_line=4, side="LEFT"))
            ),
            reply(tool_use("finalize_review", {"summary": "A question.", "verdict": "hold"})),
        ],
    )
    run = world.run(ARGS, event_name="pull_request", event=pull_request_event(world))
    return world, run


class TestDeletedLine:
    def test_the_fixture_has_the_same_text_far_away(self):
        """The head's new `class Client:` is more than 300 lines from the deleted one."""
        assert NEW_CLASS_LINE - 4 > 300

    def test_the_patch_numbers_deleted_lines_with_their_base_number(self, deleted_run):
        """The model reads `4 - class Client:`: the number a LEFT anchor names."""
        _, run = deleted_run
        first = json.dumps(run.model[0]["messages"][0])
        assert "   4 - class Client:" in first

    def test_a_same_text_line_far_away_is_not_chosen(self, deleted_run):
        """The first anchor is refused, naming the far occurrence and the LEFT way to anchor."""
        _, run = deleted_run
        assert run.returncode == 0, run.stderr
        refusal = _tool_results(run)[0]
        assert refusal.startswith('the quote does not match lines 5–5 of "client.py"')
        assert f"found only at line(s) {NEW_CLASS_LINE}, more than 20 lines" in refusal
        assert '"side": "LEFT"' in refusal

    def test_the_finding_is_posted_on_the_deleted_line_on_the_left(self, deleted_run):
        """One inline comment, side LEFT, on base line 4; nothing on the new class far away."""
        world, run = deleted_run
        [post] = run.calls("POST", f"/pulls/{world.pull.number}/reviews")
        assert post.status == 200
        [comment] = post.json()["comments"]
        assert (comment["path"], comment["line"], comment["side"]) == ("client.py", 4, "LEFT")
        assert "start_line" not in comment
        [stored] = _posted_comments(world)
        assert (stored["line"], stored["side"]) == (4, "LEFT")
        assert all(c["line"] != NEW_CLASS_LINE for c in _posted_comments(world))

    def test_the_report_and_the_read_back_keep_the_side(self, deleted_run):
        """The JSON report's node is on the LEFT side and the read-back found it where planned."""
        _, run = deleted_run
        report = run.report()
        [node] = report["nodes"]
        assert (node["anchor"]["side"], node["anchor"]["start_line"]) == ("LEFT", 4)
        [landed] = report["published"]["comments"]
        assert landed["landed"] is True
