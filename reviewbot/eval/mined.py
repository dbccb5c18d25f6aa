"""`reviewbot eval --history REPO`: the miner's entries as a benchmark file, and its summary.

Each entry is in the benchmark's golden-comment format, so `reviewbot eval FILE` scores it
like any other, plus a `history` object the benchmark's own tools ignore:

    {"pr_title": "…", "url": "https://github.com/OWNER/REPO/pull/N",
     "comments": [{"comment": "<the fix's subject> (fixed later by <sha>) …",
                   "severity": "Medium", "category": "bug"}, …],
     "history": {"base": SHA, "head": SHA, "merge": SHA, "merged_at": ISO-8601,
                 "fixes": [{"commit": SHA, "message": "…",
                            "lines": [{"path": …, "line": N, "text": …}]}]}}

OWNER/REPO is the clone's `origin` remote on github.com, else `local/<folder>`. The golden
comment is written from the fix alone (its subject and the lines it changed), so the same
history always gives the same file. Every mined comment is a Medium `bug`: a commit message
says neither how severe a bug was nor, reliably, what kind.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from reviewbot.errors import UsageError
from reviewbot.eval.bench import Benchmark, parse_entries
from reviewbot.eval.mine import MAX_LINES_IN_COMMENT, Fix, MinedPR, MineStats
from reviewbot.sources.git_history import History

_TEXT_CUT = 120


def repo_slug(history: History, path: Path) -> str:
    return history.github_slug() or f"local/{path.resolve().name or 'repo'}"


def golden_entries(entries: list[MinedPR], slug: str) -> list[dict[str, Any]]:
    return [
        {
            "pr_title": entry.pr.title,
            "url": f"https://github.com/{slug}/pull/{entry.pr.number}",
            "comments": [_comment(fix) for fix in entry.fixes],
            "history": {
                "base": entry.pr.base,
                "head": entry.pr.head,
                "merge": entry.pr.sha,
                "merged_at": _iso(entry.pr.time),
                "fixes": [_fix(fix) for fix in entry.fixes],
            },
        }
        for entry in entries
    ]


def _comment(fix: Fix) -> dict[str, str]:
    shown = [f"{ln.path}:{ln.line} `{_cut(ln.text.strip())}`" for ln in fix.lines]
    more = len(shown) - MAX_LINES_IN_COMMENT
    lines = "; ".join(shown[:MAX_LINES_IN_COMMENT]) + (f"; and {more} more" if more > 0 else "")
    text = (
        f"{fix.commit.subject} (fixed later by {fix.commit.sha[:12]}). "
        f"The fix changed lines this PR wrote: {lines}."
    )
    return {"comment": text, "severity": "Medium", "category": "bug"}


def _fix(fix: Fix) -> dict[str, Any]:
    return {
        "commit": fix.commit.sha,
        "message": fix.commit.message,
        "lines": [{"path": ln.path, "line": ln.line, "text": ln.text} for ln in fix.lines],
    }


def _cut(text: str) -> str:
    return text if len(text) <= _TEXT_CUT else text[: _TEXT_CUT - 1] + "…"


def _iso(seconds: int) -> str:
    return datetime.fromtimestamp(seconds, tz=UTC).isoformat().replace("+00:00", "Z")


def as_benchmark(data: list[dict[str, Any]], origin: str) -> Benchmark:
    return parse_entries(data, origin=origin)


def write_golden(data: list[dict[str, Any]], out: Path) -> None:
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"cannot write the golden set to {out}: {exc.strerror}") from exc


def summary(stats: MineStats, kept: int) -> list[str]:
    """What the miner saw, a line each (for the terminal)."""
    lines = [
        f"scanned {stats.commits} commit(s): {stats.prs} pull request(s), "
        f"{stats.fixes} fix commit(s) ({stats.add_only} only add lines)",
        f"{stats.lines} line(s) deleted or changed by the fixes; "
        f"{stats.blamed_to_pr} blamed on a pull request; {kept} golden entr"
        + ("y" if kept == 1 else "ies")
        + " kept",
    ]
    lines += [f"  left out, {reason}: {n}" for reason, n in sorted(stats.filtered.items())]
    return lines
