"""A queue's database that refuses reviewbot (it answers: a configuration to fix, exit 2) told
apart from one that cannot be reached (exit 5), at start-up, in a worker and in /healthz; the
URL's password is never shown."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Mapping

import psycopg
import pytest

from reviewbot.errors import ExitCode
from tests.serve.world import (
    deliver,
    free_port,
    get,
    queue_url_as,
    refusals,
    reviews,
    start_server,
    stopped,
    wait_until,
)


def serve(env: Mapping[str, str]) -> subprocess.CompletedProcess[str]:
    port = free_port()
    done = subprocess.run(
        [sys.executable, "-m", "reviewbot", "serve", "--port", str(port), "--workers", "0"],
        env=dict(env),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert get(f"http://127.0.0.1:{port}/healthz")[0] == 0  # nothing listened
    return done


class TestStartUp:
    @pytest.mark.parametrize(
        ("refused", "said"),
        refusals("servenocreate"),
    )
    def test_a_database_that_refuses_is_one_line_and_exit_2(self, module_world, refused, said):
        done = serve(module_world.env(REVIEWBOT_QUEUE_URL=refused(module_world.queue_url)))
        assert done.returncode == ExitCode.USAGE, done.stderr
        [line] = done.stderr.strip().splitlines()
        assert said in line
        assert "refused" in line
        assert "REVIEWBOT_QUEUE_URL" in line
        assert "s3cret-pw" not in done.stderr
        assert "servenocreate-pw" not in done.stderr

    def test_an_unreachable_database_is_one_line_and_exit_5(self, module_world):
        url = f"postgresql://serve:s3cret-pw@127.0.0.1:{free_port()}/none"
        done = serve(module_world.env(REVIEWBOT_QUEUE_URL=url))
        assert done.returncode == ExitCode.NETWORK, done.stderr
        [line] = done.stderr.strip().splitlines()
        assert "cannot reach the queue at postgresql://127.0.0.1:" in line
        assert "s3cret-pw" not in done.stderr


def own_database(server_url: str, role: str) -> str:
    """A database of its own owned by login `role` (password `ROLE-pw`): its URL."""
    with psycopg.connect(server_url, autocommit=True) as conn:
        conn.execute(f"CREATE ROLE {role} LOGIN PASSWORD '{role}-pw'")
        conn.execute(f"CREATE DATABASE {role} OWNER {role}")
    return queue_url_as(server_url, user=f"{role}:{role}-pw", database=role)


def lock_out(server_url: str, role: str, *, login: bool) -> None:
    """The DBA's hand: `role` may no longer log in (and its sessions end), or may again."""
    with psycopg.connect(server_url, autocommit=True) as conn:
        conn.execute(f"ALTER ROLE {role} {'LOGIN' if login else 'NOLOGIN'}")
        if not login:
            conn.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = %s",
                (role,),
            )


class TestMidRun:
    def test_a_database_that_refuses_is_said_by_healthz_and_the_worker_then_taken_up(
        self, world, postgres
    ):
        """The queue's role is locked out while serve runs: /healthz says the queue refused
        (503), the worker ends with the database's one line (exit 2, no traceback), and once the
        role may log in again a restarted worker takes the next review."""
        world.add_pull(7)
        url = own_database(postgres, "servemid")
        server = start_server(world, workers=1, env=world.env(REVIEWBOT_QUEUE_URL=url))
        try:
            wait_until(lambda: get(server.url + "/healthz") == (200, "ok\n"), "the worker ready")
            lock_out(postgres, "servemid", login=False)
            status, text = get(server.url + "/healthz")
            assert (status, text.splitlines()[0]) == (503, "queue refused")
            said = 'refused the connection: role "servemid" is not permitted to log in'
            wait_until(lambda: "error: the queue's database at " in server.output(), "the worker")
            first = next(x for x in server.output().splitlines() if x.startswith("error: "))
            assert said in first
            assert first.endswith("(check REVIEWBOT_QUEUE_URL)")
            assert "/healthz: the queue's database at " in server.output()
            wait_until(lambda: "exited 2; restarted" in server.output(), "the worker restarted")
            lock_out(postgres, "servemid", login=True)
            wait_until(lambda: get(server.url + "/healthz") == (200, "ok\n"), "a worker again")
            deliver(world, server, 7)
            wait_until(lambda: reviews(world, 7), "the review")
        finally:
            stopped(world, server)
        assert "Traceback" not in server.output()
        assert "servemid-pw" not in server.output()
