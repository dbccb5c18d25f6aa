"""How reviewbot logs: one redacting stderr handler for every library, quiet by default.

The CLI calls `configure_logging` once per command. PyGithub's own handler (it prints request
and response bodies unredacted) is removed, and urllib3's `Retrying (GithubRetry(…))` lines
become one line of ours per retry.
"""

from __future__ import annotations

import logging
import re
import sys

from reviewbot.redact import RedactingStreamHandler
from reviewbot.settings import Settings


class _GitHubRetryLines(logging.Filter):
    """urllib3's `Retrying (GithubRetry(total=3, …)) after connection broken by '…': /path`
    (PyGithub's transport) as one line of ours: the cause, the path, the attempts left."""

    def filter(self, record: logging.LogRecord) -> bool:
        args = record.args
        if not (
            isinstance(args, tuple) and len(args) == 3 and str(record.msg).startswith("Retrying")
        ):
            return True
        from urllib3.util.retry import Retry  # loaded already: it is urllib3 that logs

        retry, error, path = args
        left = retry.total if isinstance(retry, Retry) else None
        record.msg = "GitHub unreachable (%s) on %s; retrying, %s attempt(s) left"
        record.args = (_cause(error), path, "some" if left is None else left)
        return True


def _cause(error: object) -> str:
    """`Connection refused` out of urllib3's `NewConnectionError("HTTPConnection(…): … [Errno 111] Connection refused")`."""
    text = str(error)
    errno = re.search(r"\[Errno -?\d+\] ([^\"')]+)", text)
    if errno:
        return errno.group(1).strip()
    return text.rsplit(": ", 1)[-1].strip() or type(error).__name__


def configure_logging(verbose: int, settings: Settings) -> None:
    """`verbose`: 0 quiet, 1 (`-v`) reviewbot's own DEBUG lines, 2 (`-vv`) every library's too."""
    redactor, in_actions = settings.redactor, settings.in_actions
    everything = verbose >= 2
    # The whole formatted record is redacted, tracebacks included, and so is the report of
    # a record that could not be written (`redact.RedactingStreamHandler`).
    handler = RedactingStreamHandler(
        sys.stderr,
        "reviewbot: %(message)s" if not verbose else "%(levelname)s %(name)s: %(message)s",
        redactor,
    )
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(logging.DEBUG if everything else logging.WARNING)
    # Our own steps (event decisions, request ids) belong in a CI log; at a terminal, the result is enough.
    ours = logging.DEBUG if verbose else logging.INFO if in_actions else logging.WARNING
    logging.getLogger("reviewbot").setLevel(ours)
    # PyGithub logs every failed request, including the ones we expect and handle (GET /user → 403).
    github = logging.getLogger("github")
    github.setLevel(logging.DEBUG if everything else logging.ERROR)
    # PyGithub attaches its own stderr handler at import: it would print request and response
    # bodies (PR text, pasted secrets) unredacted. Its records go through the handler above only.
    github.handlers.clear()
    github.propagate = True
    pool = logging.getLogger("urllib3.connectionpool")
    pool.filters[:] = [] if everything else [_GitHubRetryLines()]
