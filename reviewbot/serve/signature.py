"""GitHub's `X-Hub-Signature-256`: HMAC-SHA256 of the raw body with the webhook secret.

Checked on the bytes as received, before anything parses them, and compared in constant
time (`hmac.compare_digest`), so neither a parser nor a timing difference is reachable by
someone who does not hold the secret.
"""

from __future__ import annotations

import hashlib
import hmac

PREFIX = "sha256="


def sign(secret: bytes, body: bytes) -> str:
    """The header value GitHub sends for `body` (also what the tests and the bench send)."""
    return PREFIX + hmac.new(secret, body, hashlib.sha256).hexdigest()


def verify(secret: bytes, body: bytes, header: str | None) -> bool:
    if header is None or not header.startswith(PREFIX):
        return False
    return hmac.compare_digest(
        sign(secret, body).encode("ascii"), header.encode("ascii", "replace")
    )
