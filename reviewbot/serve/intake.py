"""What a verified delivery becomes: nothing (acknowledged and dropped) or jobs to queue.

The decision is the Action's: `event.plan_event` says whether the event is reviewed,
re-folded or skipped. The server adds only what an App delivery carries beyond an Actions
event: the installation the token comes from, and the delivery id redeliveries share.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from typing import Any

from reviewbot.errors import UsageError
from reviewbot.github.event import EventName, PlanAction, plan_event
from reviewbot.serve.queue import ReviewArgs

log = logging.getLogger(__name__)

# The events the App subscribes to and acts on; installation events only get logged.
ACTED_ON = frozenset(
    {
        EventName.PULL_REQUEST,
        EventName.ISSUE_COMMENT,
        EventName.PULL_REQUEST_REVIEW_COMMENT,  # commands written in reviewbot's threads
        EventName.CHECK_SUITE,
    }
)
LOGGED = frozenset({"installation", "installation_repositories", "ping"})


class BadDelivery(Exception):
    """The body is not what GitHub sends for its event: not JSON, or not that event's shape."""


@dataclass(frozen=True, slots=True)
class Intake:
    jobs: tuple[ReviewArgs, ...]
    reason: str  # why nothing is queued, or what is


def decide(event: str, delivery: str, body: bytes, *, app_id: int | None = None) -> Intake:
    """The jobs for one delivery whose signature was verified; raises BadDelivery.

    A check suite of the App itself (`app_id`) is dropped: reviewbot's own check run
    completes it, and re-folding on it would answer each publish with another.
    """
    try:
        payload = json.loads(body)
    except (ValueError, UnicodeDecodeError) as exc:
        raise BadDelivery(f"the body is not JSON: {exc}") from exc
    if not isinstance(payload, dict):
        raise BadDelivery("the body is not a JSON object")
    if event in LOGGED:
        return Intake((), f"{event} {payload.get('action', '')}: nothing to queue".strip())
    if event not in ACTED_ON:
        return Intake((), f"reviewbot does not act on {event or 'unnamed'} events")
    if event == "check_suite" and app_id is not None and _suite_app(payload) == app_id:
        return Intake((), "check_suite of reviewbot's own check run: nothing to re-fold")
    try:
        plan = plan_event(event, payload)
    except UsageError as exc:
        raise BadDelivery(str(exc)) from exc
    if plan.action is PlanAction.SKIP or plan.repo is None:
        return Intake((), plan.reason)
    numbers = plan.numbers if plan.action is PlanAction.REFOLD else (plan.number,)
    installation = _installation(payload)
    jobs = tuple(
        ReviewArgs(
            delivery=delivery,
            event=event,
            installation=installation,
            repo=plan.repo,
            number=number,
            head_sha=plan.head_sha,
        )
        for number in numbers
        if number is not None
    )
    return Intake(jobs, plan.reason if jobs else f"{event}: the event names no pull request")


def _suite_app(payload: dict[str, Any]) -> object:
    suite = payload.get("check_suite")
    app = suite.get("app") if isinstance(suite, dict) else None
    return app.get("id") if isinstance(app, dict) else None


def _installation(payload: dict[str, Any]) -> int:
    found = payload.get("installation")
    number = found.get("id") if isinstance(found, dict) else None
    if not isinstance(number, int) or isinstance(number, bool) or number < 1:
        raise BadDelivery("the delivery names no installation (is this an App's webhook?)")
    return number
