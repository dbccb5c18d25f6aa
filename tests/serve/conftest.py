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
