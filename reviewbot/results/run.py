"""What one review run measured, inside the run: why an agent stopped, its usage, what it saw.

The loop, the panel, the context packer and the progress line use these values; the
JSON report (`reviewbot.results.report`) embeds them unchanged, so they are pydantic models
and their docstrings and field descriptions are part of the report's schema.
This module must not import the report.
"""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field

from reviewbot.redact import MASK


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class StopReason(StrEnum):
    """Why an agent's loop ended."""

    END_TURN = "end_turn"  # the model ended its turn without tool calls
    FINALIZED = "finalized"  # the model called finalize_review
    MAX_TURNS = "max_turns"
    MAX_INPUT_TOKENS = "max_input_tokens"
    MAX_OUTPUT_TOKENS = "max_output_tokens"
    MAX_COST = "max_cost"
    TIMEOUT = "timeout"
    REFUSAL = "refusal"
    ERROR = "error"
    NO_CREDENTIALS = "no_credentials"  # no ANTHROPIC_API_KEY
    CREDENTIALS_REFUSED = "credentials_refused"  # the Messages API rejected the key
    SKIPPED = "skipped"  # nothing to do (e.g. the verifier with no high-priority nodes)

    @property
    def completed(self) -> bool:
        """Whether the agent ran to a normal end (its axis may pass)."""
        return self in {StopReason.END_TURN, StopReason.FINALIZED, StopReason.SKIPPED}


class Usage(_Model):
    requests: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    estimated_input_tokens: int = Field(
        default=0, description="Local estimate, for comparison with the API's count."
    )
    cost_usd: float = 0.0

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            **{name: getattr(self, name) + getattr(other, name) for name in Usage.model_fields}
        )

    @property
    def total_input_tokens(self) -> int:
        return self.input_tokens + self.cache_read_tokens + self.cache_write_tokens


class SkippedFile(_Model):
    path: str
    reason: str


class UnseenFile(_Model):
    """A changed text file no agent saw: neither packed into the context nor read in full."""

    path: str
    old_path: str | None = Field(default=None, description="The path before a rename or copy.")
    reason: str = Field(description="Why no agent saw it.")
    remedy: str = Field(description="What to change so that the next review sees it.")


class Coverage(_Model):
    """What the agents actually saw of the PR's changed files.

    A changed text file is seen when its patch was packed into the context, or when a
    reviewer's read tools showed every line of its hunks (of the whole file, when GitHub
    sent no patch) in full. Binary files, submodule pointers and files excluded by the base
    config's `[paths]` are listed, but leaving them out is policy, not a gap. Every other
    changed file nobody saw is `unseen`, and makes the coverage `partial`.
    """

    files_total: int = Field(description="Changed files in the PR, as GitHub or git reports them.")
    files_in_context: int = Field(description="Files whose patch was given to the model in full.")
    files_listed: tuple[SkippedFile, ...] = Field(
        default=(),
        description="Files not packed into the context, and why (the model may still read them).",
    )
    files_read: tuple[str, ...] = Field(
        default=(),
        description="Listed files a reviewer read in full with read_file or git_blame: seen.",
    )
    unseen: tuple[UnseenFile, ...] = Field(
        default=(), description="Changed text files no agent saw, with the reason and the remedy."
    )
    files_unlisted: int = Field(
        default=0, description="Changed files GitHub did not list (past its 3,000-file limit)."
    )
    unseen_unnamed: int = Field(
        default=0,
        ge=0,
        description=(
            "Unseen files beyond those named in `unseen`: a re-fold of a review whose record "
            "counted them without their names (it keeps the count; they cover nothing)."
        ),
    )
    partial: bool = Field(
        description="True when part of the PR was not seen: an unseen or unlisted changed file."
    )
    files_carried: tuple[str, ...] = Field(
        default=(),
        description=(
            "An incremental review: changed files of the PR unchanged since the reviewed head, "
            "not shown this run. Their coverage is that review's (unseen there: unseen here), "
            "and they resolve nothing."
        ),
    )
    notes: tuple[str, ...] = ()

    def covers(self, path: str | None) -> bool:
        """Whether this run saw where an earlier finding at `path` (None: the whole PR) was.

        Only then may its absence count as a fix. Unknown gaps (files GitHub did not list,
        or a partial coverage recorded without its file list) cover nothing, and neither
        do the files an incremental review inherited (nor the whole PR, then).
        """
        if self.files_carried and (path is None or path in self.files_carried):
            return False
        if path is not None and MASK in path:  # a marker's path, redacted: not known exactly
            return False
        if not self.partial:
            return True
        if path is None or self.files_unlisted or self.unseen_unnamed or not self.unseen:
            return False
        return all(path not in (f.path, f.old_path) for f in self.unseen)


def coverage_gap(coverage: Coverage | None) -> str | None:
    """What the reviewers did not see, in words (None: every changed file was seen).

    Unreported coverage is a gap too: absence of evidence is not a pass.
    """
    if coverage is None:
        return "coverage was not reported"
    if not coverage.partial:
        return None
    gaps = []
    if coverage.unseen:
        gaps.append(f"{len(coverage.unseen)} of {coverage.files_total} changed file(s) unseen")
    if coverage.files_unlisted:
        gaps.append(f"{coverage.files_unlisted} changed file(s) GitHub did not list")
    return "coverage is partial: " + "; ".join(gaps) if gaps else "coverage is partial"
