"""`.reviewbot/learnings.toml`: findings the maintainers dismissed, reviewed like code.

One `[[learning]]` table per dismissed finding: its fingerprint, kind and title, the path
scope (a glob) it applies to, the reason, who decided it, when, and on which PR. Read from
the BASE branch only, like `.reviewbot.toml` (a PR that edits it changes nothing for its own
review). A new finding matches a learning (`Learnings.matching`) when:

- its fingerprint is the learning's (the same finding: kind, file, title and code), or
- it is the same rule: the same kind and the same title once normalised (case, spacing,
  Unicode form, trailing punctuation: `nodes.fingerprint.normalize_title`), anchored in a
  file the learning's scope matches. A finding without an anchor matches by fingerprint only.

What a match does to a review (never to a P0) is the pipeline's (review/learned.py). This
module parses and validates the text it is given and writes it back (`learnings_toml`); it
never fetches the file.
"""

from __future__ import annotations

import json
import re
import tomllib
from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Annotated, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    StringConstraints,
    ValidationError,
)

from reviewbot.config.file import matches_any, toml_syntax_message, valid_glob
from reviewbot.errors import ConfigError
from reviewbot.nodes.boundary import explain
from reviewbot.nodes.fingerprint import normalize_code, normalize_title
from reviewbot.nodes.model import Kind, RelPath, ReviewNode, Title

LEARNINGS_FILE = ".reviewbot/learnings.toml"
MAX_LEARNINGS = 2_000
MAX_QUOTE = 1_000  # the anchored code kept for `learn --check`; a longer one is not kept
HEADER = (
    "# reviewbot learnings: findings the maintainers dismissed, one [[learning]] per finding.\n"
    "# Read from the base branch only. Written by `reviewbot learn`; review it like code.\n"
)

How = Literal["fingerprint", "rule"]


def _scope(glob: str) -> str:
    """A glob of repository paths (`.gitignore`-like, as `[paths]` in `.reviewbot.toml`)."""
    if any(c in glob for c in "\x00\n\r\\"):
        raise ValueError("must be one line of forward-slash glob, e.g. src/db/**")
    if ".." in glob.strip("/").split("/"):
        raise ValueError("must not contain '..'")
    return valid_glob(glob)


def _when(text: str) -> str:
    try:
        datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise ValueError("must be an ISO 8601 date or time, e.g. 2026-12-01T09:30:00Z") from None
    return text


Scope = Annotated[
    str, StringConstraints(strict=True, min_length=1, max_length=500), AfterValidator(_scope)
]
_Login = Annotated[str, StringConstraints(strict=True, pattern=r"^[A-Za-z0-9-]{1,39}(\[bot\])?$")]


class Learning(BaseModel):
    """One dismissed finding, as the maintainers decided it."""

    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)

    fingerprint: Annotated[str, StringConstraints(strict=True, pattern=r"^[0-9a-f]{16}$")]
    kind: Kind = Field(strict=False)
    title: Title
    scope: Scope
    reason: Annotated[str, StringConstraints(strict=True, max_length=2_000)] = ""
    by: _Login
    at: Annotated[str, StringConstraints(strict=True, max_length=40), AfterValidator(_when)]
    pr: int | None = Field(default=None, ge=1)
    path: RelPath | None = None  # the finding's file when it was dismissed (for --check)
    quote: Annotated[str, StringConstraints(strict=True, max_length=MAX_QUOTE)] = ""

    def match(self, node: ReviewNode) -> How | None:
        """How `node` is this learned finding: its fingerprint, or the same rule in scope."""
        if node.fingerprint == self.fingerprint:
            return "fingerprint"
        same = node.kind is self.kind and normalize_title(node.title) == normalize_title(self.title)
        if same and node.anchor is not None and matches_any(node.anchor.path, (self.scope,)):
            return "rule"
        return None

    def applies_to(self, paths: Iterable[str]) -> bool:
        return any(matches_any(path, (self.scope,)) for path in paths)


class Learnings(BaseModel):
    """Every learning of the repository, in the file's order."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    entries: tuple[Learning, ...] = ()

    def matching(self, node: ReviewNode) -> tuple[Learning, How] | None:
        """The first learning `node` matches (a fingerprint match before a rule match)."""
        for want in ("fingerprint", "rule"):
            found = next((e for e in self.entries if e.match(node) == want), None)
            if found is not None:
                return found, want
        return None

    def applying(self, paths: Sequence[str]) -> tuple[Learning, ...]:
        """The learnings whose scope matches one of `paths` (the PR's changed files)."""
        return tuple(e for e in self.entries if e.applies_to(paths))


def learning_of(
    node: ReviewNode,
    *,
    reason: str,
    by: str,
    at: str,
    pr: int | None,
    code: str | None = None,
) -> Learning:
    """The entry a `/dismiss` of `node` teaches; its scope is the finding's file.

    `code`: the anchored lines when the node does not carry them (a marker keeps no quote).
    """
    path = node.anchor.path if node.anchor is not None else None
    quote = normalize_code(code if code is not None else node.anchor.quote) if node.anchor else ""
    return Learning(
        fingerprint=node.fingerprint,
        kind=node.kind,
        title=node.title,
        scope="/" + path if path else "**",
        reason=" ".join(reason.split())[:2_000],
        by=by,
        at=at,
        pr=pr,
        path=path,
        quote=quote if len(quote) <= MAX_QUOTE else "",
    )


def load_learnings(text: str, *, origin: str) -> Learnings:
    """Parse and validate the file; ConfigError is ONE line naming the first bad entry."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(toml_syntax_message(str(exc), origin)) from exc
    except (RecursionError, ValueError):
        raise ConfigError(f"{origin}: is not a learnings file TOML can read") from None
    unknown = sorted(set(data) - {"learning"})
    if unknown:
        raise ConfigError(
            f"{origin}: unknown key {json.dumps(unknown[0])} (the file holds [[learning]] tables)"
        )
    raws = data.get("learning", [])
    if not isinstance(raws, list) or not all(isinstance(r, dict) for r in raws):
        raise ConfigError(f"{origin}: `learning` must be an array of tables ([[learning]])")
    if len(raws) > MAX_LEARNINGS:
        raise ConfigError(f"{origin}: {len(raws)} learnings, more than {MAX_LEARNINGS}")
    entries = []
    for number, raw in enumerate(raws, start=1):
        try:
            entries.append(Learning.model_validate(raw))
        except ValidationError as exc:
            raise ConfigError(f"{origin}: {_entry_name(number, raw)}: {explain(exc)}") from None
    return Learnings(entries=tuple(entries))


def _entry_name(number: int, raw: dict[str, object]) -> str:
    found = raw.get("fingerprint")
    if isinstance(found, str) and re.fullmatch(r"[0-9a-f]{16}", found):
        return f"entry {number} (fingerprint {found})"
    return f"entry {number}"


def merged_learnings(existing: Learnings, new: Iterable[Learning]) -> Learnings:
    """`existing` with `new` added; an entry with a known fingerprint is updated, not repeated.

    The order is stable (scope, then title, then fingerprint), so writing twice changes nothing.
    """
    by_fingerprint = {entry.fingerprint: entry for entry in existing.entries}
    for entry in new:
        earlier = by_fingerprint.get(entry.fingerprint)
        # A scope a person widened by hand is kept: the dismissal is the same decision.
        keep = {"scope": earlier.scope} if earlier is not None else {}
        by_fingerprint[entry.fingerprint] = entry.model_copy(update=keep)
    ordered = sorted(
        by_fingerprint.values(), key=lambda e: (e.scope, normalize_title(e.title), e.fingerprint)
    )
    return Learnings(entries=tuple(ordered))


_FIELDS = ("fingerprint", "kind", "title", "scope", "reason", "by", "at", "pr", "path", "quote")


def entry_toml(entry: Learning) -> str:
    """One `[[learning]]` table, the keys in a fixed order (values are TOML basic strings)."""
    lines = ["[[learning]]"]
    for name in _FIELDS:
        value = getattr(entry, name)
        if value is None or value == "":
            continue
        lines.append(
            f"{name} = {value}" if isinstance(value, int) else f"{name} = {_string(value)}"
        )
    return "\n".join(lines) + "\n"


def learnings_toml(learnings: Learnings) -> str:
    """The whole file: a short header, then every entry."""
    return HEADER + "".join("\n" + entry_toml(entry) for entry in learnings.entries)


def _string(value: str) -> str:
    """A TOML basic string: JSON's escapes are TOML's, and DEL must be escaped too."""
    return json.dumps(str(value), ensure_ascii=False).replace("\x7f", "\\u007f")
