"""Fixtures of the CLI tests: an environment without the developer's (or CI's) settings."""

from __future__ import annotations

import logging
import os
from collections.abc import Iterator

import pytest

# Everything reviewbot, click options, the SDKs or GitHub Actions read from the environment.
_PREFIXES = ("GITHUB_", "GH_", "ANTHROPIC_", "REVIEWBOT_", "RUNNER_")


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """Drop GitHub, Anthropic and reviewbot variables so a test sees only what it sets."""
    for name in list(os.environ):
        if name.startswith(_PREFIXES) or name in {"CI", "GH_TOKEN"}:
            monkeypatch.delenv(name)


@pytest.fixture(autouse=True)
def restore_logging() -> Iterator[None]:
    """The CLI installs its own log handler on the root logger; put the old ones back."""
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    ours = logging.getLogger("reviewbot")
    ours_level = ours.level
    yield
    root.handlers[:] = handlers
    root.setLevel(level)
    ours.setLevel(ours_level)
