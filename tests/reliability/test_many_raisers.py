"""Twenty focused reviewers raising the same finding: the publish completes, all or nothing.

The summary marker records every raiser of a finding; a cap below the number of reviewers a
config may have failed *after* the review was posted, leaving a review with no summary and
no check run. A config past the cap is refused before anything is written.
"""

from __future__ import annotations

from tests.fakes.messages_api import reply, text, tool_use
from tests.fakes.scenario import BASE_APP, finding
from tests.fakes.world import World

MAX_FOCUSED = 20


def _config(count: int) -> str:
    return "".join(f'[[reviewers]]\nname = "focus-{n}"\ngated = true\n\n' for n in range(count))


class TestEveryReviewerRaisesIt:
    def test_twenty_reviewers_on_one_finding_publish_review_summary_and_check(self, world: World):
        """21 raisers (`review` and 20 focused reviewers): one comment, a summary, a check run."""
        # One agent at a time: the reviewers' scripted replies are alike, and served in order.
        config = _config(MAX_FOCUSED) + "[budget]\nmax_parallel_agents = 1\n"
        world.build(base={"app.py": BASE_APP, ".reviewbot.toml": config})
        world.seed()
        nit = finding(priority="P2", title="eval is risky")  # P2: no verifier turn
        script = []
        for _ in range(MAX_FOCUSED + 1):
            script += [reply(tool_use("add_review_node", nit)), reply(text("Recorded."))]
        world.serve(*script)
        run = world.review("--post")
        assert run.exit_code == 0, run.stderr
        (node,) = run.report["nodes"] if run.report else []
        assert len(node["also_raised_by"]) == MAX_FOCUSED
        assert len(world.posted_reviews()) == 1
        assert len(world.inline_comments()) == 1
        assert len(world.issue_comments()) == 1  # the summary
        assert len(world.check_runs()) == 1

    def test_more_reviewers_than_the_cap_is_a_config_error_before_any_write(self, world: World):
        """21 focused reviewers: exit 2 with the config's line, nothing posted, no model asked."""
        world.build(base={"app.py": BASE_APP, ".reviewbot.toml": _config(MAX_FOCUSED + 1)})
        world.seed()
        world.serve()
        run = world.review("--post")
        assert run.exit_code == 2, run.stderr
        [line] = run.error_lines  # ends with "(no report written to …)": the world asks for one
        assert line.startswith(
            "reviewbot: error: `.reviewbot.toml` (base branch main) line 1: reviewers: "
            "Tuple should have at most 20 items after validation, not 21"
        )
        assert world.github_server.writes == 0
        assert world.api.requests == []
