"""`reviewbot eval --queue RUN`: machines sharing one evaluation on the queue's PostgreSQL
(a real server, as the serve tests start it). Each machine is a real `reviewbot eval` process.

The fake Messages API answers each PR from its own script (world.routed_model) and `verify()`
proves each script was used exactly once: a PR shared by two processes is reviewed once.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest

from reviewbot.config.file import DEFAULT_MODEL
from reviewbot.errors import ExitCode, NetworkError, UsageError
from reviewbot.eval.bench import parse_entries
from reviewbot.eval.cache import CacheKey
from reviewbot.serve.queue import SharedResults, _meaning
from tests.eval.world import (
    BENCH,
    URL_A,
    URL_B,
    bench_world,
    eval_args,
    routed_model,
    script_a,
    script_b,
    without_cache_split,
    write_bench,
)
from tests.serve.world import (
    free_port,
    fresh_database,
    postgres_server,
    refusals,
    wait_until,
)

MODELS = ("--model", DEFAULT_MODEL, "--judge-model", DEFAULT_MODEL)


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    with postgres_server() as url:
        yield url


@pytest.fixture
def queue_url(server: str) -> str:
    return fresh_database(server)


def key_of(url: str) -> str:
    pr = next(p for p in parse_entries(BENCH, origin="bench").prs if p.url == url)
    return CacheKey(url=url, model=DEFAULT_MODEL, judge_model=DEFAULT_MODEL).digest(pr)


def stored_urls(queue_url: str) -> list[str]:
    with psycopg.connect(queue_url) as conn:
        rows = conn.execute("SELECT result FROM reviewbot_eval_results").fetchall()
    return sorted(json.loads(row[0])["url"] for row in rows)


def serial_result(tmp_path: Path, bench: Path) -> tuple[dict[str, Any], int]:
    """The serial run's report and how many Messages API requests it made."""
    out = tmp_path / "serial.json"
    with bench_world(tmp_path / "s") as world:
        world.model.add(*script_a(), *script_b())
        run = world.run([*eval_args(bench, out, tmp_path / "cache-s"), *MODELS])
        assert run.returncode == 0, run.stderr
    return comparable(out), len(run.model)


def comparable(out: Path) -> dict[str, Any]:
    result = json.loads(out.read_text(encoding="utf-8"))
    for pr in result["prs"]:
        pr.pop("head_sha")  # each world builds its own repositories
    return without_cache_split(result)  # type: ignore[no-any-return]


class TestSharedResults:
    def test_a_claim_is_held_by_one_connection_and_freed_with_it(self, queue_url):
        one, two = SharedResults(queue_url, "r"), SharedResults(queue_url, "r")
        one.prepare()
        two.prepare()  # idempotent: a second machine creates nothing
        with one.claim("k") as first:
            with two.claim("k") as second:
                assert (first, second) == (True, False)
            with SharedResults(queue_url, "other run").claim("k") as elsewhere:
                assert elsewhere  # another evaluation's PR of the same key is its own
        with two.claim("k") as after:
            assert after

    def test_a_result_is_stored_once(self, queue_url):
        store = SharedResults(queue_url, "r")
        store.prepare()
        store.store("k", '{"first": true}')
        store.store("k", '{"second": true}')
        assert store.stored("k") == '{"first": true}'
        assert store.stored("missing") is None


class TestSharedEval:
    def test_two_machines_report_what_a_serial_run_reports(self, tmp_path, queue_url):
        """Two `eval --queue` processes at once on one benchmark: each PR reviewed once (each
        script used once), and both print the serial run's report."""
        bench = write_bench(tmp_path / "bench.json", BENCH)
        serial, requests = serial_result(tmp_path, bench)
        env = {"REVIEWBOT_QUEUE_URL": queue_url}
        with bench_world(tmp_path / "q", routed_model()) as world:
            outs = [tmp_path / "m1.json", tmp_path / "m2.json"]
            started = [
                world.start(
                    [*eval_args(bench, out, tmp_path / f"cache-{i}"), *MODELS, "--queue", "r1"],
                    extra_env=env,
                )
                for i, out in enumerate(outs)
            ]
            runs = [p.wait() for p in started]
            for run in runs:
                assert run.returncode == 0, run.stderr
            world.model.verify()  # each PR's script used exactly once: no PR reviewed twice
            assert len(world.model.requests) == requests  # both machines together
        for out in outs:
            assert comparable(out) == serial
        assert stored_urls(queue_url) == [URL_A, URL_B]

    def test_a_killed_machines_pr_is_taken_again_and_merged_in_order(self, tmp_path, queue_url):
        """A machine claims A and is killed (SIGKILL): the running eval reviews B, waits for A,
        takes it once the dead machine's claim is gone, and reports A then B."""
        bench = write_bench(tmp_path / "bench.json", BENCH)
        SharedResults(queue_url, "r2").prepare()
        out = tmp_path / "r2.json"
        with (
            subprocess.Popen(
                [sys.executable, "-c", HOLD, queue_url, "r2", key_of(URL_A)],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                text=True,
            ) as holder,
            bench_world(tmp_path / "q", routed_model()) as world,
        ):
            assert holder.stdout is not None
            assert holder.stdout.readline().strip() == "True"  # A claimed by the other machine
            args = [*eval_args(bench, out, tmp_path / "cache"), *MODELS, "--queue", "r2"]
            pending = world.start(args, extra_env={"REVIEWBOT_QUEUE_URL": queue_url})
            wait_until(lambda: stored_urls(queue_url) == [URL_B], "B stored, A still held")
            assert pending.process.poll() is None  # waiting for A
            holder.send_signal(signal.SIGKILL)
            run = pending.wait()
            assert run.returncode == 0, run.stderr
            world.model.verify()
        result = json.loads(out.read_text(encoding="utf-8"))
        assert [p["url"] for p in result["prs"]] == [URL_A, URL_B]
        assert stored_urls(queue_url) == [URL_A, URL_B]

    def test_queue_without_its_url_is_a_usage_error(self, tmp_path):
        bench = write_bench(tmp_path / "bench.json", BENCH)
        with bench_world(tmp_path / "q") as world:
            run = world.run(
                [*eval_args(bench, tmp_path / "o.json", tmp_path / "c"), "--queue", "x"]
            )
        assert run.returncode == ExitCode.USAGE, run.stderr
        assert "REVIEWBOT_QUEUE_URL" in run.stderr
        assert len(run.model) == 0

    def test_an_unreachable_queue_is_one_line_without_its_password(self, tmp_path):
        bench = write_bench(tmp_path / "bench.json", BENCH)
        url = f"postgresql://eval:s3cret-pw@127.0.0.1:{free_port()}/none"
        with bench_world(tmp_path / "q") as world:
            args = [*eval_args(bench, tmp_path / "o.json", tmp_path / "c"), "--queue", "x"]
            run = world.run(args, extra_env={"REVIEWBOT_QUEUE_URL": url})
        assert run.returncode == ExitCode.NETWORK, run.stderr
        assert "cannot reach the queue at postgresql://127.0.0.1:" in run.stderr
        assert "s3cret-pw" not in run.stderr + run.stdout
        assert len(run.model) == 0


class TestQueueThatRefuses:
    """The database answers, and refuses: one line and exit 2, never a traceback or exit 70."""

    @pytest.mark.parametrize(
        ("refused", "said"),
        [
            *refusals("weak"),
            pytest.param(
                lambda _url: "mysql://eval:s3cret-pw@127.0.0.1/db",
                "not a PostgreSQL URL",
                id="mysql-scheme",
            ),
            pytest.param(lambda _url: "s3cret-pw", "not a PostgreSQL URL", id="not-a-url"),
        ],
    )
    def test_is_one_line_and_exit_2(self, tmp_path, queue_url, refused, said):
        bench = write_bench(tmp_path / "bench.json", BENCH)
        with bench_world(tmp_path / "q") as world:
            args = [*eval_args(bench, tmp_path / "o.json", tmp_path / "c"), "--queue", "x"]
            run = world.run(args, extra_env={"REVIEWBOT_QUEUE_URL": refused(queue_url)})
        assert run.returncode == ExitCode.USAGE, run.stderr
        [line] = [x for x in run.stderr.splitlines() if x.startswith("reviewbot: ")]
        assert line.startswith("reviewbot: error: "), run.stderr
        assert said in line
        assert "REVIEWBOT_QUEUE_URL" in line
        assert "s3cret-pw" not in run.stderr + run.stdout
        assert "weak-pw" not in run.stderr + run.stdout
        assert len(run.model) == 0


# A machine that claims one PR and then hangs until it is killed.
HOLD = """
import sys
from reviewbot.serve.queue import SharedResults, _meaning
with SharedResults(sys.argv[1], sys.argv[2]).claim(sys.argv[3]) as mine:
    print(mine, flush=True)
    sys.stdin.read()
"""


class TestRefusedOrBusy:
    """A server's FATAL at connect: a refusal the URL or the role cures is a usage error (2); a
    server busy or restarting for now is the network's exit (5), to try again later."""

    URL = "postgresql://eval:pw@db.example:5432/queue"

    @pytest.mark.parametrize(
        "fatal",
        [
            "remaining connection slots are reserved for roles with the SUPERUSER attribute",
            "remaining connection slots are reserved for non-replication superuser connections",
            "sorry, too many clients already",
            "the database system is not yet accepting connections",
            "the database system is starting up",
            "terminating connection due to administrator command",
        ],
    )
    def test_a_server_busy_for_now_is_unreachable(self, fatal):
        exc = psycopg.OperationalError(
            f'connection to server at "db.example" (10.0.0.1), port 5432 failed: FATAL:  {fatal}'
        )
        assert isinstance(_meaning(exc, self.URL), NetworkError)

    @pytest.mark.parametrize(
        "fatal",
        [
            'password authentication failed for user "eval"',
            'role "eval" does not exist',
            'database "queue" does not exist',
            'no pg_hba.conf entry for host "10.0.0.2", user "eval", database "queue"',
            'role "eval" is not permitted to log in',
            'permission denied for database "queue"',
        ],
    )
    def test_a_refusal_is_a_usage_error_without_the_password(self, fatal):
        exc = psycopg.OperationalError(
            f'connection to server at "db.example" (10.0.0.1), port 5432 failed: FATAL:  {fatal}'
        )
        meaning = _meaning(exc, self.URL)
        assert isinstance(meaning, UsageError)
        assert "pw" not in str(meaning).replace("password", "")
