"""What a run costs: the price table per model and the cost of a usage count.

Prices are USD per million tokens (MTok) from Anthropic's published pricing
page: base input, 5-minute cache write (1.25 × input), cache read (0.1 × input)
and output. A model id is looked up after removing a date suffix
(`-20250514`), a `-latest` suffix, a Vertex `@version` and Bedrock's forms (an ARN's
path, an inference profile's `us.` / `global.`, `anthropic.`, a `-v1:0` version:
`us.anthropic.claude-sonnet-4-5-20250929-v1:0`); an id that is still
unknown is priced at the most expensive known rate with a note, so a budget can
never be bypassed by a model that costs "0". This module must not call any API.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from reviewbot.agent.messages import TokenUsage

_MTOK = 1_000_000


@dataclass(frozen=True, slots=True, kw_only=True)
class Price:
    input: float
    output: float
    cache_write: float
    cache_read: float


def _price(input_: float, output: float) -> Price:
    return Price(input=input_, output=output, cache_write=input_ * 1.25, cache_read=input_ / 10)


_OPUS_4 = _price(15.0, 75.0)
_OPUS_45 = _price(5.0, 25.0)
_SONNET = _price(3.0, 15.0)
_SONNET_5 = _price(2.0, 10.0)
_FABLE_5 = _price(10.0, 50.0)
# The 5.1/5.5 generation reads its cache below the usual tenth of input (pricing page, 2026).
_FABLE_51 = Price(input=10.0, output=50.0, cache_write=12.5, cache_read=0.25)

PRICES: dict[str, Price] = {
    "claude-fable-5-1": _FABLE_51,
    "claude-mythos-5-1": _FABLE_51,
    "claude-fable-5": _FABLE_5,
    "claude-mythos-5": _FABLE_5,
    "claude-opus-5-5": Price(input=4.0, output=20.0, cache_write=5.0, cache_read=0.20),
    "claude-opus-5": _OPUS_45,
    "claude-sonnet-5-5": _SONNET_5,
    "claude-sonnet-5": _SONNET_5,
    "claude-opus-4-8": _OPUS_45,
    "claude-opus-4-7": _OPUS_45,
    "claude-opus-4-6": _OPUS_45,
    "claude-opus-4-5": _OPUS_45,
    "claude-opus-4-1": _OPUS_4,
    "claude-opus-4-0": _OPUS_4,
    "claude-opus-4": _OPUS_4,
    "claude-sonnet-4-6": _SONNET,
    "claude-sonnet-4-5": _SONNET,
    "claude-sonnet-4-0": _SONNET,
    "claude-sonnet-4": _SONNET,
    "claude-haiku-4-5": _price(1.0, 5.0),
    "claude-3-7-sonnet": _SONNET,
    "claude-3-5-sonnet": _SONNET,
    "claude-3-5-haiku": _price(0.8, 4.0),
    "claude-3-opus": _OPUS_4,
    "claude-3-haiku": Price(input=0.25, output=1.25, cache_write=0.30, cache_read=0.03),
}
_MOST_EXPENSIVE = max(PRICES.values(), key=lambda p: (p.output, p.input))
_SUFFIX = re.compile(r"(@.*|-\d{8}|-latest|-v\d+(:\d+)?)$")
_BEDROCK_PREFIX = re.compile(r"^(arn:[^/]*/)?([a-z]{2,6}\.)?anthropic\.")


@dataclass(frozen=True, slots=True, kw_only=True)
class Cost:
    usd: float
    note: str | None = None  # set when the model's price is not known


def price_of(model: str) -> tuple[Price, str | None]:
    """The model's price, or the most expensive known one and a note saying so."""
    key = _BEDROCK_PREFIX.sub("", model.strip().lower())
    while True:
        stripped = _SUFFIX.sub("", key)
        if stripped == key:
            break
        key = stripped
    known = PRICES.get(key)
    if known is not None:
        return known, None
    note = (
        f"no price known for model {model!r}: cost computed at the most expensive known rate "
        f"(${_MOST_EXPENSIVE.input:g}/${_MOST_EXPENSIVE.output:g} per MTok in/out)"
    )
    return _MOST_EXPENSIVE, note


def cost_of(model: str, usage: TokenUsage) -> Cost:
    price, note = price_of(model)
    usd = (
        usage.input_tokens * price.input
        + usage.output_tokens * price.output
        + usage.cache_write_tokens * price.cache_write
        + usage.cache_read_tokens * price.cache_read
    ) / _MTOK
    return Cost(usd=usd, note=note)


def worst_case_usd(model: str, *, input_tokens: int, output_tokens: int) -> float:
    """An upper bound for one request: every input token at its dearest rate, all output used.

    An input token is billed as plain input, a cache write (1.25 × input) or a cache
    read; which one is the API's choice, so the bound takes the dearest per token.
    """
    price, _ = price_of(model)
    per_input = max(price.input, price.cache_write, price.cache_read)
    return (input_tokens * per_input + output_tokens * price.output) / _MTOK
