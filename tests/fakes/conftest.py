"""Fixtures of the fakes' own tests."""

from __future__ import annotations

from tests.fakes.github_api import github_server  # noqa: F401 - re-exported as a pytest fixture
