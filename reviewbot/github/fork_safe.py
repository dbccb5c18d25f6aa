"""The fork-safe two stages: the PR reference stage one writes and stage two re-checks.

Stage one runs with no secrets on `pull_request` and only names a PR and a head; stage two
(secrets, `workflow_run`) trusts none of it: the reference must name this repository and
the head the workflow run built, and the PR is read again from the API.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from reviewbot.errors import UsageError
from reviewbot.github.event import EventPlan
from reviewbot.nodes.boundary import explain

REFERENCE_FILE = "reviewbot-pr.json"


class PRReference(BaseModel):
    """Stage one → stage two of the fork-safe setup. Untrusted: stage two re-checks all of it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    repo: str = Field(pattern=r"^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$", max_length=200)
    number: int = Field(ge=1)
    head_sha: str = Field(pattern=r"^[0-9a-f]{40}$")


def reference_of(plan: EventPlan) -> PRReference:
    """Stage one: the PR and head the event names (a `UsageError` when it names none)."""
    if plan.repo is None or plan.number is None or plan.head_sha is None:
        raise UsageError(f"{plan.trigger}: the event names no single pull request head to review")
    return PRReference(repo=plan.repo, number=plan.number, head_sha=plan.head_sha)


def write_reference(out: Path, reference: PRReference) -> None:
    out.mkdir(parents=True, exist_ok=True)
    (out / REFERENCE_FILE).write_text(reference.model_dump_json(indent=2) + "\n", encoding="utf-8")


def read_reference(folder: Path) -> PRReference:
    path = folder / REFERENCE_FILE
    try:
        return PRReference.model_validate_json(path.read_bytes())
    except OSError as exc:
        raise UsageError(f"cannot read the PR snapshot {path}: {exc.strerror}") from exc
    except ValidationError as exc:
        problem = explain(exc, subject="file", limit=1)
        raise UsageError(f"the PR snapshot {path} is not valid: {problem}") from exc


def check_against_run(reference: PRReference, plan: EventPlan) -> str | None:
    """Stage two's checks against its `workflow_run` event; returns who triggered stage one.

    Stage one ran in this same repository and built the named head: a reference naming
    another repository or head was forged. The actor (the PR's author or someone with
    write access) is checked by the admission rules.
    """
    if plan.repo is not None and plan.repo != reference.repo:
        raise UsageError(
            f"the snapshot names {reference.repo} but this workflow runs in {plan.repo}"
        )
    if plan.head_sha is not None and plan.head_sha != reference.head_sha:
        raise UsageError(
            f"the snapshot names head {reference.head_sha[:12]} but the workflow run built {plan.head_sha[:12]}"
        )
    return plan.actor
