"""A fake Anthropic Messages API: scripted replies in real response shapes, with prompt caching.

The core is a plain function, `FakeMessagesAPI.handle(request_json) -> (status,
headers, response_json)`, so the same fake serves the adapter tests (through
`httpx.MockTransport`, see `transport()`) and the end-to-end tests (through
`tests/fakes/server.py`'s `json_function_handler`).

- Script: each entry is a `Reply` (content blocks + stop_reason), a `Failure`
  (an error status: 529 overloaded, 429 with retry-after, 500, 401…) or a callable
  `request_json -> Reply | Failure` for replies that depend on the conversation.
- Every request is recorded (`requests`). A call with no scripted reply left, or a
  request the real API would refuse (a `tool_use` without its `tool_result`, more
  than 4 cache breakpoints, …), answers 400 and is recorded in `problems`;
  `verify()` fails the test on problems or on scripted replies left unused.
- Prompt caching: the prompt is flattened into blocks (tools → system → message
  blocks); the prefix up to each `cache_control` breakpoint is hashed and stored.
  A request reads from the cache the longest stored prefix ending at a block
  boundary at most `LOOKBACK` (20) blocks before one of its breakpoints — the real
  API's lookback: an earlier entry further back from every breakpoint is missed —,
  writes the rest up to the last breakpoint, and pays `input_tokens` for what
  follows it.
- Agents at the same time: with `route` (request JSON → an agent's name) each agent
  has its own script (`scripts`), popped in that agent's order whatever the order the
  requests arrive in; `latency` (→ seconds) delays each answer outside the fake's lock,
  so requests overlap; `timeline` records when each request arrived and was answered.
- Token counts use a method *different* from reviewbot's local estimator: one
  token per regex word or punctuation piece of the JSON text (`\\w+|[^\\w\\s]`), so
  comparing the API's count with the estimate means something.
"""

from __future__ import annotations

import copy
import hashlib
import itertools
import json
import re
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import httpx

JSON = dict[str, Any]
_PIECE = re.compile(r"\w+|[^\w\s]")
MAX_BREAKPOINTS = 4
LOOKBACK = 20  # blocks before a breakpoint the API checks for an earlier cache entry


@dataclass(frozen=True, slots=True)
class Reply:
    content: tuple[JSON, ...]
    stop_reason: str = "end_turn"


@dataclass(frozen=True, slots=True)
class Failure:
    status: int
    error_type: str
    message: str
    headers: Mapping[str, str] = field(default_factory=dict)


Scripted = Reply | Failure | Callable[[JSON], "Reply | Failure"]


def text(value: str) -> JSON:
    return {"type": "text", "text": value}


def tool_use(name: str, tool_input: Any, *, id: str | None = None) -> JSON:
    """A tool_use block; the fake gives it an id (toolu_fake_0001…) when none is set."""
    block: JSON = {"type": "tool_use", "name": name, "input": tool_input}
    if id is not None:
        block["id"] = id
    return block


def reply(*blocks: JSON, stop_reason: str | None = None) -> Reply:
    """A reply; its stop_reason defaults to tool_use when it has a tool call, else end_turn."""
    if stop_reason is None:
        stop_reason = "tool_use" if any(b["type"] == "tool_use" for b in blocks) else "end_turn"
    return Reply(content=tuple(blocks), stop_reason=stop_reason)


def overloaded(retry_after: str | None = "0") -> Failure:
    headers = {"retry-after": retry_after} if retry_after is not None else {}
    return Failure(529, "overloaded_error", "Overloaded", headers)


def rate_limited(
    message: str = "This request would exceed your account's rate limit. Please try again later.",
    retry_after: str | None = "0",
) -> Failure:
    headers = {"retry-after": retry_after} if retry_after is not None else {}
    return Failure(429, "rate_limit_error", message, headers)


def server_error() -> Failure:
    return Failure(500, "api_error", "Internal server error")


def unauthorized() -> Failure:
    return Failure(401, "authentication_error", "invalid x-api-key")


def not_found(model: str) -> Failure:
    return Failure(404, "not_found_error", f"model: {model}")


def count_tokens(value: Any) -> int:
    """The fake's own token count: regex word/punctuation pieces of the JSON text."""
    raw = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, sort_keys=True)
    return len(_PIECE.findall(raw))


@dataclass(frozen=True, slots=True, kw_only=True)
class Span:
    """One request as the fake saw it: which agent, when it arrived and was answered."""

    agent: str
    arrived: float  # time.monotonic()
    answered: float
    status: int


@dataclass(slots=True)
class CacheStats:
    requests: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0

    @property
    def total_input(self) -> int:
        return self.input_tokens + self.cache_read_tokens + self.cache_write_tokens


class FakeMessagesAPI:
    def __init__(
        self,
        script: Iterable[Scripted] = (),
        *,
        api_key: str | None = None,
        min_cacheable_tokens: int = 0,
        scripts: Mapping[str, Iterable[Scripted]] | None = None,
        route: Callable[[JSON], str] | None = None,
        latency: Callable[[], float] | None = None,
    ) -> None:
        self._script: list[Scripted] = list(script)
        self._scripts = {agent: list(entries) for agent, entries in (scripts or {}).items()}
        self._route = route
        self._latency = latency
        self._lock = threading.Lock()
        self.timeline: list[Span] = []
        self._api_key = api_key
        self._min_cacheable = min_cacheable_tokens
        self._cache: set[str] = set()
        self._ids = itertools.count(1)
        self.requests: list[JSON] = []
        self.headers: list[dict[str, str]] = []
        self.problems: list[str] = []
        self.stats = CacheStats()
        self.usages: list[JSON] = []  # the usage of each answered request, in order
        self.busy_seconds = 0.0  # time spent inside the fake, for benchmarks

    # -- scripting ------------------------------------------------------------------

    def add(self, *script: Scripted) -> None:
        self._script.extend(script)

    def drop_remaining(self) -> None:
        """Agents stopped by a budget never ask for the rest of their scripts: forget it."""
        with self._lock:
            self._script.clear()
            self._scripts.clear()

    @property
    def remaining(self) -> int:
        return len(self._script) + sum(len(entries) for entries in self._scripts.values())

    def verify(self) -> None:
        """Fail the test on a refused request, an unexpected call or a scripted reply left."""
        problems = list(self.problems)
        if self.remaining:
            problems.append(f"{self.remaining} scripted reply(ies) never requested")
        assert not problems, "fake Messages API: " + "; ".join(problems)

    # -- the API --------------------------------------------------------------------

    def handle(
        self, body: Any, headers: Mapping[str, str] | None = None
    ) -> tuple[int, dict[str, str], JSON]:
        """One POST /v1/messages: request JSON → (status, headers, response JSON)."""
        arrived = time.monotonic()
        agent = self._route(body) if self._route is not None and isinstance(body, dict) else ""
        with self._lock:
            started = time.perf_counter()
            try:
                answer = self._handle(
                    body, {k.lower(): v for k, v in (headers or {}).items()}, agent
                )
            finally:
                self.busy_seconds += time.perf_counter() - started
        if self._latency is not None:
            time.sleep(self._latency())
        with self._lock:
            self.timeline.append(
                Span(agent=agent, arrived=arrived, answered=time.monotonic(), status=answer[0])
            )
        return answer

    __call__ = handle

    def transport(self) -> httpx.MockTransport:
        """This fake as an httpx transport, for `httpx.Client(transport=...)`."""

        def handler(request: httpx.Request) -> httpx.Response:
            if request.method != "POST" or request.url.path != "/v1/messages":
                self.problems.append(f"unexpected {request.method} {request.url.path}")
                return httpx.Response(404, json=_error("not_found_error", "no such endpoint"))
            status, headers, payload = self.handle(json.loads(request.content), request.headers)
            return httpx.Response(status, headers=headers, json=payload)

        return httpx.MockTransport(handler)

    def _handle(
        self, body: Any, headers: Mapping[str, str], agent: str
    ) -> tuple[int, dict[str, str], JSON]:
        number = len(self.requests) + 1
        self.requests.append(copy.deepcopy(body))
        self.headers.append(dict(headers))
        request_id = f"req_fake_{number:04d}"
        if self._api_key is not None and headers.get("x-api-key") != self._api_key:
            return _failure(Failure(401, "authentication_error", "invalid x-api-key"), request_id)
        refused = _validate(body)
        if refused:
            self.problems.append(f"request #{number} refused: {refused}")
            return _failure(Failure(400, "invalid_request_error", refused), request_id)
        script = self._scripts.get(agent, []) if self._route is not None else self._script
        if not script:
            self.problems.append(f"request #{number} ({agent}) came with no scripted reply left")
            unexpected = Failure(
                400,
                "invalid_request_error",
                f"fake Messages API: no scripted reply for request #{number}",
                {"x-should-retry": "false"},
            )
            return _failure(unexpected, request_id)
        scripted = script.pop(0)
        if callable(scripted):
            # A scripted function may wait (a hanging API): the other agents' requests go on.
            self._lock.release()
            try:
                answer = scripted(body)
            finally:
                self._lock.acquire()
        else:
            answer = scripted
        if isinstance(answer, Failure):
            return _failure(answer, request_id)
        return 200, _headers(request_id), self._message(body, answer)

    def _message(self, body: JSON, answer: Reply) -> JSON:
        content = []
        for block in answer.content:
            block = dict(block)
            if block["type"] == "tool_use" and "id" not in block:
                block["id"] = f"toolu_fake_{next(self._ids):04d}"
            content.append(block)
        usage = self._usage(body)
        usage["output_tokens"] = count_tokens(content)
        self.stats.requests += 1
        self.usages.append(dict(usage))
        self.stats.input_tokens += usage["input_tokens"]
        self.stats.output_tokens += usage["output_tokens"]
        self.stats.cache_read_tokens += usage["cache_read_input_tokens"]
        self.stats.cache_write_tokens += usage["cache_creation_input_tokens"]
        return {
            "id": f"msg_fake_{self.stats.requests:04d}",
            "type": "message",
            "role": "assistant",
            "model": body["model"],
            "content": content,
            "stop_reason": answer.stop_reason,
            "stop_sequence": None,
            "usage": usage,
        }

    def _usage(self, body: JSON) -> JSON:
        blocks = _flatten(body)
        hashes, tokens = [], []
        running = hashlib.sha256()
        for block in blocks:
            running.update(json.dumps(_strip(block), sort_keys=True).encode())
            hashes.append(running.hexdigest())
            tokens.append(count_tokens(_strip(block)))
        total = sum(tokens)
        ends = list(itertools.accumulate(tokens))
        breakpoints = [
            i
            for i, b in enumerate(blocks)
            if "cache_control" in b and ends[i] >= self._min_cacheable
        ]
        if not breakpoints:
            return _usage_json(total, 0, 0)
        last = breakpoints[-1]
        looked_at = {i for bp in breakpoints for i in range(max(bp - LOOKBACK, 0), bp + 1)}
        hit = max((i for i in looked_at if hashes[i] in self._cache), default=-1)
        read = ends[hit] if hit >= 0 else 0
        write = ends[last] - read
        for i in breakpoints:
            self._cache.add(hashes[i])
        return _usage_json(total - ends[last], read, write)


def _usage_json(input_tokens: int, read: int, write: int) -> JSON:
    return {
        "input_tokens": input_tokens,
        "output_tokens": 0,
        "cache_creation_input_tokens": write,
        "cache_read_input_tokens": read,
    }


def _flatten(body: JSON) -> list[JSON]:
    """tools → system → each message's blocks: the order the API builds the prompt in."""
    blocks: list[JSON] = [{"tool": t} | _marker(t) for t in body.get("tools") or []]
    system = body.get("system") or []
    if isinstance(system, str):
        system = [{"type": "text", "text": system}]
    blocks.extend({"system": b} | _marker(b) for b in system)
    for message in body["messages"]:
        content = message["content"]
        if isinstance(content, str):
            content = [{"type": "text", "text": content}]
        blocks.extend({message["role"]: b} | _marker(b) for b in content)
    return blocks


def _marker(block: JSON) -> JSON:
    return {"cache_control": block["cache_control"]} if "cache_control" in block else {}


def _strip(value: Any) -> Any:
    """The block without its cache_control markers: a marker is not part of the prompt."""
    if isinstance(value, dict):
        return {k: _strip(v) for k, v in value.items() if k != "cache_control"}
    if isinstance(value, list):
        return [_strip(v) for v in value]
    return value


def _validate(body: Any) -> str | None:
    """What the real API would answer 400 to (the subset a harness can get wrong)."""
    if not isinstance(body, dict):
        return "body must be a JSON object"
    if not isinstance(body.get("model"), str) or not body["model"]:
        return "model: field required"
    if not isinstance(body.get("max_tokens"), int) or body["max_tokens"] < 1:
        return "max_tokens: must be a positive integer"
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        return "messages: at least one message is required"
    if messages[0].get("role") != "user":
        return "messages: the first message must use the user role"
    for index, message in enumerate(messages):
        if not isinstance(message, dict) or not isinstance(message.get("content"), str | list):
            return f"messages.{index}: must be an object with role and content"
    names = [t.get("name") for t in body.get("tools") or []]
    if len(names) != len(set(names)):
        return "tools: tool names must be unique"
    choice = _validate_tool_choice(body.get("tool_choice"), names)
    if choice:
        return choice
    marks = sum(1 for block in _flatten(body) if "cache_control" in block)
    if marks > MAX_BREAKPOINTS:
        return f"A maximum of {MAX_BREAKPOINTS} blocks with cache_control may be provided. Found {marks}."
    return _validate_tool_pairs(messages)


def _validate_tool_choice(choice: Any, names: list[Any]) -> str | None:
    """`tool_choice` is auto | any | none | {type: tool, name}; a forced tool must be sent."""
    if choice is None:
        return None
    kind = choice.get("type") if isinstance(choice, dict) else None
    if kind not in ("auto", "any", "tool", "none"):
        return "tool_choice.type: must be one of auto, any, tool, none"
    if kind in ("any", "tool") and not names:
        return "tool_choice: a tool must be given in `tools` when tool_choice forces tool use"
    if kind == "tool" and choice.get("name") not in names:
        return f"tool_choice.name: tool {choice.get('name')!r} is not in `tools`"
    return None


def _validate_tool_pairs(messages: list[JSON]) -> str | None:
    for index, message in enumerate(messages):
        content = message.get("content")
        if message.get("role") not in ("user", "assistant"):
            return f"messages.{index}.role: must be user or assistant"
        if isinstance(content, list) and not content and index < len(messages) - 1:
            return f"messages.{index}: all messages must have non-empty content"
        if message["role"] != "assistant" or not isinstance(content, list):
            continue
        ids = [b["id"] for b in content if b.get("type") == "tool_use"]
        if not ids:
            continue
        following = messages[index + 1] if index + 1 < len(messages) else None
        results = []
        if following is not None and isinstance(following.get("content"), list):
            results = [
                b.get("tool_use_id") for b in following["content"] if b.get("type") == "tool_result"
            ]
        missing = [i for i in ids if i not in results]
        if following is not None and missing:
            return (
                f"messages.{index + 1}: `tool_use` ids were found without `tool_result` blocks "
                f"immediately after: {', '.join(missing)}"
            )
        extra = [r for r in results if r not in ids]
        if extra:
            return f"messages.{index + 1}: unexpected `tool_use_id` found in `tool_result` blocks: {extra}"
    return None


def _error(kind: str, message: str) -> JSON:
    return {"type": "error", "error": {"type": kind, "message": message}}


def _headers(request_id: str) -> dict[str, str]:
    return {"request-id": request_id, "content-type": "application/json"}


def _failure(failure: Failure, request_id: str) -> tuple[int, dict[str, str], JSON]:
    body = _error(failure.error_type, failure.message) | {"request_id": request_id}
    return failure.status, _headers(request_id) | dict(failure.headers), body


def route_by_brief(focus: Mapping[str, str], *, default: str = "review") -> Callable[[JSON], str]:
    """A `route` that names the agent from its own block (after the shared PR context):
    the verifier by its role, a focused reviewer by a text of its brief (`focus`: name →
    text), else `default`."""

    def route(body: JSON) -> str:
        first = body["messages"][0]["content"]
        own = " ".join(b.get("text", "") for b in first[1:]) if isinstance(first, list) else ""
        if "You are the verifier" in own:
            return "verifier"
        return next((name for name, text in focus.items() if text in own), default)

    return route
