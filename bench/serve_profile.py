"""Where `reviewbot serve`'s intake spends its time: the real server, profiled.

Starts a PostgreSQL server (fsync on), runs `reviewbot serve --workers 0` under cProfile,
sends N signed `pull_request` deliveries from C keep-alive clients (as serve_intake.py
does), stops the server with SIGTERM (cProfile then writes its figures) and prints the
functions that took the most time, own time first, then cumulative.

    python bench/serve_profile.py                 # 1,000 deliveries, 8 clients
    python bench/serve_profile.py -n 500 --top 25
"""

from __future__ import annotations

import argparse
import pstats
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.serve_intake import deliveries, send_all
from tests.serve.world import free_port, get, open_world, postgres_server, wait_until


def profiled(world, profile: Path, port: int) -> subprocess.Popen[bytes]:
    command = [sys.executable, "-m", "cProfile", "-o", str(profile), "-m", "reviewbot"]
    return subprocess.Popen(
        [*command, "serve", "--workers", "0", "--port", str(port)],
        env=world.env(),
        cwd=world.root,
        stdin=subprocess.DEVNULL,
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("-n", type=int, default=1000)
    parser.add_argument("-c", "--clients", type=int, default=8)
    parser.add_argument("--top", type=int, default=20)
    args = parser.parse_args()
    scratch = Path(tempfile.mkdtemp(prefix="reviewbot-profile-", dir="/tmp"))
    scratch.chmod(0o755)
    try:
        with postgres_server(fsync=True) as queue, open_world(scratch / "world", queue) as world:
            for number in range(1, 51):
                world.add_pull(number)
            port, profile = free_port(), scratch / "serve.prof"
            server = profiled(world, profile, port)
            url = f"http://127.0.0.1:{port}"
            wait_until(lambda: get(url + "/healthz")[0] == 200, "the profiled server")
            bodies = deliveries(world, args.n)
            started = time.perf_counter()
            send_all(url, bodies, args.clients)
            wall = time.perf_counter() - started
            server.send_signal(signal.SIGTERM)
            server.wait(timeout=120)
            print(f"{args.n} deliveries in {wall:.1f} s under the profiler ({args.n / wall:.0f}/s)")
            stats = pstats.Stats(str(profile))
            stats.sort_stats("tottime").print_stats(args.top)
            stats.sort_stats("cumulative").print_stats(args.top)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
