"""Independent agents at the same time: at most `limit` tasks run at once, in daemon threads.

Threads, not asyncio: the SDK client is synchronous, and an agent waits on the network
almost all the time. The tasks start in the order given and their results come back
in that order, whichever finished first. The threads are daemons and are never
joined on the way out: on Ctrl-C the main thread stops waiting at once (`interrupted`
is called first, so the agents stop before their next request) and the process can
exit with 130 while a request is still in flight, instead of waiting for its answer.
A task that raises re-raises in the caller (a bug: the agents' loops never raise
for a model or tool failure).
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

T = TypeVar("T")
_POLL = 0.2  # seconds: how often the waiting main thread checks for Ctrl-C's exception


@dataclass(slots=True)
class _Slot(Generic[T]):
    value: T | None = None
    error: BaseException | None = None
    done: bool = False


def run_all(
    tasks: Sequence[Callable[[], T]],
    *,
    limit: int,
    interrupted: Callable[[], None] = lambda: None,
) -> list[T]:
    """Each task's result, in task order; at most `limit` run at the same time."""
    slots: list[_Slot[T]] = [_Slot() for _ in tasks]
    todo: queue.SimpleQueue[int] = queue.SimpleQueue()
    for index in range(len(tasks)):
        todo.put(index)
    finished = threading.Semaphore(0)

    def work() -> None:
        while True:
            try:
                index = todo.get_nowait()
            except queue.Empty:
                return
            slot = slots[index]
            try:
                slot.value = tasks[index]()
            except BaseException as exc:  # noqa: BLE001 - handed to the caller, which re-raises it
                slot.error = exc
            slot.done = True
            finished.release()

    for number in range(min(limit, len(tasks))):
        threading.Thread(target=work, name=f"reviewbot-agent-{number + 1}", daemon=True).start()
    try:
        for _ in tasks:
            while not finished.acquire(timeout=_POLL):
                pass
    except BaseException:
        interrupted()
        raise
    results: list[T] = []
    for slot in slots:
        if slot.error is not None:
            raise slot.error
        results.append(slot.value)  # type: ignore[arg-type]  # set: the task returned
    return results
