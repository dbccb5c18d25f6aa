"""A command replied in a review thread of a PR from a fork, run by GitHub Actions.

GitHub runs a fork PR's `pull_request_review_comment` workflow with a read-only GITHUB_TOKEN
and no secrets, so reviewbot can answer nothing there: its first write is refused (403). That
refusal's one line then says what to do instead: write the command as a PR comment, which runs
as `issue_comment` in the base repository, with its token and secrets. Only the Action's path
(`app.run_event`) runs inside `fork_thread_advice`: `reviewbot serve` posts with the App's
installation token, which may write to a fork's PR, and runs `app.run_plan` as it is.

Must not: change any other refusal, or its exit code (a refused token: 3).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from reviewbot.commands.grammar import Command, Verb
from reviewbot.github.event import EventName, EventPlan
from reviewbot.github.rest import RefusedAuth

# The same command as a PR comment: there it names the finding by its id.
_AS_PR_COMMENT = {
    Verb.DISMISS: "/dismiss <id> <reason>",
    Verb.CONFIRM: "/confirm <id> [reason]",
    Verb.ASK: "/ask <question>",
}


@contextmanager
def fork_thread_advice(plan: EventPlan) -> Iterator[None]:
    """A write refused (403) while answering a fork PR's thread reply ends with what to do."""
    try:
        yield
    except RefusedAuth as exc:
        if not _fork_thread(plan) or exc.status != 403 or exc.verb in ("GET", "HEAD"):
            raise
        raise RefusedAuth(
            f"GitHub refused {exc.verb} {exc.path} (403): {exc.message} — a reply in a review "
            "thread of a PR from a fork cannot be answered from GitHub Actions (its token is "
            f"read-only): write {_instead(plan)} as a PR comment, which runs as issue_comment "
            "in the base repository",
            status=exc.status,
            message=exc.message,
            verb=exc.verb,
            path=exc.path,
        ) from exc


def _fork_thread(plan: EventPlan) -> bool:
    return plan.from_fork and plan.trigger == EventName.PULL_REQUEST_REVIEW_COMMENT


def _instead(plan: EventPlan) -> str:
    command = plan.command
    usage = _AS_PR_COMMENT.get(command.verb) if isinstance(command, Command) else None
    return f"`{usage}`" if usage else "the command"
