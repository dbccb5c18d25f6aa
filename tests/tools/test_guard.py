"""The action guard: off-surface calls, invented tools, malformed input and traversal are refused
with a clear message, the run goes on, and nothing on disk changes."""

from __future__ import annotations

import dataclasses

import pytest

from reviewbot.modes import PROFILES, Effect, Mode
from reviewbot.tools.guard import Allow, GuardRecord, Halt, Reject, check
from reviewbot.tools.registry import REGISTRY
from reviewbot.tools.repo import ReadFileInput
from reviewbot.tools.surface import Surface, compute_surface
from tests.tools.factories import build_repo, make_session, tree_digest

REVIEW = PROFILES[Mode.REVIEW]
REVIEW_SURFACE = compute_surface(REVIEW, "reviewer")
TOOLS = (
    "read_file, list_files, search_code, read_patch, git_log, git_show, git_blame, add_review_node, "
    "finalize_review, confirm_review_node, dispute_review_node, ask_user"
)


@pytest.fixture
def repo(tmp_path):
    return build_repo(tmp_path)


class TestDecisions:
    def test_allow_carries_the_validated_input(self):
        """An allowed call carries the surface's tool and its parsed input model."""
        decision = check(REVIEW, REVIEW_SURFACE, "read_file", {"path": "a.py", "start_line": 2})
        assert decision == Allow(
            tool=REGISTRY["read_file"], args=ReadFileInput(path="a.py", start_line=2)
        )

    def test_a_boundary_tool_gets_its_raw_input(self):
        """add_review_node's input is left for the read boundary, so a discard can be recorded."""
        raw = {"kind": "nonsense"}
        expected = Allow(tool=REGISTRY["add_review_node"], args=raw)
        assert check(REVIEW, REVIEW_SURFACE, "add_review_node", raw) == expected

    @pytest.mark.parametrize(
        ("name", "message"),
        [
            ("write_file", "`write_file` does not exist in review mode: the worktree is read-only"),
            ("bash", "`bash` does not exist in review mode: starting processes is denied"),
            ("git_push", "`git_push` does not exist in review mode: pushing is denied"),
            (
                "create_pull_request",
                "`create_pull_request` does not exist in review mode: creating or publishing a "
                "pull request is denied",
            ),
            (
                "submit_plan",
                "`submit_plan` does not exist in review mode: it belongs to other modes",
            ),
        ],
        ids=["write_file", "bash", "git_push", "create_pull_request", "submit_plan"],
    )
    def test_off_surface_calls_name_the_reason(self, name, message):
        """A registered tool that is not on the surface is refused with the profile's reason."""
        assert check(REVIEW, REVIEW_SURFACE, name, {}) == Reject(message=message)

    def test_an_invented_tool_lists_the_real_ones(self):
        """A tool that does not exist is named and the surface is listed."""
        decision = check(REVIEW, REVIEW_SURFACE, "frobnicate", {"x": 1})
        assert decision == Reject(message=f'"frobnicate" is not a tool; the tools are: {TOOLS}')

    @pytest.mark.parametrize(
        ("tool_input", "message"),
        [
            ({}, "path: Field required"),
            ({"path": "a.py", "start_line": "3"}, "start_line: Input should be a valid integer"),
            ({"path": "a.py", "mode": "w"}, "mode: Extra inputs are not permitted"),
            ("a.py", "input: Input should be a valid dictionary or instance of ReadFileInput"),
        ],
        ids=["missing", "wrong-type", "extra", "not-an-object"],
    )
    def test_malformed_input_is_refused_with_pydantic_message(self, tool_input, message):
        """Input that does not validate is refused with the validation message."""
        decision = check(REVIEW, REVIEW_SURFACE, "read_file", tool_input)
        assert decision == Reject(message=f"invalid input for `read_file`: {message}")

    def test_a_surface_inconsistent_with_the_profile_halts(self):
        """A tool with a denied effect that reached the surface halts instead of running."""
        broken = Surface(profile=REVIEW, role="reviewer", tools=(REGISTRY["write_file"],))
        decision = check(REVIEW, broken, "write_file", {"path": "a", "content": ""})
        assert decision == Halt(
            reason="`write_file` is on the review surface with denied effects: worktree_write"
        )

    def test_pinned_verbs_are_allowed_whatever_the_deny_list(self):
        """A deny list naming pinned verbs cannot make the guard refuse them."""
        hostile = dataclasses.replace(REVIEW, deny=frozenset({"ask_user", "finalize_review"}))
        surface = compute_surface(hostile, "reviewer")
        decision = check(hostile, surface, "ask_user", {"question": "why?"})
        assert isinstance(decision, Allow)


class TestInASession:
    def test_the_run_goes_on_after_a_reject_and_every_decision_is_recorded(self, repo):
        """Refused calls come back as is_error results and later calls still run."""
        session = make_session(repo)
        refused = session.call("bash", {"command": "cat /etc/passwd"})
        allowed = session.call("read_file", {"path": "README.md"})
        assert (refused.is_error, refused.ends_run) == (True, False)
        assert (
            refused.content == "`bash` does not exist in review mode: starting processes is denied"
        )
        assert allowed.content == '"README.md" — lines 1–1 of 1'
        assert allowed.data is not None
        assert allowed.data.text == "     1\t# demo"
        assert [(r.name, type(r.decision)) for r in session.transcript] == [
            ("bash", Reject),
            ("read_file", Allow),
        ]
        assert isinstance(session.transcript[0], GuardRecord)

    def test_hostile_calls_change_nothing_on_disk(self, repo):
        """Off-surface calls, invented tools, malformed input and traversal leave the checkout byte-identical."""
        before = tree_digest(repo.root)
        outside_before = repo.outside.read_bytes()
        session = make_session(repo)
        calls = [
            ("write_file", {"path": "src/app.py", "content": "pwned"}),
            ("delete_file", {"path": "README.md"}),
            ("bash", {"command": "rm -rf ."}),
            ("git_commit", {"message": "pwn"}),
            ("git_push", {"branch": "main"}),
            ("install_package", {"package": "evil"}),
            ("frobnicate", {}),
            ("read_file", {"path": "../../etc/passwd"}),
            ("read_file", {"path": "/etc/passwd"}),
            ("read_file", {"path": "link_out"}),
            ("read_file", {"path": "src/dir_out/outside-secret.txt"}),
            ("list_files", {"glob": "../**"}),
            ("git_show", {"rev": "--output=pwned.txt"}),
            ("git_blame", {"path": "../outside-secret.txt", "start_line": 1, "end_line": 1}),
            ("read_file", {"path": 42}),
            ("add_review_node", {"kind": "bug"}),
        ]
        results = [session.call(name, tool_input) for name, tool_input in calls]
        # Every call is an error except the listing, which answers that nothing matches.
        assert [name for (name, _), r in zip(calls, results, strict=True) if not r.is_error] == [
            "list_files"
        ]
        assert not any("TOP SECRET" in result.content for result in results)
        assert tree_digest(repo.root) == before
        assert repo.outside.read_bytes() == outside_before
        assert len(session.transcript) == len(calls)

    def test_a_glob_climbing_out_lists_nothing(self, repo):
        """A glob with `..` cannot match any file: only files inside are ever listed."""
        result = make_session(repo).call("list_files", {"glob": "../**"})
        assert result.content == 'no file matches "../**"'

    def test_denied_effects_never_reach_a_handler(self, repo):
        """Every registered tool with a denied effect is refused by the guard in review mode."""
        session = make_session(repo)
        for name, spec in REGISTRY.items():
            if spec.effects & REVIEW.denied_effects:
                result = session.call(name, {})
                assert result.content.startswith(f"`{name}` does not exist in review mode: ")
        assert all(isinstance(r.decision, Reject) for r in session.transcript)
        assert Effect.NETWORK_READ not in REVIEW.denied_effects
