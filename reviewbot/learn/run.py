"""What `reviewbot learn` does once its flags are read: connect, read, write or check, say.

Reads the existing file first (a malformed one is one error line, exit 2, and nothing is
written), then either merges what the dismissals teach into it (`--out`) or judges each
entry against the default branch (`--check`). What it did goes to stderr, one line each.

Must not: import click (learn/command.py does), or write anything but the `--out` file.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from reviewbot.app import Clients, connect, pr_ref
from reviewbot.config.learnings import (
    Learnings,
    learnings_toml,
    load_learnings,
    merged_learnings,
)
from reviewbot.config.settings import Settings
from reviewbot.errors import ExitCode, UsageError
from reviewbot.learn.harvest import harvest
from reviewbot.learn.stale import check_stale
from reviewbot.output.exits import say

STALE = 1


def run_learn(
    url: str,
    settings: Settings,
    *,
    pr: int | None,
    since: datetime | None,
    out: Path,
    check: bool,
    clients: Clients | None = None,
) -> int:
    """The exit code: 0, or 1 when `check` found stale learnings."""
    ref = pr_ref(url, settings)
    existing = _existing(out)
    with connect(ref, settings, clients or Clients()) as github:
        if check:
            checked = check_stale(github.client, ref.full_name, existing)
            for note in checked.notes:
                say(f"reviewbot: {note}")
            for stale in checked.stale:
                entry = stale.learning
                say(
                    f"stale: {out} entry {entry.fingerprint} ({entry.kind.value} “{entry.title}”, "
                    f"scope {entry.scope}): {stale.why}"
                )
            say(
                f"reviewbot: {len(checked.stale)} of {len(existing.entries)} learning(s) stale at "
                f"{checked.branch} {checked.head[:12]}"
            )
            return STALE if checked.stale else ExitCode.OK
        found = harvest(github, ref.full_name, secret=settings.seal_secret, pr=pr, since=since)
    updated = merged_learnings(existing, found.learnings)
    text = learnings_toml(updated)
    known = {e.fingerprint for e in existing.entries}
    added = sum(1 for e in updated.entries if e.fingerprint not in known)
    changed = not out.exists() or out.read_text(encoding="utf-8") != text
    if changed:
        _write(out, text)
    prs = f"PR #{pr}" if pr is not None else f"{len(found.pulls)} PR(s)"
    ignored = (
        f"; {found.ignored} reply(s) by accounts that may not decide ignored"
        if found.ignored
        else ""
    )
    say(
        f"reviewbot: {len(found.learnings)} dismissal(s) in {prs}: {added} learning(s) added, "
        f"{len(updated.entries)} in all → {out}{' (unchanged)' if not changed else ''}{ignored}"
    )
    return ExitCode.OK


def _existing(out: Path) -> Learnings:
    if not out.exists():
        return Learnings()
    try:
        text = out.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"cannot read {out}: {exc}") from exc
    return load_learnings(text, origin=str(out))


def _write(out: Path, text: str) -> None:
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"cannot write {out}: {exc.strerror or exc}") from exc
