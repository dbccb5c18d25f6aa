"""The model's patterns — `search_code`'s regex and the read tools' globs — compiled for RE2.

Python's `re` backtracks: `(a+)+$` against a line of 30 `a`s and a `!` runs for
minutes, and nothing can interrupt it (the matcher never returns to Python code, so
no deadline check runs). RE2 matches in time linear in the text whatever the pattern,
so a search costs what the bytes it reads cost, and the tool's deadline is checked
between files and matches. The price is syntax: RE2 has no backreferences and no
lookaround (nor has ripgrep's); such a pattern is refused with RE2's reason and a way
round it. The only module that imports `re2`.

A file is searched in one pass over its UTF-8 bytes, not line by line: RE2's
`never_nl` keeps every match inside one line and `(?m)` makes `^`/`$` line ends, so
the lines found are exactly those a per-line search would find, ten times faster. That
holds because the anchors that see the whole text instead of a line — `\\A`, `\\z`, and
`^`/`$` with `m` turned off by `(?-m)` — are refused, with `^`/`$` as the way round.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Protocol

import re2

from reviewbot.text.hygiene import quoted
from reviewbot.tools.context import ToolRetry

Matches = Callable[[str], bool]
SYNTAX = (
    "search_code uses RE2 syntax, which runs in linear time: no backreferences (\\1) and "
    "no lookaround ((?=…), (?!…), (?<=…), (?<!…)); `^` and `$` are the ends of a line"
)


class _Match(Protocol):
    def start(self) -> int: ...


class _Compiled(Protocol):
    def search(self, text: bytes, pos: int = 0) -> _Match | None: ...
    def fullmatch(self, text: str) -> object: ...


def _options(*, one_line: bool) -> object:
    options = re2.Options()
    options.log_errors = False  # RE2 would print the model's pattern to stderr
    options.never_nl = one_line
    options.dot_nl = not one_line  # a glob's `**` spans a file name with a newline in it
    return options


_SEARCH = _options(one_line=True)
_GLOB = _options(one_line=False)


class LinePattern:
    """A compiled `search_code` regex: the lines of a text that contain a match."""

    def __init__(self, regex: str) -> None:
        # Compiled as given first, so an error quotes the model's own text.
        refusal = f"search_code cannot run {quoted(regex)}:"
        _compile(regex, _SEARCH, refusal)
        if _anchors_whole_text(regex):
            raise ToolRetry(
                f"{refusal} `\\A`, `\\z` and `(?-m)` anchor on the whole file, and the search "
                "is per line; use `^` and `$` (the start and end of a line)"
            )
        self._compiled = _compile(f"(?m){regex}", _SEARCH, refusal)

    def matching_lines(self, text: str) -> Iterator[tuple[int, str]]:
        """(number, line) of each matching line; lines split on LF, a CR before it is not content."""
        data = text.replace("\r\n", "\n").encode("utf-8")
        pos = counted = 0
        number = 1
        while (found := self._compiled.search(data, pos)) is not None:
            start = found.start()
            line_start = data.rfind(b"\n", 0, start) + 1
            if line_start == len(data):  # the empty "line" after the final newline is none
                return
            end = data.find(b"\n", start)
            end = len(data) if end < 0 else end
            number += data.count(b"\n", counted, line_start)
            counted = line_start
            yield number, data[line_start:end].decode("utf-8")
            pos = end + 1
            if pos > len(data):
                return


def _anchors_whole_text(regex: str) -> bool:
    """Whether `regex` (valid RE2) has `\\A`, `\\z` or a flag group turning `m` off.

    Escapes and character classes are skipped: `\\\\A` is a backslash and an A, `[(?-m)]` a set.
    """
    index, in_class = 0, False
    while index < len(regex):
        char = regex[index]
        if char == "\\":
            if not in_class and regex[index + 1 : index + 2] in ("A", "z"):
                return True
            index += 2
            continue
        if in_class:
            in_class = char != "]"
        elif char == "[":
            in_class = True
            index += 1
            if regex[index : index + 1] == "^":
                index += 1
            if regex[index : index + 1] == "]":  # a `]` first in a class is a member
                index += 1
            continue
        elif regex.startswith("(?", index):
            flags = _flags(regex, index + 2)
            if "-" in flags and "m" in flags.split("-", 1)[1]:
                return True
        index += 1
    return False


def _flags(regex: str, start: int) -> str:
    """The flag letters of a `(?flags)` or `(?flags:` group opening at `start`; "" if none."""
    end = start
    while end < len(regex) and regex[end] in "imsU-":
        end += 1
    return regex[start:end] if regex[end : end + 1] in (")", ":") else ""


def glob_matcher(source: str, glob: str) -> Matches:
    """Whether a whole path matches `source`, the regex of `glob` (`config.glob_source`)."""
    compiled = _compile(source, _GLOB, f"the glob {quoted(glob)} is not valid:")
    return lambda path: compiled.fullmatch(path) is not None


def _compile(pattern: str, options: object, refusal: str) -> _Compiled:
    try:
        compiled: _Compiled = re2.compile(pattern, options=options)
    except re2.error as exc:
        reason = exc.args[0] if exc.args else b""
        why = reason.decode("utf-8", "replace") if isinstance(reason, bytes) else str(reason)
        # RE2's reason echoes a piece of the pattern: quoted like the pattern itself.
        raise ToolRetry(f"{refusal} {quoted(why)} ({SYNTAX}); {_hint(why)}") from exc
    return compiled


def _hint(why: str) -> str:
    if "perl operator" in why or "escape sequence" in why:
        return "search for a simpler pattern and read the lines around the matches"
    return "fix the pattern and search again"
