"""The one test world: a real git repository mirrored as PR #7 of octo/app into a fake GitHub,
a scripted fake Messages API, both on loopback, and the real CLI run against them.

Used by the end-to-end tests (tests/e2e), the reliability tests (tests/reliability) and
the benches. A world is built in steps (the `world` fixture), or at once (`open_world`):

    world.build(base, head)   # a real repository: `base` committed on main, `head` on feature
    world.seed()              # main..feature mirrored as PR #7 (tests/fakes/pulls.py)
    world.serve(*script)      # both fakes served; the model answers `script` in order
    world.push(files)         # later: a new head on the PR branch, mirrored again

and runs reviewbot two ways (records in tests/fakes/runs.py):

- `world.run(args, event_name=…, event=…)`: `python -m reviewbot` as a child process, with
  the minimal, explicit environment a GitHub Actions step has (never the developer's);
- `world.review(*args)`: `reviewbot review URL --format json` in-process, with the real
  composition root and clients, only their waits made zero (the Anthropic client's retry
  sleeps are recorded in `sleeps`; PyGithub keeps its retries with no backoff).

Every world ends by checking its fakes: a fake that crashed, a scripted reply the run never
asked for, or a request the fake refused fails the test without a line in it.

Must not: reach anything but 127.0.0.1, leave a server running after the test, or hold a
real-looking secret literal (the fake keys are built in tests/fakes/keys.py).
"""

from __future__ import annotations

import itertools
import json
import logging
import os
import subprocess
import sys
from collections.abc import Iterator, Mapping, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from reviewbot import app
from reviewbot.agent.messages import ModelClient
from reviewbot.cli import cli
from reviewbot.config.settings import Settings
from reviewbot.github.client import make_client
from reviewbot.github.rest import GitHubClient
from reviewbot.sources.pr_ref import PRRef
from tests.fakes.github_api import FakeGitHub, FakePull
from tests.fakes.gitrepo import git, make_repo
from tests.fakes.keys import ANTHROPIC_KEY, GITHUB_TOKEN, OTHER_SECRET
from tests.fakes.messages_api import FakeMessagesAPI, Scripted
from tests.fakes.pulls import seed_pull
from tests.fakes.runs import CliRun, Pending, Run
from tests.fakes.scenario import BASE_APP, HEAD_APP
from tests.fakes.server import LoopbackServer, json_function_handler
from tests.fakes.webhooks import pull_request_event

REPO = "octo/app"
NUMBER = 7
PR_URL = f"https://github.com/{REPO}/pull/{NUMBER}"
FORK = "forker/app"
AUTHOR = "octocat"
# The checkout these tests belong to: its `reviewbot` is the one run, never another installed copy
# (an editable install may point at a different worktree).
SOURCE_ROOT = Path(__file__).resolve().parents[2]
# Only what reviewbot and git need: the interpreter is run by absolute path.
BASE_PATH = "/usr/local/bin:/usr/bin:/bin"
# Under `pytest --cov`, coverage's `patch = subprocess` hands its settings to child interpreters
# in these variables (read by the .pth file coverage installs): the one thing of the parent's
# environment a run keeps, so the runs' lines count too.
COVERAGE_VARIABLES = ("COVERAGE_PROCESS_CONFIG", "COVERAGE_PROCESS_START")


def child_env(home: Path | None = None) -> dict[str, str]:
    """The least environment a `python -m reviewbot` child needs: this checkout's package,
    a fixed PATH and locale, coverage's variables when measured; never the developer's."""
    env = {"PATH": BASE_PATH, "LANG": "C.UTF-8", "PYTHONPATH": str(SOURCE_ROOT)}
    if home is not None:
        env["HOME"] = str(home)
    return env | {name: os.environ[name] for name in COVERAGE_VARIABLES if name in os.environ}


# What a terminal has that an in-process review must not inherit from the test's own
# environment: each is unset unless the test sets it.
_UNSET = (
    "GH_TOKEN",
    "GITHUB_ACTIONS",
    "GITHUB_EVENT_NAME",
    "GITHUB_EVENT_PATH",
    "GITHUB_WORKSPACE",
    "GITHUB_OUTPUT",
    "GITHUB_STEP_SUMMARY",
    "RUNNER_TEMP",
    "REVIEWBOT_POST",
    "REVIEWBOT_MODEL",
    "REVIEWBOT_CONFIG",
    "REVIEWBOT_FAIL_ON",
    "REVIEWBOT_BOT_LOGIN",
    "REVIEWBOT_MARKER_KEY",
    "GITHUB_RUN_ID",
)


@dataclass(kw_only=True)
class World:
    """One PR in a fake GitHub, one scripted model, and the CLI to review it with."""

    root: Path
    # Tests may replace the fake (another login, other tokens) before `seed()`.
    github: FakeGitHub = field(default_factory=lambda: FakeGitHub(user_endpoint=False))
    model: FakeMessagesAPI = field(default_factory=FakeMessagesAPI)
    pull: FakePull | None = None
    full_name: str = REPO
    sleeps: list[float] = field(default_factory=list)  # the model client's retry waits
    monkeypatch: pytest.MonkeyPatch | None = None  # the test's, when the fixture made the world
    gh: LoopbackServer | None = None
    ms: LoopbackServer | None = None
    _stack: ExitStack = field(default_factory=ExitStack)
    _runs: Iterator[int] = field(default_factory=lambda: itertools.count(1))

    @property
    def tmp(self) -> Path:
        return self.root

    @property
    def api(self) -> FakeMessagesAPI:
        return self.model

    # -- the repository and its PR -----------------------------------------------------------

    @property
    def repo(self) -> Path:
        return self.root / "repo"

    def build(
        self,
        base: Mapping[str, str | bytes] | None = None,
        head: Mapping[str, str | bytes | None] | None = None,
        *,
        base_links: Mapping[str, str] | None = None,
        head_links: Mapping[str, str] | None = None,
    ) -> None:
        """Commit `base` on main, then `head` (None deletes a file) on feature.

        `*_links` map a path to a commit SHA recorded as a submodule pointer (a gitlink).
        """
        make_repo(
            self.repo,
            base if base is not None else {"app.py": BASE_APP},
            head if head is not None else {"app.py": HEAD_APP},
            base_links=base_links,
            head_links=head_links,
        )

    def seed(self, **fields: Any) -> FakePull:
        """Mirror main..feature as PR #7 in the fake GitHub (again after the branch moved)."""
        self.pull = seed_pull(
            self.github, self.repo, "main", "feature", **{"number": NUMBER} | fields
        )
        return self.pull

    def push(self, files: Mapping[str, str | None], *, amend: bool = False, **fields: Any) -> str:
        """A new commit on the PR branch (or the last one rewritten; None deletes a file):
        the PR's head moves. Returns the new head SHA."""
        for name, content in files.items():
            path = self.repo / name
            if content is None:
                path.unlink()
            else:
                path.write_text(content, encoding="utf-8")
        git(self.repo, "add", "-A")
        git(self.repo, "commit", "-q", *(["--amend", "--no-edit"] if amend else ["-m", "push"]))
        return self.seed(**fields).head_sha

    # -- the servers -------------------------------------------------------------------------

    def serve(self, *script: Scripted) -> None:
        self.model.add(*script)
        self.gh = self._stack.enter_context(LoopbackServer(self.github))
        handler = json_function_handler(self.model.handle, path="/v1/messages")
        self.ms = self._stack.enter_context(LoopbackServer(handler))

    def close(self) -> None:
        self._stack.close()

    def verify(self) -> None:
        """No fake crashed (a test bug), and every scripted reply was asked for, none refused."""
        for server in (self.gh, self.ms):
            assert server is None or not server.errors, server.errors
        self.model.verify()

    @property
    def github_server(self) -> LoopbackServer:
        assert self.gh is not None, "call serve() first"
        return self.gh

    @property
    def model_server(self) -> LoopbackServer:
        assert self.ms is not None, "call serve() first"
        return self.ms

    def requests_since(self, github_from: int, model_from: int) -> dict[str, Any]:
        """The fakes' requests after the given counts: a run's share."""
        return {
            "github": self.github_server.snapshot()[github_from:],
            "model": tuple(self.model.requests[model_from:]),
        }

    # -- running as a child process, as in GitHub Actions ------------------------------------

    def process_env(
        self,
        folder: Path,
        *,
        event_name: str | None,
        event: Mapping[str, Any] | bytes | None,
        anthropic: bool = True,
        github: bool = True,
    ) -> dict[str, str]:
        """The environment of a GitHub Actions step (or, with github=False, of a terminal)."""
        home = folder / "home"
        home.mkdir()
        env = child_env(home)
        if anthropic:
            env |= {"ANTHROPIC_API_KEY": ANTHROPIC_KEY, "ANTHROPIC_BASE_URL": self.model_server.url}
        if not github:
            return env
        workspace = folder / "workspace"
        workspace.mkdir()
        env |= {
            "CI": "true",
            "GITHUB_ACTIONS": "true",
            "GITHUB_REPOSITORY": self.full_name,
            "GITHUB_API_URL": self.github_server.url,
            "GITHUB_SERVER_URL": "https://github.com",
            "GITHUB_TOKEN": GITHUB_TOKEN,
            "GITHUB_OUTPUT": str(folder / "github-output"),
            "GITHUB_STEP_SUMMARY": str(folder / "step-summary"),
            "GITHUB_WORKSPACE": str(workspace),
            "RUNNER_TEMP": str(folder),
        }
        if event_name is not None and event is not None:
            path = folder / "event.json"
            # bytes: the event file exactly as given (another encoding, a broken file)
            raw = event if isinstance(event, bytes) else json.dumps(event).encode("utf-8")
            path.write_bytes(raw)
            env |= {"GITHUB_EVENT_NAME": event_name, "GITHUB_EVENT_PATH": str(path)}
        return env

    def start(
        self,
        args: Sequence[str],
        *,
        event_name: str | None = None,
        event: Mapping[str, Any] | bytes | None = None,
        anthropic: bool = True,
        github: bool = True,
        cwd: Path | None = None,
        extra_env: Mapping[str, str] | None = None,
        stdout: int = subprocess.PIPE,
        stderr: int = subprocess.PIPE,
    ) -> Pending:
        """Start reviewbot; `stdout`/`stderr` may be a descriptor (a pipe, a pty) instead."""
        folder = self.folder(f"run-{next(self._runs)}")
        env = self.process_env(
            folder, event_name=event_name, event=event, anthropic=anthropic, github=github
        )
        process = subprocess.Popen(
            [sys.executable, "-m", "reviewbot", *args],
            cwd=cwd or folder,
            env=env | dict(extra_env or {}),
            stdin=subprocess.DEVNULL,
            stdout=stdout,
            stderr=stderr,
            text=True,
            errors="replace",  # a run with another PYTHONIOENCODING still reads back
        )
        return Pending(
            world=self,
            args=tuple(args),
            process=process,
            folder=folder,
            github_from=len(self.github_server.snapshot()),
            model_from=len(self.model.requests),
        )

    def run(self, args: Sequence[str], **options: Any) -> Run:
        return self.start(args, **options).wait()

    def folder(self, name: str) -> Path:
        path = self.root / name
        path.mkdir()
        return path

    # -- running in-process, from a terminal -------------------------------------------------

    def env(self, **overrides: str | None) -> dict[str, str | None]:
        """A terminal's environment for `review()` (None unsets a variable)."""
        env: dict[str, str | None] = {
            "GITHUB_TOKEN": GITHUB_TOKEN,
            "ANTHROPIC_API_KEY": ANTHROPIC_KEY,
            "ANTHROPIC_BASE_URL": self.model_server.url,
            "GITHUB_API_URL": self.github_server.url,
            "GITHUB_SERVER_URL": "https://github.com",
            "DEPLOY_PASSWORD": OTHER_SECRET,
        }
        env |= dict.fromkeys(_UNSET)
        env.update(overrides)
        return env

    def review(self, *args: str, url: str = PR_URL, **env: str | None) -> CliRun:
        """`reviewbot review URL --format json --report FILE ARGS…`, in-process."""
        report_file = self.root / "report.json"
        report_file.unlink(missing_ok=True)
        argv = ["review", url, "--format", "json", "--report", str(report_file), *args]
        github_from, model_from = len(self.github_server.snapshot()), len(self.model.requests)
        result = CliRunner().invoke(
            cli, argv, env=self.env(**env), catch_exceptions=False, obj=self._fast_clients()
        )
        report = json.loads(report_file.read_text()) if report_file.exists() else None
        return CliRun(
            exit_code=result.exit_code,
            stdout=result.stdout,
            stderr=result.stderr,
            report=report,
            **self.requests_since(github_from, model_from),
        )

    def _fast_clients(self) -> app.Clients:
        """The real clients with no waits: retries are recorded in `sleeps`, never slept."""
        sleeps = self.sleeps

        def model_client(settings: Settings) -> ModelClient | None:
            return app.model_client(settings, sleep=sleeps.append)

        def github_client(ref: PRRef, settings: Settings) -> GitHubClient:
            return make_client(ref.api_url, settings.github_token, pace_seconds=0, backoff=0)

        return app.Clients(model=model_client, github=github_client)

    # -- reading what happened ---------------------------------------------------------------

    def posted_reviews(self) -> list[dict[str, Any]]:
        return self.github.repo(self.full_name).reviews.get(NUMBER, [])

    def inline_comments(self) -> list[dict[str, Any]]:
        return self.github.repo(self.full_name).review_comments.get(NUMBER, [])

    def issue_comments(self) -> list[dict[str, Any]]:
        return self.github.repo(self.full_name).issue_comments.get(NUMBER, [])

    def summary(self) -> str:
        """The body of reviewbot's summary comment (one, edited in place by every run)."""
        return next(c["body"] for c in self.issue_comments() if "reviewbot:summary" in c["body"])

    def synchronize(self, args: Sequence[str]) -> Run:
        """`args` run on the `pull_request` event of a push to the PR (`synchronize`)."""
        event = pull_request_event(self, action="synchronize")
        return self.run(args, event_name="pull_request", event=event)

    def check_runs(self) -> list[dict[str, Any]]:
        return [r for r in self.github.repo(self.full_name).check_runs if r["name"] == "reviewbot"]

    def everything_sent(self) -> str:
        """Every request body sent to both fakes, as text."""
        bodies = [r.body.decode("utf-8", "replace") for r in self.github_server.snapshot()]
        bodies += [json.dumps(request) for request in self.model.requests]
        return "\n".join(bodies)

    def tool_results(self) -> list[dict[str, Any]]:
        """Every tool_result block the harness sent back to the model (the last request has all)."""
        seen: dict[str, dict[str, Any]] = {}
        for request in self.model.requests:
            for message in request["messages"]:
                content = message["content"]
                if isinstance(content, list):
                    for block in content:
                        if block.get("type") == "tool_result":
                            seen[block["tool_use_id"]] = block
        return list(seen.values())


@contextmanager
def open_world(
    root: Path,
    *,
    base: Mapping[str, str],
    head: Mapping[str, str | None],
    script: Sequence[Scripted] = (),
    fork: bool = False,
    permissions: Mapping[str, str] | None = None,
    tokens: frozenset[str] | None = None,
    model: FakeMessagesAPI | None = None,
) -> Iterator[World]:
    """Build the repository, seed PR #7 of octo/app from it, and serve both fakes.

    `model`: a fake Messages API built by the test (a script per agent, latency) instead
    of one answering `script` in order.
    """
    root.mkdir(parents=True, exist_ok=True)
    # Like GITHUB_TOKEN: may not ask who it is (GET /user → 403), may not approve.
    github = FakeGitHub(user_endpoint=False, approve_allowed=False, tokens=tokens)
    world = World(root=root, github=github, model=model or FakeMessagesAPI(script))
    world.build(base, head)
    world.seed(head_repo=FORK if fork else None, author=AUTHOR)
    github.repo(REPO).permissions.update(permissions or {})
    try:
        world.serve()
        yield world
    finally:
        world.close()
    world.verify()


@contextmanager
def _logging_restored() -> Iterator[None]:
    """An in-process run configures logging; the next test starts from the same state."""
    root = logging.getLogger()
    saved = root.handlers[:], root.level
    levels = {name: logging.getLogger(name).level for name in ("reviewbot", "github")}
    github = logging.getLogger("github")
    github_handlers = github.handlers[:]
    try:
        yield
    finally:
        root.handlers[:], root.level = saved[0], saved[1]
        for name, level in levels.items():
            logging.getLogger(name).setLevel(level)
        github.handlers[:] = github_handlers


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[World]:
    """A fresh world to build step by step; afterwards the servers stop, logging is restored
    and the fakes verified."""
    made = World(root=tmp_path, monkeypatch=monkeypatch)
    with _logging_restored():
        try:
            yield made
        finally:
            made.close()
    # After the clean-up: a forgotten check cannot hide a scripted reply the run never asked
    # for (after a failed test this adds a teardown error, never hides the failure).
    made.verify()
