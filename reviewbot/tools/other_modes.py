"""Write and execute tools that belong to other modes, declared so surfaces can exclude them.

Each one declares its tier and effect classes honestly, so the surface
computation and the guard have something real to refuse. reviewbot itself runs
only read-only agents: their handler refuses, and no built-in read-only surface
ever contains them (a test asserts it). Nothing here touches the disk, starts a
process or reaches the network.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from reviewbot.nodes.model import RelPath
from reviewbot.tools.context import ToolContext
from reviewbot.tools.toolbox import ToolResult


class _Input(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class WriteFileInput(_Input):
    path: RelPath = Field(description="File path relative to the repository root.")
    content: str = Field(description="The whole new content of the file.")


class DeleteFileInput(_Input):
    path: RelPath = Field(description="File path relative to the repository root.")


class BashInput(_Input):
    command: str = Field(min_length=1, description="A shell command, run in the worktree.")


class InstallPackageInput(_Input):
    package: str = Field(min_length=1, description="A package requirement, e.g. `requests>=2`.")


class GitCommitInput(_Input):
    message: str = Field(min_length=1, description="The commit message.")


class GitPushInput(_Input):
    branch: str = Field(min_length=1, description="The branch to push.")


class CreatePullRequestInput(_Input):
    title: str = Field(min_length=1, description="The pull request's title.")
    body: str = Field(default="", description="The pull request's description.")
    base: str = Field(min_length=1, description="The branch to merge into.")
    head: str = Field(min_length=1, description="The branch with the changes.")


def not_run_here(ctx: ToolContext, args: BaseModel) -> ToolResult:
    """reviewbot has no executor for other modes' tools: refuse, never pretend."""
    return ToolResult(
        content="reviewbot runs read-only agents only; this tool has no executor here",
        is_error=True,
    )
