"""GitHub Actions events → what reviewbot should do about them, as pure code.

Owns: the pydantic models of the webhook payload fields reviewbot reads (for
`pull_request`, `pull_request_target`, `issue_comment`, `pull_request_review_comment`,
`check_suite` and `workflow_run`) and `plan_event`, which turns an event name and its payload
into one frozen `EventPlan`: review, refold (re-fold the verdict from stored state, no
model call), answer a command written in the PR (`/ask`, `/help`, …: the command is parsed
by reviewbot/commands/grammar.py) or skip — always with a one-line reason.

Must not: read the environment or files (the caller reads GITHUB_EVENT_NAME and
GITHUB_EVENT_PATH and passes their content), call any API, or make a permission
decision it cannot check from the payload. `author_association` is a hint GitHub
puts in the payload; the integrator confirms write access through the API
(`GET /repos/{o}/{r}/collaborators/{user}/permission`) before spending on a model.

Webhook payloads carry hundreds of fields, so these models use extra="ignore"
(the house default of extra="forbid" would reject every real payload) and
validate only the fields used here — strictly: a number is a JSON integer (never
`7.0`, `"7"` or `true`) and a flag a JSON boolean, as GitHub's schema says. The
event file is read as strict JSON too: UTF-8 only, no `NaN`, no integer longer than
`MAX_DIGITS`, nothing nested deeper than Python's parser can take. Anything else is
one `UsageError` line, never a traceback.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Annotated, Any, TypeVar

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError

from reviewbot.commands.grammar import Command, Place, Unknown, Verb, Written, parse
from reviewbot.errors import UsageError
from reviewbot.nodes.boundary import explain
from reviewbot.sources.pr_ref import is_login, parse_repo_name

REVIEW_COMMAND = "/review"
DECISION_VERBS = frozenset({Verb.CONFIRM, Verb.DISMISS})
REVIEW_ACTIONS = frozenset({"opened", "synchronize", "reopened", "ready_for_review"})
TRUSTED_ASSOCIATIONS = frozenset({"OWNER", "MEMBER", "COLLABORATOR"})
MAX_DIGITS = 30  # GitHub's ids and numbers have at most 20; Python refuses 4,300 with a ValueError
PR_TRIGGERS = frozenset({"pull_request", "pull_request_target"})


class EventName(StrEnum):
    """The GitHub events reviewbot acts on (`GITHUB_EVENT_NAME`); any other is skipped."""

    PULL_REQUEST = "pull_request"
    PULL_REQUEST_TARGET = "pull_request_target"
    ISSUE_COMMENT = "issue_comment"
    PULL_REQUEST_REVIEW_COMMENT = "pull_request_review_comment"
    CHECK_SUITE = "check_suite"
    WORKFLOW_RUN = "workflow_run"


class PlanAction(StrEnum):
    """What to do for an event."""

    REVIEW = "review"  # run the reviewers (model calls) and publish
    REFOLD = "refold"  # re-fold the verdict from what is on the PR (CI changed); no model call
    ANSWER = "answer"  # answer a command written in the PR (`command`); reviewbot/talk/ does
    SKIP = "skip"  # nothing to do; the reason says why


@dataclass(frozen=True, slots=True, kw_only=True)
class EventPlan:
    """The decision for one event. `numbers` lists every PR it applies to.

    `number` is set when exactly one PR is concerned (a `check_suite` can name
    several; iterate `numbers`). `head_sha` is None when the
    payload does not carry them (an `issue_comment` only names the PR).
    """

    action: PlanAction
    trigger: str
    reason: str
    repo: str | None = None
    number: int | None = None
    numbers: tuple[int, ...] = ()
    head_sha: str | None = None
    actor: str | None = None
    # ANSWER: what was asked, where and by whom; REFOLD: the /confirm or /dismiss, if one
    command: Command | Unknown | None = None
    # A thread reply on a PR whose head is another repository's: in Actions its token is
    # read-only (GitHub's rule for forks), so nothing can be answered there.
    from_fork: bool = False


# --- payload models: only the fields we read -------------------------------------------


class _Payload(BaseModel):
    # strict: `"7"`, `7.0` and `true` are not the PR number 7 (nor `true` #1). Lists are
    # `Field(strict=False)` only so a JSON array may fill a tuple; their items stay strict.
    model_config = ConfigDict(frozen=True, extra="ignore", strict=True)


def _login(text: str) -> str:
    if not is_login(text):
        raise ValueError("is not a GitHub login")
    return text


# Checked before any lookup: `x/../maintainer` is no account, so never asked about.
Login = Annotated[str, AfterValidator(_login)]


class _User(_Payload):
    login: Login
    type: str = "User"


class _Repo(_Payload):
    id: int
    full_name: str


class _Head(_Payload):
    sha: str


class _PullRequest(_Payload):
    number: int = Field(ge=1)
    state: str
    head: _Head


class _PullRequestEvent(_Payload):
    action: str
    pull_request: _PullRequest
    repository: _Repo
    sender: _User


class _IssuePullLink(_Payload):
    url: str


class _Issue(_Payload):
    number: int = Field(ge=1)
    state: str
    pull_request: _IssuePullLink | None = None  # present only when the issue is a PR


class _Comment(_Payload):
    id: int = 0  # absent from older recorded payloads; every real comment has one
    body: str | None
    user: _User
    author_association: str


class _ReviewComment(_Comment):
    in_reply_to_id: int | None = None  # None: the comment starts a thread


class _HeadOfThread(_Head):
    repo: _Repo | None = None  # null: the fork was deleted


class _PullRequestOfThread(_PullRequest):
    head: _HeadOfThread


class _ReviewCommentEvent(_Payload):
    action: str
    comment: _ReviewComment
    pull_request: _PullRequestOfThread
    repository: _Repo

    @property
    def from_fork(self) -> bool:
        head = self.pull_request.head
        given = "repo" in head.model_fields_set
        return given and (head.repo is None or head.repo.id != self.repository.id)


class _IssueCommentEvent(_Payload):
    action: str
    issue: _Issue
    comment: _Comment
    repository: _Repo


class _PullRequestStub(_Payload):
    number: int = Field(ge=1)


class _CheckSuite(_Payload):
    head_sha: str
    conclusion: str | None
    pull_requests: tuple[_PullRequestStub, ...] = Field(strict=False)


class _CheckSuiteEvent(_Payload):
    action: str
    check_suite: _CheckSuite
    repository: _Repo


class _WorkflowRun(_Payload):
    name: str | None = None
    event: str
    conclusion: str | None
    head_sha: str
    pull_requests: tuple[_PullRequestStub, ...] = Field(default=(), strict=False)
    triggering_actor: _User | None = None


class _WorkflowRunEvent(_Payload):
    action: str
    workflow_run: _WorkflowRun
    repository: _Repo


_P = TypeVar("_P", bound=_Payload)


def _parse(model: type[_P], name: str, payload: Mapping[str, Any]) -> _P:
    try:
        return model.model_validate(dict(payload))
    except ValidationError as exc:
        problem = explain(exc, subject="payload", limit=1)
        raise UsageError(f"the event payload does not match a {name} event: {problem}") from exc


# --- planning ---------------------------------------------------------------------------


def plan_event(name: str, payload: Mapping[str, Any]) -> EventPlan:
    """Decide what to do for the event `name` with this payload.

    Never raises for an event we do not handle (that is a skip); raises
    UsageError (one line) when the payload does not match the event name.
    """
    if not isinstance(payload, Mapping):
        raise UsageError(f"the {name} event payload must be a JSON object")
    planner = _PLANNERS.get(name)
    if planner is None:
        return EventPlan(
            action=PlanAction.SKIP, trigger=name, reason=f"reviewbot does not act on {name} events"
        )
    return planner(name, payload)


def plan_event_json(name: str, raw: str | bytes) -> EventPlan:
    """`plan_event` over the raw content of GITHUB_EVENT_PATH; anything but strict JSON in
    UTF-8 is a UsageError."""
    return plan_event(name, load_event_json(name, raw))


def load_event_json(name: str, raw: str | bytes) -> Any:
    """The event file's JSON value: UTF-8 (not UTF-16, not gzip), no NaN or Infinity, no
    integer of more than `MAX_DIGITS` digits, nesting within the parser's reach."""
    try:
        text = raw.decode("utf-8") if isinstance(raw, bytes) else raw
    except UnicodeDecodeError as exc:
        raise UsageError(
            f"the {name} event payload is not UTF-8 text (byte {exc.start}: {exc.reason})"
        ) from exc
    try:
        return json.loads(text, parse_constant=_no_constant, parse_int=_bounded_int)
    except RecursionError:
        raise UsageError(f"the {name} event payload is nested too deeply to be an event") from None
    except ValueError as exc:  # JSONDecodeError, and the refusals below
        raise UsageError(f"the {name} event payload is not valid JSON: {exc}") from exc


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _bounded_int(digits: str) -> int:
    if len(digits.lstrip("-")) > MAX_DIGITS:
        raise ValueError(f"an integer of {len(digits.lstrip('-')):,} digits is not a GitHub value")
    return int(digits)


def in_repository(plan: EventPlan, own: str | None, *, in_actions: bool) -> EventPlan:
    """`plan` about the repository the workflow runs in (`own`: GITHUB_REPOSITORY)."""
    checked = own_repository(
        plan.repo, own, in_actions=in_actions, named_by=f"the {plan.trigger} event"
    )
    return replace(plan, repo=checked)


def own_repository(
    named: str | None, own: str | None, *, in_actions: bool, named_by: str
) -> str | None:
    """The repository to act on when `named_by` names `named` and GITHUB_REPOSITORY is `own`.

    In GitHub Actions the repository is GITHUB_REPOSITORY, never the payload's word: a
    payload (or a stage-one snapshot) naming another one is refused, so nothing is read
    from or written to a repository the workflow does not run in. Outside Actions (an
    event replayed by hand) the payload's name is used. Both are parsed strictly.
    """
    named = parse_repo_name(named, what=f"the repository of {named_by}") if named else None
    if own is None:
        if in_actions:
            raise UsageError("GITHUB_REPOSITORY is not set: GitHub Actions sets it for every job")
        return named
    own = parse_repo_name(own, what="GITHUB_REPOSITORY")
    if named is not None and named.casefold() != own.casefold():
        raise UsageError(
            f"{named_by} names the repository {named}, but this workflow runs in {own} "
            "(GITHUB_REPOSITORY): reviewbot acts only on its own repository"
        )
    return own if named is not None else None


def _skip(trigger: str, reason: str, **known: Any) -> EventPlan:
    return EventPlan(action=PlanAction.SKIP, trigger=trigger, reason=reason, **known)


def _plan_pull_request(name: str, payload: Mapping[str, Any]) -> EventPlan:
    event = _parse(_PullRequestEvent, name, payload)
    pr = event.pull_request
    known: dict[str, Any] = {
        "repo": event.repository.full_name,
        "number": pr.number,
        "numbers": (pr.number,),
        "head_sha": pr.head.sha,
        "actor": event.sender.login,
    }
    if event.action not in REVIEW_ACTIONS:
        return _skip(name, f"{name} {event.action}: nothing to review", **known)
    if pr.state != "open":
        return _skip(name, f"pull request #{pr.number} is {pr.state}", **known)
    # A draft is planned like any PR: the base branch's `publish.review_drafts` decides.
    return EventPlan(
        action=PlanAction.REVIEW,
        trigger=name,
        reason=f"{name} {event.action} on #{pr.number}",
        **known,
    )


def _plan_issue_comment(name: str, payload: Mapping[str, Any]) -> EventPlan:
    event = _parse(_IssueCommentEvent, name, payload)
    issue, comment = event.issue, event.comment
    author = comment.user.login
    known: dict[str, Any] = {
        "repo": event.repository.full_name,
        "number": issue.number,
        "numbers": (issue.number,),
        "actor": author,
    }
    if event.action != "created":
        return _skip(
            name, f"comment {event.action}: only new comments can ask for a review", **known
        )
    if issue.pull_request is None:
        return _skip(name, f"#{issue.number} is an issue, not a pull request", **known)
    written = Written(place=Place.PR_COMMENT, author=author, comment_id=comment.id)
    command = parse(comment.body, written)
    if command is None:
        return _skip(name, "the comment is not a command (it does not start with a /word)", **known)
    if isinstance(command, Command) and command.verb is Verb.REVIEW:
        return _plan_review_command(name, event, known)
    return _plan_command(name, command, comment, issue.state, known)


def _plan_review_command(name: str, event: _IssueCommentEvent, known: dict[str, Any]) -> EventPlan:
    issue, comment = event.issue, event.comment
    author = comment.user.login
    if comment.user.type == "Bot":
        return _skip(name, f"{REVIEW_COMMAND} from the bot {author} is ignored", **known)
    if comment.author_association not in TRUSTED_ASSOCIATIONS:
        return _skip(
            name,
            f"{REVIEW_COMMAND} from {author} ({comment.author_association}) is ignored: "
            "only an OWNER, MEMBER or COLLABORATOR may ask",
            **known,
        )
    if issue.state != "open":
        return _skip(name, f"pull request #{issue.number} is {issue.state}", **known)
    return EventPlan(
        action=PlanAction.REVIEW,
        trigger=name,
        reason=f"{REVIEW_COMMAND} by {author} ({comment.author_association}) on #{issue.number}",
        **known,
    )


def _plan_command(
    name: str, command: Command | Unknown, comment: _Comment, state: str, known: dict[str, Any]
) -> EventPlan:
    """Every command but `/review`: who may use it is checked through the API when it is
    answered (reviewbot/talk/), so the payload's `author_association` decides nothing here."""
    word = command.word if isinstance(command, Unknown) else f"/{command.verb.value}"
    author = comment.user.login
    if comment.user.type == "Bot":  # reviewbot itself, or any other bot: never a command
        return _skip(name, f"{word} from the bot {author} is ignored", **known)
    if state != "open":
        return _skip(name, f"pull request #{known['number']} is {state}", **known)
    if isinstance(command, Command) and command.verb in DECISION_VERBS:
        # Applied by re-folding the verdict from what is on the PR: no model request.
        return EventPlan(
            action=PlanAction.REFOLD,
            trigger=name,
            reason=f"{word} by {author} on #{known['number']}: re-fold the verdict",
            command=command,
            **known,
        )
    return EventPlan(
        action=PlanAction.ANSWER,
        trigger=name,
        reason=f"{word} by {author} on #{known['number']}",
        command=command,
        **known,
    )


def _plan_review_comment(name: str, payload: Mapping[str, Any]) -> EventPlan:
    """A reply in a review thread: a command there is about the thread's finding."""
    event = _parse(_ReviewCommentEvent, name, payload)
    comment, pr = event.comment, event.pull_request
    known: dict[str, Any] = {
        "repo": event.repository.full_name,
        "number": pr.number,
        "numbers": (pr.number,),
        "head_sha": pr.head.sha,
        "actor": comment.user.login,
        "from_fork": event.from_fork,
    }
    if event.action != "created":
        return _skip(name, f"review comment {event.action}: only new replies are read", **known)
    if comment.in_reply_to_id is None:
        return _skip(name, "the review comment starts a thread: commands are replies", **known)
    written = Written(
        place=Place.THREAD_REPLY,
        author=comment.user.login,
        comment_id=comment.id,
        thread_root=comment.in_reply_to_id,
    )
    command = parse(comment.body, written)
    if command is None:
        return _skip(name, "the reply is not a command (it does not start with a /word)", **known)
    if isinstance(command, Command) and command.verb is Verb.REVIEW:
        return _skip(name, f"write {REVIEW_COMMAND} in the PR's discussion, not a thread", **known)
    return _plan_command(name, command, comment, pr.state, known)


def _stub_numbers(prs: tuple[_PullRequestStub, ...]) -> tuple[int, ...]:
    return tuple(sorted({pr.number for pr in prs}))


def _plan_check_suite(name: str, payload: Mapping[str, Any]) -> EventPlan:
    event = _parse(_CheckSuiteEvent, name, payload)
    suite = event.check_suite
    numbers = _stub_numbers(suite.pull_requests)
    known: dict[str, Any] = {
        "repo": event.repository.full_name,
        "head_sha": suite.head_sha,
        "numbers": numbers,
        "number": numbers[0] if len(numbers) == 1 else None,
    }
    if event.action != "completed":
        return _skip(name, f"check_suite {event.action}: the CI result is not final", **known)
    if not numbers:
        # GitHub leaves pull_requests empty for PRs from forks.
        return _skip(
            name, f"the check suite on {suite.head_sha[:7]} names no pull request", **known
        )
    return EventPlan(
        action=PlanAction.REFOLD,
        trigger=name,
        reason=f"CI finished ({suite.conclusion}) on {suite.head_sha[:7]}: re-fold the verdict",
        **known,
    )


def _plan_workflow_run(name: str, payload: Mapping[str, Any]) -> EventPlan:
    event = _parse(_WorkflowRunEvent, name, payload)
    run = event.workflow_run
    numbers = _stub_numbers(run.pull_requests)
    known: dict[str, Any] = {
        "repo": event.repository.full_name,
        "head_sha": run.head_sha,
        "numbers": numbers,
        "number": numbers[0] if len(numbers) == 1 else None,
        "actor": run.triggering_actor.login if run.triggering_actor else None,
    }
    label = run.name or "the workflow"
    if event.action != "completed":
        return _skip(name, f"workflow_run {event.action}: wait for the run to complete", **known)
    if run.event not in PR_TRIGGERS:
        return _skip(name, f"{label} ran for a {run.event} event, not a pull request", **known)
    if run.conclusion != "success":
        outcome = run.conclusion or "without a result"
        return _skip(name, f"{label} concluded {outcome}: no snapshot to review", **known)
    # For a fork PR GitHub leaves pull_requests empty: the PR number then comes from
    # the snapshot artifact, which is untrusted and must be matched against head_sha.
    return EventPlan(
        action=PlanAction.REVIEW,
        trigger=name,
        reason=f"{label} succeeded for {run.head_sha[:7]}: review its snapshot",
        **known,
    )


_Planner = Callable[[str, Mapping[str, Any]], EventPlan]

_PLANNERS: dict[str, _Planner] = {
    EventName.PULL_REQUEST: _plan_pull_request,
    EventName.PULL_REQUEST_TARGET: _plan_pull_request,
    EventName.ISSUE_COMMENT: _plan_issue_comment,
    EventName.PULL_REQUEST_REVIEW_COMMENT: _plan_review_comment,
    EventName.CHECK_SUITE: _plan_check_suite,
    EventName.WORKFLOW_RUN: _plan_workflow_run,
}
