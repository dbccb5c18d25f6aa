"""One review worker process (`python -m reviewbot.serve.worker`), started by `reviewbot serve`.

It reads the same environment as the server (the server passes REVIEWBOT_QUEUE_URL and
REVIEWBOT_BOT_LOGIN on), runs procrastinate's worker until SIGTERM, and ends with one line
and its error's code on a bad setting or a queue it loses: 2 for a setting or a database
that refuses it (at start or mid-run), 5 for a queue it cannot reach. `reviewbot serve`
starts it again (supervisor.py), so a queue put right is taken up without a restart.
"""

from __future__ import annotations

import asyncio
import logging
import os
import sys
from dataclasses import replace
from functools import partial

from reviewbot.config.logs import configure_logging
from reviewbot.errors import ReviewbotError, UsageError
from reviewbot.github.client import installation_token
from reviewbot.serve import metrics
from reviewbot.serve.config import ServeConfig
from reviewbot.serve.job import ReviewJob
from reviewbot.serve.queue import DatabaseErrorLines, Queue, SlotLimits
from reviewbot.serve.tokens import TokenCache


def run_worker(config: ServeConfig, url: str, bot_login: str) -> None:
    fetch = partial(installation_token, config.api_url, config.app_id, config.private_key)
    runner = ReviewJob(
        config=config,
        tokens=TokenCache(fetch=fetch),
        bot_login=bot_login,
        observe=metrics.observe_job,
    )
    queue = Queue(url)
    queue.register(
        runner, SlotLimits(total=config.max_reviews, per_installation=config.max_per_installation)
    )

    async def work() -> None:
        if (problem := await queue.problem()) is not None:
            raise problem  # the pool would retry it for 30 s, then say only that it timed out
        await queue.open()
        _say_ready()
        try:
            await queue.work(
                concurrency=config.worker_concurrency,
                grace=config.shutdown_grace,
                heartbeat=config.heartbeat,
                stalled_after=3 * config.heartbeat,
            )
        finally:
            await queue.close()

    asyncio.run(work())


def _say_ready() -> None:
    """Tell `reviewbot serve` (supervisor.py) this worker reached its queue and takes jobs."""
    fd = os.environ.get("REVIEWBOT_READY_FD", "")
    if fd.isdigit():
        try:
            os.write(int(fd), b"1")
            os.close(int(fd))
        except OSError:  # started by hand, or the server is gone
            pass


def start() -> None:
    try:
        config = ServeConfig.from_environ(os.environ)
        # Our lines at INFO, redacted; procrastinate's INFO lines (each job's whole payload) not.
        configure_logging(False, replace(config.review, in_actions=True))
        for handler in logging.getLogger().handlers:
            handler.addFilter(DatabaseErrorLines())
        url = config.queue_url
        if url is None or config.bot_login is None:
            raise UsageError("a worker needs REVIEWBOT_QUEUE_URL and REVIEWBOT_BOT_LOGIN")
        run_worker(config, url, config.bot_login)
    except ReviewbotError as exc:
        print(f"error: {exc}", file=sys.stderr)
        sys.exit(exc.exit_code)


if __name__ == "__main__":
    start()
