"""The verdict lattice `Ship < Hold < Block`, folded by `max`.

There is deliberately no operation that lowers a verdict: `strictest` is the only
way to combine them, and it can only go up.
"""

from __future__ import annotations

from collections.abc import Iterable
from enum import IntEnum
from typing import Literal, cast

Label = Literal["ship", "hold", "block"]


class Verdict(IntEnum):
    SHIP = 0
    HOLD = 1
    BLOCK = 2

    @property
    def label(self) -> Label:
        """The lower-case name used in the JSON report and the Action output."""
        return cast(Label, self.name.lower())

    @classmethod
    def parse(cls, text: str) -> Verdict:
        """`ship` / `Hold` / `BLOCK` → Verdict; ValueError names the choices otherwise."""
        try:
            return cls[text.strip().upper()]
        except KeyError:
            raise ValueError(f"verdict must be ship, hold or block (got {text!r})") from None


def strictest(verdicts: Iterable[Verdict], floor: Verdict = Verdict.SHIP) -> Verdict:
    """The fold: the maximum of `verdicts`, never below `floor`."""
    return max((floor, *verdicts))
