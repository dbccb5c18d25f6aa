"""`reviewbot learn --check`: the learnings whose code is gone from the default branch.

A learning is stale when its scope matches no file at the head of the repository's
default branch, or when the code it was dismissed on (its `quote`, normalised as the
fingerprint normalises it) is in none of the files its scope matches there. A stale
learning suppresses nothing any more that a person would miss, but it may match a new
finding by rule: the report says so, and a person removes it.

Must not: write anything.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Callable
from dataclasses import dataclass

from reviewbot.config.file import matches_any
from reviewbot.config.learnings import Learning, Learnings
from reviewbot.github.answers import Shape, shapes
from reviewbot.github.rest import GitHubClient, RefusedNotFound, repo_path
from reviewbot.nodes.fingerprint import normalize_code

MAX_READ = 200  # files of one scope read to look for the quote; past it, not judged


class _Repo(Shape):
    default_branch: str


class _Entry(Shape):
    path: str
    type: str


class _Tree(Shape):
    sha: str
    tree: list[_Entry]
    truncated: bool = False


class _Blob(Shape):
    content: str | None = None
    encoding: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Stale:
    learning: Learning
    why: str


@dataclass(frozen=True, slots=True, kw_only=True)
class Checked:
    branch: str
    head: str
    stale: tuple[Stale, ...]
    notes: tuple[str, ...] = ()


def check_stale(client: GitHubClient, repo: str, learnings: Learnings) -> Checked:
    """Each learning judged against the default branch's head (one tree read, few files)."""
    branch = _Repo.model_validate(client.get(repo_path(repo))).default_branch
    tree = _Tree.model_validate(
        client.get(repo_path(repo, "git", "trees", branch), {"recursive": "1"})
    )
    files = tuple(e.path for e in tree.tree if e.type == "blob")
    notes: tuple[str, ...] = ()
    if tree.truncated:
        notes = (f"the tree of {branch} is too large to list whole: scopes were not judged",)

    def text_of(path: str) -> str | None:
        return file_text(client, repo, path, tree.sha)

    stale = []
    for learning in learnings.entries:
        why = _why_stale(learning, files, text_of, truncated=tree.truncated)
        if why is not None:
            stale.append(Stale(learning=learning, why=why))
    return Checked(branch=branch, head=tree.sha, stale=tuple(stale), notes=notes)


def _why_stale(
    learning: Learning,
    files: tuple[str, ...],
    text_of: Callable[[str], str | None],
    *,
    truncated: bool,
) -> str | None:
    in_scope = [path for path in files if matches_any(path, (learning.scope,))]
    if not in_scope:
        return None if truncated else f"its scope {learning.scope!r} matches no file"
    quote = normalize_code(learning.quote)
    if not quote or len(in_scope) > MAX_READ:
        return None
    # The file it was dismissed in first: usually the one that still has it.
    ordered = sorted(in_scope, key=lambda path: path != learning.path)
    for path in ordered:
        text = text_of(path)
        if text is not None and quote in normalize_code(text):
            return None
    return (
        f"the code it was dismissed on is in none of the {len(in_scope)} file(s) its scope matches"
    )


def file_text(client: GitHubClient, repo: str, path: str, ref: str) -> str | None:
    """A file's text at `ref` through the contents API; None when absent or not text."""
    try:
        found = client.get(repo_path(repo, "contents", *path.split("/")), {"ref": ref})
    except RefusedNotFound:
        return None
    blobs = shapes([found], _Blob)
    if not blobs or blobs[0].encoding != "base64":
        return None
    try:
        return base64.b64decode(blobs[0].content or "").decode("utf-8")
    except (binascii.Error, UnicodeDecodeError):
        return None
