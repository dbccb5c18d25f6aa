"""Real git repositories in tmp_path, isolated from the user's and the system's git config."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.fakes.gitrepo import GitRepo


def isolate_git(monkeypatch: pytest.MonkeyPatch, home: Path) -> None:
    """Deterministic git: no global or system config, fixed identities and dates."""
    home.mkdir(exist_ok=True)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(home / "gitconfig"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    for role in ("AUTHOR", "COMMITTER"):
        monkeypatch.setenv(f"GIT_{role}_NAME", "Dev Eloper")
        monkeypatch.setenv(f"GIT_{role}_EMAIL", "dev@example.com")
        monkeypatch.setenv(f"GIT_{role}_DATE", "2024-01-01T00:00:00+00:00")
    for name in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_CONFIG_COUNT"):
        monkeypatch.delenv(name, raising=False)


def repo_factory(root: Path) -> Callable[..., GitRepo]:
    def make(name: str, *, bare: bool = False) -> GitRepo:
        return GitRepo.init(root / name, bare=bare)

    return make


@pytest.fixture
def git_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Isolated git for one test."""
    isolate_git(monkeypatch, tmp_path / "home")


@pytest.fixture
def make_repo(tmp_path: Path, git_env: None) -> Callable[..., GitRepo]:
    """`make_repo("name")` → a fresh repository on branch `main`; `bare=True` for a remote."""
    return repo_factory(tmp_path)


@pytest.fixture(scope="module")
def make_module_repo(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Callable[..., GitRepo]]:
    """Like `make_repo`, for repositories built once per module (tests must not change them)."""
    root = tmp_path_factory.mktemp("repos")
    with pytest.MonkeyPatch.context() as monkeypatch:
        isolate_git(monkeypatch, root / "home")
        yield repo_factory(root)
