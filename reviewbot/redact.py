"""Secret redaction: nothing from the environment's secrets leaves the process.

Every text sent to the model, posted to GitHub, printed or written to a report
passes through a `Redactor`. It knows the secret values of this run (taken from
the environment by the composition root) and the shapes of common tokens, so a
token that arrives another way (a PR that pastes one) is masked too.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

MASK = "[REDACTED]"
_MIN_SECRET = 8  # shorter values would mask ordinary words
_SECRET_NAME = re.compile(r"(TOKEN|SECRET|PASSWORD|PASSWD|API_?KEY|PRIVATE_?KEY|CREDENTIAL)", re.I)
_TOKEN_SHAPES = re.compile(
    r"(sk-ant-[A-Za-z0-9_\-]{10,}"
    r"|gh[pousr]_[A-Za-z0-9]{20,}"
    r"|github_pat_[A-Za-z0-9_]{20,}"
    r"|AKIA[0-9A-Z]{16}"
    r"|xox[abprs]-[A-Za-z0-9-]{10,}"
    r"|-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----)"
)


@dataclass(frozen=True, slots=True)
class Redactor:
    secrets: tuple[str, ...] = ()

    @classmethod
    def from_environ(cls, environ: Mapping[str, str], extra: Iterable[str] = ()) -> Redactor:
        """Every environment value whose name says it is a secret, plus `extra`."""
        values = [v for k, v in environ.items() if _SECRET_NAME.search(k)]
        return cls.of([*values, *extra])

    @classmethod
    def of(cls, values: Iterable[str]) -> Redactor:
        kept = {v.strip() for v in values if v and len(v.strip()) >= _MIN_SECRET}
        # Longest first, so a secret that contains another is masked whole.
        return cls(tuple(sorted(kept, key=len, reverse=True)))

    def __call__(self, text: str) -> str:
        for secret in self.secrets:
            if secret in text:
                text = text.replace(secret, MASK)
        return _TOKEN_SHAPES.sub(MASK, text)
