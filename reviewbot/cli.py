"""The command line: click commands that parse, call one app function, map to an exit code.

Exit codes (documented in the README and in `reviewbot review --help`):

    0   the review ran (whatever the verdict), or the event needed no review
    1   --fail-on matched: the verdict reached the given level
    2   usage or configuration error (bad URL, flag, event, .reviewbot.toml)
    3   authentication: GitHub refused the token, or the Messages API rejected the key
    4   not found: the PR, repository, ref or model does not exist or is not visible
    5   network: GitHub or the Messages API could not be reached, kept failing or refused a request
    6   git could not produce the checkout or the diff
    70  internal error: a bug in reviewbot (run with --verbose for the traceback)
    130 interrupted (Ctrl-C); the live progress line is cleared first
    141 stdout was closed early (a reader such as `head` quit); the rest of the run completed

A `ReviewbotError` prints its one-line message; any other exception is a bug and
says so, with the traceback only under --verbose. Codes 3, 4 and 5 also end a run
whose agents the Messages API stopped, after the Hold was printed and published
(`AgentReport.exit_code`): a failing API is not a verdict.
"""

from __future__ import annotations

import io
import logging
import os
import re
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn, TextIO

import click
from click.core import ParameterSource

import reviewbot
from reviewbot.errors import ReviewbotError, UsageError, VerdictGateError
from reviewbot.output import Format, default_report_path, encodes_unicode, prepare_file
from reviewbot.redact import RedactingStreamHandler, Redactor
from reviewbot.settings import Settings

# Start-up: the SDKs, pydantic, rich and git cost a second to import, and `--help`, a usage
# error or `version` need none of them. They are imported inside the commands that do.
if TYPE_CHECKING:
    from reviewbot.agent.progress import RichProgress, SilentProgress
    from reviewbot.app import RunOutcome
    from reviewbot.report import Report
    from reviewbot.sources.snapshot import PRSnapshot
    from reviewbot.tools.ask_user import Operator

    LiveProgress = RichProgress | SilentProgress
    Target = Callable[..., RunOutcome]  # called with emit=…: one of the app flows

INTERNAL_ERROR = 70
INTERRUPTED = 130  # 128 + SIGINT: what a shell reports for a command stopped by Ctrl-C
CLOSED_STDOUT = 141  # 128 + SIGPIPE: what a shell reports when the reader of a pipe quit
CONFIG_DEFAULT = ".reviewbot.toml"  # reviewbot.config.CONFIG_FILE, without importing pydantic
log = logging.getLogger("reviewbot")
FAIL_NEVER = "none"  # `--fail-on none`: no verdict fails the step


@click.group(context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.option(
    "-V",
    "--version",
    is_flag=True,
    expose_value=False,
    is_eager=True,
    callback=lambda ctx, _param, value: _print_version(ctx) if value else None,
    help="Show the version and exit (as `reviewbot version`).",
)
def cli() -> None:
    """Review GitHub pull requests with Claude as a read-only agent.

    \b
    Examples:
      reviewbot review https://github.com/octo/app/pull/42
      reviewbot review https://github.com/octo/app/pull/42 --post
      reviewbot review --local --base main
      reviewbot schema > report.schema.json
    """


@cli.command()
@click.argument("pr_url", required=False)
@click.option(
    "--local", is_flag=True, help="Review this git repository's HEAD against --base; no GitHub."
)
@click.option(
    "--base",
    help="With --local: the ref to compare against (default: the branch origin/HEAD points "
    "at, else main, else master).",
)
@click.option("--head", default="HEAD", show_default=True, help="With --local: the ref to review.")
@click.option(
    "--worktree",
    is_flag=True,
    help="With --local: review the working tree (uncommitted and untracked files, never "
    "ignored ones) against --base, instead of HEAD.",
)
@click.option(
    "--github-event",
    is_flag=True,
    help="Review the PR of the GitHub Actions event (GITHUB_EVENT_NAME/PATH).",
)
@click.option(
    "--from-snapshot",
    type=click.Path(path_type=Path, file_okay=False),
    help="Review the PR named by `reviewbot snapshot` (stage two of the fork-safe setup).",
)
@click.option(
    "--post/--no-post",
    default=False,
    envvar="REVIEWBOT_POST",
    show_default=True,
    help="Publish the review, summary and check run on the PR (not with --local).",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice([f.value for f in Format]),
    default="text",
    show_default=True,
    help="What to print: a readable review, the JSON report, SARIF 2.1.0, or the summary markdown.",
)
@click.option(
    "--output",
    "-o",
    type=click.Path(path_type=Path, dir_okay=False),
    help="Write the output to FILE instead of stdout (parent folders are created).",
)
@click.option(
    "--report",
    "report_file",
    type=click.Path(path_type=Path, dir_okay=False),
    help="Also write the JSON report to FILE, checked before the review runs (parent folders "
    "are created; in GitHub Actions: always, in RUNNER_TEMP).",
)
@click.option(
    "--model", envvar="REVIEWBOT_MODEL", help="Claude model (default: `model` in .reviewbot.toml)."
)
@click.option(
    "--config",
    "config_path",
    default=CONFIG_DEFAULT,
    envvar="REVIEWBOT_CONFIG",
    show_default=True,
    help="The config file, read from the BASE branch (never the PR head): a path in the "
    "repository, relative to its root (or absolute inside the checkout). When given, it must exist.",
)
@click.option(
    "--fail-on",
    type=click.Choice([FAIL_NEVER, "hold", "block"]),
    default=FAIL_NEVER,
    envvar="REVIEWBOT_FAIL_ON",
    show_default=True,
    help="Exit 1 when the verdict reaches this level.",
)
@click.option(
    "--non-interactive",
    is_flag=True,
    help="Never ask a question at the terminal (ask_user fails closed).",
)
@click.option(
    "--verbose", "-v", is_flag=True, help="Log every step (and tracebacks of internal errors)."
)
def review(
    pr_url: str | None,
    local: bool,
    base: str | None,
    head: str,
    worktree: bool,
    github_event: bool,
    from_snapshot: Path | None,
    post: bool,
    fmt: str,
    output: Path | None,
    report_file: Path | None,
    model: str | None,
    config_path: str,
    fail_on: str,
    non_interactive: bool,
    verbose: bool,
) -> None:
    """Review a pull request (or a local branch) and print or publish the result.

    \b
    Examples:
      reviewbot review https://github.com/octo/app/pull/42          # print the review
      reviewbot review https://github.com/octo/app/pull/42 --post   # publish it on the PR
      reviewbot review https://github.com/octo/app/pull/42 --format json > report.json
      reviewbot review --local --base origin/main                   # before a PR exists
      reviewbot review --github-event --post --fail-on block        # in GitHub Actions

    \b
    Environment: ANTHROPIC_API_KEY (without it the review axis is not_run and the
    verdict Hold), ANTHROPIC_BASE_URL, GITHUB_TOKEN or GH_TOKEN, GITHUB_API_URL.

    \b
    Exit codes:
      0   the review ran (whatever the verdict), or the event needed no review
      1   --fail-on matched: the verdict reached the given level
      2   usage or configuration error (bad URL, flag, event, .reviewbot.toml)
      3   authentication: GitHub refused the token, or the Messages API rejected the key
      4   not found: the PR, repository, ref or model does not exist or is not visible
      5   network: GitHub or the Messages API could not be reached, kept failing or refused a request
      6   git could not produce the checkout or the diff
      70  internal error: a bug in reviewbot (run with --verbose for the traceback)
      130 interrupted (Ctrl-C); the live progress line is cleared first
      141 stdout was closed early (a reader such as `head` quit); the rest of the run completed
    """
    settings = Settings.from_environ(os.environ)
    _configure_logging(verbose, settings)
    modes = sum([bool(pr_url), local, github_event, from_snapshot is not None])
    if modes > 1:
        _fail(
            UsageError("give one of: a PR URL, --local, --github-event, --from-snapshot"), verbose
        )
    if modes == 0 and settings.event_name is not None:
        github_event = True  # in GitHub Actions, the event is the target
    elif modes == 0:
        _fail(
            UsageError(
                "nothing to review: give a PR URL, or --local (see reviewbot review --help)"
            ),
            verbose,
        )
    ctx = click.get_current_context()
    report_path = report_file or default_report_path(settings)
    try:
        _refuse_ignored_options(ctx, local=local, post=post, worktree=worktree)
        config_path, config_required = _config_choice(ctx, config_path, local, settings)
        # Like -o: a path that cannot be written fails before the review, not after it.
        if report_path is not None:
            prepare_file(report_path, "the report")
    except ReviewbotError as exc:
        _fail(exc, verbose)
    from reviewbot.app import Job, review_local, review_pull, review_reference, run_event

    progress = _progress()
    job = Job(
        progress=progress,
        post=post,
        model=model or None,
        config_path=config_path,
        config_required=config_required,
        operator=_operator(non_interactive),
    )
    if pr_url:
        target: Target = partial(review_pull, pr_url, settings, job)
    elif local:
        target = partial(
            review_local,
            Path.cwd(),
            base=base,
            head=head,
            worktree=worktree,
            settings=settings,
            job=job,
        )
    elif from_snapshot is not None:
        target = partial(review_reference, from_snapshot, settings, job)
    else:
        target = partial(run_event, settings, job)
    delivery = _Delivery()
    with _last_resort(verbose, settings.redactor, progress):
        outcome = _run(
            target, fmt=Format(fmt), output=output, redactor=settings.redactor, delivery=delivery
        )
        _finish(outcome, settings, report_path, fail_on, verbose)
    if delivery.closed:  # everything else went well: say only that the reader missed output
        sys.exit(CLOSED_STDOUT)


@cli.command()
@click.option(
    "--out",
    type=click.Path(path_type=Path, file_okay=False),
    required=True,
    help="Folder to write the PR reference into (upload it as an artifact).",
)
@click.option("--github-event", is_flag=True, default=True, hidden=True)
@click.option("--verbose", "-v", is_flag=True, help="Log every step.")
def snapshot(out: Path, github_event: bool, verbose: bool) -> None:
    """Stage one of the fork-safe setup: save which PR and head this event is about.

    Runs with no secrets on `pull_request`; a `workflow_run` workflow with secrets
    then runs `reviewbot review --from-snapshot DIR --post`, which re-reads and
    re-checks everything from the API and never executes PR code.

    \b
    Example:
      reviewbot snapshot --out reviewbot-pr

    \b
    Exit codes:
      0   the reference was saved
      2   usage error: no GitHub event, or it names no single pull request head
    """
    from reviewbot.app import save_reference

    settings = Settings.from_environ(os.environ)
    _configure_logging(verbose, settings)
    try:
        reference = save_reference(out, settings)
    except ReviewbotError as exc:
        _fail(exc, verbose)
    except OSError as exc:  # --out under a file, a read-only folder: the user's path, not a bug
        _fail(UsageError(f"cannot write the PR reference into {out}: {exc.strerror}"), verbose)
    click.echo(
        f"reviewbot: saved {reference.repo}#{reference.number} at {reference.head_sha[:12]} in {out}",
        err=True,
    )


@cli.command(name="eval")
@click.argument("bench", type=click.Path(path_type=Path, dir_okay=False))
@click.option("--limit", type=click.IntRange(min=1), help="Evaluate only the first N PRs selected.")
@click.option(
    "--only", "pattern", help="Only PRs whose URL or title matches: a glob, else a substring."
)
@click.option(
    "--model",
    envvar="REVIEWBOT_MODEL",
    help="Claude model of the reviewers (default: reviewbot's default model).",
)
@click.option(
    "--judge-model", help="Claude model of the judge (default: reviewbot's default model)."
)
@click.option("--resume", is_flag=True, help="Reuse the PRs a previous run finished (the cache).")
@click.option(
    "--out",
    type=click.Path(path_type=Path, dir_okay=False),
    help="Write the results as JSON to FILE.",
)
@click.option(
    "--cache-dir",
    type=click.Path(path_type=Path, file_okay=False),
    default=".reviewbot-eval",
    show_default=True,
    help="Where finished PRs are kept for --resume.",
)
@click.option("--verbose", "-v", is_flag=True, help="Log every step.")
def evaluate(
    bench: Path,
    limit: int | None,
    pattern: str | None,
    model: str | None,
    judge_model: str | None,
    resume: bool,
    out: Path | None,
    cache_dir: Path,
    verbose: bool,
) -> None:
    """Measure review quality on a benchmark of golden comments (dry runs: nothing is posted).

    BENCH is a JSON list of {"pr_title", "url", "comments": [{"comment", "severity"}]},
    the public Code Review Bench format. Each PR is reviewed by reviewbot's real pipeline,
    each finding is matched to the golden comments by a separate judge, and precision,
    recall and F1 are reported per PR, overall and by severity.

    \b
    Examples:
      reviewbot eval golden_comments/sentry.json --out sentry-results.json
      reviewbot eval bench.json --only getsentry/sentry --limit 3
      reviewbot eval bench.json --resume --judge-model claude-opus-4-5

    \b
    Environment: ANTHROPIC_API_KEY (required), ANTHROPIC_BASE_URL, GITHUB_TOKEN or
    GH_TOKEN (recommended: the unauthenticated API allows 60 requests an hour), GITHUB_API_URL.

    \b
    Exit codes:
      0   every selected PR was reviewed, judged and scored
      2   the file is unusable, or some entries are invalid (the valid PRs still run)
      3   ANTHROPIC_API_KEY is not set, or the Messages API rejected it
      4   a PR was not found (the other PRs still run); 5 network or judge; 6 git
      70  internal error: a bug in reviewbot (run with --verbose for the traceback)
    """
    from reviewbot.config import DEFAULT_MODEL
    from reviewbot.eval.command import run_evaluation
    from reviewbot.eval.runner import EvalOptions

    settings = Settings.from_environ(os.environ)
    _configure_logging(verbose, settings)
    options = EvalOptions(
        model=model or DEFAULT_MODEL,
        judge_model=judge_model or DEFAULT_MODEL,
        cache_dir=cache_dir,
        resume=resume,
        limit=limit,
        only=pattern,
    )
    progress = _progress()
    with _last_resort(verbose, settings.redactor, progress):
        code = run_evaluation(
            bench,
            options,
            settings,
            out=out,
            agent_progress=progress,
            interactive=sys.stderr.isatty(),
        )
    sys.exit(code)


@cli.command()
def schema() -> None:
    """Print the JSON Schema of the `--format json` report.

    \b
    Example:
      reviewbot schema > report.schema.json
    """
    from reviewbot.report import schema_json

    click.echo(schema_json())


@cli.command()
def version() -> None:
    """Print reviewbot's version.

    \b
    Example:
      reviewbot version
    """
    click.echo(_version_line())


# ---------------------------------------------------------------- helpers


def _version_line() -> str:
    return f"reviewbot {reviewbot.__version__}"  # the metadata is read only now


def _print_version(ctx: click.Context) -> None:
    if not ctx.resilient_parsing:
        click.echo(_version_line())
        ctx.exit()


def _given(ctx: click.Context, name: str) -> bool:
    return ctx.get_parameter_source(name) in (
        ParameterSource.COMMANDLINE,
        ParameterSource.ENVIRONMENT,
    )


def _refuse_ignored_options(ctx: click.Context, *, local: bool, post: bool, worktree: bool) -> None:
    """An option the chosen mode would silently ignore is a mistake worth one line."""
    if local and post:
        from_env = ctx.get_parameter_source("post") is ParameterSource.ENVIRONMENT
        raise UsageError(
            "--post publishes on a pull request, and --local has none"
            + (" (REVIEWBOT_POST is set: unset it)" if from_env else " (drop --post)")
        )
    if not local and (_given(ctx, "base") or _given(ctx, "head") or worktree):
        raise UsageError(
            "--base, --head and --worktree only apply to --local; a pull request has its own "
            "base and head"
        )
    if worktree and _given(ctx, "head"):
        raise UsageError("--worktree reviews the working tree: give it or --head, not both")


def _config_choice(
    ctx: click.Context, given: str, local: bool, settings: Settings
) -> tuple[str, bool]:
    """The config path and whether it must exist: any --config must; REVIEWBOT_CONFIG only
    when it names another file than the default (the Action always sets it)."""
    from reviewbot.config import CONFIG_FILE, config_path_in_repo

    source = ctx.get_parameter_source("config_path")
    # --local resolves the path against its repository (git_repo); a PR's against the workspace.
    path = given if local else config_path_in_repo(given, root=settings.workspace)
    if source is ParameterSource.COMMANDLINE:
        return path, True
    # The Action always sets REVIEWBOT_CONFIG: to the default name unless configured otherwise.
    default = given.strip() in (CONFIG_FILE, f"./{CONFIG_FILE}")
    return path, source is ParameterSource.ENVIRONMENT and not default


@dataclass(slots=True)
class _Delivery:
    """Whether stdout's reader got the output: a closed pipe is noted, never a crash."""

    closed: bool = False


def _run(
    target: Target, *, fmt: Format, output: Path | None, redactor: Redactor, delivery: _Delivery
) -> RunOutcome:
    from reviewbot.output import emitter

    if output is not None:
        prepare_file(output, "the output")
    try:
        stream: TextIO = _stdout() if output is None else output.open("w", encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"cannot write the output to {output}: {exc.strerror}") from exc
    emit = emitter(fmt, stream, redactor)

    def deliver(report: Report, snapshot: PRSnapshot | None) -> None:
        # The review is done (and published) when it is printed: a reader that quit early
        # (`| head -1`) must not cost the report file, the outputs or the exit code.
        try:
            emit(report, snapshot)
        except BrokenPipeError:
            delivery.closed = True
            _discard_stdout()

    try:
        return target(emit=deliver if stream is sys.stdout else emit)
    finally:
        if stream is not sys.stdout:
            stream.close()


def _stdout() -> TextIO:
    """stdout, where a character it cannot encode (a cp1252 console) becomes `?`, not a crash."""
    if not encodes_unicode(sys.stdout) and isinstance(sys.stdout, io.TextIOWrapper):
        sys.stdout.reconfigure(errors="replace")
    return sys.stdout


def _discard_stdout() -> None:
    # Python flushes stdout once more at exit; aimed at /dev/null, that flush cannot fail.
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # a stdout without a descriptor (tests): nothing to flush
        pass
    finally:
        os.close(devnull)


@contextmanager
def _last_resort(
    verbose: bool, redactor: Redactor, progress: LiveProgress | None = None
) -> Iterator[None]:
    """A `ReviewbotError` is its one line and exit code; Ctrl-C is 130; anything else exit 70.

    The live progress line is stopped first in every case, so the terminal gets its cursor back.
    """
    try:
        try:
            yield
        except BaseException:
            if progress is not None:
                progress.close()  # before any line is printed below it
            raise
    except KeyboardInterrupt:
        click.echo("\nreviewbot: interrupted", err=True)
        sys.exit(INTERRUPTED)
    except ReviewbotError as exc:
        _fail(exc, verbose, redactor)
    except (
        Exception
    ) as exc:  # the CLI's last resort (STYLE 17): a bug exits 70 with one line, not a traceback
        if verbose:
            log.exception("internal error")
        message = redactor(f"{type(exc).__name__}: {exc}")
        click.echo(
            f"reviewbot: internal error: {message} (run with --verbose for the traceback)", err=True
        )
        sys.exit(INTERNAL_ERROR)


def _finish(
    outcome: RunOutcome, settings: Settings, report_path: Path | None, fail_on: str, verbose: bool
) -> None:
    from reviewbot.output import write_actions_outputs, write_report
    from reviewbot.verdict.lattice import Verdict

    redact = settings.redactor
    for note in outcome.notes:
        click.echo(f"reviewbot: {redact(note)}", err=True)
    if outcome.report is None:
        click.echo(
            f"reviewbot: nothing to review: {redact(outcome.skipped or 'no reason given')}",
            err=True,
        )
        write_actions_outputs(settings, None, None, redact)
        return
    verdict = outcome.report.verdict
    try:
        written = (
            write_report(outcome.report, report_path, redact) if report_path is not None else None
        )
    except UsageError:  # the disk filled up since the check: the verdict line still comes first
        click.echo(f"reviewbot: verdict {verdict.label}", err=True)
        raise
    write_actions_outputs(settings, outcome.report, written, redact)
    click.echo(
        f"reviewbot: verdict {verdict.label}" + (f" (report: {written})" if written else ""),
        err=True,
    )
    # A refused key, an unknown model, an API that failed: the Hold is published, and the step
    # fails with the error's own code (the first agent's: the others met the same cause).
    failed = next((a for a in outcome.report.agents if a.exit_code is not None), None)
    if failed is not None and failed.exit_code is not None:
        _exit(
            failed.error or f"the Messages API stopped the {failed.name} agent",
            failed.exit_code,
            redact,
        )
    if fail_on != FAIL_NEVER and verdict >= Verdict.parse(fail_on):
        _fail(
            VerdictGateError(f"the verdict is {verdict.label} and --fail-on is {fail_on}"), verbose
        )


def _fail(exc: ReviewbotError, verbose: bool, redactor: Redactor | None = None) -> NoReturn:
    if verbose:
        log.debug("error", exc_info=exc)
    _exit(str(exc), exc.exit_code, redactor)


def _exit(message: str, code: int, redactor: Redactor | None = None) -> NoReturn:
    redact = redactor or Redactor()
    click.echo(f"reviewbot: error: {redact(message)}", err=True)
    sys.exit(code)


def _progress() -> LiveProgress:
    from reviewbot.agent.progress import RichProgress, SilentProgress

    # A live line only for a person at a terminal; CI logs get the final lines instead.
    return RichProgress() if sys.stderr.isatty() else SilentProgress()


def _operator(non_interactive: bool) -> Operator:
    from reviewbot.tools.ask_user import NoOperator, TerminalOperator

    if non_interactive or not sys.stdin.isatty():
        return NoOperator()
    return TerminalOperator(input=sys.stdin, output=sys.stderr)


class _GitHubRetryLines(logging.Filter):
    """urllib3's `Retrying (GithubRetry(total=3, …)) after connection broken by '…': /path`
    (PyGithub's transport) as one line of ours: the cause, the path, the attempts left."""

    def filter(self, record: logging.LogRecord) -> bool:
        args = record.args
        if not (
            isinstance(args, tuple) and len(args) == 3 and str(record.msg).startswith("Retrying")
        ):
            return True
        from urllib3.util.retry import Retry  # loaded already: it is urllib3 that logs

        retry, error, path = args
        left = retry.total if isinstance(retry, Retry) else None
        record.msg = "GitHub unreachable (%s) on %s; retrying, %s attempt(s) left"
        record.args = (_cause(error), path, "some" if left is None else left)
        return True


def _cause(error: object) -> str:
    """`Connection refused` out of urllib3's `NewConnectionError("HTTPConnection(…): … [Errno 111] Connection refused")`."""
    text = str(error)
    errno = re.search(r"\[Errno -?\d+\] ([^\"')]+)", text)
    if errno:
        return errno.group(1).strip()
    return text.rsplit(": ", 1)[-1].strip() or type(error).__name__


def _configure_logging(verbose: bool, settings: Settings) -> None:
    redactor, in_actions = settings.redactor, settings.in_actions
    # The whole formatted record is redacted, tracebacks included, and so is the report of
    # a record that could not be written (`redact.RedactingStreamHandler`).
    handler = RedactingStreamHandler(
        sys.stderr,
        "reviewbot: %(message)s" if not verbose else "%(levelname)s %(name)s: %(message)s",
        redactor,
    )
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(logging.DEBUG if verbose else logging.WARNING)
    # Our own steps (event decisions, request ids) belong in a CI log; at a terminal, the result is enough.
    ours = logging.DEBUG if verbose else logging.INFO if in_actions else logging.WARNING
    logging.getLogger("reviewbot").setLevel(ours)
    # PyGithub logs every failed request, including the ones we expect and handle (GET /user → 403).
    github = logging.getLogger("github")
    github.setLevel(logging.DEBUG if verbose else logging.ERROR)
    # PyGithub attaches its own stderr handler at import: it would print request and response
    # bodies (PR text, pasted secrets) unredacted. Its records go through the handler above only.
    github.handlers.clear()
    github.propagate = True
    pool = logging.getLogger("urllib3.connectionpool")
    pool.filters[:] = [] if verbose else [_GitHubRetryLines()]


def main() -> None:
    """Console-script entry point."""
    sys.exit(cli.main(standalone_mode=True))
