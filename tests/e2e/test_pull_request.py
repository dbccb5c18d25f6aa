"""`pull_request` opened, then re-run on the same head: the Action's main path, end to end.

The model finds a P0 on a changed line (the verifier confirms it) and a P2 on a line
outside the diff; the PR also pastes the run's secrets into a file, so the redaction on
every way out is exercised, not just assumed.
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass
from typing import Any

import jsonschema
import pytest

from tests.fakes.keys import ANTHROPIC_KEY, GITHUB_TOKEN
from tests.fakes.messages_api import Scripted, reply, tool_use
from tests.fakes.runs import Run, everything_sent, leaked
from tests.fakes.webhooks import pull_request_event
from tests.fakes.world import REPO, World

APP_BASE = "def run(command):\n    return command\n" + "".join(
    f"SETTING_{n} = {n}\n" for n in range(3, 31)
)
APP_HEAD = APP_BASE.replace("    return command\n", "    return eval(command)\n")
# A PR that pastes the secrets: the diff the model reads and the code shown in comments carry them.
LEAKY = f"DEPLOY_TOKEN={GITHUB_TOKEN}\nMODEL_KEY={ANTHROPIC_KEY}\n"

P0 = {
    "kind": "bug",
    "priority": "P0",
    "confidence": 0.95,
    "title": "eval() on the command",
    "body": "Any caller can run arbitrary code.",
    "anchor": {
        "path": "app.py",
        "start_line": 2,
        "end_line": 2,
        "quote": "    return eval(command)",
    },
}
OUTSIDE = {
    "kind": "suggestion",
    "priority": "P2",
    "confidence": 0.6,
    "title": "Name the magic number",
    "body": "SETTING_20 deserves a name.",
    "anchor": {"path": "app.py", "start_line": 20, "end_line": 20, "quote": "SETTING_20 = 20"},
}


def review_script() -> list[Scripted]:
    """One reviewer turn adding both nodes, its finalize, the verifier confirming the P0."""
    return [
        reply(tool_use("add_review_node", P0), tool_use("add_review_node", OUTSIDE)),
        reply(tool_use("finalize_review", {"summary": "One P0.", "verdict": "block"})),
        reply(tool_use("confirm_review_node", {"id": "review-1", "reason": "eval of input"})),
    ]


@dataclass(frozen=True, slots=True, kw_only=True)
class Flow:
    world: World
    first: Run
    second: Run
    review_comments_after_first: list[dict[str, Any]]


@pytest.fixture(scope="module")
def flow(worlds) -> Flow:
    """Run the Action for `pull_request` opened, then again for the same head."""
    world = worlds(
        "opened",
        base={"app.py": APP_BASE},
        head={"app.py": APP_HEAD, "deploy.env": LEAKY},
        script=[*review_script(), *review_script()],
    )
    args = ["review", "--github-event", "--post"]
    event = pull_request_event(world)
    first = world.run(args, event_name="pull_request", event=event)
    comments = copy.deepcopy(world.github.repo(REPO).review_comments.get(world.pull.number, []))
    second = world.run(args, event_name="pull_request", event=event)
    world.model.verify()
    return Flow(world=world, first=first, second=second, review_comments_after_first=comments)


def _pr(flow: Flow, suffix: str) -> str:
    return f"/repos/{REPO}/{suffix}".replace("{n}", str(flow.world.pull.number))


class TestFirstRun:
    def test_exits_zero_with_the_block_verdict_in_the_outputs(self, flow):
        """A Block verdict is a result, not a failure: exit 0, `verdict=block` for the workflow."""
        assert flow.first.returncode == 0, flow.first.stderr
        assert flow.first.outputs["verdict"] == "block"
        assert "Traceback" not in flow.first.stderr

    def test_posts_exactly_one_review_requesting_changes(self, flow):
        """One POST /reviews carries every inline comment, with event REQUEST_CHANGES."""
        posts = flow.first.calls("POST", _pr(flow, "pulls/{n}/reviews"))
        assert len(posts) == 1
        assert posts[0].json()["event"] == "REQUEST_CHANGES"
        assert posts[0].status == 200

    def test_reads_each_resource_once_and_writes_three_times(self, flow):
        """Only the PR is read again (is its head still the reviewed one: before posting, and
        after the review, before the summary and the check run); 3 writes."""
        gets = [r.path for r in flow.first.github if r.method == "GET"]
        pull = _pr(flow, "pulls/{n}")
        assert gets.count(pull) == 3
        again = [path for path in gets if path != pull]
        assert len(again) == len(set(again)), sorted(gets)
        assert len(flow.first.writes()) == 3

    def test_inline_comments_land_only_on_lines_of_the_diff(self, flow):
        """The one stored inline comment is the finding on line 2, the changed line."""
        stored = flow.review_comments_after_first
        assert [(c["path"], c["line"]) for c in stored] == [("app.py", 2)]
        assert "eval() on the command" in stored[0]["body"]

    def test_a_finding_outside_the_diff_is_listed_in_the_review_body(self, flow):
        """The P2 on line 20 (no hunk there) is in the review body with a link, not inline."""
        body = flow.first.calls("POST", _pr(flow, "pulls/{n}/reviews"))[0].json()["body"]
        assert "Name the magic number" in body
        assert "app.py#L20" in body
        published = flow.first.report()["published"]
        assert published["in_body"] == ["review-2"]
        assert [c["node_id"] for c in published["comments"]] == ["review-1"]
        assert all(c["landed"] for c in published["comments"])

    def test_sets_a_failing_reviewbot_check_run_on_the_head(self, flow):
        """The check run `reviewbot` on the head SHA concludes failure, for branch protection."""
        posts = flow.first.calls("POST", _pr(flow, "check-runs"))
        assert len(posts) == 1
        sent = posts[0].json()
        assert (sent["name"], sent["head_sha"]) == ("reviewbot", flow.world.pull.head_sha)
        assert (sent["status"], sent["conclusion"]) == ("completed", "failure")

    def test_posts_one_summary_comment(self, flow):
        """The summary is one issue comment; nothing is edited on a first run."""
        assert len(flow.first.calls("POST", _pr(flow, "issues/{n}/comments"))) == 1
        assert flow.first.calls("PATCH", "") == []

    def test_writes_a_report_that_validates_against_the_schema(self, flow, report_schema):
        """`report-path` names a JSON report valid under `reviewbot schema`, about this head."""
        report = flow.first.report()
        jsonschema.validate(report, report_schema)
        assert report["verdict"] == "block"
        assert report["pr"]["head_sha"] == flow.world.pull.head_sha
        statuses = {n["id"]: n["status"] for n in report["nodes"]}
        assert statuses == {"review-1": "consensusReady", "review-2": "open"}
        assert flow.first.step_summary.startswith("## ⛔ Block")
        assert "eval() on the command" in flow.first.step_summary

    def test_the_model_got_the_reviewer_and_the_verifier_requests(self, flow):
        """Three Messages API requests: two reviewer turns, one verifier turn (it judged its node)."""
        assert len(flow.first.model) == 3
        assert "confirm_review_node" in {t["name"] for t in flow.first.model[2]["tools"]}

    def test_no_secret_leaves_the_process(self, flow):
        """Neither secret reaches stdout, stderr, the report, the summary, GitHub or the model."""
        patch = flow.world.pull.file("deploy.env").patch
        assert GITHUB_TOKEN in patch  # the PR really carries both secrets...
        assert ANTHROPIC_KEY in patch
        assert "DEPLOY_TOKEN=[REDACTED]" in json.dumps(flow.first.model[0])  # ...masked on the way
        assert leaked(everything_sent(flow.first)) == []
        assert leaked(everything_sent(flow.second)) == []


class TestRerunOnTheSameHead:
    def test_exits_zero_with_the_same_verdict(self, flow):
        """The re-run reaches the same Block verdict."""
        assert flow.second.returncode == 0, flow.second.stderr
        assert flow.second.outputs["verdict"] == "block"

    def test_posts_no_review_when_nothing_is_new(self, flow):
        """The publisher skips the review POST: no new finding and the verdict is unchanged."""
        assert flow.second.calls("POST", _pr(flow, "pulls/{n}/reviews")) == []
        published = flow.second.report()["published"]
        assert published["review_id"] is None
        assert sorted(published["already_posted"]) == ["review-1", "review-2"]

    def test_reposts_no_inline_comment(self, flow):
        """The PR's inline comments are exactly those of the first run."""
        now = flow.world.github.repo(REPO).review_comments[flow.world.pull.number]
        assert [c["id"] for c in now] == [c["id"] for c in flow.review_comments_after_first]

    def test_edits_the_summary_in_place(self, flow):
        """The summary comment is PATCHed, never posted a second time."""
        first_id = flow.first.report()["published"]["summary_comment_id"]
        assert flow.second.calls("POST", _pr(flow, "issues/{n}/comments")) == []
        patches = flow.second.calls("PATCH", _pr(flow, f"issues/comments/{first_id}"))
        assert len(patches) == 1
        assert len(flow.world.github.repo(REPO).issue_comments[flow.world.pull.number]) == 1

    def test_marks_nothing_resolved_on_the_same_head(self, flow):
        """The same head proves nothing fixed: no finding is marked resolved."""
        assert flow.second.report()["published"]["resolved"] == []
        assert flow.second.calls("PUT", "") == []

    def test_keeps_the_check_run_failing(self, flow):
        """The new check run carries the same failure."""
        posts = flow.second.calls("POST", _pr(flow, "check-runs"))
        assert [p.json()["conclusion"] for p in posts] == ["failure"]
