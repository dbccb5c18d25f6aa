"""The local token estimate, compared with the fake API's (different) count."""

from __future__ import annotations

from reviewbot.agent.messages import ModelRequest
from reviewbot.agent.tokens import estimate_request
from reviewbot.estimate import estimate_text
from tests.fakes.messages_api import count_tokens

CODE = (
    "def parse(value: str) -> int:\n"
    "    if not value:\n"
    "        raise ValueError('empty')\n"
    "    return int(value.strip(), 10)\n"
) * 40


def request(text: str, *, tools: int = 0) -> ModelRequest:
    return ModelRequest(
        model="m",
        max_tokens=10,
        system=({"type": "text", "text": "sys"},),
        tools=tuple(
            {"name": f"t{i}", "description": "d", "input_schema": {"type": "object"}}
            for i in range(tools)
        ),
        messages=({"role": "user", "content": [{"type": "text", "text": text}]},),
    )


class TestEstimate:
    def test_text_is_chars_over_three_and_a_half(self):
        """The heuristic is one token per 3.5 characters, rounded up."""
        assert estimate_text("") == 0
        assert estimate_text("abcdefg") == 2
        assert estimate_text("abcdefgh") == 3

    def test_grows_with_the_request(self):
        """More text and more tools mean a larger estimate."""
        small, large = estimate_request(request("x")), estimate_request(request(CODE))
        assert large > small
        assert estimate_request(request("x", tools=3)) > small

    def test_within_a_factor_of_two_of_the_fake_count(self):
        """On source code the estimate stays within 2× of the fake API's piece count."""
        estimate = estimate_text(CODE)
        counted = count_tokens(CODE)
        assert counted / 2 <= estimate <= counted * 2
