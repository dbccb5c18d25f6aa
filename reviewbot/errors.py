"""The one error hierarchy of reviewbot, and the exit code each error maps to.

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
    ├── LifecycleError              an illegal review-node state transition             (70)
    └── VerdictGateError            --fail-on matched the verdict                        (1)

Tool signals (what the model reads as an `is_error` tool result) are not here: they
are values returned by the tool layer, never exceptions that end a run. Adapters
wrap library exceptions (`raise GitHubAPIError(...) from exc`) so no caller has to
import `github`, `anthropic` or `git` to catch them.
"""

from __future__ import annotations


class ReviewbotError(Exception):
    """An error that ends the run; its message is one line a user can act on."""

    exit_code: int = 1


class UsageError(ReviewbotError):
    """The user asked for something malformed (a bad URL, a flag, an event)."""

    exit_code = 2


class ConfigError(ReviewbotError):
    """`.reviewbot.toml` is malformed; the message names the line."""

    exit_code = 2


class AuthError(ReviewbotError):
    """Credentials are missing or were refused."""

    exit_code = 3


class CredentialsRefusedError(AuthError):
    """The Messages API rejected the key itself (401): no later agent can succeed with it."""


class NotFoundError(ReviewbotError):
    """The pull request, repository or git ref does not exist (or is not visible)."""

    exit_code = 4


class ModelNotFoundError(NotFoundError):
    """The Messages API does not know the model (404): a config or --model mistake."""


class NetworkError(ReviewbotError):
    """A remote API could not be reached or kept failing after retries."""

    exit_code = 5


class GitHubAPIError(NetworkError):
    """GitHub answered with an error that retries did not cure."""


class ModelAPIError(NetworkError):
    """The Messages API answered with an error that retries did not cure."""


class ModelTimeoutError(NetworkError):
    """The Messages API gave no answer within the request's time, the rest of the run's budget."""


class RepositoryError(ReviewbotError):
    """git could not produce the checkout or the diff."""

    exit_code = 6


class LifecycleError(ReviewbotError):
    """A review node was asked to make a transition its state machine forbids."""

    exit_code = 70


class VerdictGateError(ReviewbotError):
    """The verdict reached the level given by `--fail-on`: a verdict, not a crash."""

    exit_code = 1
