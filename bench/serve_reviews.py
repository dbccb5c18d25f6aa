"""`reviewbot serve` end to end: many deliveries for many PRs, a killed worker, throughput.

Against the loopback fakes (GitHub with the App's endpoints and real git repositories, the
Messages API answering after a set latency) and a PostgreSQL server started here (fsync on),
with the real `reviewbot serve` process tree:

  storm       200 deliveries for 50 PRs: each PR opened, then rapid pushes (each push moves
              the fake PR's head, then its `synchronize` is delivered), 20% of deliveries sent
              twice (the same X-GitHub-Delivery), sent from 4 client threads so they race.
              Checked once the queue drained: every PR's latest head reviewed exactly once,
              no review of a superseded head posted after its successor's, 0 lost.
  storm+kill  the same, with one worker SIGKILLed mid-review (the server restarts it).
  throughput  20 PRs, one delivery each, with 1, 2 and 4 workers (one review at a time
              each): reviews per minute, and every worker's peak RSS (VmHWM).

    python bench/serve_reviews.py                     # all three
    python bench/serve_reviews.py --only storm --latency 0.5
"""

from __future__ import annotations

import argparse
import itertools
import os
import random
import shutil
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.serve.world import (
    REPO,
    get,
    jobs,
    kill,
    open_world,
    postgres_server,
    reviews,
    settled,
    signed_request,
    start_server,
    wait_until,
    worker_pids,
)

DRAIN = 1800.0  # seconds the queue may take to drain before the run fails


def peak_rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return 0.0


def events(prs: int, deliveries: int, duplicates: float, rng: random.Random) -> list[object]:
    """The storm's order: ("open", n), ("push", n) or ("again", k): resend the k-th delivery."""
    unique = round(deliveries * (1 - duplicates))
    pushes = [rng.randrange(1, prs + 1) for _ in range(unique - prs)]
    plan: list[object] = [("open", n) for n in range(1, prs + 1)]
    for number in pushes:  # a push comes after its PR's opening
        opened = plan.index(("open", number))
        plan.insert(rng.randrange(opened + 1, len(plan) + 1), ("push", number))
    for _ in range(deliveries - unique):
        plan.insert(rng.randrange(1, len(plan) + 1), ("again", None))
    return plan


def storm(world, server, args, *, kill_one: bool) -> dict[str, object]:
    rng = random.Random(22)
    sent: list[tuple[str, dict[str, object]]] = []
    answers = []
    killed = None
    with ThreadPoolExecutor(4) as pool:
        for step, (what, number) in enumerate(events(50, 200, 0.2, rng)):
            if what == "again":
                delivery, payload = rng.choice(sent)
            else:
                if what == "push":
                    world.push(number)
                payload = world.pull_request_event(
                    number, "opened" if what == "open" else "synchronize"
                )
                delivery = world.delivery_id()
                sent.append((delivery, payload))
            answers.append(
                pool.submit(signed_request, server.url, "pull_request", payload, delivery=delivery)
            )
            time.sleep(args.pace)  # pushes keep coming while the first reviews run
            if kill_one and killed is None and step >= 100 and world.model.in_flight:
                killed = worker_pids(server)[0]
                kill(killed)
        statuses = [future.result()[0] for future in answers]
    wait_until(lambda: settled(world), "the storm to drain", timeout=DRAIN)
    return judge(world, statuses, killed)


def judge(world, statuses: list[int], killed: int | None) -> dict[str, object]:
    """A head counts as reviewed when its run published: its `reviewbot` check run (a run that
    finds nothing new posts no second review, but always the summary and the check run)."""
    runs = [r["head_sha"] for r in world.github.repo(REPO).check_runs if r["name"] == "reviewbot"]
    once = lost = doubled = late = 0
    for number, pull in world.pulls.items():
        published = [head for head in runs if head in pull.commits]  # in the order posted
        latest = published.count(pull.head_sha)
        once += latest == 1
        lost += latest == 0
        doubled += latest > 1
        for posted in (published, [r["commit_id"] for r in reviews(world, number)]):
            order = [pull.commits.index(head) for head in posted]
            late += any(later < earlier for earlier, later in itertools.pairwise(order))
    found = jobs(world)
    by_status: dict[str, int] = {}
    for job in found:
        by_status[job["status"]] = by_status.get(job["status"], 0) + 1
    return {
        "202": statuses.count(202),
        "200 duplicate": statuses.count(200),
        "other": len(statuses) - statuses.count(202) - statuses.count(200),
        "latest reviewed once": f"{once} of {len(world.pulls)}",
        "lost": lost,
        "posted twice": doubled,
        "superseded posted after successor (check run or review)": late,
        "jobs": by_status,
        "jobs run more than once": sum(1 for j in found if j["attempts"] > 1),
        "reviews posted": sum(len(reviews(world, n)) for n in world.pulls),
        "killed worker": killed,
    }


def run_storm(label: str, server_url: str, root: Path, args, *, kill_one: bool) -> None:
    with open_world(root, server_url) as world:
        world.model.delay = args.latency
        for number in range(1, 51):
            world.add_pull(number)
        env = world.env(REVIEWBOT_MAX_REVIEWS_PER_INSTALLATION="8")
        server = start_server(world, workers=args.workers, env=env)
        try:
            started = time.perf_counter()
            result = storm(world, server, args, kill_one=kill_one)
            wall = time.perf_counter() - started
            rss = [peak_rss_mib(pid) for pid in worker_pids(server)]
            _, metrics = get(server.url + "/metrics")
        finally:
            world.model.gate.set()
            server.stop()
        print(f"\n### {label}: {args.workers} workers, model latency {args.latency} s")
        print(f"drained in {wall:.0f} s; workers' peak RSS MiB: {[round(r) for r in rss]}")
        log = server.output()
        print(
            f"- log lines of a job whose head had moved (it posted nothing): {log.count('moved to')}"
        )
        for key, value in result.items():
            print(f"- {key}: {value}")
        restarts = [line for line in metrics.splitlines() if line.startswith("reviewbot_worker_")]
        print(f"- worker restarts: {restarts or 0}")


def run_throughput(server_url: str, root: Path, args) -> None:
    print(f"\n### throughput: 20 PRs, model latency {args.latency} s, one review per worker")
    print("| workers | reviews | wall s | reviews/min | model requests | peak RSS MiB per worker |")
    print("|---|---|---|---|---|---|")
    for workers in args.counts:
        with open_world(root / f"tp{workers}", server_url) as world:
            world.model.delay = args.latency
            for number in range(1, 21):
                world.add_pull(number)
            env = world.env(
                REVIEWBOT_WORKER_CONCURRENCY="1", REVIEWBOT_MAX_REVIEWS_PER_INSTALLATION="8"
            )
            server = start_server(world, workers=workers, env=env)
            try:
                wait_until(
                    lambda s=server: "workers running" not in _health(s),
                    "workers ready",
                    timeout=DRAIN,
                )
                started = time.perf_counter()
                for number in range(1, 21):
                    payload = world.pull_request_event(number)
                    signed_request(
                        server.url, "pull_request", payload, delivery=world.delivery_id()
                    )
                wait_until(lambda: settled(world), "the reviews", timeout=DRAIN)
                wall = time.perf_counter() - started
                rss = [round(peak_rss_mib(pid)) for pid in worker_pids(server)]
            finally:
                server.stop()
            done = sum(len(reviews(world, n)) for n in world.pulls)
            print(
                f"| {workers} | {done} | {wall:.0f} | {done / wall * 60:.1f} "
                f"| {len(world.model.seen)} | {rss} |"
            )


def _health(server) -> str:
    return get(server.url + "/healthz")[1]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--only", choices=("storm", "kill", "throughput"))
    parser.add_argument("--workers", type=int, default=2, help="workers of the storm runs")
    parser.add_argument("--latency", type=float, default=1.0, help="seconds per model answer")
    parser.add_argument("--counts", type=int, nargs="+", default=[1, 2, 4], help="throughput")
    parser.add_argument("--pace", type=float, default=0.1, help="seconds between deliveries")
    args = parser.parse_args()
    print(f"load average at start: {os.getloadavg()}; {args}")
    scratch = Path(tempfile.mkdtemp(prefix="reviewbot-bench-", dir="/tmp"))
    scratch.chmod(0o755)
    try:
        with postgres_server(fsync=True) as url:
            if args.only in (None, "storm"):
                run_storm("storm", url, scratch / "storm", args, kill_one=False)
            if args.only in (None, "kill"):
                label = "storm + one worker SIGKILLed"
                run_storm(label, url, scratch / "kill", args, kill_one=True)
            if args.only in (None, "throughput"):
                run_throughput(url, scratch, args)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    print(f"load average at end: {os.getloadavg()}")


if __name__ == "__main__":
    main()
