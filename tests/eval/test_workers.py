"""`reviewbot eval --workers N`: the same report as a serial run, each PR reviewed once, one
Messages API client (one rate limit) for every worker, and a resumable cache.

The concurrent runs answer each PR from its own script (world.routed_model), so the replies do
not depend on which worker's request arrives first.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import pytest

from reviewbot.agent.progress import SilentProgress
from reviewbot.app import model_client
from reviewbot.config.settings import Settings
from reviewbot.eval import runner
from reviewbot.eval.bench import parse_entries
from reviewbot.eval.runner import EvalOptions, run_eval
from reviewbot.eval.workers import map_in_order
from tests.e2e.harness import ANTHROPIC_KEY, GITHUB_TOKEN
from tests.eval.world import (
    BENCH,
    URL_A,
    URL_B,
    bench_world,
    by_pr,
    eval_args,
    routed_model,
    script_a,
    script_b,
    without_cache_split,
    write_bench,
)
from tests.fakes.messages_api import FakeMessagesAPI


class TestRunAll:
    def test_results_in_item_order_whatever_order_they_finish(self):
        """Item 1 waits until item 2 has finished: only concurrent workers get past it, and the
        results still come back as [1, 2]."""
        second_done = threading.Event()

        def task(index: int, item: str) -> str:
            if index == 1:
                assert second_done.wait(timeout=30), "item 2 never ran beside item 1"
            else:
                second_done.set()
            return item.upper()

        assert map_in_order(["a", "b"], task, workers=2) == ["A", "B"]

    def test_each_item_runs_exactly_once(self):
        """Ten items on three workers: every index once, none twice."""
        seen: list[int] = []
        lock = threading.Lock()

        def task(index: int, item: int) -> int:
            with lock:
                seen.append(index)
            return item * 2

        assert map_in_order(list(range(10)), task, workers=3) == [i * 2 for i in range(10)]
        assert sorted(seen) == list(range(1, 11))

    def test_an_error_is_raised_after_the_running_tasks_finish(self):
        """Item 1 fails while item 2 runs: item 2 (and any other started) still finishes before
        item 1's error is raised, so what it saved is whole."""
        started: list[int] = []
        finished: list[int] = []
        item_two_running = threading.Event()

        def task(index: int, item: int) -> int:
            started.append(index)
            if index == 1:
                assert item_two_running.wait(timeout=30)
                raise RuntimeError("key refused")
            item_two_running.set()
            finished.append(index)
            return item

        with pytest.raises(RuntimeError, match="key refused"):
            map_in_order([1, 2, 3, 4, 5, 6], task, workers=2)
        assert 2 in finished
        assert sorted(finished) == sorted(i for i in started if i != 1)

    def test_workers_must_be_positive(self):
        with pytest.raises(ValueError, match="at least 1"):
            map_in_order([1], lambda _i, x: x, workers=0)


class TestConcurrentEval:
    def test_two_workers_report_what_a_serial_run_reports(self, tmp_path):
        """The same PRs, findings, judgements, figures and requests; only the cache split of the
        input tokens (and so the cost) may differ, being the order requests arrived in."""
        serial_out, parallel_out = tmp_path / "serial.json", tmp_path / "parallel.json"
        with bench_world(tmp_path / "s") as world:
            bench = write_bench(tmp_path / "bench.json", BENCH)
            world.model.add(*script_a(), *script_b())
            serial = world.run(eval_args(bench, serial_out, tmp_path / "cache-s"))
            assert serial.returncode == 0, serial.stderr
        with bench_world(tmp_path / "p", routed_model()) as world:
            parallel = world.run(
                eval_args(bench, parallel_out, tmp_path / "cache-p", "--workers", "2")
            )
            assert parallel.returncode == 0, parallel.stderr
            world.model.verify()  # each PR's script used exactly once: no PR reviewed twice
        one, two = (json.loads(p.read_text(encoding="utf-8")) for p in (serial_out, parallel_out))
        assert two["score"] == one["score"]
        assert [p["url"] for p in two["prs"]] == [URL_A, URL_B]
        for pr in (*one["prs"], *two["prs"]):
            pr.pop("head_sha")  # each world builds its own repositories
        assert without_cache_split(two) == without_cache_split(one)
        assert len(parallel.model) == len(serial.model)

    def test_a_resumed_concurrent_run_reviews_only_what_is_left(self, tmp_path):
        """Run 1 (--workers 2 --only octo/app) finishes A, as a run killed after A would have;
        run 2 (--workers 2 --resume, a fake that can only answer B) reuses A and reviews B."""
        bench, cache = write_bench(tmp_path / "bench.json", BENCH), tmp_path / "cache"
        only_a = FakeMessagesAPI(scripts={"A": script_a()}, route=by_pr)
        with bench_world(tmp_path / "1", only_a) as world:
            args = eval_args(bench, tmp_path / "1.json", cache, "--workers", "2")
            first = world.run([*args, "--only", "octo/app"])
            assert first.returncode == 0, first.stderr
            world.model.verify()
        only_b = FakeMessagesAPI(scripts={"B": script_b()}, route=by_pr)
        with bench_world(tmp_path / "2", only_b) as world:
            args = eval_args(bench, tmp_path / "2.json", cache, "--workers", "2", "--resume")
            second = world.run(args)
            assert second.returncode == 0, second.stderr
            world.model.verify()
        result = json.loads((tmp_path / "2.json").read_text(encoding="utf-8"))
        assert result["cached"] == [URL_A]
        assert [p["url"] for p in result["prs"]] == [URL_A, URL_B]


class TestOneClient:
    def test_every_worker_and_the_judge_share_one_client(self, tmp_path, monkeypatch):
        """In process, --workers 2: one Messages API client is made for the whole run, so one
        backoff gate holds every worker back when the API rate-limits any of them."""
        made: list[Any] = []

        def counted(settings: Settings, **options: Any):
            client = model_client(settings, **options)
            made.append(client)
            return client

        monkeypatch.setattr(runner, "model_client", counted)
        with bench_world(tmp_path, routed_model()) as world:
            settings = Settings.from_environ(
                {
                    "GITHUB_TOKEN": GITHUB_TOKEN,
                    "ANTHROPIC_API_KEY": ANTHROPIC_KEY,
                    "ANTHROPIC_BASE_URL": world.model_server.url,
                    "GITHUB_API_URL": world.github_server.url,
                    "GITHUB_SERVER_URL": "https://github.com",
                }
            )
            result = run_eval(
                parse_entries(BENCH, origin="bench"),
                origin="bench",
                settings=settings,
                options=EvalOptions(
                    model="claude-sonnet-4-5",
                    judge_model="claude-sonnet-4-5",
                    cache_dir=Path(tmp_path / "cache"),
                    workers=2,
                ),
                progress=_Quiet(),
                agent_progress=SilentProgress(),
            )
            world.model.verify()
        assert len(made) == 1
        assert [p.url for p in result.prs] == [URL_A, URL_B]
        assert result.failed == ()


class _Quiet:
    def started(self, index: int, total: int, url: str) -> None:
        pass

    def judging(self, url: str, *, finding: int, findings: int) -> None:
        pass

    def scored(self, index: int, total: int, result: Any, *, cached: bool) -> None:
        pass

    def failed(self, index: int, total: int, url: str, error: str) -> None:
        raise AssertionError(f"{url} failed: {error}")
