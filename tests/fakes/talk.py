"""What the command tests share: reviewbot's answers on a PR, a comment or thread reply
stored in the fake with GitHub's real webhook payload for it, and a command's run."""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

from tests.fakes.runs import Run
from tests.fakes.webhooks import _repo_ids, _webhook, issue_comment_event
from tests.fakes.world import REPO, World

ARGS = ["review", "--github-event", "--post"]
ANSWER = "<!-- reviewbot:answer "
# A PR that adds `+ 0`, and the minor finding about it, that the command tests review.
SUM_BASE = {"app.py": "def total(items):\n    return sum(items)\n"}
SUM_HEAD = {"app.py": "def total(items):\n    return sum(items) + 0\n"}
DROP_ZERO = {
    "kind": "suggestion",
    "priority": "P2",
    "confidence": 0.5,
    "title": "Drop the + 0",
    "body": "Adding zero does nothing.",
    "anchor": {
        "path": "app.py",
        "start_line": 2,
        "end_line": 2,
        "quote": "    return sum(items) + 0",
    },
}


def answers(world: World) -> list[str]:
    """reviewbot's answers on the PR: PR comments and thread replies with the answer marker."""
    repo = world.github.repo(REPO)
    every = [
        *repo.issue_comments.get(world.pull.number, []),
        *repo.review_comments.get(world.pull.number, []),
    ]
    return [c["body"] for c in every if ANSWER in c["body"]]


def thread_reply_event(world: World, *, root: int, login: str, body: str) -> dict[str, Any]:
    """GitHub's real `pull_request_review_comment.created` payload for a reply in `root`'s
    thread; the reply is stored in the fake first, as GitHub has it before it sends the event."""
    stored = world.github.add_reply(
        REPO, world.pull.number, in_reply_to=root, body=body, author=login
    )
    payload = _webhook("pull_request_review_comment.created.payload.json")
    comment = payload["comment"]
    comment.update(copy.deepcopy(stored))
    comment["user"]["type"] = "User"
    payload["sender"]["login"] = login
    pr = payload["pull_request"]
    pr["number"], pr["state"] = world.pull.number, "open"
    pr["head"]["sha"], pr["base"]["sha"] = world.pull.head_sha, world.pull.base_sha
    base_id, head_id = _repo_ids(world)
    payload["repository"].update(full_name=REPO, id=base_id)
    pr["base"]["repo"].update(full_name=REPO, id=base_id)
    pr["head"]["repo"].update(full_name=world.pull.head_repo or REPO, id=head_id)
    return payload


def comment(
    world: World, login: str, body: str, *, bot: bool = False, association: str = "CONTRIBUTOR"
) -> dict[str, Any]:
    """The real `issue_comment.created` payload of a comment stored in the fake first
    (`association`: what GitHub says of the author; `/review` counts only from a MEMBER, …)."""
    stored = world.github.add_issue_comment(REPO, world.pull.number, body, login, association)
    payload = issue_comment_event(world, login=login, body=body, association=association)
    payload["comment"]["id"] = stored["id"]
    if bot:
        payload["comment"]["user"]["type"] = "Bot"
    return payload


@dataclass(frozen=True, slots=True, kw_only=True)
class Said:
    """A command's run and what reviewbot posted for it."""

    run: Run
    posted: list[str]


def said(world: World, event_name: str, event: dict[str, Any]) -> Said:
    before = len(answers(world))
    run = world.run(ARGS, event_name=event_name, event=event)
    assert run.returncode == 0, run.stderr
    return Said(run=run, posted=answers(world)[before:])
