"""The seal: how reviewbot recognises the comments it wrote itself, whatever account posted them.

In GitHub Actions every workflow of a repository posts as `github-actions[bot]`, so
the author of a comment says nothing about which program wrote it: a welcome bot that
quotes a PR body posts as that account too, and can post a verbatim copy of a
reviewbot marker with any status in it. So every body reviewbot posts ends with one
seal, a keyed MAC over the whole body (what people read and every marker in it):

    <!-- reviewbot:seal {"v":1,"mac":"…"} -->                     posted (POST)
    <!-- reviewbot:seal {"v":1,"at":"inline:123","mac":"…"} -->   edited in place (PATCH/PUT)

    key = HMAC-SHA256(secret, "reviewbot marker seal v1")
    mac = HMAC-SHA256(key, scope ␊ at ␊ body without its seal)[:32 hex], scope = "owner/repo#7"

A comment's id is GitHub's and unknown before it is posted, so only an edit in place
can be bound to its comment (`at`): a copy of an edited body elsewhere is not sealed.

The secret is `REVIEWBOT_MARKER_KEY`, else the `ANTHROPIC_API_KEY` of the run (both
repository secrets a text-echoing workflow never prints; the MAC reveals nothing of
them). A body without a valid seal is not reviewbot's. What a seal does not stop, and
why that is bounded, is written in markers.py and the README ("Security model").

Must not: read the environment (the secret is handed in) or call GitHub.
"""

from __future__ import annotations

import hashlib
import hmac
from dataclasses import dataclass, field

_CONTEXT = b"reviewbot marker seal v1"
MAC_HEX = 32  # 128 bits
SEAL_ROOM = 160  # characters a body leaves free for its seal (the marker is under 100)


@dataclass(frozen=True, slots=True, kw_only=True)
class Sealer:
    """The run's sealing key for one PR; `scope` binds every seal to that PR."""

    key: bytes = field(repr=False)
    scope: str

    @classmethod
    def of(cls, secret: str, *, repo: str, number: int) -> Sealer:
        key = hmac.new(secret.encode("utf-8"), _CONTEXT, hashlib.sha256).digest()
        return cls(key=key, scope=f"{repo.casefold()}#{number}")

    def mac(self, body: str, *, at: str | None) -> str:
        """The MAC of `body` (already stripped of its seal), bound to `at` when edited in place."""
        message = "\n".join((self.scope, at or "", _normalized(body)))
        digest = hmac.new(self.key, message.encode("utf-8", "surrogatepass"), hashlib.sha256)
        return digest.hexdigest()[:MAC_HEX]

    def verify(self, body: str, mac: str, *, at: str | None) -> bool:
        return hmac.compare_digest(self.mac(body, at=at), mac)


def _normalized(body: str) -> str:
    """Line endings and trailing blanks do not change what a body says (GitHub may rewrite them)."""
    lines = body.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    return "\n".join(line.rstrip() for line in lines).strip("\n")
