"""A loopback HTTP server for fakes: 127.0.0.1, a random port, one handler function.

Owns: serving a `Handler` (Request → Response) on a background thread, recording
every request (method, path, query, status, time; reads vs writes), and one-shot
faults for the next requests matching a route (and, optionally, a predicate on the
request): an answer of the test's choosing, a hang-up (some raw bytes, then the
connection closed), a stall (the request is read and never answered, until the server
stops), or an answer or hang-up after the handler has run (`Lost`: the write is
stored, the answer never arrives). The
fake APIs themselves (tests/fakes/github_api.py, tests/fakes/messages_api.py)
are plain handlers and know nothing about sockets.

Must not: listen on anything but 127.0.0.1, or outlive its `with` block.

    with LoopbackServer(handler) as server:
        client = make_client(base_url=server.url)
        server.fail_next("POST", r"/reviews$", Response.json(502, {"message": "Bad Gateway"}))
        server.fail_next("GET", r"/pulls/7$", Hangup(partial=b"HTTP/1.1 200 OK\r\n"), times=2)
        server.fail_next("POST", r"/comments$", Lost(Response.json(502, {})))  # stored, then 502
        ...
        assert server.count("POST", r"/reviews$") == 2
"""

from __future__ import annotations

import contextlib
import json
import re
import socket
import threading
import time
import traceback
import urllib.parse
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

READ_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


@dataclass(frozen=True, slots=True, kw_only=True)
class Request:
    method: str
    path: str  # without the query string
    query: Mapping[str, str]  # first value of each parameter
    headers: Mapping[str, str]  # lower-case names
    body: bytes = b""
    base_url: str = ""  # scheme://host:port the client used, for URLs in answers

    def json(self) -> Any:
        """The body parsed as JSON (None when empty)."""
        return json.loads(self.body) if self.body else None


@dataclass(frozen=True, slots=True, kw_only=True)
class Response:
    status: int
    headers: Mapping[str, str] = field(default_factory=dict)
    body: bytes = b""

    @classmethod
    def json(cls, status: int, payload: Any, headers: Mapping[str, str] | None = None) -> Response:
        return cls(
            status=status,
            headers={"Content-Type": "application/json; charset=utf-8", **(headers or {})},
            body=json.dumps(payload).encode(),
        )

    @classmethod
    def text(cls, status: int, text: str, content_type: str = "text/plain") -> Response:
        return cls(status=status, headers={"Content-Type": content_type}, body=text.encode())


Handler = Callable[[Request], Response]


@dataclass(frozen=True, slots=True, kw_only=True)
class Hangup:
    """A fault: send `partial` (raw bytes: nothing, a status line, half a body), then close.

    What a connection reset looks like to the client, before or during the response.
    """

    partial: bytes = b""


@dataclass(frozen=True, slots=True, kw_only=True)
class Stall:
    """A fault: read the request, never answer; the connection is closed when the server stops.

    What an API that accepted the connection and then hung looks like to the client.
    """


@dataclass(frozen=True, slots=True)
class Lost:
    """A fault: the handler runs (a write is stored), then `answer` replaces its response.

    What a 502 from a proxy, a timeout or a reset after the server did the work looks
    like to the client: the outcome is unknown to it, the state has changed.
    """

    answer: Response | Hangup


Fault = Response | Hangup | Stall | Lost
HUNG_UP = 0  # the status recorded for a request answered with a `Hangup` or a `Stall`


@dataclass(frozen=True, slots=True, kw_only=True)
class Recorded:
    """One request as the server saw it, with the status it answered and when it arrived."""

    method: str
    path: str
    query: Mapping[str, str]
    status: int  # HUNG_UP when the connection was closed instead
    body: bytes
    at: float  # time.monotonic() on arrival, so a test can check the waits between retries

    @property
    def is_write(self) -> bool:
        return self.method not in READ_METHODS

    def json(self) -> Any:
        return json.loads(self.body) if self.body else None


@dataclass(slots=True, kw_only=True)
class _Fault:
    method: str
    route: re.Pattern[str]
    answer: Fault
    when: Callable[[Request], bool] | None = None


JsonFunction = Callable[[Any, Mapping[str, str]], tuple[int, Mapping[str, str], Any]]


def json_function_handler(function: JsonFunction, *, path: str | None = None) -> Handler:
    """Serve a plain function `(request JSON, headers) → (status, headers, body JSON)`.

    With `path`, only `POST path` reaches the function; anything else is a 404.
    The fake Messages API is served this way:

        api = FakeMessagesAPI([reply(text("ok"))])
        with LoopbackServer(json_function_handler(api.handle, path="/v1/messages")) as server:
            Anthropic(base_url=server.url, api_key="k").messages.create(...)
    """

    def handle(request: Request) -> Response:
        if path is not None and (request.method != "POST" or request.path != path):
            return Response.json(404, {"type": "error", "error": {"type": "not_found_error"}})
        status, headers, body = function(request.json(), request.headers)
        return Response.json(status, body, headers)

    return handle


class LoopbackServer:
    """A threaded HTTP server on 127.0.0.1 that routes every request to `handler`."""

    def __init__(self, handler: Handler) -> None:
        self.handler = handler
        self.requests: list[Recorded] = []
        self.errors: list[str] = []  # tracebacks of handler crashes (answered 500)
        self._faults: list[_Fault] = []
        self._lock = threading.Lock()
        self._released = threading.Event()  # set on stop: every stalled request lets go
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # --- lifecycle ---------------------------------------------------------------

    def __enter__(self) -> LoopbackServer:
        self.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    def start(self) -> None:
        self._released.clear()
        httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler_class(self))
        httpd.daemon_threads = True
        self._httpd = httpd
        # A short poll interval keeps `stop()` (and so every test using a server) fast.
        self._thread = threading.Thread(
            target=httpd.serve_forever, kwargs={"poll_interval": 0.01}, name="loopback", daemon=True
        )
        self._thread.start()

    def stop(self) -> None:
        self._released.set()
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._httpd = self._thread = None

    @property
    def port(self) -> int:
        if self._httpd is None:
            raise RuntimeError("the server is not running")
        return int(self._httpd.server_address[1])

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    # --- scripting ---------------------------------------------------------------

    def fail_next(
        self,
        method: str,
        route: str,
        fault: Fault,
        *,
        times: int = 1,
        when: Callable[[Request], bool] | None = None,
    ) -> None:
        """Answer `fault` to the next `times` requests matching method, path regex and `when`."""
        one = _Fault(method=method.upper(), route=re.compile(route), answer=fault, when=when)
        with self._lock:
            self._faults.extend([one] * times)

    @property
    def pending_faults(self) -> int:
        with self._lock:
            return len(self._faults)

    # --- counting ----------------------------------------------------------------

    def count(self, method: str | None = None, route: str | None = None) -> int:
        """How many requests matched the method (any when None) and path regex."""
        pattern = re.compile(route) if route else None
        return sum(
            1
            for r in self.snapshot()
            if (method is None or r.method == method.upper())
            and (pattern is None or pattern.search(r.path))
        )

    def snapshot(self) -> tuple[Recorded, ...]:
        with self._lock:
            return tuple(self.requests)

    @property
    def reads(self) -> int:
        return sum(1 for r in self.snapshot() if not r.is_write)

    @property
    def writes(self) -> int:
        return sum(1 for r in self.snapshot() if r.is_write)

    # --- serving -----------------------------------------------------------------

    def _take_fault(self, request: Request) -> Fault | None:
        with self._lock:
            for index, fault in enumerate(self._faults):
                if (
                    fault.method == request.method
                    and fault.route.search(request.path)
                    and (fault.when is None or fault.when(request))
                ):
                    del self._faults[index]
                    return fault.answer
        return None

    def _answer(self, request: Request) -> Response | Hangup | Stall:
        arrived = time.monotonic()
        fault = self._take_fault(request)
        answer: Response | Hangup | Stall
        if fault is None or isinstance(fault, Lost):
            answer = self._handle(request)
            if isinstance(fault, Lost):  # done, and the answer is lost on the way back
                answer = fault.answer
        else:
            answer = fault
        status = answer.status if isinstance(answer, Response) else HUNG_UP
        with self._lock:
            self.requests.append(
                Recorded(
                    method=request.method,
                    path=request.path,
                    query=request.query,
                    status=status,
                    body=request.body,
                    at=arrived,
                )
            )
        return answer

    def _handle(self, request: Request) -> Response:
        try:
            return self.handler(request)
        except Exception:  # a crashing fake answers 500 and the test can read why
            self.errors.append(traceback.format_exc())
            return Response.json(500, {"message": "fake handler crashed"})


def _handler_class(server: LoopbackServer) -> type[BaseHTTPRequestHandler]:
    class _Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # keep-alive, as real APIs do
        # Headers and body go out in two writes; with Nagle's algorithm the second waits
        # for a delayed ACK (~40 ms per request on Linux).
        disable_nagle_algorithm = True

        def _serve(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else b""
            split = urllib.parse.urlsplit(self.path)
            query = dict(urllib.parse.parse_qsl(split.query, keep_blank_values=True))
            host = self.headers.get("Host") or f"127.0.0.1:{server.port}"
            request = Request(
                method=self.command,
                path=split.path,
                query=query,
                headers={k.lower(): v for k, v in self.headers.items()},
                body=body,
                base_url=f"http://{host}",
            )
            response = server._answer(request)
            if isinstance(response, Hangup):
                self._hang_up(response.partial)
                return
            if isinstance(response, Stall):
                server._released.wait()
                with contextlib.suppress(OSError):  # the client may have given up already
                    self._hang_up(b"")
                return
            self.send_response(response.status)
            for name, value in response.headers.items():
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(response.body)))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(response.body)

        def _hang_up(self, partial: bytes) -> None:
            self.wfile.write(partial)
            self.wfile.flush()
            self.close_connection = True
            self.connection.shutdown(socket.SHUT_RDWR)

        do_GET = do_POST = do_PATCH = do_PUT = do_DELETE = do_HEAD = _serve

        def log_message(self, format: str, *args: Any) -> None:
            """Silence the per-request log line (tests read `server.requests`)."""

    return _Handler
