"""A node's stable identity across runs and pushes.

Built from what a finding *is* (kind, file, normalised title, the anchored code),
never from where it sits: an unrelated edit that shifts lines must not make an
old finding look new, or a re-run would post it twice.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata

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
    parts = [
        finding.kind.value,
        anchor.path if anchor else "",
        normalize_title(finding.title),
        normalize_code(anchor.quote) if anchor else "",
    ]
    if anchor is not None and anchor.side == "LEFT":
        # Deleted code and the same text in the head are different findings. RIGHT adds
        # nothing, so every fingerprint made before sides existed stays the same.
        parts.append("LEFT")
    digest = hashlib.sha256("\x1f".join(parts).encode("utf-8", "surrogatepass"))
    return digest.hexdigest()[:16]
