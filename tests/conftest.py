"""Shared fixtures. Any attempt to open a real network connection fails the test."""

from __future__ import annotations

import os
import socket

import pytest
from hypothesis import HealthCheck, settings

_LOOPBACK = ("127.0.0.1", "::1", "localhost")

# Property tests judge examples, not speed: on a loaded CI machine generating an example can take
# longer than Hypothesis's defaults allow, which says nothing about the code under test.
settings.register_profile("reviewbot", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("reviewbot")


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """`pytest -n auto`: two workers a core. About a third of the suite's time is spent waiting
    on the processes its tests start (`reviewbot` runs, servers, PostgreSQL), not computing."""
    return 2 * (os.cpu_count() or 1)


@pytest.fixture(autouse=True)
def _no_network(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tests are offline: only loopback (our own fakes) may be reached."""
    real_connect = socket.socket.connect

    def guarded(self: socket.socket, address: object) -> object:
        host = address[0] if isinstance(address, tuple) else address
        if self.family in (socket.AF_INET, socket.AF_INET6) and host not in _LOOPBACK:
            raise RuntimeError(f"test tried to reach the network: {address!r}")
        return real_connect(self, address)  # type: ignore[arg-type]

    monkeypatch.setattr(socket.socket, "connect", guarded)
