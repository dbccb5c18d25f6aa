"""The ASGI app (Starlette): `POST /webhook`, `GET /healthz`, `GET /metrics`.

`/webhook` reads at most `max_body` bytes (413 past it), verifies `X-Hub-Signature-256` on
those raw bytes before anything parses them (401, and the log names only the delivery id),
then lets intake.py decide: malformed → 400, nothing to do → 202 dropped, else the jobs are
stored with the delivery in one transaction and only then answered 202 (a redelivery: 200).
A queue that cannot store the delivery is a 503, so GitHub's delivery log shows it failed.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

import psycopg
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route

from reviewbot.errors import UsageError
from reviewbot.serve import metrics
from reviewbot.serve.intake import BadDelivery, Intake, decide
from reviewbot.serve.queue import Queue
from reviewbot.serve.signature import verify

log = logging.getLogger(__name__)


class TooLarge(Exception):
    pass


def make_app(
    queue: Queue,
    *,
    secret: bytes,
    max_body: int,
    app_id: int | None = None,
    workers: Callable[[], str | None] = lambda: None,
) -> Starlette:
    """`workers`: which of this server's workers are down, if any (shown by /healthz)."""
    handlers = _Handlers(queue, secret=secret, max_body=max_body, app_id=app_id)
    handlers.workers = workers

    @asynccontextmanager
    async def lifespan(_: Starlette) -> AsyncIterator[None]:
        await queue.open()
        try:
            yield
        finally:
            await queue.close()

    return Starlette(
        routes=[
            Route("/webhook", handlers.webhook, methods=["POST"]),
            Route("/healthz", handlers.healthz, methods=["GET"]),
            Route("/metrics", handlers.metrics, methods=["GET"]),
        ],
        lifespan=lifespan,
    )


class _Handlers:
    def __init__(self, queue: Queue, *, secret: bytes, max_body: int, app_id: int | None) -> None:
        self.queue = queue
        self.app_id = app_id  # its own check suites are not re-folded
        self.secret = secret
        self.max_body = max_body
        self.workers: Callable[[], str | None] = lambda: None

    async def webhook(self, request: Request) -> Response:
        delivery = request.headers.get("x-github-delivery", "").strip()
        try:
            body = await _read(request, self.max_body)
        except TooLarge:
            return _answer(413, "too_large", f"the body is over {self.max_body} bytes")
        if not verify(self.secret, body, request.headers.get("x-hub-signature-256")):
            log.warning("delivery %r: bad or missing signature", delivery[:64])
            return _answer(401, "unsigned", "bad or missing X-Hub-Signature-256")
        if not delivery or len(delivery) > 128:
            return _answer(400, "malformed", "X-GitHub-Delivery is missing or too long")
        event = request.headers.get("x-github-event", "").strip()
        try:
            intake = decide(event, delivery, body, app_id=self.app_id)
        except BadDelivery as exc:
            return _answer(400, "malformed", str(exc))
        if not intake.jobs:
            log.info("delivery %s (%s): dropped — %s", delivery, event, intake.reason)
            return _answer(202, "dropped", intake.reason)
        return await self._queue(delivery, event, body, intake)

    async def _queue(self, delivery: str, event: str, body: bytes, intake: Intake) -> Response:
        try:
            stored = await self.queue.enqueue(delivery, event, body, intake.jobs)
        except (psycopg.Error, OSError) as exc:
            log.error("delivery %s: the queue cannot store it: %s", delivery, exc)
            return _answer(503, "error", "the queue is unavailable; redeliver later")
        if not stored:
            return _answer(200, "duplicate", "this delivery is already queued")
        log.info(
            "delivery %s (%s): queued %d job(s) — %s",
            delivery,
            event,
            len(intake.jobs),
            intake.reason,
        )
        return _answer(202, "queued", intake.reason)

    async def healthz(self, _: Request) -> Response:
        # A dead worker is named but stays 200: intake still queues durably, and a load
        # balancer must not turn GitHub's deliveries away while the worker restarts.
        down = self.workers()
        workers = f"{down}\n" if down else ""
        problem = await self.queue.problem()
        if problem is None:
            return PlainTextResponse(f"ok\n{workers}")
        log.warning("/healthz: %s", problem)  # the body does not show where the database is
        state = "queue refused" if isinstance(problem, UsageError) else "queue unreachable"
        return PlainTextResponse(f"{state}\n{workers}", status_code=503)

    async def metrics(self, _: Request) -> Response:
        try:
            depth = await self.queue.depth()
        except (psycopg.Error, OSError):
            depth = {}
        return Response(metrics.exposition(depth), media_type=metrics.CONTENT_TYPE)


async def _read(request: Request, limit: int) -> bytes:
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit:
        raise TooLarge
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise TooLarge
        chunks.append(chunk)
    return b"".join(chunks)


def _answer(status: int, outcome: str, message: str) -> Response:
    metrics.delivered(outcome)
    return JSONResponse({"outcome": outcome, "message": message}, status_code=status)
