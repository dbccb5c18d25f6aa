"""Which head gets reviewed when deliveries for several heads of one PR race or arrive out of
order: always GitHub's current head, exactly once — delivery order is no guarantee (GitHub
sends deliveries concurrently, and a failed one is redelivered by hand, late)."""

from __future__ import annotations

import threading

from tests.serve.world import reviews, settled, signed_request, start_server, wait_until


def send_all(world, server, payloads, *, together):
    """Deliver each payload (one delivery id each); `together`: all at once, from threads."""
    ids = [world.delivery_id() for _ in payloads]
    answers = [None] * len(payloads)
    start = threading.Barrier(len(payloads))

    def send(index):
        if together:
            start.wait()
        answers[index] = signed_request(
            server.url, "pull_request", payloads[index], delivery=ids[index]
        )

    threads = [threading.Thread(target=send, args=(i,)) for i in range(len(payloads))]
    for thread in threads:
        thread.start()
        if not together:
            thread.join()
    for thread in threads:
        thread.join()
    assert [status for status, _ in answers] == [202] * len(payloads), answers


def reviewed_heads(world, payloads, *, together):
    intake = start_server(world, workers=0)
    try:
        send_all(world, intake, payloads, together=together)
    finally:
        assert intake.stop() == 0, intake.output()[-3000:]
    server = start_server(world, workers=1)
    try:
        wait_until(lambda: settled(world), "the queue to drain")
    finally:
        assert server.stop() == 0, server.output()[-3000:]
    return [r["commit_id"] for r in reviews(world, 7)], server.output()


def test_the_newest_head_is_reviewed_when_the_older_heads_delivery_arrives_last(world):
    world.add_pull(7)
    older = world.pull_request_event(7)
    newest = world.push(7)
    heads, output = reviewed_heads(
        world, [world.pull_request_event(7, "synchronize"), older], together=False
    )
    assert heads == [newest]
    assert "moved to" in output  # the older head's job asked GitHub, and said why it skipped


def test_the_newest_head_is_reviewed_once_when_deliveries_race(world):
    world.add_pull(7)
    payloads = [world.pull_request_event(7)]
    for _ in range(3):  # rapid pushes, delivered all at once
        world.push(7)
        payloads.append(world.pull_request_event(7, "synchronize"))
    heads, _ = reviewed_heads(world, payloads, together=True)
    assert heads == [world.pulls[7].head_sha]
