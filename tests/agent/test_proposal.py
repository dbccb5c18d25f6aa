"""The proposing agents of `/plan` and `/split`, through the real client against the fake
Messages API: their surface, the boundary's refusals the agent acts on, the reminder once."""

from __future__ import annotations

import json

from reviewbot.agent.progress import SilentProgress
from reviewbot.agent.proposal import REMINDER, Proposer
from reviewbot.config.file import ReviewConfig
from reviewbot.redact import Redactor
from reviewbot.results.run import StopReason
from reviewbot.tools.ask_user import NoOperator
from tests.agent.factories import client_for, file_diff, index, snapshot
from tests.fakes.messages_api import reply, text, tool_use
from tests.nodes.factories import make_node

PATCH = "@@ -1,1 +1,2 @@\n x = 1\n+y = 2\n"
FINDINGS = (
    make_node(id="0123456789abcdef", title="Unchecked input", path="a.py", line=1),
    make_node(id="fedcba9876543210", title="Leaked handle", path="b.py", line=1),
)


def _proposer(fake) -> Proposer:
    return Proposer(
        config=ReviewConfig(),
        client=client_for(fake),
        operator=NoOperator(),
        redactor=Redactor(),
        progress=SilentProgress(),
    )


def _snapshot(tmp_path, *paths: str):
    for path in paths:
        (tmp_path / path).write_text("x = 1\ny = 2\n", encoding="utf-8")
    return snapshot(tmp_path, index(*(file_diff(p, PATCH) for p in paths)))


def _step(key, *, depends_on=(), fixes=()):
    return {
        "key": key,
        "title": f"Step {key}",
        "description": f"Do {key}.",
        "depends_on": list(depends_on),
        "fixes": list(fixes),
    }


def _names(request) -> list[str]:
    return [tool["name"] for tool in request["tools"]]


def _last_text(request) -> str:
    content = request["messages"][-1]["content"]
    if isinstance(content, str):
        return content
    return "\n".join(b.get("content") or b.get("text") or "" for b in content)


class TestPlan:
    def test_a_cyclic_plan_is_refused_then_fixed_by_the_agent(self, messages_api, tmp_path):
        """The cycle is named in the tool result; the agent's second plan is recorded."""
        cyclic = [_step("a", depends_on=["b"]), _step("b", depends_on=["a"])]
        fixed = [_step("a", fixes=[FINDINGS[0].id]), _step("b", depends_on=["a"])]
        fake = messages_api(
            reply(tool_use("submit_plan", {"goal": "Fix both", "nodes": cyclic})),
            reply(tool_use("submit_plan", {"goal": "Fix both", "nodes": fixed})),
        )
        run = _proposer(fake).plan(_snapshot(tmp_path, "a.py", "b.py"), FINDINGS)
        assert run.agent.stop_reason is StopReason.FINALIZED
        assert "the nodes' dependencies form a cycle: a → b → a" in _last_text(fake.requests[1])
        assert [s.key for s in run.plan.steps] == ["a", "b"]
        assert run.plan.unplanned == (FINDINGS[1].id,)

    def test_the_plan_agent_has_read_tools_and_submit_plan_only(self, messages_api, tmp_path):
        """Plan mode's surface: no review verb, nothing that writes; the findings in its brief."""
        plan = [_step("a", fixes=[FINDINGS[0].id])]
        fake = messages_api(reply(tool_use("submit_plan", {"goal": "g", "nodes": plan})))
        _proposer(fake).plan(_snapshot(tmp_path, "a.py"), FINDINGS)
        names = _names(fake.requests[0])
        assert "submit_plan" in names
        assert {"add_review_node", "finalize_review", "write_file", "bash"} & set(names) == set()
        brief = fake.requests[0]["messages"][0]["content"][1]["text"]
        assert FINDINGS[0].id in brief
        assert FINDINGS[1].id in brief

    def test_a_run_without_submit_plan_is_reminded_once(self, messages_api, tmp_path):
        """Ending the turn without the verb: one reminder; ending again ends the run, no plan."""
        fake = messages_api(reply(text("I think it is fine.")), reply(text("Still fine.")))
        run = _proposer(fake).plan(_snapshot(tmp_path, "a.py"), FINDINGS)
        assert len(fake.requests) == 2
        assert _last_text(fake.requests[1]) == REMINDER.format(verb="submit_plan")
        assert run.agent.stop_reason is StopReason.END_TURN
        assert not run.delivered

    def test_the_reminder_is_heeded(self, messages_api, tmp_path):
        """After the reminder the agent delivers: the plan is recorded."""
        plan = [_step("a", fixes=[FINDINGS[0].id])]
        fake = messages_api(
            reply(text("Done thinking.")),
            reply(tool_use("submit_plan", {"goal": "g", "nodes": plan})),
        )
        run = _proposer(fake).plan(_snapshot(tmp_path, "a.py"), FINDINGS)
        assert run.delivered
        assert run.plan.steps[0].fixes == (FINDINGS[0].id,)

    def test_no_credentials_no_request(self, tmp_path):
        """Without a model client nothing is asked and nothing is delivered."""
        proposer = Proposer(
            config=ReviewConfig(),
            client=None,
            operator=NoOperator(),
            redactor=Redactor(),
            progress=SilentProgress(),
        )
        run = proposer.plan(_snapshot(tmp_path, "a.py"), FINDINGS)
        assert run.agent.stop_reason is StopReason.NO_CREDENTIALS
        assert not run.delivered


class TestSplit:
    def test_a_split_is_proposed_through_the_orchestrate_verb(self, messages_api, tmp_path):
        """Orchestrate mode: read-only, `propose_orchestration` its verb; parts in merge order."""
        parts = [
            {"key": "use", "title": "Use it", "files": ["b.py"], "depends_on": ["lib"]},
            {"key": "lib", "title": "The library", "files": ["a.py"]},
        ]
        fake = messages_api(
            reply(tool_use("propose_orchestration", {"summary": "Library first", "parts": parts}))
        )
        run = _proposer(fake).split(_snapshot(tmp_path, "a.py", "b.py"))
        names = _names(fake.requests[0])
        assert "propose_orchestration" in names
        assert {"write_file", "bash", "git_push", "create_pull_request"} & set(names) == set()
        assert [p.key for p in run.split.parts] == ["lib", "use"]
        assert json.dumps(fake.requests[0]).count('\\"a.py\\"') >= 1
