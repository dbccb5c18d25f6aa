"""The composition root: builds the real clients from settings and runs one job.

Everything else receives its collaborators as arguments; this is the one module
that wires PyGithub, gitpython and the Anthropic client together. The flows:

    review_pull      a PR URL: fetch → checkout → review → publish
    review_local     the current repository against a base ref, no GitHub at all
    run_event        GITHUB_EVENT_NAME + GITHUB_EVENT_PATH → review, refold or skip
    review_reference stage two of the fork-safe setup: the PR named by stage one's file
    save_reference   stage one: write the PR reference for stage two

Must not: parse flags or print (cli.py and the `emit` callback do), or decide a
verdict (review.py).
"""

from __future__ import annotations

import logging
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from reviewbot.agent.client import AnthropicClient
from reviewbot.agent.model import ModelClient
from reviewbot.agent.progress import Progress
from reviewbot.config import CONFIG_FILE, ReviewConfig
from reviewbot.errors import AuthError, ReviewbotError, UsageError
from reviewbot.event import EventPlan, PlanAction, plan_event_json
from reviewbot.incremental.plan import ReviewPlan, plan_review, wanted_since
from reviewbot.publish.github import GitHubPublisher
from reviewbot.publish.seal import Sealer
from reviewbot.report import Report
from reviewbot.review import Agents, refold, review_snapshot
from reviewbot.settings import Settings
from reviewbot.sources.ci import ci_axis
from reviewbot.sources.git_repo import local_snapshot, pr_checkout, uncommitted
from reviewbot.sources.github import (
    PUBLIC_HOST,
    GitHubClient,
    PRRef,
    PullRequestInfo,
    fetch_base_config,
    fetch_ci_checks,
    fetch_login,
    fetch_permission,
    fetch_pull_request,
    fetch_snapshot,
    make_client,
    parse_pr_url,
)
from reviewbot.sources.snapshot import PRSnapshot
from reviewbot.tools.ask_user import NoOperator, Operator
from reviewbot.verdict.axes import AxisResult, Outcome
from reviewbot.verdict.lattice import Verdict

log = logging.getLogger(__name__)

ACTIONS_BOT = "github-actions[bot]"
REFERENCE_FILE = "reviewbot-pr.json"
WRITERS = frozenset({"admin", "maintain", "write"})
FORK_HINT = (
    "fork PR without secrets: GitHub withholds them on `pull_request` from forks, so the "
    "review axis is not_run and the verdict is Hold. To review forks safely, use the two-stage "
    "workflows (examples/workflows/reviewbot-snapshot.yml and reviewbot-review.yml)"
)
NO_KEY_HINT = (
    "ANTHROPIC_API_KEY is not set: no model ran, so the reviewer axes are not_run and the "
    "verdict is at least Hold. Set ANTHROPIC_API_KEY (a repository secret in GitHub Actions)"
)
LEFT_OUT_HINT = (
    "{count} uncommitted change(s) are not in this review (it covers the commits up to HEAD); "
    "pass --worktree to review the working tree against the base"
)

Emit = Callable[[Report, PRSnapshot | None], None]


@dataclass(frozen=True, slots=True, kw_only=True)
class Job:
    """What to do, as the CLI parsed it."""

    progress: Progress
    post: bool = False
    model: str | None = None
    config_path: str = CONFIG_FILE
    config_required: bool = False  # an explicit --config: a missing file is an error
    operator: Operator = field(default_factory=NoOperator)


@dataclass(frozen=True, slots=True, kw_only=True)
class RunOutcome:
    """What a run produced: a report, or the reason nothing was reviewed."""

    report: Report | None = None
    skipped: str | None = None
    notes: tuple[str, ...] = ()


class PRReference(BaseModel):
    """Stage one → stage two of the fork-safe setup. Untrusted: stage two re-checks all of it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    repo: str = Field(pattern=r"^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$", max_length=200)
    number: int = Field(ge=1)
    head_sha: str = Field(pattern=r"^[0-9a-f]{40}$")


# ---------------------------------------------------------------- building blocks


def model_client(settings: Settings) -> ModelClient | None:
    """The Anthropic client, or None without a key (the reviewer axes are then not_run)."""
    if settings.anthropic_api_key is None:
        return None
    return AnthropicClient(settings.anthropic_api_key, base_url=settings.anthropic_base_url)


def github_client(ref: PRRef, settings: Settings) -> GitHubClient:
    return make_client(ref.api_url, settings.github_token)


@dataclass(frozen=True, slots=True, kw_only=True)
class GitHub:
    """One run's GitHub connection and the account it posts as, made once per run."""

    client: GitHubClient
    login: str
    # The permission API's answers, asked once per account per run (/review, /confirm, /dismiss);
    # a lookup that failed is kept too, with its error, so it is not asked again per command.
    permissions: dict[tuple[str, str], str | ReviewbotError] = field(default_factory=dict)

    def permission(self, repo: str, login: str) -> str:
        key = (repo, login.casefold())
        if key not in self.permissions:
            try:
                self.permissions[key] = fetch_permission(self.client, repo, login)
            except ReviewbotError as exc:
                log.warning("cannot check %s's permission on %s: %s", login, repo, exc)
                self.permissions[key] = exc
        answer = self.permissions[key]
        if isinstance(answer, ReviewbotError):
            raise answer
        return answer

    def is_writer(self, repo: str, login: str) -> bool:
        """Write access according to the permission API; an answer it cannot give is a no."""
        try:
            return self.permission(repo, login) in WRITERS
        except ReviewbotError:
            return False  # logged with its reason when the lookup failed


@contextmanager
def connect(ref: PRRef, settings: Settings) -> Iterator[GitHub]:
    """The run's GitHub client, closed at the end (no socket outlives the run)."""
    client = github_client(ref, settings)
    try:
        # Markers are trusted only in comments by the account we post as: the configured
        # login (a GitHub App's `slug[bot]`), else the token's own login, else the Actions
        # bot (a GITHUB_TOKEN may not ask who it is).
        asked = fetch_login(client) if settings.github_token and not settings.bot_login else None
        yield GitHub(client=client, login=settings.bot_login or asked or ACTIONS_BOT)
    finally:
        client.close()


def _base_config(client: GitHubClient, info: PullRequestInfo, job: Job) -> ReviewConfig:
    return fetch_base_config(client, info, path=job.config_path, required=job.config_required)


def _configured(config: ReviewConfig, job: Job) -> ReviewConfig:
    return config if job.model is None else config.model_copy(update={"model": job.model})


@contextmanager
def _agents(settings: Settings, job: Job) -> Iterator[Agents]:
    """What the agents need; the model client is closed when the review is done."""
    client = model_client(settings)
    try:
        yield Agents(
            client=client, operator=job.operator, redactor=settings.redactor, progress=job.progress
        )
    finally:
        if client is not None:
            client.close()


def _ref_of(repo: str, number: int, settings: Settings) -> PRRef:
    # Through the URL parser, so an event's PR gets exactly the API URL a pasted URL would.
    web = (settings.github_server_url or f"https://{PUBLIC_HOST}").rstrip("/")
    return parse_pr_url(f"{web}/{repo}/pull/{number}", api_url=settings.github_api_url)


# ---------------------------------------------------------------- a PR on GitHub


def review_pull(url: str, settings: Settings, job: Job, emit: Emit) -> RunOutcome:
    ref = parse_pr_url(url, api_url=settings.github_api_url)
    with connect(ref, settings) as github:
        return _review(github, ref, settings, job, emit)


def _review(
    github: GitHub,
    ref: PRRef,
    settings: Settings,
    job: Job,
    emit: Emit,
    *,
    expect_head: str | None = None,
    check_fork: bool = True,
    actor: str | None = None,
) -> RunOutcome:
    client = github.client
    info = fetch_pull_request(client, ref)
    config = _configured(_base_config(client, info, job), job)
    refusal = _why_not(github, info, config, expect_head=expect_head, actor=actor)
    if refusal is not None:
        return RunOutcome(skipped=refusal)
    publisher = _publisher(github, ref, config, settings, author=info.author)
    prior = publisher.load_prior_state()
    with pr_checkout(
        info.clone_url,
        number=ref.number,
        head_sha=info.head_sha,
        token=settings.github_token,
        workspace=settings.workspace,
        # An incremental review needs the last reviewed head in the clone's history.
        since=wanted_since(prior, config, info.head_sha),
        commits=info.commits,
    ) as path:
        # The publisher's reads of the PR's comments double as the model's discussion context.
        snapshot = fetch_snapshot(
            client, info, checkout=path, config=config, comments=publisher.discussion()
        )
        ci = _ci(client, info, config, settings)
        plan = plan_review(snapshot, prior)
        with _agents(settings, job) as agents:
            report = review_snapshot(snapshot, agents=agents, ci=ci, prior=prior, plan=plan)
        fork_without_secrets = check_fork and snapshot.fork and agents.client is None
        notes: tuple[str, ...] = ()
        if fork_without_secrets:
            notes = (FORK_HINT,)
        elif agents.client is None:
            notes = (NO_KEY_HINT,)
        if job.post and fork_without_secrets:
            notes += ("not posting: a fork PR's token on `pull_request` is read-only",)
        elif job.post and (moved := _moved_on(client, info)) is not None:
            notes += (moved,)
        elif job.post:
            report = report.model_copy(update={"published": publisher.publish(report, snapshot)})
        emit(report, snapshot)
        return RunOutcome(report=report, notes=notes)


def _moved_on(client: GitHubClient, info: PullRequestInfo) -> str | None:
    """Why nothing is posted when the PR's head moved during the review (None: it did not).

    The review and the check run would name the reviewed SHA (never the new head), but the
    summary comment and the resolving of earlier findings belong to the PR as it is now: a
    late run of an older head would overwrite the newer head's summary and resolve its
    findings. The newer head's own run (a push starts one) reviews and publishes.
    """
    now = fetch_pull_request(client, info.ref).head_sha
    if now == info.head_sha:
        return None
    return (
        f"not posting: {info.ref} moved to {now[:12]} while {info.head_sha[:12]} was reviewed; "
        "the review of the older head is in the report, and the newer head gets its own review"
    )


def _why_not(
    github: GitHub,
    info: PullRequestInfo,
    config: ReviewConfig,
    *,
    expect_head: str | None,
    actor: str | None,
) -> str | None:
    """Why this PR is not reviewed now (None: review it): actor, moved head, draft."""
    ref = info.ref
    if actor is not None and actor != info.author:
        refusal = _not_a_writer(github, ref, actor)
        if refusal:
            return refusal
    if expect_head is not None and info.head_sha != expect_head:
        return (
            f"{ref} moved to {info.head_sha[:12]} after {expect_head[:12]} was pushed; "
            "the newer push is reviewed by its own run"
        )
    if info.draft and not config.publish.review_drafts:
        return f"{ref} is a draft (set publish.review_drafts = true to review drafts)"
    return None


def _publisher(
    github: GitHub, ref: PRRef, config: ReviewConfig, settings: Settings, *, author: str | None
) -> GitHubPublisher:
    secret = settings.seal_secret
    return GitHubPublisher(
        github.client,
        ref.full_name,
        ref.number,
        bot_login=github.login,
        config=config.publish,
        redactor=settings.redactor,
        sealer=Sealer.of(secret, repo=ref.full_name, number=ref.number) if secret else None,
        pr_author=author,
        is_writer=lambda login: github.is_writer(ref.full_name, login),
    )


def _ci(
    client: GitHubClient, info: PullRequestInfo, config: ReviewConfig, settings: Settings
) -> AxisResult:
    """The CI axis; a token that may not read checks makes it not_run, never passed."""
    try:
        checks = fetch_ci_checks(client, info.ref.full_name, info.head_sha)
    except AuthError as exc:
        gated = config.ci.gated or bool(config.ci.gated_checks)
        return AxisResult(name="ci", gated=gated, outcome=Outcome.NOT_RUN, detail=str(exc))
    # This workflow run's own jobs (reviewbot's among them) are in progress while it runs:
    # they never count. Check runs are named after a job's `name:`, so match the run id.
    own = f"/actions/runs/{settings.run_id}/" if settings.run_id else None
    counted = [c for c in checks if own is None or own not in (c.url or "")]
    return ci_axis(counted, config.ci)


def refold_pull(github: GitHub, ref: PRRef, settings: Settings, job: Job, emit: Emit) -> RunOutcome:
    """check_suite completed: re-judge the nodes already on the PR; no model request."""
    client = github.client
    info = fetch_pull_request(client, ref)
    # The snapshot gives the config and the diff (for placement), not files for agents: its
    # checkout is an empty folder, so nothing can read the wrong tree's files.
    config = _configured(_base_config(client, info, job), job)
    publisher = _publisher(github, ref, config, settings, author=info.author)
    prior = publisher.load_prior_state()
    with tempfile.TemporaryDirectory(prefix="reviewbot-refold-") as empty:
        snapshot = fetch_snapshot(
            client, info, checkout=Path(empty), config=config, comments=publisher.discussion()
        )
        report = refold(snapshot, prior=prior, ci=_ci(client, info, config, settings))
        if job.post:
            report = report.model_copy(update={"published": publisher.publish(report, snapshot)})
        emit(report, snapshot)
        return RunOutcome(report=report)


# ---------------------------------------------------------------- a local repository


def review_local(
    repo: Path,
    *,
    base: str | None,
    head: str,
    settings: Settings,
    job: Job,
    emit: Emit,
    worktree: bool = False,
) -> RunOutcome:
    """`base` None: the repository's default branch; `worktree`: the working tree, not HEAD."""
    left_out = uncommitted(repo) if head == "HEAD" and not worktree else 0
    notes = (LEFT_OUT_HINT.format(count=left_out),) if left_out else ()
    with local_snapshot(
        repo,
        base=base,
        head=head,
        worktree=worktree,
        config_path=job.config_path,
        config_required=job.config_required,
    ) as snapshot:
        if not snapshot.diff.files:  # nothing changed: no model request, nothing to print
            what = "the working tree" if worktree else head
            return RunOutcome(
                skipped=f"no changes between {snapshot.base_ref} and {what}", notes=notes
            )
        snapshot = replace(snapshot, config=_configured(snapshot.config, job))
        with _agents(settings, job) as agents:
            plan = ReviewPlan.full("a local review has no earlier review", config=snapshot.config)
            report = review_snapshot(snapshot, agents=agents, plan=plan)
        emit(report, snapshot)
        return RunOutcome(report=report, notes=notes + (() if agents.client else (NO_KEY_HINT,)))


# ---------------------------------------------------------------- GitHub Actions events


def run_event(settings: Settings, job: Job, emit: Emit) -> RunOutcome:
    """Review, refold or skip the PR(s) of the event GitHub Actions describes."""
    plan = read_event(settings)
    log.info("event %s: %s — %s", plan.trigger, plan.action.value, plan.reason)
    if plan.action is PlanAction.SKIP or plan.repo is None:
        return RunOutcome(skipped=plan.reason)
    single = () if plan.number is None else (plan.number,)
    numbers = plan.numbers if plan.action is PlanAction.REFOLD else single
    if not numbers:
        return RunOutcome(skipped=f"{plan.trigger}: the event names no single pull request")
    refs = [_ref_of(plan.repo, n, settings) for n in numbers]
    with connect(refs[0], settings) as github:  # one repository: one client for every PR
        if plan.action is PlanAction.REFOLD:
            # A check suite may name several PRs: each is re-folded and published, and the
            # run answers with the strictest, so a Block on any of them is not hidden.
            outcomes = [refold_pull(github, ref, settings, job, emit) for ref in refs]
            return max(outcomes, key=_strictness)
        ref = refs[0]
        if plan.trigger == "issue_comment":
            # /review counts only from someone who may write: re-checked through the API.
            refusal = _not_a_writer(github, ref, plan.actor)
            if refusal:
                return RunOutcome(skipped=refusal)
        return _review(github, ref, settings, job, emit, expect_head=plan.head_sha)


def _strictness(outcome: RunOutcome) -> Verdict:
    return Verdict.parse(outcome.report.verdict) if outcome.report else Verdict.SHIP


def read_event(settings: Settings) -> EventPlan:
    if settings.event_name is None or settings.event_path is None:
        raise UsageError(
            "--github-event needs GITHUB_EVENT_NAME and GITHUB_EVENT_PATH (set by GitHub Actions)"
        )
    try:
        text = settings.event_path.read_text(encoding="utf-8")
    except OSError as exc:
        raise UsageError(
            f"cannot read GITHUB_EVENT_PATH {settings.event_path}: {exc.strerror}"
        ) from exc
    return plan_event_json(settings.event_name, text)


def _not_a_writer(github: GitHub, ref: PRRef, actor: str | None) -> str | None:
    """The API's word on the commenter's permission: the payload's association is a hint only."""
    if actor is None:
        return "the comment has no author"
    permission = github.permission(ref.full_name, actor)
    if permission not in WRITERS:
        return f"/review by {actor} ignored: they have {permission} access, and write access is required"
    return None


# ---------------------------------------------------------------- the fork-safe two stages


def save_reference(out: Path, settings: Settings) -> PRReference:
    """Stage one (no secrets): write which PR and head this run saw, for stage two."""
    plan = read_event(settings)
    if plan.repo is None or plan.number is None or plan.head_sha is None:
        raise UsageError(f"{plan.trigger}: the event names no single pull request head to review")
    reference = PRReference(repo=plan.repo, number=plan.number, head_sha=plan.head_sha)
    out.mkdir(parents=True, exist_ok=True)
    (out / REFERENCE_FILE).write_text(reference.model_dump_json(indent=2) + "\n", encoding="utf-8")
    return reference


def review_reference(folder: Path, settings: Settings, job: Job, emit: Emit) -> RunOutcome:
    """Stage two (secrets): review the PR stage one named, after re-checking everything it says.

    The file comes from an untrusted run: it only names a PR and a head. The PR is read
    again from the API, its head must equal the named head and the head of the
    `workflow_run` event (when there is one), and no PR code is ever executed.
    """
    reference = _read_reference(folder / REFERENCE_FILE)
    actor: str | None = None
    if settings.event_name == "workflow_run":
        plan = read_event(settings)
        # Stage one ran in this same repository: a snapshot naming another one was forged.
        if plan.repo is not None and plan.repo != reference.repo:
            raise UsageError(
                f"the snapshot names {reference.repo} but this workflow runs in {plan.repo}"
            )
        if plan.head_sha is not None and plan.head_sha != reference.head_sha:
            raise UsageError(
                f"the snapshot names head {reference.head_sha[:12]} but the workflow run built {plan.head_sha[:12]}"
            )
        actor = plan.actor  # who triggered stage one: the PR's author or someone with write access
    ref = _ref_of(reference.repo, reference.number, settings)
    with connect(ref, settings) as github:
        return _review(
            github,
            ref,
            settings,
            job,
            emit,
            expect_head=reference.head_sha,
            check_fork=False,
            actor=actor,
        )


def _read_reference(path: Path) -> PRReference:
    try:
        return PRReference.model_validate_json(path.read_bytes())
    except OSError as exc:
        raise UsageError(f"cannot read the PR snapshot {path}: {exc.strerror}") from exc
    except ValidationError as exc:
        first = exc.errors(include_url=False)[0]
        where = ".".join(map(str, first["loc"])) or "file"
        raise UsageError(f"the PR snapshot {path} is not valid: {where}: {first['msg']}") from exc
