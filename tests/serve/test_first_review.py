"""`reviewbot serve` end to end: a signed `pull_request` delivery → exactly one review, posted as
the App's installation, through the real server process, worker and PostgreSQL queue."""

from __future__ import annotations

from tests.serve.world import INSTALLATION, REPO, signed_request, start_server, wait_until


def reviews(world, number):
    return world.github.repo(REPO).reviews.get(number, [])


def test_a_delivery_becomes_one_review_posted_as_the_app(world):
    world.add_pull(7)
    server = start_server(world, workers=1)
    try:
        status, answer = signed_request(
            server.url, "pull_request", world.pull_request_event(7), delivery=world.delivery_id()
        )
        assert (status, answer["outcome"]) == (202, "queued")
        posted = wait_until(lambda: reviews(world, 7), "the review")
        assert [r["user"]["login"] for r in posted] == [world.app.bot_login]
        assert posted[0]["commit_id"] == world.pulls[7].head_sha
        assert world.app.token_requests == [INSTALLATION]
    finally:
        assert server.stop() == 0, server.output()[-3000:]
    assert len(reviews(world, 7)) == 1
