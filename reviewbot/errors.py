"""The one error hierarchy of reviewbot, and the exit code table of `reviewbot review`.

`EXIT_CODES` is the one table of what each code means: `review --help` and the CLI's
exit paths are built from it, and tests hold the README's table to it.

    ReviewbotError                  every error that can end a run (exit code on the class)
    ├── UsageError                  bad flags, bad PR URL, bad event payload            (2)
    ├── ConfigError                 malformed .reviewbot.toml, with the line            (2)
    ├── AuthError                   missing or rejected GitHub / Anthropic credentials  (3)
    │   └── CredentialsRefusedError the Messages API rejected ANTHROPIC_API_KEY (401)
    ├── NotFoundError               the PR, repository, ref or model does not exist     (4)
    │   └── ModelNotFoundError      the Messages API does not know the model (404)
    ├── NetworkError                an API could not be reached or kept failing         (5)
    │   ├── GitHubAPIError          GitHub answered with an error we cannot recover from
    │   ├── ModelAPIError           the Messages API answered with an error
    │   └── ModelTimeoutError       no answer before the request's time (the run's budget) ran out
    ├── RepositoryError             git could not produce the checkout or the diff       (6)
    ├── HeadMoved                   a push superseded the run (caught by the flows)      (0)
    └── LifecycleError              an illegal review-node state transition             (70)

Tool signals (what the model reads as an `is_error` tool result) are not here: they
are values returned by the tool layer, never exceptions that end a run. Adapters
wrap library exceptions (`raise GitHubAPIError(...) from exc`) so no caller has to
import `github`, `anthropic` or `git` to catch them.
"""

from __future__ import annotations

from enum import IntEnum


class ExitCode(IntEnum):
    """How `reviewbot review` ends (the `snapshot` and `eval` commands document their own)."""

    OK = 0
    FAIL_ON = 1
    USAGE = 2
    AUTH = 3
    NOT_FOUND = 4
    NETWORK = 5
    GIT = 6
    INTERNAL = 70
    INTERRUPTED = 130  # 128 + SIGINT: what a shell reports for a command stopped by Ctrl-C
    CLOSED_STDOUT = 141  # 128 + SIGPIPE: what a shell reports when the reader of a pipe quit


EXIT_CODES: dict[ExitCode, str] = {
    ExitCode.OK: "the review ran (whatever the verdict), the event needed no review, or a "
    "push superseded the run",
    ExitCode.FAIL_ON: "--fail-on matched: the verdict reached the given level",
    ExitCode.USAGE: "usage or configuration error (bad URL, flag, event, .reviewbot.toml)",
    ExitCode.AUTH: "authentication: GitHub or the model provider (Anthropic, Bedrock, Vertex) "
    "refused the credentials",
    ExitCode.NOT_FOUND: "not found: the PR, repository, ref or model does not exist or is "
    "not visible",
    ExitCode.NETWORK: "network: GitHub or the Messages API could not be reached, kept "
    "failing or refused a request",
    ExitCode.GIT: "git could not produce the checkout or the diff",
    ExitCode.INTERNAL: "internal error: a bug in reviewbot (run with --verbose for the traceback)",
    ExitCode.INTERRUPTED: "interrupted (Ctrl-C); the live progress line is cleared first",
    ExitCode.CLOSED_STDOUT: "stdout was closed early (a reader such as `head` or a pager quit; any "
    "format, `--help` and `--version` too); the rest "
    "of the run completed",
}


def exit_code_table(indent: str = "  ") -> str:
    """`EXIT_CODES` as aligned lines, as `--help` shows them."""
    return "\n".join(f"{indent}{code.value:<3} {meaning}" for code, meaning in EXIT_CODES.items())


class ReviewbotError(Exception):
    """An error that ends the run; its message is one line a user can act on."""

    exit_code: int = ExitCode.FAIL_ON


class UsageError(ReviewbotError):
    """The user asked for something malformed (a bad URL, a flag, an event)."""

    exit_code = ExitCode.USAGE


class ConfigError(ReviewbotError):
    """`.reviewbot.toml` is malformed; the message names the line."""

    exit_code = ExitCode.USAGE


class AuthError(ReviewbotError):
    """Credentials are missing or were refused."""

    exit_code = ExitCode.AUTH


class CredentialsRefusedError(AuthError):
    """The Messages API rejected the key itself (401): no later agent can succeed with it."""


class NotFoundError(ReviewbotError):
    """The pull request, repository or git ref does not exist (or is not visible)."""

    exit_code = ExitCode.NOT_FOUND


class ModelNotFoundError(NotFoundError):
    """The Messages API does not know the model (404): a config or --model mistake."""


class NetworkError(ReviewbotError):
    """A remote API could not be reached or kept failing after retries."""

    exit_code = ExitCode.NETWORK


class GitHubAPIError(NetworkError):
    """GitHub answered with an error that retries did not cure."""


class ModelAPIError(NetworkError):
    """The Messages API answered with an error that retries did not cure."""


class ModelTimeoutError(NetworkError):
    """The Messages API gave no answer within the request's time, the rest of the run's budget."""


class HeadMoved(ReviewbotError):
    """The PR's head is no longer the SHA this run reviews: a push superseded the run.

    One rule in every phase (the checkout, before posting, while posting): nothing more
    is posted for the older head, the message is the one line the run ends with, and the
    exit code is 0 (`--fail-on` does not apply): the newer head's own run reviews it.
    """

    exit_code = ExitCode.OK


class RepositoryError(ReviewbotError):
    """git could not produce the checkout or the diff."""

    exit_code = ExitCode.GIT


class LifecycleError(ReviewbotError):
    """A review node was asked to make a transition its state machine forbids."""

    exit_code = ExitCode.INTERNAL
