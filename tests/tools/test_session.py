"""ReviewSession as a Toolbox: stable tool params, a call that never raises, run state; NodeStore."""

from __future__ import annotations

import json

import pytest

from reviewbot.errors import RepositoryError
from reviewbot.modes import Mode
from reviewbot.nodes import Finding
from reviewbot.results.plan import FixPlan, FixStep
from reviewbot.sources.diff_index import DiffIndex
from reviewbot.tools.ask_user import NoOperator
from reviewbot.tools.context import ToolRetry
from reviewbot.tools.registry import REGISTRY, for_the_model, self_contained
from reviewbot.tools.session import NodeStore, ReviewSession, Workspace
from reviewbot.tools.surface import Surface
from reviewbot.tools.toolbox import ToolResult
from tests.nodes.factories import make_node
from tests.tools.factories import build_repo, make_session, with_handler


@pytest.fixture
def repo(tmp_path):
    return build_repo(tmp_path)


class TestToolParams:
    def test_names_follow_the_surface(self, repo):
        """tool_params lists exactly the surface, in order, with name, description and schema."""
        session = make_session(repo)
        params = session.tool_params()
        assert [p["name"] for p in params] == list(session.surface.names)
        assert all(set(p) == {"name", "description", "input_schema"} for p in params)

    def test_add_review_node_schema_is_the_boundary_model(self, repo):
        """The schema the model gets is generated from Finding, the model the boundary uses."""
        params = {p["name"]: p for p in make_session(repo).tool_params()}
        expected = for_the_model(self_contained(Finding.model_json_schema()))
        assert params["add_review_node"]["input_schema"] == expected

    def test_schemas_keep_the_prompt_text_and_drop_what_pydantic_adds(self, repo):
        """No title, no model docstring; every field, constraint and field description is kept."""
        params = {p["name"]: p for p in make_session(repo).tool_params()}
        full = self_contained(Finding.model_json_schema())
        sent = params["add_review_node"]["input_schema"]
        assert '"title": "' not in json.dumps(sent)  # `"title": {` is the Finding's field
        assert "description" not in sent
        assert sent["properties"].keys() == full["properties"].keys()
        assert "title" in sent["properties"]
        assert "title" in sent["required"]
        anchor = sent["properties"]["anchor"]
        assert anchor["description"] == full["properties"]["anchor"]["description"]
        assert "description" not in anchor["anyOf"][0]  # the Anchor class's docstring
        for name, field in full["properties"].items():
            kept = sent["properties"][name]
            assert kept.get("description") == field.get("description")
            assert {k: v for k, v in field.items() if k != "title" and k != "anyOf"} == {
                k: v for k, v in kept.items() if k != "anyOf"
            }

    def test_byte_stable_even_when_the_caller_mutates_them(self, repo):
        """The loop may add cache_control to its copy; the next turn's params are unchanged."""
        session = make_session(repo)
        first = session.tool_params()
        snapshot = json.dumps(first)
        first[-1]["cache_control"] = {"type": "ephemeral"}
        assert json.dumps(session.tool_params()) == snapshot


class TestCall:
    def test_a_crashing_tool_reaches_the_loops_boundary(self, repo):
        """A crash is not a tool signal: it propagates to the loop's one tool-call boundary."""

        def boom(ctx, args):
            raise RuntimeError("disk on fire")

        session = with_handler(make_session(repo), "read_file", boom)
        with pytest.raises(RuntimeError, match="disk on fire"):
            session.call("read_file", {"path": "README.md"})
        [record] = session.transcript
        assert record.name == "read_file"

    def test_a_tool_signal_becomes_an_error_result(self, repo):
        """A ToolRetry raised by a handler is the model's to read: an is_error result."""

        def retry(ctx, args):
            raise ToolRetry("ask for a smaller range")

        session = with_handler(make_session(repo), "read_file", retry)
        result = session.call("read_file", {"path": "README.md"})
        assert result == ToolResult(content="ask for a smaller range", is_error=True)

    def test_output_is_capped_with_a_hint(self, repo):
        """Whatever a tool returns, the result stays within max_output_chars."""

        def huge(ctx, args):
            return ToolResult(content="x" * 50_000)

        session = with_handler(make_session(repo, max_output_chars=1_000), "list_files", huge)
        content = session.call("list_files", {}).content
        assert len(content) <= 1_000
        assert (
            "characters omitted; ask for less (a line range, a narrower glob or regex)" in content
        )

    def test_halt_ends_the_run(self, repo):
        """A Halt decision answers with an error that ends the run."""
        session = make_session(repo)
        session.surface = Surface(
            profile=session.profile, role="reviewer", tools=(REGISTRY["bash"],)
        )
        result = session.call("bash", {"command": "ls"})
        assert (result.is_error, result.ends_run) == (True, True)
        assert result.content.startswith("the run is halted: `bash` is on the review surface")

    def test_seen_is_normalised_and_read_only(self, repo):
        """Initial seen paths are normalised; the exposed set is a frozen copy."""
        session = make_session(repo, seen=("./src//app.py",))
        assert session.seen == frozenset({"src/app.py"})
        assert isinstance(session.seen, frozenset)

    def test_plan_mode_delivers_a_plan(self, repo):
        """In plan mode submit_plan records the plan and ends the run."""
        session = make_session(repo, mode=Mode.PLAN)
        step = {"key": "a", "title": "Swap os.system", "description": "Use subprocess.run."}
        result = session.call("submit_plan", {"goal": "No shell", "nodes": [step]})
        assert result.ends_run
        assert session.plan == FixPlan(
            goal="No shell",
            steps=(FixStep(key="a", title="Swap os.system", description="Use subprocess.run."),),
        )

    def test_workspace_needs_a_commit_id(self, repo):
        """A head that is not a hex commit id is refused when the workspace is built."""
        with pytest.raises(ValueError, match="head_sha must be a lower-case hex commit id"):
            Workspace(checkout=repo.root, head_sha="main", diff=DiffIndex(files={}))

    def test_a_missing_checkout_is_a_repository_error(self, repo, tmp_path):
        """A session over a checkout that does not exist fails as a run error, with the path."""
        with pytest.raises(RepositoryError, match=r"the checkout .*/gone does not exist"):
            ReviewSession(
                role="reviewer",
                agent="review",
                workspace=Workspace(
                    checkout=tmp_path / "gone", head_sha=repo.head_sha, diff=DiffIndex(files={})
                ),
                store=NodeStore(),
                operator=NoOperator(),
            )


class TestNodeStore:
    def test_next_id_skips_taken_ids(self):
        """An id already present (e.g. loaded from an earlier run) is never handed out again."""
        store = NodeStore()
        store.add(make_node(id="review-1"))
        assert store.next_id("review") == "review-2"
        assert store.next_id("review") == "review-3"
        assert store.next_id("security") == "security-1"

    def test_add_refuses_a_duplicate_id(self):
        """Two nodes never share an id."""
        store = NodeStore()
        store.add(make_node(id="review-1"))
        with pytest.raises(ValueError, match="review node review-1 already exists"):
            store.add(make_node(id="review-1"))

    def test_replace_needs_an_existing_node(self):
        """Replacing a node that was never added is a programming error."""
        with pytest.raises(KeyError, match="no review node review-1"):
            NodeStore().replace(make_node(id="review-1"))

    def test_all_keeps_insertion_order_and_returns_a_copy(self):
        """all() is in the order nodes were added and cannot be used to mutate the store."""
        store = NodeStore()
        store.add(make_node(id="b-1", title="B"))
        store.add(make_node(id="a-1", title="A"))
        listed = store.all()
        listed.clear()
        assert [n.id for n in store.all()] == ["b-1", "a-1"]
