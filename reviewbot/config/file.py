"""The review configuration: `.reviewbot.toml` as a validated pydantic model.

Read from the base branch (never the PR head) so a PR cannot change the policy
that judges it. Every section has defaults; an empty file is a valid config.
This module parses and validates text it is given (`load_config`) and matches
paths against the path filters (`is_excluded`); it never fetches the file.

Values are strict: a number is a TOML integer or float (`max_turns = "30"` and
`max_turns = true` are errors, `inf` and `nan` too), a flag a TOML boolean (`approve =
"yes"` is an error). A file nested too deeply or with an integer Python cannot read is a
ConfigError like any other, never a traceback.
"""

from __future__ import annotations

import difflib
import re
import tomllib
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path, PurePosixPath
from typing import Annotated, Literal, Self, get_args

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    Strict,
    StringConstraints,
    ValidationError,
    field_validator,
    model_validator,
)

from reviewbot.errors import ConfigError, UsageError
from reviewbot.nodes.boundary import Loc, explain
from reviewbot.nodes.model import Priority, Status
from reviewbot.verdict.axes import CI_AXIS, VERIFIER_AXIS
from reviewbot.verdict.policy import (
    DEFAULT_MIN_CONFIDENCE,
    Consequence,
    NodePolicy,
    NodeRule,
    default_policy,
)

DEFAULT_MODEL = (
    "claude-sonnet-5"  # the newest Sonnet the anthropic SDK lists (tests/agent/test_pricing.py)
)
GENERAL_REVIEWER = "review"
MAX_REVIEWERS = 20  # focused reviewers; with `review`, at most 21 raisers of one finding
RESERVED_AXES = frozenset({CI_AXIS, VERIFIER_AXIS})

# Excluded from the review budget by default: listed in coverage, never packed.
DEFAULT_EXCLUDE = (
    "**/package-lock.json",
    "**/yarn.lock",
    "**/pnpm-lock.yaml",
    "**/poetry.lock",
    "**/uv.lock",
    "**/Cargo.lock",
    "**/Gemfile.lock",
    "**/composer.lock",
    "**/go.sum",
    "**/Pipfile.lock",
    "**/*.min.js",
    "**/*.min.css",
    "**/*.map",
    "**/*.pb.go",
    "**/*_pb2.py",
    "**/*.generated.*",
    "**/generated/**",
    "**/vendor/**",
    "**/third_party/**",
    "**/node_modules/**",
    "**/dist/**",
)

Name = Annotated[str, StringConstraints(pattern=r"^[a-z][a-z0-9_-]{0,39}$")]


class _Section(BaseModel):
    # strict: TOML has types, and a policy must not read "yes" as true or "30" as 30. Arrays
    # and enum names are `Field(strict=False)` only so a TOML array may fill a tuple and a
    # string name an enum; the values inside stay strict.
    model_config = ConfigDict(frozen=True, extra="forbid", strict=True, allow_inf_nan=False)


_LAX = Field(strict=False)
PriorityName = Annotated[Priority, Strict(False)]  # "P0" in a TOML array, inside a strict model


class BudgetConfig(_Section):
    max_turns: int = Field(default=30, ge=1, le=500)
    max_input_tokens: int = Field(default=4_000_000, ge=1_000)  # cache reads included
    max_output_tokens: int = Field(default=40_000, ge=256)
    max_cost_usd: float = Field(default=5.0, gt=0)
    timeout_seconds: float = Field(
        default=900.0, gt=0, description="Wall time of the whole panel, model requests included."
    )
    tool_timeout_seconds: float = Field(
        default=30.0, gt=0, description="Wall time of one tool call (a search, a git command)."
    )
    context_tokens: int = Field(
        default=60_000, ge=1_000, description="Token budget for the packed PR diff."
    )
    response_max_tokens: int = Field(default=8_192, ge=256, le=64_000)
    max_parallel_agents: int = Field(
        default=4, ge=1, le=16, description="Agents whose requests may be in flight at once."
    )


class ReviewerConfig(_Section):
    name: Name
    brief: str = Field(default="", description="What this reviewer looks for, added to its prompt.")
    model: str | None = None
    gated: bool = True


class VerifierConfig(_Section):
    enabled: bool = True
    priorities: frozenset[PriorityName] = Field(
        default=frozenset({Priority.P0, Priority.P1}), strict=False
    )
    model: str | None = None

    @property
    def verifies(self) -> frozenset[Priority]:
        """The priorities whose findings wait for a judgement: none when it is disabled."""
        return self.priorities if self.enabled else frozenset()


class RuleConfig(_Section):
    status: Status = _LAX
    priorities: frozenset[PriorityName] = _LAX
    effect: Consequence = _LAX
    min_confidence: float = Field(default=0.0, ge=0, le=1)


class PolicyConfig(_Section):
    min_confidence: float = Field(default=DEFAULT_MIN_CONFIDENCE, ge=0, le=1)
    rules: tuple[RuleConfig, ...] | None = Field(
        default=None, strict=False, description="Replaces the default node rules when given."
    )

    def node_policy(self) -> NodePolicy:
        if self.rules is None:
            return default_policy(self.min_confidence)
        return NodePolicy(rules=tuple(NodeRule(**rule.model_dump()) for rule in self.rules))


class PathsConfig(_Section):
    include: tuple[str, ...] = Field(default=("**",), strict=False)
    exclude: tuple[str, ...] = Field(default=DEFAULT_EXCLUDE, strict=False)

    @field_validator("include", "exclude")
    @classmethod
    def _globs(cls, patterns: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(valid_glob(pattern) for pattern in patterns)


class CIConfig(_Section):
    gated: bool = False
    gated_checks: tuple[str, ...] = Field(
        default=(),
        strict=False,
        description="When non-empty, only these check names count, and the axis is gated.",
    )
    ignore: tuple[str, ...] = Field(default=(), strict=False)


class PublishConfig(_Section):
    approve: bool = Field(default=True, description="Ship → APPROVE (else COMMENT).")
    max_inline_comments: int = Field(default=30, ge=0, le=50)
    # Quieter re-reviews and ranking: which findings go inline (reviewbot/publish/placement.py).
    max_inline_per_file: int | None = Field(
        default=None, ge=1, description="At most this many inline comments on one file."
    )
    rereview_min_priority: PriorityName = Field(
        default=Priority.P2,
        description=(
            "After a PR's first review, new findings less severe than this go in the review "
            "body, not inline."
        ),
    )
    review_drafts: bool = False
    advisory_hold: bool = Field(
        default=False,
        description=(
            "Hold → a `neutral` check run (passes a required check) instead of `failure`. "
            "Block and partial coverage always fail."
        ),
    )


def _guideline_path(value: str) -> str:
    parts = value.split("/")
    if value.startswith("/") or any(p in ("", ".", "..") for p in parts):
        raise ValueError(f"{value!r} is not a path from the repository root (no /, ., ..)")
    if any(c in part for part in parts[:-1] for c in "*?["):
        raise ValueError(f"{value!r}: a pattern (`*`, `?`) may only be in the file name")
    return value


GuidelinePath = Annotated[str, AfterValidator(_guideline_path)]
# Without `[review] guidelines`: the first of these on the base branch (all `.mdc` rules).
DEFAULT_GUIDELINES = (
    "REVIEW.md",
    "AGENTS.md",
    "CLAUDE.md",
    ".github/copilot-instructions.md",
    ".cursor/rules/*.mdc",
)


class RunConfig(_Section):
    """`[review]`: how much of the PR a review looks at again after a push, and what it is taught."""

    incremental: bool = Field(
        default=True,
        description=(
            "After a push that only adds commits, review the changes since the last reviewed "
            "head and carry forward earlier findings on unchanged lines; false: always full."
        ),
    )
    # The repository's instructions to reviewers, read from the base branch
    # (reviewbot/sources/guidelines.py); None: the first of the usual files that exists.
    guidelines: tuple[GuidelinePath, ...] | None = Field(
        default=None,
        strict=False,
        description="Guideline files given to the agents ([] for none).",
    )
    guidelines_tokens: int = Field(
        default=8_000, ge=0, le=100_000, description="Token budget for the guideline files."
    )


class SplitConfig(_Section):
    """`/split`: below `min_files` changed files a PR is small enough; the command says so."""

    min_files: int = Field(default=30, ge=2, strict=True)


class AskBudgetConfig(BudgetConfig):
    """`[ask.budget]`: the bounds of one `/ask` answer, in the fields of `[budget]`."""

    max_turns: int = Field(default=12, ge=1, le=500)
    max_input_tokens: int = Field(default=400_000, ge=1_000)
    max_output_tokens: int = Field(default=8_000, ge=256)
    max_cost_usd: float = Field(default=0.5, gt=0)
    timeout_seconds: float = Field(default=300.0, gt=0, description="Wall time of one answer.")


class AskConfig(_Section):
    """`[ask]`: who may ask reviewbot a question (`/ask`) and what one answer may cost."""

    who: Literal["writers", "author_and_writers", "anyone"] = Field(
        default="author_and_writers",
        description="Who may `/ask`: people with write access, also the PR's author, or anyone.",
    )
    budget: AskBudgetConfig = AskBudgetConfig()


class CommandsConfig(_Section):
    """`[commands]`: how reviewbot treats the PR comments it reads as commands."""

    answer_unknown: bool = Field(
        default=True,
        description=(
            "Answer a comment that starts with an unknown `/word` with one line naming the "
            "known commands; false where other bots' commands (`/lgtm`, `/retest`) are common."
        ),
    )


class ReviewConfig(_Section):
    model: str = DEFAULT_MODEL
    review: RunConfig = RunConfig()
    budget: BudgetConfig = BudgetConfig()
    reviewers: tuple[ReviewerConfig, ...] = Field(
        default=(),
        strict=False,
        max_length=MAX_REVIEWERS,
        description="Focused reviewers added to the general `review` reviewer.",
    )
    verifier: VerifierConfig = VerifierConfig()
    policy: PolicyConfig = PolicyConfig()
    paths: PathsConfig = PathsConfig()
    ci: CIConfig = CIConfig()
    publish: PublishConfig = PublishConfig()
    split: SplitConfig = SplitConfig()
    ask: AskConfig = AskConfig()
    commands: CommandsConfig = CommandsConfig()

    @model_validator(mode="after")
    def _unique_reviewers(self) -> Self:
        names = [r.name for r in self.reviewers]
        taken = RESERVED_AXES | {GENERAL_REVIEWER}
        clash = sorted({n for n in names if n in taken or names.count(n) > 1})
        if clash:
            raise ValueError(f"reviewer names must be unique and not {sorted(taken)}: {clash}")
        return self

    @property
    def all_reviewers(self) -> tuple[ReviewerConfig, ...]:
        general = ReviewerConfig(name=GENERAL_REVIEWER, model=None, gated=True)
        return (general, *self.reviewers)

    @property
    def gated_reviewers(self) -> frozenset[str]:
        return frozenset(r.name for r in self.all_reviewers if r.gated)


CONFIG_FILE = ".reviewbot.toml"
_MAX_REPORTED_ERRORS = 3


def config_path_in_repo(given: str, *, root: Path | None) -> str:
    """`--config` as a path inside the repository, as git and the contents API take it.

    A relative path is relative to the repository root (`./x` and `a/../x` normalised);
    an absolute one must lie under `root`, the checkout on disk, when there is one. A path
    that leaves the repository is a usage error: the file is read at the base commit.
    """
    path = PurePosixPath(given.strip().replace("\\", "/"))
    if path.is_absolute():
        # Symlinked folders (/tmp → /private/tmp) resolved on both sides; the file itself is not.
        real = Path(path.parent).resolve() / path.name
        top = root.resolve() if root is not None else None
        if top is None or not real.is_relative_to(top):
            where = f" {root}" if root is not None else ""
            raise UsageError(
                f"--config {given} is outside the repository{where}: it is read from the base "
                "branch, so give a path in the repository, relative to its root"
            )
        path = PurePosixPath(real.relative_to(top).as_posix())
    parts: list[str] = []
    for part in path.parts:
        if part == "..":
            if not parts:
                raise UsageError(
                    f"--config {given} is outside the repository: give a path relative to its root"
                )
            parts.pop()
        elif part not in (".", ""):
            parts.append(part)
    if not parts:
        raise UsageError(f"--config {given!r} names no file: give a path such as {CONFIG_FILE}")
    return "/".join(parts)


def config_missing(origin: str) -> ConfigError:
    """An explicit `--config` that is not on the base branch: exit 2, never the defaults."""
    return ConfigError(
        f"{origin}: not found — --config names a file that must be committed on the base branch"
    )


def config_origin(base_ref: str, path: str = CONFIG_FILE) -> str:
    """How error messages name the file: "`.reviewbot.toml` (base branch main)"."""
    return f"`{path}` (base branch {base_ref})"


def config_of(text: str | None, *, origin: str, required: bool) -> ReviewConfig:
    """The base branch's file as a config; None (no file) is the defaults, unless `required`."""
    if text is None:
        if required:
            raise config_missing(origin)
        return ReviewConfig()
    return load_config(text, origin=origin)


def load_config(text: str, *, origin: str) -> ReviewConfig:
    """Parse and validate `.reviewbot.toml`; ConfigError names the line of the first problems."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(toml_syntax_message(str(exc), origin)) from exc
    except RecursionError:
        raise ConfigError(f"{origin}: nested too deeply to be a configuration") from None
    except ValueError as exc:  # Python refuses to read an integer of more than 4,300 digits
        raise ConfigError(f"{origin}: an integer is too long to be a setting") from exc
    try:
        return ReviewConfig.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(_validation_message(exc, text, origin)) from exc


_TOML_POSITION = re.compile(r"^(?P<msg>.*) \(at line (?P<line>\d+), column (?P<col>\d+)\)$")


def toml_syntax_message(message: str, origin: str) -> str:
    found = _TOML_POSITION.match(message)
    if found is None:  # "(at end of document)" and friends: no line to name
        return f"{origin}: {message}"
    return f"{origin} line {found['line']}: {found['msg']} (column {found['col']})"


def _validation_message(exc: ValidationError, text: str, origin: str) -> str:
    lines = _key_lines(text)
    message = explain(
        exc,
        subject="",
        limit=_MAX_REPORTED_ERRORS,
        unknown=_unknown_key,
        line_of=lambda loc: _line_of(loc, lines),
    )
    return origin + (" " if message.startswith("line ") else ": ") + message


def _unknown_key(loc: Loc) -> str:
    """`unknown key; did you mean max_turns?` when a key of that table is close to it."""
    section: type[BaseModel] | None = ReviewConfig
    for part in loc[:-1]:
        if isinstance(part, str) and section is not None:
            field = section.model_fields.get(part)
            section = _section_of(field.annotation) if field is not None else None
    known = sorted(section.model_fields) if section is not None else []
    close = difflib.get_close_matches(str(loc[-1]), known, n=1, cutoff=0.6)
    table = ".".join(str(p) for p in loc[:-1] if isinstance(p, str))
    where = f"[{table}]" if table else "the top level"
    hint = f"; did you mean {close[0]}?" if close else f" (the keys of {where}: {', '.join(known)})"
    return f"unknown key{hint}"


def _section_of(annotation: object) -> type[BaseModel] | None:
    """The section model in a field's type: `BudgetConfig`, `tuple[RuleConfig, ...] | None`."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for arg in get_args(annotation):
        found = _section_of(arg)
        if found is not None:
            return found
    return None


_ARRAY_TABLE = re.compile(r"^\s*\[\[\s*(?P<key>[^\[\]]+?)\s*\]\]")
_TABLE = re.compile(r"^\s*\[\s*(?P<key>[^\[\]]+?)\s*\]")
_KEY = re.compile(r"^\s*(?P<key>[A-Za-z0-9_\-\"'. ]+?)\s*=")


def _split_key(key: str) -> tuple[str, ...]:
    parts = re.findall(r'"[^"]*"|\'[^\']*\'|[^.]+', key)
    return tuple(p.strip().strip("\"'") for p in parts if p.strip())


def _key_lines(text: str) -> dict[Loc, int]:
    """A small scan of the TOML text: the line where each table and key is first written.

    Good enough to point at the offending key; anything it cannot place (keys in
    inline tables, multi-line strings) falls back to the nearest enclosing key.
    """
    found: dict[Loc, int] = {}
    table: Loc = ()
    array_counts: dict[Loc, int] = {}
    in_multiline = False
    for number, line in enumerate(text.splitlines(), start=1):
        quotes = line.count('"""') + line.count("'''")
        if in_multiline:
            in_multiline = quotes % 2 == 0
            continue
        in_multiline = quotes % 2 == 1
        if (match := _ARRAY_TABLE.match(line)) is not None:
            path = _split_key(match["key"])
            index = array_counts.get(path, -1) + 1
            array_counts[path] = index
            found.setdefault(path, number)
            table = (*path, index)
        elif (match := _TABLE.match(line)) is not None:
            table = _split_key(match["key"])
        elif (match := _KEY.match(line)) is not None:
            found.setdefault((*table, *_split_key(match["key"])), number)
            continue
        else:
            continue
        found.setdefault(table, number)
    return found


def _line_of(loc: Loc, lines: dict[Loc, int]) -> int | None:
    for end in range(len(loc), 0, -1):
        if loc[:end] in lines:
            return lines[loc[:end]]
    return None


def is_excluded(path: str, paths: PathsConfig) -> bool:
    """True when `path` is outside the review budget: not included, or excluded.

    Glob semantics (like .gitignore): `*` and `?` stay within one path segment,
    `**` spans any number of segments (`**/x` also matches `x`, `d/**` everything
    under `d`), `[...]` is a character class; a pattern without `/` matches the
    file name in any directory, a leading `/` anchors at the repository root, a
    trailing `/` means everything under that directory.
    """
    return not matches_any(path, paths.include) or matches_any(path, paths.exclude)


def matches_any(path: str, patterns: Sequence[str], *, rooted: bool = False) -> bool:
    """`rooted`: every pattern is anchored at the root, as if it began with `/`, so one
    without `/` matches top-level names only (the read tools' `list_files` semantics)."""
    return any(_glob_regex(pattern, rooted).fullmatch(path) for pattern in patterns)


def valid_glob(pattern: str) -> str:
    """`pattern`, once it is known to compile: a bad one (`[z-a]`) is a config error at load
    time, never an internal error in the middle of a review."""
    try:
        _glob_regex(pattern)
    except re.error as exc:
        raise ValueError(f"{pattern!r} is not a valid glob ({exc})") from None
    return pattern


@lru_cache(maxsize=512)
def _glob_regex(pattern: str, rooted: bool = False) -> re.Pattern[str]:
    return re.compile(glob_source(pattern, rooted=rooted), re.S)  # `**` spans a name with a newline


def glob_source(pattern: str, *, rooted: bool = False) -> str:
    """The regular expression (for a full match) a glob stands for, in the common syntax of
    Python's `re` and RE2 (the read tools match the model's globs with RE2, in linear time)."""
    anchored = rooted or pattern.startswith("/")
    pattern = pattern.lstrip("/")
    if not anchored and "/" not in pattern.rstrip("/"):
        pattern = "**/" + pattern
    if pattern.endswith("/"):  # a directory: everything under it
        pattern += "**"
    out: list[str] = []
    i, n = 0, len(pattern)
    while i < n:
        at_segment_start = i == 0 or pattern[i - 1] == "/"
        if pattern.startswith("**/", i) and at_segment_start:
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("**", i) and at_segment_start and i + 2 == n:
            out.append(".*")
            i += 2
        elif pattern[i] == "*":
            while i < n and pattern[i] == "*":  # a "**" inside a segment is just "*"
                i += 1
            out.append("[^/]*")
        elif pattern[i] == "?":
            out.append("[^/]")
            i += 1
        elif pattern[i] == "[" and (close := _class_end(pattern, i)) > 0:
            body = pattern[i + 1 : close]
            negate = body[:1] in ("!", "^")
            body = body[1:] if negate else body
            members = "".join(c if c == "-" else re.escape(c) for c in body)
            out.append(("[^/" if negate else "[") + members + "]")
            i = close + 1
        else:
            out.append(re.escape(pattern[i]))
            i += 1
    return "".join(out)


def _class_end(pattern: str, start: int) -> int:
    """Index of the `]` closing the class opened at `start`, or -1 (then `[` is literal)."""
    i = start + 1
    if i < len(pattern) and pattern[i] in "!^":
        i += 1
    if i < len(pattern) and pattern[i] == "]":  # a leading `]` is a member, not the end
        i += 1
    close = pattern.find("]", i)
    return -1 if close < 0 or "/" in pattern[start:close] else close
