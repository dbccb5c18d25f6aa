"""GitHub's webhook events about a test world's PR, built from the REAL payloads.

The payloads of tests/data/github-webhooks/ (recorded from GitHub, see the licence
there) with the world's repository, PR number, SHAs, refs and author put in: what
`reviewbot review --github-event` reads from GITHUB_EVENT_PATH in Actions.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tests.fakes.world import World

WEBHOOKS = Path(__file__).resolve().parents[1] / "data" / "github-webhooks"


def _webhook(name: str) -> dict[str, Any]:
    payload: dict[str, Any] = json.loads((WEBHOOKS / name).read_text(encoding="utf-8"))
    return payload


def _repo_ids(world: World) -> tuple[int, int]:
    """(base repository id, head repository id) as the fake GitHub reports them."""
    base = world.github.repo(world.full_name).id
    head = base if world.pull.head_repo is None else 9_000_001
    return base, head


def pull_request_event(world: World, *, action: str = "opened") -> dict[str, Any]:
    """The real `pull_request.opened` payload, about the world's PR."""
    payload = _webhook("pull_request.opened.payload.json")
    pull, (base_id, head_id) = world.pull, _repo_ids(world)
    pr = payload["pull_request"]
    payload["action"] = action
    payload["number"] = pr["number"] = pull.number
    pr["user"]["login"] = payload["sender"]["login"] = pull.author
    pr["head"]["sha"], pr["base"]["sha"] = pull.head_sha, pull.base_sha
    pr["head"]["ref"], pr["base"]["ref"] = pull.head_ref, pull.base_ref
    payload["repository"].update(full_name=world.full_name, id=base_id)
    pr["base"]["repo"].update(full_name=world.full_name, id=base_id)
    pr["head"]["repo"].update(full_name=pull.head_repo or world.full_name, id=head_id)
    return payload


def issue_comment_event(
    world: World, *, login: str, body: str = "/review", association: str = "MEMBER"
) -> dict[str, Any]:
    """The real `issue_comment.created` payload, turned into a comment on the world's PR."""
    payload = _webhook("issue_comment.created.payload.json")
    number = world.pull.number
    payload["issue"]["number"] = number
    payload["issue"]["pull_request"] = {
        "url": f"https://api.github.com/repos/{world.full_name}/pulls/{number}"
    }
    comment = payload["comment"]
    comment.update(body=body, author_association=association)
    comment["user"]["login"] = payload["sender"]["login"] = login
    payload["repository"].update(full_name=world.full_name, id=_repo_ids(world)[0])
    return payload


def check_suite_event(world: World) -> dict[str, Any]:
    """The real `check_suite.completed` payload, for a suite on the world's PR head."""
    payload = _webhook("check_suite.completed.payload.json")
    pull, (base_id, head_id) = world.pull, _repo_ids(world)
    suite = payload["check_suite"]
    suite["head_sha"] = pull.head_sha
    suite["conclusion"] = "failure"
    stub = suite["pull_requests"][0]
    stub["number"] = pull.number
    stub["head"]["sha"], stub["base"]["sha"] = pull.head_sha, pull.base_sha
    stub["head"]["repo"]["id"], stub["base"]["repo"]["id"] = head_id, base_id
    suite["pull_requests"] = [stub]
    payload["repository"].update(full_name=world.full_name, id=base_id)
    return payload


def workflow_run_event(world: World, *, head_sha: str | None = None) -> dict[str, Any]:
    """A `workflow_run` completed for the snapshot workflow, built from the real PR payload."""
    source = pull_request_event(world)
    pr = source["pull_request"]
    stub = {
        "number": pr["number"],
        "head": {"ref": pr["head"]["ref"], "sha": pr["head"]["sha"], "repo": pr["head"]["repo"]},
        "base": {"ref": pr["base"]["ref"], "sha": pr["base"]["sha"], "repo": pr["base"]["repo"]},
    }
    run = {
        "id": 30_433_642,
        "name": "reviewbot snapshot",
        "event": "pull_request",
        "status": "completed",
        "conclusion": "success",
        "head_branch": pr["head"]["ref"],
        "head_sha": head_sha or pr["head"]["sha"],
        "head_repository": copy.deepcopy(pr["head"]["repo"]),
        # GitHub leaves this empty for runs from forks; the snapshot names the PR then.
        "pull_requests": [] if world.pull.head_repo else [stub],
        "triggering_actor": copy.deepcopy(pr["user"]),
        "actor": copy.deepcopy(pr["user"]),
    }
    return {
        "action": "completed",
        "workflow_run": run,
        "workflow": {
            "name": "reviewbot snapshot",
            "path": ".github/workflows/reviewbot-snapshot.yml",
        },
        "repository": source["repository"],
        "sender": source["sender"],
    }
