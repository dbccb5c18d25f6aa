"""The read boundary: the one door every review node comes in through.

Model tool calls, markers read back from earlier reviews and node files all pass
through `read_boundary` (or `admit` for one item). It returns what is valid and
what was discarded, each discard with its raw input and a reason a person (or the
model, retrying) can act on. It never raises: a malformed finding must cost one
discard, not the review.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from pydantic import ValidationError

from reviewbot.nodes.model import Finding, ReviewNode

_PREVIEW = 80
# A discard's reason starts so when the node was well formed but its anchor failed a check
# against the code (the file, the lines, the quote): refused, not malformed.
ANCHOR_REFUSED = "anchor refused: "
_QUOTED = 80
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")

Loc = tuple[int | str, ...]

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
        return Discarded(raw=raw, reason=_reason(exc), origin=origin)
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


def explain(
    exc: ValidationError,
    *,
    subject: str = "input",
    limit: int | None = None,
    show_input: bool = False,
    unknown: str | Callable[[Loc], str] | None = None,
    line_of: Callable[[Loc], int | None] | None = None,
) -> str:
    """The one rendering of a pydantic `ValidationError`: one line, `where: message` per problem.

    `where` is the field's path (`reviewers[1].name`; `subject` when the input itself is
    wrong, nothing when it is empty); a key that is not a plain identifier (an unknown field the input sent) is a
    JSON-escaped string, so it can neither break the line nor pass for harness text.
    `limit`: at most that many problems, then `(and N more)`; `show_input`: a wrong value
    is shown as `(got 'p0')`; `unknown`: the wording for an unknown field instead of
    pydantic's (or a function of the field's path, for a hint such as "did you mean …");
    `line_of`: the line a problem's path is on (a config file), as `line 3: `.
    """
    errors = exc.errors(include_url=False, include_context=False)
    problems = []
    for error in errors[:limit]:
        loc = tuple(error["loc"])
        message = str(error["msg"]).removeprefix("Value error, ")
        if error["type"] == "extra_forbidden" and unknown is not None:
            message = unknown if isinstance(unknown, str) else unknown(loc)
        elif show_input and error["type"] not in {"missing", "extra_forbidden"}:
            message = f"{message} (got {_preview(error.get('input'))})"
        line = line_of(loc) if line_of is not None else None
        prefix = f"line {line}: " if line is not None else ""
        where = field_path(loc) or subject
        problems.append(f"{prefix}{where}: {message}" if where else prefix + message)
    more = len(errors) - len(problems)
    tail = f" (and {more} more)" if more > 0 else ""
    return "; ".join(problems).replace("\n", " ") + tail


def _reason(exc: ValidationError) -> str:
    """Why a review node was refused, with the wrong values shown (the model retries on it)."""
    return (
        explain(exc, show_input=True, unknown="is not a field of a review node")
        or "invalid review node"
    )


def field_path(loc: Loc) -> str:
    """`("reviewers", 1, "name")` → `reviewers[1].name`; odd keys JSON-quoted, cut at 80."""
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
            continue
        name = part if _NAME.fullmatch(part) else _quoted(part)
        out += f".{name}" if out else name
    return out


def _quoted(text: str) -> str:
    cut = text if len(text) <= _QUOTED else text[:_QUOTED] + "…"
    # ASCII escapes: no control, invisible or bidi character survives; no `<`/`>` either,
    # so a key cannot open or close an `<untrusted_data>` block where the text is shown.
    return json.dumps(cut).replace("<", "\\u003c").replace(">", "\\u003e")


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
