"""Installation tokens, cached per installation and renewed before they expire.

GitHub's installation tokens last an hour. A job asks for the token of the installation its
delivery named; the cache hands out one that still has at least `RENEW_BEFORE` to live (a
review started on it must not see it expire), else fetches a new one. No personal token is
ever used: the server refuses to start with GITHUB_TOKEN set (config.py).
"""

from __future__ import annotations

import datetime as dt
import threading
from collections.abc import Callable
from dataclasses import dataclass, field

# A review may take minutes; a token with less left than this is renewed first.
RENEW_BEFORE = dt.timedelta(minutes=20)

Fetch = Callable[[int], tuple[str, dt.datetime]]


@dataclass(slots=True)
class TokenCache:
    fetch: Fetch  # installation id → (token, expires_at); github_api.installation_token
    now: Callable[[], dt.datetime] = field(default=lambda: dt.datetime.now(dt.UTC))
    _tokens: dict[int, tuple[str, dt.datetime]] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def token(self, installation: int) -> str:
        with self._lock:  # one fetch per installation, however many reviews start at once
            cached = self._tokens.get(installation)
            if cached is None or cached[1] - self.now() < RENEW_BEFORE:
                cached = self.fetch(installation)
                self._tokens[installation] = cached
            return cached[0]
