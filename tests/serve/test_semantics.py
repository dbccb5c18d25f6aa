"""What the queue guarantees, each against the real server processes and PostgreSQL: one job per
PR at a time, newer heads supersede older ones, a killed worker's job runs again elsewhere,
transient failures retry and permanent ones do not, concurrency limits, SIGTERM."""

from __future__ import annotations

import signal

from tests.fakes.server import Response
from tests.serve.world import (
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


def test_a_newer_head_supersedes_a_queued_one(world):
    world.add_pull(7)
    intake = start_server(world, workers=0)
    try:
        deliver(world, intake, 7)
        old = world.pulls[7].head_sha
        new = world.push(7)
        deliver(world, intake, 7, action="synchronize")
        assert [(j["head"], j["status"]) for j in jobs(world)] == [(old, "todo"), (new, "todo")]
    finally:
        assert intake.stop() == 0
    server = start_server(world, workers=1)
    try:
        done = wait_until(lambda: settled(world), "the queue to drain")
        assert [r["commit_id"] for r in reviews(world, 7)] == [new]
        assert [j["status"] for j in done] == ["succeeded", "succeeded"]
        assert f"moved to {new[:12]} after {old[:12]}" in server.output()  # why the old one skipped
    finally:
        stopped(world, server)


def test_a_running_review_of_a_superseded_head_publishes_nothing(world):
    world.add_pull(7)
    world.model.gate.clear()
    server = start_server(world, workers=1)
    try:
        deliver(world, server, 7)
        arrived(world)  # the review of the old head is mid-flight
        new = world.push(7)
        deliver(world, server, 7, action="synchronize")
        world.model.gate.set()
        done = wait_until(lambda: settled(world), "the queue to drain")
        assert [r["commit_id"] for r in reviews(world, 7)] == [new]
        assert done[0]["status"] == "succeeded"  # it ran, and refused to post the moved head
    finally:
        stopped(world, server)


def test_one_job_per_pr_at_a_time_across_workers(world):
    for number in (7, 8):
        world.add_pull(number)
    world.model.gate.clear()
    server = start_server(world, workers=2)
    try:
        deliver(world, server, 7)
        arrived(world)
        deliver(world, server, 7, action="reopened")  # same head: queued behind the first
        deliver(world, server, 8)
        arrived(world)  # a free worker passed over PR 7's second job and took PR 8's
        assert model_saw(world, 1) == 8
        assert [j["status"] for j in jobs(world)] == ["doing", "todo", "doing"]
        world.model.gate.set()
        done = wait_until(lambda: settled(world), "the queue to drain")
        assert [j["status"] for j in done] == ["succeeded"] * 3
    finally:
        stopped(world, server)


def test_a_killed_workers_job_runs_again_on_another_machine_and_posts_once(world):
    world.add_pull(7)
    world.model.gate.clear()
    first = start_server(world, workers=1)
    second = None
    try:
        deliver(world, first, 7)
        arrived(world)  # first's worker is mid-review
        second = start_server(world, workers=1)  # another machine on the same queue
        (worker,) = worker_pids(first)
        kill(worker)
        world.model.gate.set()
        done = wait_until(lambda: settled(world), "the job to be run again")
        assert [(j["status"], j["attempts"]) for j in done] == [
            ("succeeded", 2)
        ]  # killed, then run again
        assert len(reviews(world, 7)) == 1
    finally:
        world.model.gate.set()
        first.stop()
        if second is not None:
            assert second.stop() == 0, second.output()[-3000:]


def test_a_transient_failure_is_retried_with_backoff(world):
    world.add_pull(7)
    world.github_server.fail_next(
        "POST",
        r"/app/installations/77/access_tokens$",
        Response.json(503, {"message": "Service Unavailable"}),
    )
    server = start_server(world, workers=1)
    try:
        deliver(world, server, 7)
        done = wait_until(lambda: settled(world), "the retried job")
        assert [(j["status"], j["attempts"]) for j in done] == [("succeeded", 2)]  # two runs
        assert len(reviews(world, 7)) == 1
        assert "(retry)" in server.output()
    finally:
        stopped(world, server)


def test_a_permanent_failure_is_not_retried_and_is_visible(world):
    world.add_pull(7)
    world.app.installations.clear()  # the App was uninstalled: GitHub answers 404
    server = start_server(world, workers=1)
    try:
        deliver(world, server, 7)
        done = wait_until(lambda: settled(world), "the failed job")
        assert [(j["status"], j["attempts"]) for j in done] == [("failed", 1)]  # one run, no retry
        assert reviews(world, 7) == []
        assert "(failed)" in server.output()
        _, text = get(server.url + "/metrics")
        assert 'reviewbot_jobs_total{outcome="failed"} 1.0' in text
        assert 'reviewbot_queue_jobs{status="failed"} 1.0' in text
    finally:
        stopped(world, server)


def test_one_installation_cannot_take_every_slot(world):
    for number in (7, 8, 9):
        world.add_pull(number)
    world.app.installations[78] = ("other",)
    world.model.gate.clear()
    env = world.env(REVIEWBOT_MAX_REVIEWS_PER_INSTALLATION="1")
    server = start_server(world, workers=2, env=env)
    try:
        deliver(world, server, 7)
        arrived(world)
        deliver(world, server, 8)  # the same installation: waits for its slot
        deliver(world, server, 9, installation=78)
        arrived(world)
        assert model_saw(world, 1) == 9
        world.model.gate.set()
        done = wait_until(lambda: settled(world), "the queue to drain")
        assert [j["status"] for j in done] == ["succeeded"] * 3
        assert all(len(reviews(world, n)) == 1 for n in (7, 8, 9))
    finally:
        stopped(world, server)


def test_sigterm_stops_intake_finishes_the_running_review_and_keeps_the_queued_one(world):
    for number in (7, 8):
        world.add_pull(number)
    world.model.gate.clear()
    server = start_server(world, workers=1, env=world.env(REVIEWBOT_WORKER_CONCURRENCY="1"))
    deliver(world, server, 7)
    arrived(world)
    deliver(world, server, 8)
    server.process.send_signal(signal.SIGTERM)
    wait_until(lambda: get(server.url + "/healthz")[0] == 0, "intake to stop")
    world.model.gate.set()
    assert server.stop() == 0, server.output()[-3000:]
    assert len(reviews(world, 7)) == 1  # finished within the grace period
    assert [j["status"] for j in jobs(world)] == ["succeeded", "todo"]
    restarted = start_server(world, workers=1)
    try:
        wait_until(lambda: settled(world), "the kept job")
        assert len(reviews(world, 8)) == 1
    finally:
        assert restarted.stop() == 0
