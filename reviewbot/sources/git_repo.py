"""Local git (GitPython): the `--local` source, and the PR-head checkout for GitHub PRs.

Owns every git command reviewbot runs:
- `local_snapshot` reviews `merge-base(base, head)..head` of a repository on disk,
  with no GitHub and no token. The config comes from the tip of `base`
  (`git show BASE:.reviewbot.toml`), never from `head`.
- `head_checkout` gives the read tools a working tree of the head commit: the
  repository's own working tree when it is exactly that commit (`_is_exactly`),
  otherwise a temporary extraction of the head commit (a throwaway index +
  `git checkout-index`, so the user's repository gains no worktree, branch or ref).
- `pr_checkout` gives the PR head of a GitHub PR: the Actions workspace when it is
  exactly the PR head (the same predicate), else a shallow fetch of
  `refs/pull/N/head` (present on the base repository for fork PRs too) into a
  temporary directory removed afterwards. When an earlier review's head is named
  (`since`), the fetch is as deep as the PR's commits, so that head is in the clone's
  history when (and only when) the push since only added commits.
- `push_since` reads what a push did from that history: whether the reviewed head is an
  ancestor of the new one, the diff between them, and whether a merge came in between.

"Exactly the commit" means HEAD is that SHA and `git status --porcelain --ignored`
is empty: nothing staged, modified, untracked OR ignored. Ignored files matter
most: a `.env` or a credentials file next to the code is ignored precisely
because it holds secrets, and the read tools must only ever see the commit.

Must not: execute anything from the reviewed code. Hooks are switched off, LFS
smudging is skipped, submodules are not fetched. The token never goes into a URL,
a command line or a git config file: it travels as an `http.extraHeader` through
`GIT_CONFIG_*` environment variables, scoped to the clone URL's host, and is
scrubbed from error messages. Diff text is decoded as UTF-8 with errors="replace"
(U+FFFD for undecodable bytes): the text goes to the model and to GitHub, which
both need valid UTF-8, and a replacement never adds or removes a line, so line
numbers stay exact.
"""

from __future__ import annotations

import base64
import logging
import tempfile
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from git import Blob, GitCommandError, InvalidGitRepositoryError, NoSuchPathError, Repo, Tree

from reviewbot.config.file import (
    CONFIG_FILE,
    ReviewConfig,
    config_of,
    config_origin,
    config_path_in_repo,
)
from reviewbot.config.learnings import LEARNINGS_FILE, Learnings, load_learnings
from reviewbot.errors import ConfigError, HeadMoved, NotFoundError, RepositoryError
from reviewbot.sources.diff_index import DiffIndex, index_from_unified_diff
from reviewbot.sources.guidelines import MAX_BYTES, UnreadableFile, read_guidelines
from reviewbot.sources.pr_ref import may_carry_token
from reviewbot.sources.snapshot import Origin, PRCommit, PRSnapshot

log = logging.getLogger(__name__)

# Settings for every git command we run, whatever the user's or the repository's config says.
_SAFE_CONFIG = {
    "core.quotePath": "false",  # non-ASCII paths as UTF-8, not octal escapes
    "core.hooksPath": "/dev/null",  # never run a hook
    "advice.detachedHead": "false",
    "core.fsmonitor": "false",  # never start a file-system monitor (a command) for `git status`
}
_SAFE_ENV = {
    "GIT_TERMINAL_PROMPT": "0",  # fail instead of asking for a password
    "GIT_LFS_SKIP_SMUDGE": "1",  # no LFS downloads (network, credentials) during checkout
}
_DIFF_OPTIONS = (
    "--no-color",
    "--no-ext-diff",
    "--no-textconv",
    "--no-relative",
    "--src-prefix=a/",  # diff.noprefix / diff.mnemonicPrefix must not change the format
    "--dst-prefix=b/",
    "--submodule=short",
    "--ignore-submodules=none",
    "--unified=3",  # what GitHub shows, so commentable lines match
    "--find-renames",
    "--find-copies",
)


def _env(extra_config: Mapping[str, str] | None = None) -> dict[str, str]:
    config = {**_SAFE_CONFIG, **(extra_config or {})}
    env = dict(_SAFE_ENV, GIT_CONFIG_COUNT=str(len(config)))
    for i, (key, value) in enumerate(config.items()):
        env[f"GIT_CONFIG_KEY_{i}"] = key
        env[f"GIT_CONFIG_VALUE_{i}"] = value
    return env


def _git_failure(exc: GitCommandError, what: str, *, secrets: tuple[str, ...] = ()) -> str:
    """One line: what failed and git's last words, with any secret scrubbed."""
    stderr = str(exc.stderr).strip().removeprefix("stderr:").strip().strip("'").strip()
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    detail = lines[-1] if lines else f"exit status {exc.status}"
    message = f"{what}: {detail}"
    for secret in secrets:
        message = message.replace(secret, "***")
    return message


# ------------------------------------------------------------------ the local source


def open_repo(path: Path) -> Repo:
    try:
        return Repo(path, search_parent_directories=True)
    except (InvalidGitRepositoryError, NoSuchPathError) as exc:
        raise RepositoryError(
            f"{path} is not inside a git repository — run reviewbot --local in a checkout"
        ) from exc


def resolve(repo: Repo, ref: str, *, option: str = "--base") -> str:
    """The commit SHA `ref` names; NotFoundError("unknown ref 'X' — pass …") otherwise."""
    sha = _commit_of(repo, ref)
    if sha is None:
        raise NotFoundError(
            f"unknown ref {ref!r} — pass {option} with a branch, tag or commit of this repository"
            " (git branch --all lists them)"
        )
    return sha


def _commit_of(repo: Repo, ref: str) -> str | None:
    try:
        sha = repo.git.rev_parse("--verify", "--quiet", "--end-of-options", f"{ref}^{{commit}}")
    except GitCommandError:
        return None
    return str(sha).strip()


DEFAULT_BASES = ("main", "master", "origin/main", "origin/master")


def default_base(repo: Repo) -> str:
    """The repository's default branch: what origin/HEAD points at, else main, else master."""
    try:
        remote_head = str(repo.git.symbolic_ref("--quiet", "--short", "refs/remotes/origin/HEAD"))
    except GitCommandError:
        remote_head = ""
    for candidate in (remote_head.strip(), *DEFAULT_BASES):
        if candidate and _commit_of(repo, candidate) is not None:
            return candidate
    raise NotFoundError(
        "no default base: origin/HEAD is not set and there is no main or master branch — "
        "pass --base REF (the branch this one was made from)"
    )


def merge_base(repo: Repo, base_sha: str, head_sha: str) -> str:
    try:
        return str(repo.git.merge_base(base_sha, head_sha)).strip()
    except GitCommandError as exc:
        if _is_shallow(repo):
            raise RepositoryError(
                f"this clone is shallow, so {base_sha[:12]} and {head_sha[:12]} have no common "
                "ancestor in it — fetch more history (git fetch --unshallow, or fetch-depth: 0 "
                "in actions/checkout)"
            ) from exc
        raise RepositoryError(
            f"{base_sha[:12]} and {head_sha[:12]} have no common ancestor — pass a --base that {head_sha[:12]} was branched from"
        ) from exc


def _is_shallow(repo: Repo) -> bool:
    try:
        return str(repo.git.rev_parse("--is-shallow-repository")).strip() == "true"
    except GitCommandError:
        return False


def uncommitted(path: Path) -> int:
    """How many paths differ from HEAD in the working tree: staged, modified or untracked.

    Ignored files do not count (they are never reviewed); 0 outside a repository."""
    try:
        repo = open_repo(path)
        status = repo.git.status("--porcelain", "--untracked-files=normal", env=_env())
    except (RepositoryError, GitCommandError):
        return 0
    return len([line for line in str(status).splitlines() if line.strip()])


# Who "commits" the working tree: an object only reviewbot reads, never on a branch.
_WORKTREE_IDENTITY = {
    "GIT_AUTHOR_NAME": "reviewbot",
    "GIT_AUTHOR_EMAIL": "reviewbot@localhost",
    "GIT_COMMITTER_NAME": "reviewbot",
    "GIT_COMMITTER_EMAIL": "reviewbot@localhost",
}


def worktree_commit(repo: Repo, head_sha: str) -> str:
    """A commit of the working tree (tracked changes and untracked files, never ignored ones)
    on top of `head_sha`, or `head_sha` itself when nothing is uncommitted.

    Built with a throwaway index and `git commit-tree`: the objects land in the object
    store like `git stash create`'s, but no branch, ref, index or file of the user changes.
    """
    with tempfile.TemporaryDirectory(prefix="reviewbot-index-") as tmp:
        env = dict(_env(), GIT_INDEX_FILE=str(Path(tmp) / "index"))
        try:
            repo.git.read_tree(head_sha, env=env)
            repo.git.add("--all", env=env)  # .gitignore applies: ignored files stay out
            tree = str(repo.git.write_tree(env=env)).strip()
            if tree == repo.commit(head_sha).tree.hexsha:
                return head_sha
            message = "Uncommitted changes (the working tree)"
            sha = repo.git.commit_tree(
                tree, "-p", head_sha, "-m", message, env=env | _WORKTREE_IDENTITY
            )
        except GitCommandError as exc:
            raise RepositoryError(_git_failure(exc, "could not read the working tree")) from exc
    return str(sha).strip()


def diff_index(repo: Repo, old_sha: str, new_sha: str) -> DiffIndex:
    """The index of `git diff old new` (renames and copies detected, 3 lines of context)."""
    try:
        raw = repo.git.diff(
            *_DIFF_OPTIONS,
            old_sha,
            new_sha,
            "--",
            env=_env(),
            stdout_as_string=False,
            strip_newline_in_stdout=False,  # an empty last context line is still a line
        )
    except GitCommandError as exc:
        raise RepositoryError(_git_failure(exc, "git diff failed")) from exc
    return index_from_unified_diff(bytes(raw).decode("utf-8", errors="replace"))


def config_at(
    repo: Repo, sha: str, *, origin: str, path: str = CONFIG_FILE, required: bool = False
) -> ReviewConfig:
    """`.reviewbot.toml` as committed at `sha`; the defaults when there is none (unless required)."""
    return config_of(_text_at(repo, sha, path, origin), origin=origin, required=required)


def learnings_at(repo: Repo, sha: str, *, origin: str) -> Learnings:
    """`.reviewbot/learnings.toml` as committed at `sha` (the base), read as the config is."""
    text = _text_at(repo, sha, LEARNINGS_FILE, origin)
    return Learnings() if text is None else load_learnings(text, origin=origin)


def _text_at(repo: Repo, sha: str, path: str, origin: str) -> str | None:
    try:
        entry = repo.commit(sha).tree / path
    except KeyError:
        return None
    if not isinstance(entry, Blob):
        raise ConfigError(f"{origin}: is not a file")
    try:
        return str(entry.data_stream.read().decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{origin}: is not valid UTF-8") from exc


@dataclass(frozen=True, slots=True)
class TreeFiles:
    """The files of one commit (`BaseFiles`): the guidelines of a local review, from its base."""

    repo: Repo
    sha: str

    def _entry(self, path: str) -> object | None:
        tree = self.repo.commit(self.sha).tree
        if path in ("", "."):  # the repository's root, as the contents API lists it
            return tree
        try:
            return tree / path
        except KeyError:
            return None

    def text(self, path: str) -> str | None:
        entry = self._entry(path)
        if entry is None:
            return None
        if not isinstance(entry, Blob):
            raise UnreadableFile("is not a file")
        if entry.size > MAX_BYTES:
            raise UnreadableFile("is too large (over 1 MB)")
        try:
            return bytes(entry.data_stream.read()).decode("utf-8")
        except UnicodeDecodeError:
            raise UnreadableFile("is not valid UTF-8") from None

    def names(self, folder: str) -> tuple[str, ...]:
        entry = self._entry(folder)
        return tuple(blob.name for blob in entry.blobs) if isinstance(entry, Tree) else ()


def commits_between(repo: Repo, old_sha: str, new_sha: str) -> tuple[PRCommit, ...]:
    commits = repo.iter_commits(f"{old_sha}..{new_sha}", reverse=True)
    return tuple(
        PRCommit(sha=c.hexsha, message=_text(c.message), author=str(c.author.name)) for c in commits
    )


def _text(message: str | bytes) -> str:
    return message.decode("utf-8", errors="replace") if isinstance(message, bytes) else message


@contextmanager
def local_snapshot(
    path: Path,
    *,
    base: str | None,
    head: str = "HEAD",
    worktree: bool = False,
    config_path: str = CONFIG_FILE,
    config_required: bool = False,
) -> Iterator[PRSnapshot]:
    """The snapshot of `merge-base(base, head)..head` in the repository at `path`.

    `base_sha` is the merge base (what the diff is against); the config is read
    from the tip of `base` (`config_path` relative to the repository root, or absolute
    inside it); no `base` is the default branch (`default_base`). `worktree` reviews
    the working tree instead of HEAD (`worktree_commit`). The checkout lives as long
    as the `with` block.
    """
    repo = open_repo(path)
    root = Path(str(repo.working_tree_dir)) if repo.working_tree_dir else None
    config_path = config_path_in_repo(config_path, root=root)
    base = base or default_base(repo)
    base_sha, head_sha = resolve(repo, base), resolve(repo, head, option="--head")
    if worktree:
        head_sha = worktree_commit(repo, head_sha)
    fork_point = merge_base(repo, base_sha, head_sha)
    config = config_at(
        repo,
        base_sha,
        origin=config_origin(base, config_path),
        path=config_path,
        required=config_required,
    )
    commits = commits_between(repo, fork_point, head_sha)
    head_commit = repo.commit(head_sha)
    diff = diff_index(repo, fork_point, head_sha)
    # From the tip of `base`, as the config: the change cannot write its own instructions.
    guidelines = read_guidelines(TreeFiles(repo, base_sha), config.review, diff)
    with head_checkout(repo, head_sha) as checkout:
        yield PRSnapshot(
            origin=Origin.LOCAL,
            url=None,
            repo=None,
            number=None,
            title=_text(head_commit.summary),
            body="\n\n".join(c.message.strip() for c in commits),
            author=str(head_commit.author.name),
            base_ref=base,
            head_ref=_head_name(repo, head),
            base_sha=fork_point,
            head_sha=head_sha,
            diff=diff,
            checkout=checkout,
            config=config,
            commits=commits,
            guidelines=guidelines,
            learnings=learnings_at(repo, base_sha, origin=config_origin(base, LEARNINGS_FILE)),
        )


def _head_name(repo: Repo, head: str) -> str:
    if head == "HEAD" and not repo.head.is_detached:
        return repo.active_branch.name
    return head


@contextmanager
def head_checkout(repo: Repo, head_sha: str) -> Iterator[Path]:
    """A working tree of `head_sha`: the repository's own when it is exactly that, else a copy."""
    if _is_exactly(repo, head_sha):
        log.info("read tools use the working tree %s (HEAD, clean)", repo.working_tree_dir)
        yield Path(str(repo.working_tree_dir))
        return
    with tempfile.TemporaryDirectory(prefix="reviewbot-head-", ignore_cleanup_errors=True) as tmp:
        tree = Path(tmp) / "tree"
        _extract(repo, head_sha, index=Path(tmp) / "index", into=tree)
        log.info("read tools use a temporary extraction of %s at %s", head_sha[:12], tree)
        yield tree


def _is_exactly(repo: Repo, sha: str) -> bool:
    """HEAD is `sha` and the working tree holds nothing else, ignored files included."""
    if repo.bare or repo.working_tree_dir is None or not repo.head.is_valid():
        return False
    if repo.head.commit.hexsha != sha:
        return False
    try:
        status = repo.git.status(
            # `normal`, whatever status.showUntrackedFiles says; ignored directories stay collapsed
            "--porcelain",
            "--ignored",
            "--untracked-files=normal",
            env=_env(),
        )
    except GitCommandError:
        return False  # cannot tell: extract or fetch instead, which is always safe
    return not str(status).strip()


def _extract(repo: Repo, sha: str, *, index: Path, into: Path) -> None:
    # A throwaway index: the user's index, branches and worktree list stay untouched.
    env = dict(_env(), GIT_INDEX_FILE=str(index))
    into.mkdir()
    try:
        repo.git.read_tree(sha, env=env)
        repo.git.checkout_index("--all", f"--prefix={into}/", env=env)
    except GitCommandError as exc:
        raise RepositoryError(_git_failure(exc, f"could not extract {sha[:12]}")) from exc


# ------------------------------------------------------------------ the GitHub PR checkout


MAX_HISTORY = 1_000  # commits fetched at most to find the reviewed head (past it: a full review)


@contextmanager
def pr_checkout(
    clone_url: str,
    *,
    number: int,
    head_sha: str,
    token: str | None = None,
    workspace: Path | None = None,
    since: str | None = None,
    commits: int = 0,
) -> Iterator[Path]:
    """A read-only working tree of the PR head, removed afterwards (unless it is `workspace`).

    `workspace` (GITHUB_WORKSPACE, read by the caller) is reused when it is exactly
    `head_sha` (see the module docstring) and holds `since` when one is given;
    otherwise `refs/pull/<number>/head` is fetched from `clone_url`, the BASE
    repository, into a temporary directory: depth 1, or with `since` (the head of the
    last review) `commits + 1` deep (the PR's commits and its fork point: every commit
    between an ancestor of the head and the head is a PR commit).
    """
    if (
        workspace is not None
        and _workspace_is(workspace, head_sha)
        and (since is None or _has_commit(Repo(workspace), since))
    ):
        log.info("read tools use the workspace %s (the PR head, clean)", workspace)
        yield workspace
        return
    depth = 1 if since is None else min(commits + 1, MAX_HISTORY)
    with tempfile.TemporaryDirectory(prefix="reviewbot-pr-", ignore_cleanup_errors=True) as tmp:
        target = Path(tmp) / "checkout"
        _fetch_pr_head(
            clone_url, target, number=number, head_sha=head_sha, token=token, depth=max(depth, 1)
        )
        yield target


def _has_commit(repo: Repo, sha: str) -> bool:
    return _commit_of(repo, sha) is not None


@dataclass(frozen=True, slots=True, kw_only=True)
class Push:
    """What the pushes since a reviewed head did, read from the checkout's history."""

    since: str
    head: str
    moved: DiffIndex  # `git diff since head`: every file, for mapping lines through the push
    merged: bool  # a merge commit came in between (the base branch merged into the PR?)


def push_since(checkout: Path, since: str, head: str) -> Push | str:
    """The push from `since` to `head`, or why it is not one that only added commits.

    `since` missing from the clone's history, or not an ancestor of `head`: the branch
    was rewritten (a force-push), and nothing of the earlier review can be mapped.
    """
    try:
        repo = Repo(checkout)
    except (InvalidGitRepositoryError, NoSuchPathError):
        return f"{checkout} is not a git clone, so its history cannot say what changed"
    old = _commit_of(repo, since)
    if old is None:
        return f"{since[:12]} is not in the clone's history of {head[:12]} (a force-push?)"
    try:
        repo.git.merge_base("--is-ancestor", old, head, env=_env())
    except GitCommandError:
        return f"{since[:12]} is not an ancestor of {head[:12]}: the branch was force-pushed"
    try:
        merges = str(repo.git.rev_list("--merges", "--max-count=1", f"{old}..{head}", env=_env()))
    except GitCommandError as exc:
        return _git_failure(exc, "git rev-list failed")
    return Push(
        since=old, head=head, moved=diff_index(repo, old, head), merged=bool(merges.strip())
    )


def diff_since(checkout: Path, since: str, head: str) -> DiffIndex | None:
    """`git diff since head` in the checkout; None when `since` is not in its history."""
    try:
        repo = Repo(checkout)
    except (InvalidGitRepositoryError, NoSuchPathError):
        return None
    old = _commit_of(repo, since)
    return None if old is None else diff_index(repo, old, head)


def lines_at(checkout: Path, sha: str, path: str) -> list[str] | None:
    """The lines of `path` at commit `sha` in the checkout (None: no such text file)."""
    try:
        entry = Repo(checkout).commit(sha).tree / path
    except (KeyError, ValueError, InvalidGitRepositoryError, NoSuchPathError):
        return None
    if not isinstance(entry, Blob):
        return None
    data: bytes = entry.data_stream.read()
    if b"\0" in data[:8_000]:
        return None
    text = data.decode("utf-8", errors="replace").split("\n")
    if text and text[-1] == "":
        text.pop()
    return [line.removesuffix("\r") for line in text]


def _workspace_is(path: Path, sha: str) -> bool:
    try:
        repo = Repo(path)  # the workspace itself, never a repository above it
    except (InvalidGitRepositoryError, NoSuchPathError):
        return False
    return _is_exactly(repo, sha)


def _auth_config(clone_url: str, token: str | None) -> dict[str, str]:
    """An Authorization header for the clone URL's host only (never in the URL itself), and
    only where the token may go (https, or plain http to loopback: `may_carry_token`)."""
    parts = urlsplit(clone_url)
    if not token or not may_carry_token(clone_url):
        return {}
    basic = base64.b64encode(f"x-access-token:{token}".encode()).decode()
    return {f"http.{parts.scheme}://{parts.netloc}/.extraHeader": f"Authorization: Basic {basic}"}


def _fetch_pr_head(
    clone_url: str, target: Path, *, number: int, head_sha: str, token: str | None, depth: int = 1
) -> None:
    auth = _auth_config(clone_url, token)
    secrets = (token, *auth.values()) if token else ()
    env = _env(auth)
    repo = Repo.init(target)
    try:
        repo.git.fetch(
            f"--depth={depth}",
            "--no-tags",
            "--no-recurse-submodules",
            "--",
            clone_url,
            f"refs/pull/{number}/head",
            env=env,
        )
        fetched = str(repo.git.rev_parse("FETCH_HEAD")).strip()
        if fetched != head_sha:
            raise HeadMoved(
                f"not reviewing: PR #{number} moved to {fetched[:12]} while {head_sha[:12]} "
                "was being fetched; nothing is posted, and the newer head gets its own review"
            )
        repo.git.checkout("--detach", "--quiet", fetched, env=env)
    except GitCommandError as exc:
        message = _git_failure(
            exc, f"could not fetch PR #{number} from {clone_url}", secrets=secrets
        )
        raise RepositoryError(message) from exc
