"""`reviewbot eval --history REPO`: mine the golden set, write it, and hand it to `eval`.

    --history REPO [--since DATE] [--paths P …] [--limit N]
        ─▶ mine.py (no model) ─▶ --golden-out FILE (default: CACHE_DIR/history-golden.json)
        ─▶ --mine-only? stop, exit 0 ─▶ else `reviewbot eval FILE` as for any benchmark

BENCH and --history exclude each other; --golden-out, --mine-only, --since and --paths
need --history (a `UsageError`, exit 2). What the miner saw goes to stderr, a line each.
Must not: import click (cli.py does) or call the model while mining.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from reviewbot.errors import UsageError
from reviewbot.eval.mine import MineOptions, mine
from reviewbot.eval.mined import golden_entries, repo_slug, summary, write_golden
from reviewbot.redact import Redactor
from reviewbot.sources.git_history import History

DEFAULT_GOLDEN = "history-golden.json"
_NEEDS_HISTORY = ("golden_out", "mine_only", "since", "paths")


def history_bench(bench: Path | None, flags: Mapping[str, Any], redactor: Redactor) -> Path | None:
    """The benchmark file `eval` runs: BENCH, or the one mined by --history (None: --mine-only)."""
    repo: Path | None = flags.get("history")
    if repo is None:
        given = [f"--{name.replace('_', '-')}" for name in _NEEDS_HISTORY if flags.get(name)]
        if given:
            raise UsageError(f"{', '.join(given)} need --history REPO")
        if bench is None:
            raise UsageError("give a benchmark file BENCH, or --history REPO to mine one")
        return bench
    if bench is not None:
        raise UsageError("give a benchmark file BENCH or --history REPO, not both")
    out: Path = flags.get("golden_out") or Path(flags["cache_dir"]) / DEFAULT_GOLDEN
    history = History(repo)
    slug = repo_slug(history, repo)
    options = MineOptions(
        since=parse_since(flags.get("since")),
        paths=tuple(flags.get("paths") or ()),
        limit=flags.get("limit"),
        project=slug.rpartition("/")[2],
    )
    entries, stats = mine(history, options, note=lambda line: _say(line, redactor))
    for line in summary(stats, len(entries)):
        _say(line, redactor)
    if not entries and not flags.get("mine_only"):
        raise UsageError(f"the history of {repo} gave no golden entry: nothing to evaluate")
    write_golden(golden_entries(entries, slug), out)
    _say(f"wrote the golden set to {out}", redactor)
    return None if flags.get("mine_only") else out


def parse_since(text: str | None) -> int | None:
    """`--since`: a date or an ISO 8601 time (UTC unless it says otherwise), as epoch seconds."""
    if text is None:
        return None
    try:
        when = datetime.fromisoformat(text.strip())
    except ValueError:
        raise UsageError(f"--since {text!r} is not a date: expected YYYY-MM-DD") from None
    return int((when if when.tzinfo else when.replace(tzinfo=UTC)).timestamp())


def _say(line: str, redactor: Redactor) -> None:
    print(f"reviewbot: {redactor(line)}", file=sys.stderr, flush=True)
