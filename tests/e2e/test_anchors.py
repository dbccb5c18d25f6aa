"""Anchors end to end: a binary file, and a finding on a line the PR deletes.

A binary file has no lines: an anchor on it is refused with a message that says so
and how to report it, never "read it first" (read_file shows no lines of it, so that
advice sends the model round in circles). A finding about deleted code is posted on
the base side (`side: LEFT`) on the deleted line, never moved by its quote to a
same-text line of the head far away (encode/httpx#58: 343 lines away).
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.e2e.harness import REPO, Run, World, pull_request_event
from tests.fakes.messages_api import reply, tool_use

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
        assert results[0].startswith("`assets/logo.png` is a binary file (")
        assert results[1] == (
            "`assets/logo.png` is a binary file: it has no lines, so it cannot carry an anchor. "
            "Send the node without an anchor and name `assets/logo.png` in its title or body"
        )
        assert not any("read it with read_file first" in r for r in results)

    def test_the_unanchored_node_is_published_in_the_review_body(self, binary_run):
        """The retry without an anchor lands in the one review's body, not inline."""
        world, run = binary_run
        [review] = _posted_reviews(world)
        assert "Is the new logo meant to be committed?" in review["body"]
        assert _posted_comments(world) == []
        assert [n["anchor"] for n in run.report()["nodes"]] == [None]
