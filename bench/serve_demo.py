"""The README's "first review" run, against the loopback fakes: a PostgreSQL server, the fake
GitHub with a GitHub App (its JWT checked, installation tokens issued), the fake Messages API,
and the real `reviewbot serve --workers 1`, sent one signed `pull_request` delivery.

    python bench/serve_demo.py
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.serve.world import (
    REPO,
    get,
    open_world,
    postgres_server,
    reviews,
    settled,
    signed_request,
    start_server,
    wait_until,
)


def main() -> None:
    scratch = Path(tempfile.mkdtemp(prefix="reviewbot-demo-", dir="/tmp"))
    with postgres_server() as url, open_world(scratch, url) as world:
        world.add_pull(7)
        server = start_server(world, workers=1)
        try:
            print(f"$ curl {server.url}/healthz  →", get(server.url + "/healthz"))
            status, answer = signed_request(
                server.url,
                "pull_request",
                world.pull_request_event(7),
                delivery=world.delivery_id(),
            )
            print(f"POST /webhook (pull_request opened, #7) → {status} {json.dumps(answer)}")
            wait_until(lambda: settled(world), "the job to finish")
            (review,) = reviews(world, 7)
            print(
                f"review posted on {REPO}#7 by {review['user']['login']} at {review['commit_id'][:12]}"
            )
            checks = [(r["name"], r["conclusion"]) for r in world.github.repo(REPO).check_runs]
            print(f"check runs: {checks}; installation tokens issued: {len(world.app.issued)}")
            metrics = get(server.url + "/metrics")[1]
            for line in metrics.splitlines():
                if line.startswith(
                    (
                        "reviewbot_deliveries_total",
                        "reviewbot_jobs_total",
                        'reviewbot_queue_jobs{status="succeeded"',
                    )
                ):
                    print("  " + line)
        finally:
            server.stop()
        print("--- reviewbot serve's log")
        print(server.output().rstrip())


if __name__ == "__main__":
    main()
