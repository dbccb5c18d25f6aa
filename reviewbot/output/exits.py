"""How a command ends on an error: one line on stderr and its exit code, never a traceback.

`last_resort` wraps a command's work: a `ReviewbotError` is its one line and documented
code; anything else is a bug, exit 70 with one line (the traceback only under --verbose).
Every line goes through `inert_lines`, so no error text can start a workflow command.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import NoReturn, Protocol

from reviewbot.config.logs import inert_lines
from reviewbot.errors import ExitCode, ReviewbotError
from reviewbot.redact import Redactor

log = logging.getLogger("reviewbot")


class Closable(Protocol):
    def close(self) -> None: ...


def say(line: str) -> None:
    """One line on stderr (looked up now: a test runner may have swapped it)."""
    print(inert_lines(line), file=sys.stderr, flush=True)


# What an error line adds at its end, given its message: decided when the line is said.
Aside = Callable[[str], str]


def _nothing(_message: str) -> str:
    return ""


@contextmanager
def last_resort(
    verbose: int, redactor: Redactor, progress: Closable | None = None, aside: Aside = _nothing
) -> Iterator[None]:
    """A `ReviewbotError` is its one line and exit code; anything else (not Ctrl-C) exit 70.

    The live progress line is stopped first in every case, so the terminal gets its cursor back.
    `aside` adds to the line what the run did not do (`ReportFile.aside`: its report file).
    """
    try:
        try:
            yield
        except BaseException:
            if progress is not None:
                progress.close()  # before any line is printed below it
            raise
    except ReviewbotError as exc:  # Ctrl-C goes on to the CLI's manners: 130 for every command
        fail(exc, verbose, redactor, aside=aside)
    except Exception as exc:  # the CLI's last resort: a bug exits 70 with one line, no traceback
        if verbose:
            log.exception("internal error")
        message = redactor(f"{type(exc).__name__}: {exc}")
        hint = "(run with --verbose for the traceback)"
        say(f"reviewbot: internal error: {message} {hint}{aside(message)}")
        sys.exit(ExitCode.INTERNAL)


def fail(
    exc: ReviewbotError, verbose: int, redactor: Redactor | None = None, *, aside: Aside = _nothing
) -> NoReturn:
    if verbose:
        log.debug("error", exc_info=exc)
    exit_with(str(exc) + aside(str(exc)), exc.exit_code, redactor)


def exit_with(message: str, code: int, redactor: Redactor | None = None) -> NoReturn:
    redact = redactor or Redactor()
    say(f"reviewbot: error: {redact(message)}")
    sys.exit(code)
