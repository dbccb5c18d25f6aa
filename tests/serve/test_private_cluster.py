"""The one-machine default (REVIEWBOT_QUEUE_URL unset): `reviewbot serve` creates and starts its
own PostgreSQL cluster in the state folder, reviews through it, stops it on exit, and finds
its deliveries again after a restart (the queue is on disk)."""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path

import pytest

from reviewbot.serve.cluster import bundled_bindir
from tests.serve.world import reviews, signed_request, start_server, wait_until


@pytest.fixture
def state():
    # PostgreSQL runs as `postgres` when the tests run as root: it must reach the folder.
    folder = Path(tempfile.mkdtemp(prefix="reviewbot-state-", dir="/tmp"))
    folder.chmod(0o755)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def test_the_private_cluster_queues_reviews_and_survives_a_restart(world, state):
    world.add_pull(7)
    env = world.env(REVIEWBOT_STATE_DIR=str(state))
    del env["REVIEWBOT_QUEUE_URL"]
    payload, delivery = world.pull_request_event(7), world.delivery_id()
    server = start_server(world, workers=1, env=env)
    try:
        status, answer = signed_request(server.url, "pull_request", payload, delivery=delivery)
        assert (status, answer["outcome"]) == (202, "queued")
        wait_until(lambda: reviews(world, 7), "the review")
    finally:
        assert server.stop() == 0, server.output()[-3000:]
    data = state / "queue" / "data"
    assert (data / "PG_VERSION").is_file()
    assert not (data / "postmaster.pid").exists()  # stopped with the server
    again = start_server(world, workers=0, env=env)
    try:
        status, answer = signed_request(again.url, "pull_request", payload, delivery=delivery)
        assert (status, answer["outcome"]) == (200, "duplicate")  # remembered across the restart
    finally:
        assert again.stop() == 0, again.output()[-3000:]
    assert len(reviews(world, 7)) == 1


# Where the serve extra installs pgserver (its wheels: pyproject.toml's environment marker).
BUNDLED = sys.platform in ("darwin", "linux")


@pytest.mark.skipif(not BUNDLED, reason="pgserver has no wheel for this platform")
def test_the_private_cluster_runs_on_the_postgresql_bundled_in_pgserver(world, state):
    """What `pip install 'reviewbot[serve]'` alone provides: no PostgreSQL on the machine."""
    bindir = bundled_bindir()
    assert bindir is not None, "the serve extra installs pgserver here"
    world.add_pull(7)
    env = world.env(REVIEWBOT_STATE_DIR=str(state), REVIEWBOT_PG_BINDIR=str(bindir))
    del env["REVIEWBOT_QUEUE_URL"]
    server = start_server(world, workers=1, env=env)
    try:
        status, answer = signed_request(
            server.url, "pull_request", world.pull_request_event(7), delivery=world.delivery_id()
        )
        assert (status, answer["outcome"]) == (202, "queued")
        wait_until(lambda: reviews(world, 7), "the review")
    finally:
        assert server.stop() == 0, server.output()[-3000:]
    started = (state / "queue" / "data" / "postmaster.opts").read_text(encoding="utf-8")
    assert started.startswith(str(bindir / "postgres"))  # the server that ran is pgserver's
