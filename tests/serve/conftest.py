"""A PostgreSQL server for the serving tests, started once per test process; never skipped."""

from __future__ import annotations

import pytest

from tests.serve.world import open_world, postgres_server


@pytest.fixture(scope="session")
def postgres():
    with postgres_server() as url:
        yield url


@pytest.fixture
def world(tmp_path, postgres):
    with open_world(tmp_path, postgres) as built:
        yield built


@pytest.fixture(scope="module")
def module_world(tmp_path_factory, postgres):
    with open_world(tmp_path_factory.mktemp("serve"), postgres) as built:
        yield built


@pytest.fixture(scope="module")
def intake_server(module_world):
    """One `reviewbot serve` with no workers (intake only) for the module's deliveries."""
    from tests.serve.world import start_server

    server = start_server(module_world, workers=0, env=module_world.env(REVIEWBOT_MAX_BODY="65536"))
    yield server
    assert server.stop() == 0, server.output()[-3000:]
