"""Fixtures of the eval tests."""

from __future__ import annotations

import logging
from collections.abc import Iterator

import pytest


@pytest.fixture(autouse=True)
def restore_logging() -> Iterator[None]:
    """The CLI installs its own log handler on the root logger; put the old ones back."""
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    ours = logging.getLogger("reviewbot")
    ours_level, github = ours.level, logging.getLogger("github")
    github_state = (github.level, github.handlers[:], github.propagate)
    yield
    root.handlers[:] = handlers
    root.setLevel(level)
    ours.setLevel(ours_level)
    github.setLevel(github_state[0])
    github.handlers[:] = github_state[1]
    github.propagate = github_state[2]
