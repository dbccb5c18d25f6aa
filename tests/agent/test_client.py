"""AnthropicClient against the fake Messages API at the HTTP layer (httpx.MockTransport)."""

from __future__ import annotations

import logging

import httpx
import pytest

from reviewbot.agent.client import AnthropicClient
from reviewbot.agent.model import ModelRequest, TextBlock, ToolUseBlock
from reviewbot.errors import (
    AuthError,
    CredentialsRefusedError,
    ModelAPIError,
    ModelNotFoundError,
    NetworkError,
)
from tests.agent.factories import API_KEY, MODEL, Sleeps, client_for
from tests.fakes.messages_api import (
    Failure,
    FakeMessagesAPI,
    not_found,
    overloaded,
    rate_limited,
    reply,
    server_error,
    text,
    tool_use,
    unauthorized,
)

EPHEMERAL = {"type": "ephemeral"}


def request(**overrides: object) -> ModelRequest:
    fields: dict[str, object] = {
        "model": MODEL,
        "max_tokens": 512,
        "system": ({"type": "text", "text": "You review code.", "cache_control": EPHEMERAL},),
        "tools": (
            {
                "name": "read_file",
                "description": "Read a file.",
                "input_schema": {"type": "object", "properties": {"path": {"type": "string"}}},
                "cache_control": EPHEMERAL,
            },
        ),
        "messages": ({"role": "user", "content": [{"type": "text", "text": "The PR."}]},),
    }
    fields.update(overrides)
    return ModelRequest(**fields)  # type: ignore[arg-type]


class TestRequestAndResponse:
    def test_sends_the_request_as_built(self, messages_api):
        """The body on the wire is the request's system, tools and messages, with the key header."""
        fake = messages_api(reply(text("ok")))
        client_for(fake).create(request())
        sent = fake.requests[0]
        assert sent["model"] == MODEL
        assert sent["max_tokens"] == 512
        assert sent["system"][0]["cache_control"] == EPHEMERAL
        assert sent["tools"][0]["name"] == "read_file"
        assert sent["messages"] == [
            {"role": "user", "content": [{"type": "text", "text": "The PR."}]}
        ]
        assert fake.headers[0]["x-api-key"] == API_KEY

    def test_maps_blocks_usage_and_request_id(self, messages_api):
        """Text and tool_use blocks, the four usage counts and the request-id come back typed."""
        fake = messages_api(
            reply(text("looking"), tool_use("read_file", {"path": "a.py"}, id="toolu_1"))
        )
        response = client_for(fake).create(request())
        assert response.content == (
            TextBlock(text="looking"),
            ToolUseBlock(id="toolu_1", name="read_file", input={"path": "a.py"}),
        )
        assert response.stop_reason == "tool_use"
        assert response.request_id == "req_fake_0001"
        usage = fake.stats
        assert response.usage.cache_write_tokens == usage.cache_write_tokens > 0
        assert response.usage.input_tokens == usage.input_tokens > 0
        assert response.usage.output_tokens == usage.output_tokens > 0

    def test_logs_the_request_id(self, messages_api, caplog):
        """Every response's request-id is logged."""
        fake = messages_api(reply(text("ok")))
        with caplog.at_level(logging.INFO, logger="reviewbot.agent.client"):
            client_for(fake).create(request())
        assert "req_fake_0001" in caplog.text

    def test_construction_makes_no_request(self):
        """Building the client is free: no network call until create()."""
        fake = FakeMessagesAPI()
        client_for(fake)
        assert fake.requests == []


class TestRetries:
    def test_overloaded_then_success(self, messages_api):
        """A 529 is retried after the retry-after wait (0 here), then the reply is returned."""
        fake = messages_api(overloaded(retry_after="0"), reply(text("done")))
        sleeps = Sleeps()
        response = client_for(fake, sleeps=sleeps).create(request())
        assert response.text == "done"
        assert sleeps.waits == [0.0]
        assert len(fake.requests) == 2

    def test_rate_limit_honours_retry_after(self, messages_api):
        """A 429 waits exactly what retry-after asks before the next attempt."""
        fake = messages_api(rate_limited(retry_after="7"), reply(text("ok")))
        sleeps = Sleeps()
        client_for(fake, sleeps=sleeps).create(request())
        assert sleeps.waits == [7.0]

    def test_server_error_backs_off_exponentially(self, messages_api):
        """Without retry-after, waits grow 1s, 2s, 4s (jitter pinned) until a success."""
        fake = messages_api(server_error(), server_error(), server_error(), reply(text("ok")))
        sleeps = Sleeps()
        client_for(fake, sleeps=sleeps).create(request())
        assert sleeps.waits == [0.75, 1.5, 3.0]

    def test_gives_up_after_max_retries(self, messages_api):
        """Persistent 529s end in ModelAPIError naming the status and the attempts."""
        fake = messages_api(*[overloaded()] * 3)
        with pytest.raises(ModelAPIError, match=r"529 overloaded_error after 3 attempt\(s\)"):
            client_for(fake, max_retries=2).create(request())

    def test_spend_limit_429_is_not_retried(self, messages_api):
        """A 429 that says the spend limit is reached fails at once, with the API's message."""
        fake = messages_api(
            rate_limited("This request would exceed your account's monthly spend limit.")
        )
        sleeps = Sleeps()
        with pytest.raises(ModelAPIError, match="monthly spend limit"):
            client_for(fake, sleeps=sleeps).create(request())
        assert sleeps.waits == []

    def test_retry_after_beyond_the_ceiling_is_not_waited(self, messages_api):
        """A retry-after longer than the total-wait ceiling fails now instead of sleeping."""
        fake = messages_api(rate_limited(retry_after="3600"))
        sleeps = Sleeps()
        with pytest.raises(ModelAPIError, match="429 rate_limit_error"):
            client_for(fake, sleeps=sleeps, max_wait=60).create(request())
        assert sleeps.waits == []

    def test_connection_errors_end_in_network_error(self):
        """An unreachable API is retried, then a NetworkError naming the base URL."""
        attempts = []

        def refuse(req: httpx.Request) -> httpx.Response:
            attempts.append(req)
            raise httpx.ConnectError("connection refused", request=req)

        sleeps = Sleeps()
        client = AnthropicClient(
            API_KEY,
            base_url="http://127.0.0.1:9",
            max_retries=2,
            http_client=httpx.Client(transport=httpx.MockTransport(refuse)),
            sleep=sleeps,
            jitter=lambda: 0.0,
        )
        with pytest.raises(
            NetworkError, match=r"could not reach the Messages API at http://127.0.0.1:9"
        ):
            client.create(request())
        assert len(attempts) == 3
        assert len(sleeps.waits) == 2


class TestErrorMapping:
    @pytest.mark.parametrize(
        ("failure", "error", "pattern"),
        [
            (
                unauthorized(),
                CredentialsRefusedError,
                r"^Anthropic rejected ANTHROPIC_API_KEY \(401 authentication_error",
            ),
            (
                Failure(403, "permission_error", "not allowed"),
                AuthError,
                r"403 permission_error.*model 'claude-sonnet-4-5'",
            ),
            (
                not_found("claude-nope"),
                ModelNotFoundError,
                r"^model 'claude-sonnet-4-5' was not found \(404",
            ),
            (
                Failure(400, "invalid_request_error", "messages: bad"),
                ModelAPIError,
                r"400 invalid_request_error: messages: bad",
            ),
            (Failure(413, "request_too_large", "too big"), ModelAPIError, r"413 request_too_large"),
        ],
        ids=["401", "403", "404-model", "400", "413"],
    )
    def test_one_line_errors(self, messages_api, failure, error, pattern):
        """Each non-retryable status maps to one reviewbot error with a one-line message and request-id."""
        fake = messages_api(failure)
        sleeps = Sleeps()
        with pytest.raises(error, match=pattern) as caught:
            client_for(fake, sleeps=sleeps).create(request())
        assert type(caught.value) is error  # a 403 is not a refused key: only 401 stops every agent
        message = str(caught.value)
        assert "\n" not in message
        assert "req_fake_0001" in message
        assert sleeps.waits == []

    def test_a_refused_key_is_an_auth_error(self):
        """CredentialsRefusedError sits under AuthError, so it keeps the credentials exit code 3."""
        assert issubclass(CredentialsRefusedError, AuthError)
        assert CredentialsRefusedError.exit_code == AuthError.exit_code == 3

    def test_the_key_never_appears_in_the_error(self, messages_api):
        """An auth error names the variable, never the key's value."""
        fake = messages_api(unauthorized())
        with pytest.raises(AuthError) as caught:
            client_for(fake).create(request())
        assert API_KEY not in str(caught.value)
