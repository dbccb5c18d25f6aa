"""A git repository on disk driven with the real `git` binary, for building test repositories."""

from __future__ import annotations

import subprocess
from pathlib import Path


class GitRepo:
    """A git repository on disk driven with the real `git` binary."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def git(self, *args: str) -> str:
        done = subprocess.run(
            ["git", *args], cwd=self.path, check=True, capture_output=True, text=False
        )
        return done.stdout.decode("utf-8", errors="replace").strip()

    def write(self, name: str, content: str | bytes, *, mode: int | None = None) -> Path:
        path = self.path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_bytes(content.encode("utf-8"))
        if mode is not None:
            path.chmod(mode)
        return path

    def commit(self, message: str) -> str:
        self.git("add", "--all")
        self.git("commit", "--quiet", "--allow-empty", "-m", message)
        return self.sha("HEAD")

    def sha(self, ref: str) -> str:
        return self.git("rev-parse", ref)

    def gitlink(self, path: str, sha: str) -> None:
        """Record a submodule pointer without cloning anything (what `git submodule add` stores)."""
        self.git("update-index", "--add", "--cacheinfo", f"160000,{sha},{path}")
