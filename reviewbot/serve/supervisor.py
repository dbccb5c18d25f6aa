"""The review worker processes of one `reviewbot serve`: started, watched, restarted, stopped.

A worker that dies (killed by the OOM killer, a crash in a native library) is started again,
as gunicorn and Celery restart theirs: the server keeps its `--workers N` without an outside
supervisor, and the dead worker's running job is queued again by the heartbeat rescue. Until
the new worker takes jobs, `status()` names the dead one (`/healthz` shows it, and it is logged). A
worker that keeps dying soon after it starts is restarted after a growing pause, so a broken
machine does not spin. Once shutdown begins, nothing is restarted.
"""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass

from reviewbot.serve import metrics

log = logging.getLogger(__name__)

WATCH_EVERY = 0.5  # seconds between looks at the workers
QUICK_DEATH = 30.0  # a worker that dies sooner than this after its start backs the restart off
MAX_PAUSE = 30.0  # the longest pause before a restart
READY_FD = "REVIEWBOT_READY_FD"  # a worker writes one byte to this descriptor once it takes jobs


@dataclass(slots=True)
class _Slot:
    process: subprocess.Popen[bytes]
    ready: int | None  # the pipe the worker writes to once it takes jobs; None once it has
    started: float
    note: str | None = "starting"  # why this worker is not taking jobs, while it is not
    dead: bool = False  # waiting for its restart
    quick_deaths: int = 0
    restart_at: float = 0.0


class Workers:
    def __init__(self, count: int, env: Mapping[str, str]) -> None:
        self.env = dict(env)
        self.slots = [_Slot(*self._spawn(), started=time.monotonic()) for _ in range(count)]
        # Re-entrant: SIGTERM's handler (signal_stop) runs on the main thread, which may be
        # inside status() for /healthz at that moment.
        self.lock = threading.RLock()
        self.stopping = threading.Event()
        self.signalled: set[int] = set()  # a second SIGTERM would make a worker quit at once
        self.watcher = threading.Thread(target=self._watch, name="workers", daemon=True)
        self.watcher.start()

    def status(self) -> str | None:
        """None while every worker takes jobs; else which do not and why (for /healthz)."""
        with self.lock:
            down = [(i, s.note) for i, s in enumerate(self.slots, 1) if s.note is not None]
        if not down:
            return None
        named = ", ".join(f"worker {i} {note}" for i, note in down)
        return f"{len(self.slots) - len(down)} of {len(self.slots)} workers running: {named}"

    def check(self) -> None:
        """Notice ready and dead workers, and start successors (when their pause is over)."""
        now = time.monotonic()
        with self.lock:
            for index, slot in enumerate(self.slots, 1):
                if self.stopping.is_set():
                    return
                if slot.ready is not None and _said_ready(slot.ready):
                    os.close(slot.ready)
                    slot.ready, slot.note = None, None
                if not slot.dead and (code := slot.process.poll()) is not None:
                    self._died(index, slot, code, now)
                if slot.dead and now >= slot.restart_at:
                    slot.process, slot.ready = self._spawn()
                    slot.started, slot.dead = now, False
                    log.warning("worker %d restarted (pid %d)", index, slot.process.pid)
                    metrics.worker_restarted()

    def _died(self, index: int, slot: _Slot, code: int, now: float) -> None:
        if slot.ready is not None:
            os.close(slot.ready)
            slot.ready = None
        slot.dead, slot.note = True, f"died ({_how(code)}); restarting"
        quick = now - slot.started < QUICK_DEATH
        slot.quick_deaths = slot.quick_deaths + 1 if quick else 0
        pause = min(MAX_PAUSE, 2.0 ** (slot.quick_deaths - 1)) if slot.quick_deaths > 1 else 0.0
        slot.restart_at = now + pause
        log.error(
            "worker %d (pid %d) %s; restarted in %.0f s, its job runs again",
            index,
            slot.process.pid,
            _how(code),
            pause,
        )

    def signal_stop(self) -> None:
        """Tell every worker to stop taking jobs (SIGTERM, once each); restart none from now."""
        self.stopping.set()
        with self.lock:
            for slot in self.slots:
                child = slot.process
                if child.poll() is None and child.pid not in self.signalled:
                    self.signalled.add(child.pid)
                    child.send_signal(signal.SIGTERM)

    def stop(self, wait: float) -> None:
        """Stop every worker: `wait` seconds to hand its jobs back, then killed."""
        self.signal_stop()
        self.watcher.join()
        for slot in self.slots:
            child = slot.process
            try:
                child.wait(timeout=wait)
            except subprocess.TimeoutExpired:
                log.error(
                    "worker %d did not stop in %.0f s; killed (its jobs rerun elsewhere)",
                    child.pid,
                    wait,
                )
                child.kill()
                child.wait()

    def _watch(self) -> None:
        while not self.stopping.wait(WATCH_EVERY):
            self.check()

    def _spawn(self) -> tuple[subprocess.Popen[bytes], int]:
        """A worker process, and the read end of the pipe it says "ready" on."""
        read, write = os.pipe()
        os.set_blocking(read, False)
        try:
            process = subprocess.Popen(
                [sys.executable, "-m", "reviewbot.serve.worker"],
                env={**self.env, READY_FD: str(write)},
                stdin=subprocess.DEVNULL,
                pass_fds=(write,),
            )
        finally:
            os.close(write)
        return process, read


def _said_ready(fd: int) -> bool:
    try:
        return os.read(fd, 1) != b""
    except BlockingIOError:
        return False


def _how(code: int) -> str:
    if code < 0:
        try:
            return f"killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"
    return f"exited {code}"
