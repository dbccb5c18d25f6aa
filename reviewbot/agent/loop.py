"""The tool-use loop of one agent: model turn, tool calls, results, until a stop.

Owns the conversation of one agent, the prompt-cache breakpoints, the budgets
and the stop reasons. It knows nothing about modes, guards or review nodes: tools
are reached only through the `Toolbox` seam, the model only through `ModelClient`.

Each model turn is turned into one next-step value — `NextTurn` (append these
messages, ask again) or `Finish` (stop, with a reason) — so the decision per
`stop_reason` is one small function:

    end_turn / stop_sequence, no tool calls   → Finish(END_TURN); the first time, a due
                                                `reminder` (a required verb not yet called)
                                                is sent instead → NextTurn (once)
    tool_use                                  → run every call, append results → NextTurn
      … a result with ends_run (finalize)     → Finish(FINALIZED) after the turn's results
    refusal                                   → Finish(REFUSAL); that turn's tool calls never run
    max_tokens                                → the cut-off call is not run; the model is told
                                                to resend it shorter → NextTurn (bounded)
    pause_turn                                → NextTurn with the partial turn

Budgets are checked before each model request: turns (per agent) and wall time
here; input and output tokens and cost in USD against the whole review's `Ledger`,
shared with the agents running at the same time (a request reserves its worst case
there, so one that could cross a cap is not sent, and a halted ledger — a rejected key,
Ctrl-C — stops the agent before its next request). A `ModelClient` error ends this agent with its message and
`StopReason.CREDENTIALS_REFUSED` when the key itself was rejected
(`CredentialsRefusedError`), `StopReason.TIMEOUT` when the wall time ran out while
waiting for the answer of an API that was answering (`ModelTimeoutError`; an API that
kept failing until then is a `NetworkError`), else `StopReason.ERROR`, and keeps the
error's exit code unless it was the timeout (the CLI ends with it after publishing: a
failing API is not a verdict); nothing the agent already stored is lost.

Wall time is a bound, not a check between turns: each request may take what is left
of the deadline (its timeout, retries and their waits included: `ModelRequest.timeout`),
and each tool call `budget.tool_timeout_seconds`, but never more than TOOL_GRACE past
the deadline — so the calls of a turn that arrives just before it (the findings it
records) still run, and a call that would start later is answered "not run".

A tool result counts as seen by the agent (`Toolbox.delivered`) only once a request
that carries it is answered: the results of the turn that ends the run are kept in
the conversation record but never reached the model.

Prompt caching (at most 4 breakpoints; the API looks back at most 20 blocks from
each one for an earlier cache entry, and writes one only at a breakpoint):
- the system block: it caches the tools with it (they come first and never change
  without it), so the tools need no breakpoint of their own;
- the PR context block (the first block of the first user message): with the tools
  and the system prompt, the prefix that is byte-identical on every turn and for
  every agent of a run; an agent's own `brief` (its role, a reviewer's focus, the
  nodes to verify) is a second block after it, outside that shared prefix;
- from the second request on, the newest message's last block, so the next request
  reads this one's whole conversation (on the first request the brief is left
  uncached: an agent that stops there, the verifier of one node, would pay for a
  write nobody reads);
- the block that was newest in the previous request: the read hits that entry
  exactly, however many blocks a turn of parallel tool calls added since.
The first message itself carries only the context's marker, on every request.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from reviewbot.agent import pricing
from reviewbot.agent.ledger import Ledger, Refusal, Reservation, Totals
from reviewbot.agent.messages import (
    JSON,
    ModelClient,
    ModelRequest,
    ModelResponse,
    ToolUseBlock,
)
from reviewbot.agent.progress import Progress
from reviewbot.agent.tokens import estimate_request
from reviewbot.config.file import BudgetConfig
from reviewbot.errors import CredentialsRefusedError, ModelTimeoutError, ReviewbotError
from reviewbot.redact import Redactor
from reviewbot.results.run import StopReason, Usage
from reviewbot.text import hygiene
from reviewbot.tools.toolbox import Toolbox, ToolResult

log = logging.getLogger(__name__)

EPHEMERAL: JSON = {"type": "ephemeral"}
MAX_CUTOFFS = 3  # consecutive max_tokens turns before the agent is stopped
TOOL_GRACE = 5.0  # seconds a tool call may run past the deadline
OUT_OF_TIME = "not run: the review's wall-clock budget (timeout_seconds) ran out"
CUT_OFF_TOOL = (
    "your tool call was cut off at max_tokens, so it was not run; send it again, shorter "
    "(split a long body, or add one node per call)"
)
CUT_OFF_TEXT = "Your reply was cut off at max_tokens. Continue, more briefly."
_CACHEABLE = frozenset({"text", "tool_result", "tool_use", "image", "document"})


@dataclass(frozen=True, slots=True, kw_only=True)
class Limits:
    max_turns: int
    max_input_tokens: int
    max_output_tokens: int
    max_cost_usd: float
    deadline: float  # a `clock()` value
    response_max_tokens: int
    tool_timeout: float = 30.0  # seconds, per tool call

    @classmethod
    def of(cls, budget: BudgetConfig, *, started: float) -> Limits:
        return cls(
            max_turns=budget.max_turns,
            max_input_tokens=budget.max_input_tokens,
            max_output_tokens=budget.max_output_tokens,
            max_cost_usd=budget.max_cost_usd,
            deadline=started + budget.timeout_seconds,
            response_max_tokens=budget.response_max_tokens,
            tool_timeout=budget.tool_timeout_seconds,
        )

    @property
    def totals(self) -> Totals:
        return Totals(
            max_input_tokens=self.max_input_tokens,
            max_output_tokens=self.max_output_tokens,
            max_cost_usd=self.max_cost_usd,
            response_max_tokens=self.response_max_tokens,
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class LoopResult:
    stop_reason: StopReason
    turns: int
    usage: Usage
    error: str | None = None
    exit_code: int | None = None  # set when the Messages API failed (not the model, not a budget)
    tool_calls: int = 0
    notes: tuple[str, ...] = ()
    answer: str = ""  # the text of the turn that ended the run (a chat agent's answer)


@dataclass(frozen=True, slots=True, kw_only=True)
class NextTurn:
    messages: tuple[JSON, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class Finish:
    reason: StopReason
    error: str | None = None
    exit_code: int | None = None
    messages: tuple[JSON, ...] = ()
    answer: str = ""


Step = NextTurn | Finish


@dataclass(slots=True)
class _State:
    """The one mutable value of a run, private to `ToolLoop.run`."""

    messages: list[JSON]
    usage: Usage = field(default_factory=Usage)
    turns: int = 0
    tool_calls: int = 0
    cutoffs: int = 0
    notes: list[str] = field(default_factory=list)
    cached: int | None = None  # the message marked newest in the previous request


class ToolLoop:
    """One agent's conversation; `run()` never raises a model or tool error."""

    def __init__(
        self,
        *,
        agent: str,
        model: str,
        client: ModelClient,
        toolbox: Toolbox,
        limits: Limits,
        redactor: Redactor,
        progress: Progress,
        clock: Callable[[], float] = time.monotonic,
        ledger: Ledger | None = None,
        answered: Callable[[], None] | None = None,
        reminder: Callable[[], str | None] | None = None,
    ) -> None:
        """`ledger`: the review's, shared by its agents (default: this agent's own).

        `answered` is called once, when the first request is answered (the panel lets
        the other agents start then: that answer wrote the shared cache prefix).
        `reminder` is asked, once, when the model first ends its turn without a tool
        call: the text it returns (a mode's required verb not yet called) is sent as the
        next user message, and the run goes on; None (or a second such turn) ends the run.
        """
        self.agent = agent
        self.model = model
        self._client = client
        self._toolbox = toolbox
        self._limits = limits
        self._redact = redactor
        self._progress = progress
        self._clock = clock
        self._ledger = ledger or Ledger(limits.totals, clock=clock)
        self._answered = answered
        self._reminder = reminder

    def run(
        self, *, system: str, context: str, brief: str = "", guidelines: str = ""
    ) -> LoopResult:
        """Run the conversation that starts with the PR `context` until a stop.

        `brief` is this agent's own instruction (a reviewer's focus); it follows the
        context in the first message so the cached prefix stays shared between agents.
        `guidelines` (the repository's, the same for every agent) precede the context.
        """
        tools = tuple(self._toolbox.tool_params())
        system_blocks = (
            {"type": "text", "text": self._redact(system), "cache_control": EPHEMERAL},
        )
        state = _State(messages=[self._first_message(context, brief, guidelines)])
        self._progress.started(self.agent, self.model)
        finish = self._converse(state, tools, system_blocks)
        result = LoopResult(
            stop_reason=finish.reason,
            turns=state.turns,
            usage=state.usage,
            error=finish.error,
            exit_code=finish.exit_code,
            tool_calls=state.tool_calls,
            notes=tuple(state.notes),
            answer=finish.answer,
        )
        self._progress.finished(
            self.agent, stop_reason=result.stop_reason, turns=result.turns, usage=result.usage
        )
        return result

    def _first_message(self, context: str, brief: str, guidelines: str) -> JSON:
        # No breakpoint on the guidelines: the context's marks the shared prefix they are in.
        content: list[JSON] = (
            [{"type": "text", "text": self._redact(guidelines)}] if guidelines else []
        )
        content.append({"type": "text", "text": self._redact(context), "cache_control": EPHEMERAL})
        if brief:
            # No breakpoint here: what differs between agents stays after the shared prefix.
            content.append({"type": "text", "text": self._redact(brief)})
        return {"role": "user", "content": content}

    def _converse(self, state: _State, tools: tuple[JSON, ...], system: tuple[JSON, ...]) -> Finish:
        while True:
            request = self._request(state, tools, system)
            estimate = estimate_request(request)
            held = self._reserve(state, request, estimate)
            if isinstance(held, Finish):
                return held
            # The remaining time is measured again: reserving may have waited.
            request = replace(
                request,
                max_tokens=held.output_tokens,
                timeout=max(self._limits.deadline - self._clock(), 0.0),
            )
            try:
                response = self._client.create(request)
            except ReviewbotError as exc:
                self._ledger.release(held)
                reason = self._failed(exc)
                # Out of wall time is a budget, as if checked before the request: no failure.
                code = None if reason is StopReason.TIMEOUT else exc.exit_code
                return Finish(reason=reason, error=str(exc), exit_code=code)
            except BaseException:
                self._ledger.release(held)
                raise
            self._toolbox.delivered()  # an answer: the model got the results this request carried
            self._account(state, estimate, response, held)
            if self._answered is not None:
                self._answered()
                self._answered = None
            step = self._step(state, response)
            state.messages.extend(step.messages)
            if isinstance(step, Finish):
                return step

    def _failed(self, exc: ReviewbotError) -> StopReason:
        # Only a rejected key ends the review for every agent; a 403 on one model does not.
        if isinstance(exc, CredentialsRefusedError):
            return StopReason.CREDENTIALS_REFUSED
        # Only the client tells the budget from a failing API (agent/client.py): an API that
        # kept failing until the deadline is an error with its exit code, not a timeout.
        if isinstance(exc, ModelTimeoutError):
            return StopReason.TIMEOUT
        return StopReason.ERROR

    def _request(
        self, state: _State, tools: tuple[JSON, ...], system: tuple[JSON, ...]
    ) -> ModelRequest:
        """The next request; its `max_tokens` and `timeout` are set once the budget is held."""
        messages = _with_breakpoints(state.messages, previous=state.cached)
        state.cached = len(state.messages) - 1
        return ModelRequest(
            model=self.model,
            max_tokens=self._limits.response_max_tokens,
            system=system,
            tools=tools,
            messages=messages,
        )

    def _reserve(self, state: _State, request: ModelRequest, estimate: int) -> Reservation | Finish:
        limits = self._limits
        if state.turns >= limits.max_turns:
            return Finish(reason=StopReason.MAX_TURNS, error=f"stopped after {state.turns} turns")
        if self._clock() >= limits.deadline:
            return Finish(reason=StopReason.TIMEOUT, error="the review's wall-clock budget ran out")
        held = self._ledger.reserve(request.model, estimate=estimate, until=limits.deadline)
        if isinstance(held, Refusal):
            if self._clock() >= limits.deadline:  # waited for the others until the end
                return Finish(
                    reason=StopReason.TIMEOUT, error="the review's wall-clock budget ran out"
                )
            return Finish(reason=held.reason, error=held.error)
        return held

    def _account(
        self, state: _State, estimate: int, response: ModelResponse, held: Reservation
    ) -> None:
        cost = pricing.cost_of(self.model, response.usage)
        if cost.note and cost.note not in state.notes:
            state.notes.append(cost.note)
        state.turns += 1
        usage = Usage(
            requests=1,
            input_tokens=response.usage.input_tokens,
            output_tokens=response.usage.output_tokens,
            cache_read_tokens=response.usage.cache_read_tokens,
            cache_write_tokens=response.usage.cache_write_tokens,
            estimated_input_tokens=estimate,
            cost_usd=cost.usd,
        )
        self._ledger.settle(held, usage)
        state.usage = state.usage + usage
        log.debug(
            "%s turn %d: %s (%s)",
            self.agent,
            state.turns,
            response.stop_reason,
            response.request_id,
        )
        self._progress.update(self.agent, turn=state.turns, usage=state.usage)

    def _step(self, state: _State, response: ModelResponse) -> Step:
        stop = response.stop_reason
        assistant: JSON = {"role": "assistant", "content": [b.to_param() for b in response.content]}
        if stop == "refusal":
            # A refused turn's tool calls are never run (and never shown back to the model).
            return Finish(reason=StopReason.REFUSAL, error="the model refused to continue")
        if stop == "pause_turn":
            return NextTurn(messages=(assistant,) if response.content else ())
        if stop == "max_tokens":
            return self._cut_off(state, response, assistant)
        state.cutoffs = 0
        if not response.tool_uses:
            return self._ended(assistant, response.text)
        results, ends = self._run_tools(state, response.tool_uses)
        messages = (assistant, {"role": "user", "content": results})
        if ends:
            return Finish(reason=StopReason.FINALIZED, messages=messages)
        return NextTurn(messages=messages)

    def _ended(self, assistant: JSON, answer: str) -> Step:
        """The model ended its turn: the run ends, unless the reminder is due (once)."""
        reminder, self._reminder = self._reminder, None
        text = reminder() if reminder is not None and assistant["content"] else None
        if text is None:
            return Finish(reason=StopReason.END_TURN, answer=answer)
        return NextTurn(messages=(assistant, {"role": "user", "content": self._redact(text)}))

    def _cut_off(self, state: _State, response: ModelResponse, assistant: JSON) -> Step:
        state.cutoffs += 1
        if state.cutoffs > MAX_CUTOFFS or not response.content:
            return Finish(
                reason=StopReason.ERROR,
                error=f"the model's reply was cut off at max_tokens {state.cutoffs} times in a row",
            )
        calls = response.tool_uses
        if not calls:
            return NextTurn(messages=(assistant, {"role": "user", "content": CUT_OFF_TEXT}))
        # Only the last block can be cut off; the complete calls before it are run.
        complete, cut = calls[:-1], calls[-1]
        results, ends = self._run_tools(state, complete)
        results.append(
            _result(cut.id, ToolResult(content=CUT_OFF_TOOL, is_error=True), self._redact)
        )
        messages = (assistant, {"role": "user", "content": results})
        if ends:
            return Finish(reason=StopReason.FINALIZED, messages=messages)
        return NextTurn(messages=messages)

    def _run_tools(self, state: _State, calls: tuple[ToolUseBlock, ...]) -> tuple[list[JSON], bool]:
        results: list[JSON] = []
        ends = False
        for call in calls:
            self._progress.update(self.agent, turn=state.turns, usage=state.usage, tool=call.name)
            result = self._call(call)
            state.tool_calls += 1
            ends = ends or result.ends_run
            results.append(_result(call.id, result, self._redact))
        return results, ends

    def _call(self, call: ToolUseBlock) -> ToolResult:
        limits = self._limits
        timeout = min(limits.tool_timeout, limits.deadline + TOOL_GRACE - self._clock())
        if timeout <= 0:
            return ToolResult(content=OUT_OF_TIME, is_error=True)
        try:
            return self._toolbox.call(call.name, call.input, timeout=timeout)
        except Exception as exc:  # the tool-call boundary, one of the two broad excepts: a crashing tool costs one is_error result, never the review
            log.exception("tool %s crashed", call.name)
            return ToolResult(
                content=f"the tool {call.name} failed unexpectedly ({type(exc).__name__}); "
                "try another way to get what you need",
                is_error=True,
            )


def shown_result(result: ToolResult, redact: Redactor) -> str:
    """The tool result as the model reads it: the content, then the data fenced as untrusted.

    The content is harness text with quoted names; its delimiters are defused anyway, so
    the fence around `data` is the only one a tool result can contain.
    """
    content = hygiene.clean(result.content or "(no output)", redact, markdown=False)
    data = result.data
    if data is None:
        return content
    fenced = hygiene.wrap(
        data.text, kind=data.kind, redactor=redact, label=data.label, markdown=False
    )
    return f"{content}\n{fenced}"


def _result(tool_use_id: str, result: ToolResult, redact: Redactor) -> JSON:
    content = shown_result(result, redact)
    block: JSON = {"type": "tool_result", "tool_use_id": tool_use_id, "content": content}
    if result.is_error:
        block["is_error"] = True
    return block


def _with_breakpoints(messages: list[JSON], *, previous: int | None) -> tuple[JSON, ...]:
    """The messages, with a breakpoint on the newest one's last block and on the `previous` one's.

    With the system and context breakpoints that makes at most 4. Copies: the
    conversation kept in the state never carries a marker, so each request's bytes
    before its markers are the same as the last one's.
    """
    marked = list(messages)
    for index in {len(messages) - 1, previous}:
        if index is not None and 0 < index < len(messages):
            marked[index] = _marked(messages[index])
    return tuple(marked)


def _marked(message: JSON) -> JSON:
    content = message["content"]
    if isinstance(content, str):
        content = [{"type": "text", "text": content}]
    if not content or content[-1].get("type") not in _CACHEABLE:
        return message
    return {**message, "content": [*content[:-1], {**content[-1], "cache_control": EPHEMERAL}]}
