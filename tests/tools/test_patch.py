"""read_patch: the PR's whole patch of a changed file, from the diff index (tools/patch.py)."""

from __future__ import annotations

import pytest

from tests.tools.factories import build_repo, make_session


@pytest.fixture
def repo(tmp_path):
    return build_repo(tmp_path)


class TestReadPatch:
    def test_the_patch_is_numbered_like_the_context(self, repo):
        """Head numbers beside `+` and context lines, in an untrusted patch block."""
        result = make_session(repo).call("read_patch", {"path": "src/app.py"})
        assert not result.is_error
        assert result.content == '"src/app.py" — the PR\'s patch (modified, +11 -0)'
        assert result.data is not None
        assert result.data.kind == "patch"
        rows = result.data.text.split("\n")
        assert rows[0] == "@@"  # no ranges: every line carries its own number (as packed)
        assert rows[1] == "   6           return handle.read()"
        assert rows[4] == "   9 + def run(command):"

    def test_reading_the_patch_lets_an_agent_anchor_on_the_file(self, repo):
        """The patch shows the file's changed lines: the file counts as seen, as when packed."""
        finding = {
            "kind": "bug",
            "priority": "P1",
            "confidence": 0.9,
            "title": "Shell injection",
            "anchor": {
                "path": "src/app.py",
                "start_line": 10,
                "end_line": 10,
                "quote": "    return os.system(command)",
            },
        }
        unseen = make_session(repo, seen=())
        assert unseen.call("add_review_node", finding).is_error
        session = make_session(repo, seen=())
        session.call("read_patch", {"path": "src/app.py"})
        assert not session.call("add_review_node", finding).is_error

    def test_a_file_the_pr_does_not_change_is_refused(self, repo):
        """No patch to show: the answer says so and names read_file."""
        result = make_session(repo).call("read_patch", {"path": "README.md"})
        assert result.is_error
        assert "is not changed by this PR" in result.content
