"""The coverage of one review: what the agents saw of the PR's changed files, as recorded.

The report embeds these models unchanged, so their docstrings and field descriptions are
part of the report's schema. `Coverage.covers(path)` is the one question the rest of
reviewbot asks of a coverage (may the absence of an earlier finding at `path` count as a
fix?); `policy.coverage_gap` says what it lacks in words, for the verdict.

The listing reasons are the packer's (`agent.context`) and name why a changed file was
listed instead of packed: `GAPS` are those that leave it unseen unless a reviewer read it;
the others are policy, never a gap.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from reviewbot.redact import MASK

REASON_BINARY = "binary file"
REASON_SUBMODULE = "submodule pointer change"
REASON_NO_PATCH = "patch not available (too large for the API); read the file instead"
REASON_EXCLUDED = "excluded by [paths] (lockfile, generated or vendored)"
REASON_BUDGET = "outside the context token budget; read the file if it matters"
GAPS = frozenset({REASON_BUDGET, REASON_NO_PATCH})  # unseen unless a reviewer read the file


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


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
