"""The benchmark file: the public Code Review Bench golden-comment format, read entry by entry.

    [{"pr_title": "…", "url": "https://github.com/OWNER/REPO/pull/N",
      "comments": [{"comment": "…", "severity": "Low|Medium|High|Critical",
                    "category": "bug|security|…"}, …]}, …]

`category` is in the newer files only (profiles.py lists the ten and says where they come
from); a comment without one is uncategorised, so the older files keep working. Other
fields are ignored. A file that cannot be read, is not JSON or is not a list is
a `UsageError` (nothing can run); a bad entry (a missing field, a URL that is not a
pull request, an unknown severity or category, no golden comments, a URL given twice) is one
problem line, and the valid entries still run. Must not: touch the network.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from reviewbot.errors import UsageError
from reviewbot.eval.profiles import Category
from reviewbot.nodes.boundary import explain
from reviewbot.sources.pr_ref import read_pr_url


class Severity(StrEnum):
    """The benchmark's severity labels, least severe first."""

    LOW = "Low"
    MEDIUM = "Medium"
    HIGH = "High"
    CRITICAL = "Critical"


class GoldenComment(BaseModel):
    """A real issue a human reviewer identified in the PR: the ground truth."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    comment: str = Field(min_length=1, max_length=20_000)
    severity: Severity
    category: Category | None = None

    @field_validator("severity", mode="before")
    @classmethod
    def _any_case(cls, value: Any) -> Any:
        # "high" and "HIGH" are the same label; anything else is refused by the enum.
        return value.strip().capitalize() if isinstance(value, str) else value

    @field_validator("category", mode="before")
    @classmethod
    def _lower_case(cls, value: Any) -> Any:
        return value.strip().lower() if isinstance(value, str) else value


class HistoryRef(BaseModel):
    """A mined entry's commits (`eval --history`): reviewed from the clone, not from GitHub."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    base: str = Field(pattern=r"^[0-9a-f]{40}$")
    head: str = Field(pattern=r"^[0-9a-f]{40}$")


class BenchmarkPR(BaseModel):
    model_config = ConfigDict(frozen=True, extra="ignore")

    pr_title: str = Field(max_length=1_000)
    url: str = Field(max_length=2_000)
    comments: tuple[GoldenComment, ...] = Field(min_length=1)
    history: HistoryRef | None = None  # only in the files `eval --history` writes

    @field_validator("url")
    @classmethod
    def _pull_request(cls, value: str) -> str:
        try:
            return read_pr_url(value).html_url
        except UsageError as exc:
            raise ValueError(str(exc)) from None


@dataclass(frozen=True, slots=True, kw_only=True)
class Benchmark:
    prs: tuple[BenchmarkPR, ...]
    problems: tuple[str, ...]  # one line per entry that was left out


def load_benchmark(path: Path) -> Benchmark:
    """The valid entries of the file, and one line per invalid one."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"cannot read the benchmark {path}: {exc.strerror}") from exc
    except UnicodeDecodeError as exc:
        raise UsageError(f"the benchmark {path} is not UTF-8 text: {exc.reason}") from exc
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise UsageError(
            f"the benchmark {path} is not JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}"
        ) from exc
    if not isinstance(data, list):
        raise UsageError(
            f"the benchmark {path} must be a JSON list of PRs, not a JSON {_kind(data)}"
        )
    return parse_entries(data, origin=str(path))


def parse_entries(data: list[Any], *, origin: str) -> Benchmark:
    prs: list[BenchmarkPR] = []
    problems: list[str] = []
    seen: dict[str, int] = {}
    for number, raw in enumerate(data, start=1):
        where = f"{origin}: entry {number}"
        try:
            pr = BenchmarkPR.model_validate(raw)
        except ValidationError as exc:
            problems.append(f"{where}: {explain(exc, subject='the entry', limit=1)}")
            continue
        if pr.url in seen:
            problems.append(f"{where}: {pr.url} is already entry {seen[pr.url]}")
            continue
        seen[pr.url] = number
        prs.append(pr)
    return Benchmark(prs=tuple(prs), problems=tuple(problems))


def _kind(value: Any) -> str:
    match value:
        case dict():
            return "object"
        case str():
            return "string"
        case bool():
            return "boolean"
        case int() | float():
            return "number"
        case None:
            return "null"
    return type(value).__name__


def short_name(url: str) -> str:
    """`owner/repo#N` for a PR URL (the URL itself if it is not one)."""
    try:
        return str(read_pr_url(url))
    except UsageError:
        return url
