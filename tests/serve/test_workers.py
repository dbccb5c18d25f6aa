"""The worker side against the real server processes and PostgreSQL: the total concurrency
limit across installations and processes, a review still running when the shutdown grace
runs out, and a worker process that dies."""

from __future__ import annotations

import signal

import psycopg

from reviewbot.serve.queue import _key
from tests.serve.world import (
    INSTALLATION,
    REPO,
    arrived,
    deliver,
    get,
    jobs,
    kill,
    model_saw,
    reviews,
    settled,
    start_server,
    stopped,
    wait_until,
    worker_pids,
)

OTHER = 78  # a second installation (another organisation)


def slots_held(world):
    """The concurrency slots held now: {namespace: count}, 0 being the total limit's."""
    names = {_key(f"slot:{n}") % 2**32: n for n in (0, INSTALLATION, OTHER)}
    with psycopg.connect(world.queue_url) as conn:
        rows = conn.execute(
            "SELECT classid::bigint FROM pg_locks WHERE locktype = 'advisory' AND granted"
        ).fetchall()
    held: dict[int, int] = {}
    for (classid,) in rows:
        if classid in names:
            held[names[classid]] = held.get(names[classid], 0) + 1
    return held


def test_the_total_limit_holds_across_installations_and_workers(world):
    for number in (7, 9):
        world.add_pull(number)
    world.app.installations[OTHER] = ("other",)
    world.model.gate.clear()
    server = start_server(world, workers=2, env=world.env(REVIEWBOT_MAX_REVIEWS="1"))
    try:
        deliver(world, server, 7)
        arrived(world)
        deliver(world, server, 9, installation=OTHER)  # its own installation has slots to spare
        # The other worker took PR 9's job and its installation's slot, and waits for the total's.
        wait_until(lambda: slots_held(world) == {0: 1, INSTALLATION: 1, OTHER: 1}, "PR 9 waiting")
        assert [j["status"] for j in jobs(world)] == ["doing", "doing"]
        assert len(world.model.seen) == 1
        world.model.gate.set()
        done = wait_until(lambda: settled(world), "the queue to drain")
        assert [j["status"] for j in done] == ["succeeded"] * 2
        assert [model_saw(world, i) for i in range(len(world.model.seen))] == [7, 9]
        assert world.model.most_in_flight == 1
        assert [len(reviews(world, n)) for n in (7, 9)] == [1, 1]
    finally:
        stopped(world, server)


def test_a_review_running_past_the_grace_period_is_queued_again_and_posted_once(world):
    world.add_pull(7)
    world.model.gate.clear()
    server = start_server(world, workers=1, env=world.env(REVIEWBOT_SHUTDOWN_GRACE="1"))
    deliver(world, server, 7)
    arrived(world)  # the review is waiting for the model
    server.process.send_signal(signal.SIGTERM)
    wait_until(lambda: "asked to stop (shutdown)" in server.output(), "the grace to run out")
    world.model.gate.set()  # the model answers after the grace: the review ends, unposted
    assert server.stop() == 0, server.output()[-3000:]
    assert reviews(world, 7) == []
    assert [(j["status"], j["attempts"]) for j in jobs(world)] == [("todo", 1)]  # queued again
    restarted = start_server(world, workers=1)
    try:
        done = wait_until(lambda: settled(world), "the requeued job")
        assert [(j["status"], j["attempts"]) for j in done] == [("succeeded", 2)]
        assert len(reviews(world, 7)) == 1
        assert [run["name"] for run in world.github.repo(REPO).check_runs] == ["reviewbot"]
    finally:
        stopped(world, restarted)


def test_a_dead_worker_is_restarted_its_job_runs_again_and_healthz_says_so(world):
    world.add_pull(7)
    world.model.gate.clear()
    server = start_server(world, workers=1)
    try:
        deliver(world, server, 7)
        arrived(world)
        # The worker can take a job before the supervisor has read its "ready" byte; until it
        # has, /healthz says "starting", which is not what this test kills the worker from.
        wait_until(lambda: get(server.url + "/healthz") == (200, "ok\n"), "the worker ready")
        (worker,) = worker_pids(server)
        kill(worker)
        status, text = wait_until(
            lambda: (found := get(server.url + "/healthz"))[1] != "ok\n" and found, "/healthz"
        )
        assert (status, text) == (
            200,
            "ok\n0 of 1 workers running: worker 1 died (killed by SIGKILL); restarting\n",
        )
        assert f"worker 1 (pid {worker}) killed by SIGKILL" in server.output()
        wait_until(lambda: get(server.url + "/healthz") == (200, "ok\n"), "the restarted worker")
        (successor,) = worker_pids(server)
        assert successor != worker
        world.model.gate.set()
        done = wait_until(lambda: settled(world), "the killed worker's job to run again")
        assert [(j["status"], j["attempts"]) for j in done] == [("succeeded", 2)]
        assert len(reviews(world, 7)) == 1
        _, metrics = get(server.url + "/metrics")
        assert "reviewbot_worker_restarts_total 1.0" in metrics
    finally:
        stopped(world, server)
