"""Fixtures of the end-to-end tests: worlds (repository + fake GitHub + fake Messages API).

Worlds are module-scoped: a subprocess run costs about a second, so each module runs its
flow once and its test classes assert different outcomes of the same runs.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from typing import Any

import pytest
from click.testing import CliRunner

from reviewbot.cli import cli
from tests.fakes.world import World, open_world

OpenWorld = Callable[..., World]


@pytest.fixture(scope="module")
def worlds(tmp_path_factory: pytest.TempPathFactory) -> Iterator[OpenWorld]:
    """Open worlds on demand, each in its own folder; all are closed after the module."""
    with ExitStack() as stack:

        def make(name: str, **options: Any) -> World:
            return stack.enter_context(open_world(tmp_path_factory.mktemp(name), **options))

        yield make


@pytest.fixture(scope="session")
def report_schema() -> dict[str, Any]:
    """The JSON Schema printed by `reviewbot schema`."""
    result = CliRunner().invoke(cli, ["schema"])
    assert result.exit_code == 0, result.output
    schema: dict[str, Any] = json.loads(result.stdout)
    return schema
