"""`reviewbot eval BENCH --queue RUN`: one evaluation shared by every machine that runs it.

Each machine runs the same command (same benchmark, models and RUN name) with
REVIEWBOT_QUEUE_URL set to `reviewbot serve`'s PostgreSQL. Each one goes through the PRs in
benchmark order, `--workers` at a time, and for each PR:

    stored already?  take it (another machine, or an earlier run of RUN, finished it)
    else claim it    a lock of (RUN, PR) on the queue's database; taken elsewhere: next PR
    claimed          look again (it may have finished meanwhile), else the runner's own task
                     (`_Run.one`: the local cache, the review, the judge), then store it once

Then it waits for the PRs other machines hold, trying their claims again: a killed machine's
claim goes with its connection, so its PR is taken by whoever tries next. A PR is reviewed
once, by the machine holding its claim; every machine ends with every PR and prints the same
report, in benchmark order, whatever order the PRs finished in. The PR's key is its cache key
(URL, models, version, golden comments), so machines with other models share nothing.
Must not: review anything itself (the task does), or import the queue's libraries at load.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from pydantic import TypeAdapter

from reviewbot.eval.bench import BenchmarkPR
from reviewbot.eval.result import PRFailure, PRResult
from reviewbot.eval.workers import map_in_order

if TYPE_CHECKING:
    from reviewbot.serve.queue import SharedResults

_Outcome = PRResult | PRFailure
_OUTCOME: TypeAdapter[_Outcome] = TypeAdapter(_Outcome)


@dataclass(frozen=True, slots=True)
class QueueRun:
    url: str  # REVIEWBOT_QUEUE_URL
    run: str  # --queue RUN: the evaluation's name, the same on every machine
    poll: float = 2.0  # seconds between looks at the PRs other machines hold


def map_shared(
    prs: Sequence[BenchmarkPR],
    task: Callable[[int, BenchmarkPR], _Outcome],
    *,
    key: Callable[[BenchmarkPR], str],
    queue: QueueRun,
    workers: int,
) -> list[_Outcome]:
    """Every PR's outcome, in order: stored by any machine, or `task`'s under this one's claim."""
    from reviewbot.serve.queue import SharedResults  # psycopg loads only for --queue

    store = SharedResults(queue.url, queue.run)
    store.prepare()
    done: dict[int, _Outcome] = {}

    def attempt(_n: int, item: tuple[int, BenchmarkPR]) -> _Outcome | None:
        index, pr = item
        return _attempt(store, key(pr), lambda: task(index, pr))

    while len(done) < len(prs):
        left = [(i, pr) for i, pr in enumerate(prs, start=1) if i not in done]
        outcomes = map_in_order(left, attempt, workers=workers)
        for (index, _pr), outcome in zip(left, outcomes, strict=True):
            if outcome is not None:
                done[index] = outcome
        if len(done) < len(prs):
            time.sleep(queue.poll)  # the rest are claimed elsewhere: look again
    return [done[i] for i in range(1, len(prs) + 1)]


def _attempt(store: SharedResults, key: str, task: Callable[[], _Outcome]) -> _Outcome | None:
    """The PR's outcome, or None while another machine holds its claim."""
    if (found := store.stored(key)) is not None:
        return _OUTCOME.validate_json(found)
    with store.claim(key) as mine:
        if not mine:
            return None
        if (found := store.stored(key)) is not None:  # finished between the look and the claim
            return _OUTCOME.validate_json(found)
        outcome = task()
        store.store(key, _OUTCOME.dump_json(outcome).decode())
        return outcome
