"""A real git repository mirrored into the fake GitHub: what end-to-end tests and benches review.

`seed_pull(fake, repo, base, head)` lists the PR's files with GitHub-style patches
(hunks only, no `diff --git` header; none for binary files), puts the base
branch's `.reviewbot.toml` into the contents API, and points the repository's
`clone_url` at the real repository on disk (`file://`), so reviewbot's clone of
`refs/pull/N/head` works with no network. The real repository must have that ref:
`seed_pull` creates it.
"""

from __future__ import annotations

import codecs
import subprocess
from pathlib import Path
from typing import Any

from tests.fakes.github_api import FakeFile, FakeGitHub, FakePull
from tests.fakes.gitrepo import git

_STATUS = {
    "A": "added",
    "D": "removed",
    "M": "modified",
    "R": "renamed",
    "C": "copied",
    "T": "changed",
}


def github_files(repo: Path, base: str, head: str) -> list[FakeFile]:
    """The PR's files as GitHub's files API lists them, patches included."""
    diff = ("diff", "-M", "--no-color", "--no-ext-diff", "--full-index", base, head)
    text = git(repo, *diff, strip=False)  # a last context line may be only spaces
    statuses = _name_status(repo, base, head)
    files = []
    for block in _blocks(text):
        header, _, rest = block.partition("\n@@")
        patch = ("@@" + rest).rstrip("\n") if rest else None
        path, old = _paths(header)
        status = statuses.get(path, "modified")
        files.append(
            FakeFile(
                filename=path,
                status=status,
                patch=patch,
                previous_filename=old if status in ("renamed", "copied") else None,
            )
        )
    return files


def _name_status(repo: Path, base: str, head: str) -> dict[str, str]:
    # -z: names as they are (GitHub lists them raw), not C-quoted, and split on NUL only.
    fields = git(repo, "diff", "-M", "-z", "--name-status", base, head, strip=False).split("\0")
    found = {}
    i = 0
    while i < len(fields) and fields[i]:
        status = fields[i]
        names = 2 if status[0] in "RC" else 1
        found[fields[i + names]] = _STATUS.get(status[0], "modified")
        i += names + 1
    return found


def _blocks(diff: str) -> list[str]:
    blocks = diff.split("\ndiff --git ")
    blocks[0] = blocks[0].removeprefix("diff --git ")
    return [b for b in blocks if b.strip()]


def _unquoted(name: str) -> str:
    """git's C-quoted form of an unusual path (`"a\\"b\\n.py"`) as the path itself."""
    if not (name.startswith('"') and name.endswith('"')):
        return name
    return codecs.escape_decode(name[1:-1].encode())[0].decode("utf-8")


def _paths(header: str) -> tuple[str, str | None]:
    old = new = None
    # Split on LF only: a C-quoted name never holds a raw newline, and other line breaks
    # (U+2028, \x85) in a name are the name's own.
    for line in header.split("\n"):
        if line.startswith(("rename from ", "copy from ")):
            old = _unquoted(line.split(" from ", 1)[1])
        elif line.startswith(("rename to ", "copy to ")):
            new = _unquoted(line.split(" to ", 1)[1])
        elif line.startswith("+++ ") and line != "+++ /dev/null":
            # A name with a space ends with a tab; an unusual one is C-quoted, prefix inside.
            new = new or _unquoted(line[4:].rstrip("\t")).removeprefix("b/")
        elif line.startswith("--- ") and line != "--- /dev/null":
            old = old or _unquoted(line[4:].rstrip("\t")).removeprefix("a/")
    if new is None:  # a deletion, or a binary/mode-only change without ---/+++ lines
        first = header.splitlines()[0]
        new = first.split(" b/", 1)[1] if " b/" in first else first
    return new, old


def seed_pull(
    fake: FakeGitHub,
    repo: Path,
    base: str,
    head: str,
    *,
    full_name: str = "octo/app",
    number: int = 7,
    **fields: Any,
) -> FakePull:
    """Mirror `base..head` of the real `repo` as PR `number` of `full_name` in `fake`."""
    base_sha, head_sha = git(repo, "rev-parse", base), git(repo, "rev-parse", head)
    git(repo, "update-ref", f"refs/pull/{number}/head", head_sha)
    fake_repo = fake.repos.get(full_name) or fake.add_repo(full_name)
    fake_repo.clone_url = repo.resolve().as_uri()
    fake_repo.branches[fields.get("base_ref", "main")] = base_sha
    for name in (".reviewbot.toml", ".reviewbot/learnings.toml"):  # read from the base
        try:
            config = git(repo, "show", f"{base_sha}:{name}")
        except subprocess.CalledProcessError:
            config = None
        if config is not None:
            fake.set_content(full_name, base_sha, name, config + "\n")
    commits = git(repo, "rev-list", "--reverse", f"{base_sha}..{head_sha}").split()
    return fake.add_pull(
        full_name,
        number=number,
        base_sha=base_sha,
        head_sha=head_sha,
        files=github_files(repo, base_sha, head_sha),
        commits=commits or [head_sha],
        **fields,
    )
