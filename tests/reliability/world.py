"""A whole reviewbot world for reliability tests: real git, fake GitHub, fake Messages API, the CLI.

`World` builds a real git repository in `tmp_path` (a `main` branch and a
`feature` branch), mirrors it as PR #7 of `octo/app` into a `FakeGitHub`
(`tests.fakes.world.seed_pull`), serves that fake and a scripted
`FakeMessagesAPI` on loopback, and runs `reviewbot review URL …` in-process with
click's `CliRunner` — the real command, the real composition root, the real
PyGithub and Anthropic clients — returning the exit code, stdout, stderr and the
JSON report.

Two seams of the composition root are replaced, and only to keep the clients'
*waits* tiny (no test sleeps for seconds): the Anthropic client gets a recording
`sleep` (so a test can assert the retry-after it honoured), and the PyGithub
client keeps its retries (`GithubRetry`, 5 attempts, Retry-After honoured) with
a zero exponential backoff. Everything else is the product as shipped.

The `world` fixture calls `api.verify()` after every test: a scripted reply the run
never asked for, or a request the fake refused, fails the test without a line in it.

Must not: reach anything but 127.0.0.1, or leave a server running after the test.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator, Mapping
from contextlib import ExitStack
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
from tests.fakes.gitrepo import make_repo
from tests.fakes.messages_api import FakeMessagesAPI, Scripted
from tests.fakes.server import LoopbackServer, json_function_handler
from tests.fakes.world import seed_pull

REPO = "octo/app"
NUMBER = 7
PR_URL = f"https://github.com/{REPO}/pull/{NUMBER}"
# Real shapes, built by concatenation so no literal token sits in the source.
GITHUB_TOKEN = "ghs_" + "Z" * 36
ANTHROPIC_KEY = "sk-ant-" + "K" * 40
OTHER_SECRET = "hunter2-" + "Q" * 24  # an unrelated secret in the environment (DEPLOY_PASSWORD)
SECRETS = (GITHUB_TOKEN, ANTHROPIC_KEY, OTHER_SECRET)

BASE_APP = "def handler(value):\n    return value\n\n\ndef other():\n    return 1\n"
HEAD_APP = (
    "def handler(value):\n"
    "    checked = validate(value)\n"
    "    return eval(checked)\n"
    "\n"
    "\n"
    "def other():\n"
    "    return 2\n"
)


@dataclass(frozen=True, slots=True, kw_only=True)
class Run:
    """What one `reviewbot review` invocation produced."""

    exit_code: int
    stdout: str
    stderr: str
    report: dict[str, Any] | None

    @property
    def error_lines(self) -> list[str]:
        return [line for line in self.stderr.splitlines() if line.startswith("reviewbot: error:")]

    @property
    def verdict(self) -> str:
        assert self.report is not None, self.stderr
        return str(self.report["verdict"])

    def axis(self, name: str) -> dict[str, Any]:
        assert self.report is not None, self.stderr
        return next(a for a in self.report["axes"] if a["name"] == name)


@dataclass
class World:
    """One PR in a fake GitHub, one scripted model, and the CLI to review it with."""

    tmp: Path
    monkeypatch: pytest.MonkeyPatch
    github: FakeGitHub = field(default_factory=lambda: FakeGitHub(user_endpoint=False))
    api: FakeMessagesAPI = field(default_factory=FakeMessagesAPI)
    sleeps: list[float] = field(default_factory=list)
    gh: LoopbackServer | None = None
    ms: LoopbackServer | None = None
    pull: FakePull | None = None
    _stack: ExitStack = field(default_factory=ExitStack)

    # -- the repository --------------------------------------------------------------------

    @property
    def repo(self) -> Path:
        return self.tmp / "repo"

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
        """Mirror main..feature as PR #7 in the fake GitHub."""
        self.pull = seed_pull(self.github, self.repo, "main", "feature", number=NUMBER, **fields)
        return self.pull

    # -- the servers -----------------------------------------------------------------------

    def serve(self, *script: Scripted) -> None:
        self.api.add(*script)
        self.gh = self._stack.enter_context(LoopbackServer(self.github))
        handler = json_function_handler(self.api.handle, path="/v1/messages")
        self.ms = self._stack.enter_context(LoopbackServer(handler))

    def close(self) -> None:
        self._stack.close()

    @property
    def github_server(self) -> LoopbackServer:
        assert self.gh is not None, "call serve() first"
        return self.gh

    @property
    def model_server(self) -> LoopbackServer:
        assert self.ms is not None, "call serve() first"
        return self.ms

    # -- running ---------------------------------------------------------------------------

    def env(self, **overrides: str | None) -> dict[str, str | None]:
        env: dict[str, str | None] = {
            "GITHUB_TOKEN": GITHUB_TOKEN,
            "GH_TOKEN": None,
            "ANTHROPIC_API_KEY": ANTHROPIC_KEY,
            "ANTHROPIC_BASE_URL": self.model_server.url,
            "GITHUB_API_URL": self.github_server.url,
            "GITHUB_SERVER_URL": "https://github.com",
            "DEPLOY_PASSWORD": OTHER_SECRET,
            "GITHUB_ACTIONS": None,
            "GITHUB_EVENT_NAME": None,
            "GITHUB_EVENT_PATH": None,
            "GITHUB_WORKSPACE": None,
            "GITHUB_OUTPUT": None,
            "GITHUB_STEP_SUMMARY": None,
            "RUNNER_TEMP": None,
            "REVIEWBOT_POST": None,
            "REVIEWBOT_MODEL": None,
            "REVIEWBOT_CONFIG": None,
            "REVIEWBOT_FAIL_ON": None,
            "REVIEWBOT_BOT_LOGIN": None,
            "REVIEWBOT_MARKER_KEY": None,
            "GITHUB_RUN_ID": None,
        }
        env.update(overrides)
        return env

    def review(self, *args: str, url: str = PR_URL, **env: str | None) -> Run:
        """`reviewbot review URL --format json --report FILE ARGS…`, in-process."""
        report_file = self.tmp / "report.json"
        report_file.unlink(missing_ok=True)
        argv = ["review", url, "--format", "json", "--report", str(report_file), *args]
        result = CliRunner().invoke(
            cli, argv, env=self.env(**env), catch_exceptions=False, obj=self._fast_clients()
        )
        report = json.loads(report_file.read_text()) if report_file.exists() else None
        return Run(
            exit_code=result.exit_code, stdout=result.stdout, stderr=result.stderr, report=report
        )

    def _fast_clients(self) -> app.Clients:
        """The real clients with no waits: retries are recorded in `sleeps`, never slept."""
        sleeps = self.sleeps

        def model_client(settings: Settings) -> ModelClient | None:
            return app.model_client(settings, sleep=sleeps.append)

        def github_client(ref: PRRef, settings: Settings) -> GitHubClient:
            return make_client(ref.api_url, settings.github_token, pace_seconds=0, backoff=0)

        return app.Clients(model=model_client, github=github_client)

    # -- reading what happened -------------------------------------------------------------

    def posted_reviews(self) -> list[dict[str, Any]]:
        return self.github.repo(REPO).reviews.get(NUMBER, [])

    def inline_comments(self) -> list[dict[str, Any]]:
        return self.github.repo(REPO).review_comments.get(NUMBER, [])

    def issue_comments(self) -> list[dict[str, Any]]:
        return self.github.repo(REPO).issue_comments.get(NUMBER, [])

    def check_runs(self) -> list[dict[str, Any]]:
        return [r for r in self.github.repo(REPO).check_runs if r["name"] == "reviewbot"]

    def everything_sent(self) -> str:
        """Every request body sent to both fakes, as text."""
        bodies = [r.body.decode("utf-8", "replace") for r in self.github_server.snapshot()]
        bodies += [json.dumps(request) for request in self.api.requests]
        return "\n".join(bodies)

    def tool_results(self) -> list[dict[str, Any]]:
        """Every tool_result block the harness sent back to the model (the last request has all)."""
        seen: dict[str, dict[str, Any]] = {}
        for request in self.api.requests:
            for message in request["messages"]:
                content = message["content"]
                if isinstance(content, list):
                    for block in content:
                        if block.get("type") == "tool_result":
                            seen[block["tool_use_id"]] = block
        return list(seen.values())


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[World]:
    """A fresh world; afterwards the servers stop, logging is restored and the script verified."""
    root = logging.getLogger()
    saved = root.handlers[:], root.level
    levels = {name: logging.getLogger(name).level for name in ("reviewbot", "github")}
    github = logging.getLogger("github")
    github_handlers = github.handlers[:]
    made = World(tmp=tmp_path, monkeypatch=monkeypatch)
    try:
        yield made
    finally:
        made.close()
        root.handlers[:], root.level = saved[0], saved[1]
        for name, level in levels.items():
            logging.getLogger(name).setLevel(level)
        github.handlers[:] = github_handlers
    # After the clean-up: a forgotten `api.verify()` cannot hide a scripted reply the run never
    # asked for (after a failed test this adds a teardown error, never hides the failure).
    made.api.verify()


def finding(
    path: str = "app.py",
    line: int = 3,
    quote: str = "    return eval(checked)",
    *,
    priority: str = "P0",
    title: str = "eval on user input",
    kind: str = "bug",
) -> dict[str, Any]:
    """An `add_review_node` input anchored on one line of the PR head."""
    return {
        "kind": kind,
        "priority": priority,
        "confidence": 0.95,
        "title": title,
        "body": "Remote code execution: the value comes from the request.",
        "anchor": {"path": path, "start_line": line, "end_line": line, "quote": quote},
    }
