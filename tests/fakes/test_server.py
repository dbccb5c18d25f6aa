"""The loopback server: serving, recording, one-shot faults, crashes answered as 500."""

from __future__ import annotations

import http.client
import json
import time
import urllib.error
import urllib.request

import anthropic
import pytest

from tests.fakes.messages_api import FakeMessagesAPI, reply, text
from tests.fakes.server import (
    HUNG_UP,
    Hangup,
    LoopbackServer,
    Request,
    Response,
    Stall,
    json_function_handler,
)


def echo(request: Request) -> Response:
    return Response.json(
        200, {"method": request.method, "path": request.path, "query": dict(request.query)}
    )


def call(url: str, method: str = "GET", body: object = None) -> tuple[int, dict[str, str], object]:
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(url, data=data, method=method)
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            return response.status, dict(response.headers), json.loads(response.read() or b"null")
    except urllib.error.HTTPError as exc:
        return exc.code, dict(exc.headers), json.loads(exc.read() or b"null")


class TestServing:
    def test_routes_to_the_handler_on_loopback(self):
        """The server listens on 127.0.0.1 and hands method, path and query to the handler."""
        with LoopbackServer(echo) as server:
            assert server.url.startswith("http://127.0.0.1:")
            status, _, body = call(f"{server.url}/a/b?x=1&y=2")
        assert (status, body) == (
            200,
            {"method": "GET", "path": "/a/b", "query": {"x": "1", "y": "2"}},
        )

    def test_stops_listening_after_the_block(self):
        """After the `with` block the port no longer answers."""
        with LoopbackServer(echo) as server:
            url = server.url
        with pytest.raises(urllib.error.URLError):
            call(url)

    def test_json_function_handler_serves_a_plain_function(self):
        """A fake written as `request JSON → (status, headers, body)` is served as is."""

        def api(payload, headers):
            return 201, {"request-id": "req_1"}, {"echo": payload}

        with LoopbackServer(json_function_handler(api, path="/v1/messages")) as server:
            status, headers, body = call(f"{server.url}/v1/messages", "POST", {"a": 1})
            elsewhere = call(f"{server.url}/v1/other", "POST", {"a": 1})[0]
        assert (status, headers["request-id"], body) == (201, "req_1", {"echo": {"a": 1}})
        assert elsewhere == 404

    def test_fake_messages_api_serves_the_real_sdk(self):
        """The fake Messages API behind the server answers the anthropic SDK over loopback."""
        api = FakeMessagesAPI([reply(text("looks fine"))], api_key="sk-test")
        with LoopbackServer(json_function_handler(api.handle, path="/v1/messages")) as server:
            sdk = anthropic.Anthropic(base_url=server.url, api_key="sk-test", max_retries=0)
            message = sdk.messages.create(
                model="claude-test",
                max_tokens=64,
                messages=[{"role": "user", "content": "review this"}],
            )
        assert (message.content[0].text, message.stop_reason) == ("looks fine", "end_turn")
        assert server.count("POST", r"^/v1/messages$") == 1
        api.verify()


class TestRecording:
    def test_reads_and_writes_are_counted(self):
        """Every request is recorded with its status; GETs are reads, the rest writes."""
        with LoopbackServer(echo) as server:
            call(f"{server.url}/x")
            call(f"{server.url}/x", "POST", {"k": "v"})
            call(f"{server.url}/y", "PATCH", {})
        assert (server.reads, server.writes) == (1, 2)
        assert server.count("POST", r"^/x$") == 1
        assert server.count(route=r"^/x$") == 2
        assert server.snapshot()[1].json() == {"k": "v"}

    def test_arrival_times_are_recorded_in_order(self):
        """Each request carries its monotonic arrival time, so retry waits can be measured."""
        started = time.monotonic()
        with LoopbackServer(echo) as server:
            call(f"{server.url}/x")
            call(f"{server.url}/y")
        first, second = server.snapshot()
        assert started <= first.at <= second.at <= time.monotonic()


class TestFaults:
    def test_fault_is_one_shot_and_route_specific(self):
        """A scripted fault answers the next matching request once, then the handler resumes."""
        with LoopbackServer(echo) as server:
            server.fail_next("GET", r"/pulls/\d+$", Response.json(502, {"message": "Server Error"}))
            other = call(f"{server.url}/issues/1")[0]
            first = call(f"{server.url}/pulls/1")[0]
            second = call(f"{server.url}/pulls/1")[0]
            assert server.pending_faults == 0
        assert (other, first, second) == (200, 502, 200)
        assert [r.status for r in server.snapshot()] == [200, 502, 200]

    def test_fault_headers_reach_the_client(self):
        """A fault's headers (Retry-After) are sent as given."""
        with LoopbackServer(echo) as server:
            server.fail_next("POST", r"/reviews$", Response.json(403, {}, {"Retry-After": "7"}))
            status, headers, _ = call(f"{server.url}/reviews", "POST", {})
        assert (status, headers["Retry-After"]) == (403, "7")

    def test_a_crashing_handler_answers_500_and_keeps_the_traceback(self):
        """A bug in a fake is a 500 the test can read, not a hung client."""

        def broken(request):
            raise KeyError("missing")

        with LoopbackServer(broken) as server:
            status, _, body = call(f"{server.url}/x")
        assert (status, body) == (500, {"message": "fake handler crashed"})
        assert "KeyError: 'missing'" in server.errors[0]

    @pytest.mark.parametrize(
        ("partial", "error"),
        [
            (b"", http.client.RemoteDisconnected),
            (b'HTTP/1.1 200 OK\r\nContent-Length: 90\r\n\r\n{"id"', http.client.IncompleteRead),
        ],
        ids=["closed-before-answer", "cut-mid-body"],
    )
    def test_hangup_closes_the_connection_then_the_handler_resumes(self, partial, error):
        """A hang-up sends its bytes and closes, `times` times; it is recorded as HUNG_UP."""
        with LoopbackServer(echo) as server:
            server.fail_next("GET", r"^/x$", Hangup(partial=partial), times=2)
            for _ in range(2):
                with pytest.raises(error):
                    call(f"{server.url}/x")
            assert call(f"{server.url}/x")[0] == 200
            assert server.pending_faults == 0
        assert [r.status for r in server.snapshot()] == [HUNG_UP, HUNG_UP, 200]

    def test_stall_reads_the_request_and_never_answers(self):
        """A stalled request gets no byte back (the client gives up); the next one is answered."""
        with LoopbackServer(echo) as server:
            server.fail_next("GET", r"^/x$", Stall())
            with pytest.raises(TimeoutError):
                urllib.request.urlopen(f"{server.url}/x", timeout=0.2)
            assert call(f"{server.url}/x")[0] == 200
        assert [r.status for r in server.snapshot()] == [HUNG_UP, 200]
