"""Draft PRs: the base branch's `publish.review_drafts` decides, before anything is cloned or asked."""

from __future__ import annotations

from tests.fakes.messages_api import reply, text
from tests.fakes.scenario import BASE_APP
from tests.fakes.world import World


class TestDrafts:
    def test_a_draft_is_skipped_with_the_setting_named(self, world: World) -> None:
        """By default a draft gets no review: exit 0, the reason on stderr, no model request, no write."""
        world.build()
        world.seed(draft=True)
        world.serve()
        run = world.review("--post")
        assert run.exit_code == 0, run.stderr
        assert run.report is not None  # --report: the report that says nothing was reviewed
        assert run.report["skipped"].startswith("octo/app#7 is a draft")
        assert run.report["nodes"] == []
        assert "is a draft (set publish.review_drafts = true" in run.stderr
        assert world.api.requests == []
        assert [r for r in world.github_server.requests if r.is_write] == []

    def test_review_drafts_in_the_base_config_reviews_it(self, world: World) -> None:
        """With review_drafts = true on the base branch, the draft is reviewed and posted."""
        world.build(
            base={"app.py": BASE_APP, ".reviewbot.toml": "[publish]\nreview_drafts = true\n"}
        )
        world.seed(draft=True)
        world.serve(reply(text("Nothing to add.")))
        run = world.review("--post")
        assert run.exit_code == 0, run.stderr
        assert run.verdict == "ship"
        assert len(world.api.requests) == 1
        world.api.verify()
