"""The write side of a forge: a finished review posted where the pull request's people read it.

`ForgePublisher` is the seam a second forge implements; github/publisher.py's
`GitHubPublisher` is the first implementation. It is handed the run's `Memory` (read once,
before the review, by `memory.read.read_memory`), so it builds on what the review built on.
"""

from __future__ import annotations

from typing import Protocol

from reviewbot.memory.prior import Trust
from reviewbot.memory.read import Memory
from reviewbot.results.report import Published, Report
from reviewbot.sources.snapshot import PRSnapshot


class ForgePublisher(Protocol):
    """Posts one run's review of a pull request."""

    @property
    def trust(self) -> Trust:
        """Who reviewbot posts as on this forge, its seal, and who may decide on findings."""
        ...

    def publish(self, report: Report, snapshot: PRSnapshot, memory: Memory) -> Published:
        """Post `report` (review, summary, check), building on `memory`; what was posted."""
        ...
