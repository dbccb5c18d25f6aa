"""The queue: procrastinate on PostgreSQL. The one module that imports procrastinate and psycopg.
(`SharedResults`, at the end: `reviewbot eval --queue`'s claims and results on the same database.)

What it guarantees, and how:

    a delivery is queued once   its id and body go into `reviewbot_deliveries` in the SAME
                                statement as its jobs (procrastinate's defer function):
                                both or neither are stored, and a redelivery finds its id and adds
                                nothing; a job's arguments name the delivery, whose body it reads
    2xx only once durable       `enqueue` returns after that statement committed
    one job per PR at a time    each job's procrastinate `lock` is its PR: a worker never starts
                                a job while another job of the same lock is running
    newer head supersedes       decided by GitHub, never by the queue: each job asks GitHub for
                                the PR's head when it starts and skips, logging why, if its own
                                head is not that one (the pipeline's expected-head admission); a
                                running review whose head moves refuses to publish (its head
                                checks before and while posting)
    a dead worker's job reruns  workers heartbeat; each worker retries the `doing` jobs of workers
                                whose heartbeat stopped (`get_stalled_jobs` → `retry_job`)
    transient failures retry    `RetryLater` is retried with exponential backoff, up to
                                `MAX_ATTEMPTS`; any other failure ends the job `failed` at once
    concurrency limits          a running review holds a PostgreSQL advisory lock of a slot, per
                                installation and in total: at most N such locks exist, across
                                machines, and PostgreSQL frees them if the holder dies
    SIGTERM                     procrastinate's worker stops fetching, waits `shutdown_grace` for
                                running jobs, then aborts them: an abort at shutdown is retried

Why intake never cancels a job of another head: delivery order is no guarantee. GitHub sends
deliveries concurrently, a failed one is redelivered by hand hours later, and a synchronize's
`before` misleads once a branch is force-pushed back (A → B → A). Cancelling "the other heads"
on arrival let an older head's late delivery cancel the newest head's job, so nothing was
reviewed. The one fact GitHub guarantees is the PR's head now, so that is what decides, when a
job starts; a stale job costs one PR read. Intake only stores; with no read-then-cancel
there is no window between deliveries to lock.
"""

from __future__ import annotations

import asyncio
import json
import logging
import threading
import time
import zlib
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import psycopg
from procrastinate import App, JobContext, PsycopgConnector, RetryStrategy
from procrastinate import exceptions as procrastinate_errors
from psycopg.types.json import Jsonb
from pydantic import BaseModel, ConfigDict

from reviewbot.errors import NetworkError, ReviewbotError, UsageError

log = logging.getLogger(__name__)

TASK = "reviewbot.review"
MAX_ATTEMPTS = 6
BACKOFF_BASE = 2  # seconds: waits of 2, 4, 8, 16, 32 between attempts
ABORT_WATCH = 0.5  # seconds between looks for a stop request while a job runs
CONNECT_TIMEOUT = 10  # seconds a start-up or /healthz connection may take to be answered
_TOTAL = 0  # the advisory-lock namespace of the total limit; installations use their id
_DDL = """
CREATE TABLE IF NOT EXISTS reviewbot_deliveries (
    id text PRIMARY KEY,
    event text NOT NULL,
    body bytea NOT NULL,
    received_at timestamptz NOT NULL DEFAULT now()
)
"""


# One statement, so one round trip and one transaction (the pool's connections autocommit):
# the delivery's row and its jobs are stored together, or, for a delivery id already
# stored, neither (no row comes back). procrastinate's own defer function inserts the jobs,
# as `batch_defer_jobs_async` would, in three more round trips (BEGIN, defer, COMMIT).
_ENQUEUE = """
WITH stored AS (
    INSERT INTO reviewbot_deliveries (id, event, body) VALUES (%s, %s, %s)
    ON CONFLICT (id) DO NOTHING RETURNING id
)
SELECT procrastinate_defer_jobs_v1(%s::procrastinate_job_to_defer_v1[]) FROM stored
"""


class RetryLater(Exception):
    """A transient failure (GitHub 5xx or rate limit, an overloaded model): run the job again."""


class ReviewArgs(BaseModel):
    """One queued job: the delivery it came from and the PR it is for (JSON in the job row)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    delivery: str
    event: str
    installation: int
    repo: str
    number: int
    head_sha: str | None

    @property
    def lock(self) -> str:
        return f"pr:{self.repo}#{self.number}"


@dataclass(frozen=True, slots=True)
class SlotLimits:
    total: int
    per_installation: int
    poll: float = 0.5  # seconds between tries for a free slot


# A job, its delivery's payload, and the check "should I stop?" asked before publishing.
Runner = Callable[[ReviewArgs, dict[str, Any], Callable[[], str | None]], None]


class Queue:
    def __init__(self, url: str) -> None:
        self.url = url
        # A connection waited for at most CONNECT_TIMEOUT (the pool's default is 30 s): GitHub
        # gives a delivery 10 s, and a worker that lost its database says so sooner.
        connector = PsycopgConnector(
            conninfo=url, min_size=1, max_size=8, timeout=float(CONNECT_TIMEOUT)
        )
        self.app = App(connector=connector)

    # ---------------------------------------------------------------- both sides

    async def open(self) -> None:
        await self.app.open_async()

    async def close(self) -> None:
        await self.app.close_async()

    async def prepare(self) -> None:
        """procrastinate's schema (once) and the deliveries table; safe to run on every start.
        A database that refuses: exit 2; unreachable: 5 (`_session`)."""
        async with self._session() as conn, conn.transaction():
            # One migrator at a time (several machines may start together).
            await conn.execute("SELECT pg_advisory_xact_lock(%s, 0)", (_key("migrate"),))
            found = await (
                await conn.execute("SELECT to_regclass('procrastinate_jobs')")
            ).fetchone()
            if found is None or found[0] is None:
                await conn.execute(self.app.schema_manager.get_schema())
            await conn.execute(_DDL)

    async def problem(self) -> ReviewbotError | None:
        """None while a new connection gets an answer; else why not: refused (a `UsageError`,
        a setting or a right to fix) or unreachable (a `NetworkError`)."""
        try:
            async with self._session() as conn:
                await conn.execute("SELECT 1")
        except ReviewbotError as exc:
            return exc
        return None

    @asynccontextmanager
    async def _session(self) -> AsyncIterator[psycopg.AsyncConnection[Any]]:
        """A connection of its own, its errors classified. Not the pool's: a pool retries a
        refused connection for 30 s, then says only that it timed out."""
        with _answered(self.url):
            async with await psycopg.AsyncConnection.connect(
                self.url, autocommit=True, connect_timeout=CONNECT_TIMEOUT
            ) as conn:
                yield conn

    async def depth(self) -> dict[str, int]:
        """Jobs by status (todo, doing, succeeded, failed, cancelled, aborted)."""
        async with self._connection() as conn:
            rows = await (
                await conn.execute(
                    "SELECT status::text, count(*) FROM procrastinate_jobs GROUP BY status"
                )
            ).fetchall()
        return {str(status): int(count) for status, count in rows}

    # ---------------------------------------------------------------- intake

    async def enqueue(
        self, delivery: str, event: str, body: bytes, jobs: Sequence[ReviewArgs]
    ) -> bool:
        """Store the delivery and its jobs atomically; False: it was already stored."""
        made = [
            self.app.configure_task(name=TASK, lock=args.lock).make_new_job(
                args=args.model_dump(mode="json")
            )
            for args in jobs
        ]
        rows = [
            (j.queue, j.task_name, j.priority, j.lock, j.queueing_lock, Jsonb(j.task_kwargs), None)
            for j in made
        ]
        async with self._connection() as conn:
            cursor = await conn.execute(_ENQUEUE, (delivery, event, body, rows))
            return await cursor.fetchone() is not None

    # ---------------------------------------------------------------- workers

    def register(self, runner: Runner, limits: SlotLimits) -> None:
        """The review task: `runner` runs one job while holding its concurrency slots."""
        retry = RetryStrategy(
            max_attempts=MAX_ATTEMPTS,
            exponential_wait=BACKOFF_BASE,
            retry_exceptions={RetryLater, procrastinate_errors.JobAborted},
        )

        @self.app.task(name=TASK, pass_context=True, retry=retry)
        def review(context: JobContext, args: dict[str, Any]) -> None:
            job = ReviewArgs.model_validate(args)

            def stop() -> str | None:
                if context.should_abort():
                    return f"stopped before publishing: {_why(context)}"
                return None

            with _told_to_stop(context, job), self._slots(job.installation, limits, stop) as conn:
                runner(job, _payload(conn, job.delivery), stop)
            if stop() is not None:
                raise procrastinate_errors.JobAborted(stop())

    async def work(
        self, *, concurrency: int, grace: float, heartbeat: float, stalled_after: float
    ) -> None:
        """Run a worker until SIGTERM/SIGINT, rescuing the jobs of dead workers meanwhile."""
        rescuer = asyncio.create_task(self._rescue(every=heartbeat, stalled_after=stalled_after))
        try:
            await self.app.run_worker_async(
                concurrency=concurrency,
                shutdown_graceful_timeout=grace,
                update_heartbeat_interval=heartbeat,
                stalled_worker_timeout=stalled_after,
                abort_job_polling_interval=min(heartbeat, 1.0),
                install_signal_handlers=True,
            )
        except procrastinate_errors.ConnectorException as exc:
            raise await self._lost(exc) from exc
        finally:
            rescuer.cancel()

    async def _lost(self, exc: procrastinate_errors.ConnectorException) -> ReviewbotError:
        """Why the worker lost its queue: procrastinate says only "Database error.", over the
        pool's "couldn't get a connection after 30 s", so a connection of its own asks."""
        if (problem := await self.problem()) is not None:
            return problem
        cause = exc.__cause__
        if isinstance(cause, psycopg.Error):
            return _meaning(cause, self.url)
        return NetworkError(f"cannot reach the queue at {_where(self.url)}: {_first_line(exc)}")

    async def _rescue(self, *, every: float, stalled_after: float) -> None:
        manager = self.app.job_manager
        while True:
            await asyncio.sleep(every)
            try:
                for job in await manager.get_stalled_jobs(
                    task_name=TASK, seconds_since_heartbeat=stalled_after
                ):
                    log.warning("job %s: its worker stopped answering; queued again", job.id)
                    await manager.retry_job(job)
            # procrastinate wraps psycopg's errors: uncaught, one would end the rescue for good
            except (psycopg.Error, procrastinate_errors.ConnectorException, OSError) as exc:
                log.warning("cannot look for stalled jobs: %s", _first_line(exc.__cause__ or exc))

    @contextmanager
    def _slots(
        self, installation: int, limits: SlotLimits, stop: Callable[[], str | None]
    ) -> Iterator[psycopg.Connection[Any]]:
        """Hold one of `per_installation` slots of the installation and one of `total`."""
        with psycopg.connect(self.url, autocommit=True) as conn:
            for namespace, size in (
                (installation, limits.per_installation),
                (_TOTAL, limits.total),
            ):
                while not _take_slot(conn, namespace, size):
                    if (reason := stop()) is not None:
                        raise procrastinate_errors.JobAborted(reason)
                    time.sleep(limits.poll)
            yield conn  # the locks go with the connection, on success, failure or a dead process

    def _connection(self) -> Any:
        connector = self.app.connector
        assert isinstance(connector, PsycopgConnector)
        return connector.pool.connection()


class DatabaseErrorLines(logging.Filter):
    """procrastinate's records of a lost database as one line each: its side tasks (heartbeat,
    listener, abort polling) log `ConnectorException("Database error.")` with a traceback
    every round while the database refuses or is down. The line keeps what PostgreSQL said."""

    def filter(self, record: logging.LogRecord) -> bool:
        error = record.exc_info[1] if record.exc_info else None
        if record.name.startswith("procrastinate") and isinstance(
            error, procrastinate_errors.ConnectorException | psycopg.Error
        ):
            record.msg = f"{record.getMessage()}: {_first_line(error.__cause__ or error)}"
            record.args, record.exc_info, record.exc_text = None, None, None
        return True


@contextmanager
def _told_to_stop(context: JobContext, job: ReviewArgs) -> Iterator[None]:
    """Log the moment a running job is asked to stop (the shutdown grace ran out): the review
    cannot be interrupted mid-call, so it ends, posts nothing, and is queued again."""
    done = threading.Event()

    def watch() -> None:
        while not done.wait(ABORT_WATCH):
            if context.should_abort():
                log.warning(
                    "job %s (%s#%d): asked to stop (%s); it will post nothing and run again",
                    context.job.id,
                    job.repo,
                    job.number,
                    _why(context),
                )
                return

    watcher = threading.Thread(target=watch, name=f"abort-watch-{context.job.id}", daemon=True)
    watcher.start()
    try:
        yield
    finally:
        done.set()


def _why(context: JobContext) -> str:
    reason = context.abort_reason()
    return reason.value.replace("_", " ") if reason is not None else "aborted"


def _payload(conn: psycopg.Connection[Any], delivery: str) -> dict[str, Any]:
    row = conn.execute(
        "SELECT body FROM reviewbot_deliveries WHERE id = %s", (delivery,)
    ).fetchone()
    if row is None:
        raise LookupError(f"delivery {delivery} is not in reviewbot_deliveries")
    payload: dict[str, Any] = json.loads(bytes(row[0]))
    return payload


def _take_slot(conn: psycopg.Connection[Any], namespace: int, size: int) -> bool:
    for slot in range(size):
        row = conn.execute(
            "SELECT pg_try_advisory_lock(%s, %s)", (_key(f"slot:{namespace}"), slot)
        ).fetchone()
        if row is not None and row[0]:
            return True
    return False


def _key(name: str) -> int:
    """A stable 32-bit advisory-lock key for a name (the two-key form takes int4s)."""
    return zlib.crc32(name.encode("utf-8")) - 2**31


# ---------------------------------------------------------------- eval: PRs shared by machines

_EVAL_DDL = """
CREATE TABLE IF NOT EXISTS reviewbot_eval_results (
    run text NOT NULL,
    key text NOT NULL,
    result text NOT NULL,
    finished_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (run, key)
)
"""


class SharedResults:
    """One `reviewbot eval --queue RUN` evaluation's PRs, shared by every machine that joins it.

    A PR is claimed with a session advisory lock of (RUN, the PR's key) held on its own
    connection while it is reviewed: another machine's try fails, and PostgreSQL drops the
    lock when the holder's connection dies (a killed worker), so the PR is taken again. Its
    result is stored under the primary key (RUN, key), inserted once (ON CONFLICT DO NOTHING),
    and a claimant that gets the lock looks for a stored result before reviewing.
    """

    def __init__(self, url: str, run: str) -> None:
        self.url = url
        self.run = run

    def prepare(self) -> None:
        """Create the results table (idempotent, one creator at a time).

        A URL that is not PostgreSQL's, or a database that refuses it: exit 2; unreachable: 5.
        """
        with self._connect() as conn, _answered(self.url), conn.transaction():
            conn.execute("SELECT pg_advisory_xact_lock(%s, 0)", (_key("migrate"),))
            conn.execute(_EVAL_DDL)

    def stored(self, key: str) -> str | None:
        with self._connect() as conn, _answered(self.url):
            row = conn.execute(
                "SELECT result FROM reviewbot_eval_results WHERE run = %s AND key = %s",
                (self.run, key),
            ).fetchone()
        return None if row is None else str(row[0])

    @contextmanager
    def claim(self, key: str) -> Iterator[bool]:
        """True while this process holds the PR's claim; False: another process holds it."""
        with self._connect() as conn:
            with _answered(self.url):
                row = conn.execute(
                    "SELECT pg_try_advisory_lock(%s, %s)", (_key(f"eval:{self.run}"), _key(key))
                ).fetchone()
            yield bool(row is not None and row[0])  # released with the connection

    def store(self, key: str, result: str) -> None:
        with self._connect() as conn, _answered(self.url):
            conn.execute(
                "INSERT INTO reviewbot_eval_results (run, key, result) VALUES (%s, %s, %s)"
                " ON CONFLICT (run, key) DO NOTHING",
                (self.run, key, result),
            )

    def _connect(self) -> psycopg.Connection[Any]:
        with _answered(self.url):
            return psycopg.connect(self.url, autocommit=True)


# The server's refusals of a connection that a change of REVIEWBOT_QUEUE_URL (or of the role)
# cures; any other FATAL (starting up, shutting down, recovery, every slot taken or reserved,
# an operator's restart) passes, so it is the network's exit: try again later.
_REFUSED = (
    "authentication failed",  # password, md5, scram, ident, peer
    "does not exist",  # the role or the database
    "no pg_hba.conf entry",
    "not permitted to log in",
    "permission denied",
    "pg_hba.conf rejects",
)
# SQLSTATE classes that a change of REVIEWBOT_QUEUE_URL (or the role's rights) cures:
# invalid authorization, unknown database, unknown schema, insufficient privilege.
_REFUSALS = ("28", "3D", "3F", "42")


@contextmanager
def _answered(url: str) -> Iterator[None]:
    """The database's errors as one line: refused (exit 2) or unreachable (exit 5)."""
    try:
        yield
    except psycopg.Error as exc:
        raise _meaning(exc, url) from exc
    except OSError as exc:
        raise NetworkError(f"cannot reach the queue at {_where(url)}: {exc}") from exc


def _meaning(exc: psycopg.Error, url: str) -> ReviewbotError:
    where = _where(url)
    said = _first_line(exc)
    if _not_postgres(url) or (isinstance(exc, psycopg.ProgrammingError) and not exc.sqlstate):
        # Never psycopg's text here: it quotes the whole string, password included.
        return UsageError(
            "REVIEWBOT_QUEUE_URL is not a PostgreSQL URL "
            "(postgresql://USER:PASSWORD@HOST:PORT/DATABASE)"
        )
    fatal = said.partition("FATAL:")[2].strip()  # the server's own refusal of a connection
    if fatal and any(refused in fatal for refused in _REFUSED):
        return UsageError(
            f"the queue's database at {where} refused the connection: {fatal} "
            "(check REVIEWBOT_QUEUE_URL)"
        )
    if exc.sqlstate is not None and exc.sqlstate[:2] in _REFUSALS:
        return UsageError(
            f"the queue's database at {where} refused: {said} "
            "(REVIEWBOT_QUEUE_URL's user needs to create and write tables there)"
        )
    return NetworkError(f"cannot reach the queue at {where}: {said}")


def _not_postgres(url: str) -> bool:
    scheme, found, _ = url.partition("://")
    return bool(found) and scheme.lower() not in ("postgresql", "postgres")


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0].strip() if text else type(exc).__name__


def _where(url: str) -> str:
    """The queue's URL without its credentials, for messages."""
    if "://" not in url:  # key=value connection info: it may hold a password anywhere
        return "REVIEWBOT_QUEUE_URL's server"
    parts = urlsplit(url)
    return parts._replace(netloc=parts.netloc.rpartition("@")[2]).geturl()
