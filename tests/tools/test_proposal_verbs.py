"""`submit_plan` and `propose_orchestration`: checked at the boundary, refused with a reason the
agent can act on, recorded in dependency order once valid."""

from __future__ import annotations

import pytest

from reviewbot.modes import Mode
from reviewbot.tools.context import ToolRetry
from reviewbot.tools.session import NodeStore
from reviewbot.tools.split_verbs import PartInput, check_files
from tests.nodes.factories import make_node
from tests.tools.factories import build_repo, make_session


@pytest.fixture
def repo(tmp_path):
    return build_repo(tmp_path)


def _store(*ids: str) -> NodeStore:
    store = NodeStore()
    for id in ids:
        store.add(make_node(id=id))
    return store


def _node(key: str, *, depends_on=(), fixes=()):
    return {
        "key": key,
        "title": f"Step {key}",
        "description": f"Do {key}.",
        "depends_on": list(depends_on),
        "fixes": list(fixes),
    }


class TestSubmitPlan:
    def _call(self, repo, nodes, findings=("review-1", "review-2")):
        session = make_session(repo, mode=Mode.PLAN, store=_store(*findings))
        return session, session.call("submit_plan", {"goal": "Fix it", "nodes": nodes})

    def test_steps_come_in_dependency_order_with_what_they_fix(self, repo):
        """`b` depends on `a`: `a` comes first whatever order the agent gave; unfixed findings
        are listed as unplanned."""
        nodes = [_node("b", depends_on=["a"], fixes=["review-2"]), _node("a")]
        session, result = self._call(repo, nodes, findings=("review-1", "review-2", "review-3"))
        assert (result.is_error, result.ends_run) == (False, True)
        plan = session.plan
        assert [step.key for step in plan.steps] == ["a", "b"]
        assert plan.steps[1].fixes == ("review-2",)
        assert plan.unplanned == ("review-1", "review-3")

    @pytest.mark.parametrize(
        ("nodes", "message"),
        [
            (
                [
                    _node("a", depends_on=["b"]),
                    _node("b", depends_on=["c"]),
                    _node("c", depends_on=["a"]),
                ],
                "the nodes' dependencies form a cycle: a → b → c → a; break it by removing "
                "one of these depends_on entries",
            ),
            ([_node("a"), _node("a")], "two nodes have the key 'a': give each node its own key"),
            (
                [_node("a", depends_on=["z"])],
                "node 'a' depends on 'z', which is not a node key (the keys are: a)",
            ),
            (
                [_node("a", depends_on=["a"])],
                "node 'a' depends on itself: remove it from its depends_on",
            ),
            (
                [_node("a", fixes=["review-9"])],
                "node 'a' fixes \"review-9\", which is not one of the findings given (their ids "
                "are: review-1, review-2)",
            ),
        ],
        ids=["cycle", "duplicate", "unknown-key", "self", "unknown-finding"],
    )
    def test_an_invalid_plan_is_refused_with_a_precise_error(self, repo, nodes, message):
        """The refusal is the tool result; the run goes on and no plan is recorded."""
        session, result = self._call(repo, nodes)
        assert (result.is_error, result.ends_run) == (True, False)
        assert result.content == message
        assert session.plan is None

    def test_a_refused_plan_can_be_sent_again_corrected(self, repo):
        """After a refusal the agent's corrected plan is recorded."""
        session = make_session(repo, mode=Mode.PLAN, store=_store("review-1"))
        cyclic = [_node("a", depends_on=["b"]), _node("b", depends_on=["a"])]
        assert session.call("submit_plan", {"goal": "g", "nodes": cyclic}).is_error
        fixed = [_node("a"), _node("b", depends_on=["a"], fixes=["review-1"])]
        assert not session.call("submit_plan", {"goal": "g", "nodes": fixed}).is_error
        assert [s.key for s in session.plan.steps] == ["a", "b"]

    def test_a_malformed_key_is_refused_by_the_guard(self, repo):
        """Keys are short lower-case words: anything else never reaches the handler."""
        _session, result = self._call(repo, [_node("Not A Key")])
        assert result.is_error
        assert result.content.startswith("invalid input for `submit_plan`")


APP = {"key": "a", "title": "A", "files": ["src/app.py"]}


class TestProposeOrchestration:
    def _call(self, repo, parts):
        session = make_session(repo, mode=Mode.ORCHESTRATE)
        return session, session.call(
            "propose_orchestration", {"summary": "Two steps", "parts": parts}
        )

    def test_parts_come_in_merge_order(self, repo):
        """The part others depend on merges first; nothing else is recorded."""
        parts = [
            {"key": "use", "title": "Use it", "files": ["src/app.py"], "depends_on": ["lib"]},
            {"key": "lib", "title": "Add util", "files": ["src/util.py"]},
        ]
        session, result = self._call(repo, parts)
        assert (result.is_error, result.ends_run) == (False, True)
        assert [p.key for p in session.split.parts] == ["lib", "use"]

    @pytest.mark.parametrize(
        ("parts", "message"),
        [
            (
                [APP, {"key": "b", "title": "B", "files": ["src/app.py", "src/util.py"]}],
                "\"src/app.py\" is in parts 'a' and 'b': put each file in exactly one part",
            ),
            (
                [APP, {"key": "b", "title": "B", "files": ["nope.py", "src/util.py"]}],
                "part 'b' lists \"nope.py\", which this PR does not change: list only the "
                "PR's changed files",
            ),
            (
                [APP, {"key": "b", "title": "B", "files": ["src/util.py"], "depends_on": ["b"]}],
                "part 'b' depends on itself: remove it from its depends_on",
            ),
            (
                [APP, {"key": "b", "title": "B", "files": ["README.md"]}],
                "part 'b' lists \"README.md\", which this PR does not change: list only the "
                "PR's changed files",
            ),
        ],
        ids=["twice", "unknown-file", "self", "unchanged-file"],
    )
    def test_an_invalid_split_is_refused_with_a_precise_error(self, repo, parts, message):
        session, result = self._call(repo, parts)
        assert (result.is_error, result.ends_run) == (True, False)
        assert result.content == message
        assert session.split is None

    def test_a_changed_file_in_no_part_is_refused(self):
        """Every changed file must be placed: a split that drops one is refused, naming it."""
        parts = [PartInput(key="a", title="A", files=["src/app.py"])]
        with pytest.raises(ToolRetry) as refused:
            check_files(parts, ("src/app.py", "src/util.py"))
        assert str(refused.value) == (
            '1 changed file(s) are in no part: "src/util.py"; put every changed file in '
            "exactly one part"
        )
