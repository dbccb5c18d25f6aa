"""Secret redaction: nothing from the environment's secrets leaves the process.

Every text sent to the model, posted to GitHub, printed or written to a report
passes through a `Redactor`. It knows the secret values of this run (taken from
the environment by the composition root) and the shapes of common tokens, so a
token that arrives another way (a PR that pastes one) is masked too. Log lines go
through `RedactingFormatter`: the whole formatted record (message, arguments,
traceback with its chained exceptions, stack) is redacted, not only the message;
`RedactingStreamHandler` replaces logging's own report of a failed log write, which
prints the record's arguments and the traceback raw.
"""

from __future__ import annotations

import contextlib
import logging
import re
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from types import TracebackType
from typing import TextIO

MASK = "[REDACTED]"
_ExcInfo = tuple[type[BaseException], BaseException, TracebackType | None] | tuple[None, None, None]
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


class RedactingFormatter(logging.Formatter):
    """A log formatter whose every output passed the redactor.

    A secret is as likely to sit in an exception's message (a URL with a token, a
    failed request's body) as in the log message, and the traceback lists every
    chained exception's message too. The traceback and stack texts are redacted as
    they are made, because `logging` caches the traceback on the record
    (`exc_text`), where another handler would find it.
    """

    def __init__(self, fmt: str, redactor: Redactor) -> None:
        super().__init__(fmt)
        self._redact = redactor

    def format(self, record: logging.LogRecord) -> str:
        return self._redact(super().format(record))

    def formatException(self, ei: _ExcInfo) -> str:
        return self._redact(super().formatException(ei))

    def formatStack(self, stack_info: str) -> str:
        return self._redact(super().formatStack(stack_info))


class RedactingStreamHandler(logging.StreamHandler[TextIO]):
    """A stream handler whose records are formatted redacted, and whose failures are too.

    When writing a record fails (a closed or broken stream), `logging.Handler.handleError`
    prints the record's message, its arguments and the traceback of the record's own
    exception to stderr as they are: a second, unredacted way out. Here that report is
    one redacted line.
    """

    def __init__(self, stream: TextIO, fmt: str, redactor: Redactor) -> None:
        super().__init__(stream)
        self.setFormatter(RedactingFormatter(fmt, redactor))
        self._redact = redactor

    def handleError(self, record: logging.LogRecord) -> None:
        if not logging.raiseExceptions:
            return
        failure = sys.exc_info()[1]
        line = f"reviewbot: a log line could not be written ({type(failure).__name__}: {failure})"
        with contextlib.suppress(OSError, ValueError):  # stderr itself is gone: nothing to tell
            sys.stderr.write(self._redact(line) + "\n")
