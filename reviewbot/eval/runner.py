"""One `reviewbot eval` run: per PR, reviewbot's real review as a dry run, the judge, the score.

    select (--only, --limit) ─▶ for each PR, --workers at a time (workers.py):
                                 cached and --resume? reuse it (rescored: profile, β)
                              ─▶ else app.review_pull with post=False (the whole pipeline:
                                 fetch, checkout, reviewers, verifier, fold; nothing posted),
                                 or, for a mined entry and --history's clone, app.review_local
                                 of its base and head (no GitHub)
                              ─▶ the judge, once per finding, in its own conversation
                              ─▶ score, save to the cache
    (--queue RUN: the same task per PR, under a claim shared by several machines: shared.py)
    ─▶ EvalResult: per PR (in benchmark order) and overall, reviewers' and judge's usage apart

Every review and the judge share one Messages API client, so one backoff gate: a rate
limit met by one worker holds back all of them.

A PR that cannot be evaluated (not found, a git or network error, the judge giving no
valid answer, a reviewer that could not run) is recorded as failed with its error and
exit code, and the other PRs still run; a rejected ANTHROPIC_API_KEY ends the run,
since no later PR could succeed. Must not: post (the job is built with post=False
here, and nowhere else), print (the progress does), or read the environment.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from reviewbot import __version__
from reviewbot.agent.messages import ModelClient, ModelRequest, ModelResponse
from reviewbot.agent.progress import Progress, SilentProgress
from reviewbot.app import Clients, Emit, Job, RunOutcome, model_client, review_local, review_pull
from reviewbot.config.settings import Settings
from reviewbot.errors import (
    AuthError,
    CredentialsRefusedError,
    NetworkError,
    ReviewbotError,
    UsageError,
)
from reviewbot.eval.bench import Benchmark, BenchmarkPR
from reviewbot.eval.cache import CacheKey, EvalCache
from reviewbot.eval.candidates import CandidatePlace, candidates
from reviewbot.eval.judge import Judge
from reviewbot.eval.profiles import DEFAULT_BETA, DEFAULT_PROFILE, Profile
from reviewbot.eval.result import (
    EvalResult,
    FindingResult,
    GoldenResult,
    PRFailure,
    PRResult,
    ScoreReport,
    UsageReport,
)
from reviewbot.eval.score import EMPTY, overall
from reviewbot.eval.shared import QueueRun, map_shared
from reviewbot.eval.terminal import EvalProgress
from reviewbot.eval.workers import map_in_order
from reviewbot.modes.profile import Role
from reviewbot.nodes.model import ReviewNode
from reviewbot.results.report import Report
from reviewbot.results.run import StopReason, Usage
from reviewbot.sources.snapshot import PRSnapshot
from reviewbot.tools.ask_user import NoOperator

NO_KEY = (
    "ANTHROPIC_API_KEY is not set: reviewbot eval needs the Messages API for the reviewers "
    "and the judge"
)
_CANNOT_RUN = frozenset({StopReason.ERROR, StopReason.NO_CREDENTIALS})


@dataclass(frozen=True, slots=True, kw_only=True)
class EvalOptions:
    model: str
    judge_model: str
    cache_dir: Path
    resume: bool = False
    limit: int | None = None
    only: str | None = None
    profile: Profile = DEFAULT_PROFILE
    beta: float = DEFAULT_BETA
    workers: int = 1
    clone: Path | None = None  # `--history REPO`: mined entries are reviewed from it
    queue: QueueRun | None = None  # `--queue RUN`: the PRs shared with other machines


def select(
    prs: Sequence[BenchmarkPR], *, only: str | None, limit: int | None
) -> tuple[BenchmarkPR, ...]:
    """`--only`: a glob (`*`, `?`, `[…]`) or else a substring, of the URL or the title; then `--limit`."""
    chosen = [pr for pr in prs if only is None or _matches(pr, only)]
    return tuple(chosen if limit is None else chosen[:limit])


def _matches(pr: BenchmarkPR, pattern: str) -> bool:
    texts = (pr.url.lower(), pr.pr_title.lower())
    wanted = pattern.lower()
    if any(c in wanted for c in "*?["):
        return any(fnmatch.fnmatchcase(t, wanted) for t in texts)
    return any(wanted in t for t in texts)


def run_eval(
    bench: Benchmark,
    *,
    origin: str,
    settings: Settings,
    options: EvalOptions,
    progress: EvalProgress,
    agent_progress: Progress,
) -> EvalResult:
    if settings.provider == "anthropic" and settings.anthropic_api_key is None:
        raise AuthError(NO_KEY)  # a cloud's credentials are checked when its client is made
    # A dry run reviews in a temporary checkout: never the Actions workspace of this run.
    settings = replace(settings, workspace=None)
    selected = select(bench.prs, only=options.only, limit=options.limit)
    client = model_client(settings)
    assert client is not None  # the key was checked above
    # One client for every review and the judge: one backoff gate, so the workers meet a
    # rate limit together (workers.py).
    lent = _Lent(client)
    run = _Run(
        settings=settings,
        options=options,
        judge=Judge(client, model=options.judge_model, redactor=settings.redactor),
        cache=EvalCache(options.cache_dir),
        progress=progress,
        # Concurrent reviews would draw over each other's live agent lines.
        agent_progress=agent_progress if options.workers == 1 else SilentProgress(),
        clients=Clients(model=lambda _settings: lent),
        total=len(selected),
    )
    try:
        outcomes = _outcomes(selected, run)
    finally:
        client.close()
    scored = [o for o in outcomes if isinstance(o, PRResult)]
    failed = [o for o in outcomes if isinstance(o, PRFailure)]
    cached = [pr.url for pr in selected if pr.url in run.reused]  # in benchmark order
    return _assemble(bench, origin, options, scored, failed, cached)


def _outcomes(selected: Sequence[BenchmarkPR], run: _Run) -> list[PRResult | PRFailure]:
    options = run.options
    if options.queue is None:
        return map_in_order(selected, run.one, workers=options.workers)
    shared = map_shared(
        selected,
        run.one,
        key=lambda pr: run.key(pr).digest(pr),
        queue=options.queue,
        workers=options.workers,
    )
    # Another machine's results were scored under its options: scored again under these.
    return [
        o.rescored(options.profile, options.beta) if isinstance(o, PRResult) else o for o in shared
    ]


class _Lent:
    """The run's client as each review sees it: closing it is the run's business, not theirs."""

    def __init__(self, client: ModelClient) -> None:
        self._client = client

    def create(self, request: ModelRequest) -> ModelResponse:
        return self._client.create(request)

    def close(self) -> None:
        pass


@dataclass(slots=True, kw_only=True)
class _Run:
    """What every PR's task shares; `one` is the task, safe to call from several threads."""

    settings: Settings
    options: EvalOptions
    judge: Judge
    cache: EvalCache
    progress: EvalProgress
    agent_progress: Progress
    clients: Clients
    total: int
    reused: set[str] = field(default_factory=set)  # URLs from the cache; set.add is atomic

    def key(self, pr: BenchmarkPR) -> CacheKey:
        return CacheKey(url=pr.url, model=self.options.model, judge_model=self.options.judge_model)

    def one(self, index: int, pr: BenchmarkPR) -> PRResult | PRFailure:
        """One PR: from the cache (`--resume`), else reviewed, judged, scored and cached."""
        options = self.options
        key = self.key(pr)
        hit = self.cache.load(key, pr) if options.resume else None
        if hit is not None:
            hit = hit.rescored(options.profile, options.beta)  # the cache keeps matches
            self.reused.add(pr.url)
            self.progress.scored(index, self.total, hit, cached=True)
            return hit
        self.progress.started(index, self.total, pr.url)
        try:
            result = evaluate_pr(pr, self, options)
        except CredentialsRefusedError:
            raise  # the key itself was refused: no later PR can succeed
        except ReviewbotError as exc:
            self.progress.failed(index, self.total, pr.url, str(exc))
            return PRFailure(url=pr.url, error=str(exc), exit_code=exc.exit_code)
        self.cache.save(key, pr, result)
        self.progress.scored(index, self.total, result, cached=False)
        return result


def _assemble(
    bench: Benchmark,
    origin: str,
    options: EvalOptions,
    scored: Sequence[PRResult],
    failed: Sequence[PRFailure],
    cached: Sequence[str],
) -> EvalResult:
    """The run's result: every PR scored under the options' profile and β, overall summed."""
    return EvalResult(
        tool_version=__version__,
        benchmark=origin,
        model=options.model,
        judge_model=options.judge_model,
        profile=options.profile,
        categories=tuple(sorted(options.profile.categories)),
        beta=options.beta,
        score=ScoreReport.of(overall(r.scored(options.profile) for r in scored), options.beta),
        prs=tuple(scored),
        failed=tuple(failed),
        problems=bench.problems,
        cached=tuple(cached),
        usage=UsageReport(
            reviewers=_sum(r.reviewers for r in scored), judge=_sum(r.judge for r in scored)
        ),
    )


def evaluate_pr(pr: BenchmarkPR, run: _Run, options: EvalOptions) -> PRResult:
    """Review `pr` as a dry run, judge each finding, score it."""
    # post=False: the review is computed and returned, and nothing is written to GitHub.
    job = Job(
        progress=run.agent_progress,
        post=False,
        model=options.model,
        operator=NoOperator(),
        clients=run.clients,
    )
    snapshots: list[PRSnapshot | None] = []
    outcome = _reviewed(pr, run, job, lambda _r, snap: snapshots.append(snap))
    if outcome.report is None:
        raise UsageError(f"not reviewed: {outcome.skipped or 'no reason given'}")
    report = outcome.report
    _check_agents(report)
    found = candidates(report, snapshots[0] if snapshots else None).found
    judgements = []
    for number, candidate in enumerate(found, start=1):
        run.progress.judging(pr.url, finding=number, findings=len(found))
        judgements.append(run.judge.judge(candidate.node, pr))
    result = PRResult(
        url=pr.url,
        title=pr.pr_title,
        head_sha=report.pr.head_sha,
        model=options.model,
        judge_model=options.judge_model,
        tool_version=__version__,
        findings=tuple(
            _finding(c.node, j.golden, j.reason, c.placement)
            for c, j in zip(found, judgements, strict=True)
        ),
        golden=tuple(
            GoldenResult(
                comment=g.comment,
                severity=g.severity,
                category=g.category,
                matched_by=tuple(
                    c.node.id for c, j in zip(found, judgements, strict=True) if j.golden == i
                ),
            )
            for i, g in enumerate(pr.comments)
        ),
        score=ScoreReport.of(EMPTY, options.beta),  # replaced just below, from the matches
        reviewers=report.usage,
        judge=_sum(j.usage for j in judgements),
        notes=_notes(report),
    )
    return result.rescored(options.profile, options.beta)


def _reviewed(pr: BenchmarkPR, run: _Run, job: Job, emit: Emit) -> RunOutcome:
    clone = run.options.clone
    if clone is None or pr.history is None:
        return review_pull(pr.url, run.settings, job, emit)
    base, head = pr.history.base, pr.history.head
    return review_local(clone, base=base, head=head, settings=run.settings, job=job, emit=emit)


def _check_agents(report: Report) -> None:
    """A reviewer that could not run leaves no findings to score: the PR fails, not scores 0."""
    for agent in report.agents:
        if agent.stop_reason is StopReason.CREDENTIALS_REFUSED:
            raise CredentialsRefusedError(
                agent.error or "the Messages API rejected ANTHROPIC_API_KEY"
            )
        if agent.role == Role.REVIEWER and agent.stop_reason in _CANNOT_RUN:
            raise NetworkError(
                f"reviewer {agent.name} could not run: {agent.error or agent.stop_reason.value}"
            )


def _notes(report: Report) -> tuple[str, ...]:
    return tuple(
        f"{a.name} stopped: {a.stop_reason.value}" + (f" ({a.error})" if a.error else "")
        for a in report.agents
        if not a.stop_reason.completed
    )


def _finding(
    node: ReviewNode, golden: int | None, reason: str, placement: CandidatePlace
) -> FindingResult:
    anchor = node.anchor
    return FindingResult(
        id=node.id,
        kind=node.kind,
        priority=node.priority,
        title=node.title,
        path=anchor.path if anchor else None,
        start_line=anchor.start_line if anchor else None,
        end_line=anchor.end_line if anchor else None,
        golden=golden,
        reason=reason,
        placement=placement,
    )


def _sum(usages: Iterable[Usage]) -> Usage:
    total = Usage()
    for usage in usages:
        total = total + usage
    return total
