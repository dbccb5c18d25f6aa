"""AnthropicClient against the fake Messages API at the HTTP layer (httpx.MockTransport)."""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Iterator

import httpx
import pytest

from reviewbot.agent.client import AnthropicClient
from reviewbot.agent.messages import OtherBlock, TextBlock, ToolUseBlock
from reviewbot.errors import (
    AuthError,
    CredentialsRefusedError,
    ModelAPIError,
    ModelNotFoundError,
    ModelTimeoutError,
    NetworkError,
)
from tests.agent.factories import API_KEY, EPHEMERAL, MODEL, FakeClock, Sleeps, client_for, request
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

    def test_sends_tool_choice_only_when_set(self, messages_api):
        """A forced tool goes on the wire as `tool_choice`; an unset one is left out (auto)."""
        fake = messages_api(reply(text("ok")), reply(tool_use("read_file", {"path": "a.py"})))
        client = client_for(fake)
        client.create(request())
        forced = {"type": "tool", "name": "read_file"}
        client.create(request(tool_choice=forced))
        assert "tool_choice" not in fake.requests[0]
        assert fake.requests[1]["tool_choice"] == forced

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


class TestDeadline:
    """A request's `timeout` bounds the whole call: attempts, and the waits between them."""

    @staticmethod
    def client(handler, clock: FakeClock, sleeps: Sleeps | None = None, **kwargs: object):
        return AnthropicClient(
            API_KEY,
            http_client=httpx.Client(transport=httpx.MockTransport(handler)),
            sleep=sleeps if sleeps is not None else Sleeps(),
            jitter=lambda: 0.0,
            clock=clock,
            **kwargs,  # type: ignore[arg-type]
        )

    def test_each_attempt_is_given_what_is_left(self, messages_api):
        """Three 529s that each take 3 s: the attempts' timeouts are 10, 7 and 4 seconds."""
        fake = messages_api(overloaded(), overloaded(), reply(text("ok")))
        clock, timeouts = FakeClock(), []
        inner = fake.transport()

        def handler(req: httpx.Request) -> httpx.Response:
            timeouts.append(req.extensions["timeout"]["read"])
            clock.now += 3
            return inner.handle_request(req)

        response = self.client(handler, clock).create(request(timeout=10.0))
        assert response.text == "ok"
        assert timeouts == [10.0, 7.0, 4.0]

    def test_the_clients_own_ceiling_still_applies(self, messages_api):
        """With more time left than the client's timeout, an attempt gets the client's timeout."""
        fake = messages_api(reply(text("ok")))
        timeouts = []
        inner = fake.transport()

        def handler(req: httpx.Request) -> httpx.Response:
            timeouts.append(req.extensions["timeout"]["read"])
            return inner.handle_request(req)

        self.client(handler, FakeClock(), timeout=60.0).create(request(timeout=900.0))
        assert timeouts == [60.0]

    def test_an_api_that_never_answers_costs_the_time_left_once(self):
        """A read timeout at the deadline is not retried: one attempt, no wait; an API that has
        answered nothing in this run is unreachable (NetworkError, exit 5), not a budget."""
        clock, sleeps, attempts = FakeClock(), Sleeps(), []

        def hang(req: httpx.Request) -> httpx.Response:
            attempts.append(req)
            clock.now += req.extensions["timeout"]["read"]
            raise httpx.ReadTimeout("timed out", request=req)

        with pytest.raises(NetworkError, match=r"no answer within the 2 s left") as caught:
            self.client(hang, clock, sleeps).create(request(timeout=2.0))
        assert not isinstance(caught.value, ModelTimeoutError)
        assert caught.value.exit_code == 5
        assert "it has answered no request of this run" in str(caught.value)
        assert len(attempts) == 1
        assert sleeps.waits == []

    def test_a_slow_answer_of_an_answering_api_is_the_budget(self, messages_api):
        """After an answered request, one still unanswered at the deadline (a long generation)
        is the time budget running out: ModelTimeoutError, a verdict, not an outage."""
        clock, answered = FakeClock(), messages_api(reply(text("ok"))).transport()

        def handler(req: httpx.Request) -> httpx.Response:
            if not answered_once:
                answered_once.append(req)
                return answered.handle_request(req)
            clock.now += req.extensions["timeout"]["read"]
            raise httpx.ReadTimeout("timed out", request=req)

        answered_once: list[httpx.Request] = []
        client = self.client(handler, clock)
        assert client.create(request(timeout=60.0)).text == "ok"
        with pytest.raises(ModelTimeoutError, match=r"no answer within the 2 s left"):
            client.create(request(timeout=2.0))

    def test_failed_attempts_then_no_answer_is_unreachable(self, messages_api):
        """An API that answered before, then 529s and hangs until the deadline: exit 5."""
        clock = FakeClock()
        fake = messages_api(reply(text("ok")), overloaded())
        inner = fake.transport()

        def handler(req: httpx.Request) -> httpx.Response:
            if len(fake.requests) < 2:
                return inner.handle_request(req)
            clock.now += req.extensions["timeout"]["read"]
            raise httpx.ReadTimeout("timed out", request=req)

        client = self.client(handler, clock)
        client.create(request(timeout=60.0))
        with pytest.raises(NetworkError, match=r"after 1 failed attempt\(s\)") as caught:
            client.create(request(timeout=10.0))
        assert not isinstance(caught.value, ModelTimeoutError)

    def test_a_timeout_below_the_budget_is_retried(self):
        """An attempt cut by the client's own ceiling, with budget left, is retried as before."""
        clock, attempts = FakeClock(), []

        def hang(req: httpx.Request) -> httpx.Response:
            attempts.append(req.extensions["timeout"]["read"])
            clock.now += req.extensions["timeout"]["read"]
            raise httpx.ReadTimeout("timed out", request=req)

        client = self.client(hang, clock, timeout=5.0, max_retries=4)
        with pytest.raises(NetworkError, match="after 2 failed attempt"):  # it kept failing
            client.create(request(timeout=12.0))
        # 5 s, then 5 s (clock 10, the backoff waits are not slept here), then the last 2 s.
        assert attempts == [5.0, 5.0, 2.0]

    @pytest.mark.parametrize(
        "failure",
        [rate_limited(retry_after="30"), overloaded(retry_after="30")],
        ids=["429", "529"],
    )
    def test_a_retry_wait_past_the_deadline_is_not_waited(self, messages_api, failure):
        """A retry-after longer than the time left ends the call now: the API kept failing
        until the budget ran out, so it is unreachable (exit 5), not a budget stop."""
        fake = messages_api(failure)
        sleeps = Sleeps()
        with pytest.raises(NetworkError, match="would pass the review's time budget") as caught:
            self.client(fake.transport().handle_request, FakeClock(), sleeps).create(
                request(timeout=10.0)
            )
        assert not isinstance(caught.value, ModelTimeoutError)
        assert "kept failing" in str(caught.value)
        assert sleeps.waits == []

    def test_a_rate_limit_another_agent_met_past_the_deadline_is_unreachable(self, messages_api):
        """Another agent's 429 closed the shared gate for longer than this call has left: the
        API kept refusing until the budget ran out (NetworkError, exit 5), not a budget stop."""
        fake = messages_api()
        client = self.client(fake.transport().handle_request, FakeClock())
        other = threading.Thread(target=lambda: client._gate.close_for(30.0))
        other.start()
        other.join()
        with pytest.raises(NetworkError, match="rate-limiting this run") as caught:
            client.create(request(timeout=10.0))
        assert not isinstance(caught.value, ModelTimeoutError)
        assert caught.value.exit_code == 5
        assert fake.requests == []

    def test_no_time_left_sends_nothing(self, messages_api):
        """A request with no time left is not sent at all."""
        fake = messages_api()
        with pytest.raises(ModelTimeoutError, match="no time was left"):
            self.client(fake.transport().handle_request, FakeClock()).create(request(timeout=0.0))
        assert fake.requests == []

    @staticmethod
    def trickling(fake: FakeMessagesAPI, clock: FakeClock, *, pieces: int = 20):
        """The fake's answer sent in `pieces` chunks, each arriving one (fake) second later."""

        def handler(req: httpx.Request) -> httpx.Response:
            status, headers, payload = fake.handle(json.loads(req.content), req.headers)
            body = json.dumps(payload).encode()
            size = -(-len(body) // pieces)

            def chunks() -> Iterator[bytes]:
                for start in range(0, len(body), size):
                    clock.now += 1
                    yield body[start : start + size]

            return httpx.Response(status, headers=headers, content=chunks())

        return handler

    def test_an_answer_trickling_past_the_deadline_is_a_timeout(self, messages_api):
        """Bytes that keep coming, each within the read timeout, still end at the deadline."""
        clock = FakeClock()
        fake = messages_api(reply(text("slow")))
        client = self.client(self.trickling(fake, clock), clock)
        with pytest.raises(ModelTimeoutError, match="no answer within the 10 s left"):
            client.create(request(timeout=10.0))
        assert clock.now - 1000.0 <= 11  # it stopped reading at the deadline, not at the end

    def test_an_answer_trickling_within_the_time_is_read_whole(self, messages_api):
        """A slow answer that completes before the deadline is returned as usual."""
        clock = FakeClock()
        fake = messages_api(reply(text("slow but complete")))
        response = self.client(self.trickling(fake, clock), clock).create(request(timeout=60.0))
        assert response.text == "slow but complete"


class TestOtherBlocks:
    @pytest.mark.parametrize(
        "block",
        [
            {"type": "thinking", "thinking": "The loop is off by one.", "signature": "c2ln"},
            {"type": "redacted_thinking", "data": "ZW5jcnlwdGVk"},
            # The SDK's model has an optional `caller`: dumped as null, which is not what came.
            {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {}},
        ],
        ids=["thinking", "redacted_thinking", "server_tool_use"],
    )
    def test_a_block_the_loop_does_not_act_on_is_echoed_back_as_sent(self, messages_api, block):
        """Thinking blocks come back as OtherBlock, and go back to the API exactly as received."""
        fake = messages_api(reply(block, text("done")))
        response = client_for(fake).create(request())
        other, said = response.content
        assert said == TextBlock(text="done")
        assert isinstance(other, OtherBlock)
        assert other.type == block["type"]
        assert other.to_param() == block  # no field the SDK fills with None is added
