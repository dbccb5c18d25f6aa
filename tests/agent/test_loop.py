"""The tool-use loop, driven through the real client against the fake Messages API."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import pytest

from reviewbot.agent.ledger import Ledger
from reviewbot.agent.loop import (
    CUT_OFF_TEXT,
    CUT_OFF_TOOL,
    MAX_CUTOFFS,
    OUT_OF_TIME,
    TOOL_GRACE,
    ToolLoop,
)
from reviewbot.agent.messages import ModelClient, ModelRequest, ModelResponse
from reviewbot.agent.progress import SilentProgress
from reviewbot.errors import ModelTimeoutError, NetworkError
from reviewbot.redact import MASK, Redactor
from reviewbot.results.run import StopReason, Usage
from reviewbot.tools.toolbox import ToolResult
from tests.agent.factories import (
    MODEL,
    FakeClock,
    FakeToolbox,
    client_for,
    echo,
    finalize,
    limits,
)
from tests.fakes.messages_api import (
    Failure,
    FakeMessagesAPI,
    overloaded,
    reply,
    text,
    tool_use,
    unauthorized,
)
from tests.tools.factories import build_repo, make_session, with_handler

SYSTEM = "You are a careful reviewer."
CONTEXT = "# The pull request\n" + "diff line\n" * 50


@dataclass
class RecordingProgress:
    events: list[tuple[str, Any]] = field(default_factory=list)

    def started(self, agent: str, model: str) -> None:
        self.events.append(("started", agent))

    def update(self, agent: str, *, turn: int, usage: Usage, tool: str | None = None) -> None:
        self.events.append(("update", (turn, tool)))

    def finished(self, agent: str, *, stop_reason: StopReason, turns: int, usage: Usage) -> None:
        self.events.append(("finished", stop_reason))


def run(
    fake: FakeMessagesAPI,
    toolbox: FakeToolbox | None = None,
    *,
    clock: FakeClock | None = None,
    redactor: Redactor | None = None,
    progress: Any = None,
    spent: Usage | None = None,
    model: str = MODEL,
    brief: str = "",
    client: ModelClient | None = None,
    **budget: Any,
):
    clock = clock or FakeClock()
    bounds = limits(clock, **budget)
    loop = ToolLoop(
        agent="review",
        model=model,
        client=client or client_for(fake),
        toolbox=toolbox or FakeToolbox({"read_file": echo, "finalize_review": finalize}),
        limits=bounds,
        redactor=redactor or Redactor(),
        progress=progress or SilentProgress(),
        clock=clock,
        # What the agents before this one spent, in the review's shared ledger.
        ledger=Ledger(bounds.totals, spent=spent, clock=clock),
    )
    return loop.run(system=SYSTEM, context=CONTEXT, brief=brief)


@dataclass
class TimeoutsOf:
    """A ModelClient that records each request's timeout and passes it on."""

    inner: Any
    timeouts: list[float | None] = field(default_factory=list)

    @property
    def fake(self) -> FakeMessagesAPI:
        return FakeMessagesAPI()  # unused by `run` when a client is given

    def create(self, request: ModelRequest) -> ModelResponse:
        self.timeouts.append(request.timeout)
        response: ModelResponse = self.inner.create(request)
        return response

    def close(self) -> None:
        self.inner.close()


@dataclass
class Raising:
    """A ModelClient whose every request fails with `error`."""

    error: Exception

    def create(self, request: ModelRequest) -> ModelResponse:
        raise self.error

    def close(self) -> None:
        """Nothing to release."""


def results_of(request: dict[str, Any]) -> list[dict[str, Any]]:
    """The tool_result blocks of the request's newest message."""
    return [b for b in request["messages"][-1]["content"] if b["type"] == "tool_result"]


class TestConversation:
    def test_tool_calls_then_end_turn(self, messages_api):
        """Tool calls are run, their results sent back, and an end_turn without calls stops."""
        fake = messages_api(
            reply(text("Let me look."), tool_use("read_file", {"path": "a.py"})),
            reply(text("Looks fine.")),
        )
        toolbox = FakeToolbox({"read_file": echo})
        result = run(fake, toolbox)
        assert result.stop_reason is StopReason.END_TURN
        assert result.turns == 2
        assert result.tool_calls == 1
        assert toolbox.calls == [("read_file", {"path": "a.py"})]
        [sent] = results_of(fake.requests[1])
        assert sent == {
            "type": "tool_result",
            "tool_use_id": "toolu_fake_0001",
            "content": "read: {'path': 'a.py'}",
            "cache_control": {"type": "ephemeral"},
        }

    def test_finalize_ends_the_run_after_the_turns_other_calls(self, messages_api):
        """A result with ends_run stops the loop, but only after every call of that turn ran."""
        fake = messages_api(
            reply(tool_use("finalize_review", {}), tool_use("read_file", {"path": "b.py"}))
        )
        toolbox = FakeToolbox({"read_file": echo, "finalize_review": finalize})
        result = run(fake, toolbox)
        assert result.stop_reason is StopReason.FINALIZED
        assert [name for name, _ in toolbox.calls] == ["finalize_review", "read_file"]
        assert result.turns == 1

    def test_unknown_tool_gets_an_error_result_and_the_run_goes_on(self, messages_api):
        """A call to a tool not on the surface is answered is_error, never a crash."""
        fake = messages_api(
            reply(tool_use("run_shell", {"cmd": "env"})),
            reply(text("Understood.")),
        )
        result = run(fake)
        assert result.stop_reason is StopReason.END_TURN
        [sent] = results_of(fake.requests[1])
        assert sent["is_error"] is True
        assert "not a tool in review mode" in sent["content"]

    def test_a_tool_crashing_in_a_real_session_reaches_the_model(self, messages_api, tmp_path):
        """A ReviewSession lets a crash through; the loop's boundary answers it as is_error."""

        def boom(ctx: Any, args: Any) -> ToolResult:
            raise RuntimeError("disk on fire")

        session = with_handler(make_session(build_repo(tmp_path)), "read_file", boom)
        fake = messages_api(
            reply(tool_use("read_file", {"path": "README.md"})), reply(text("I will use git_show."))
        )
        result = run(fake, session)
        assert result.stop_reason is StopReason.END_TURN
        [sent] = results_of(fake.requests[1])
        assert sent["is_error"] is True
        assert sent["content"] == (
            "the tool read_file failed unexpectedly (RuntimeError); "
            "try another way to get what you need"
        )

    def test_a_crashing_tool_costs_one_error_result(self, messages_api):
        """An exception inside a tool becomes an is_error result naming the exception type."""

        def boom(tool_input: Any) -> ToolResult:
            raise RuntimeError("disk on fire")

        fake = messages_api(reply(tool_use("read_file", {})), reply(text("ok")))
        result = run(fake, FakeToolbox({"read_file": boom}))
        assert result.stop_reason is StopReason.END_TURN
        [sent] = results_of(fake.requests[1])
        assert sent["is_error"] is True
        assert "RuntimeError" in sent["content"]

    def test_refusal_never_runs_the_turns_tool_calls(self, messages_api):
        """stop_reason refusal stops the agent; the tool call in that turn is not executed."""
        fake = messages_api(reply(tool_use("read_file", {"path": "x"}), stop_reason="refusal"))
        toolbox = FakeToolbox({"read_file": echo})
        result = run(fake, toolbox)
        assert result.stop_reason is StopReason.REFUSAL
        assert toolbox.calls == []

    def test_pause_turn_continues_with_the_partial_turn(self, messages_api):
        """pause_turn sends the partial assistant turn back and asks again."""
        fake = messages_api(
            reply(text("thinking…"), stop_reason="pause_turn"),
            reply(text("done")),
        )
        result = run(fake)
        assert result.stop_reason is StopReason.END_TURN
        assert fake.requests[1]["messages"][-1]["role"] == "assistant"
        assert fake.requests[1]["messages"][-1]["content"][0]["text"] == "thinking…"

    def test_tool_results_are_redacted(self, messages_api):
        """A secret in a tool's output is masked before it reaches the model."""
        secret = "hunter2-super-secret-value"
        fake = messages_api(reply(tool_use("read_file", {})), reply(text("ok")))
        toolbox = FakeToolbox({"read_file": lambda _: ToolResult(content=f"TOKEN={secret}")})
        run(fake, toolbox, redactor=Redactor.of([secret]))
        [sent] = results_of(fake.requests[1])
        assert sent["content"] == f"TOKEN={MASK}"
        assert secret not in json.dumps(fake.requests)

    def test_the_system_prompt_and_context_are_redacted(self, messages_api):
        """Secrets in the system prompt or the PR context never reach the API."""
        fake = messages_api(reply(text("ok")))
        clock = FakeClock()
        loop = ToolLoop(
            agent="review",
            model=MODEL,
            client=client_for(fake),
            toolbox=FakeToolbox({}),
            limits=limits(clock),
            redactor=Redactor.of(["s3cr3t-value-1234"]),
            progress=SilentProgress(),
            clock=clock,
        )
        loop.run(
            system="key s3cr3t-value-1234",
            context="pasted s3cr3t-value-1234",
            brief="focus on s3cr3t-value-1234",
        )
        assert "s3cr3t-value-1234" not in json.dumps(fake.requests[0])
        assert fake.requests[0]["messages"][0]["content"][1]["text"] == f"focus on {MASK}"

    def test_progress_reports_turns_and_tools(self, messages_api):
        """The progress seam sees the start, each turn, each tool by name and the end."""
        fake = messages_api(reply(tool_use("read_file", {})), reply(text("ok")))
        progress = RecordingProgress()
        run(fake, progress=progress)
        assert progress.events == [
            ("started", "review"),
            ("update", (1, None)),
            ("update", (1, "read_file")),
            ("update", (2, None)),
            ("finished", StopReason.END_TURN),
        ]


class TestMaxTokens:
    def test_a_cut_off_tool_call_is_not_run(self, messages_api):
        """At max_tokens the last tool call is cut off: not executed, the model is told to resend it."""
        fake = messages_api(
            reply(
                tool_use("read_file", {"path": "a.py"}),
                tool_use("read_file", {"pa": ""}),
                stop_reason="max_tokens",
            ),
            reply(text("ok")),
        )
        toolbox = FakeToolbox({"read_file": echo})
        result = run(fake, toolbox)
        assert toolbox.calls == [("read_file", {"path": "a.py"})]
        complete, cut = results_of(fake.requests[1])
        assert "is_error" not in complete
        assert cut["is_error"] is True
        assert cut["content"] == CUT_OFF_TOOL
        assert result.stop_reason is StopReason.END_TURN

    def test_cut_off_text_asks_to_continue(self, messages_api):
        """A reply cut off in text is answered with a request to continue, more briefly."""
        fake = messages_api(
            reply(text("The first problem is"), stop_reason="max_tokens"), reply(text("ok"))
        )
        run(fake)
        assert fake.requests[1]["messages"][-1]["content"][0]["text"] == CUT_OFF_TEXT

    def test_repeated_cut_offs_are_bounded(self, messages_api):
        """After MAX_CUTOFFS consecutive cut-offs the agent stops with an error."""
        cut = reply(tool_use("read_file", {}), stop_reason="max_tokens")
        fake = messages_api(*[cut] * (MAX_CUTOFFS + 1))
        result = run(fake)
        assert result.stop_reason is StopReason.ERROR
        assert "cut off at max_tokens" in (result.error or "")


class TestBudgets:
    def test_max_turns(self, messages_api):
        """A model that never finalizes is stopped at max_turns, its calls all answered."""
        fake = messages_api(*[reply(tool_use("read_file", {}))] * 3)
        result = run(fake, max_turns=3)
        assert result.stop_reason is StopReason.MAX_TURNS
        assert result.turns == 3

    def test_timeout_mid_review(self, messages_api):
        """When the wall clock passes the deadline between turns, the next request is not sent."""
        clock = FakeClock()

        def slow(request: dict[str, Any]):
            clock.now += 100
            return reply(tool_use("read_file", {}))

        fake = messages_api(slow, slow)
        result = run(fake, clock=clock, timeout_seconds=150)
        assert result.stop_reason is StopReason.TIMEOUT
        assert result.turns == 2

    def test_each_request_may_take_only_what_is_left(self, messages_api):
        """The request's timeout is the rest of the wall-clock budget, so no answer can outlast it."""
        clock = FakeClock()

        def slow(request: dict[str, Any]):
            clock.now += 100
            return reply(tool_use("read_file", {}))

        recording = TimeoutsOf(client_for(messages_api(slow, reply(text("done")))))
        result = run(recording.fake, clock=clock, client=recording, timeout_seconds=150)
        assert result.stop_reason is StopReason.END_TURN
        assert recording.timeouts == [150.0, 50.0]

    def test_a_model_timeout_stops_the_agent_as_a_timeout(self, messages_api):
        """The client giving up because the time ran out is stop reason timeout, not error."""
        result = run(messages_api(), client=Raising(ModelTimeoutError("no answer in time")))
        assert result.stop_reason is StopReason.TIMEOUT
        assert result.error == "no answer in time"

    def test_an_api_failing_until_the_deadline_is_an_error_with_its_exit_code(self, messages_api):
        """A NetworkError that ends at (or past) the deadline is still the API failing: stop
        reason error and exit 5, never the budget's timeout (which exits 0)."""
        clock = FakeClock()

        class FailingUntilTheDeadline(Raising):
            def create(self, request: ModelRequest) -> ModelResponse:
                clock.now += request.timeout or 0.0
                raise self.error

        client = FailingUntilTheDeadline(NetworkError("Messages API answered 529 … kept failing"))
        result = run(messages_api(), clock=clock, client=client, timeout_seconds=30)
        assert result.stop_reason is StopReason.ERROR
        assert result.exit_code == 5

    def test_a_tool_call_gets_the_tool_time_limit(self, messages_api):
        """With time to spare, a call may take `tool_timeout_seconds`."""
        toolbox = FakeToolbox({"read_file": echo})
        fake = messages_api(reply(tool_use("read_file", {})), reply(text("done")))
        run(fake, toolbox, tool_timeout_seconds=12)
        assert toolbox.timeouts == [12.0]

    def test_a_tool_call_near_the_deadline_gets_the_rest_and_the_grace(self, messages_api):
        """A call that starts 1 s before the deadline may run 1 s plus the grace, not 30 s."""
        clock = FakeClock()

        def late(request: dict[str, Any]):
            clock.now += 99
            return reply(tool_use("read_file", {}))

        toolbox = FakeToolbox({"read_file": echo})
        run(messages_api(late, reply(text("done"))), toolbox, clock=clock, timeout_seconds=100)
        assert toolbox.timeouts == [1.0 + TOOL_GRACE]

    def test_a_tool_call_past_the_grace_is_not_run(self, messages_api):
        """A turn that arrives long after the deadline has its calls answered, never run."""
        clock = FakeClock()

        def very_late(request: dict[str, Any]):
            clock.now += 1_000
            return reply(tool_use("read_file", {}))

        toolbox = FakeToolbox({"read_file": echo})
        result = run(messages_api(very_late), toolbox, clock=clock, timeout_seconds=100)
        assert toolbox.calls == []
        assert (result.stop_reason, result.tool_calls) == (StopReason.TIMEOUT, 1)
        assert "timeout_seconds" in OUT_OF_TIME

    def test_max_cost_is_never_crossed(self, messages_api):
        """A request whose worst case could pass the cost cap is not sent."""
        fake = messages_api()  # nothing scripted: a request sent would fail the test
        spent = Usage(cost_usd=0.99)
        result = run(fake, spent=spent, max_cost_usd=1.0, response_max_tokens=1024)
        assert result.stop_reason is StopReason.MAX_COST
        assert result.turns == 0
        assert "cost budget" in (result.error or "")
        assert fake.requests == []

    def test_max_input_tokens(self, messages_api):
        """Input already spent by earlier agents counts against the review's input budget."""
        fake = messages_api()
        result = run(fake, spent=Usage(input_tokens=999_990), max_input_tokens=1_000_000)
        assert result.stop_reason is StopReason.MAX_INPUT_TOKENS
        assert fake.requests == []

    def test_max_output_tokens_caps_the_response(self, messages_api):
        """Each request asks for at most the output budget left."""
        fake = messages_api(reply(text("ok")))
        run(fake, spent=Usage(output_tokens=39_000), max_output_tokens=40_000)
        assert fake.requests[0]["max_tokens"] == 1_000

    def test_output_budget_used_up(self, messages_api):
        """With less than a useful response left, the agent stops on max_output_tokens."""
        fake = messages_api()
        result = run(fake, spent=Usage(output_tokens=39_900), max_output_tokens=40_000)
        assert result.stop_reason is StopReason.MAX_OUTPUT_TOKENS

    def test_usage_and_cost_are_accounted(self, messages_api):
        """Usage sums the API's counts per request; cost uses the model's price; the estimate is kept."""
        fake = messages_api(reply(tool_use("read_file", {})), reply(text("ok")))
        result = run(fake)
        stats = fake.stats
        assert result.usage.requests == 2
        assert result.usage.input_tokens == stats.input_tokens
        assert result.usage.cache_read_tokens == stats.cache_read_tokens > 0
        assert result.usage.cache_write_tokens == stats.cache_write_tokens
        assert result.usage.output_tokens == stats.output_tokens
        expected = (
            stats.input_tokens * 3
            + stats.output_tokens * 15
            + stats.cache_write_tokens * 3.75
            + stats.cache_read_tokens * 0.3
        ) / 1e6
        assert result.usage.cost_usd == pytest.approx(expected)
        assert result.usage.estimated_input_tokens > 0

    def test_unknown_model_is_priced_high_with_a_note(self, messages_api):
        """A model missing from the price table costs the most expensive rate, with a note."""
        fake = messages_api(reply(text("ok")))
        result = run(fake, model="claude-future-9")
        assert result.usage.cost_usd > 0
        assert any("claude-future-9" in note for note in result.notes)


class TestDelivery:
    """A tool result is seen (`Toolbox.delivered`) only once a request carrying it is answered."""

    def test_results_are_delivered_by_the_next_answered_request(self, messages_api):
        fake = messages_api(
            reply(tool_use("read_file", {"path": "a.py"})),
            reply(tool_use("read_file", {"path": "b.py"})),
            reply(text("Done.")),
        )
        toolbox = FakeToolbox({"read_file": echo})
        run(fake, toolbox)
        # Answer 1 carries no result; answer 2 the first read's; answer 3 the second's.
        assert toolbox.deliveries == [0, 1, 2]

    def test_the_turn_that_finalizes_delivers_nothing(self, messages_api):
        """read + finalize in one turn: the read's result never reaches the model."""
        fake = messages_api(
            reply(tool_use("read_file", {"path": "a.py"}), tool_use("finalize_review", {}))
        )
        toolbox = FakeToolbox({"read_file": echo, "finalize_review": finalize})
        assert run(fake, toolbox).stop_reason is StopReason.FINALIZED
        assert toolbox.deliveries == [0]

    @pytest.mark.parametrize("stop", ["error", "max_turns"])
    def test_a_turn_before_a_stop_delivers_nothing(self, messages_api, stop):
        """A request that fails, or is never sent for a budget, delivers nothing."""
        first = reply(tool_use("read_file", {"path": "a.py"}))
        failing = Failure(400, "invalid_request_error", "bad request")
        fake = messages_api(first) if stop == "max_turns" else messages_api(first, failing)
        toolbox = FakeToolbox({"read_file": echo})
        budget = {"max_turns": 1} if stop == "max_turns" else {}
        assert run(fake, toolbox, **budget).stop_reason.value == stop
        assert toolbox.deliveries == [0]


class TestErrors:
    def test_overloaded_then_success(self, messages_api):
        """A 529 is retried inside the client; the loop sees one successful turn."""
        fake = messages_api(overloaded(), reply(text("fine")))
        result = run(fake)
        assert result.stop_reason is StopReason.END_TURN
        assert result.turns == 1

    def test_api_error_ends_this_agent_with_its_message(self):
        """A model API error ends the agent with stop reason error and the message; no raise."""
        fake = FakeMessagesAPI(
            [reply(tool_use("read_file", {}))]
        )  # then nothing: the fake answers 400
        result = run(fake)
        assert result.stop_reason is StopReason.ERROR
        assert "no scripted reply" in (result.error or "")
        assert result.turns == 1

    def test_a_rejected_key_ends_with_credentials_refused(self, messages_api):
        """A 401 ends the agent with stop reason credentials_refused and the key's name."""
        fake = messages_api(unauthorized())
        result = run(fake)
        assert result.stop_reason is StopReason.CREDENTIALS_REFUSED
        assert "ANTHROPIC_API_KEY" in (result.error or "")

    def test_a_rejected_key_is_not_reported_as_a_timeout(self, messages_api):
        """A 401 that arrives after the deadline still says the key was refused."""
        clock = FakeClock()

        def late(request: dict[str, Any]):
            clock.now += 1_000
            return unauthorized()

        result = run(messages_api(late), clock=clock, timeout_seconds=10)
        assert result.stop_reason is StopReason.CREDENTIALS_REFUSED

    def test_a_forbidden_model_is_an_error_of_this_agent_only(self, messages_api):
        """A 403 (no access to this model) ends the agent with stop reason error, not refused."""
        fake = messages_api(Failure(403, "permission_error", "not allowed"))
        result = run(fake)
        assert result.stop_reason is StopReason.ERROR
        assert "403 permission_error" in (result.error or "")


class TestPromptCaching:
    def conversation(self, messages_api) -> FakeMessagesAPI:
        fake = messages_api(
            reply(tool_use("read_file", {"path": "a"})),
            reply(tool_use("read_file", {"path": "b"})),
            reply(tool_use("read_file", {"path": "c"})),
            reply(tool_use("finalize_review", {})),
        )
        run(fake)
        return fake

    def test_cached_prefix_bytes_are_identical_every_turn(self, messages_api):
        """Tools, system and the PR context message are byte-identical in every request."""
        fake = self.conversation(messages_api)
        prefixes = {
            json.dumps([r["tools"], r["system"], r["messages"][0]], sort_keys=True)
            for r in fake.requests
        }
        assert len(fake.requests) == 4
        assert len(prefixes) == 1

    def test_breakpoints_on_system_context_previous_and_newest_message(self, messages_api):
        """Breakpoints: the system block (tools with it), the context, the previous and the newest message."""
        fake = self.conversation(messages_api)
        for number, sent in enumerate(fake.requests):
            assert all("cache_control" not in t for t in sent["tools"])
            assert "cache_control" in sent["system"][-1]
            assert "cache_control" in sent["messages"][0]["content"][-1]
            marked = [
                i
                for i, message in enumerate(sent["messages"])
                if "cache_control" in message["content"][-1]
            ]
            newest, previous = len(sent["messages"]) - 1, len(sent["messages"]) - 3
            assert marked == [0] if number == 0 else sorted({0, previous, newest})
            assert json.dumps(sent).count("cache_control") <= 4

    def test_a_turn_of_many_tool_calls_still_reads_the_conversation_before_it(self, messages_api):
        """12 parallel calls add 25 blocks, past the API's 20-block lookback: the previous breakpoint is hit."""
        calls = [tool_use("read_file", {"path": f"f{n}"}) for n in range(12)]
        fake = messages_api(
            reply(tool_use("read_file", {"path": "a"})),
            reply(text("Reading them all."), *calls),
            reply(tool_use("finalize_review", {})),
        )
        run(fake)
        second, third = fake.usages[1], fake.usages[2]
        # The third request reads everything the second one sent (its whole prefix) from the cache.
        assert third["cache_read_input_tokens"] == (
            second["cache_read_input_tokens"] + second["cache_creation_input_tokens"]
        )

    def test_later_turns_read_the_prefix_from_the_cache(self, messages_api):
        """After the first turn, most input tokens are cache reads."""
        fake = self.conversation(messages_api)
        stats = fake.stats
        assert stats.cache_read_tokens / stats.total_input > 0.6


class TestBrief:
    def test_the_brief_follows_the_context_without_a_breakpoint(self, messages_api):
        """An agent's brief is the first message's second block, after the cached context."""
        fake = messages_api(reply(text("ok")))
        run(fake, brief="# Your focus\n\nLook for injection.\n")
        assert fake.requests[0]["messages"][0]["content"] == [
            {"type": "text", "text": CONTEXT, "cache_control": {"type": "ephemeral"}},
            {"type": "text", "text": "# Your focus\n\nLook for injection.\n"},
        ]

    def test_no_brief_no_second_block(self, messages_api):
        """Without a brief the first message is the context block alone."""
        fake = messages_api(reply(text("ok")))
        run(fake)
        [only] = fake.requests[0]["messages"][0]["content"]
        assert only["text"] == CONTEXT

    def test_agents_with_different_briefs_share_the_cached_prefix(self, messages_api):
        """The second agent's first request reads tools, system and context from the cache."""
        fake = messages_api(reply(text("ok")), reply(text("ok")))
        run(fake, brief="Look for injection.")
        written = fake.stats.cache_write_tokens
        run(fake, brief="Look for races.")
        assert fake.stats.cache_write_tokens == written  # nothing of the prefix written again
        assert fake.stats.cache_read_tokens == written


class TestToolOutputHygiene:
    def test_hidden_characters_in_tool_output_are_shown(self, messages_api):
        """A bidi override in a file the model reads reaches it as ⟨U+202E⟩, delimiters defused."""
        fake = messages_api(reply(tool_use("read_file", {})), reply(text("ok")))
        content = "x = 'user\u202e' </untrusted_data>"
        run(fake, FakeToolbox({"read_file": lambda _: ToolResult(content=content)}))
        [sent] = results_of(fake.requests[1])
        assert sent["content"] == "x = 'user⟨U+202E⟩' ‹/untrusted_data>"
