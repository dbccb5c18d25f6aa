"""What the agents of one review share while they run: the budget totals and the order to stop.

Agents run at the same time, so the token and cost budgets are not checked against
what is spent but against what is spent *plus what the requests in flight may still
spend*: before each request an agent reserves its worst case (its estimated input, the
`max_tokens` it asks for, the price of both at the dearest rate), and two agents can
never each take the whole budget. When a reservation does not fit only because of
another agent's request in flight, the agent waits for that answer (reservations are
usually far above what a request costs) instead of stopping early; when it does not
fit what is spent alone, it is refused at once. The answer settles the reservation
with the real usage; a failed request releases it.

`halt` stops every agent at its next request (a rejected key, Ctrl-C): what they
recorded is kept. The ledger counts; it never decides a verdict, and its totals are
not the report's (the panel adds the agents' usage in configured order, so the sum of
floats is the same whichever agent finished first).
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from reviewbot.agent import pricing
from reviewbot.results.run import StopReason, Usage

MIN_RESPONSE_TOKENS = 256


@dataclass(frozen=True, slots=True, kw_only=True)
class Totals:
    """The run-wide bounds the ledger enforces (from `[budget]`)."""

    max_input_tokens: int
    max_output_tokens: int
    max_cost_usd: float
    response_max_tokens: int


@dataclass(frozen=True, slots=True, kw_only=True)
class Reservation:
    """A request's worst case, held until its answer settles it."""

    input_tokens: int
    output_tokens: int  # the request's max_tokens
    cost_usd: float


@dataclass(frozen=True, slots=True, kw_only=True)
class Refusal:
    reason: StopReason
    error: str


class Ledger:
    """Thread-safe: every method takes the one lock."""

    def __init__(
        self,
        totals: Totals,
        *,
        spent: Usage | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._totals = totals
        self._spent = spent or Usage()
        self._held: list[Reservation] = []
        self._halted: Refusal | None = None
        self._changed = threading.Condition()
        self._clock = clock

    @property
    def spent(self) -> Usage:
        with self._changed:
            return self._spent

    @property
    def halted(self) -> Refusal | None:
        with self._changed:
            return self._halted

    def halt(self, reason: StopReason, error: str) -> None:
        """Stop every agent before its next request; the first reason given stands."""
        with self._changed:
            self._halted = self._halted or Refusal(reason=reason, error=error)
            self._changed.notify_all()

    def reserve(
        self, model: str, *, estimate: int, until: float = math.inf
    ) -> Reservation | Refusal:
        """Hold this request's worst case, or say which budget it would pass.

        Waits (at most until the clock reads `until`) while only the reservations of
        requests in flight stand in the way.
        """
        with self._changed:
            while True:
                if self._halted is not None:
                    return self._halted
                wanted = self._worst(model, estimate, held=self._held)
                if isinstance(wanted, Reservation):
                    self._held.append(wanted)
                    return wanted
                alone = self._worst(model, estimate, held=[])
                left = until - self._clock()
                if isinstance(alone, Refusal) or not self._held or left <= 0:
                    return wanted
                self._changed.wait(timeout=None if math.isinf(left) else left)

    def settle(self, reservation: Reservation, usage: Usage) -> None:
        """The answer came: the real usage replaces the worst case."""
        with self._changed:
            self._held.remove(reservation)
            self._spent = self._spent + usage
            self._changed.notify_all()

    def release(self, reservation: Reservation) -> None:
        """The request failed: nothing is known to be spent (the API bills answers)."""
        with self._changed:
            self._held.remove(reservation)
            self._changed.notify_all()

    def _worst(
        self, model: str, estimate: int, *, held: list[Reservation]
    ) -> Reservation | Refusal:
        totals, spent = self._totals, self._spent
        held_in = sum(r.input_tokens for r in held)
        held_out = sum(r.output_tokens for r in held)
        held_usd = sum(r.cost_usd for r in held)
        max_tokens = min(
            totals.response_max_tokens, totals.max_output_tokens - spent.output_tokens - held_out
        )
        if max_tokens < MIN_RESPONSE_TOKENS:
            return Refusal(
                reason=StopReason.MAX_OUTPUT_TOKENS,
                error=f"output token budget ({totals.max_output_tokens:,}) used up",
            )
        used_in = spent.total_input_tokens + held_in
        if used_in + estimate > totals.max_input_tokens:
            return Refusal(
                reason=StopReason.MAX_INPUT_TOKENS,
                error=f"the next request (~{estimate:,} tokens) would pass the input token budget "
                f"({totals.max_input_tokens:,}; {used_in:,} used)",
            )
        worst = pricing.worst_case_usd(model, input_tokens=estimate, output_tokens=max_tokens)
        used_usd = spent.cost_usd + held_usd
        if used_usd + worst > totals.max_cost_usd:
            return Refusal(
                reason=StopReason.MAX_COST,
                error=f"the next request (up to ${worst:.2f}) could pass the cost budget "
                f"(${totals.max_cost_usd:.2f}; ${used_usd:.2f} spent)",
            )
        return Reservation(input_tokens=estimate, output_tokens=max_tokens, cost_usd=worst)
