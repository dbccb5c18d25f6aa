"""Synthetic pull requests as real git repositories, for the benchmarks.

`make_pr_repo(root, n_files)` builds a repository with a base commit and a head
commit that changes `n_files` files with a realistic mix: mostly small edits to
source files, some larger ones, new files, deletions, renames with edits, binary
files and one lockfile. Deterministic for a given `n_files` and `seed`.
"""

from __future__ import annotations

import random
import subprocess
from dataclasses import dataclass
from pathlib import Path

_GIT_ENV = {
    "GIT_AUTHOR_NAME": "bench",
    "GIT_AUTHOR_EMAIL": "bench@example.invalid",
    "GIT_COMMITTER_NAME": "bench",
    "GIT_COMMITTER_EMAIL": "bench@example.invalid",
    "GIT_AUTHOR_DATE": "2026-01-01T00:00:00Z",
    "GIT_COMMITTER_DATE": "2026-01-01T00:00:00Z",
    "PATH": "/usr/bin:/bin:/usr/local/bin",
    "HOME": "/tmp",
}


@dataclass(frozen=True, slots=True)
class PRRepo:
    path: Path
    base_sha: str
    head_sha: str
    n_files: int


def git(repo: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", *args], cwd=repo, env=_GIT_ENV, check=True, capture_output=True, text=True
    )
    return done.stdout.strip()


def _source(rnd: random.Random, name: str, lines: int) -> str:
    body = [f'"""Module {name}."""', "", "import os", ""]
    for i in range(lines):
        if i % 12 == 0:
            body.append(f"def {name}_fn_{i}(value):")
        body.append(f"    value = value + {rnd.randint(0, 999)}  # step {i}")
    body.append("")
    return "\n".join(body)


def _edit(rnd: random.Random, text: str, edits: int) -> str:
    lines = text.splitlines()
    for _ in range(edits):
        at = rnd.randrange(4, max(5, len(lines)))
        if rnd.random() < 0.5:
            lines.insert(at, f"    value = value * {rnd.randint(2, 9)}  # changed")
        elif at < len(lines):
            lines[at] = lines[at].replace("+", "-")
    return "\n".join(lines) + "\n"


def make_pr_repo(root: Path, n_files: int, *, seed: int = 7) -> PRRepo:
    """A repository whose HEAD differs from HEAD~1 in exactly `n_files` files."""
    rnd = random.Random(seed * 100_003 + n_files)
    root.mkdir(parents=True, exist_ok=True)
    git(root, "init", "-q", "-b", "main")
    kinds = rnd.choices(
        ["small", "large", "added", "deleted", "renamed", "binary"],
        weights=[70, 8, 10, 4, 5, 3],
        k=n_files - 1,
    )
    kinds.append("lockfile")
    sizes = {
        k: (rnd.randint(20, 120) if kinds[k] != "large" else rnd.randint(400, 1500))
        for k in range(n_files)
    }
    for i, kind in enumerate(kinds):
        path = root / f"pkg{i % 50}" / f"mod_{i}.py"
        path.parent.mkdir(parents=True, exist_ok=True)
        if kind == "binary":
            path.with_suffix(".bin").write_bytes(bytes(rnd.randrange(256) for _ in range(2048)))
        elif kind == "lockfile":
            (root / "package-lock.json").write_text('{\n  "lockfileVersion": 3\n}\n')
        elif kind != "added":
            path.write_text(_source(rnd, f"m{i}", sizes[i]))
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "base")
    base = git(root, "rev-parse", "HEAD")
    for i, kind in enumerate(kinds):
        path = root / f"pkg{i % 50}" / f"mod_{i}.py"
        if kind in ("small", "large"):
            path.write_text(_edit(rnd, path.read_text(), 3 if kind == "small" else 40))
        elif kind == "added":
            path.write_text(_source(rnd, f"n{i}", sizes[i]))
        elif kind == "deleted":
            path.unlink()
        elif kind == "renamed":
            target = path.with_name(f"renamed_{i}.py")
            target.write_text(_edit(rnd, path.read_text(), 1))
            path.unlink()
        elif kind == "binary":
            path.with_suffix(".bin").write_bytes(bytes(rnd.randrange(256) for _ in range(2048)))
        else:
            lock = "\n".join(f'    "dep{j}": "{j}.0.0",' for j in range(5000))
            (root / "package-lock.json").write_text("{\n" + lock + "\n}\n")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "head")
    head = git(root, "rev-parse", "HEAD")
    return PRRepo(path=root, base_sha=base, head_sha=head, n_files=n_files)


if __name__ == "__main__":
    import sys
    import tempfile
    import time

    for n in map(int, sys.argv[1:] or ["10", "100"]):
        with tempfile.TemporaryDirectory() as tmp:
            started = time.perf_counter()
            repo = make_pr_repo(Path(tmp) / "repo", n)
            changed = git(
                repo.path, "diff", "--name-status", "-M", repo.base_sha, repo.head_sha
            ).splitlines()
            print(
                f"{n:>5} files requested, {len(changed):>5} changed, built in {time.perf_counter() - started:.1f}s"
            )
