"""read_patch: the PR's whole patch of a changed file, from the diff index (tools/patch.py)."""

from __future__ import annotations

import pytest

from reviewbot.sources.diff_index import DiffIndex, DiffLine, FileDiff, FileStatus, Hunk, LineKind
from reviewbot.tools.ask_user import NoOperator
from reviewbot.tools.session import NodeStore, ReviewSession, Workspace
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


def _session_over(repo, *files: FileDiff, max_output_chars: int = 20_000):
    """A session whose PR changes exactly `files`."""
    diff = DiffIndex(files={f.path: f for f in files})
    return ReviewSession(
        role="reviewer",
        agent="review",
        workspace=Workspace(checkout=repo.root, head_sha=repo.head_sha, diff=diff),
        store=NodeStore(),
        operator=NoOperator(),
        max_output_chars=max_output_chars,
    )


class TestNoLines:
    @pytest.mark.parametrize(
        "change",
        [
            FileDiff(path="data.bin", status=FileStatus.MODIFIED, binary=True),
            FileDiff(path="vendor/lib", status=FileStatus.ADDED, submodule=True, additions=1),
        ],
        ids=["binary", "submodule"],
    )
    def test_binary_or_submodule_says_there_are_no_lines(self, repo, change):
        """A binary file or submodule pointer has no patch lines: said so, nothing marked seen."""
        session = _session_over(repo, change)
        result = session.call("read_patch", {"path": change.path})
        assert not result.is_error
        assert result.data is None
        assert result.content.endswith(": a binary file or submodule pointer, no lines")
        assert change.path not in session.seen

    def test_a_patch_github_omitted_points_to_read_file(self, repo):
        """GitHub sent no patch (too large): the answer names read_file and shows no lines."""
        change = FileDiff(
            path="big.txt", status=FileStatus.ADDED, additions=3000, patch_missing=True
        )
        session = _session_over(repo, change)
        result = session.call("read_patch", {"path": "big.txt"})
        assert result.content == (
            '"big.txt" — the PR\'s patch (added, +3000 -0): GitHub sent no patch (too large); '
            "use read_file"
        )
        assert result.data is None
        assert "big.txt" not in session.seen


class TestBounds:
    def test_a_long_patch_keeps_head_and_tail(self, repo):
        """A patch longer than the output limit says how many lines it left out and why."""
        added = tuple(
            DiffLine(kind=LineKind.ADDED, old_no=None, new_no=n, text=f"line {n}")
            for n in range(1, 1001)
        )
        hunk = Hunk(
            old_start=0, old_length=0, new_start=1, new_length=1000, section="", lines=added
        )
        change = FileDiff(path="big.txt", status=FileStatus.ADDED, hunks=(hunk,), additions=1000)
        result = _session_over(repo, change, max_output_chars=2_000).call(
            "read_patch", {"path": "big.txt"}
        )
        rows = result.data.text.split("\n")
        assert rows[1].endswith("line 1")
        assert rows[-1].endswith("line 1000")
        omitted = [row for row in rows if row.startswith("… ")]
        assert len(omitted) == 1
        assert omitted[0].endswith(" patch lines omitted; read_file shows the head's lines")
