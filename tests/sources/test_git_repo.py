"""The local source and the PR checkout, on real git repositories built in tmp_path."""

from __future__ import annotations

import base64
import os
import shutil
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from git import Repo

from reviewbot.errors import ConfigError, HeadMoved, NotFoundError, RepositoryError
from reviewbot.sources.diff_index import FileStatus
from reviewbot.sources.git_repo import (
    TreeFiles,
    _auth_config,
    lines_at,
    local_snapshot,
    pr_checkout,
)
from reviewbot.sources.guidelines import UnreadableFile
from reviewbot.sources.snapshot import Origin
from tests.fakes.gitrepo import GitRepo, make_repo

SUB_OLD, SUB_NEW = "1" * 40, "2" * 40


def build_project(make) -> GitRepo:
    """main: base commit, then a main-only commit; feature (checked out): every kind of change."""
    repo = make("project")
    repo.write("keep.txt", "a\nb\nc\n")
    repo.write("old.txt", "one\ntwo\nthree\nfour\nfive\nsix\n")
    repo.write("del.txt", "gone\n")
    repo.write("mode.sh", "echo hi\n", mode=0o644)
    repo.write("b.bin", b"\x00\x01bin")
    repo.write("latin.txt", b"caf\xe9\n")
    repo.write("crlf.txt", b"x\r\ny\r\n")
    repo.write(".reviewbot.toml", "[budget]\nmax_turns = 5\n")
    (repo.path / "sub").mkdir()  # an uninitialised submodule is an empty directory
    repo.git("add", "--all")
    repo.gitlink("sub", SUB_OLD)
    repo.commit("base")
    repo.git("branch", "feature")

    repo.write("main_only.txt", "landed on main after the branch point\n")
    repo.write(".reviewbot.toml", "[budget]\nmax_turns = 7\n")
    repo.commit("main moves on")

    repo.git("switch", "--quiet", "feature")
    repo.git("mv", "old.txt", "new name é.txt")
    with (repo.path / "new name é.txt").open("a") as handle:
        handle.write("seven\n")
    repo.git("rm", "--quiet", "del.txt")
    (repo.path / "mode.sh").chmod(0o755)
    repo.write("b.bin", b"\x00\x02bin")
    repo.write("latin.txt", b"caf\xe9 cr\xe8me\n")
    repo.write("crlf.txt", b"x\r\nY\r\n")
    repo.write("empty.txt", "")
    # The PR tries to loosen the policy that judges it.
    repo.write(".reviewbot.toml", "[budget]\nmax_turns = 99\n\n[ci]\ngated = true\n")
    repo.git("add", "--all")
    repo.gitlink("sub", SUB_NEW)
    repo.commit("feature: everything at once")
    return repo


@pytest.fixture(scope="module")
def template(make_module_repo) -> GitRepo:
    """The project, built once per module; tests that change it use `project` (a copy)."""
    return build_project(make_module_repo)


@pytest.fixture(scope="module")
def snap(template):
    """The local snapshot of feature against main, taken once (read-only tests share it)."""
    with local_snapshot(template.path, base="main") as snapshot:
        yield snapshot


@pytest.fixture
def project(template, tmp_path, git_env) -> GitRepo:
    """A private copy of the project for a test that commits or switches branches."""
    copy = tmp_path / "project"
    shutil.copytree(template.path, copy, symlinks=True)
    return GitRepo(copy)


class TestLocalDiff:
    def test_diff_is_merge_base_to_head(self, snap, template):
        """Only the branch's changes are listed: main's later commit is not."""
        assert sorted(snap.diff.files) == sorted(
            [
                ".reviewbot.toml",
                "b.bin",
                "crlf.txt",
                "del.txt",
                "empty.txt",
                "latin.txt",
                "mode.sh",
                "new name é.txt",
                "sub",
            ]
        )
        assert (snap.base_sha, snap.head_sha) == (template.sha("main~1"), template.sha("feature"))

    @pytest.mark.parametrize(
        ("path", "status", "flags"),
        [
            ("new name é.txt", FileStatus.RENAMED, ()),
            ("del.txt", FileStatus.DELETED, ()),
            ("mode.sh", FileStatus.MODE_CHANGED, ()),
            ("b.bin", FileStatus.MODIFIED, ("binary",)),
            ("sub", FileStatus.MODIFIED, ("submodule",)),
            ("empty.txt", FileStatus.ADDED, ()),
            ("latin.txt", FileStatus.MODIFIED, ()),
        ],
        ids=lambda v: str(v) if not isinstance(v, tuple) else "",
    )
    def test_statuses(self, snap, path, status, flags):
        """Each kind of change in a real repository gets its status and flags."""
        diff = snap.diff.files[path]
        assert diff.status is status
        assert diff.binary is ("binary" in flags)
        assert diff.submodule is ("submodule" in flags)

    def test_rename_keeps_old_path_and_lines(self, snap):
        """The renamed file's hunk is at lines 4-7 of the head, 4-6 of the base."""
        renamed = snap.diff.files["new name é.txt"]
        assert renamed.old_path == "old.txt"
        assert renamed.commentable("RIGHT") == {4, 5, 6, 7}
        assert renamed.commentable("LEFT") == {4, 5, 6}

    def test_non_utf8_and_crlf(self, snap):
        """Latin-1 bytes become U+FFFD in place; CRLF lines keep their numbers."""
        latin = snap.diff.files["latin.txt"].hunks[0].lines
        assert [ln.text for ln in latin] == ["caf\ufffd", "caf\ufffd cr\ufffdme"]
        crlf = snap.diff.files["crlf.txt"]
        assert [ln.text for ln in crlf.hunks[0].lines] == ["x", "y", "Y"]
        assert crlf.commentable("RIGHT") == {1, 2}

    def test_mode_change_and_submodule_details(self, snap):
        """Mode-only changes keep both modes; a submodule bump shows both pointers."""
        mode = snap.diff.files["mode.sh"]
        assert (mode.old_mode, mode.new_mode, mode.hunks) == ("100644", "100755", ())
        sub = snap.diff.files["sub"].hunks[0].lines
        assert [ln.text for ln in sub] == [
            f"Subproject commit {SUB_OLD}",
            f"Subproject commit {SUB_NEW}",
        ]

    def test_metadata(self, snap, template):
        """A local snapshot has no URL or number; title and commits come from the branch."""
        assert (snap.origin, snap.url, snap.repo, snap.number) == (Origin.LOCAL, None, None, None)
        assert (snap.base_ref, snap.head_ref, snap.author) == ("main", "feature", "Ada")
        assert snap.title == "feature: everything at once"
        assert [c.sha for c in snap.commits] == [template.sha("feature")]


class TestConfigFromBase:
    def test_pr_cannot_change_its_own_policy(self, snap):
        """The head commit edits `.reviewbot.toml`; the config still comes from the base."""
        assert snap.diff.files[".reviewbot.toml"].status is FileStatus.MODIFIED
        assert snap.config.budget.max_turns == 7  # main's tip, not the head's 99
        assert snap.config.ci.gated is False

    def test_base_without_config_uses_defaults(self, project):
        """No `.reviewbot.toml` at the base → the defaults."""
        project.git("switch", "--quiet", "--create", "other", "main")
        project.git("rm", "--quiet", ".reviewbot.toml")
        project.commit("drop config")
        with local_snapshot(project.path, base="other", head="feature") as snap:
            assert snap.config.budget.max_turns == 30

    def test_broken_base_config_names_branch_and_line(self, project):
        """A broken config on the base is a ConfigError with the base branch and the line."""
        project.git("switch", "--quiet", "main")
        project.write(".reviewbot.toml", "[budget]\nmax_turns = 0\n")
        project.commit("break the config")
        with (
            pytest.raises(ConfigError) as caught,
            local_snapshot(project.path, base="main", head="feature"),
        ):
            pass
        assert str(caught.value) == (
            "`.reviewbot.toml` (base branch main) line 2: budget.max_turns: Input should be greater than or equal to 1"
        )

    def test_learnings_come_from_the_base_only(self, project):
        """`.reviewbot/learnings.toml`: the base's entries; the head's copy is not read."""
        entry = (
            '[[learning]]\nfingerprint = "0123456789abcdef"\nkind = "bug"\ntitle = "T"\n'
            'scope = "a.py"\nby = "ada"\nat = "2026-11-01"\n'
        )
        project.git("switch", "--quiet", "main")
        project.write(".reviewbot/learnings.toml", entry)
        project.commit("learned")
        project.git("switch", "--quiet", "feature")
        project.write(".reviewbot/learnings.toml", entry.replace("0123456789abcdef", "f" * 16))
        project.commit("the PR teaches itself")
        with local_snapshot(project.path, base="main", head="feature") as snap:
            assert [e.fingerprint for e in snap.learnings.entries] == ["0123456789abcdef"]

    def test_a_broken_base_learnings_file_names_the_entry(self, project):
        project.git("switch", "--quiet", "main")
        project.write(
            ".reviewbot/learnings.toml", '[[learning]]\nfingerprint = "0123456789abcdef"\n'
        )
        project.commit("half an entry")
        with (
            pytest.raises(ConfigError) as caught,
            local_snapshot(project.path, base="main", head="feature"),
        ):
            pass
        message = str(caught.value)
        assert message.startswith(
            "`.reviewbot/learnings.toml` (base branch main): entry 1 (fingerprint 0123456789abcdef): "
        )
        assert "kind: Field required" in message

    def test_undecodable_base_config(self, project):
        """A config that is not UTF-8 is a ConfigError, not a crash."""
        project.git("switch", "--quiet", "main")
        project.write(".reviewbot.toml", b"model = '\xff'\n")
        project.commit("latin-1 config")
        with (
            pytest.raises(ConfigError, match="is not valid UTF-8"),
            local_snapshot(project.path, base="main", head="feature"),
        ):
            pass

    def test_a_config_path_that_is_a_directory_at_the_base(self, project):
        """`.reviewbot.toml` committed as a directory on the base: a ConfigError saying so."""
        project.git("switch", "--quiet", "main")
        project.git("rm", "--quiet", ".reviewbot.toml")
        project.write(".reviewbot.toml/x", "not a config\n")
        project.commit("a directory named like the config")
        with (
            pytest.raises(
                ConfigError, match=r"^`.reviewbot.toml` \(base branch main\): is not a file$"
            ),
            local_snapshot(project.path, base="main", head="feature"),
        ):
            pass


class TestWorktree:
    def test_a_clean_working_tree_reviews_head_itself(self, project):
        """--worktree with nothing uncommitted reviews HEAD, not a synthetic commit."""
        with local_snapshot(project.path, base="main", worktree=True) as snap:
            assert snap.head_sha == project.sha("HEAD")

    def test_a_staged_change_undone_in_the_tree_reviews_head(self, project):
        """The tree is what is reviewed: a staged edit the working tree reverted is no change."""
        original = (project.path / "keep.txt").read_text()
        project.write("keep.txt", "staged\n")
        project.git("add", "keep.txt")
        project.write("keep.txt", original)
        assert project.git("status", "--porcelain") != ""
        with local_snapshot(project.path, base="main", worktree=True) as snap:
            assert snap.head_sha == project.sha("HEAD")

    def test_an_uncommitted_edit_is_reviewed(self, project):
        """A modified tracked file: a commit on top of HEAD holds it, and the diff shows it."""
        project.write("keep.txt", "a\nb\nc\nd\n")
        with local_snapshot(project.path, base="main", worktree=True) as snap:
            assert snap.head_sha != project.sha("HEAD")
            assert snap.diff.files["keep.txt"].additions == 1


class TestLocalCheckout:
    def test_clean_head_uses_the_working_tree(self, snap, template):
        """HEAD is the reviewed commit and the tree is clean: the repository itself is read."""
        assert snap.checkout == template.path

    def test_other_head_is_extracted_and_removed(self, project):
        """Reviewing a commit that is not checked out extracts it to a temporary tree."""
        project.git("switch", "--quiet", "main")
        with local_snapshot(project.path, base="main", head="feature") as snap:
            tree = snap.checkout
            assert tree != project.path
            assert (tree / "new name é.txt").read_text().endswith("seven\n")
            assert not (tree / "del.txt").exists()
            assert os.access(tree / "mode.sh", os.X_OK)
            assert (tree / "crlf.txt").read_bytes() == b"x\r\nY\r\n"
        assert not tree.exists()
        # The user's repository gained nothing: no worktree, clean status, same branch.
        assert project.git("worktree", "list").count("\n") == 0
        assert project.git("status", "--porcelain") == ""
        assert project.git("branch", "--show-current") == "main"

    def test_dirty_tree_is_not_used(self, project):
        """Untracked or modified files mean the working tree is not the head commit."""
        project.write("scratch.txt", "not committed\n")
        with local_snapshot(project.path, base="main") as snap:
            assert snap.checkout != project.path
            assert not (snap.checkout / "scratch.txt").exists()
            assert (snap.checkout / "empty.txt").exists()

    def test_ignored_secret_makes_it_extract(self, project):
        """An ignored `.env` beside the code is never handed to the read tools: the commit is extracted."""
        project.write(".gitignore", ".env\n")
        project.commit("ignore .env")
        project.write(".env", "API_KEY=hunter2-hunter2\n")
        assert project.git("status", "--porcelain") == ""  # a plain status calls this clean
        with local_snapshot(project.path, base="main") as snap:
            assert snap.checkout != project.path
            assert not (snap.checkout / ".env").exists()
            assert (snap.checkout / ".gitignore").read_text() == ".env\n"

    def test_untracked_file_hidden_by_config_still_makes_it_extract(self, project):
        """`status.showUntrackedFiles = no` in the user's config does not hide an untracked file."""
        project.git("config", "status.showUntrackedFiles", "no")
        project.write("notes.txt", "private\n")
        with local_snapshot(project.path, base="main") as snap:
            assert snap.checkout != project.path
            assert not (snap.checkout / "notes.txt").exists()


class TestLocalErrors:
    @pytest.mark.parametrize("ref", ["nope", "--output=/tmp/x", "main..feature"], ids=str)
    def test_unknown_ref(self, template, ref):
        """A ref git cannot resolve to a commit is NotFoundError naming it and the option to fix."""
        with pytest.raises(NotFoundError) as caught, local_snapshot(template.path, base=ref):
            pass
        assert str(caught.value).startswith(f"unknown ref {ref!r} — pass --base with a branch")

    def test_not_a_repository(self, tmp_path, git_env):
        """Outside a repository the error says where to run."""
        with (
            pytest.raises(RepositoryError, match="is not inside a git repository"),
            local_snapshot(tmp_path, base="main"),
        ):
            pass

    def test_unrelated_histories(self, project):
        """A base with no common ancestor is a RepositoryError, not an empty diff."""
        project.git("switch", "--quiet", "--orphan", "unrelated")
        project.write("x.txt", "x\n")
        project.commit("root")
        with (
            pytest.raises(RepositoryError, match="no common ancestor"),
            local_snapshot(project.path, base="main"),
        ):
            pass


@pytest.fixture(scope="module")
def remote(make_module_repo):
    """A bare "GitHub" repository on disk with main and a fork PR's refs/pull/7/head."""
    make_repo = make_module_repo
    bare = make_repo("remote.git", bare=True)
    url = bare.path.as_uri()
    upstream = make_repo("upstream")
    upstream.write("README.md", "hello\n")
    upstream.commit("init")
    upstream.git("push", "--quiet", url, "main")
    fork = make_repo("fork")
    fork.git("pull", "--quiet", url, "main")
    fork.write("feature.txt", "from a fork\n")
    bare.pr_head = fork.commit("fork change")
    # GitHub keeps every PR head on the base repository, forks included.
    fork.git("push", "--quiet", url, "HEAD:refs/pull/7/head")
    bare.url, bare.upstream, bare.fork = url, upstream, fork
    return bare


class TestPrCheckout:
    def test_fetches_the_fork_head_into_a_temporary_directory(self, remote):
        """refs/pull/N/head is fetched (it is on no branch) and removed afterwards."""
        assert remote.git("branch", "--contains", remote.pr_head) == ""
        with pr_checkout(remote.url, number=7, head_sha=remote.pr_head) as path:
            assert (path / "feature.txt").read_text() == "from a fork\n"
            assert (path / "README.md").read_text() == "hello\n"
            assert GitRepo(path).sha("HEAD") == remote.pr_head
            assert GitRepo(path).git("rev-parse", "--is-shallow-repository") == "true"
        assert not path.exists()

    def test_head_moved_since_the_snapshot(self, remote):
        """A PR head that no longer matches the reviewed SHA supersedes the run (HeadMoved,
        which the flows end with exit 0: the newer head gets its own review)."""
        with (
            pytest.raises(HeadMoved, match="moved to") as caught,
            pr_checkout(remote.url, number=7, head_sha="0" * 40),
        ):
            pass
        assert caught.value.exit_code == 0

    def test_missing_pull_ref(self, remote):
        """A PR number without refs/pull/N/head is a one-line RepositoryError."""
        with (
            pytest.raises(RepositoryError) as caught,
            pr_checkout(remote.url, number=8, head_sha=remote.pr_head),
        ):
            pass
        message = str(caught.value)
        assert message.startswith(f"could not fetch PR #8 from {remote.url}: ")
        assert "refs/pull/8/head" in message
        assert "\n" not in message

    def test_workspace_reused_when_head_matches(self, remote):
        """In Actions, a workspace already at the PR head is used as is and kept."""
        workspace = remote.fork.path
        with pr_checkout(
            remote.url, number=7, head_sha=remote.pr_head, workspace=workspace
        ) as path:
            assert path == workspace
        assert workspace.exists()

    @pytest.mark.parametrize("which", ["other-head", "not-a-repo", "ignored-file"], ids=str)
    def test_workspace_ignored_otherwise(self, remote, tmp_path, which):
        """Another commit (e.g. the merge ref), no repository, or extra files there mean a fetch."""
        workspace = tmp_path / "empty"
        if which == "other-head":
            workspace = remote.upstream.path
        elif which == "ignored-file":
            # At the PR head, but with an ignored secret a build step left behind.
            workspace = tmp_path / "workspace"
            shutil.copytree(remote.fork.path, workspace, symlinks=True)
            (workspace / ".git" / "info").mkdir(exist_ok=True)
            (workspace / ".git" / "info" / "exclude").write_text(".env\n")
            (workspace / ".env").write_text("TOKEN=hunter2-hunter2\n")
            assert GitRepo(workspace).sha("HEAD") == remote.pr_head
        workspace.mkdir(exist_ok=True)
        with pr_checkout(
            remote.url, number=7, head_sha=remote.pr_head, workspace=workspace
        ) as path:
            assert path != workspace
            assert (path / "feature.txt").exists()
            assert not (path / ".env").exists()

    def test_workspace_reused_when_it_holds_the_last_reviewed_head(self, remote):
        """An incremental review reuses the workspace only when it has the earlier head too."""
        workspace = remote.fork.path
        since = remote.fork.sha("HEAD~1")
        with pr_checkout(
            remote.url,
            number=7,
            head_sha=remote.pr_head,
            workspace=workspace,
            since=since,
            commits=1,
        ) as path:
            assert path == workspace

    def test_workspace_without_the_last_reviewed_head_means_a_fetch(self, remote):
        """The earlier head is not in the workspace's history: fetched with the PR's commits."""
        workspace = remote.fork.path
        with pr_checkout(
            remote.url,
            number=7,
            head_sha=remote.pr_head,
            workspace=workspace,
            since="1" * 40,
            commits=1,
        ) as path:
            assert path != workspace
            assert GitRepo(path).sha("HEAD") == remote.pr_head
            assert GitRepo(path).git("rev-list", "--count", "HEAD") == "2"  # commits + 1 deep


class TestLinesAt:
    @pytest.fixture
    def lines(self, template):
        sha = template.sha("feature")
        return lambda path, root=template.path: lines_at(root, sha, path)

    def test_lines_without_their_line_ends(self, lines):
        """A text file's lines, CR of CRLF endings dropped."""
        assert lines("crlf.txt") == ["x", "Y"]
        assert lines("empty.txt") == []

    @pytest.mark.parametrize("path", ["missing.txt", "sub", "b.bin", "del.txt"], ids=str)
    def test_no_text_file_there_is_none(self, lines, path):
        """Missing, a submodule, a binary file or a deleted file: no lines, never an error."""
        assert lines(path) is None

    def test_not_a_repository_is_none(self, lines, tmp_path):
        """A checkout that is not a clone has no lines at any commit."""
        assert lines("keep.txt", root=tmp_path) is None


class _Recorder(BaseHTTPRequestHandler):
    def do_GET(self):
        self.server.seen.append((self.path, self.headers.get("Authorization")))
        self.send_response(404)
        self.end_headers()

    def log_message(self, *args):
        pass


@pytest.fixture
def http_remote(monkeypatch):
    """A loopback HTTP server that records what git sends and answers 404."""
    for name in (
        "http_proxy",
        "https_proxy",
        "HTTP_PROXY",
        "HTTPS_PROXY",
        "ALL_PROXY",
        "all_proxy",
    ):
        monkeypatch.delenv(name, raising=False)
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Recorder)
    server.seen = []
    thread = threading.Thread(
        target=server.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True
    )
    thread.start()
    yield server
    server.shutdown()
    server.server_close()
    thread.join()


class TestToken:
    def test_token_goes_in_a_header_never_in_the_url_or_the_error(
        self, http_remote, git_env, tmp_path
    ):
        """The token is sent as a Basic header for the clone host; the URL and error never carry it."""
        token = "ghs_SuperSecretToken123"
        url = f"http://127.0.0.1:{http_remote.server_address[1]}/o/r.git"
        with (
            pytest.raises(RepositoryError) as caught,
            pr_checkout(url, number=1, head_sha="a" * 40, token=token),
        ):
            pass
        basic = base64.b64encode(f"x-access-token:{token}".encode()).decode()
        assert http_remote.seen, "git never reached the server"
        path, authorization = http_remote.seen[0]
        assert authorization == f"Basic {basic}"
        assert token not in path
        message = str(caught.value)
        assert message.startswith(f"could not fetch PR #1 from {url}: ")
        assert token not in message
        assert basic not in message

    def test_no_token_for_a_clone_over_plain_http_to_a_remote_host(self):
        """The clone follows the token rule of the API (sources/pr_ref.py): https, or loopback."""
        token = "ghs_SuperSecretToken123"
        assert _auth_config("http://ghe.corp.example/o/r.git", token) == {}
        assert list(_auth_config("https://ghe.corp.example/o/r.git", token)) == [
            "http.https://ghe.corp.example/.extraHeader"
        ]


class TestTreeFiles:
    def test_the_root_folder_lists_the_top_level_files(self, tmp_path):
        """`[review] guidelines = ["*.md"]` asks for the root's names: a local review reads
        them as the contents API lists them for the Action (it read nothing)."""
        made = make_repo(
            tmp_path / "r", {"REVIEW.md": "be kind\n", "src/AGENTS.md": "x\n"}, {"a.py": "1\n"}
        )
        repo = Repo(made.path)
        files = TreeFiles(repo=repo, sha=repo.commit("main").hexsha)
        assert files.names("") == ("REVIEW.md",)
        assert files.names("src") == ("AGENTS.md",)
        assert files.text("REVIEW.md") == "be kind\n"

    def test_what_is_not_readable_text_says_why(self, tmp_path):
        """A folder, a file over 1 MB, bytes that are not UTF-8: each one reason, no crash."""
        made = make_repo(
            tmp_path / "r",
            {"big.md": "x" * (1024 * 1024 + 1), "docs/a.md": "a\n"},
            {"a.py": "1\n"},
        )
        (made.path / "bin.md").write_bytes(b"\xff\xfe")
        repo = Repo(made.path)
        repo.git.checkout("-q", "main")
        repo.git.add("bin.md")
        repo.git.commit("-q", "-m", "binary")
        files = TreeFiles(repo=repo, sha=repo.commit("main").hexsha)
        for path, why in (("docs", "is not a file"), ("big.md", "too large"), ("bin.md", "UTF-8")):
            with pytest.raises(UnreadableFile, match=why):
                files.text(path)
        assert files.text("missing.md") is None
