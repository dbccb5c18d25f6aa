"""The lines a fix only renamed in: SZZ must not blame a refactoring's rename on the code's author.

A fix that renames a variable, a function or a type rewrites every line that uses the name,
though none of them was the bug. A deleted line counts as renamed when its hunk adds it back
with only such names changed, and a name counts as renamed when the file binds it (an
assignment, or `def`/`class`/`function`/`let`/… NAME) before the fix and no longer has it
after, while its replacement is bound only after. A name from outside the file (an import, an
attribute: `codecs.BOM32_BE` → `codecs.BOM_UTF32_BE`) swapped for another is a change of
behaviour, and is kept. Names are of four characters or more, so `and` → `or` is a change.

Must not: read git (mine.py hands the two texts over) or guess a language beyond the binding
forms above.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from reviewbot.sources.git_history import ZeroHunk

_NAME = re.compile(r"(?<![\w.])[A-Za-z_]\w{3,}")  # not an attribute, not a literal's tail (0x1f)
_DEFINED = re.compile(
    r"^\s*(?:export\s+)?(?:async\s+)?(?:def|class|function|func|fn|let|var|const|type)\s+([A-Za-z_]\w*)",
    re.MULTILINE,
)
# `name = …` or `name: T = …` as a statement: not `==`, not a keyword argument (`name=…,`)
_ASSIGNED = re.compile(r"^\s*([A-Za-z_]\w*)\s*(?::[^=\n]*)?=(?!=)(?![^\n]*,\s*$)", re.MULTILINE)


def renamed_lines(old_text: str, new_text: str, hunks: Iterable[ZeroHunk]) -> set[int]:
    """The old line numbers of `hunks` that the fix changed only by renaming bound names."""
    old_names, new_names = _names(old_text), _names(new_text)
    gone = (old_names - new_names) & _bound(old_text)
    fresh = (new_names - old_names) & _bound(new_text)
    if not gone or not fresh:
        return set()
    renamed: set[int] = set()
    for hunk in hunks:
        added = {_shape(text, fresh) for text in hunk.added}
        renamed.update(
            number
            for number, text in hunk.removed
            if _names(text) & gone and _shape(text, gone) in added
        )
    return renamed


def _names(text: str) -> set[str]:
    return set(_NAME.findall(text))


def _bound(text: str) -> set[str]:
    return set(_DEFINED.findall(text)) | set(_ASSIGNED.findall(text))


def _shape(line: str, names: set[str]) -> str:
    """The line without whitespace, each of `names` replaced by one placeholder."""
    return "".join(_NAME.sub(lambda m: "\0" if m[0] in names else m[0], line).split())
