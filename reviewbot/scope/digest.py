"""The effective config's digest: a review records it, and a change forces a full review."""

from __future__ import annotations

import hashlib
import json
from enum import StrEnum

from reviewbot.config.file import ReviewConfig


def config_digest(config: ReviewConfig) -> str:
    """16 hex digits of the effective config (the base branch's file and the CLI's overrides)."""
    canonical = json.dumps(_canonical(config.model_dump(mode="python")), sort_keys=True)
    return hashlib.sha256(canonical.encode()).hexdigest()[:16]


def _canonical(value: object) -> object:
    """JSON-ready, with sets sorted: a set's order differs between processes (hash seeds)."""
    match value:
        case dict():
            return {str(key): _canonical(item) for key, item in value.items()}
        case set() | frozenset():
            return sorted(str(_canonical(item)) for item in value)
        case list() | tuple():
            return [_canonical(item) for item in value]
        case StrEnum():
            return value.value
    return value
