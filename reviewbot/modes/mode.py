"""The modes an agent can run in. A name only: every guarantee lives in `profile.py`.

The enum carries no policy on purpose: a mode's tools, denied effects and
required verbs are declared once, in its capability profile, so no layer can read
a different answer off the enum.
"""

from __future__ import annotations

from enum import StrEnum


class Mode(StrEnum):
    CHAT = "chat"
    REVIEW = "review"
    PLAN = "plan"
    ORCHESTRATE = "orchestrate"
