"""The Messages API client: the only module that imports `anthropic` (and the clouds' SDKs).

`AnthropicClient` implements `reviewbot.agent.messages.ModelClient` over the official
SDK. It owns retries and error mapping; it must not know about tools, nodes or
budgets, and it never reads the environment (the composition root passes the key
and base URL in). `AnthropicClient.bedrock` and `.vertex` build the same client over
the SDK's `AnthropicBedrock` and `AnthropicVertex` (the `bedrock` / `vertex` extras,
imported only then): the model id is mapped to the cloud's (`providers.model_id`),
credentials are resolved when the client is made (none: `AuthError`, one line), and a
cloud's refusal or outage maps to the same errors as Anthropic's.

Retries are ours, not the SDK's (the SDK client is built with `max_retries=0`):
the SDK's sleeper cannot be injected (tests must not sleep), it would retry a
spend-limit 429 like any other, and it has no ceiling on the total wait. Here:

    429 rate_limit_error   retried, honouring retry-after; a spend-limit/quota 429 is not
    5xx, 529 overloaded    retried with exponential backoff and jitter
                           (a 429 or 529 holds back every agent's requests for as long:
                           `reviewbot.agent.backoff`, one gate per client)
    connection/timeout     retried, then NetworkError
    401                    CredentialsRefusedError("Anthropic rejected ANTHROPIC_API_KEY …"),
                           never retried; no later agent can succeed with this key
    403                    AuthError (the key may not use this model or workspace): only
                           the agent of that model stops
    404                    ModelNotFoundError naming the model
    other 4xx              ModelAPIError with the API's message

Every response and error logs its `request-id`.

A request's `timeout` is the time the whole call may take — every attempt, and every
wait between attempts (the loop passes what is left of the run's `timeout_seconds`).
Each attempt's timeout is the rest of it (capped by the client's own `timeout`);
a retry whose wait would pass it is not waited, and an attempt that timed out at it is
not retried. So a Messages API that accepts the connection and never answers costs the
rest of the budget once, not `timeout` per attempt. Which error that is, one rule:
the API failing, not the budget, is `NetworkError` (exit 5) — the call had failed
attempts (an error answer, no connection, the client's own ceiling) before the
deadline, a retry's wait would pass it (a long `retry-after`), or the API never
answered any request of this client; `ModelTimeoutError` (a budget stop) is only a
first attempt still waiting for its answer, or reading it, at the deadline of an API
that has been answering. httpx's timeouts are per read, so the body of an answer is also bounded as a
whole (`_Bounded`, a response hook): one that is still arriving at the attempt's end
is a timeout too, however steadily its bytes trickle in.
"""

from __future__ import annotations

import logging
import math
import random
import re
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any, cast

import anthropic
import httpx

from reviewbot.agent.backoff import BackoffGate
from reviewbot.agent.messages import (
    JSON,
    Block,
    ModelRequest,
    ModelResponse,
    OtherBlock,
    TextBlock,
    TokenUsage,
    ToolUseBlock,
)
from reviewbot.config.providers import BedrockAccess, Provider, VertexAccess, model_id
from reviewbot.errors import (
    AuthError,
    CredentialsRefusedError,
    ModelAPIError,
    ModelNotFoundError,
    ModelTimeoutError,
    NetworkError,
    ReviewbotError,
    UsageError,
)
from reviewbot.text.truncate import first_line

log = logging.getLogger(__name__)

DEFAULT_BASE_URL = "https://api.anthropic.com"
DEFAULT_TIMEOUT = 600.0
DEFAULT_MAX_RETRIES = 4
DEFAULT_MAX_WAIT = 180.0  # ceiling on the total time spent waiting between attempts
_INITIAL_DELAY = 1.0
_MAX_DELAY = 30.0
# A 429 that says the account is out of money or quota will not clear in seconds.
_QUOTA = re.compile(
    r"spend limit|usage limit|credit balance|quota|billing|extra usage|usage credits", re.I
)
_RETRYABLE_STATUS = frozenset({408, 409, 429, 500, 502, 503, 504, 529})
_SHARED_BACKOFF = frozenset({429, 529})  # the API as a whole is refusing: every agent waits
# Bedrock's 403s that mean the credentials themselves were refused (x-amzn-errortype).
_AWS_REFUSED = re.compile(r"UnrecognizedClient|InvalidSignature|ExpiredToken|IncompleteSignature")
_CLOUD_SCOPE = "https://www.googleapis.com/auth/cloud-platform"
_CREDENTIALS = {
    Provider.ANTHROPIC: "ANTHROPIC_API_KEY",
    Provider.BEDROCK: "the AWS credentials",
    Provider.VERTEX: "the Google Cloud credentials",
}


class AnthropicClient:
    """`ModelClient` over `anthropic.Anthropic`; constructing it makes no network call."""

    def __init__(
        self,
        api_key: str | None,
        *,
        base_url: str | None = None,
        max_retries: int = DEFAULT_MAX_RETRIES,
        timeout: float = DEFAULT_TIMEOUT,
        max_wait: float = DEFAULT_MAX_WAIT,
        http_client: httpx.Client | None = None,
        sleep: Callable[[float], None] = time.sleep,
        jitter: Callable[[], float] = random.random,
        clock: Callable[[], float] = time.monotonic,
        sdk: Callable[[httpx.Client, float], anthropic.Anthropic] | None = None,
        provider: Provider = Provider.ANTHROPIC,
    ) -> None:
        """`sdk` builds the SDK client from the http client and timeout (`bedrock`, `vertex`)."""
        self._base_url = base_url or DEFAULT_BASE_URL
        self._provider = provider
        self._clock = clock
        self._answered = False  # whether the API has answered a request of this client (2xx)
        # When each thread's attempt in flight must have its whole answer (agents share a client).
        self._attempt = threading.local()
        self._gate = BackoffGate(clock=clock, sleep=sleep)
        http = http_client or anthropic.DefaultHttpxClient()  # the SDK's own defaults
        hooks = http.event_hooks
        http.event_hooks = {**hooks, "response": [*hooks.get("response", []), self._bound]}
        # base_url is always explicit so the SDK never falls back to reading the environment.
        self._sdk = (sdk or self._direct(api_key))(http, timeout)
        self._timeout = timeout
        self._max_retries = max_retries
        self._max_wait = max_wait
        self._sleep = sleep
        self._jitter = jitter
        self._auth_errors = _auth_errors(provider)

    def _direct(self, api_key: str | None) -> Callable[[httpx.Client, float], anthropic.Anthropic]:
        def make(http: httpx.Client, timeout: float) -> anthropic.Anthropic:
            return anthropic.Anthropic(
                api_key=api_key,
                base_url=self._base_url,
                max_retries=0,
                timeout=timeout,
                http_client=http,
            )

        return make

    @classmethod
    def bedrock(cls, access: BedrockAccess, **options: Any) -> AnthropicClient:
        """Claude on Amazon Bedrock (`pip install 'reviewbot[bedrock]'`)."""
        _require_extra(Provider.BEDROCK)
        region = _aws_region(access)
        _aws_credentials(access, region)
        base_url = access.base_url or f"https://bedrock-runtime.{region}.amazonaws.com"

        def make(http: httpx.Client, timeout: float) -> anthropic.Anthropic:
            from anthropic import AnthropicBedrock

            client = AnthropicBedrock(
                aws_access_key=access.access_key,
                aws_secret_key=access.secret_key,
                aws_session_token=access.session_token,
                aws_profile=access.profile,
                aws_region=region,
                api_key=None,
                base_url=base_url,
                max_retries=0,
                timeout=timeout,
                http_client=http,
            )
            return cast(anthropic.Anthropic, client)  # the same `messages` resource

        return cls(None, base_url=base_url, sdk=make, provider=Provider.BEDROCK, **options)

    @classmethod
    def vertex(cls, access: VertexAccess, **options: Any) -> AnthropicClient:
        """Claude on Google Vertex AI (`pip install 'reviewbot[vertex]'`)."""
        _require_extra(Provider.VERTEX)
        if access.region is None:
            raise UsageError(
                "REVIEWBOT_PROVIDER=vertex needs CLOUD_ML_REGION (e.g. us-east5, or global)"
            )
        token, credentials, project = _google_access(access)
        base_url = access.base_url or _vertex_url(access.region)

        def make(http: httpx.Client, timeout: float) -> anthropic.Anthropic:
            from anthropic import AnthropicVertex

            client = AnthropicVertex(
                region=access.region or "",
                project_id=project,
                access_token=token,
                credentials=credentials,
                base_url=base_url,
                max_retries=0,
                timeout=timeout,
                http_client=http,
            )
            return cast(anthropic.Anthropic, client)

        return cls(None, base_url=base_url, sdk=make, provider=Provider.VERTEX, **options)

    def close(self) -> None:
        self._sdk.close()

    def create(self, request: ModelRequest) -> ModelResponse:
        deadline = self._clock() + (math.inf if request.timeout is None else request.timeout)
        waited = 0.0
        for attempt in range(self._max_retries + 1):
            left = deadline - self._clock()
            if left <= 0:
                what = ModelTimeoutError if attempt == 0 else NetworkError
                raise what(
                    f"no time was left in the review's budget to ask the Messages API "
                    f"(after {attempt} failed attempt(s))"
                )
            blocked = self._gate.wait(deadline)
            if blocked is not None:  # rate-limited until the deadline: unreachable, as `_within`
                raise NetworkError(
                    f"{self._api} is rate-limiting this run; waiting {blocked:.3g} s for it would "
                    "pass the review's time budget (timeout_seconds)"
                )
            left = deadline - self._clock()
            timeout = min(self._timeout, left)
            self._attempt.ends = self._clock() + timeout
            try:
                return self._send(request, timeout)
            except self._auth_errors as exc:  # a cloud's credentials that could not be refreshed
                raise self._auth_error(exc) from exc
            except anthropic.APIStatusError as exc:
                delay = self._retry_delay(exc, attempt)
                if delay is None or attempt == self._max_retries or waited + delay > self._max_wait:
                    raise self._map_status(exc, request.model, attempt) from exc
                self._within(deadline, delay, f"answered {exc.status_code}", exc)
                if exc.status_code in _SHARED_BACKOFF:
                    self._gate.close_for(delay)
                log.warning(
                    "Messages API answered %s (request-id %s); retrying in %.1fs",
                    exc.status_code,
                    exc.request_id,
                    delay,
                )
            except anthropic.APIConnectionError as exc:
                if isinstance(exc, anthropic.APITimeoutError) and timeout == left:
                    # This attempt was given all the time there was: retrying cannot help.
                    slow = attempt == 0 and self._answered  # an answering API: the budget
                    raise (ModelTimeoutError if slow else NetworkError)(
                        f"{self._api} at {self._base_url} gave no answer within the "
                        f"{left:.3g} s left of the review's time budget (timeout_seconds)"
                        + ("" if slow else self._failing(attempt))
                    ) from exc
                delay = self._backoff(attempt)
                if attempt == self._max_retries or waited + delay > self._max_wait:
                    raise NetworkError(
                        f"could not reach {self._api} at {self._base_url} after "
                        f"{attempt + 1} attempt(s): {first_line(str(exc))}"
                    ) from exc
                self._within(deadline, delay, "could not be reached", exc)
                log.warning("Messages API unreachable (%s); retrying in %.1fs", exc, delay)
            self._sleep(delay)
            waited += delay
        raise AssertionError("unreachable: the last attempt returns or raises")  # pragma: no cover

    def _bound(self, response: httpx.Response) -> None:
        """httpx response hook, before the body is read: the body must arrive by `_ends`."""
        self._answered = self._answered or response.is_success
        if isinstance(response.stream, httpx.SyncByteStream):
            ends = getattr(self._attempt, "ends", math.inf)
            response.stream = _Bounded(response.stream, response.request, ends, self._clock)

    def _within(self, deadline: float, delay: float, what: str, exc: Exception) -> None:
        """A failing API whose next retry would pass `deadline` is unreachable (`NetworkError`),
        not a budget: the time ran out waiting for it to recover."""
        if self._clock() + delay >= deadline:
            raise NetworkError(
                f"{self._api} {what} ({first_line(str(exc))}) and kept failing: waiting "
                f"{delay:.3g} s to retry would pass the review's time budget (timeout_seconds)"
            ) from exc

    def _failing(self, attempt: int) -> str:
        if attempt:
            return f", after {attempt} failed attempt(s)"
        return "; it has answered no request of this run"

    def _send(self, request: ModelRequest, timeout: float) -> ModelResponse:
        # The request dicts are built by the loop in the exact wire shape; the SDK's
        # TypedDicts describe the same JSON, so the casts change no value.
        # tool_choice only when asked for: omitted, the API lets the model choose ("auto").
        choice: Any = request.tool_choice if request.tool_choice is not None else anthropic.omit
        message = self._sdk.messages.create(
            model=model_id(self._provider, request.model),
            max_tokens=request.max_tokens,
            system=cast(Any, list(request.system)),
            tools=cast(Any, list(request.tools)),
            messages=cast(Any, list(request.messages)),
            tool_choice=choice,
            timeout=timeout,
        )
        request_id = message._request_id
        log.info("Messages API request-id %s (%s)", request_id, message.stop_reason)
        usage = message.usage
        return ModelResponse(
            content=tuple(_block(b.model_dump(mode="json")) for b in message.content),
            stop_reason=message.stop_reason,
            usage=TokenUsage(
                input_tokens=usage.input_tokens,
                output_tokens=usage.output_tokens,
                cache_read_tokens=usage.cache_read_input_tokens or 0,
                cache_write_tokens=usage.cache_creation_input_tokens or 0,
            ),
            model=getattr(message, "model", None) or request.model,
            request_id=request_id,
        )

    def _auth_error(self, exc: BaseException) -> ReviewbotError:
        what = f"{self._provider.service}: {_CREDENTIALS[self._provider]} failed: {first_line(str(exc))}"
        if type(exc).__name__ == "TransportError":  # google.auth could not reach its token service
            return NetworkError(what)
        return AuthError(what)

    @property
    def _api(self) -> str:
        direct = self._provider is Provider.ANTHROPIC
        return "the Messages API" if direct else self._provider.service

    def _model_name(self, model: str) -> str:
        cloud = model_id(self._provider, model)
        return repr(model) if cloud == model else f"{model!r} ({cloud!r})"

    def _retry_delay(self, exc: anthropic.APIStatusError, attempt: int) -> float | None:
        """Seconds to wait before the next attempt, or None when retrying cannot help."""
        if exc.status_code not in _RETRYABLE_STATUS:
            return None
        if exc.status_code == 429 and _QUOTA.search(_api_message(exc)):
            return None
        retry_after = _retry_after(exc.response.headers)
        if retry_after is not None:
            return retry_after
        return self._backoff(attempt)

    def _backoff(self, attempt: int) -> float:
        delay: float = min(_INITIAL_DELAY * 2.0**attempt, _MAX_DELAY)
        return delay * (0.75 + 0.25 * self._jitter())

    def _map_status(
        self, exc: anthropic.APIStatusError, model: str, attempt: int
    ) -> ReviewbotError:
        status, kind, message = exc.status_code, exc.type or "error", _api_message(exc)
        where = f"(request-id {exc.request_id})" if exc.request_id else "(no request-id)"
        log.error("Messages API error %s %s: %s %s", status, kind, message, where)
        title, credentials = self._provider.service, _CREDENTIALS[self._provider]
        direct = self._provider is Provider.ANTHROPIC
        if status == 401 or (status == 403 and _AWS_REFUSED.search(_aws_error_type(exc))):
            check = "the key is current and belongs" if direct else "they are current and belong"
            return CredentialsRefusedError(
                f"{title} rejected {credentials} ({status} {kind}: {message}); "
                f"check {check} to this {'workspace' if direct else 'account'} {where}"
            )
        if status == 403:
            who = "the key" if direct else credentials
            return AuthError(
                f"{title} refused this request (403 {kind}: {message}); {who} may "
                f"not have access to model {self._model_name(model)} {where}"
            )
        if status == 404:
            on = "" if self._provider is Provider.ANTHROPIC else f" on {title}"
            return ModelNotFoundError(
                f"model {self._model_name(model)} was not found{on} (404 {kind}: "
                f"{message}); check `model` in .reviewbot.toml {where}"
            )
        if status in _RETRYABLE_STATUS:
            tries = f"after {attempt + 1} attempt(s)"
            return ModelAPIError(f"{self._api} answered {status} {kind} {tries}: {message} {where}")
        return ModelAPIError(f"{self._api} answered {status} {kind}: {message} {where}")


class _Bounded(httpx.SyncByteStream):
    """A response body that ends at `ends`: past it, the next chunk is a read timeout."""

    def __init__(
        self,
        inner: httpx.SyncByteStream,
        request: httpx.Request,
        ends: float,
        clock: Callable[[], float],
    ) -> None:
        self._inner = inner
        self._request = request
        self._ends = ends
        self._clock = clock

    def __iter__(self) -> Iterator[bytes]:
        for chunk in self._inner:
            if self._clock() >= self._ends:
                raise httpx.ReadTimeout(
                    "the answer was still arriving when the request's time ran out",
                    request=self._request,
                )
            yield chunk

    def close(self) -> None:
        self._inner.close()


def _block(raw: JSON) -> Block:
    match raw.get("type"):
        case "text":
            return TextBlock(text=str(raw.get("text", "")))
        case "tool_use":
            return ToolUseBlock(
                id=str(raw["id"]), name=str(raw["name"]), input=raw.get("input", {})
            )
        case other:
            kept = {k: v for k, v in raw.items() if v is not None}
            return OtherBlock(type=str(other), raw=kept)


def _api_message(exc: anthropic.APIStatusError) -> str:
    body = exc.body
    if isinstance(body, dict):
        error = body.get("error")
        if isinstance(error, dict) and isinstance(error.get("message"), str):
            return first_line(error["message"])
    return first_line(exc.message)


def _auth_errors(provider: Provider) -> tuple[type[BaseException], ...]:
    """What the cloud's SDK raises when its credentials cannot be loaded or refreshed."""
    if provider is Provider.BEDROCK:
        import botocore.exceptions

        return (botocore.exceptions.BotoCoreError,)
    if provider is Provider.VERTEX:
        import google.auth.exceptions

        return (google.auth.exceptions.GoogleAuthError,)
    return ()


def _aws_error_type(exc: anthropic.APIStatusError) -> str:
    return str(exc.response.headers.get("x-amzn-errortype", ""))


def _aws_region(access: BedrockAccess) -> str:
    """AWS_REGION, else the profile's region: Bedrock's endpoint and signature need one."""
    if access.region:
        return access.region
    import boto3

    region = boto3.Session(profile_name=access.profile).region_name
    if not region:
        raise UsageError("REVIEWBOT_PROVIDER=bedrock needs AWS_REGION (e.g. us-east-1)")
    return str(region)


def _aws_credentials(access: BedrockAccess, region: str) -> None:
    """boto3's chain must find credentials now: not on the first request, as the SDK would."""
    if access.access_key and access.secret_key:
        return
    import boto3
    import botocore.exceptions

    try:
        session = boto3.Session(profile_name=access.profile, region_name=region)
        found = session.get_credentials()
    except botocore.exceptions.BotoCoreError as exc:
        raise AuthError(f"Amazon Bedrock: cannot load the AWS credentials: {exc}") from exc
    if found is None:
        raise AuthError(
            "REVIEWBOT_PROVIDER=bedrock found no AWS credentials: set AWS_ACCESS_KEY_ID and "
            "AWS_SECRET_ACCESS_KEY (aws-actions/configure-aws-credentials does) or AWS_PROFILE"
        )


def _google_access(access: VertexAccess) -> tuple[str | None, Any, str]:
    """The access token or Application Default Credentials, and the project to bill."""
    credentials: Any = None
    project = access.project_id
    if access.access_token is None:
        import google.auth
        import google.auth.exceptions

        try:
            credentials, found = google.auth.default(scopes=[_CLOUD_SCOPE])
        except google.auth.exceptions.GoogleAuthError as exc:
            raise AuthError(
                "REVIEWBOT_PROVIDER=vertex found no Google Cloud credentials: set "
                "GOOGLE_APPLICATION_CREDENTIALS (google-github-actions/auth does) or "
                f"GOOGLE_OAUTH_ACCESS_TOKEN ({first_line(str(exc))})"
            ) from exc
        project = project or found
    if not project:
        raise UsageError("REVIEWBOT_PROVIDER=vertex needs ANTHROPIC_VERTEX_PROJECT_ID")
    return access.access_token, credentials, project


def _vertex_url(region: str) -> str:
    # The SDK's own endpoints (anthropic.lib.vertex): multi-regions have their own hosts.
    hosts = {"global": "aiplatform.googleapis.com", "us": "aiplatform.us.rep.googleapis.com"}
    hosts["eu"] = "aiplatform.eu.rep.googleapis.com"
    return f"https://{hosts.get(region, f'{region}-aiplatform.googleapis.com')}/v1"


def _require_extra(provider: Provider) -> None:
    """The cloud's SDK is an extra: without it, say how to install it (exit 2), no traceback."""
    try:
        if provider is Provider.BEDROCK:
            import boto3  # noqa: F401
            import botocore.auth  # noqa: F401
        else:
            import google.auth  # noqa: F401
    except ImportError as exc:
        raise UsageError(
            f"REVIEWBOT_PROVIDER={provider.value} needs the {provider.value} extra: "
            f"pip install 'reviewbot[{provider.value}]'"
        ) from exc


def _retry_after(headers: httpx.Headers) -> float | None:
    for name, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
        value = headers.get(name)
        if value is None:
            continue
        try:
            seconds = float(value) * scale
        except ValueError:
            continue  # an HTTP-date retry-after: fall back to our own backoff
        return max(0.0, seconds)
    return None
