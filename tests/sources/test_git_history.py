"""The history adapter on repositories built here: what it asks git, and its one-line errors."""

from __future__ import annotations

import pytest

from reviewbot.errors import RepositoryError
from reviewbot.sources.git_history import History
from tests.eval.history_repo import Builder


@pytest.fixture
def repo(tmp_path):
    builder = Builder(tmp_path / "repo")
    builder.commit("Initial commit", {"app.py": "VERSION = 1\n"})
    return builder


def test_a_folder_that_is_no_repository_is_one_line(tmp_path):
    with pytest.raises(RepositoryError, match="is not a git repository"):
        History(tmp_path)


def test_a_revision_git_does_not_know_is_a_repository_error(repo):
    with pytest.raises(RepositoryError, match="git rev-parse failed"):
        History(repo.path).resolve("no-such-branch")


@pytest.mark.parametrize(
    ("remote", "slug"),
    [
        ("git@github.com:pallets/click.git", "pallets/click"),
        ("https://github.com/psf/requests", "psf/requests"),
        ("https://gitlab.example/group/app.git", None),
    ],
)
def test_the_origin_names_the_github_repository(repo, remote, slug):
    assert History(repo.path).github_slug() is None  # no origin yet
    repo.git("remote", "add", "origin", remote)
    assert History(repo.path).github_slug() == slug


def test_a_binary_change_is_marked_and_has_no_lines(repo):
    (repo.path / "logo.bin").write_bytes(b"\x00\x01\x02")
    repo.git("add", "logo.bin")
    repo.git("commit", "-q", "-m", "Add a logo")
    history = History(repo.path)
    (newest, *_) = history.history_commits("HEAD")
    (change,) = history.changed_lines(newest)
    assert (change.new_path, change.binary, change.hunks) == ("logo.bin", True, ())
