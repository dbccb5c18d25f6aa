"""The fake Messages API itself: script accounting, refusals, cache emulation, response shape."""

from __future__ import annotations

import pytest

from tests.fakes.messages_api import (
    FakeMessagesAPI,
    count_tokens,
    overloaded,
    reply,
    text,
    tool_use,
)

EPHEMERAL = {"type": "ephemeral"}


def body(*messages, system="You review code. " * 20, tools=True):
    return {
        "model": "claude-sonnet-4-5",
        "max_tokens": 100,
        "system": [{"type": "text", "text": system, "cache_control": EPHEMERAL}],
        "tools": [
            {"name": "read_file", "input_schema": {"type": "object"}, "cache_control": EPHEMERAL}
        ]
        if tools
        else [],
        "messages": list(messages)
        or [
            {
                "role": "user",
                "content": [{"type": "text", "text": "PR " * 50, "cache_control": EPHEMERAL}],
            }
        ],
    }


class TestScript:
    def test_unused_reply_fails_verify(self):
        """A scripted reply never requested makes verify() fail."""
        fake = FakeMessagesAPI([reply(text("a")), reply(text("b"))])
        fake.handle(body())
        with pytest.raises(AssertionError, match="1 scripted reply"):
            fake.verify()

    def test_unexpected_call_answers_400_and_fails_verify(self):
        """A request with nothing scripted answers a non-retryable 400 and is recorded as a problem."""
        fake = FakeMessagesAPI()
        status, headers, payload = fake.handle(body())
        assert status == 400
        assert headers["x-should-retry"] == "false"
        assert payload["error"]["type"] == "invalid_request_error"
        with pytest.raises(AssertionError, match="no scripted reply left"):
            fake.verify()

    def test_callable_replies_see_the_request(self):
        """A callable script entry is given the request JSON."""
        seen = []
        fake = FakeMessagesAPI([lambda request: seen.append(request["model"]) or reply(text("ok"))])
        fake.handle(body())
        assert seen == ["claude-sonnet-4-5"]
        fake.verify()

    def test_failures_carry_status_headers_and_request_id(self):
        """A scripted 529 answers with its retry-after, a request-id and the API's error shape."""
        fake = FakeMessagesAPI([overloaded(retry_after="3")])
        status, headers, payload = fake.handle(body())
        assert (status, headers["retry-after"], headers["request-id"]) == (
            529,
            "3",
            "req_fake_0001",
        )
        assert payload == {
            "type": "error",
            "error": {"type": "overloaded_error", "message": "Overloaded"},
            "request_id": "req_fake_0001",
        }


class TestResponseShape:
    def test_message_fields(self):
        """A reply has the real message shape and tool_use blocks get ids."""
        fake = FakeMessagesAPI([reply(text("hi"), tool_use("read_file", {"path": "a"}))])
        status, headers, payload = fake.handle(body())
        assert status == 200
        assert headers["request-id"] == "req_fake_0001"
        assert set(payload) == {
            "id",
            "type",
            "role",
            "model",
            "content",
            "stop_reason",
            "stop_sequence",
            "usage",
        }
        assert payload["stop_reason"] == "tool_use"
        assert payload["content"][1]["id"] == "toolu_fake_0001"
        assert set(payload["usage"]) == {
            "input_tokens",
            "output_tokens",
            "cache_creation_input_tokens",
            "cache_read_input_tokens",
        }


class TestRefusals:
    def test_tool_use_without_its_result_is_refused(self):
        """An assistant tool_use not answered by a tool_result in the next message is a 400."""
        fake = FakeMessagesAPI([reply(text("unused"))])
        status, _, payload = fake.handle(
            body(
                {"role": "user", "content": "hi"},
                {
                    "role": "assistant",
                    "content": [{"type": "tool_use", "id": "t1", "name": "x", "input": {}}],
                },
                {"role": "user", "content": [{"type": "text", "text": "go on"}]},
            )
        )
        assert status == 400
        assert "t1" in payload["error"]["message"]
        assert fake.problems
        assert fake.remaining == 1

    def test_more_than_four_breakpoints_is_refused(self):
        """Five cache_control markers are refused like the real API does."""
        marked = {"type": "text", "text": "x", "cache_control": EPHEMERAL}
        fake = FakeMessagesAPI([reply(text("unused"))])
        status, _, payload = fake.handle(
            body({"role": "user", "content": [marked, marked, marked]})
        )
        assert status == 400
        assert "Found 5" in payload["error"]["message"]

    @pytest.mark.parametrize(
        ("choice", "words"),
        [
            ({"type": "tool", "name": "missing"}, "'missing' is not in"),
            ({"type": "sometimes"}, "must be one of"),
        ],
        ids=["unknown-forced-tool", "unknown-type"],
    )
    def test_a_tool_choice_the_api_refuses_is_refused(self, choice, words):
        """Forcing a tool that was not sent, or an unknown choice type, is a 400."""
        fake = FakeMessagesAPI([reply(text("unused"))])
        request = body({"role": "user", "content": "hi"}) | {
            "tools": [{"name": "x", "input_schema": {"type": "object"}}],
            "tool_choice": choice,
        }
        status, _, payload = fake.handle(request)
        assert status == 400
        assert words in payload["error"]["message"]


class TestCaching:
    def test_first_request_writes_the_second_reads(self):
        """The prefix up to the breakpoints is written once, then read."""
        fake = FakeMessagesAPI([reply(text("a")), reply(text("b"))])
        _, _, first = fake.handle(body())
        _, _, second = fake.handle(body())
        assert first["usage"]["cache_read_input_tokens"] == 0
        assert first["usage"]["cache_creation_input_tokens"] > 0
        assert (
            second["usage"]["cache_read_input_tokens"]
            == first["usage"]["cache_creation_input_tokens"]
        )
        assert second["usage"]["cache_creation_input_tokens"] == 0

    def test_a_changed_system_prompt_misses(self):
        """One changed byte in the prefix means no cache read for what follows it."""
        fake = FakeMessagesAPI([reply(text("a")), reply(text("b"))])
        fake.handle(body(system="v1 " * 30))
        _, _, second = fake.handle(body(system="v2 " * 30))
        tools_only = count_tokens(
            {"tool": {"name": "read_file", "input_schema": {"type": "object"}}}
        )
        assert second["usage"]["cache_read_input_tokens"] == tools_only

    def test_a_moved_marker_still_reads_the_earlier_prefix(self):
        """Markers are not prompt content: a later request reads the prefix an earlier one wrote."""
        first_msg = {
            "role": "user",
            "content": [{"type": "text", "text": "PR " * 50, "cache_control": EPHEMERAL}],
        }
        fake = FakeMessagesAPI([reply(text("a")), reply(text("b"))])
        _, _, one = fake.handle(body(first_msg))
        later = [
            first_msg,
            {"role": "assistant", "content": [{"type": "text", "text": "ok"}]},
            {
                "role": "user",
                "content": [{"type": "text", "text": "more", "cache_control": EPHEMERAL}],
            },
        ]
        _, _, two = fake.handle(body(*later))
        written = one["usage"]["cache_creation_input_tokens"]
        assert two["usage"]["cache_read_input_tokens"] == written
        assert two["usage"]["cache_creation_input_tokens"] > 0
        assert two["usage"]["input_tokens"] == 0

    @pytest.mark.parametrize(("added", "hit"), [(20, True), (21, False)])
    def test_an_earlier_entry_is_found_at_most_20_blocks_back(self, added, hit):
        """Like the API, a breakpoint looks back 20 blocks for an earlier entry, no further."""
        start = {
            "role": "user",
            "content": [{"type": "text", "text": "PR " * 50, "cache_control": EPHEMERAL}],
        }
        more = [{"type": "text", "text": f"block {n}"} for n in range(added)]
        more[-1] = {**more[-1], "cache_control": EPHEMERAL}
        fake = FakeMessagesAPI([reply(text("a")), reply(text("b"))])
        _, _, one = fake.handle(body(start, tools=False))
        later = {"role": "user", "content": [{"type": "text", "text": "PR " * 50}, *more]}
        _, _, two = fake.handle(body(later, tools=False))
        first = one["usage"]["cache_creation_input_tokens"]
        system = count_tokens({"system": {"type": "text", "text": "You review code. " * 20}})
        # A miss still reads the system block: it is a breakpoint of its own.
        assert two["usage"]["cache_read_input_tokens"] == (first if hit else system)

    def test_minimum_cacheable_prefix(self):
        """Below the minimum cacheable length nothing is cached, everything is input."""
        fake = FakeMessagesAPI([reply(text("a"))], min_cacheable_tokens=100_000)
        _, _, payload = fake.handle(body())
        usage = payload["usage"]
        assert usage["cache_creation_input_tokens"] == usage["cache_read_input_tokens"] == 0
        assert usage["input_tokens"] > 0


class TestTokenCount:
    def test_counts_word_and_punctuation_pieces(self):
        """The fake counts regex pieces, not characters."""
        assert count_tokens("def f(x): return x+1") == 10
