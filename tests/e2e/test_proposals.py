"""`/plan` and `/split`, end to end: the real CLI on GitHub's real `issue_comment` payloads,
against the loopback GitHub and Messages API fakes.

- plan: a review posts two findings. A maintainer's `/plan`: the plan agent's first plan has
  a cycle and is refused with the cycle named; its second is posted as one comment, steps in
  dependency order naming the findings they fix, and written to the JSON report. The same
  event delivered again posts nothing and asks no model. A stranger's `/plan`: one line, no
  model request. A second `/plan` whose agent ends without `submit_plan`: reminded once, then
  one line saying no plan was made.
- nothing: `/plan` on a PR without open findings: "no plan needed", no model request.
- split: with `[split] min_files = 2` on the base branch, a maintainer's `/split` posts the
  proposed stack (merge order, each part's files); nothing is pushed or created (no write but
  the one comment). A stranger's: one line. On a small PR (the default 30) one line, no model.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from reviewbot.nodes.fingerprint import fingerprint
from reviewbot.nodes.model import Finding
from reviewbot.publish.proposal_text import NO_PLAN_NEEDED
from tests.e2e.harness import World, pull_request_event
from tests.fakes.messages_api import reply, text, tool_use
from tests.fakes.talk import ARGS, Said, comment, said
from tests.fakes.two_bugs import BASE, ZERO

HEAD = {
    "app.py": "def load(path):\n    return open(path).read()\n",
    "util.py": "def ratio(a, b):\n    return a / b\n",
}
LEAK = {
    "kind": "bug",
    "priority": "P2",
    "confidence": 0.8,
    "title": "File handle never closed",
    "body": "`open(path).read()` leaks the handle.",
    "anchor": {
        "path": "app.py",
        "start_line": 2,
        "end_line": 2,
        "quote": "    return open(path).read()",
    },
}
LEAK_ID, ZERO_ID = (fingerprint(Finding.model_validate(f)) for f in (LEAK, ZERO))
WRITERS = {"maintainer": "write", "stranger": "read"}


def step(key: str, title: str, *, depends_on=(), fixes=()) -> dict:
    return {
        "key": key,
        "title": title,
        "description": f"{title}, then run the tests.",
        "depends_on": list(depends_on),
        "fixes": list(fixes),
    }


CYCLIC = [
    step("guard", "Guard the division", depends_on=["close"], fixes=[ZERO_ID]),
    step("close", "Close the handle", depends_on=["guard"], fixes=[LEAK_ID]),
]
FIXED = [
    step("guard", "Guard the division", depends_on=["close"], fixes=[ZERO_ID]),
    step("close", "Close the handle", fixes=[LEAK_ID]),
]
PLAN_SCRIPT = [
    # the review: two findings (P2: no verifier)
    reply(tool_use("add_review_node", LEAK), tool_use("add_review_node", ZERO)),
    reply(text("Two bugs.")),
    # /plan by the maintainer: a cycle, refused; then the fixed plan
    reply(tool_use("submit_plan", {"goal": "Make both helpers safe.", "nodes": CYCLIC})),
    reply(tool_use("submit_plan", {"goal": "Make both helpers safe.", "nodes": FIXED})),
    # the second /plan: no submit_plan, reminded once, still none
    reply(text("These look fine to me.")),
    reply(text("I would rather not plan.")),
]


@dataclass(frozen=True, slots=True, kw_only=True)
class Plans:
    world: World
    by_writer: Said
    again: Said
    by_stranger: Said
    undelivered: Said


@pytest.fixture(scope="module")
def plans(worlds) -> Plans:
    world = worlds("plan", base=BASE, head=HEAD, script=PLAN_SCRIPT, permissions=WRITERS)
    review = world.run(ARGS, event_name="pull_request", event=pull_request_event(world))
    assert review.returncode == 0, review.stderr
    event = comment(world, "maintainer", "/plan")
    by_writer = said(world, "issue_comment", event)
    again = said(world, "issue_comment", event)  # the same delivery, again
    by_stranger = said(world, "issue_comment", comment(world, "stranger", "/plan"))
    undelivered = said(world, "issue_comment", comment(world, "maintainer", "/plan please"))
    return Plans(
        world=world,
        by_writer=by_writer,
        again=again,
        by_stranger=by_stranger,
        undelivered=undelivered,
    )


def tool_results(run) -> list[str]:
    """The tool_result texts the agent got, over the run's requests."""
    return [
        block["content"]
        for request in run.model
        for message in request["messages"]
        if isinstance(message["content"], list)
        for block in message["content"]
        if block.get("type") == "tool_result"
    ]


class TestPlan:
    def test_a_cyclic_plan_is_refused_then_fixed_by_the_agent(self, plans):
        """The cycle is named in the tool result the agent acted on."""
        results = tool_results(plans.by_writer.run)
        assert any(
            "the nodes' dependencies form a cycle: guard → close → guard" in r for r in results
        )

    def test_the_plan_is_one_comment_in_dependency_order(self, plans):
        """Close the handle first (guard depends on it); each step names what it fixes."""
        (body,) = plans.by_writer.posted
        close, guard = (
            body.index("1. **Close the handle**"),
            body.index("2. **Guard the division**"),
        )
        assert close < guard
        assert "2. **Guard the division** — after 1" in body
        assert f"fixes `{LEAK_ID}` (P2) File handle never closed at `app.py`" in body
        assert f"fixes `{ZERO_ID}` (P2) Division by zero when b is 0 at `util.py`" in body
        assert "plan mode: read-only" in body

    def test_the_plan_is_in_the_json_report(self, plans):
        plan = plans.by_writer.run.report()["plan"]
        assert [s["key"] for s in plan["steps"]] == ["close", "guard"]
        assert plan["steps"][1]["depends_on"] == ["close"]
        assert plan["unplanned"] == []

    def test_the_plan_agent_offers_no_review_verb(self, plans):
        """Plan mode: read tools, submit_plan and ask_user; nothing that reviews or writes."""
        names = {tool["name"] for tool in plans.by_writer.run.model[0]["tools"]}
        assert "submit_plan" in names
        assert names & {"add_review_node", "finalize_review", "write_file", "bash"} == set()

    def test_a_redelivered_plan_command_posts_nothing_twice(self, plans):
        assert plans.again.posted == []
        assert plans.again.run.model == ()
        assert "answered already" in plans.again.run.stderr

    def test_a_stranger_gets_one_line_and_no_model_request(self, plans):
        (body,) = plans.by_stranger.posted
        assert body.startswith("`/plan` is for people with write access; nothing was run.")
        assert plans.by_stranger.run.model == ()

    def test_a_run_without_submit_plan_is_reminded_once(self, plans):
        """Two requests: the first turn, then the reminder; then one line, no plan."""
        run = plans.undelivered.run
        assert len(run.model) == 2
        [reminder] = run.model[1]["messages"][-1]["content"]  # a breakpoint makes it a block
        assert reminder["text"].startswith("Your run counts as delivered only once `submit_plan`")
        (body,) = plans.undelivered.posted
        assert body.startswith(
            "reviewbot could not make a fix plan: the agent ended without one (end_turn)."
        )
        assert run.outputs["report-path"] == ""  # no plan: nothing for the report to carry


@pytest.fixture(scope="module")
def nothing(worlds) -> Said:
    world = worlds("nothing", base=BASE, head=HEAD, permissions=WRITERS)
    return said(world, "issue_comment", comment(world, "maintainer", "/plan"))


class TestNoPlanNeeded:
    def test_no_open_findings_no_plan_no_model(self, nothing):
        (body,) = nothing.posted
        assert body.startswith(NO_PLAN_NEEDED)
        assert nothing.run.model == ()


SPLIT_BASE = {**BASE, ".reviewbot.toml": "[split]\nmin_files = 2\n"}
PARTS = [
    {"key": "guard", "title": "Guard ratio", "files": ["util.py"], "depends_on": ["load"]},
    {"key": "load", "title": "Read files in load", "files": ["app.py"]},
]


@dataclass(frozen=True, slots=True, kw_only=True)
class Splits:
    by_writer: Said
    by_stranger: Said
    small: Said


@pytest.fixture(scope="module")
def splits(worlds) -> Splits:
    script = [reply(tool_use("propose_orchestration", {"summary": "Two steps.", "parts": PARTS}))]
    world = worlds("split", base=SPLIT_BASE, head=HEAD, script=script, permissions=WRITERS)
    small = worlds("small", base=BASE, head=HEAD, permissions=WRITERS)
    return Splits(
        by_writer=said(world, "issue_comment", comment(world, "maintainer", "/split")),
        by_stranger=said(world, "issue_comment", comment(world, "stranger", "/split")),
        small=said(small, "issue_comment", comment(small, "maintainer", "/split")),
    )


class TestSplit:
    def test_the_stack_is_posted_in_merge_order_and_nothing_else_is_written(self, splits):
        run = splits.by_writer.run
        (body,) = splits.by_writer.posted
        assert body.startswith("**reviewbot's proposed split** (nothing was pushed or created)")
        assert body.index("1. **Read files in load** (1 file)") < body.index(
            "2. **Guard ratio** (1 file) — after 1"
        )
        assert [w.method for w in run.writes()] == ["POST"]  # the one comment
        assert [p["key"] for p in run.report()["split"]["parts"]] == ["load", "guard"]

    def test_the_orchestrate_agent_is_read_only(self, splits):
        names = {tool["name"] for tool in splits.by_writer.run.model[0]["tools"]}
        assert "propose_orchestration" in names
        assert names & {"write_file", "bash", "git_push", "create_pull_request"} == set()

    def test_a_stranger_gets_one_line(self, splits):
        (body,) = splits.by_stranger.posted
        assert body.startswith("`/split` is for people with write access; nothing was run.")
        assert splits.by_stranger.run.model == ()

    def test_a_small_pr_is_refused_with_one_line_and_no_model(self, splits):
        (body,) = splits.small.posted
        assert body.startswith(
            "`/split` is for large pull requests: this one changes 2 file(s), fewer than "
            "`[split] min_files` (30); nothing was run."
        )
        assert splits.small.run.model == ()
