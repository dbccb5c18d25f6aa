"""The serving world: PostgreSQL, the loopback GitHub with an App, the Messages API, and the
real `reviewbot serve` process tree, driven by signed deliveries of GitHub's real payloads.

Owns: a throwaway PostgreSQL cluster (reviewbot's own `Cluster`, on a TCP port, fsync off)
with a fresh database per test; PRs seeded from real git repositories; the model fake that
answers every review with one `finalize_review` and can hold its answers (`model_gate`) so
a test can act while a review is mid-flight; starting and stopping `reviewbot serve`.

Must not: reach the network, or skip: a missing PostgreSQL fails the test.
"""

from __future__ import annotations

import copy
import itertools
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator, Mapping
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import psycopg
import pytest

from reviewbot.serve.cluster import Cluster, find_bindir, run_as_of
from reviewbot.serve.signature import sign
from tests.fakes.github_api import FakeGitHub, FakePull
from tests.fakes.github_app import FakeApp
from tests.fakes.gitrepo import GitRepo, make_repo
from tests.fakes.keys import ANTHROPIC_KEY
from tests.fakes.messages_api import FakeMessagesAPI, reply, tool_use
from tests.fakes.pulls import seed_pull
from tests.fakes.server import LoopbackServer, json_function_handler
from tests.fakes.webhooks import WEBHOOKS
from tests.fakes.world import REPO, child_env

INSTALLATION = 77
SECRET = "webhook-" + "s" * 24
MARKER_KEY = "marker-" + "m" * 32
WAIT = 60.0  # seconds a condition may take before the test fails (never a measured time)
BASE = "def run(x):\n    return x\n"
FINALIZE = reply(tool_use("finalize_review", {"summary": "Nothing found.", "verdict": "ship"}))


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def wait_until(condition: Any, what: str, timeout: float = WAIT) -> Any:
    """Poll `condition` until it is truthy; a test that waits longer fails, naming `what`."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if value := condition():
            return value
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


@contextmanager
def postgres_server(*, fsync: bool = False) -> Iterator[str]:
    """A PostgreSQL server for the tests (as root it runs as `postgres`); its URL.
    `fsync`: commits reach the disk (the benchmarks' durable figures)."""
    folder = Path(tempfile.mkdtemp(prefix="reviewbot-pg-", dir="/tmp"))
    folder.chmod(0o755)  # the `postgres` account must reach it when the tests run as root
    cluster = Cluster(
        bindir=find_bindir(os.environ),
        folder=folder / "cluster",
        port=free_port(),
        fsync=fsync,
        run_as=run_as_of(os.environ, os.geteuid()),
    )
    cluster.start()
    try:
        yield cluster.url
    finally:
        cluster.stop()
        shutil.rmtree(folder, ignore_errors=True)


_databases = itertools.count(1)


def fresh_database(server_url: str) -> str:
    name = f"t{os.getpid()}_{next(_databases)}"
    with psycopg.connect(server_url, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    return server_url.rsplit("/", 1)[0] + f"/{name}"


def queue_url_as(url: str, *, user: str | None = None, database: str | None = None) -> str:
    """`url` with another user (and password: `name:password`) or database."""
    parts = urlsplit(url)
    netloc = parts.netloc if user is None else f"{user}@{parts.netloc.rpartition('@')[2]}"
    path = parts.path if database is None else f"/{database}"
    return parts._replace(netloc=netloc, path=path).geturl()


def role_without_create(queue_url: str, role: str) -> str:
    """A login `role` that may connect to the queue's database but create no table in it."""
    with psycopg.connect(queue_url, autocommit=True) as conn:
        conn.execute(f"CREATE ROLE {role} LOGIN PASSWORD '{role}-pw'")
        conn.execute("REVOKE CREATE ON SCHEMA public FROM PUBLIC")
    return queue_url_as(queue_url, user=f"{role}:{role}-pw")


def refusals(role: str) -> list[Any]:
    """The server's refusals of the queue's URL, as `(make_url, said)` parameters: an unknown role
    (its password in the URL), a missing database, a `role` that may not create the tables."""
    return [
        pytest.param(
            lambda url: queue_url_as(url, user="nobody:s3cret-pw"),
            'role "nobody" does not exist',
            id="unknown-role",
        ),
        pytest.param(
            lambda url: queue_url_as(url, database="no_such_db"),
            'database "no_such_db" does not exist',
            id="missing-database",
        ),
        pytest.param(
            lambda url: role_without_create(url, role),
            "permission denied for schema public",
            id="permission-denied",
        ),
    ]


class Model:
    """Every request answered with FINALIZE; `gate` cleared: answers wait until it is set."""

    def __init__(self) -> None:
        self.api = FakeMessagesAPI()
        self.gate = threading.Event()
        self.gate.set()
        self.arrived = threading.Semaphore(0)
        self.seen: list[Any] = []  # each request's body, as it arrived (before the gate)
        self.delay = 0.0  # seconds each answer takes (a benchmark's model latency)
        self.in_flight = 0
        self.most_in_flight = 0  # the most requests waiting for an answer at one time
        self._lock = threading.Lock()

    def __call__(self, body: Any, headers: Mapping[str, str]) -> tuple[int, Mapping[str, str], Any]:
        with self._lock:
            self.seen.append(body)
            self.in_flight += 1
            self.most_in_flight = max(self.most_in_flight, self.in_flight)
        self.arrived.release()
        self.gate.wait(WAIT)
        time.sleep(self.delay)
        with self._lock:
            self.in_flight -= 1
            self.api.add(FINALIZE)
            return self.api.handle(body, headers)


@dataclass(slots=True, kw_only=True)
class World:
    root: Path
    queue_url: str
    app: FakeApp
    github: FakeGitHub
    github_server: LoopbackServer
    model: Model
    model_server: LoopbackServer
    pulls: dict[int, FakePull] = field(default_factory=dict)
    repo: GitRepo | None = None
    _deliveries: Iterator[int] = field(default_factory=lambda: itertools.count(1))

    def add_pull(self, number: int) -> FakePull:
        """PR `number`: branch `pr-N` of the world's one repository, changing app.py."""
        if self.repo is None:
            self.repo = make_repo(self.root / "repo", {"app.py": BASE}, {"notes.txt": "x\n"})
        self.repo.git("checkout", "--quiet", "-b", f"pr-{number}", "main")
        self.repo.write_files({"app.py": BASE.replace("return x", f"return x + {number}")})
        self.repo.git("commit", "--quiet", "-am", f"pr {number}")
        pull = seed_pull(
            self.github,
            self.repo.path,
            "main",
            f"pr-{number}",
            number=number,
            author="octocat",
            head_ref=f"pr-{number}",
        )
        self.pulls[number] = pull
        return pull

    def push(self, number: int) -> str:
        """A new commit on the PR's branch: the fake PR's head moves to it."""
        assert self.repo is not None
        self.repo.git("checkout", "--quiet", f"pr-{number}")
        pushes = len(self.pulls[number].commits)  # each push changes the file again
        self.repo.write_files(
            {"app.py": BASE.replace("return x", f"return x + {number}") + f"# push {pushes}\n"}
        )
        self.repo.git("commit", "--quiet", "-am", "push")
        head = self.repo.git("rev-parse", "HEAD").strip()
        self.repo.git("update-ref", f"refs/pull/{number}/head", head)
        pull = self.pulls[number]
        pull.head_sha = head
        pull.commits = [*pull.commits, head]
        self.github.repo(REPO).branches[pull.head_ref] = head
        return head

    def env(self, **extra: str) -> dict[str, str]:
        home = self.root / "home"
        home.mkdir(exist_ok=True)
        env = child_env(home) | {
            "REVIEWBOT_APP_ID": str(self.app.app_id),
            "REVIEWBOT_APP_PRIVATE_KEY": self.app.private_pem,
            "REVIEWBOT_WEBHOOK_SECRET": SECRET,
            "REVIEWBOT_QUEUE_URL": self.queue_url,
            "REVIEWBOT_MARKER_KEY": MARKER_KEY,
            "REVIEWBOT_HEARTBEAT": "1",
            "REVIEWBOT_SHUTDOWN_GRACE": "30",
            "REVIEWBOT_STATE_DIR": str(self.root / "state"),
            "GITHUB_API_URL": self.github_server.url,
            "GITHUB_SERVER_URL": "https://github.com",  # the loopback API serves github.com's PRs
            "ANTHROPIC_API_KEY": ANTHROPIC_KEY,
            "ANTHROPIC_BASE_URL": self.model_server.url,
        }
        return env | extra

    # ---------------------------------------------------------------- deliveries

    def pull_request_event(self, number: int, action: str = "opened") -> dict[str, Any]:
        payload = _webhook("pull_request.opened.payload.json")
        pull, base_id = self.pulls[number], self.github.repo(REPO).id
        pr = payload["pull_request"]
        payload["action"] = action
        payload["number"] = pr["number"] = number
        pr["user"]["login"] = payload["sender"]["login"] = pull.author
        pr["head"]["sha"], pr["base"]["sha"] = pull.head_sha, pull.base_sha
        pr["head"]["ref"], pr["base"]["ref"] = pull.head_ref, pull.base_ref
        for where in (payload["repository"], pr["base"]["repo"], pr["head"]["repo"]):
            where.update(full_name=REPO, id=base_id)
        payload["installation"] = {
            "id": INSTALLATION,
            "node_id": "MDIzOkludGVncmF0aW9uSW5zdGFsbGF0aW9uNzc=",
        }
        return payload

    def delivery_id(self) -> str:
        return f"00000000-0000-4000-8000-{next(self._deliveries):012d}"


def signed_request(
    url: str,
    event: str,
    payload: Any,
    *,
    delivery: str,
    secret: str = SECRET,
    body: bytes | None = None,
) -> tuple[int, dict[str, Any]]:
    """POST one delivery as GitHub does; (status, JSON answer)."""
    data = body if body is not None else json.dumps(payload).encode("utf-8")
    request = urllib.request.Request(
        url + "/webhook",
        data=data,
        method="POST",
        headers={
            "Content-Type": "application/json",
            "User-Agent": "GitHub-Hookshot/fake",
            "X-GitHub-Event": event,
            "X-GitHub-Delivery": delivery,
            "X-GitHub-Hook-ID": "1",
            "X-Hub-Signature-256": sign(secret.encode("utf-8"), data),
        },
    )
    return _send(request)


def _send(request: urllib.request.Request) -> tuple[int, dict[str, Any]]:
    try:
        with urllib.request.urlopen(request, timeout=WAIT) as answer:
            return answer.status, json.loads(answer.read() or b"{}")
    except urllib.error.HTTPError as error:
        text = error.read()
        return error.code, json.loads(text) if text.startswith(b"{") else {"text": text.decode()}


def get(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=WAIT) as answer:
            return answer.status, answer.read().decode("utf-8")
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode("utf-8")
    except OSError:
        return 0, ""


@dataclass(slots=True)
class Server:
    process: subprocess.Popen[str]
    url: str
    log: Path

    def stop(self, sig: int = signal.SIGTERM) -> int:
        if self.process.poll() is None:
            self.process.send_signal(sig)
        return self.process.wait(timeout=WAIT)

    def output(self) -> str:
        return self.log.read_text(encoding="utf-8", errors="replace")


def start_server(world: World, *, workers: int = 1, env: Mapping[str, str] | None = None) -> Server:
    port = free_port()
    log = world.root / f"serve-{port}.log"
    with log.open("w") as sink:
        process = _popen(world, port, workers, env, sink)
    server = Server(process, f"http://127.0.0.1:{port}", log)

    def ready() -> bool:
        if process.poll() is not None:
            raise AssertionError(f"reviewbot serve exited {process.returncode}:\n{server.output()}")
        return get(server.url + "/healthz")[0] == 200

    wait_until(ready, "reviewbot serve to answer /healthz")
    return server


def _popen(
    world: World, port: int, workers: int, env: Mapping[str, str] | None, sink: Any
) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "reviewbot",
            "serve",
            "--port",
            str(port),
            "--workers",
            str(workers),
        ],
        env=dict(env if env is not None else world.env()),
        cwd=world.root,
        stdin=subprocess.DEVNULL,
        stdout=sink,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,  # its workers are its children: a test signals the tree
    )


@contextmanager
def open_world(root: Path, server_url: str) -> Iterator[World]:
    app = FakeApp()
    github = FakeGitHub(login=app.bot_login, user_endpoint=False, app=app)
    model = Model()
    with ExitStack() as stack:
        github_server = stack.enter_context(LoopbackServer(github))
        model_server = stack.enter_context(
            LoopbackServer(json_function_handler(model, path="/v1/messages"))
        )
        world = World(
            root=root,
            queue_url=fresh_database(server_url),
            app=app,
            github=github,
            github_server=github_server,
            model=model,
            model_server=model_server,
        )
        try:
            yield world
        finally:
            model.gate.set()
        assert not github_server.errors, github_server.errors
        assert not model_server.errors, model_server.errors


def _webhook(name: str) -> dict[str, Any]:
    return copy.deepcopy(json.loads((WEBHOOKS / name).read_text(encoding="utf-8")))


# ---------------------------------------------------------------- reading the queue and the world


def jobs(world: World) -> list[dict[str, Any]]:
    """Every job in the queue, oldest first: id, status, PR number, head, attempts."""
    with psycopg.connect(world.queue_url) as conn:
        rows = conn.execute(
            "SELECT id, status::text, (args->'args'->>'number')::int,"
            " args->'args'->>'head_sha', attempts FROM procrastinate_jobs ORDER BY id"
        ).fetchall()
    names = ("id", "status", "number", "head", "attempts")
    return [dict(zip(names, row, strict=True)) for row in rows]


def settled(world: World) -> list[dict[str, Any]] | None:
    """The jobs once none is queued or running (None while some are)."""
    found = jobs(world)
    return None if any(j["status"] in ("todo", "doing") for j in found) else found


def reviews(world: World, number: int) -> list[dict[str, Any]]:
    return list(world.github.repo(REPO).reviews.get(number, []))


def model_saw(world: World, index: int) -> int:
    """Which PR the model's `index`-th request was about (the seeded diff names its number)."""
    text = json.dumps(world.model.seen[index])
    return next(n for n in world.pulls if f"return x + {n}" in text)


def arrived(world: World, count: int = 1) -> None:
    for _ in range(count):
        if not world.model.arrived.acquire(timeout=WAIT):
            raise AssertionError("timed out waiting for a review to reach the model")


def worker_pids(server: Server) -> list[int]:
    done = subprocess.run(
        ["ps", "-o", "pid=", "--ppid", str(server.process.pid)],
        capture_output=True,
        text=True,
        check=False,
    )
    return [int(pid) for pid in done.stdout.split()]


def kill(pid: int) -> None:
    os.kill(pid, signal.SIGKILL)


def deliver(
    world: World, server: Server, number: int, action: str = "opened", **changes: Any
) -> dict[str, Any]:
    """A signed `pull_request` delivery for PR `number`, accepted (202)."""
    payload = world.pull_request_event(number, action=action)
    if "installation" in changes:
        payload["installation"]["id"] = changes["installation"]
    status, answer = signed_request(
        server.url, "pull_request", payload, delivery=world.delivery_id()
    )
    assert status == 202, answer
    return answer


def stopped(world: World, server: Server) -> None:
    world.model.gate.set()  # a review held at the model must not outlive the test
    assert server.stop() == 0, server.output()[-3000:]
