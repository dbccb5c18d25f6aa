"""What a person reads says finding, confirmed and open, and what to set where they are.

`reviewbot review --local` in a real repository: a P0 the verifier confirms (text and markdown),
and a run without ANTHROPIC_API_KEY. No code word (`node(s)`, `consensusReady`, `read boundary`,
"the secret the workflow passes") reaches the terminal; markers and JSON keep their format.
"""

from __future__ import annotations

import pytest

from tests.fakes.messages_api import reply, tool_use
from tests.fakes.runs import Run
from tests.fakes.world import World

BASE = {"run.py": "def run(command):\n    return command\n"}
HEAD = {"run.py": "def run(command):\n    return eval(command)\n"}
FINDING = {
    "kind": "bug",
    "priority": "P0",
    "confidence": 0.95,
    "title": "eval on input",
    "body": "Remote code execution.",
    "anchor": {
        "path": "run.py",
        "start_line": 2,
        "end_line": 2,
        "quote": "    return eval(command)",
    },
}
CODE_WORDS = ("node(s)", "consensusReady", "read boundary", "the secret the workflow passes")
LOCAL = ["review", "--local", "--base", "main"]


def _script() -> list:
    return [
        reply(tool_use("add_review_node", FINDING)),
        reply(tool_use("finalize_review", {"summary": "One bug.", "verdict": "block"})),
        reply(tool_use("confirm_review_node", {"id": "review-1", "reason": "eval runs input."})),
    ]


@pytest.fixture(scope="module")
def runs(worlds) -> dict[str, Run]:
    out = {}
    for fmt in ("text", "markdown"):
        world: World = worlds(f"words-{fmt}", base=BASE, head=HEAD, script=_script())
        out[fmt] = world.run(
            [*LOCAL, "--format", fmt], github=False, cwd=world.repo, extra_env={"COLUMNS": "120"}
        )
    world = worlds("words-nokey", base=BASE, head=HEAD)
    out["nokey"] = world.run(LOCAL, github=False, anthropic=False, cwd=world.repo)
    return out


@pytest.mark.parametrize("case", ["text", "markdown", "nokey"])
def test_no_code_word_reaches_the_person(runs, case):
    run = runs[case]
    assert run.returncode == 0, run.stderr
    for word in CODE_WORDS:
        assert word not in run.stdout, word
        assert word not in run.stderr, word


def test_a_confirmed_p0_is_said_so(runs):
    assert "1 finding(s), 1 confirmed by a peer" in runs["text"].stdout
    assert "(confirmed P0 with confidence ≥ 0.7 → fail)" in runs["markdown"].stdout


def test_without_a_key_the_terminal_is_told_what_to_set_there(runs):
    err = runs["nokey"].stderr
    assert "export ANTHROPIC_API_KEY=" in err
    assert "anthropic-api-key" not in err  # the Action's input, not the terminal's
