"""Numbered rows cut to a tool's output limit, and the head lines that survived whole.

What survives is what `reviewbot.coverage.seen.HeadViews` records as shown: a line cut in
the middle of a long output (head+tail truncation) or clipped at its end does not count.
"""

from __future__ import annotations

from collections.abc import Sequence

from reviewbot.text.truncate import MAX_LINE_CHARS, Omitted, head_tail


def bounded_rows(
    rows: Sequence[str], numbers: Sequence[int], texts: Sequence[str], max_chars: int, note: Omitted
) -> tuple[str, list[int]]:
    """`head_tail` over numbered rows, and the numbers of the rows that survived whole.

    `numbers[i]` and `texts[i]` are the head line number and the raw text of `rows[i]`.
    """
    omitted: list[tuple[int, int]] = []

    def recording(first: int, last: int) -> str:
        omitted.append((first, last))
        return note(first, last)

    text = head_tail(rows, max_chars, recording)
    gone = range(omitted[0][0], omitted[0][1] + 1) if omitted else range(0)
    return text, [
        number
        for index, (number, line) in enumerate(zip(numbers, texts, strict=True))
        if index not in gone and len(line) <= MAX_LINE_CHARS
    ]
