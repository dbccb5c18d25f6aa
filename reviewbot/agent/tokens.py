"""A local estimate of how many input tokens a request will cost.

Used before a request is sent: to pack the PR into the context budget and to stop
a loop before a request would overshoot the token or cost budget. The API's own
count (`usage`) is what is billed and reported; the estimate is reported next to
it (`Usage.estimated_input_tokens`) so the heuristic can be checked.

The heuristic: one token per 3.5 characters of text (`reviewbot.estimate`),
counted over the JSON the API receives, plus a fixed
overhead per message and per tool for the framing the API adds. It must never
call the API (`count_tokens` costs a request).
"""

from __future__ import annotations

import json
from collections.abc import Iterable

from reviewbot.agent.messages import JSON, ModelRequest
from reviewbot.estimate import estimate_text

_PER_MESSAGE = 4
_PER_TOOL = 8
_TOOL_USE_PREAMBLE = 350  # the system prompt the API adds when tools are present


def _estimate_json(values: Iterable[JSON]) -> int:
    return sum(
        estimate_text(json.dumps(v, ensure_ascii=False, separators=(",", ":"))) for v in values
    )


def estimate_request(request: ModelRequest) -> int:
    """Estimated input tokens of the whole request (system, tools and messages)."""
    tools = _estimate_json(request.tools) + _PER_TOOL * len(request.tools)
    if request.tools:
        tools += _TOOL_USE_PREAMBLE
    messages = _estimate_json(request.messages) + _PER_MESSAGE * len(request.messages)
    return _estimate_json(request.system) + tools + messages
