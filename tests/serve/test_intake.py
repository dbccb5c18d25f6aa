"""`POST /webhook` against the real server process and PostgreSQL queue: what is refused, what
is dropped, and that a delivery is stored once, before it is acknowledged."""

from __future__ import annotations

import json
import urllib.request
from pathlib import Path

import psycopg
import pytest

from reviewbot.serve.intake import decide
from tests.serve.world import SECRET, _send, get, signed_request

DATA = Path(__file__).resolve().parents[1] / "data" / "github-webhooks"


def queued(world):
    with psycopg.connect(world.queue_url) as conn:
        jobs = conn.execute("SELECT count(*) FROM procrastinate_jobs").fetchone()[0]
        deliveries = conn.execute("SELECT count(*) FROM reviewbot_deliveries").fetchone()[0]
    return jobs, deliveries


@pytest.fixture
def pr(module_world):
    number = 11
    if number not in module_world.pulls:
        module_world.add_pull(number)
    return number


def test_a_redelivery_is_queued_once(module_world, intake_server, pr):
    payload, delivery = module_world.pull_request_event(pr), module_world.delivery_id()
    before = queued(module_world)
    first = signed_request(intake_server.url, "pull_request", payload, delivery=delivery)
    again = signed_request(intake_server.url, "pull_request", payload, delivery=delivery)
    assert (first[0], first[1]["outcome"]) == (202, "queued")
    assert (again[0], again[1]["outcome"]) == (200, "duplicate")
    assert queued(module_world) == (before[0] + 1, before[1] + 1)  # durably there before the 202


@pytest.mark.parametrize(
    ("signature", "why"),
    [(None, "missing"), ("sha256=" + "0" * 64, "wrong"), ("sha1=abc", "old scheme")],
)
def test_a_bad_signature_is_401_and_nothing_is_stored(
    module_world, intake_server, pr, signature, why
):
    before = queued(module_world)
    body = json.dumps(module_world.pull_request_event(pr)).encode()
    headers = {"X-GitHub-Event": "pull_request", "X-GitHub-Delivery": module_world.delivery_id()}
    if signature:
        headers["X-Hub-Signature-256"] = signature
    request = urllib.request.Request(
        intake_server.url + "/webhook", data=body, method="POST", headers=headers
    )
    status, answer = _send(request)
    assert (status, answer["outcome"]) == (401, "unsigned"), why
    assert queued(module_world) == before
    assert "octocat" not in intake_server.output()  # the log names the delivery id, no payload


def test_a_body_signed_with_another_secret_is_401(module_world, intake_server, pr):
    payload = module_world.pull_request_event(pr)
    status, _ = signed_request(
        intake_server.url,
        "pull_request",
        payload,
        delivery=module_world.delivery_id(),
        secret=SECRET + "x",
    )
    assert status == 401


def test_an_oversized_body_is_413(module_world, intake_server):
    body = b'{"padding": "' + b"x" * 70_000 + b'"}'
    status, answer = signed_request(
        intake_server.url, "pull_request", None, delivery=module_world.delivery_id(), body=body
    )
    assert (status, answer["outcome"]) == (413, "too_large")


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        (b"{not json", "not JSON"),
        (b"[1, 2]", "not a JSON object"),
        (b'{"action": "opened"}', "does not match"),
    ],
)
def test_a_malformed_body_is_400(module_world, intake_server, body, expected):
    status, answer = signed_request(
        intake_server.url, "pull_request", None, delivery=module_world.delivery_id(), body=body
    )
    assert (status, answer["outcome"]) == (400, "malformed")
    assert expected in answer["message"]


def test_a_delivery_without_an_installation_is_400(module_world, intake_server, pr):
    payload = module_world.pull_request_event(pr)
    del payload["installation"]
    status, answer = signed_request(
        intake_server.url, "pull_request", payload, delivery=module_world.delivery_id()
    )
    assert (status, answer["outcome"]) == (400, "malformed")


@pytest.mark.parametrize("event", ["push", "star", "installation", "installation_repositories"])
def test_events_not_acted_on_are_202_dropped(module_world, intake_server, event):
    before = queued(module_world)
    payload = {"action": "created", "installation": {"id": 77}}
    status, answer = signed_request(
        intake_server.url, event, payload, delivery=module_world.delivery_id()
    )
    assert (status, answer["outcome"]) == (202, "dropped")
    assert queued(module_world) == before


def test_a_closed_pull_request_is_dropped(module_world, intake_server, pr):
    payload = module_world.pull_request_event(pr, action="closed")
    payload["pull_request"]["state"] = "closed"
    status, answer = signed_request(
        intake_server.url, "pull_request", payload, delivery=module_world.delivery_id()
    )
    assert (status, answer["outcome"]) == (202, "dropped")


def test_healthz_and_metrics(module_world, intake_server, pr):
    signed_request(
        intake_server.url,
        "pull_request",
        module_world.pull_request_event(pr),
        delivery=module_world.delivery_id(),
    )
    assert get(intake_server.url + "/healthz") == (200, "ok\n")
    status, text = get(intake_server.url + "/metrics")
    assert status == 200
    assert 'reviewbot_deliveries_total{outcome="queued"}' in text
    todo = next(
        line for line in text.splitlines() if line.startswith('reviewbot_queue_jobs{status="todo"}')
    )
    assert float(todo.split()[-1]) >= 1


class TestOwnCheckSuite:
    """reviewbot's own check run completes the App's check suite: that delivery is dropped,
    so a publish cannot queue a re-fold that publishes again (and again)."""

    @staticmethod
    def _suite(app_id: int) -> bytes:
        payload = json.loads(
            (DATA / "check_suite.completed.payload.json").read_text(encoding="utf-8")
        )
        payload["check_suite"]["app"]["id"] = app_id
        payload["installation"] = {"id": 77}
        return json.dumps(payload).encode("utf-8")

    def test_the_apps_own_suite_is_dropped(self):
        intake = decide("check_suite", "d-1", self._suite(4242), app_id=4242)
        assert intake.jobs == ()
        assert "own check run" in intake.reason

    def test_another_apps_suite_is_re_folded(self):
        intake = decide("check_suite", "d-2", self._suite(15368), app_id=4242)
        assert [job.number for job in intake.jobs] == [2]
