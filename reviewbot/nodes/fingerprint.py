"""A node's stable identity across runs and pushes.

Built from what a finding *is* (kind, file, normalised title, the anchored code),
never from where it sits: an unrelated edit that shifts lines must not make an
old finding look new, or a re-run would post it twice.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections.abc import Callable

from reviewbot.nodes.model import Finding

_SPACE = re.compile(r"\s+")
_EDGE_PUNCT = ".:;,!?`'\" "


def normalize_title(title: str) -> str:
    """Case, spacing, Unicode form and trailing punctuation do not change what a title says."""
    text = unicodedata.normalize("NFKC", title).casefold()
    return _SPACE.sub(" ", text).strip(_EDGE_PUNCT)


def normalize_code(code: str) -> str:
    """Indentation, line endings and blank lines do not change which code is meant."""
    lines = (_SPACE.sub(" ", line).strip() for line in code.splitlines())
    return "\n".join(line for line in lines if line)


def fingerprint(finding: Finding) -> str:
    """16 hex digits identifying the finding independently of line numbers."""
    anchor = finding.anchor
    if anchor is None:
        return _digest([finding.kind.value, "", normalize_title(finding.title), ""])
    return fingerprint_at(finding, path=anchor.path)(anchor.quote)


def fingerprint_at(finding: Finding, *, path: str) -> Callable[[str], str]:
    """The fingerprint `finding` (anchored) has at `path` when its anchor quotes `quote`.

    Made once per finding, so checking many candidate lines costs one hash each.
    """
    side = ["LEFT"] if finding.anchor is not None and finding.anchor.side == "LEFT" else []
    head = [finding.kind.value, path, normalize_title(finding.title)]
    # Deleted code and the same text in the head are different findings. RIGHT adds
    # nothing, so every fingerprint made before sides existed stays the same.
    return lambda quote: _digest([*head, normalize_code(quote), *side])


def _digest(parts: list[str]) -> str:
    digest = hashlib.sha256("\x1f".join(parts).encode("utf-8", "surrogatepass"))
    return digest.hexdigest()[:16]
