"""`reviewbot eval --workers N`: the PRs of one evaluation, N at a time, in benchmark order after.

Each PR is one task, submitted once, so two workers never review the same PR; a task
writes its PR to the cache when it finishes (cache.py: atomically), so a run killed
part-way resumes with `--resume` exactly as a serial one does. The results come back in
the order of the PRs, whatever order they finished in, so the report of a run with N
workers is the serial run's.

Within the model's rate limit: the runner lends every review, and the judge, ONE
Messages API client, and that client's backoff gate (reviewbot/agent/backoff.py) holds
every worker's requests back while the API asks one of them to wait (429/529 and its
`retry-after`): N workers meet a rate limit as one run does, never as N retry storms.

An error a task lets through (a refused API key: no later PR can succeed) stops the run:
the PRs not yet started are cancelled, the running ones finish, and the first such error
is raised. Must not: print, or know what a task does.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_EXCEPTION, Future, ThreadPoolExecutor, wait
from typing import TypeVar

T = TypeVar("T")
R = TypeVar("R")


def map_in_order(items: Sequence[T], task: Callable[[int, T], R], *, workers: int) -> list[R]:
    """`task(index, item)` for every item (index from 1), `workers` at a time; results in order."""
    if workers < 1:
        raise ValueError(f"workers must be at least 1, not {workers}")
    if workers == 1 or len(items) <= 1:
        return [task(index, item) for index, item in enumerate(items, start=1)]
    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="reviewbot-eval") as pool:
        futures: list[Future[R]] = [
            pool.submit(task, index, item) for index, item in enumerate(items, start=1)
        ]
        done, _ = wait(futures, return_when=FIRST_EXCEPTION)
        failed = next((f for f in futures if f in done and f.exception() is not None), None)
        if failed is not None:
            for future in futures:
                future.cancel()  # not started yet: never started
            wait(futures)  # the running ones finish (and save) before the error is raised
            error = failed.exception()
            assert error is not None
            raise error
    return [future.result() for future in futures]
