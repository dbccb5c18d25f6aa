"""One finding, several reviewers: it counts for the axis of every reviewer that raised it.

The base config lists focused reviewers after the general `review`; the scripted model
makes two of them record the very same finding (same fingerprint). The node is posted
once, and a gated reviewer's raise gates the verdict whoever raised the finding first.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.fakes.messages_api import reply, text, tool_use
from tests.fakes.scenario import BASE_APP, finding
from tests.fakes.world import REPO, World

# One agent at a time: the script answers them in config order (the reviewers have no brief
# a script per agent could tell them apart by). The outcome is the same in parallel.
SEQUENTIAL = "[budget]\nmax_parallel_agents = 1\n\n"
STYLE_THEN_SECURITY = (
    SEQUENTIAL
    + """\
[[reviewers]]
name = "style"
gated = false

[[reviewers]]
name = "security"
gated = true
"""
)
SECURITY_THEN_STYLE = (
    SEQUENTIAL
    + """\
[[reviewers]]
name = "security"
gated = true

[[reviewers]]
name = "style"
gated = false
"""
)


def _script(first: str) -> list[Any]:
    """`review` finds nothing; the 2nd and 3rd reviewers raise the same P0; the verifier confirms."""
    return [
        reply(text("Nothing for the general review.")),
        reply(tool_use("add_review_node", finding())),
        reply(text("Recorded.")),
        reply(tool_use("add_review_node", finding())),
        reply(text("Recorded too.")),
        reply(tool_use("confirm_review_node", {"id": f"{first}-1", "reason": "eval of input"})),
    ]


def _required(world: World) -> str:
    assert world.pull is not None
    return world.github.required_check(REPO, world.pull.head_sha, "reviewbot")


class TestGatedRaiser:
    """A gated reviewer's finding gates, whichever reviewer recorded it first."""

    @pytest.mark.parametrize(
        ("config", "first", "second"),
        [
            (STYLE_THEN_SECURITY, "style", "security"),
            (SECURITY_THEN_STYLE, "security", "style"),
        ],
        ids=["ungated-first", "gated-first"],
    )
    def test_confirmed_p0_raised_by_a_gated_reviewer_blocks(
        self, world: World, config: str, first: str, second: str
    ) -> None:
        """A confirmed P0 raised by `security` (gated) and `style` (not) Blocks, posted once."""
        world.build(base={"app.py": BASE_APP, ".reviewbot.toml": config})
        world.seed()
        world.serve(*_script(first))
        run = world.review("--post")
        assert run.exit_code == 0, run.stderr
        assert run.verdict == "block"
        assert run.axis("security")["outcome"] == "failed"
        assert run.axis("style")["outcome"] == "failed"  # reported, never folded
        (node,) = run.report["nodes"] if run.report else []
        assert (node["id"], node["author"], node["also_raised_by"]) == (
            f"{first}-1",
            first,
            [second],
        )
        assert (node["status"], node["confirmed_by"]) == ("consensusReady", ["verifier"])
        # Each reviewer records into its own list while it runs; the lists are merged in
        # config order, so the node keeps the first reviewer's id whoever finished first.
        added = [r["content"] for r in world.tool_results() if r["content"].startswith("added ")]
        assert [a.split(" (")[0] for a in added] == [f"added {first}-1", f"added {second}-1"]
        # One node, one inline comment; a required `reviewbot` check keeps the PR unmergeable.
        assert [(c["path"], c["line"]) for c in world.inline_comments()] == [("app.py", 3)]
        assert _required(world) == "failing"
        assert world.check_runs()[0]["output"]["title"].startswith(
            "⛔ Block: gated axis `security` failed"
        )

    def test_only_ungated_raisers_do_not_gate(self, world: World) -> None:
        """The rule's other side: a P0 only the non-gated `style` raised is reported, not folded."""
        config = SEQUENTIAL + '[[reviewers]]\nname = "style"\ngated = false\n'
        world.build(base={"app.py": BASE_APP, ".reviewbot.toml": config})
        world.seed()
        world.serve(
            reply(text("Nothing for the general review.")),
            reply(tool_use("add_review_node", finding())),
            reply(text("Recorded.")),
            reply(tool_use("confirm_review_node", {"id": "style-1", "reason": "eval of input"})),
        )
        run = world.review("--post")
        assert run.verdict == "ship"
        assert run.axis("style")["outcome"] == "failed"
        assert run.report is not None
        assert run.report["nodes"][0]["also_raised_by"] == []

    def test_the_stricter_assessment_counts(self, world: World) -> None:
        """`style` rates it P2, `security` raises the same finding as P0: the node is a P0 and Blocks."""
        world.build(base={"app.py": BASE_APP, ".reviewbot.toml": STYLE_THEN_SECURITY})
        world.seed()
        script = _script("style")
        script[1] = reply(tool_use("add_review_node", finding(priority="P2")))
        world.serve(*script)
        run = world.review("--post")
        assert run.verdict == "block"
        assert run.report is not None
        (node,) = run.report["nodes"]
        assert (node["priority"], node["also_raised_by"]) == ("P0", ["security"])
