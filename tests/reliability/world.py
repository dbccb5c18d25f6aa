"""The reliability tests' names for the one test world (tests/fakes/world.py): real git, fake
GitHub, fake Messages API, and `reviewbot review URL …` run in-process (`world.review`) with
the real composition root and clients, only their waits made zero.

The `world` fixture builds nothing: a test calls `world.build()`, `world.seed()` and
`world.serve(*script)`, then `world.review(...)`; afterwards the fakes are verified.

Nothing is defined here: import from tests.fakes.* in new code.
"""

from __future__ import annotations

from tests.fakes.keys import ANTHROPIC_KEY, GITHUB_TOKEN, OTHER_SECRET, SECRETS
from tests.fakes.runs import CliRun as Run
from tests.fakes.scenario import BASE_APP, HEAD_APP, finding
from tests.fakes.world import NUMBER, PR_URL, REPO, World, world

__all__ = [
    "ANTHROPIC_KEY",
    "BASE_APP",
    "GITHUB_TOKEN",
    "HEAD_APP",
    "NUMBER",
    "OTHER_SECRET",
    "PR_URL",
    "REPO",
    "SECRETS",
    "Run",
    "World",
    "finding",
    "world",
]
