"""The publishing seam: what a forge implements, and that GitHub's publisher is one."""

from __future__ import annotations

import inspect

from reviewbot.github.publisher import GitHubPublisher
from reviewbot.publish.forge import ForgePublisher


def test_the_github_publisher_answers_what_the_seam_asks():
    """`publish(report, snapshot, memory)` and `trust`, with the protocol's parameter names."""
    asked = inspect.signature(ForgePublisher.publish).parameters
    given = inspect.signature(GitHubPublisher.publish).parameters
    assert list(asked) == list(given)[: len(asked)]
    assert all(p.default is not inspect.Parameter.empty for p in list(given.values())[len(asked) :])
    assert isinstance(inspect.getattr_static(ForgePublisher, "trust"), property)
