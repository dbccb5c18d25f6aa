"""Posting as a GitHub App: earlier findings are recognised only in the configured account's comments."""

from __future__ import annotations

from tests.fakes.github_api import FakeGitHub
from tests.fakes.messages_api import reply, text, tool_use
from tests.fakes.scenario import finding
from tests.fakes.world import World

APP = "reviewbot-app[bot]"


def review_twice(world: World, **env: str | None) -> list[str]:
    """Two runs on the same head with the same finding; the paths of all inline comments after."""
    world.github = FakeGitHub(user_endpoint=False, login=APP)
    world.build()
    world.seed()
    once = (reply(tool_use("add_review_node", finding(priority="P2"))), reply(text("done")))
    world.serve(*once, *once)
    for _ in range(2):
        run = world.review("--post", **env)
        assert run.exit_code == 0, run.stderr
    return [c["path"] for c in world.inline_comments()]


class TestAppAccount:
    def test_configured_login_recognises_earlier_findings(self, world: World) -> None:
        """With REVIEWBOT_BOT_LOGIN set to the App's login, a re-run posts the finding once."""
        assert review_twice(world, REVIEWBOT_BOT_LOGIN=APP) == ["app.py"]

    def test_without_it_an_apps_markers_are_not_trusted(self, world: World) -> None:
        """Without it, the App's own markers count as another account's: the finding is posted again."""
        assert review_twice(world) == ["app.py", "app.py"]
