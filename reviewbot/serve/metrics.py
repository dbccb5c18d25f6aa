"""The server's Prometheus metrics; the one module that imports prometheus_client.

The web process and every worker process write their counters to one folder
(prometheus_client's multiprocess mode, `PROMETHEUS_MULTIPROC_DIR`, set by command.py before
this module is imported), and `/metrics` adds them up with the queue's own count of jobs by
status, read from PostgreSQL at each scrape (the truth across machines).
"""

from __future__ import annotations

import os

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Histogram,
    generate_latest,
)
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.multiprocess import MultiProcessCollector
from prometheus_client.registry import REGISTRY, Collector

from reviewbot.results.report import Report

CONTENT_TYPE = CONTENT_TYPE_LATEST

DELIVERIES = Counter(
    "reviewbot_deliveries_total",
    "Webhook deliveries by outcome (queued, duplicate, dropped, unsigned, too_large, malformed, error)",
    ["outcome"],
)
JOBS = Counter(
    "reviewbot_jobs_total", "Job attempts by outcome (done, skipped, retry, failed)", ["outcome"]
)
REVIEW_SECONDS = Histogram(
    "reviewbot_review_seconds",
    "Time one job took, from start to published or skipped",
    buckets=(1, 5, 15, 30, 60, 120, 300, 600, 1200, 1800),
)
TOKENS = Counter("reviewbot_model_tokens_total", "Model tokens by kind", ["kind"])
COST = Counter("reviewbot_model_cost_usd_total", "Estimated model cost in US dollars")
RESTARTS = Counter("reviewbot_worker_restarts_total", "Worker processes started again after dying")


def delivered(outcome: str) -> None:
    DELIVERIES.labels(outcome=outcome).inc()


def worker_restarted() -> None:
    RESTARTS.inc()


def observe_job(outcome: str, seconds: float, report: Report | None) -> None:
    JOBS.labels(outcome=outcome).inc()
    if outcome == "retry":
        return
    REVIEW_SECONDS.observe(seconds)
    if report is not None:
        usage = report.usage
        for kind, count in (
            ("input", usage.input_tokens),
            ("output", usage.output_tokens),
            ("cache_read", usage.cache_read_tokens),
            ("cache_write", usage.cache_write_tokens),
        ):
            TOKENS.labels(kind=kind).inc(count)
        COST.inc(usage.cost_usd)


class _Depth(Collector):
    def __init__(self, depth: dict[str, int]) -> None:
        self.depth = depth

    def collect(self) -> list[GaugeMetricFamily]:
        family = GaugeMetricFamily(
            "reviewbot_queue_jobs", "Jobs in the queue by status", labels=["status"]
        )
        for status in ("todo", "doing", "succeeded", "failed", "cancelled", "aborted"):
            family.add_metric([status], self.depth.get(status, 0))
        return [family]


def exposition(depth: dict[str, int]) -> bytes:
    """The Prometheus text exposition: every process's counters and the queue by status."""
    registry = CollectorRegistry()
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        MultiProcessCollector(registry)  # type: ignore[no-untyped-call]
        registry.register(_Depth(depth))
        return generate_latest(registry)
    registry.register(_Depth(depth))
    return generate_latest(REGISTRY) + generate_latest(registry)
