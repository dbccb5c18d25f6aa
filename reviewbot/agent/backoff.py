"""One backoff for every agent of a run: a rate limit answered to one is waited out by all.

Agents run at the same time over one client. When the Messages API answers 429 or 529
to one of them, sending the others' requests at once would only meet the same refusal
(a retry storm against a rate limit): the gate closes until the wait the API asked for
(`retry-after`) or the backoff ran out, and every request — first attempts and retries,
of any agent — waits at the gate before it is sent. A wait that would pass the
request's own deadline is not waited: the caller is told how long it would be.
"""

from __future__ import annotations

import logging
import math
import threading
import time
from collections.abc import Callable

log = logging.getLogger(__name__)


class BackoffGate:
    """Thread-safe. The agent whose request was refused waits its own retry delay itself
    (its client sleeps it); the gate holds back everybody else for as long."""

    def __init__(
        self,
        *,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self._clock = clock
        self._sleep = sleep
        self._lock = threading.Lock()
        self._opens = -math.inf  # a `clock()` value
        self._closer: int | None = None  # the thread that set `_opens`

    def close_for(self, seconds: float) -> None:
        """No other thread's request is sent for `seconds` from now (a longer closure stands)."""
        with self._lock:
            opens = self._clock() + seconds
            if opens > self._opens:
                self._opens, self._closer = opens, threading.get_ident()

    def wait(self, deadline: float) -> float | None:
        """Wait until the gate is open; None when it is, else the wait that would pass `deadline`."""
        seen = None
        while True:
            with self._lock:
                if self._closer == threading.get_ident():
                    # The closer slept its own delay and retries first: the closure is over.
                    self._opens, self._closer = -math.inf, None
                    return None
                if self._opens == seen:
                    return None  # waited out
                seen, left = self._opens, self._opens - self._clock()
            if left <= 0:
                return None
            if self._clock() + left >= deadline:
                return left
            log.info(
                "holding a request back %.1f s: the Messages API is rate-limiting this run", left
            )
            self._sleep(left)
