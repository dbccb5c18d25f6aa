"""Synthetic pull requests as real git repositories, for the benchmarks.

`make_pr_repo(root, n_files)` builds a repository with a base commit and a head
commit that changes `n_files` files with a realistic mix: mostly small edits to
source files, some larger ones, new files, deletions, renames with edits, binary
files and one lockfile. Deterministic for a given `n_files` and `seed`.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path

from tests.fakes.gitrepo import GitRepo, git


@dataclass(frozen=True, slots=True)
class PRRepo:
    path: Path
    base_sha: str
    head_sha: str
    n_files: int


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
    repo = GitRepo.init(root)
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
    base = repo.commit("base")
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
    head = repo.commit("head")
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
