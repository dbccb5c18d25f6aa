"""The `reviewbot eval` click command: its options, help and exit codes; the work is in
`eval/command.py` (mining a history: `eval/history_command.py`).

One of the modules besides cli.py that import click: the command is registered in cli.py with
one `add_command` line.
"""

from __future__ import annotations

import math
import os
import sys
from pathlib import Path
from typing import Any

import click


def _finite(beta: float) -> float:
    """NaN passes a range (every comparison with it is false); an F-beta of NaN is no score."""
    if math.isnan(beta):
        raise click.BadParameter("must be a number, not nan")
    return beta


@click.command(name="eval")
@click.argument("bench", type=click.Path(path_type=Path, dir_okay=False), required=False)
@click.option("--history", type=click.Path(path_type=Path, file_okay=False), help="Mine a clone.")
@click.option("--golden-out", type=click.Path(path_type=Path, dir_okay=False), help="Mined set.")
@click.option("--mine-only", is_flag=True, help="Stop after mining (no model).")
@click.option("--since", help="Mine PRs merged on or after this date (YYYY-MM-DD).")
@click.option("--paths", multiple=True, help="Mine only fixes of these paths (globs or folders).")
@click.option("--limit", type=click.IntRange(min=1), help="Evaluate only the first N PRs selected.")
@click.option("--only", help="Only PRs whose URL or title matches: a glob, else a substring.")
@click.option("--model", envvar="REVIEWBOT_MODEL", help="Claude model of the reviewers.")
@click.option("--judge-model", help="Claude model of the judge (default: the default model).")
@click.option(
    "--profile",
    type=click.Choice(["strict", "core", "all"]),
    default="core",
    show_default=True,
    help="Which golden-comment categories count.",
)
@click.option(
    "--beta",
    type=click.FloatRange(min=0, min_open=True, max=100),
    callback=lambda _ctx, _param, beta: _finite(beta),
    default=2.0,
    show_default=True,
    help="The β of the F-beta score.",
)
@click.option(
    "--workers",
    type=click.IntRange(min=1),
    default=1,
    show_default=True,
    help="PRs reviewed at the same time (they share one Messages API rate limit).",
)
@click.option(
    "--queue", metavar="RUN", help="Share this evaluation (its name) with other machines."
)
@click.option("--queue-url", envvar="REVIEWBOT_QUEUE_URL", hidden=True)
@click.option("--resume", is_flag=True, help="Reuse the PRs a previous run finished (the cache).")
@click.option("--out", type=click.Path(path_type=Path, dir_okay=False), help="JSON results file.")
@click.option(
    "--cache-dir",
    type=click.Path(path_type=Path, file_okay=False),
    default=".reviewbot-eval",
    show_default=True,
    help="Finished PRs, for --resume.",
)
@click.option("--verbose", "-v", count=True, help="Log every step (-vv: libraries' too).")
def evaluate(bench: Path | None, verbose: int, **flags: Any) -> None:
    """Measure review quality on a benchmark of golden comments (dry runs: nothing is posted).

    BENCH is a JSON list of {"pr_title", "url", "comments": [{"comment", "severity",
    "category"}]}, the public Code Review Bench format ("category" only in its newer
    files). Each PR is reviewed by reviewbot's real pipeline, each finding is matched to
    the golden comments by a separate judge, and precision, recall, F1 and F-beta are
    reported per PR, overall, by severity and by category, under the --profile.

    \b
    Examples:
      reviewbot eval golden_comments/sentry.json --out sentry-results.json
      reviewbot eval bench.json --only getsentry/sentry --limit 3
      reviewbot eval bench.json --resume --judge-model claude-opus-4-5 --profile strict
      reviewbot eval --history . --golden-out mined.json --mine-only --since 2024-01-01
      reviewbot eval bench.json --queue nightly --workers 4   # on each machine

    \b
    Environment: ANTHROPIC_API_KEY (required), ANTHROPIC_BASE_URL, GITHUB_TOKEN or
    GH_TOKEN (recommended: the unauthenticated API allows 60 requests an hour), GITHUB_API_URL,
    REVIEWBOT_QUEUE_URL (--queue: the PostgreSQL of reviewbot serve).

    \b
    Exit codes:
      0   every selected PR was reviewed, judged and scored
      2   the file is unusable, or some entries are invalid (the valid PRs still run);
          --queue: REVIEWBOT_QUEUE_URL unset, not PostgreSQL's, or refused by its database
      3   ANTHROPIC_API_KEY is not set, or the Messages API rejected it
      4   a PR was not found (the other PRs still run); 5 network, judge or an unreachable
          queue; 6 git
      70  internal error: a bug in reviewbot (run with --verbose for the traceback)
    """
    # Imported here: `reviewbot --help` and usage errors load none of the heavy libraries.
    from reviewbot.agent.progress import progress_for
    from reviewbot.config.logs import configure_logging
    from reviewbot.config.settings import Settings
    from reviewbot.eval.command import eval_options, history_bench, run_evaluation
    from reviewbot.output.exits import last_resort

    settings = Settings.from_environ(os.environ)
    configure_logging(verbose, settings)
    progress = progress_for(sys.stderr)
    interactive = sys.stderr.isatty()
    with last_resort(verbose, settings.redactor, progress):
        options, out = eval_options(flags)  # --queue without REVIEWBOT_QUEUE_URL: exit 2
        bench = history_bench(bench, flags, settings.redactor)
        if bench is None:
            sys.exit(0)  # --mine-only
        code = run_evaluation(
            bench, options, settings, out=out, agent_progress=progress, interactive=interactive
        )
    sys.exit(code)
