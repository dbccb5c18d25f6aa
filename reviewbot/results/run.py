"""What one review run measured, inside the run: why an agent stopped, and its usage.

The loop, the panel and the progress line use these values (what the run saw is
`reviewbot.coverage`); the JSON report (`reviewbot.results.report`) embeds them
unchanged, so they are pydantic models and their docstrings and field descriptions are
part of the report's schema.
This module must not import the report.
"""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class StopReason(StrEnum):
    """Why an agent's loop ended."""

    END_TURN = "end_turn"  # the model ended its turn without tool calls
    FINALIZED = "finalized"  # the model called finalize_review
    MAX_TURNS = "max_turns"
    MAX_INPUT_TOKENS = "max_input_tokens"
    MAX_OUTPUT_TOKENS = "max_output_tokens"
    MAX_COST = "max_cost"
    TIMEOUT = "timeout"
    REFUSAL = "refusal"
    ERROR = "error"
    NO_CREDENTIALS = "no_credentials"  # no ANTHROPIC_API_KEY
    CREDENTIALS_REFUSED = "credentials_refused"  # the Messages API rejected the key
    SKIPPED = "skipped"  # nothing to do (e.g. the verifier with no high-priority nodes)

    @property
    def completed(self) -> bool:
        """Whether the agent ran to a normal end (its axis may pass)."""
        return self in {StopReason.END_TURN, StopReason.FINALIZED, StopReason.SKIPPED}


class Usage(_Model):
    requests: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    estimated_input_tokens: int = Field(
        default=0, description="Local estimate, for comparison with the API's count."
    )
    cost_usd: float = 0.0

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            **{name: getattr(self, name) + getattr(other, name) for name in Usage.model_fields}
        )

    @property
    def total_input_tokens(self) -> int:
        return self.input_tokens + self.cache_read_tokens + self.cache_write_tokens
