"""`reviewbot serve` intake: signed deliveries/s and latency, durably queued, on both queues.

For each backend — the private cluster (REVIEWBOT_QUEUE_URL unset: `reviewbot serve`
initdb's and runs its own PostgreSQL in the state folder) and a PostgreSQL server started
here (REVIEWBOT_QUEUE_URL set) — both with fsync ON (a 202 means committed to disk), it starts
`reviewbot serve --workers 0` (intake only, so reviews do not compete for the 2 cores),
then sends N signed `pull_request` deliveries (each a distinct X-GitHub-Delivery and 10% of
them a redelivery of an earlier one) from C client threads over keep-alive connections, and
prints deliveries/s and the p50/p90/p99/max latency of the 2xx answers. Every delivery's
answer is checked (202 queued / 200 duplicate), and the queue's row counts are compared
with what was sent: a lost or doubled delivery fails the run.

    python bench/serve_intake.py                  # 2,000 deliveries, 8 clients, both backends
    python bench/serve_intake.py -n 500 -c 4
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import shutil
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import psycopg

from reviewbot.serve.cluster import Cluster, find_bindir, run_as_of
from reviewbot.serve.signature import sign
from tests.serve.world import SECRET, free_port, open_world, start_server


def send_all(
    url: str, bodies: list[tuple[str, bytes]], clients: int
) -> tuple[list[float], dict[int, int]]:
    host, port = url.removeprefix("http://").split(":")
    latencies: list[float] = []
    statuses: dict[int, int] = {}
    lock = threading.Lock()
    chunks = [bodies[i::clients] for i in range(clients)]

    def client(chunk: list[tuple[str, bytes]]) -> None:
        conn = http.client.HTTPConnection(host, int(port), timeout=30)
        for delivery, body in chunk:
            headers = {
                "Content-Type": "application/json",
                "X-GitHub-Event": "pull_request",
                "X-GitHub-Delivery": delivery,
                "X-Hub-Signature-256": sign(SECRET.encode(), body),
            }
            started = time.perf_counter()
            conn.request("POST", "/webhook", body=body, headers=headers)
            answer = conn.getresponse()
            answer.read()
            elapsed = time.perf_counter() - started
            with lock:
                latencies.append(elapsed)
                statuses[answer.status] = statuses.get(answer.status, 0) + 1
        conn.close()

    threads = [threading.Thread(target=client, args=(c,)) for c in chunks]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return latencies, statuses


def cpu_seconds(pid: int) -> float:
    """CPU time (user + system) the server process has used: its cost, whatever the load."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def deliveries(world, n: int) -> list[tuple[str, bytes]]:
    numbers = list(world.pulls)
    made: list[tuple[str, bytes]] = []
    rng = random.Random(7)
    for i in range(n):
        if made and rng.random() < 0.10:
            made.append(rng.choice(made))  # a redelivery
            continue
        payload = world.pull_request_event(numbers[i % len(numbers)])
        made.append((f"bench-{i:06d}-{rng.getrandbits(32):08x}", json.dumps(payload).encode()))
    return made


def run(label: str, world, env: dict[str, str], n: int, clients: int, queue_url: str) -> None:
    server = start_server(world, workers=0, env=env)
    try:
        bodies = deliveries(world, n)
        cpu = cpu_seconds(server.process.pid)
        started = time.perf_counter()
        latencies, statuses = send_all(server.url, bodies, clients)
        wall = time.perf_counter() - started
        cpu = cpu_seconds(server.process.pid) - cpu
        with psycopg.connect(queue_url) as conn:  # while the private cluster still runs
            stored = conn.execute("SELECT count(*) FROM reviewbot_deliveries").fetchone()[0]
    finally:
        server.stop()
    unique = len({d for d, _ in bodies})
    assert stored == unique, f"{label}: {stored} deliveries stored for {unique} sent"
    assert statuses.get(202, 0) == unique, statuses
    assert statuses.get(200, 0) == n - unique, statuses
    q = statistics.quantiles(latencies, n=100)
    print(
        f"| {label} | {n} | {clients} | {n / wall:,.0f} | {q[49] * 1000:.1f} | {q[89] * 1000:.1f} "
        f"| {q[98] * 1000:.1f} | {max(latencies) * 1000:.1f} | {cpu / n * 1000:.2f} "
        f"| {stored} of {unique} |"
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("-n", type=int, default=2000)
    parser.add_argument("-c", "--clients", type=int, default=8)
    args = parser.parse_args()
    print(f"load average at start: {os.getloadavg()}")
    scratch = Path(tempfile.mkdtemp(prefix="reviewbot-bench-", dir="/tmp"))
    scratch.chmod(0o755)
    server_cluster = Cluster(
        bindir=find_bindir(os.environ),
        folder=scratch / "server",
        port=free_port(),
        run_as=run_as_of(os.environ, os.geteuid()),
    )
    server_cluster.start()
    print(
        "| queue | deliveries | clients | deliveries/s | p50 ms | p90 ms | p99 ms | max ms "
        "| server CPU ms/delivery | stored |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    try:
        with open_world(scratch / "world-server", server_cluster.url) as world:
            for number in range(1, 51):
                world.add_pull(number)
            run(
                "PostgreSQL server (REVIEWBOT_QUEUE_URL)",
                world,
                world.env(),
                args.n,
                args.clients,
                world.queue_url,
            )
        with open_world(scratch / "world-private", server_cluster.url) as world:
            for number in range(1, 51):
                world.add_pull(number)
            state = scratch / "state"
            state.mkdir()
            state.chmod(0o755)
            env = world.env(REVIEWBOT_STATE_DIR=str(state))
            del env["REVIEWBOT_QUEUE_URL"]
            private = Cluster(bindir=find_bindir(os.environ), folder=state / "queue")
            run("private cluster (default)", world, env, args.n, args.clients, private.url)
    finally:
        server_cluster.stop()
        shutil.rmtree(scratch, ignore_errors=True)
    print(f"load average at end: {os.getloadavg()}")


if __name__ == "__main__":
    main()
