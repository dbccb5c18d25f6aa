"""Where Claude is reached: Anthropic's API, Amazon Bedrock or Google Vertex AI.

One rule picks it: `REVIEWBOT_PROVIDER` = `anthropic` (the default), `bedrock` or `vertex`
(the Action's `provider` input sets it). Each cloud's access comes from its own standard
environment (read by `reviewbot.config.settings`), and a model named as in `.reviewbot.toml`
(`claude-sonnet-5`, `claude-sonnet-4-5-20250929`) becomes the id that cloud expects:

    anthropic  claude-sonnet-4-5           (as given)
    bedrock    anthropic.claude-sonnet-4-5-20250929-v1:0
    vertex     claude-sonnet-4-5@20250929

An id already in the cloud's form (a Bedrock `anthropic.…`, an inference profile
`us.anthropic.…` / `global.anthropic.…`, an ARN; a Vertex `…@date`) is used as given.
Stdlib only: the settings import it at start-up.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from enum import StrEnum

from reviewbot.errors import UsageError


class Provider(StrEnum):
    ANTHROPIC = "anthropic"
    BEDROCK = "bedrock"
    VERTEX = "vertex"

    @property
    def service(self) -> str:
        return _SERVICES[self]

    @classmethod
    def named(cls, name: str) -> Provider:
        """REVIEWBOT_PROVIDER's value as a provider; anything else is a usage error."""
        try:
            return cls(name)
        except ValueError:
            names = ", ".join(p.value for p in cls)
            raise UsageError(f"REVIEWBOT_PROVIDER is {name!r}: it must be one of {names}") from None


_SERVICES = {
    Provider.ANTHROPIC: "Anthropic",
    Provider.BEDROCK: "Amazon Bedrock",
    Provider.VERTEX: "Google Vertex AI",
}


@dataclass(frozen=True, slots=True, kw_only=True)
class BedrockAccess:
    """AWS: static keys (what aws-actions/configure-aws-credentials exports), else a profile
    or boto3's own chain (web identity, SSO, instance roles)."""

    region: str | None = None
    access_key: str | None = field(default=None, repr=False)
    secret_key: str | None = field(default=None, repr=False)
    session_token: str | None = field(default=None, repr=False)
    profile: str | None = None
    base_url: str | None = None  # ANTHROPIC_BEDROCK_BASE_URL: a VPC endpoint, or a test fake


@dataclass(frozen=True, slots=True, kw_only=True)
class VertexAccess:
    """Google Cloud: an access token, else Application Default Credentials (the file
    google-github-actions/auth writes)."""

    region: str | None = None
    project_id: str | None = None
    access_token: str | None = field(default=None, repr=False)
    base_url: str | None = None  # ANTHROPIC_VERTEX_BASE_URL


# The alias → dated id of the models whose cloud ids carry a date (the newer ones do not).
_DATED = {
    "claude-opus-4-5": "claude-opus-4-5-20251101",
    "claude-haiku-4-5": "claude-haiku-4-5-20251001",
    "claude-sonnet-4-5": "claude-sonnet-4-5-20250929",
    "claude-opus-4-1": "claude-opus-4-1-20250805",
    "claude-opus-4-0": "claude-opus-4-20250514",
    "claude-opus-4": "claude-opus-4-20250514",
    "claude-sonnet-4-0": "claude-sonnet-4-20250514",
    "claude-sonnet-4": "claude-sonnet-4-20250514",
    "claude-3-7-sonnet": "claude-3-7-sonnet-20250219",
    "claude-3-5-haiku": "claude-3-5-haiku-20241022",
    "claude-3-haiku": "claude-3-haiku-20240307",
}
# Bedrock ids that follow neither form (AWS's model catalogue).
_BEDROCK = {"claude-opus-4-6": "anthropic.claude-opus-4-6-v1"}
_DATE = re.compile(r"^(?P<name>.+)-(?P<date>\d{8})$")
_BEDROCK_FORM = re.compile(r"^(arn:|([a-z]{2,6}\.)?anthropic\.)")


def model_id(provider: Provider, model: str) -> str:
    """The id `provider` knows `model` by."""
    if provider is Provider.ANTHROPIC:
        return model
    if provider is Provider.BEDROCK:
        if _BEDROCK_FORM.match(model):
            return model
        if model in _BEDROCK:
            return _BEDROCK[model]
        dated = _DATED.get(model, model)
        return f"anthropic.{dated}-v1:0" if _DATE.match(dated) else f"anthropic.{dated}"
    if "@" in model:
        return model
    parts = _DATE.match(_DATED.get(model, model))
    return f"{parts['name']}@{parts['date']}" if parts else model
