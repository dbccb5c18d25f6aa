"""Large tool outputs, cut to a budget: head and tail kept, the middle replaced by a note.

The note says how many lines were left out and how to read them, so the model
can ask for exactly the rest instead of guessing. Also the small cuts
every read tool shares: one long line (`clip`), a numbered line (`numbered`) and
an error's first line (`first_line`). Pure functions.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

_NOTE_RESERVE = 200  # room for the note itself, so the whole stays within max_chars
MAX_LINE_CHARS = 2_000  # a minified line must not eat the whole budget
MAX_FIRST_LINE = 300

Omitted = Callable[[int, int], str]  # (first, last) omitted index, 0-based inclusive → note


def head_tail(lines: Sequence[str], max_chars: int, note: Omitted) -> str:
    """`lines` joined by newlines, or head + note + tail when longer than `max_chars`."""
    if sum(len(line) + 1 for line in lines) <= max_chars:
        return "\n".join(lines)
    budget = max((max_chars - _NOTE_RESERVE) // 2, 1)
    head_end = _fit(lines, budget)
    tail_start = len(lines) - _fit(lines[::-1][: len(lines) - head_end], budget)
    tail_start = max(tail_start, head_end + 1)  # at least one line is left out, or we would fit
    middle = note(head_end, tail_start - 1)
    return "\n".join([*lines[:head_end], middle, *lines[tail_start:]])


def head_tail_chars(text: str, max_chars: int, hint: str) -> str:
    """For text that is not line-shaped: `hint` says how to get a smaller answer."""
    if len(text) <= max_chars:
        return text
    half = max((max_chars - _NOTE_RESERVE) // 2, 1)
    omitted = len(text) - 2 * half
    return f"{text[:half]}\n… {omitted:,} characters omitted; {hint}\n{text[-half:]}"


def _fit(lines: Sequence[str], budget: int) -> int:
    """How many leading lines fit in `budget` characters (newlines counted)."""
    used = 0
    for count, line in enumerate(lines):
        used += len(line) + 1
        if used > budget:
            return count
    return len(lines)


def clip(line: str, limit: int = MAX_LINE_CHARS) -> str:
    """One line cut to `limit` characters, saying how many more it had."""
    if len(line) <= limit:
        return line
    return f"{line[:limit]}… [{len(line) - limit:,} more characters on this line]"


def numbered(number: int, line: str) -> str:
    """A file line as the read tools show it: the line number, a tab, the (clipped) text."""
    return f"{number:>6}\t{clip(line)}"


def first_line(text: str, limit: int = MAX_FIRST_LINE) -> str:
    """The first non-blank line of `text`, stripped and cut to `limit`; "" when there is none."""
    return next((line.strip() for line in text.splitlines() if line.strip()), "")[:limit]
