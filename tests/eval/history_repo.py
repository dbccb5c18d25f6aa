"""Small git repositories with a known history, built by the tests (the real git CLI)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path


class Builder:
    """A repository on `main`; every commit one hour after the previous one (2026-01-01 on)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._clock = 1_767_225_600
        path.mkdir(parents=True, exist_ok=True)
        self.git("init", "-q", "-b", "main")

    def git(self, *args: str) -> str:
        self._clock += 3600
        env = {
            **os.environ,
            "GIT_AUTHOR_NAME": "Dev",
            "GIT_AUTHOR_EMAIL": "dev@example.com",
            "GIT_COMMITTER_NAME": "Dev",
            "GIT_COMMITTER_EMAIL": "dev@example.com",
            "GIT_AUTHOR_DATE": f"{self._clock} +0000",
            "GIT_COMMITTER_DATE": f"{self._clock} +0000",
            "GIT_CONFIG_GLOBAL": os.devnull,
            "GIT_CONFIG_NOSYSTEM": "1",
        }
        done = subprocess.run(
            ["git", *args], cwd=self.path, env=env, check=True, capture_output=True, text=True
        )
        return done.stdout.strip()

    def commit(self, message: str, files: dict[str, str | None]) -> str:
        """Write (None: delete) the files and commit them; the new SHA."""
        for name, text in files.items():
            target = self.path / name
            if text is None:
                self.git("rm", "-q", name)
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
            self.git("add", name)
        self.git("commit", "-q", "-m", message)
        return self.git("rev-parse", "HEAD")

    def move(self, old: str, new: str, message: str) -> str:
        self.git("mv", old, new)
        self.git("commit", "-q", "-m", message)
        return self.git("rev-parse", "HEAD")

    def branch(self, name: str, start: str = "main") -> None:
        self.git("checkout", "-q", "-b", name, start)

    def checkout(self, name: str) -> None:
        self.git("checkout", "-q", name)

    def merge(self, branch: str, message: str) -> str:
        """A merge commit (never a fast-forward) of `branch` into the current branch."""
        self.git("merge", "-q", "--no-ff", "-m", message, branch)
        return self.git("rev-parse", "HEAD")

    def merge_pr(self, number: int, branch: str, title: str) -> str:
        """Merge `branch` into main as GitHub's merge button does."""
        self.checkout("main")
        return self.merge(branch, f"Merge pull request #{number} from dev/{branch}\n\n{title}")


CODE = "def add(a, b):\n    # sum of a and b\n    return a - b\n\n\ndef keep():\n    return 1\n"
FIXED = CODE.replace("a - b", "a + b")


def with_buggy_pr(repo: Builder) -> str:
    """PR 1 writes `add` with a bug (a - b); the merge's SHA."""
    repo.branch("add")
    repo.commit("Add add()", {"calc.py": CODE})
    return repo.merge_pr(1, "add", "Add an add() helper")
