"""A real git repository in tmp_path, the diff of its head commit, and sessions over it."""

from __future__ import annotations

import dataclasses
import hashlib
import os
import signal
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from reviewbot.modes import Mode, Role
from reviewbot.sources.diff_index import DiffIndex, DiffLine, FileDiff, FileStatus, Hunk, LineKind
from reviewbot.tools.ask_user import NoOperator, Operator
from reviewbot.tools.registry import Handler
from reviewbot.tools.session import NodeStore, ReviewSession, Workspace
from reviewbot.tools.surface import Surface
from reviewbot.tools.toolbox import ToolResult
from tests.fakes.gitrepo import GitRepo

APP_BASE = """import os


def load(path):
    with open(path) as handle:
        return handle.read()
"""

APP_HEAD = """import os


def load(path):
    with open(path) as handle:
        return handle.read()


def run(command):
    return os.system(command)


def total(items):
    result = 0
    for item in items:
        result += item
    return result
"""

UTIL = """def a():
    return 1


def b():
    return 1
"""


@dataclass(frozen=True)
class Repo:
    root: Path
    base_sha: str
    head_sha: str
    outside: Path  # a file next to the repository, which no tool may read


def build_repo(tmp_path: Path) -> Repo:
    """Two commits: the base adds `load`, the head adds `run` and `total` plus fixtures."""
    outside = tmp_path / "outside-secret.txt"
    outside.write_text("TOP SECRET\n")
    repo = GitRepo.init(tmp_path / "repo")
    repo.write_files({"src/app.py": APP_BASE, "README.md": "# demo\n"})
    base = repo.commit("Add load")
    repo.write_files(
        {
            "src/app.py": APP_HEAD,
            "src/util.py": UTIL,
            "data.bin": b"\x00\x01\x02binary",
            "crlf.txt": b"one\r\ntwo  \r\nthree\r\n",
            "big.txt": "".join(f"line {n}\n" for n in range(1, 3001)),
        }
    )
    root = repo.path
    (root / "link_in.py").symlink_to("src/app.py")
    (root / "link_out").symlink_to(outside)
    (root / "src" / "dir_out").symlink_to(tmp_path)
    head = repo.commit("Add run and total", date="2024-02-01T00:00:00Z")
    return Repo(root=root, base_sha=base, head_sha=head, outside=outside)


def app_diff() -> DiffIndex:
    """The head commit's hunk of src/app.py: lines 7–17 added after context line 6."""
    added = APP_HEAD.splitlines()[6:]
    lines = (
        DiffLine(kind=LineKind.CONTEXT, old_no=6, new_no=6, text="        return handle.read()"),
        *(
            DiffLine(kind=LineKind.ADDED, old_no=None, new_no=7 + i, text=text)
            for i, text in enumerate(added)
        ),
    )
    hunk = Hunk(
        old_start=6, old_length=1, new_start=6, new_length=1 + len(added), section="", lines=lines
    )
    app = FileDiff(
        path="src/app.py", status=FileStatus.MODIFIED, hunks=(hunk,), additions=len(added)
    )
    util = FileDiff(path="src/util.py", status=FileStatus.ADDED, additions=6)
    return DiffIndex(files={"src/app.py": app, "src/util.py": util})


def make_session(
    repo: Repo,
    *,
    mode: Mode = Mode.REVIEW,
    role: Role = "reviewer",
    agent: str = "review",
    store: NodeStore | None = None,
    operator: Operator | None = None,
    seen: tuple[str, ...] = ("src/app.py",),
    max_output_chars: int = 20_000,
) -> ReviewSession:
    workspace = Workspace(checkout=repo.root, head_sha=repo.head_sha, diff=app_diff())
    return ReviewSession(
        mode=mode,
        role=role,
        agent=agent,
        workspace=workspace,
        store=store if store is not None else NodeStore(),
        operator=operator or NoOperator(),
        seen=seen,
        max_output_chars=max_output_chars,
    )


def with_handler(session: ReviewSession, name: str, handler: Handler) -> ReviewSession:
    """The session with one tool's handler replaced (the surface is a plain value)."""
    spec = session.surface.get(name)
    assert spec is not None
    replaced = dataclasses.replace(spec, handler=handler)
    tools = tuple(replaced if t.name == name else t for t in session.surface.tools)
    session.surface = Surface(profile=session.profile, role=session.role, tools=tools)
    return session


def lines_of(result: ToolResult) -> list[str]:
    """The lines of a result's untrusted data (file lines, matches, history), fence excluded."""
    assert result.data is not None, result.content
    return result.data.text.splitlines()


def tree_digest(root: Path) -> dict[str, str]:
    """Every entry under root (git's storage included): content hash, link target, mode."""
    digest: dict[str, str] = {}
    for directory, subdirs, files in os.walk(root, followlinks=False):
        subdirs.sort()
        for name in [*sorted(files), *subdirs]:
            path = Path(directory, name)
            rel = path.relative_to(root).as_posix()
            if path.is_symlink():
                digest[rel] = f"link:{os.readlink(path)}"
            elif path.is_file():
                data = path.read_bytes()
                digest[rel] = f"{oct(path.stat().st_mode)}:{hashlib.sha256(data).hexdigest()}"
            else:
                digest[rel] = f"dir:{oct(path.stat().st_mode)}"
    return digest


class Hung(Exception):
    """Raised in the test by `guard` when the code under test did not return in time."""


@contextmanager
def guard(seconds: float = 20.0) -> Iterator[None]:
    """Fail (not hang) a test whose body runs past `seconds`: a failure guard, not a timing check.

    SIGALRM interrupts Python code and `re`'s matcher (it checks for signals as it
    backtracks), so a catastrophic search fails the test instead of running for minutes.
    """

    def hung(_signum: int, _frame: object) -> None:
        raise Hung(f"still running after {seconds:g} s")

    previous = signal.signal(signal.SIGALRM, hung)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
