"""The command line: click commands that parse, call one app function, map to an exit code.

Exit codes (documented in the README and in `reviewbot review --help`):

    0   the review ran (whatever the verdict), or the event needed no review
    1   --fail-on matched: the verdict reached the given level
    2   usage or configuration error (bad URL, flag, event, .reviewbot.toml)
    3   authentication: GitHub refused the token, or the Messages API rejected the key
    4   not found: the PR, repository or ref does not exist or is not visible
    5   network: GitHub or the Messages API could not be reached or kept failing
    6   git could not produce the checkout or the diff
    70  internal error: a bug in reviewbot (run with --verbose for the traceback)

A `ReviewbotError` prints its one-line message; any other exception is a bug and
says so, with the traceback only under --verbose.
"""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import partial
from pathlib import Path
from typing import NoReturn, TextIO

import click

from reviewbot import __version__
from reviewbot.agent.progress import Progress, RichProgress, SilentProgress
from reviewbot.app import (
    Job,
    RunOutcome,
    review_local,
    review_pull,
    review_reference,
    run_event,
    save_reference,
)
from reviewbot.config import CONFIG_FILE, DEFAULT_MODEL
from reviewbot.errors import AuthError, ReviewbotError, UsageError, VerdictGateError
from reviewbot.eval.command import evaluate as run_evaluation
from reviewbot.eval.runner import EvalOptions
from reviewbot.output import (
    Format,
    default_report_path,
    emitter,
    write_actions_outputs,
    write_report,
)
from reviewbot.redact import RedactingStreamHandler, Redactor
from reviewbot.report import StopReason, schema_json
from reviewbot.settings import Settings
from reviewbot.tools.ask_user import NoOperator, Operator, TerminalOperator
from reviewbot.verdict.lattice import Verdict

INTERNAL_ERROR = 70
Target = Callable[..., RunOutcome]  # called with emit=…: one of the app flows
log = logging.getLogger("reviewbot")


@click.group(context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(__version__, prog_name="reviewbot")
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
    "--base", default="main", show_default=True, help="With --local: the ref to compare against."
)
@click.option("--head", default="HEAD", show_default=True, help="With --local: the ref to review.")
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
    help="Publish the review, summary and check run on the PR.",
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
    help="Write the output to FILE instead of stdout.",
)
@click.option(
    "--report",
    "report_file",
    type=click.Path(path_type=Path, dir_okay=False),
    help="Also write the JSON report to FILE (in GitHub Actions: always, in RUNNER_TEMP).",
)
@click.option(
    "--model", envvar="REVIEWBOT_MODEL", help="Claude model (default: `model` in .reviewbot.toml)."
)
@click.option(
    "--config",
    "config_path",
    default=CONFIG_FILE,
    envvar="REVIEWBOT_CONFIG",
    show_default=True,
    help="Path of the config file, read from the BASE branch (never the PR head).",
)
@click.option(
    "--fail-on",
    type=click.Choice(["none", "hold", "block"]),
    default="none",
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
    base: str,
    head: str,
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
      4   not found: the PR, repository or ref does not exist or is not visible
      5   network: GitHub or the Messages API could not be reached or kept failing
      6   git could not produce the checkout or the diff
      70  internal error: a bug in reviewbot (run with --verbose for the traceback)
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
    job = Job(
        progress=_progress(),
        post=post,
        model=model or None,
        config_path=config_path,
        operator=_operator(non_interactive),
    )
    if pr_url:
        target: Target = partial(review_pull, pr_url, settings, job)
    elif local:
        target = partial(review_local, Path.cwd(), base=base, head=head, settings=settings, job=job)
    elif from_snapshot is not None:
        target = partial(review_reference, from_snapshot, settings, job)
    else:
        target = partial(run_event, settings, job)
    outcome = _run(
        target, fmt=Format(fmt), output=output, redactor=settings.redactor, verbose=verbose
    )
    with _last_resort(verbose, settings.redactor):
        _finish(outcome, settings, report_file or default_report_path(settings), fail_on, verbose)


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
    default=DEFAULT_MODEL,
    show_default=True,
    help="Claude model of the reviewers.",
)
@click.option(
    "--judge-model", default=DEFAULT_MODEL, show_default=True, help="Claude model of the judge."
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
    model: str,
    judge_model: str,
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
    settings = Settings.from_environ(os.environ)
    _configure_logging(verbose, settings)
    options = EvalOptions(
        model=model,
        judge_model=judge_model,
        cache_dir=cache_dir,
        resume=resume,
        limit=limit,
        only=pattern,
    )
    with _last_resort(verbose, settings.redactor):
        code = run_evaluation(
            bench,
            options,
            settings,
            out=out,
            agent_progress=_progress(),
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
    click.echo(schema_json())


@cli.command()
def version() -> None:
    """Print reviewbot's version.

    \b
    Example:
      reviewbot version
    """
    click.echo(__version__)


# ---------------------------------------------------------------- helpers


def _run(
    target: Target, *, fmt: Format, output: Path | None, redactor: Redactor, verbose: bool
) -> RunOutcome:
    with _last_resort(verbose, redactor):
        try:
            stream: TextIO = sys.stdout if output is None else output.open("w", encoding="utf-8")
        except OSError as exc:
            raise UsageError(f"cannot write {output}: {exc.strerror}") from exc
        try:
            return target(emit=emitter(fmt, stream, redactor))
        finally:
            if stream is not sys.stdout:
                stream.close()


@contextmanager
def _last_resort(verbose: bool, redactor: Redactor) -> Iterator[None]:
    """A `ReviewbotError` is its one line and exit code; anything else is a bug: exit 70."""
    try:
        yield
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
    written = write_report(outcome.report, report_path, redact) if report_path is not None else None
    write_actions_outputs(settings, outcome.report, written, redact)
    verdict = Verdict.parse(outcome.report.verdict)
    click.echo(
        f"reviewbot: verdict {verdict.label}" + (f" (report: {written})" if written else ""),
        err=True,
    )
    refused = next(
        (a for a in outcome.report.agents if a.stop_reason is StopReason.CREDENTIALS_REFUSED), None
    )
    if refused is not None:  # a broken secret must fail the step, after the Hold is published
        _fail(
            AuthError(refused.error or "the Messages API rejected ANTHROPIC_API_KEY"),
            verbose,
            redact,
        )
    if fail_on != "none" and verdict >= Verdict.parse(fail_on):
        _fail(
            VerdictGateError(f"the verdict is {verdict.label} and --fail-on is {fail_on}"), verbose
        )


def _fail(exc: ReviewbotError, verbose: bool, redactor: Redactor | None = None) -> NoReturn:
    redact = redactor or Redactor()
    if verbose:
        log.debug("error", exc_info=exc)
    click.echo(f"reviewbot: error: {redact(str(exc))}", err=True)
    sys.exit(exc.exit_code)


def _progress() -> Progress:
    # A live line only for a person at a terminal; CI logs get the final lines instead.
    return RichProgress() if sys.stderr.isatty() else SilentProgress()


def _operator(non_interactive: bool) -> Operator:
    if non_interactive or not sys.stdin.isatty():
        return NoOperator()
    return TerminalOperator(input=sys.stdin, output=sys.stderr)


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


def main() -> None:
    """Console-script entry point."""
    sys.exit(cli.main(standalone_mode=True))
