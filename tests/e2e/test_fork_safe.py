"""The fork-safe two stages: `snapshot` on `pull_request` (no secrets), then `review
--from-snapshot` on `workflow_run` (secrets); a tampered snapshot is refused in one line.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

from tests.fakes.messages_api import reply, tool_use
from tests.fakes.runs import Run
from tests.fakes.webhooks import pull_request_event, workflow_run_event
from tests.fakes.world import REPO, World

BASE = {"app.py": "def greet(name):\n    return 'hi ' + name\n"}
HEAD = {"app.py": "def greet(name):\n    return 'hi ' + name.strip()\n"}
NOTE = {
    "kind": "question",
    "priority": "P2",
    "confidence": 0.5,
    "title": "Why strip here?",
    "anchor": {
        "path": "app.py",
        "start_line": 2,
        "end_line": 2,
        "quote": "    return 'hi ' + name.strip()",
    },
}
REFERENCE = "reviewbot-pr.json"
EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "workflows"


@dataclass(frozen=True, slots=True, kw_only=True)
class Stages:
    world: World
    folder: Path
    stage_one: Run
    stage_two: Run
    extra_field: Run
    other_head: Run
    other_repo: Run
    stranger: Run


def _tampered(world: World, name: str, source: Path, **changes: object) -> Path:
    folder = world.folder(name)
    data = json.loads(source.read_text(encoding="utf-8")) | changes
    (folder / REFERENCE).write_text(json.dumps(data), encoding="utf-8")
    return folder


@pytest.fixture(scope="module")
def stages(worlds) -> Stages:
    """Snapshot a fork PR, review the snapshot, then try three tampered snapshots."""
    world = worlds(
        "fork-safe",
        base=BASE,
        head=HEAD,
        fork=True,
        script=[
            reply(tool_use("add_review_node", NOTE)),
            reply(tool_use("finalize_review", {"summary": "A question.", "verdict": "hold"})),
        ],
    )
    folder = world.folder("artifact")
    stage_one = world.run(
        ["snapshot", "--out", str(folder)],
        event_name="pull_request",
        event=pull_request_event(world),
        anthropic=False,  # stage one runs without secrets
    )
    review = ["review", "--from-snapshot"]
    stage_two = world.run(
        [*review, str(folder), "--post"], event_name="workflow_run", event=workflow_run_event(world)
    )
    extra = _tampered(world, "extra-field", folder / REFERENCE, extra="injected")
    moved = _tampered(world, "other-head", folder / REFERENCE, head_sha=world.pull.base_sha)
    elsewhere = _tampered(world, "other-repo", folder / REFERENCE, repo="octo/other")
    event = workflow_run_event(world)
    started = [
        world.start([*review, str(path), "--post"], event_name="workflow_run", event=event)
        for path in (extra, moved, elsewhere)
    ]
    extra_field, other_head, other_repo = (pending.wait() for pending in started)
    # Someone else (read access) re-runs stage one of this PR: neither its author nor a writer.
    world.github.repo(REPO).permissions["mallory"] = "read"
    by_stranger = workflow_run_event(world)
    by_stranger["workflow_run"]["triggering_actor"] = by_stranger["sender"] | {"login": "mallory"}
    stranger = world.run(
        [*review, str(folder), "--post"], event_name="workflow_run", event=by_stranger
    )
    world.model.verify()
    return Stages(
        world=world,
        folder=folder,
        stage_one=stage_one,
        stage_two=stage_two,
        extra_field=extra_field,
        other_head=other_head,
        other_repo=other_repo,
        stranger=stranger,
    )


class TestStageOne:
    def test_saves_the_pr_reference_without_secrets(self, stages):
        """Stage one writes which PR and head it saw, and exits 0 with no model request."""
        run = stages.stage_one
        assert run.returncode == 0, run.stderr
        saved = json.loads((stages.folder / REFERENCE).read_text(encoding="utf-8"))
        assert saved == {"repo": REPO, "number": 7, "head_sha": stages.world.pull.head_sha}
        assert run.model == ()
        assert run.writes() == []

    def test_reads_nothing_from_the_api(self, stages):
        """The event payload is all it needs: its workflow grants the token no scope."""
        assert stages.stage_one.github == ()


class TestStageTwo:
    def test_reviews_the_named_pr_and_posts(self, stages):
        """Stage two re-reads the PR, reviews it with the model and posts one review."""
        run = stages.stage_two
        assert run.returncode == 0, run.stderr
        assert len(run.model) == 2
        posts = run.calls("POST", f"/repos/{REPO}/pulls/7/reviews")
        assert [p.json()["event"] for p in posts] == ["COMMENT"]
        assert [c["line"] for c in posts[0].json()["comments"]] == [2]
        assert run.calls("POST", f"/repos/{REPO}/check-runs")

    def test_reviews_the_fork_despite_the_fork_rule(self, stages):
        """Unlike a fork `pull_request` run, stage two has secrets: the review axis ran."""
        report = stages.stage_two.report()
        review = next(a for a in report["axes"] if a["name"] == "review")
        assert review["outcome"] == "passed"
        assert report["verdict"] == "hold"
        assert report["pr"]["head_sha"] == stages.world.pull.head_sha


@pytest.mark.parametrize(
    ("which", "message"),
    [
        ("extra_field", "is not valid: extra: Extra inputs are not permitted"),
        ("other_head", "but the workflow run built"),
        ("other_repo", "the snapshot names octo/other but this workflow runs in octo/app"),
    ],
    ids=["extra-field", "other-head-sha", "other-repository"],
)
class TestTamperedSnapshot:
    def test_is_refused_with_one_line(self, stages, which, message):
        """A snapshot with an extra field, another head or repository is refused in one line."""
        run: Run = getattr(stages, which)
        assert run.returncode == 2
        lines = run.said
        assert len(lines) == 1, run.stderr
        assert lines[0].startswith("reviewbot: error: ")
        assert message in lines[0]
        assert "Traceback" not in run.stderr

    def test_reaches_neither_the_model_nor_github(self, stages, which, message):
        """Nothing is read, spent or posted for a refused snapshot."""
        run: Run = getattr(stages, which)
        assert run.model == ()
        assert run.github == ()


class TestWhoMayTriggerStageTwo:
    def test_the_prs_author_without_write_access_is_reviewed(self, stages):
        """Stage one of a fork PR runs as its author: reviewed, no permission needed."""
        author = stages.world.pull.author
        assert stages.world.github.repo(REPO).permissions.get(author) not in ("admin", "write")
        assert stages.stage_two.returncode == 0
        assert len(stages.stage_two.model) == 2

    def test_anyone_else_without_write_access_is_refused(self, stages):
        """A run by a third party names someone else's PR: refused, no model, no write."""
        run = stages.stranger
        assert run.returncode == 0, run.stderr
        refusal = run.said[-1]
        assert refusal.startswith("reviewbot: nothing to review: "), run.stderr
        assert "mallory" in refusal
        assert "/review" not in refusal  # nobody commented: the run that saved it was theirs
        assert "the run that saved this snapshot was started by mallory" in refusal
        assert "write access" in refusal
        assert "Traceback" not in run.stderr
        assert run.model == ()
        assert run.writes() == []
        assert run.calls("GET", f"/repos/{REPO}/collaborators/mallory/permission")


def _workflow(name: str) -> dict:
    loaded: dict = yaml.safe_load((EXAMPLES / name).read_text(encoding="utf-8"))
    return loaded


class TestTheExampleWorkflowsAgree:
    """The two example workflows do what these stages (and the README) say, no more, no less."""

    def test_stage_two_says_the_exit_codes_the_runs_above_end_with(self, stages):
        """The comment over the review step says what a refusal exits with: what it does."""
        text = (EXAMPLES / "reviewbot-review.yml").read_text(encoding="utf-8")
        above = text.split("- name: Review the snapshot and post")[0].splitlines()
        comment = " ".join(line.strip().lstrip("# ") for line in above if line.strip()[:1] == "#")
        assert "exit 0 when the triggering actor is neither the PR's author nor a writer" in comment
        assert stages.stranger.returncode == 0
        assert "exit 2 when the artifact disagrees with the API or this run" in comment
        assert {stages.extra_field.returncode, stages.other_head.returncode} == {2}

    def test_stage_two_leaves_who_may_to_reviewbot(self):
        """No step of reviewbot-review.yml is skipped on a permission check of its own: the
        rule (the PR's author, or write access) is reviewbot's, through the API, tested above."""
        (job,) = _workflow("reviewbot-review.yml")["jobs"].values()
        gated = [step.get("name", step.get("uses")) for step in job["steps"] if "if" in step]
        assert gated == []
        assert any(
            "reviewbot review --from-snapshot" in step.get("run", "") for step in job["steps"]
        )

    def test_stage_one_runs_snapshot_with_no_token_scope(self):
        (job,) = _workflow("reviewbot-snapshot.yml")["jobs"].values()
        assert job["permissions"] == {}
        runs = [step["run"] for step in job["steps"] if "reviewbot snapshot" in step.get("run", "")]
        assert len(runs) == 1
        assert all("GITHUB_TOKEN" not in step.get("env", {}) for step in job["steps"])
