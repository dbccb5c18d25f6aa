"""Fixtures of the reliability suite: the whole-product `world` (see world.py)."""

from __future__ import annotations

from tests.reliability.world import world  # noqa: F401 - re-exported as a pytest fixture
