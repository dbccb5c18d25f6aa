"""git_log, git_show and git_blame over a real repository; revisions never become options."""

from __future__ import annotations

import json

import pytest

from reviewbot.sources.diff_index import DiffIndex
from reviewbot.tools import git_views
from reviewbot.tools.ask_user import NoOperator
from reviewbot.tools.session import NodeStore, ReviewSession, Workspace
from tests.tools.factories import build_repo, lines_of, make_session, tree_digest


@pytest.fixture
def repo(tmp_path):
    return build_repo(tmp_path)


class TestGitLog:
    def test_newest_first(self, repo):
        """The log lists the head commit, then its parent, one line each."""
        result = make_session(repo).call("git_log", {})
        assert result.content == "2 commit(s), newest first (id date author: subject)"
        assert lines_of(result) == [
            f"{repo.head_sha[:12]} 2024-02-01 Ada: Add run and total",
            f"{repo.base_sha[:12]} 2024-01-01 Ada: Add load",
        ]

    def test_path_and_max_count(self, repo):
        """A path keeps only the commits touching it; max_count caps the list."""
        session = make_session(repo)
        touching = session.call("git_log", {"path": "src/util.py"})
        assert touching.content.startswith('1 commit(s) touching "src/util.py"')
        assert lines_of(touching) == [f"{repo.head_sha[:12]} 2024-02-01 Ada: Add run and total"]
        assert len(lines_of(session.call("git_log", {"max_count": 1}))) == 1


class TestGitShow:
    def test_commit_with_stat_and_patch(self, repo):
        """Without a path, git_show shows the commit's message, stat and patch."""
        result = make_session(repo).call("git_show", {"rev": repo.base_sha[:10]})
        assert result.content == f"commit {repo.base_sha[:12]}: message, files and patch"
        assert result.data is not None
        assert result.data.kind == "commit"
        assert f"commit {repo.base_sha}" in result.data.text
        assert "Add load" in result.data.text
        assert "+def load(path):" in result.data.text

    def test_file_at_a_revision(self, repo):
        """With a path, git_show numbers the file as it was at that revision."""
        result = make_session(repo).call("git_show", {"rev": "HEAD~1", "path": "src/app.py"})
        assert result.content == f'"src/app.py" at {repo.base_sha[:12]} — 6 lines'
        assert lines_of(result)[-1] == "     6\t        return handle.read()"

    def test_directory_at_a_revision(self, repo):
        """A directory path lists its entries."""
        result = make_session(repo).call("git_show", {"path": "src"})
        assert result.content.splitlines()[1:] == ['"src/app.py"', '"src/dir_out"', '"src/util.py"']

    def test_head_means_the_pr_head(self, repo):
        """`HEAD` is the workspace's head commit, whatever the checkout's HEAD is."""
        result = make_session(repo).call("git_show", {"path": "src/util.py"})
        assert result.content == f'"src/util.py" at {repo.head_sha[:12]} — 6 lines'

    @pytest.mark.parametrize(
        "rev",
        ["--output=/tmp/pwned", "-p", "HEAD..main", "a b", "$(id)"],
        ids=["option", "short-option", "range", "space", "shell"],
    )
    def test_a_rev_that_is_not_a_revision_is_refused(self, repo, rev):
        """Anything that does not look like a revision is refused before git sees it."""
        before = tree_digest(repo.root)
        result = make_session(repo).call("git_show", {"rev": rev})
        assert result.is_error
        assert result.content == (
            f"{json.dumps(rev)} is not a revision (a commit id, branch, tag or `HEAD~n`)"
        )
        assert tree_digest(repo.root) == before

    def test_unknown_revision(self, repo):
        """A well-formed revision that does not exist is a clear error."""
        result = make_session(repo).call("git_show", {"rev": "no-such-branch"})
        assert result.is_error
        assert result.content == 'no commit "no-such-branch" in this repository'

    def test_missing_path(self, repo):
        """A path that does not exist at the revision names the commit."""
        result = make_session(repo).call("git_show", {"rev": "HEAD~1", "path": "src/util.py"})
        assert result.is_error
        assert result.content == f'"src/util.py" does not exist at {repo.base_sha[:12]}'


class TestGitBlame:
    def test_lines_with_their_commits(self, repo):
        """Each blamed line shows its number, commit, date and author, and the file is seen."""
        session = make_session(repo, seen=())
        result = session.call("git_blame", {"path": "src/app.py", "start_line": 6, "end_line": 7})
        assert lines_of(result) == [
            f"     6  {repo.base_sha[:8]} 2024-01-01 Ada\t        return handle.read()",
            f"     7  {repo.head_sha[:8]} 2024-02-01 Ada\t",
        ]
        assert "src/app.py" in session.seen

    def test_start_past_the_end(self, repo):
        """A range starting past the end says how long the file is."""
        result = make_session(repo).call(
            "git_blame", {"path": "src/app.py", "start_line": 30, "end_line": 31}
        )
        assert result.is_error
        assert result.content == '"src/app.py" has 17 lines; start_line 30 is past the end'


class TestWithoutGit:
    def test_a_checkout_without_history_answers_clearly(self, tmp_path):
        """git tools in a plain directory say there is no history instead of failing."""
        (tmp_path / "a.py").write_text("x = 1\n")
        session = ReviewSession(
            role="reviewer",
            agent="review",
            workspace=Workspace(checkout=tmp_path, head_sha="a" * 40, diff=DiffIndex(files={})),
            store=NodeStore(),
            operator=NoOperator(),
        )
        result = session.call("git_log", {})
        assert result.is_error
        assert result.content == "the checkout has no git history, so git tools cannot answer"


class TestBounds:
    @pytest.mark.parametrize(
        ("tool", "tool_input"),
        [
            ("git_log", {}),
            ("git_show", {}),
            ("git_blame", {"path": "src/app.py", "start_line": 1, "end_line": 3}),
        ],
        ids=["git_log", "git_show", "git_blame"],
    )
    def test_no_time_left_starts_no_git_command(self, repo, tool, tool_input):
        """A call with no time left answers that it stopped at its limit, before running git."""
        result = make_session(repo).call(tool, tool_input, timeout=0)
        assert result.is_error
        assert result.content.startswith(f"{tool} stopped at its time limit (0 s)")

    def test_time_to_spare_answers_normally(self, repo):
        """With time left, git runs under its watchdog and answers as usual."""
        result = make_session(repo).call("git_log", {}, timeout=30)
        assert not result.is_error
        assert lines_of(result)[0].endswith("Add run and total")

    def test_an_oversized_blob_is_not_read(self, repo, monkeypatch):
        """A file at a revision larger than the read limit is refused, never loaded."""
        monkeypatch.setattr(git_views, "MAX_FILE_BYTES", 100)
        result = make_session(repo).call("git_show", {"path": "big.txt"})
        assert result.is_error
        assert "too large to read" in result.content


def _drop_object(repo, spec: str) -> None:
    """Delete the loose object `spec` names, as a damaged or partial clone lacks it."""
    import subprocess

    sha = subprocess.run(
        ["git", "rev-parse", spec], cwd=repo.root, check=True, capture_output=True, text=True
    ).stdout.strip()
    obj = repo.root / ".git" / "objects" / sha[:2] / sha[2:]
    obj.chmod(0o644)
    obj.unlink()


class TestRefusals:
    def test_a_path_no_commit_touches(self, repo):
        """A log of a path no commit touches says so, as an answer rather than an error."""
        result = make_session(repo).call("git_log", {"path": "nowhere.py"})
        assert not result.is_error
        assert result.content == 'no commit touching "nowhere.py" up to the PR head'
        assert result.data is None

    @pytest.mark.parametrize("path", [".git/config", "./.git/HEAD", ".git"])
    def test_a_path_in_gits_storage_is_refused(self, repo, path):
        """git's own storage is not a path of the tree: refused before git sees it."""
        result = make_session(repo).call("git_show", {"path": path})
        assert result.is_error
        assert result.content == f"{json.dumps(path)} is not a path in the repository"

    @pytest.mark.parametrize(
        ("path", "why"),
        [
            ("gone.py", "does not exist at"),
            ("src", "is a directory at"),
            ("data.bin", "is a binary file at"),
        ],
        ids=["missing", "directory", "binary"],
    )
    def test_blame_of_what_has_no_lines(self, repo, path, why):
        """Blame names why a path has no lines to blame, with the head commit."""
        result = make_session(repo, seen=()).call(
            "git_blame", {"path": path, "start_line": 1, "end_line": 2}
        )
        assert result.is_error
        assert result.content == f"{json.dumps(path)} {why} {repo.head_sha[:12]}"

    def test_blame_bounded_by_the_output_limit(self, repo):
        """A long blame keeps head and tail and says how many lines it left out."""
        session = make_session(repo, max_output_chars=2_000)
        result = session.call("git_blame", {"path": "big.txt", "start_line": 1, "end_line": 500})
        rows = lines_of(result)
        assert rows[0].startswith("     1  ")
        assert rows[-1].endswith("\tline 500")
        omitted = [row for row in rows if row.startswith("… ")]
        assert len(omitted) == 1
        assert omitted[0].endswith("lines omitted; blame fewer lines")
        assert len(result.data.text) <= 2_000


class TestGitFailures:
    def test_blame_over_a_missing_object_is_a_retry_with_gits_reason(self, repo):
        """git blame failing (the base blob is gone) answers with git's first line of complaint."""
        _drop_object(repo, f"{repo.base_sha}:src/app.py")
        result = make_session(repo).call(
            "git_blame", {"path": "src/app.py", "start_line": 1, "end_line": 3}
        )
        assert result.is_error
        assert result.content.startswith('git blame failed: "')
        assert "fatal" in result.content or "unable" in result.content

    def test_show_over_a_missing_object_is_a_retry_with_gits_reason(self, repo):
        """git show failing mid-command answers `git could not answer` rather than raising."""
        _drop_object(repo, f"{repo.base_sha}:README.md")
        result = make_session(repo).call("git_show", {"rev": repo.base_sha})
        assert result.is_error
        assert result.content.startswith('git could not answer: "')
