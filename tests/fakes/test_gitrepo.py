"""The test repository builder: a fixed environment, and the base/feature shape of `make_repo`."""

from __future__ import annotations

import pytest

from tests.fakes.gitrepo import DATE, GitRepo, git, make_repo


class TestEnvironment:
    def test_the_callers_git_variables_do_not_leak_in(self, tmp_path, monkeypatch):
        """With GIT_DIR/GIT_WORK_TREE/GIT_INDEX_FILE set (a git hook), commits still land here."""
        other = GitRepo.init(tmp_path / "other")
        monkeypatch.setenv("GIT_DIR", str(other.path / ".git"))
        monkeypatch.setenv("GIT_WORK_TREE", str(other.path))
        monkeypatch.setenv("GIT_INDEX_FILE", str(other.path / ".git" / "index"))
        monkeypatch.setenv("GIT_AUTHOR_NAME", "Someone Else")
        repo = make_repo(tmp_path / "repo", {"a.txt": "1\n"}, {"a.txt": "2\n"})
        log = repo.git("log", "--format=%an %aI %s", "feature").splitlines()
        assert log == ["Ada 2024-01-01T00:00:00+00:00 head", "Ada 2024-01-01T00:00:00+00:00 base"]
        assert other.git("for-each-ref") == ""

    def test_commit_dates_are_fixed_or_given(self, tmp_path):
        """Commits are dated DATE unless a date is given, so SHAs repeat from run to run."""
        repo = GitRepo.init(tmp_path / "repo")
        repo.write("a.txt", "1\n")
        first = repo.commit("one")
        second = repo.commit("two", date="2024-02-01T00:00:00Z")
        dates = [git(repo.path, "show", "-s", "--format=%aI %cI", sha) for sha in (first, second)]
        assert DATE == "2024-01-01T00:00:00Z"
        assert dates == [
            "2024-01-01T00:00:00+00:00 2024-01-01T00:00:00+00:00",
            "2024-02-01T00:00:00+00:00 2024-02-01T00:00:00+00:00",
        ]


class TestMakeRepo:
    def test_base_on_main_head_on_feature_checked_out(self, tmp_path):
        """`main` holds the base, `feature` changes, adds and deletes files and is checked out."""
        repo = make_repo(
            tmp_path / "repo",
            {"keep.txt": "k\n", "gone.txt": "g\n", "bin.dat": b"\x00\x01"},
            {"keep.txt": "k2\n", "gone.txt": None, "new.txt": "n\n"},
        )
        assert repo.git("branch", "--show-current") == "feature"
        changes = repo.git("diff", "--name-status", "main", "feature").splitlines()
        assert changes == ["D\tgone.txt", "M\tkeep.txt", "A\tnew.txt"]
        assert repo.git("show", "main:bin.dat", strip=False) == "\x00\x01"

    @pytest.mark.parametrize(
        ("base_links", "expected"),
        [({"vendor/lib": "a" * 40}, "M"), (None, "A")],
        ids=["bumped", "added"],
    )
    def test_links_are_submodule_pointers(self, tmp_path, base_links, expected):
        """`*_links` record gitlinks (mode 160000) without any directory or clone."""
        repo = make_repo(
            tmp_path / "repo",
            {"a.txt": "1\n"},
            {},
            base_links=base_links,
            head_links={"vendor/lib": "b" * 40},
        )
        assert (
            repo.git("ls-tree", "feature", "vendor/lib") == f"160000 commit {'b' * 40}\tvendor/lib"
        )
        assert repo.git("diff", "--name-status", "main", "feature") == f"{expected}\tvendor/lib"
