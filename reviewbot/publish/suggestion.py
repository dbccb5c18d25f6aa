"""Rendering a node's `suggestion`: a committable ```suggestion block, or a plain diff.

GitHub applies a ```suggestion block to exactly the lines the comment covers, with
one click. reviewbot only offers that click when it is safe:

1. the comment covers exactly the anchored lines (a narrowed comment does not);
2. the head file could be read from the checkout (inside it, symlinks resolved);
3. the file with the suggestion applied still parses. Checked languages: Python
   (`ast`), JSON (`json`), TOML (`tomllib`). Other languages have no parser here
   (tree-sitter-language-pack downloads its grammars at run time, which an
   offline runner cannot), so their suggestions are shown as a ```diff block.

4. the suggestion contains no `<!--`. The bot's own comments are where its hidden
   markers are trusted, and a committable block must carry the text verbatim, so
   a suggestion that could open an HTML comment (and so forge a marker) is never
   committable;
5. the suggestion contains no invisible, bidirectional or control character
   (inert.py): one click must never commit text that reads differently from
   what it does ("Trojan Source").

Anything else is a non-committable ```diff block, so no finding loses its fix. Its
lines (the head file's, the agent's quote, the suggestion: all untrusted) show
invisible characters as `[U+XXXX]` and are neutralised, so a diff block can never
carry a marker either. Either block's fence is longer than any backtick run inside.
Must not: write files, or run anything from the PR.
"""

from __future__ import annotations

import ast
import json
import tomllib
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path, PurePosixPath

from reviewbot.nodes.model import Anchor
from reviewbot.publish.inert import fence, neutralize, visible

MAX_FILE_BYTES = 2_000_000


class Form(StrEnum):
    SUGGESTION = "suggestion"
    DIFF = "diff"


@dataclass(frozen=True, slots=True, kw_only=True)
class RenderedSuggestion:
    form: Form
    markdown: str  # the fenced block
    note: str = ""  # why it is not committable, for the reader


def _parse_python(text: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # SyntaxWarning for odd escapes is not a parse failure
        ast.parse(text)


_PARSERS: dict[str, Callable[[str], object]] = {
    ".py": _parse_python,
    ".pyi": _parse_python,
    ".json": json.loads,
    ".toml": tomllib.loads,
}


def read_head_text(checkout: Path, path: str) -> str | None:
    """The head version of `path`, or None when it is missing, outside the checkout, binary or huge."""
    root = checkout.resolve()
    try:
        target = (root / PurePosixPath(path)).resolve()
        if not target.is_relative_to(root) or not target.is_file():
            return None  # a symlink out of the checkout must never be read, let alone posted
        if target.stat().st_size > MAX_FILE_BYTES:
            return None
        return target.read_bytes().decode("utf-8")
    except (OSError, UnicodeDecodeError, ValueError):
        return None


def parses(path: str, text: str) -> bool | None:
    """True/False when a parser for the file's language is known, None when none is."""
    parser = _PARSERS.get(PurePosixPath(path).suffix.lower())
    if parser is None:
        return None
    try:
        parser(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return True


def splice(text: str, start: int, end: int, replacement: str) -> str | None:
    """`text` with lines start..end replaced; None when the lines do not exist."""
    lines = text.splitlines(keepends=True)
    if not 1 <= start <= end <= len(lines):
        return None
    new = replacement if replacement.endswith("\n") or not replacement else replacement + "\n"
    if end == len(lines) and not lines[-1].endswith("\n"):
        new = new.removesuffix("\n")
    return "".join([*lines[: start - 1], new, *lines[end:]])


def render_suggestion(
    anchor: Anchor,
    suggestion: str,
    *,
    comment_range: tuple[int, int] | None,
    head_text: str | None,
) -> RenderedSuggestion:
    """A committable block when every rule in the module docstring holds, else a diff block."""
    old = _old_lines(anchor, head_text)
    note = _why_not(anchor, suggestion, comment_range, head_text)
    if not note:
        body = suggestion if suggestion.endswith("\n") or not suggestion else suggestion + "\n"
        mark = fence(body)
        return RenderedSuggestion(form=Form.SUGGESTION, markdown=f"{mark}suggestion\n{body}{mark}")
    diff = "".join(f"-{line}\n" for line in _shown(old).splitlines())
    diff += "".join(f"+{line}\n" for line in _shown(suggestion).splitlines())
    mark = fence(diff)
    return RenderedSuggestion(form=Form.DIFF, markdown=f"{mark}diff\n{diff}{mark}", note=note)


def _shown(code: str) -> str:
    """Untrusted code as a diff block shows it: invisibles visible, never an HTML comment."""
    return neutralize(visible(code))


def _old_lines(anchor: Anchor, head_text: str | None) -> str:
    if head_text is not None:
        lines = head_text.splitlines()
        if anchor.end_line <= len(lines):
            return "\n".join(lines[anchor.start_line - 1 : anchor.end_line])
    return anchor.quote


def _why_not(
    anchor: Anchor,
    suggestion: str,
    comment_range: tuple[int, int] | None,
    head_text: str | None,
) -> str:
    """An empty string when the suggestion may be committable, else the reason it is not."""
    if neutralize(suggestion) != suggestion:
        return "not committable: the suggestion opens an HTML comment, which reviewbot never posts"
    if visible(suggestion) != suggestion.replace("\r\n", "\n").replace("\r", "\n"):
        return "not committable: the suggestion holds invisible or bidirectional characters"
    if comment_range != (anchor.start_line, anchor.end_line):
        return "not committable: the comment covers only part of the anchored lines"
    if head_text is None:
        return "not committable: the head file could not be read"
    applied = splice(head_text, anchor.start_line, anchor.end_line, suggestion)
    if applied is None:
        return "not committable: the anchored lines are not in the head file"
    verdict = parses(anchor.path, applied)
    if verdict is None:
        return "not committable: no parser to check this language"
    if not verdict:
        return "not committable: the file would not parse with it applied"
    return ""
