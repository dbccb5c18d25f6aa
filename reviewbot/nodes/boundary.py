"""The read boundary: the one door every review node comes in through.

Model tool calls, markers read back from earlier reviews and node files all pass
through `read_boundary` (or `admit` for one item). It returns what is valid and
what was discarded, each discard with its raw input and a reason a person (or the
model, retrying) can act on. It never raises: a malformed finding must cost one
discard, not the review.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from pydantic import ValidationError

from reviewbot.nodes.model import Finding, ReviewNode

_PREVIEW = 80

M = TypeVar("M", Finding, ReviewNode)


@dataclass(frozen=True, slots=True, kw_only=True)
class Discarded:
    """Input refused at the boundary, kept with the reason it was refused."""

    raw: object
    reason: str
    origin: str


@dataclass(frozen=True, slots=True, kw_only=True)
class BoundaryResult(Generic[M]):
    valid: tuple[M, ...]
    discarded: tuple[Discarded, ...]


def admit(raw: object, model: type[M], *, origin: str) -> M | Discarded:
    """Validate one raw item (a mapping, or JSON text) as `model`; never raises."""
    try:
        if isinstance(raw, str | bytes | bytearray):
            return model.model_validate_json(raw)
        if not isinstance(raw, dict):
            return Discarded(
                raw=raw, reason=f"expected an object, got {_type_name(raw)}", origin=origin
            )
        return model.model_validate(raw)
    except ValidationError as exc:
        return Discarded(raw=raw, reason=explain(exc), origin=origin)
    except Exception as exc:  # noqa: BLE001 - trust boundary: hostile input may raise anything, and must cost one discard, never the run
        return Discarded(raw=raw, reason=f"unreadable input ({type(exc).__name__})", origin=origin)


def read_boundary(
    raws: Iterable[object] | object, model: type[M], *, origin: str
) -> BoundaryResult[M]:
    """Split `raws` into valid nodes and discards; a non-list input is one discard."""
    if not isinstance(raws, list | tuple):
        raws = [raws]
    valid: list[M] = []
    discarded: list[Discarded] = []
    for raw in raws:
        match admit(raw, model, origin=origin):
            case Discarded() as bad:
                discarded.append(bad)
            case good:
                valid.append(good)
    return BoundaryResult(valid=tuple(valid), discarded=tuple(discarded))


def explain(exc: ValidationError) -> str:
    """One readable sentence per problem: `priority: Input should be 'P0', … (got 'p0')`."""
    problems = []
    for error in exc.errors(include_url=False, include_context=False):
        where = ".".join(str(part) for part in error["loc"]) or "input"
        message = error["msg"]
        if error["type"] not in {"missing", "extra_forbidden"}:
            message = f"{message} (got {_preview(error.get('input'))})"
        elif error["type"] == "extra_forbidden":
            message = "is not a field of a review node"
        problems.append(f"{where}: {message}")
    return "; ".join(problems) or "invalid review node"


def _preview(value: Any) -> str:
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    try:
        text = repr(value)
    except Exception:  # noqa: BLE001 - a hostile __repr__ must not break the error message
        text = f"<{_type_name(value)}>"
    return text if len(text) <= _PREVIEW else text[: _PREVIEW - 1] + "…"


def _type_name(value: object) -> str:
    return "null" if value is None else type(value).__name__
