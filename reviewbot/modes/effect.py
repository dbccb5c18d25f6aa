"""What a tool can do to the world (effect classes) and how much approval it needs (tiers).

Every tool declares both; a capability profile denies effect classes and caps the
tier. This module owns the closed sets and their plain-language names (used in the
prompt and in the guard's refusals); it must not know about any tool or mode.
"""

from __future__ import annotations

from enum import IntEnum, StrEnum


class Tier(IntEnum):
    """Approval tier, ordered: a profile's `max_tier` admits its own tier and those below."""

    READ = 0
    WRITE = 1
    EXECUTE = 2


class Effect(StrEnum):
    """An effect class. Declaration order is precedence: when a tool has several denied
    effects, the first one here is the one a refusal names (for `bash`, starting a
    process says more than the files it might write)."""

    PROCESS_SPAWN = "process_spawn"
    PACKAGE_INSTALL = "package_install"
    ENCLOSURE_CONTROL = "enclosure_control"
    WORKSPACE_CHANGE = "workspace_change"
    PUSH = "push"
    PR_PUBLISH = "pr_publish"
    COMMIT = "commit"
    VENDOR_SYNC_WRITE = "vendor_sync_write"
    FILE_DELETE = "file_delete"
    WRITE_OUTSIDE_WORKTREE = "write_outside_worktree"
    WORKTREE_WRITE = "worktree_write"
    NETWORK_READ = "network_read"
    SECRET_READ = "secret_read"  # noqa: S105 - the name of an effect class, not a secret

    @property
    def phrase(self) -> str:
        """The effect as a gerund phrase: "starting processes"."""
        return _PHRASES[self]


_PHRASES: dict[Effect, str] = {
    Effect.PROCESS_SPAWN: "starting processes",
    Effect.PACKAGE_INSTALL: "installing packages",
    Effect.ENCLOSURE_CONTROL: "controlling the sandbox",
    Effect.WORKSPACE_CHANGE: "changing the workspace",
    Effect.PUSH: "pushing",
    Effect.PR_PUBLISH: "creating or publishing a pull request",
    Effect.COMMIT: "committing",
    Effect.VENDOR_SYNC_WRITE: "writing vendored code",
    Effect.FILE_DELETE: "deleting files",
    Effect.WRITE_OUTSIDE_WORKTREE: "writing outside the worktree",
    Effect.WORKTREE_WRITE: "writing the worktree",
    Effect.NETWORK_READ: "reading from the network",
    Effect.SECRET_READ: "reading secrets",
}

# What every read-only mode denies. Network reads and secret access are
# deliberately absent: investigation is what a read-only mode is for.
READ_ONLY_DENIED: frozenset[Effect] = frozenset(Effect) - {Effect.NETWORK_READ, Effect.SECRET_READ}
