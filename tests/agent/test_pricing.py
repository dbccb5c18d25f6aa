"""Prices per model and the cost of a usage count."""

from __future__ import annotations

import re
import typing
from typing import Literal

import pytest

from reviewbot.agent.messages import TokenUsage
from reviewbot.agent.pricing import PRICES, cost_of, price_of, worst_case_usd
from reviewbot.config.file import DEFAULT_MODEL


def _sdk_models() -> list[str]:
    """The model ids the installed anthropic SDK lists in `ModelParam`."""
    from anthropic.types import ModelParam

    literal = next(arg for arg in typing.get_args(ModelParam) if typing.get_origin(arg) is Literal)
    return [str(m) for m in typing.get_args(literal)]


MILLION = TokenUsage(
    input_tokens=1_000_000,
    output_tokens=1_000_000,
    cache_read_tokens=1_000_000,
    cache_write_tokens=1_000_000,
)


class TestPriceOf:
    @pytest.mark.parametrize(
        ("model", "input_", "output"),
        [
            ("claude-sonnet-4-5", 3.0, 15.0),
            ("claude-sonnet-4-5-20250929", 3.0, 15.0),
            ("claude-sonnet-4-20250514", 3.0, 15.0),
            ("claude-opus-4-1@20250805", 15.0, 75.0),
            ("claude-opus-4-5-20251101", 5.0, 25.0),
            ("claude-opus-4-6", 5.0, 25.0),
            ("claude-haiku-4-5", 1.0, 5.0),
            ("claude-3-5-haiku-latest", 0.8, 4.0),
            ("claude-3-haiku-20240307", 0.25, 1.25),
            ("claude-3-7-sonnet-20250219", 3.0, 15.0),
            ("claude-sonnet-5", 2.0, 10.0),
            ("claude-sonnet-5-5", 2.0, 10.0),
            ("claude-opus-5", 5.0, 25.0),
            ("claude-opus-5-5", 4.0, 20.0),
            ("claude-fable-5", 10.0, 50.0),
            ("claude-mythos-5", 10.0, 50.0),
            ("claude-fable-5-1", 10.0, 50.0),
        ],
        ids=lambda v: str(v),
    )
    def test_known_models(self, model, input_, output):
        """Dated, `-latest` and Vertex `@` ids resolve to their family's price."""
        price, note = price_of(model)
        assert (price.input, price.output) == (input_, output)
        assert note is None

    @pytest.mark.parametrize(
        ("model", "write", "read"),
        [
            ("claude-sonnet-5", 2.50, 0.20),
            ("claude-opus-5", 6.25, 0.50),
            ("claude-fable-5", 12.50, 1.00),
            ("claude-fable-5-1", 12.50, 0.25),
            ("claude-opus-5-5", 5.00, 0.20),
        ],
        ids=str,
    )
    def test_cache_prices_of_the_5_generation(self, model, write, read):
        """The 5-generation cache prices are the published ones (5.1/5.5 read below 0.1×)."""
        price, _ = price_of(model)
        assert (price.cache_write, price.cache_read) == pytest.approx((write, read))

    def test_the_default_model_is_the_newest_sonnet_the_sdk_knows(self):
        """DEFAULT_MODEL is the newest undated Sonnet in the installed SDK's model list, priced."""
        sonnets = [m for m in _sdk_models() if re.fullmatch(r"claude-sonnet-\d+(-\d)?", m)]
        newest = max(sonnets, key=lambda m: tuple(int(p) for p in m.split("-")[2:]))
        assert newest == DEFAULT_MODEL
        assert price_of(DEFAULT_MODEL)[1] is None

    def test_cache_prices_follow_the_multipliers(self):
        """A 5-minute cache write costs 1.25× input and a read 0.1× (Haiku 3 as published)."""
        sonnet, _ = price_of("claude-sonnet-4-5")
        assert (sonnet.cache_write, sonnet.cache_read) == (3.75, 0.30)
        haiku3, _ = price_of("claude-3-haiku")
        assert (haiku3.cache_write, haiku3.cache_read) == (0.30, 0.03)

    @pytest.mark.parametrize(
        "model", ["claude-opus-4-9", "gpt-4o", ""], ids=["future-opus", "other", "empty"]
    )
    def test_unknown_model_costs_the_most(self, model):
        """An unknown id is priced at the most expensive known rate, with a note naming it."""
        price, note = price_of(model)
        assert price.output == max(p.output for p in PRICES.values())
        assert note is not None
        assert repr(model) in note


class TestCost:
    def test_cost_of_a_million_of_each(self):
        """Cost sums input, output, cache write and cache read at their own prices."""
        cost = cost_of("claude-sonnet-4-5", MILLION)
        assert cost.usd == pytest.approx(3 + 15 + 3.75 + 0.30)
        assert cost.note is None

    def test_unknown_model_is_never_free(self):
        """An unknown model's usage costs more than zero and carries the note."""
        cost = cost_of("mystery", TokenUsage(input_tokens=10))
        assert cost.usd > 0
        assert cost.note

    def test_worst_case(self):
        """The worst case prices all input as cache writes (the dearest rate) and all output used."""
        assert worst_case_usd(
            "claude-haiku-4-5", input_tokens=1_000_000, output_tokens=100_000
        ) == pytest.approx(1.25 + 0.5)

    @pytest.mark.parametrize("model", sorted(PRICES), ids=sorted(PRICES))
    def test_worst_case_bounds_input_billed_as_cache_writes(self, model):
        """Input the API bills as cache writes (1.25× input) still costs no more than the bound."""
        usage = TokenUsage(cache_write_tokens=10_000, output_tokens=500)
        bound = worst_case_usd(model, input_tokens=10_000, output_tokens=500)
        assert cost_of(model, usage).usd == pytest.approx(bound)
