"""Real git repositories for tests and benches, driven by the `git` binary in a fixed environment.

Owns: `GIT_ENV` (a fixed identity and dates, no global or system config), `git()` for one
command, `GitRepo` (init, write, commit, refs, submodule pointers) and `make_repo()` (the PR
shape every world uses: `main` holds the base, `feature` is checked out and changes it).

Must not: pass the caller's environment through. A test run from a git hook has GIT_DIR,
GIT_WORK_TREE and GIT_INDEX_FILE set, and with them every `git commit` here would land in
that other repository; the developer's config (signing, hooks, templates) must not apply.

    repo = make_repo(tmp_path / "repo", base={"a.py": "x = 1\\n"}, head={"a.py": "x = 2\\n"})
    repo.sha("main"), repo.sha("feature")
"""

from __future__ import annotations

import subprocess
from collections.abc import Mapping
from pathlib import Path

DATE = "2024-01-01T00:00:00Z"
GIT_ENV = {
    "GIT_AUTHOR_NAME": "Ada",
    "GIT_AUTHOR_EMAIL": "ada@example.com",
    "GIT_COMMITTER_NAME": "Ada",
    "GIT_COMMITTER_EMAIL": "ada@example.com",
    "GIT_CONFIG_GLOBAL": "/dev/null",
    "GIT_CONFIG_NOSYSTEM": "1",
    "HOME": "/nonexistent",
    "LANG": "C.UTF-8",
    "PATH": "/usr/local/bin:/usr/bin:/bin",
}

Files = Mapping[str, str | bytes | None]  # path → content; None deletes the file


def git(path: Path, *args: str, date: str = DATE, strip: bool = True) -> str:
    """Run `git ARGS` in `path` with `GIT_ENV`, commits dated `date`; stdout (stripped)."""
    env = {**GIT_ENV, "GIT_AUTHOR_DATE": date, "GIT_COMMITTER_DATE": date}
    done = subprocess.run(["git", *args], cwd=path, env=env, check=True, capture_output=True)
    out = done.stdout.decode("utf-8", errors="replace")
    return out.strip() if strip else out


class GitRepo:
    """A git repository on disk."""

    def __init__(self, path: Path) -> None:
        self.path = path

    @classmethod
    def init(cls, path: Path, *, bare: bool = False) -> GitRepo:
        """A new, empty repository on branch `main` (`path` is created)."""
        path.mkdir(parents=True, exist_ok=True)
        git(path, "init", "--quiet", "--initial-branch=main", *(["--bare"] if bare else []))
        return cls(path)

    def git(self, *args: str, date: str = DATE, strip: bool = True) -> str:
        return git(self.path, *args, date=date, strip=strip)

    def write(self, name: str, content: str | bytes, *, mode: int | None = None) -> Path:
        path = self.path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content.encode("utf-8") if isinstance(content, str) else content)
        if mode is not None:
            path.chmod(mode)
        return path

    def write_files(self, files: Files) -> None:
        for name, content in files.items():
            if content is None:
                (self.path / name).unlink()
            else:
                self.write(name, content)

    def commit(self, message: str, *, date: str = DATE) -> str:
        """Stage everything and commit (empty commits allowed); the new SHA."""
        self.git("add", "--all")
        self.git("commit", "--quiet", "--allow-empty", "-m", message, date=date)
        return self.sha("HEAD")

    def sha(self, ref: str) -> str:
        return self.git("rev-parse", ref)

    def gitlink(self, path: str, sha: str) -> None:
        """Record a submodule pointer without cloning anything (what `git submodule add` stores)."""
        self.git("update-index", "--add", "--cacheinfo", f"160000,{sha},{path}")


def make_repo(
    path: Path,
    base: Files,
    head: Files,
    *,
    base_links: Mapping[str, str] | None = None,
    head_links: Mapping[str, str] | None = None,
) -> GitRepo:
    """`main` holds `base`; `feature` (checked out) changes it by `head`.

    `*_links` map a path to the commit SHA recorded there as a submodule pointer.
    """
    repo = GitRepo.init(path)
    _commit(repo, base, base_links, "base")
    repo.git("checkout", "--quiet", "-b", "feature")
    _commit(repo, head, head_links, "head")
    return repo


def _commit(repo: GitRepo, files: Files, links: Mapping[str, str] | None, message: str) -> None:
    repo.write_files(files)
    repo.git("add", "--all")
    for path, sha in (links or {}).items():
        repo.gitlink(path, sha)  # after `add`: the pointer has no directory it could remove
    repo.git("commit", "--quiet", "--allow-empty", "-m", message)
