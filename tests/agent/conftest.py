"""Fixtures for the agent tests: the fake Messages API, verified when the test ends."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from tests.fakes.messages_api import FakeMessagesAPI, Scripted


@pytest.fixture
def messages_api() -> Iterator[Callable[..., FakeMessagesAPI]]:
    """A factory of scripted fakes; each fails the test if a reply is unused or a call unexpected."""
    made: list[FakeMessagesAPI] = []

    def make(*script: Scripted, **kwargs: Any) -> FakeMessagesAPI:
        fake = FakeMessagesAPI(script, **kwargs)
        made.append(fake)
        return fake

    yield make
    for fake in made:
        fake.verify()
