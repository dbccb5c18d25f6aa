"""One queued job → the Action's own pipeline (`app.run_plan`), posting as the App installation.

The job re-plans its delivery with `event.plan_event` (the decisions the Action makes: what
to review, the `/review` permission rule, fork safety and drafts are decided further down
the same path), narrows the plan to its PR, and runs it with the installation's token.
Failures are sorted here: a transient one (GitHub unreachable, 5xx or rate limited, an
overloaded or unreachable model) is `RetryLater`; any other is permanent and fails the job.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from reviewbot import app
from reviewbot.agent.progress import SilentProgress
from reviewbot.errors import NetworkError, ReviewbotError
from reviewbot.github.event import PlanAction, plan_event
from reviewbot.github.rest import GitHubRefusal, RateLimited
from reviewbot.redact import Redactor
from reviewbot.results.report import Report
from reviewbot.serve.config import ServeConfig
from reviewbot.serve.queue import RetryLater, ReviewArgs
from reviewbot.serve.tokens import TokenCache
from reviewbot.sources.snapshot import PRSnapshot

log = logging.getLogger(__name__)

Observe = Callable[[str, float, Report | None], None]  # outcome, seconds, the report


@dataclass(frozen=True, slots=True, kw_only=True)
class ReviewJob:
    config: ServeConfig
    tokens: TokenCache
    bot_login: str  # the App's `slug[bot]`: whose earlier comments are reviewbot's
    clients: app.Clients = field(default_factory=app.Clients)
    observe: Observe = lambda outcome, seconds, report: None

    def __call__(
        self, args: ReviewArgs, payload: dict[str, Any], stop: Callable[[], str | None]
    ) -> None:
        started = time.monotonic()
        reports: list[Report] = []
        try:
            kind, outcome = self._run(args, payload, stop, reports.append)
        except ReviewbotError as exc:
            kind = "retry" if transient(exc) else "failed"
            log.warning(
                "delivery %s, %s#%d: %s (%s)", args.delivery, args.repo, args.number, exc, kind
            )
            self.observe(kind, time.monotonic() - started, None)
            if kind == "retry":
                raise RetryLater(str(exc)) from exc
            raise
        log.info("delivery %s, %s#%d: %s", args.delivery, args.repo, args.number, outcome)
        self.observe(kind, time.monotonic() - started, reports[-1] if reports else None)

    def _run(
        self,
        args: ReviewArgs,
        payload: dict[str, Any],
        stop: Callable[[], str | None],
        keep: Callable[[Report], None],
    ) -> tuple[str, str]:
        """(`done` or `skipped`, what happened); a job whose head is no longer the PR's is
        skipped by the pipeline, which asks GitHub for the PR's head first."""
        plan = plan_event(args.event, payload)
        if plan.action is PlanAction.SKIP or plan.repo != args.repo:
            return "skipped", f"skipped: {plan.reason}"
        plan = replace(plan, number=args.number, numbers=(args.number,))
        token = self.tokens.token(args.installation)
        review = self.config.review
        settings = replace(
            review,
            github_token=token,
            bot_login=self.bot_login,
            redactor=Redactor.of([*review.redactor.secrets, token]),
        )

        def emit(report: Report, snapshot: PRSnapshot | None) -> None:
            keep(report)

        job = app.Job(progress=SilentProgress(), post=True, clients=self.clients, stop=stop)
        result = app.run_plan(plan, settings, job, emit)
        if result.report is None:
            said = "command" if result.command else "skipped"  # a command answered, or not
            return "skipped", f"{said}: {result.skipped}"
        notes = "; ".join(result.notes)
        return "done", (
            f"{result.report.verdict.label} ({plan.action.value}){' — ' + notes if notes else ''}"
        )


def transient(exc: ReviewbotError) -> bool:
    """Worth another attempt later: the network, a 5xx, a rate limit; never a refusal."""
    if isinstance(exc, GitHubRefusal):
        return isinstance(exc, RateLimited)
    return isinstance(exc, NetworkError)
