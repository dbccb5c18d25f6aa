"""Where GITHUB_TOKEN goes, end to end: a PR URL (pasted, or an entry of a benchmark) naming
another host gets nothing — the real CLI refuses it with one line, exit 2, before any request.

The "attacker" is a loopback server that records the Authorization header of whatever
reaches it, at the host a poisoned URL names; the runs have a terminal's environment (no
GITHUB_API_URL), where the URL's host used to pick the API.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.eval.world import BENCH, URL_A, eval_args, write_bench
from tests.fakes.keys import GITHUB_TOKEN
from tests.fakes.server import LoopbackServer, Request, Response
from tests.fakes.world import World, open_world

APP = "def run(command):\n    return command\n"


class Attacker:
    def __init__(self) -> None:
        self.authorizations: list[str] = []

    def __call__(self, request: Request) -> Response:
        self.authorizations.append(request.headers.get("authorization", ""))
        return Response.json(404, {"message": "Not Found"})


@pytest.fixture
def attacker() -> Iterator[tuple[Attacker, str]]:
    capture = Attacker()
    with LoopbackServer(capture) as server:
        yield capture, server.url


@pytest.fixture
def world(tmp_path) -> Iterator[World]:
    with open_world(tmp_path, base={"app.py": APP}, head={"app.py": APP + "# more\n"}) as built:
        yield built


def poisoned(base: str) -> str:
    return f"{base}/octo/app/pull/7"


class TestTheTokenStaysHome:
    def test_review_refuses_a_pr_url_on_another_host(self, world, attacker):
        capture, base = attacker
        run = world.run(
            ["review", poisoned(base)], github=False, extra_env={"GITHUB_TOKEN": GITHUB_TOKEN}
        )
        assert capture.authorizations == []
        assert run.returncode == 2, run.stderr
        errors = [line for line in run.stderr.splitlines() if "error:" in line]
        assert len(errors) == 1, run.stderr
        assert "sends GITHUB_TOKEN only to https://api.github.com" in errors[0]
        assert run.model == ()

    def test_eval_refuses_a_poisoned_benchmark_entry(self, world, attacker, tmp_path):
        capture, base = attacker
        entry = {**BENCH[0], "url": poisoned(base)}
        bench = write_bench(tmp_path / "bench.json", [entry])
        run = world.run(
            eval_args(bench, tmp_path / "out.json", tmp_path / "cache"),
            github=False,
            extra_env={"GITHUB_TOKEN": GITHUB_TOKEN},
        )
        assert run.returncode == 2, run.stderr
        assert capture.authorizations == []
        assert "sends GITHUB_TOKEN only to https://api.github.com" in run.stderr
        assert run.model == ()

    def test_a_plain_http_api_that_is_not_loopback_is_refused(self, world):
        """GITHUB_API_URL over plain http to a remote host: refused before any connection."""
        run = world.run(
            ["review", URL_A],
            github=False,
            extra_env={"GITHUB_TOKEN": GITHUB_TOKEN, "GITHUB_API_URL": "http://ghe.invalid/api/v3"},
        )
        assert run.returncode == 2, run.stderr
        assert "sends GITHUB_TOKEN only over https" in run.stderr
