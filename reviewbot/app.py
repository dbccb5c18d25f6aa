"""The composition root: builds the real clients from settings and runs one job.

Everything else receives its collaborators as arguments; this is the one module
that wires PyGithub, gitpython and the Anthropic client together. The flows:

    review_pull      a PR URL: fetch → checkout → review → publish
    review_local     the current repository against a base ref, no GitHub at all
    run_event        GITHUB_EVENT_NAME + GITHUB_EVENT_PATH → review, refold or skip
    review_reference stage two of the fork-safe setup: the PR named by stage one's file
    save_reference   stage one: write the PR reference for stage two

    run              the `ReviewTarget` the CLI parsed → the flow above that reviews it

Must not: parse flags or print (cli.py and the `emit` callback do), decide a verdict
(review/pipeline.py), or hold a rule: who may ask for a review and when it is posted live in
github/admission.py, the fork-safe checks in github/fork_safe.py, the CI axis in sources/ci.py. The
clients are made through `Clients`, so tests pass the fakes' constructors in.
"""

from __future__ import annotations

import logging
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path
from typing import Any

from reviewbot import __version__
from reviewbot.agent.client import AnthropicClient
from reviewbot.agent.messages import ModelClient
from reviewbot.agent.progress import Progress
from reviewbot.config.file import CONFIG_FILE, ReviewConfig
from reviewbot.config.providers import Provider
from reviewbot.config.settings import Settings
from reviewbot.config.target import (
    EventTarget,
    LocalTarget,
    PullTarget,
    ReviewTarget,
    SnapshotTarget,
)
from reviewbot.errors import HeadMoved, ReviewbotError, UsageError
from reviewbot.github import admission, fork_safe, fork_threads
from reviewbot.github.client import make_client
from reviewbot.github.event import (
    EventName,
    EventPlan,
    PlanAction,
    in_repository,
    own_repository,
    plan_event_json,
)
from reviewbot.github.forge import GitHubReader
from reviewbot.github.fork_safe import PRReference
from reviewbot.github.gather import gathered
from reviewbot.github.publisher import GitHubPublisher
from reviewbot.github.reader import (
    PullRequestInfo,
    fetch_base_config,
    fetch_base_learnings,
    fetch_login,
    fetch_permission,
    fetch_pull_request,
)
from reviewbot.github.rest import GitHubClient
from reviewbot.memory.read import Memory, read_memory
from reviewbot.memory.seal import Sealer
from reviewbot.results.plan import FixPlan, SplitProposal
from reviewbot.results.report import PRInfo, Report
from reviewbot.review.pipeline import Agents, pr_info, refold, review_snapshot
from reviewbot.review.pull import review_on_forge
from reviewbot.scope.full import FullScope
from reviewbot.sources.git_repo import local_snapshot, uncommitted
from reviewbot.sources.pr_ref import PUBLIC_HOST, PRRef, parse_pr_url, parse_repo_name
from reviewbot.sources.snapshot import PRSnapshot
from reviewbot.talk.run import answer_command
from reviewbot.tools.ask_user import NoOperator, Operator

log = logging.getLogger(__name__)

ACTIONS_BOT = "github-actions[bot]"
Emit = Callable[[Report, PRSnapshot | None], None]


@dataclass(frozen=True, slots=True, kw_only=True)
class Job:
    """What to do, as the CLI parsed it, and how to make the clients that do it."""

    progress: Progress
    post: bool = False
    model: str | None = None
    config_path: str = CONFIG_FILE
    config_required: bool = False  # an explicit --config: a missing file is an error
    operator: Operator = field(default_factory=NoOperator)
    clients: Clients = field(default_factory=lambda: Clients())
    # Asked right before publishing: a reason to stop (a server's job superseded or shut
    # down) means nothing is posted. The CLI never stops.
    stop: Callable[[], str | None] = lambda: None


@dataclass(frozen=True, slots=True, kw_only=True)
class RunOutcome:
    """What a run produced: a report, or the reason nothing was reviewed.

    A run over several PRs (a `check_suite`) has each PR's own outcome: `reports` holds
    every report (`report` is the strictest, which answers for the run), `failures` each
    PR that failed with its error; the others were still done.
    """

    report: Report | None = None
    skipped: str | None = None
    notes: tuple[str, ...] = ()
    superseded: bool = False  # a push superseded the run (`HeadMoved`): exit 0, no --fail-on
    reports: tuple[Report, ...] = ()
    failures: tuple[tuple[str, ReviewbotError], ...] = ()
    pr: PRInfo | None = None  # with `skipped`: the PR (or branch) that needed no review
    proposal: FixPlan | SplitProposal | None = None  # what a /plan or /split answer posted
    command: bool = False  # `skipped` says what became of a PR command: no review was asked

    @property
    def every_report(self) -> tuple[Report, ...]:
        return self.reports or ((self.report,) if self.report is not None else ())

    def pr_lines(self, redact: Callable[[str], str]) -> list[str]:
        """A run over several PRs says how each ended: its verdict, or its error."""
        verdicts = [
            f"reviewbot: {r.pr.repo}#{r.pr.number}: verdict {r.verdict.label}" for r in self.reports
        ]
        errors = [f"reviewbot: error: {where}: {redact(str(exc))}" for where, exc in self.failures]
        return verdicts + errors

    def skipped_report(self) -> Report:
        """`--format json` of a run that reviewed nothing: a report that says so."""
        pr = self.pr or PRInfo(
            origin="github", url=None, repo=None, number=None, title="", base_sha="", head_sha=""
        )
        why = self.skipped or "no reason given"
        return Report.nothing_reviewed(why, pr, __version__).with_proposal(self.proposal)


# ---------------------------------------------------------------- building blocks


def model_client(settings: Settings, **options: Any) -> ModelClient | None:
    """The client of REVIEWBOT_PROVIDER; None without an Anthropic key (the reviewer axes are
    then not_run). A cloud chosen without its credentials is an error, not a silent Hold.
    `options` go to `AnthropicClient` (a test's `sleep`)."""
    provider = Provider.named(settings.provider)
    if provider is Provider.BEDROCK:
        return AnthropicClient.bedrock(settings.bedrock, **options)
    if provider is Provider.VERTEX:
        return AnthropicClient.vertex(settings.vertex, **options)
    if settings.anthropic_api_key is None:
        return None
    return AnthropicClient(
        settings.anthropic_api_key, base_url=settings.anthropic_base_url, **options
    )


def pr_ref(url: str, settings: Settings) -> PRRef:
    """Every entry's PR (a URL, an event, a snapshot, a benchmark) resolves here, under the
    token rule of sources/pr_ref.py: GITHUB_TOKEN goes only to the configured API."""
    return parse_pr_url(url, api_url=settings.github_api_url, server_url=settings.github_server_url)


def github_client(ref: PRRef, settings: Settings) -> GitHubClient:
    return make_client(ref.api_url, settings.github_token)


@dataclass(frozen=True, slots=True, kw_only=True)
class Clients:
    """How a run makes its clients: the real ones, unless a test passes the fakes' makers."""

    model: Callable[[Settings], ModelClient | None] = model_client
    github: Callable[[PRRef, Settings], GitHubClient] = github_client


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
            return self.permission(repo, login) in admission.WRITERS
        except ReviewbotError:
            return False  # logged with its reason when the lookup failed


@contextmanager
def connect(ref: PRRef, settings: Settings, clients: Clients) -> Iterator[GitHub]:
    """The run's GitHub client, closed at the end (no socket outlives the run)."""
    client = clients.github(ref, settings)
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
    client = job.clients.model(settings)
    try:
        yield Agents(
            client=client, operator=job.operator, redactor=settings.redactor, progress=job.progress
        )
    finally:
        if client is not None:
            client.close()


def _ref_of(repo: str, number: int, settings: Settings) -> PRRef:
    # Through the URL parser, so an event's PR gets exactly the API URL a pasted URL would;
    # the name is checked first, so the URL cannot normalise a bad one into another repository.
    web = (settings.github_server_url or f"https://{PUBLIC_HOST}").rstrip("/")
    repo = parse_repo_name(repo)
    return pr_ref(f"{web}/{repo}/pull/{number}", settings)


def run(target: ReviewTarget, settings: Settings, job: Job, emit: Emit) -> RunOutcome:
    """Review what the CLI was asked to review; a run that reviews nothing emits a report
    that says so (`Report.skipped`: only `--format json` prints it)."""
    outcome = _run(target, settings, job, emit)
    if outcome.report is None:
        emit(outcome.skipped_report(), None)
    return outcome


def _run(target: ReviewTarget, settings: Settings, job: Job, emit: Emit) -> RunOutcome:
    match target:
        case PullTarget(url=url):
            return review_pull(url, settings, job, emit)
        case LocalTarget(base=base, head=head, worktree=worktree):
            return review_local(
                Path.cwd(),
                base=base,
                head=head,
                worktree=worktree,
                settings=settings,
                job=job,
                emit=emit,
            )
        case SnapshotTarget(folder=folder):
            return review_reference(folder, settings, job, emit)
        case EventTarget():
            return run_event(settings, job, emit)


# ---------------------------------------------------------------- a PR on GitHub


def review_pull(url: str, settings: Settings, job: Job, emit: Emit) -> RunOutcome:
    ref = pr_ref(url, settings)
    with connect(ref, settings, job.clients) as github:
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
    learnings = fetch_base_learnings(client, info)  # from the base too, before any write
    permission = partial(github.permission, ref.full_name)
    refusal = admission.why_not(info, config, permission, expect_head=expect_head, actor=actor)
    if refusal is not None:
        return RunOutcome(skipped=refusal)
    still_head = partial(_still_head, client, info, posting=True)  # asked while posting
    publisher = _publisher(github, ref, config, settings, author=info.author, still_head=still_head)
    reader = GitHubReader(client=client, info=info, run_id=settings.run_id)
    # Read once, before the review: the scope, the review and the publisher build on it,
    # and its comments double as the model's discussion context.
    memory = read_memory(reader.comments(), publisher.trust)
    try:
        with gathered(reader, config, settings, memory) as (snapshot, ci):
            snapshot = replace(snapshot, learnings=learnings)
            reviewed = review_on_forge(
                snapshot, memory=memory, agents=_agents(settings, job), axes=(lambda _: ci,)
            )
            report = reviewed.report
            fork_without_secrets = check_fork and snapshot.fork and not reviewed.has_model
            notes = admission.review_notes(
                fork_without_secrets=fork_without_secrets,
                has_model=reviewed.has_model,
                in_actions=settings.in_actions,
            )
            if job.post and fork_without_secrets:
                notes += (admission.FORK_NOT_POSTING,)
            elif job.post and (stopped := job.stop()) is not None:  # the server superseded it
                notes += (stopped,)
            elif job.post:
                return _post(client, info, publisher, report, snapshot, memory, notes, emit)
            emit(report, snapshot)
            return RunOutcome(report=report, notes=notes)
    except HeadMoved as moved:  # at the checkout: the fetched head is not the one listed
        return RunOutcome(skipped=str(moved), superseded=True)


def _post(
    client: GitHubClient,
    info: PullRequestInfo,
    publisher: GitHubPublisher,
    report: Report,
    snapshot: PRSnapshot,
    memory: Memory,
    notes: tuple[str, ...],
    emit: Emit,
) -> RunOutcome:
    """Publish, unless a push superseded the run: checked before posting and while posting
    (`admission.still_head`); then nothing more is posted and the run ends with exit 0."""
    superseded = False
    try:
        _still_head(client, info, posting=False)
        published = publisher.publish(report, snapshot, memory)
        report = report.model_copy(update={"published": published})
    except HeadMoved as moved:
        notes, superseded = (*notes, str(moved)), True
    emit(report, snapshot)
    return RunOutcome(report=report, notes=notes, superseded=superseded)


def _still_head(client: GitHubClient, info: PullRequestInfo, *, posting: bool) -> None:
    admission.still_head(info, fetch_pull_request(client, info.ref).head_sha, posting=posting)


def _publisher(
    github: GitHub,
    ref: PRRef,
    config: ReviewConfig,
    settings: Settings,
    *,
    author: str | None,
    still_head: Callable[[], None] = lambda: None,
) -> GitHubPublisher:
    secret = settings.seal_secret
    if secret is None and settings.provider in (Provider.BEDROCK, Provider.VERTEX):
        # Without a seal a run cannot recognise its own earlier comments: it would post
        # every finding again on each push and never build on what it found.
        raise UsageError(
            f"REVIEWBOT_PROVIDER={settings.provider} has no Anthropic key to seal reviewbot's "
            "comments with: set REVIEWBOT_MARKER_KEY (the Action's `marker-key`) to a secret"
        )
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
        still_head=still_head,
    )


def refold_pull(github: GitHub, ref: PRRef, settings: Settings, job: Job, emit: Emit) -> RunOutcome:
    """check_suite completed: re-judge the nodes already on the PR; no model request."""
    client = github.client
    info = fetch_pull_request(client, ref)
    # The snapshot gives the config and the diff (for placement), not files for agents: its
    # checkout is an empty folder, so nothing can read the wrong tree's files.
    config = _configured(_base_config(client, info, job), job)
    publisher = _publisher(github, ref, config, settings, author=info.author)
    reader = GitHubReader(client=client, info=info, run_id=settings.run_id)
    memory = read_memory(reader.comments(), publisher.trust)
    with tempfile.TemporaryDirectory(prefix="reviewbot-refold-") as empty:
        snapshot = reader.snapshot(
            checkout=Path(empty), config=config, discussion=memory.discussion()
        )
        snapshot = replace(snapshot, learnings=fetch_base_learnings(client, info))
        report = refold(snapshot, prior=memory.prior, axes=(reader.ci,))
        if job.post:
            published = publisher.publish(report, snapshot, memory)
            report = report.model_copy(update={"published": published})
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
    notes = admission.left_out_notes(uncommitted(repo) if head == "HEAD" and not worktree else 0)
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
                skipped=f"no changes between {snapshot.base_ref} and {what}",
                notes=notes,
                pr=pr_info(snapshot),
            )
        snapshot = replace(snapshot, config=_configured(snapshot.config, job))
        with _agents(settings, job) as agents:
            plan = FullScope.of("a local review has no earlier review", config=snapshot.config)
            report = review_snapshot(snapshot, agents=agents, plan=plan)
        emit(report, snapshot)
        has_model = agents.client is not None
        notes += admission.review_notes(
            fork_without_secrets=False, has_model=has_model, in_actions=settings.in_actions
        )
        return RunOutcome(report=report, notes=notes)


# ---------------------------------------------------------------- GitHub Actions events


def run_event(settings: Settings, job: Job, emit: Emit) -> RunOutcome:
    """Review, refold or skip the PR(s) of the event GitHub Actions describes, with its token."""
    with fork_threads.fork_thread_advice(plan := read_event(settings)):
        return run_plan(plan, settings, job, emit)


def run_plan(plan: EventPlan, settings: Settings, job: Job, emit: Emit) -> RunOutcome:
    """Carry out an event's plan: the Action's and the server's one path from event to review.

    `settings.github_token` is the token it posts with (the Action's, or an App installation's).
    """
    log.info("event %s: %s — %s", plan.trigger, plan.action.value, plan.reason)
    if plan.action is PlanAction.SKIP or plan.repo is None:
        return RunOutcome(skipped=plan.reason)
    single = () if plan.number is None else (plan.number,)
    numbers = plan.numbers if plan.action is PlanAction.REFOLD else single
    if not numbers:
        return RunOutcome(skipped=f"{plan.trigger}: the event names no single pull request")
    refs = [_ref_of(plan.repo, n, settings) for n in numbers]
    with connect(refs[0], settings, job.clients) as github:  # one repository: one client
        if plan.action is PlanAction.REFOLD:
            return _refold_each(github, refs, settings, job, emit)
        ref = refs[0]
        if plan.action is PlanAction.ANSWER and plan.command is not None:
            # `/ask`, `/help`, …: answered by reviewbot/talk/, which checks who may ask.
            info = fetch_pull_request(github.client, ref)
            config = _configured(_base_config(github.client, info, job), job)
            model = partial(job.clients.model, settings)
            said = answer_command(plan.command, github, info, config, settings, model, job)
            return RunOutcome(
                skipped=said.reason, notes=said.notes, proposal=said.proposal, command=True
            )
        if plan.trigger == EventName.ISSUE_COMMENT:
            # /review counts only from someone who may write: re-checked through the API.
            refusal = admission.not_a_writer(partial(github.permission, ref.full_name), plan.actor)
            if refusal:
                return RunOutcome(skipped=refusal)
        return _review(github, ref, settings, job, emit, expect_head=plan.head_sha)


def _refold_each(
    github: GitHub, refs: list[PRRef], settings: Settings, job: Job, emit: Emit
) -> RunOutcome:
    """A check suite may name several PRs: each is re-folded and published on its own (one
    that fails, such as a PR that does not exist, does not stop the others), and the run
    answers with the strictest verdict, so a Block on any of them is not hidden."""
    outcomes: list[RunOutcome] = []
    failures: list[tuple[str, ReviewbotError]] = []
    for ref in refs:
        try:
            outcomes.append(refold_pull(github, ref, settings, job, emit))
        except ReviewbotError as exc:
            failures.append((str(ref), exc))
    if len(refs) == 1 and failures:
        raise failures[0][1]  # one PR: its error is the run's, as for any other event
    reports = tuple(o.report for o in outcomes if o.report is not None)
    strictest = max(reports, key=lambda r: r.verdict, default=None)
    return RunOutcome(
        report=strictest,
        skipped=None if reports else "no pull request of the check suite could be re-folded",
        reports=reports if len(refs) > 1 else (),
        failures=tuple(failures),
    )


def read_event(settings: Settings, *, needed_by: str = "--github-event") -> EventPlan:
    """The event GitHub Actions describes; `needed_by` is what the user ran, for the error."""
    if settings.event_name is None or settings.event_path is None:
        raise UsageError(
            f"{needed_by} needs GITHUB_EVENT_NAME and GITHUB_EVENT_PATH, which GitHub Actions "
            "sets: it runs in a workflow step, not at a terminal"
        )
    try:
        raw = settings.event_path.read_bytes()  # decoded strictly by the planner
    except OSError as exc:
        raise UsageError(
            f"cannot read GITHUB_EVENT_PATH {settings.event_path}: {exc.strerror}"
        ) from exc
    plan = plan_event_json(settings.event_name, raw)
    return in_repository(plan, settings.repository, in_actions=settings.in_actions)


# ---------------------------------------------------------------- the fork-safe two stages


def save_reference(out: Path, settings: Settings) -> PRReference:
    """Stage one (no secrets): write which PR and head this run saw, for stage two."""
    reference = fork_safe.reference_of(read_event(settings, needed_by="reviewbot snapshot"))
    fork_safe.write_reference(out, reference)
    return reference


def review_reference(folder: Path, settings: Settings, job: Job, emit: Emit) -> RunOutcome:
    """Stage two (secrets): review the PR stage one named, after re-checking everything it says.

    The file comes from an untrusted run: it only names a PR and a head. The PR is read
    again from the API, its head must equal the named head and the head of the
    `workflow_run` event (when there is one), and no PR code is ever executed.
    """
    reference = fork_safe.read_reference(folder)
    actor: str | None = None
    if settings.event_name == EventName.WORKFLOW_RUN:
        event = read_event(settings, needed_by="--from-snapshot on workflow_run")
        actor = fork_safe.check_against_run(reference, event)
    # Named by an untrusted run: in Actions it must be GITHUB_REPOSITORY, even with no event.
    repo = own_repository(
        reference.repo,
        settings.repository,
        in_actions=settings.in_actions,
        named_by="the PR snapshot",
    )
    ref = _ref_of(repo or reference.repo, reference.number, settings)
    with connect(ref, settings, job.clients) as github:
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
