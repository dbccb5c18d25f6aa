"""Fixtures of the reliability suite: the whole-product `world`, built step by step
(tests/fakes/world.py)."""

from __future__ import annotations

from tests.fakes.world import world  # noqa: F401 - re-exported as a pytest fixture
