"""How many tokens a text is estimated to cost, without asking the API.

One token per 3.5 characters: Claude's tokenizer averages about 3.5 characters per token
on source code and a little more on English prose, so this errs high. It lives at the
foundation, below the sources and the agents, so a source that bounds what it reads by
tokens (the guidelines) counts as the context packer and the loop do
(reviewbot/agent/tokens.py prices whole requests).
"""

from __future__ import annotations

import math

CHARS_PER_TOKEN = 3.5


def estimate_text(text: str) -> int:
    return math.ceil(len(text) / CHARS_PER_TOKEN)
