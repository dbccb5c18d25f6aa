"""`reviewbot eval BENCH.json`, behind the click command: read, run, show, write, exit code.

Exit codes (documented in the README and in `reviewbot eval --help`):

    0   every selected PR was reviewed, judged and scored
    2   the benchmark file is unusable (unreadable, not JSON, not a list, no valid
        entry, nothing selected), or some entries are invalid (one line each; the
        valid PRs still ran and are reported)
    3   ANTHROPIC_API_KEY is not set, or the Messages API rejected it
    4/5/6  a PR could not be evaluated (not found / network or judge / git): the first
        such PR's code; the other PRs still ran and are reported

Must not: import click (cli.py does), or post anything (the runner's reviews are dry runs).
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from rich.console import Console

from reviewbot.agent.progress import Progress
from reviewbot.config.file import DEFAULT_MODEL
from reviewbot.config.settings import Settings
from reviewbot.errors import AuthError, ExitCode, UsageError
from reviewbot.eval.bench import load_benchmark
from reviewbot.eval.history_command import history_bench
from reviewbot.eval.profiles import Profile
from reviewbot.eval.result import EvalResult
from reviewbot.eval.runner import NO_KEY, EvalOptions, run_eval, select
from reviewbot.eval.shared import QueueRun
from reviewbot.eval.terminal import TerminalProgress, render_result
from reviewbot.output.emit import discard_stdout
from reviewbot.output.terminal import PipeConsole

__all__ = ["eval_options", "history_bench", "run_evaluation"]

BAD_ENTRIES = 2
PIPED_WIDTH = 120


def eval_options(flags: Mapping[str, Any]) -> tuple[EvalOptions, Path | None]:
    """The click command's options (already checked by click) as the runner's, and `--out`."""
    options = EvalOptions(
        model=flags["model"] or DEFAULT_MODEL,
        judge_model=flags["judge_model"] or DEFAULT_MODEL,
        cache_dir=flags["cache_dir"],
        resume=flags["resume"],
        limit=flags["limit"],
        only=flags["only"],
        profile=Profile(flags["profile"]),
        beta=flags["beta"],
        workers=flags["workers"],
        clone=flags.get("history"),
        queue=_queue(flags),
    )
    return options, flags["out"]


def _queue(flags: Mapping[str, Any]) -> QueueRun | None:
    run = flags.get("queue")
    if run is None:
        return None
    if not flags.get("queue_url"):
        raise UsageError("--queue needs REVIEWBOT_QUEUE_URL: the PostgreSQL of reviewbot serve")
    return QueueRun(url=flags["queue_url"], run=run)


def run_evaluation(
    bench_path: Path,
    options: EvalOptions,
    settings: Settings,
    *,
    out: Path | None,
    agent_progress: Progress,
    interactive: bool,
) -> int:
    """Run the evaluation and return the exit code; a `ReviewbotError` ends it with its own."""
    if settings.provider == "anthropic" and settings.anthropic_api_key is None:
        raise AuthError(NO_KEY)  # a cloud's credentials are checked when its client is made
    redactor = settings.redactor
    # A live judging line is one PR's: with several workers, only the per-PR lines.
    live = interactive and options.workers == 1
    progress = TerminalProgress(Console(stderr=True, highlight=False), redactor, live=live)
    bench = load_benchmark(bench_path)
    for problem in bench.problems:
        progress.note(problem)
    if not bench.prs:
        raise UsageError(f"the benchmark {bench_path} has no valid pull request entry")
    if not select(bench.prs, only=options.only, limit=options.limit):
        raise UsageError(f"--only {options.only!r} selects none of the {len(bench.prs)} PR(s)")
    result = run_eval(
        bench,
        origin=str(bench_path),
        settings=settings,
        options=options,
        progress=progress,
        agent_progress=agent_progress,
    )
    # Piped into a file or a CI log, rich would squeeze the tables into 80 columns.
    width = None if sys.stdout.isatty() else PIPED_WIDTH
    try:
        render_result(result, PipeConsole(file=sys.stdout, highlight=False, width=width), redactor)
    except BrokenPipeError:  # `reviewbot eval … | head`: the results file is still written
        discard_stdout()
        closed = True
    else:
        closed = False
    if out is not None:
        write_result(result, out, settings)
        progress.note(f"wrote the results to {out}")
    code = exit_code(result)
    return ExitCode.CLOSED_STDOUT if closed and code == 0 else code


def write_result(result: EvalResult, out: Path, settings: Settings) -> None:
    try:
        out.write_text(settings.redactor(result.model_dump_json(indent=2)) + "\n", encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"cannot write {out}: {exc.strerror}") from exc


def exit_code(result: EvalResult) -> int:
    if result.problems:
        return BAD_ENTRIES
    return result.failed[0].exit_code if result.failed else 0
