"""The registry: every tool reviewbot knows, with its tier, effect classes and input schema.

It includes the write and execute tools of other modes (`other_modes.py`), so
that computing a surface means excluding something real. A tool's schema for the
model is generated from its pydantic input model; `add_review_node` uses
`Finding`, the model the read boundary validates with (one node model, one schema). The schema is
made self-contained (`self_contained`: every `$ref` inlined, no `$defs`), so the
model reads each field's type where the field is. This module decides nothing
about modes: that is `reviewbot.tools.surface`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from reviewbot.modes.effect import Effect, Tier
from reviewbot.nodes.model import Finding
from reviewbot.tools import (
    ask_user,
    git_views,
    other_modes,
    patch,
    plan_verbs,
    repo,
    review_verbs,
    split_verbs,
)
from reviewbot.tools.context import ToolContext
from reviewbot.tools.toolbox import ToolResult

# The second argument is the validated input model (or, for a `boundary` tool, the raw input).
Handler = Callable[[ToolContext, Any], ToolResult]


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolSpec:
    name: str
    description: str  # one line: what the tool is for; it is prompt text
    input_model: type[BaseModel]
    tier: Tier
    effects: frozenset[Effect] = frozenset()
    handler: Handler
    # True: the handler admits the raw input through the read boundary itself, so a
    # malformed input is recorded as a discard (with its reason, in the report) instead of refused by the guard.
    boundary: bool = False

    def param(self) -> dict[str, Any]:
        """The Messages API tool definition."""
        return {
            "name": self.name,
            "description": self.description,
            "input_schema": for_the_model(self_contained(self.input_model.model_json_schema())),
        }


def for_the_model(schema: Any, *, names: bool = False) -> Any:
    """`schema` without what pydantic adds for developers: each `title` and the models' docstrings.

    A title repeats its property's name ("path" → "Path"); an object schema's
    `description` is its class docstring, written for developers (a field's
    `Field(description=…)`, the prompt text, is kept). They would be sent, and
    read from the cache, on every request of every agent. `names`: `schema` is a
    `properties` mapping, whose keys are field names (a field may be named `title`).
    """
    if isinstance(schema, list):
        return [for_the_model(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    if names:
        return {key: for_the_model(value) for key, value in schema.items()}
    developer = {"title"} | ({"description"} if schema.get("type") == "object" else set())
    return {
        key: for_the_model(value, names=key == "properties")
        for key, value in schema.items()
        if not (key in developer and isinstance(value, str))
    }


_DEFS = "$defs"
_REF = "$ref"
_LOCAL = "#/$defs/"


def self_contained(schema: dict[str, Any]) -> dict[str, Any]:
    """`schema` with every `#/$defs/…` reference replaced by its definition, and no `$defs`.

    Keys stay in pydantic's order (a reference's own keys, e.g. its `description`,
    come after and win over the definition's), so the output is byte-stable.
    A recursive model cannot be inlined: that is a `ValueError`, a programming error.
    """
    defs = schema.get(_DEFS, {})
    return _inline_object({k: v for k, v in schema.items() if k != _DEFS}, defs, ())


def _inline(value: Any, defs: Mapping[str, Any], inside: tuple[str, ...]) -> Any:
    if isinstance(value, list):
        return [_inline(item, defs, inside) for item in value]
    if isinstance(value, dict):
        return _inline_object(value, defs, inside)
    return value


def _inline_object(
    value: dict[str, Any], defs: Mapping[str, Any], inside: tuple[str, ...]
) -> dict[str, Any]:
    """`inside`: the definitions being inlined around `value`, to catch a cycle."""
    ref = value.get(_REF)
    own = {key: _inline(item, defs, inside) for key, item in value.items() if key != _REF}
    if ref is None:
        return own
    name = ref.removeprefix(_LOCAL) if isinstance(ref, str) else ""
    if not name or name == ref or name not in defs:
        raise ValueError(f"schema reference {ref!r} is not one of its own $defs")
    if name in inside:
        raise ValueError(f"schema definition {name!r} is recursive and cannot be inlined")
    return {**_inline_object(defs[name], defs, (*inside, name)), **own}


_R, _W, _X = Tier.READ, Tier.WRITE, Tier.EXECUTE
E = Effect

_TOOLS = (
    ToolSpec(
        name="read_file",
        description="Read a file of the PR head with line numbers, whole or a line range.",
        input_model=repo.ReadFileInput,
        tier=_R,
        handler=repo.read_file,
    ),
    ToolSpec(
        name="list_files",
        description="List the repository's files matching a glob; files changed by the PR are marked.",
        input_model=repo.ListFilesInput,
        tier=_R,
        handler=repo.list_files,
    ),
    ToolSpec(
        name="search_code",
        description="Search the repository's text files for a regular expression, line by line.",
        input_model=repo.SearchCodeInput,
        tier=_R,
        handler=repo.search_code,
    ),
    ToolSpec(
        name="read_patch",
        description="Read the PR's whole patch (base to head) of one changed file, numbered like the context's patches.",
        input_model=patch.ReadPatchInput,
        tier=_R,
        handler=patch.read_patch,
    ),
    ToolSpec(
        name="git_log",
        description="List the commits up to the PR head, newest first, optionally only those touching a path.",
        input_model=git_views.GitLogInput,
        tier=_R,
        handler=git_views.git_log,
    ),
    ToolSpec(
        name="git_show",
        description="Show a commit (message and diff), or a file as it was at a given revision.",
        input_model=git_views.GitShowInput,
        tier=_R,
        handler=git_views.git_show,
    ),
    ToolSpec(
        name="git_blame",
        description="Show which commit last changed each line of a range of a PR head file.",
        input_model=git_views.GitBlameInput,
        tier=_R,
        handler=git_views.git_blame,
    ),
    ToolSpec(
        name="add_review_node",
        description="Record one finding (a review node), anchored to lines of the PR head you have read.",
        input_model=Finding,
        tier=_R,
        handler=review_verbs.add_review_node,
        boundary=True,
    ),
    ToolSpec(
        name="finalize_review",
        description="Finish the review with a summary and a proposed verdict (ship, hold or block).",
        input_model=review_verbs.FinalizeInput,
        tier=_R,
        handler=review_verbs.finalize_review,
    ),
    ToolSpec(
        name="confirm_review_node",
        description="Confirm another agent's review node after checking it against the code.",
        input_model=review_verbs.NodeJudgementInput,
        tier=_R,
        handler=review_verbs.confirm_review_node,
    ),
    ToolSpec(
        name="dispute_review_node",
        description="Dispute a review node with the evidence that it is wrong or overstated.",
        input_model=review_verbs.NodeJudgementInput,
        tier=_R,
        handler=review_verbs.dispute_review_node,
    ),
    ToolSpec(
        name="submit_plan",
        description="Deliver the fix plan: a goal and its steps, each with what it depends on and the findings it fixes.",
        input_model=plan_verbs.SubmitPlanInput,
        tier=_R,
        handler=plan_verbs.submit_plan,
    ),
    ToolSpec(
        name="propose_orchestration",
        description="Propose how to split the PR into a stack of smaller PRs: each part's files, title and dependencies.",
        input_model=split_verbs.ProposeOrchestrationInput,
        tier=_R,
        handler=split_verbs.propose_orchestration,
    ),
    ToolSpec(
        name="ask_user",
        description="Ask the operator a question; answers at once when nobody is connected.",
        input_model=ask_user.AskUserInput,
        tier=_R,
        handler=ask_user.ask_user,
    ),
    ToolSpec(
        name="write_file",
        description="Create or overwrite a file in the worktree.",
        input_model=other_modes.WriteFileInput,
        tier=_W,
        effects=frozenset({E.WORKTREE_WRITE}),
        handler=other_modes.not_run_here,
    ),
    ToolSpec(
        name="delete_file",
        description="Delete a file from the worktree.",
        input_model=other_modes.DeleteFileInput,
        tier=_W,
        effects=frozenset({E.FILE_DELETE, E.WORKTREE_WRITE}),
        handler=other_modes.not_run_here,
    ),
    ToolSpec(
        name="git_commit",
        description="Commit the worktree's changes.",
        input_model=other_modes.GitCommitInput,
        tier=_W,
        effects=frozenset({E.COMMIT, E.WORKTREE_WRITE}),
        handler=other_modes.not_run_here,
    ),
    ToolSpec(
        name="git_push",
        description="Push a branch to the remote.",
        input_model=other_modes.GitPushInput,
        tier=_W,
        effects=frozenset({E.PUSH, E.SECRET_READ}),
        handler=other_modes.not_run_here,
    ),
    ToolSpec(
        name="create_pull_request",
        description="Open a pull request on GitHub.",
        input_model=other_modes.CreatePullRequestInput,
        tier=_W,
        effects=frozenset({E.PR_PUBLISH, E.SECRET_READ}),
        handler=other_modes.not_run_here,
    ),
    ToolSpec(
        name="bash",
        description="Run a shell command in the sandboxed worktree.",
        input_model=other_modes.BashInput,
        tier=_X,
        # Declared as it runs in the sandbox: confined to the worktree, no push credentials.
        effects=frozenset(
            {E.PROCESS_SPAWN, E.WORKTREE_WRITE, E.FILE_DELETE, E.PACKAGE_INSTALL, E.NETWORK_READ}
        ),
        handler=other_modes.not_run_here,
    ),
    ToolSpec(
        name="install_package",
        description="Install a package into the sandbox.",
        input_model=other_modes.InstallPackageInput,
        tier=_X,
        effects=frozenset({E.PACKAGE_INSTALL, E.PROCESS_SPAWN, E.NETWORK_READ}),
        handler=other_modes.not_run_here,
    ),
)

REGISTRY: dict[str, ToolSpec] = {tool.name: tool for tool in _TOOLS}
