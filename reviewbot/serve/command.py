"""`reviewbot serve`: the private cluster (or the given server), the schema, N worker
processes and the web server, started in that order and stopped in reverse.

Every setting is checked before anything listens (one line, exit 2). SIGTERM (or Ctrl-C)
stops intake first (uvicorn stops accepting and finishes the requests it has), then each
worker stops fetching, lets its running reviews finish within REVIEWBOT_SHUTDOWN_GRACE
and hands the rest back to the queue; the private cluster stops last. A worker that dies
meanwhile is started again (supervisor.py).
"""

from __future__ import annotations

import asyncio
import logging
import os
import shutil
import signal
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING

import uvicorn

from reviewbot.config.logs import configure_logging
from reviewbot.github.client import app_login, check_app_key
from reviewbot.serve.cluster import Cluster, find_bindir, run_as_of
from reviewbot.serve.config import ServeConfig
from reviewbot.serve.queue import Queue

if TYPE_CHECKING:
    from reviewbot.serve.supervisor import Workers

log = logging.getLogger(__name__)
STOP_MARGIN = 30.0  # seconds past the grace period a worker has to hand its jobs back


def run_server(host: str, port: int, workers: int, env: Mapping[str, str]) -> None:
    config = ServeConfig.from_environ(env)
    configure_logging(False, replace(config.review, in_actions=True))  # our INFO lines, redacted
    check_app_key(config.app_id, config.private_key)
    bot_login = config.bot_login or app_login(config.api_url, config.app_id, config.private_key)
    with _queue_url(config, env) as url:
        queue = Queue(url)
        asyncio.run(queue.prepare())
        metrics_dir = _metrics_dir(config.state_dir)
        child_env = {
            **env,
            "REVIEWBOT_QUEUE_URL": url,
            "REVIEWBOT_BOT_LOGIN": bot_login,
            "PROMETHEUS_MULTIPROC_DIR": str(metrics_dir),
        }
        os.environ["PROMETHEUS_MULTIPROC_DIR"] = str(metrics_dir)  # before metrics is imported
        from reviewbot.serve.supervisor import Workers
        from reviewbot.serve.web import make_app

        children = Workers(workers, child_env)
        try:
            app = make_app(
                Queue(url),
                secret=config.webhook_secret,
                max_body=config.max_body,
                app_id=config.app_id,
                workers=children.status,
            )
            log.info(
                "reviewbot serve: %d worker(s), posting as %s, on http://%s:%d",
                workers,
                bot_login,
                host,
                port,
            )
            # uvicorn re-raises the signal that stopped it once it has shut down; with this
            # handler that returns here, so the workers and the cluster are stopped too.
            signal.signal(signal.SIGTERM, lambda *_: None)
            config_ = uvicorn.Config(
                app, host=host, port=port, log_level="warning", access_log=False
            )
            _Intake(config_, children).run()
        finally:
            children.stop(config.shutdown_grace + STOP_MARGIN)


@contextmanager
def _queue_url(config: ServeConfig, env: Mapping[str, str]) -> Iterator[str]:
    if config.queue_url is not None:
        yield config.queue_url
        return
    cluster = Cluster(
        bindir=find_bindir(env),
        folder=config.state_dir / "queue",
        run_as=run_as_of(env, os.geteuid()),
    )
    cluster.start()
    try:
        yield cluster.url
    finally:
        cluster.stop()


def _metrics_dir(state: Path) -> Path:
    folder = state / "metrics"
    shutil.rmtree(folder, ignore_errors=True)  # counters start at zero with the server
    folder.mkdir(parents=True)
    return folder


class _Intake(uvicorn.Server):
    """uvicorn, telling the workers to stop taking jobs the moment it is told to stop."""

    def __init__(self, config: uvicorn.Config, children: Workers) -> None:
        super().__init__(config)
        self.children = children

    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        self.children.signal_stop()
        super().handle_exit(sig, frame)
