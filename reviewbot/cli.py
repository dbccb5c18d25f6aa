"""The command line: click commands that parse, call one app function, map to an exit code.

Exit codes: `reviewbot.errors.EXIT_CODES`, the one table (`review --help` prints it, the
README's is tested against it).

A `ReviewbotError` prints its one-line message; any other exception is a bug and
says so, with the traceback only under --verbose. Codes 3, 4 and 5 also end a run
whose agents the Messages API stopped, after the Hold was printed and published
(`AgentReport.exit_code`): a failing API is not a verdict.
"""

from __future__ import annotations

import inspect
import logging
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click
from click.core import ParameterSource

import reviewbot
from reviewbot.config.logs import configure_logging, inert_lines, workflow_commands_stopped
from reviewbot.config.settings import Settings
from reviewbot.config.target import TargetFlags, parse_target
from reviewbot.errors import ExitCode, ReviewbotError, UsageError, exit_code_table
from reviewbot.eval.entry import evaluate
from reviewbot.learn.command import learn
from reviewbot.output.emit import (
    Delivery,
    Format,
    ReportFile,
    default_report_path,
    discard_stdout,
    open_stream,
    prepare_file,
    stdout_emitter,
)
from reviewbot.output.exits import exit_with, fail, last_resort
from reviewbot.review.gate import FAIL_NEVER, FAIL_ON_CHOICES

# Start-up: the SDKs, pydantic, rich and git cost a second to import, and `--help`, a usage
# error or `version` need none of them. They are imported inside the commands that do.
if TYPE_CHECKING:
    from reviewbot.agent.progress import LogProgress, RichProgress
    from reviewbot.app import RunOutcome

    LiveProgress = RichProgress | LogProgress

CONFIG_DEFAULT = ".reviewbot.toml"  # reviewbot.config.file.CONFIG_FILE, without importing pydantic
log = logging.getLogger("reviewbot")


class _Manners(click.Group):
    """Every command: Ctrl-C is 130 and a reader that quit is 141, as `review` documents.

    Left to click, an interrupt is "Aborted!" and a closed pipe exit 1: the code of `--fail-on`.
    """

    def make_context(
        self,
        info_name: str | None,
        args: list[str],
        parent: click.Context | None = None,
        **extra: Any,
    ) -> click.Context:
        # `--help` and `--version` print while the arguments are parsed, before `invoke`.
        with _manners():
            return super().make_context(info_name, args, parent, **extra)

    def invoke(self, ctx: click.Context) -> Any:
        # In Actions, nothing the command prints (PR text included) can run a workflow command.
        in_actions = Settings.from_environ(os.environ).in_actions
        with workflow_commands_stopped(sys.stderr, in_actions=in_actions), _manners():
            return super().invoke(ctx)


@contextmanager
def _manners() -> Iterator[None]:
    try:
        yield
    except KeyboardInterrupt:
        click.echo("\nreviewbot: interrupted", err=True)
        sys.exit(ExitCode.INTERRUPTED)
    except BrokenPipeError:  # `reviewbot schema | head -1`, `reviewbot --help | true`
        discard_stdout()
        sys.exit(ExitCode.CLOSED_STDOUT)


@click.group(
    cls=_Manners,
    context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100},
)
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
      reviewbot config check .reviewbot.toml
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
    "are created; in GitHub Actions: always, in RUNNER_TEMP). Nothing to review: the report "
    "that says so; the error line of a run that fails says it wrote none.",
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
    type=click.Choice(FAIL_ON_CHOICES),
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
@click.option("--verbose", "-v", count=True, help="Log reviewbot's steps (-vv: libraries' too).")
def review(**options: Any) -> None:
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
    verdict Hold), ANTHROPIC_BASE_URL, GITHUB_TOKEN or GH_TOKEN, GITHUB_API_URL;
    REVIEWBOT_PROVIDER=bedrock|vertex for Claude through a cloud (see the README).

    \b
    Exit codes:
    {exit_codes}
    """
    _review(_ReviewOptions(**options), click.get_current_context())


# As click shows a docstring (inspect is loaded already, by dataclasses), with the table
# generated from errors.EXIT_CODES, so help and exit paths cannot disagree.
review.help = inspect.cleandoc(review.help or "").replace("{exit_codes}", exit_code_table("  "))


@dataclass(frozen=True, slots=True, kw_only=True)
class _ReviewOptions:
    """`reviewbot review`'s options, as click parsed them."""

    pr_url: str | None
    local: bool
    base: str | None
    head: str
    worktree: bool
    github_event: bool
    from_snapshot: Path | None
    post: bool
    fmt: str
    output: Path | None
    report_file: Path | None
    model: str | None
    config_path: str
    fail_on: str
    non_interactive: bool
    verbose: int


def _review(opts: _ReviewOptions, ctx: click.Context) -> None:
    settings = Settings.from_environ(os.environ)
    configure_logging(opts.verbose, settings)
    report = ReportFile(
        opts.report_file or default_report_path(settings), explicit=opts.report_file is not None
    )
    try:
        target = parse_target(_target_flags(opts, ctx), in_event=settings.event_name is not None)
        config_path, config_required = _config_choice(ctx, opts.config_path, opts.local, settings)
        # Like -o: a path that cannot be written fails before the review, not after it.
        if report.path is not None:
            prepare_file(report.path, "the report")
    except ReviewbotError as exc:
        fail(exc, opts.verbose, aside=report.aside)
    from reviewbot.app import Clients, Job, run
    from reviewbot.tools.ask_user import operator_for

    progress = _progress()
    job = Job(
        progress=progress,
        post=opts.post,
        model=opts.model or None,
        config_path=config_path,
        config_required=config_required,
        operator=operator_for(
            input=sys.stdin, output=sys.stderr, interactive=not opts.non_interactive
        ),
        clients=ctx.find_object(Clients) or Clients(),
    )
    delivery = Delivery()
    with last_resort(opts.verbose, settings.redactor, progress, aside=report.aside):
        with open_stream(opts.output) as stream:
            emission = stdout_emitter(Format(opts.fmt), stream, settings, delivery)
            outcome = run(target, settings, job, emission)
            emission.close()  # JSON and SARIF: one document, whatever the number of PRs
        _finish(outcome, settings, report, opts.fail_on)
    if delivery.closed:  # everything else went well: say only that the reader missed output
        sys.exit(ExitCode.CLOSED_STDOUT)


def _target_flags(opts: _ReviewOptions, ctx: click.Context) -> TargetFlags:
    return TargetFlags(
        pr_url=opts.pr_url,
        local=opts.local,
        github_event=opts.github_event,
        from_snapshot=opts.from_snapshot,
        base=opts.base,
        head=opts.head,
        worktree=opts.worktree,
        post=opts.post,
        post_from_env=ctx.get_parameter_source("post") is ParameterSource.ENVIRONMENT,
        given=frozenset(name for name in ("base", "head") if _given(ctx, name)),
    )


@cli.command()
@click.option(
    "--out",
    type=click.Path(path_type=Path, file_okay=False),
    required=True,
    help="Folder to write the PR reference into (upload it as an artifact).",
)
@click.option("--github-event", is_flag=True, default=True, hidden=True)
@click.option("--verbose", "-v", count=True, help="Log every step (-vv: libraries' too).")
def snapshot(out: Path, github_event: bool, verbose: int) -> None:
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
    configure_logging(verbose, settings)
    try:
        reference = save_reference(out, settings)
    except ReviewbotError as exc:
        fail(exc, verbose)
    except OSError as exc:  # --out under a file, a read-only folder: the user's path, not a bug
        fail(UsageError(f"cannot write the PR reference into {out}: {exc.strerror}"), verbose)
    click.echo(
        f"reviewbot: saved {reference.repo}#{reference.number} at {reference.head_sha[:12]} in {out}",
        err=True,
    )


@cli.group(cls=_Manners)
def config() -> None:
    """Work with `.reviewbot.toml`."""


@config.command(name="check")
@click.argument("path", type=click.Path(path_type=Path), default=CONFIG_DEFAULT)
def config_check(path: Path) -> None:
    """Validate a config file (default ./.reviewbot.toml) before committing it to the base branch.

    \b
    Exit codes:
      0   valid: the effective configuration, every key, is printed as TOML
      2   invalid: one line names the line and the key; or not a regular file (a
          directory, a FIFO, a device, /dev/stdin on a pipe) or over 1 MB, unread
    """
    from reviewbot.config.check import check_file, effective_toml

    try:
        click.echo(effective_toml(check_file(path)), nl=False)
    except ReviewbotError as exc:
        fail(exc, verbose=False)
    click.echo(f"reviewbot: {path} is valid", err=True)


@cli.command()
@click.option("--host", default="127.0.0.1", show_default=True, help="The address to listen on.")
@click.option("--port", default=8080, show_default=True, type=click.IntRange(1, 65535))
@click.option(
    "--workers",
    default=2,
    show_default=True,
    type=click.IntRange(0, 256),
    help="Review processes on this machine (0: intake only; workers run elsewhere).",
)
def serve(host: str, port: int, workers: int) -> None:
    """Run the GitHub App's webhook server and review workers (see the README's
    "Serve a whole organisation"). Settings come from the environment: REVIEWBOT_APP_ID,
    REVIEWBOT_APP_PRIVATE_KEY (or _FILE), REVIEWBOT_WEBHOOK_SECRET, REVIEWBOT_QUEUE_URL
    (unset: a private PostgreSQL cluster in REVIEWBOT_STATE_DIR) and the model's.

    \b
    Example:
      REVIEWBOT_APP_ID=123 REVIEWBOT_APP_PRIVATE_KEY_FILE=app.pem \\
      REVIEWBOT_WEBHOOK_SECRET=… ANTHROPIC_API_KEY=… reviewbot serve --workers 4
    """
    from reviewbot.redact import Redactor
    from reviewbot.serve.command import run_server

    with last_resort(0, Redactor()):  # one line and its code, never a traceback
        run_server(host, port, workers, os.environ)


cli.add_command(learn)
cli.add_command(evaluate, name="eval")


@cli.command()
def schema() -> None:
    """Print the JSON Schema of the `--format json` report.

    \b
    Example:
      reviewbot schema > report.schema.json
    """
    from reviewbot.results.report import schema_json

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


def _config_choice(
    ctx: click.Context, given: str, local: bool, settings: Settings
) -> tuple[str, bool]:
    """The config path and whether it must exist: any --config must; REVIEWBOT_CONFIG only
    when it names another file than the default (the Action always sets it)."""
    from reviewbot.config.file import CONFIG_FILE, config_path_in_repo

    source = ctx.get_parameter_source("config_path")
    # --local resolves the path against its repository (git_repo); a PR's against the workspace.
    path = given if local else config_path_in_repo(given, root=settings.workspace)
    if source is ParameterSource.COMMANDLINE:
        return path, True
    # The Action always sets REVIEWBOT_CONFIG: to the default name unless configured otherwise.
    default = given.strip() in (CONFIG_FILE, f"./{CONFIG_FILE}")
    return path, source is ParameterSource.ENVIRONMENT and not default


def _finish(outcome: RunOutcome, settings: Settings, report: ReportFile, fail_on: str) -> None:
    from reviewbot.output.emit import write_actions_outputs
    from reviewbot.review.gate import gate

    redact = settings.redactor
    for note in outcome.notes:
        click.echo(inert_lines(f"reviewbot: {redact(note)}"), err=True)
    for line in outcome.pr_lines(redact):  # a run over several PRs: how each ended
        click.echo(inert_lines(line), err=True)
    if outcome.report is None:
        said = "command" if outcome.command else "nothing to review"
        why = redact(outcome.skipped or "no reason given")
        click.echo(inert_lines(f"reviewbot: {said}: {why}"), err=True)
        # What --format json prints; in Actions by default only a /plan or /split answer's.
        kept = report.explicit or outcome.proposal is not None
        written = report.write((outcome.skipped_report(),) if kept else (), redact)
        write_actions_outputs(settings, None, written, redact)
        _exit_on_failure(outcome)
        return
    every = outcome.every_report
    verdict_line = f"reviewbot: verdict {outcome.report.verdict.label}"
    try:
        written = report.write(every, redact)
    except UsageError:  # the disk filled up since the check: the verdict line still comes first
        click.echo(verdict_line, err=True)
        raise
    write_actions_outputs(settings, outcome.report, written, redact, every=every)
    click.echo(verdict_line + (f" (report: {written})" if written else ""), err=True)
    _exit_on_failure(outcome)  # a PR that failed is not hidden behind the others' verdicts
    if outcome.superseded:
        return  # a push superseded the run: the newer head's run gates it (exit 0)
    failure = gate(outcome.report, fail_on)
    if failure is not None:
        exit_with(failure.message, failure.code, redact)


def _exit_on_failure(outcome: RunOutcome) -> None:
    """Several PRs, one failed: exit with the first failure's code, after the others' output."""
    if outcome.failures:
        sys.exit(outcome.failures[0][1].exit_code)


def _progress() -> LiveProgress:
    from reviewbot.agent.progress import progress_for

    return progress_for(sys.stderr)


def main() -> None:
    """Console-script entry point."""
    sys.exit(cli.main(standalone_mode=True))
