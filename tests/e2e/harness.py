"""The end-to-end world: a real git repository, fake GitHub and Messages API on loopback, and
`python -m reviewbot` run as a subprocess with the environment GitHub Actions sets.

Owns: mirroring a repository built in a temporary folder as a PR into a `FakeGitHub`
(`tests.fakes.world.seed_pull`), serving both fakes, turning the REAL webhook payloads of
tests/data/github-webhooks/ into events about that PR, and running reviewbot with a minimal,
explicit environment (never the developer's) — recording, per run, what each fake received.

Must not: reach the network, or use a real-looking secret literal: the fake secrets below
have the real shapes but are built by concatenation.

    with open_world(tmp_path, base=..., head=..., script=[reply(text("ok"))]) as world:
        run = world.run(["review", "--github-event", "--post"], event=pull_request_event(world))
        assert run.returncode == 0 and run.outputs["verdict"] == "ship"
"""

from __future__ import annotations

import copy
import itertools
import json
import os
import subprocess
import sys
from collections.abc import Iterator, Mapping, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.fakes.github_api import FakeGitHub, FakePull
from tests.fakes.gitrepo import make_repo
from tests.fakes.messages_api import FakeMessagesAPI, Scripted
from tests.fakes.server import LoopbackServer, Recorded, json_function_handler
from tests.fakes.world import seed_pull

WEBHOOKS = Path(__file__).resolve().parents[1] / "data" / "github-webhooks"
# The checkout these tests belong to: its `reviewbot` is the one run, never another installed copy
# (an editable install may point at a different worktree).
SOURCE_ROOT = Path(__file__).resolve().parents[2]
REPO = "octo/app"
FORK = "forker/app"
AUTHOR = "octocat"
# Fake secrets with the real shapes (a GitHub Actions token, an Anthropic key); concatenated so
# no token-looking literal sits in the source.
GITHUB_TOKEN = "ghs_" + "Z" * 36
ANTHROPIC_KEY = "sk-ant-" + "api03-" + "K" * 40
SECRETS = (GITHUB_TOKEN, ANTHROPIC_KEY)
# Only what reviewbot and git need: the interpreter is run by absolute path.
BASE_PATH = "/usr/local/bin:/usr/bin:/bin"
RUN_TIMEOUT = 120
# Under `pytest --cov`, coverage's `patch = subprocess` hands its settings to child interpreters
# in these variables (read by the .pth file coverage installs): the one thing of the parent's
# environment a run keeps, so the runs' lines count too.
COVERAGE_VARIABLES = ("COVERAGE_PROCESS_CONFIG", "COVERAGE_PROCESS_START")


# ---------------------------------------------------------------- one run


@dataclass(frozen=True, slots=True, kw_only=True)
class Run:
    """One finished `python -m reviewbot` and what the fakes received while it ran."""

    args: tuple[str, ...]
    returncode: int
    stdout: str  # empty when the run's stdout (or stderr) was not a pipe to this process
    stderr: str
    outputs: dict[str, str]  # GITHUB_OUTPUT, parsed
    step_summary: str
    github: tuple[Recorded, ...]  # requests to the fake GitHub during this run
    model: tuple[dict[str, Any], ...]  # request bodies sent to the fake Messages API

    def writes(self) -> list[Recorded]:
        return [r for r in self.github if r.is_write]

    @property
    def said(self) -> list[str]:
        """stderr's non-empty lines, less the workflow-command fence a run in Actions prints
        first and last (`::stop-commands::TOKEN` … `::TOKEN::`, see reviewbot/config/logs.py)."""
        lines = [line for line in self.stderr.splitlines() if line.strip()]
        if lines and lines[0].startswith("::stop-commands::"):
            token = lines[0].removeprefix("::stop-commands::")
            lines = [line for line in lines[1:] if line != f"::{token}::"]
        return lines

    def calls(self, method: str, suffix: str) -> list[Recorded]:
        """Requests of `method` whose path ends with `suffix` (e.g. "/pulls/7/reviews")."""
        return [r for r in self.github if r.method == method and r.path.endswith(suffix)]

    def report(self) -> dict[str, Any]:
        """The JSON report the run wrote to the `report-path` output."""
        return dict(json.loads(Path(self.outputs["report-path"]).read_text(encoding="utf-8")))


@dataclass(slots=True, kw_only=True)
class Pending:
    """A started run: `wait()` finishes it (so independent runs can overlap)."""

    world: World
    args: tuple[str, ...]
    process: subprocess.Popen[str]
    folder: Path
    github_from: int
    model_from: int

    def wait(self) -> Run:
        stdout, stderr = self.process.communicate(timeout=RUN_TIMEOUT)
        output = self.folder / "github-output"
        summary = self.folder / "step-summary"
        return Run(
            args=self.args,
            returncode=self.process.returncode,
            stdout=stdout or "",
            stderr=stderr or "",
            outputs=_outputs(output.read_text(encoding="utf-8") if output.exists() else ""),
            step_summary=summary.read_text(encoding="utf-8") if summary.exists() else "",
            github=self.world.github_server.snapshot()[self.github_from :],
            model=tuple(self.world.model.requests[self.model_from :]),
        )


def _outputs(text: str) -> dict[str, str]:
    found = {}
    for line in text.splitlines():
        key, sep, value = line.partition("=")
        if sep:
            found[key] = value
    return found


# ---------------------------------------------------------------- the world


@dataclass(slots=True, kw_only=True)
class World:
    """The fakes, the repository and the PR they agree on."""

    root: Path
    repo: Path
    github: FakeGitHub
    github_server: LoopbackServer
    model: FakeMessagesAPI
    model_server: LoopbackServer
    pull: FakePull
    full_name: str = REPO
    _runs: Iterator[int] = field(default_factory=lambda: itertools.count(1))

    def env(
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
        env = {
            "PATH": BASE_PATH,
            "HOME": str(home),
            "LANG": "C.UTF-8",
            "PYTHONPATH": str(SOURCE_ROOT),
        }
        env |= {name: os.environ[name] for name in COVERAGE_VARIABLES if name in os.environ}
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
        folder = self.root / f"run-{next(self._runs)}"
        folder.mkdir()
        env = self.env(
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
    repo = make_repo(root / "repo", base, head).path
    # Like GITHUB_TOKEN: may not ask who it is (GET /user → 403), may not approve.
    github = FakeGitHub(user_endpoint=False, approve_allowed=False, tokens=tokens)
    pull = seed_pull(
        github, repo, "main", "feature", head_repo=FORK if fork else None, author=AUTHOR
    )
    github.repo(REPO).permissions.update(permissions or {})
    model = model or FakeMessagesAPI(script)
    with ExitStack() as stack:
        github_server = stack.enter_context(LoopbackServer(github))
        model_server = stack.enter_context(
            LoopbackServer(json_function_handler(model.handle, path="/v1/messages"))
        )
        yield World(
            root=root,
            repo=repo,
            github=github,
            github_server=github_server,
            model=model,
            model_server=model_server,
            pull=pull,
        )
        assert not github_server.errors, github_server.errors  # a crashing fake is a test bug
        assert not model_server.errors, model_server.errors
        model.verify()  # every scripted reply was asked for, and no request was refused


# ---------------------------------------------------------------- events, from the real payloads


def _webhook(name: str) -> dict[str, Any]:
    payload: dict[str, Any] = json.loads((WEBHOOKS / name).read_text(encoding="utf-8"))
    return payload


def _repo_ids(world: World) -> tuple[int, int]:
    """(base repository id, head repository id) as the fake GitHub reports them."""
    base = world.github.repo(world.full_name).id
    head = base if world.pull.head_repo is None else 9_000_001
    return base, head


def pull_request_event(world: World, *, action: str = "opened") -> dict[str, Any]:
    """The real `pull_request.opened` payload, about the world's PR."""
    payload = _webhook("pull_request.opened.payload.json")
    pull, (base_id, head_id) = world.pull, _repo_ids(world)
    pr = payload["pull_request"]
    payload["action"] = action
    payload["number"] = pr["number"] = pull.number
    pr["user"]["login"] = payload["sender"]["login"] = pull.author
    pr["head"]["sha"], pr["base"]["sha"] = pull.head_sha, pull.base_sha
    pr["head"]["ref"], pr["base"]["ref"] = pull.head_ref, pull.base_ref
    payload["repository"].update(full_name=world.full_name, id=base_id)
    pr["base"]["repo"].update(full_name=world.full_name, id=base_id)
    pr["head"]["repo"].update(full_name=pull.head_repo or world.full_name, id=head_id)
    return payload


def issue_comment_event(
    world: World, *, login: str, body: str = "/review", association: str = "MEMBER"
) -> dict[str, Any]:
    """The real `issue_comment.created` payload, turned into a comment on the world's PR."""
    payload = _webhook("issue_comment.created.payload.json")
    number = world.pull.number
    payload["issue"]["number"] = number
    payload["issue"]["pull_request"] = {
        "url": f"https://api.github.com/repos/{world.full_name}/pulls/{number}"
    }
    comment = payload["comment"]
    comment.update(body=body, author_association=association)
    comment["user"]["login"] = payload["sender"]["login"] = login
    payload["repository"].update(full_name=world.full_name, id=_repo_ids(world)[0])
    return payload


def check_suite_event(world: World) -> dict[str, Any]:
    """The real `check_suite.completed` payload, for a suite on the world's PR head."""
    payload = _webhook("check_suite.completed.payload.json")
    pull, (base_id, head_id) = world.pull, _repo_ids(world)
    suite = payload["check_suite"]
    suite["head_sha"] = pull.head_sha
    suite["conclusion"] = "failure"
    stub = suite["pull_requests"][0]
    stub["number"] = pull.number
    stub["head"]["sha"], stub["base"]["sha"] = pull.head_sha, pull.base_sha
    stub["head"]["repo"]["id"], stub["base"]["repo"]["id"] = head_id, base_id
    suite["pull_requests"] = [stub]
    payload["repository"].update(full_name=world.full_name, id=base_id)
    return payload


def workflow_run_event(world: World, *, head_sha: str | None = None) -> dict[str, Any]:
    """A `workflow_run` completed for the snapshot workflow, built from the real PR payload."""
    source = pull_request_event(world)
    pr = source["pull_request"]
    stub = {
        "number": pr["number"],
        "head": {"ref": pr["head"]["ref"], "sha": pr["head"]["sha"], "repo": pr["head"]["repo"]},
        "base": {"ref": pr["base"]["ref"], "sha": pr["base"]["sha"], "repo": pr["base"]["repo"]},
    }
    run = {
        "id": 30_433_642,
        "name": "reviewbot snapshot",
        "event": "pull_request",
        "status": "completed",
        "conclusion": "success",
        "head_branch": pr["head"]["ref"],
        "head_sha": head_sha or pr["head"]["sha"],
        "head_repository": copy.deepcopy(pr["head"]["repo"]),
        # GitHub leaves this empty for runs from forks; the snapshot names the PR then.
        "pull_requests": [] if world.pull.head_repo else [stub],
        "triggering_actor": copy.deepcopy(pr["user"]),
        "actor": copy.deepcopy(pr["user"]),
    }
    return {
        "action": "completed",
        "workflow_run": run,
        "workflow": {
            "name": "reviewbot snapshot",
            "path": ".github/workflows/reviewbot-snapshot.yml",
        },
        "repository": source["repository"],
        "sender": source["sender"],
    }


# ---------------------------------------------------------------- what left the process


def leaked(texts: Sequence[str]) -> list[str]:
    """Which of the run's secrets appear in any of `texts` (names only, never the values)."""
    names = {GITHUB_TOKEN: "GITHUB_TOKEN", ANTHROPIC_KEY: "ANTHROPIC_API_KEY"}
    return sorted({names[s] for s in SECRETS for t in texts if s in t})


def everything_sent(run: Run) -> list[str]:
    """Every text a run let out: stdout, stderr, outputs, report, step summary, request bodies."""
    texts = [run.stdout, run.stderr, run.step_summary, json.dumps(run.outputs)]
    if run.outputs.get("report-path"):
        texts.append(Path(run.outputs["report-path"]).read_text(encoding="utf-8"))
    texts += [r.body.decode("utf-8", "replace") for r in run.github]
    texts += [json.dumps(body) for body in run.model]
    return texts
