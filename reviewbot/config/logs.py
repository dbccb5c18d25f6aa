"""How reviewbot logs: one redacting stderr handler for every library, quiet by default.

The CLI calls `configure_logging` once per command. PyGithub's own handler (it prints request
and response bodies unredacted) is removed, and urllib3's `Retrying (GithubRetry(…))` lines
become one line of ours per retry.

In GitHub Actions the log is also a channel to the runner: a line that starts with `::`
(after spaces) is a workflow command (`::error::`, `::add-mask::`, `::stop-commands::`), and
so is any line containing `##[` (the legacy form, matched anywhere). Logged text carries PR
titles, branch names, commit subjects, comment bodies and payload fields, so two rules hold:

- every line written is inert (`inert_lines`): each record starts with our prefix, every
  further line of it with `| `, `##[` is broken up, and a record is cut at
  `MAX_RECORD` characters (a 1 MB field does not print 1 MB);
- in Actions, everything a command prints — stdout's review too — is fenced with
  `::stop-commands::<random token>` … `::<token>::` (`workflow_commands_stopped`): the
  runner runs no command in between, and the token cannot be guessed by the text.
"""

from __future__ import annotations

import logging
import re
import secrets
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TextIO

from reviewbot.config.settings import Settings
from reviewbot.redact import RedactingStreamHandler

MAX_RECORD = 8_000  # characters of one log record (a traceback fits); the rest is cut
_LINE_BREAK = re.compile(r"\r\n|\r|\n")  # where the runner splits lines
_CONTINUED = "| "  # not whitespace: the runner's `TrimStart` cannot expose a `::` after it


def inert_lines(text: str, *, limit: int = MAX_RECORD) -> str:
    """`text` as log lines no runner reads as a workflow command, cut at `limit` characters.

    The first line is left as it starts (the caller's prefix, `reviewbot: `); every other
    line gets `| ` before it, and `##[` anywhere becomes `# #[`.
    """
    if len(text) > limit:
        text = f"{text[:limit]}… [{len(text) - limit:,} more characters cut]"
    first, *rest = _LINE_BREAK.split(text)
    lines = [first if not first.lstrip().startswith("::") else _CONTINUED + first]
    lines += [_CONTINUED + line for line in rest]
    return "\n".join(line.replace("##[", "# #[") for line in lines)


class _InertFormatter(logging.Formatter):
    """The handler's own (redacting) formatter, then `inert_lines` over its whole output."""

    def __init__(self, inner: logging.Formatter) -> None:
        super().__init__()
        self._inner = inner

    def format(self, record: logging.LogRecord) -> str:
        return inert_lines(self._inner.format(record))


@contextmanager
def workflow_commands_stopped(stream: TextIO, *, in_actions: bool) -> Iterator[None]:
    """In GitHub Actions, no workflow command runs while the body prints (stdout included).

    The token is random per run, so no text the run prints can end the fence early; the
    fence is closed on every exit, so later steps of the job may use commands again.
    """
    if not in_actions:
        yield
        return
    token = secrets.token_hex(16)
    _fence(stream, f"::stop-commands::{token}")
    try:
        yield
    finally:
        _fence(stream, f"::{token}::")


def _fence(stream: TextIO, line: str) -> None:
    try:
        stream.write(line + "\n")
        stream.flush()
    except (OSError, ValueError):  # stderr closed: nothing reaches the log anyway
        pass


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
    if handler.formatter is not None:
        handler.setFormatter(_InertFormatter(handler.formatter))
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
