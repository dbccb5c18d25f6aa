"""Model ids per provider: the config's name becomes the id Bedrock or Vertex expects."""

from __future__ import annotations

import pytest

from reviewbot.agent.pricing import price_of
from reviewbot.config.providers import Provider, model_id
from reviewbot.config.settings import Settings

CASES = [
    # (model as configured, Bedrock id, Vertex id)
    ("claude-sonnet-5", "anthropic.claude-sonnet-5", "claude-sonnet-5"),
    (
        "claude-sonnet-4-5",
        "anthropic.claude-sonnet-4-5-20250929-v1:0",
        "claude-sonnet-4-5@20250929",
    ),
    (
        "claude-sonnet-4-5-20250929",
        "anthropic.claude-sonnet-4-5-20250929-v1:0",
        "claude-sonnet-4-5@20250929",
    ),
    ("claude-opus-4-1", "anthropic.claude-opus-4-1-20250805-v1:0", "claude-opus-4-1@20250805"),
    ("claude-haiku-4-5", "anthropic.claude-haiku-4-5-20251001-v1:0", "claude-haiku-4-5@20251001"),
    ("claude-opus-4-6", "anthropic.claude-opus-4-6-v1", "claude-opus-4-6"),
    # Already in the cloud's form: as given.
    (
        "us.anthropic.claude-sonnet-4-5-20250929-v1:0",
        "us.anthropic.claude-sonnet-4-5-20250929-v1:0",
        "us.anthropic.claude-sonnet-4-5-20250929-v1:0",
    ),
]


@pytest.mark.parametrize(("model", "bedrock", "vertex"), CASES, ids=[c[0] for c in CASES])
class TestModelIds:
    def test_each_cloud_gets_its_own_id(self, model, bedrock, vertex):
        """Anthropic's API takes the name as is; Bedrock and Vertex their own forms."""
        assert model_id(Provider.ANTHROPIC, model) == model
        assert model_id(Provider.BEDROCK, model) == bedrock
        assert model_id(Provider.VERTEX, model) == vertex

    def test_the_cost_table_knows_every_form(self, model, bedrock, vertex):
        """Whatever form reaches the loop or the report, it is priced as its family."""
        expected, note = price_of(model)
        assert note is None
        assert price_of(bedrock) == (expected, None)
        assert price_of(vertex) == (expected, None)


def test_a_bedrock_arn_is_priced_as_its_model():
    """An inference-profile ARN (how some accounts must call Bedrock) keeps its family's price."""
    arn = (
        "arn:aws:bedrock:eu-west-1:123456789012:inference-profile/"
        "eu.anthropic.claude-haiku-4-5-20251001-v1:0"
    )
    assert model_id(Provider.BEDROCK, arn) == arn
    assert price_of(arn) == price_of("claude-haiku-4-5")


def test_settings_read_the_clouds_standard_environment():
    """REVIEWBOT_PROVIDER picks; each cloud's access comes from its SDK's own variables."""
    env = {
        "REVIEWBOT_PROVIDER": "Bedrock",
        "AWS_DEFAULT_REGION": "eu-west-1",
        "AWS_ACCESS_KEY_ID": "AKIA" + "X" * 16,
        "AWS_SECRET_ACCESS_KEY": "s" * 40,
        "CLOUD_ML_REGION": "global",
        "ANTHROPIC_VERTEX_PROJECT_ID": "octo",
        "GOOGLE_OAUTH_ACCESS_TOKEN": "ya29." + "t" * 40,
    }
    settings = Settings.from_environ(env)
    assert settings.provider == "bedrock"
    assert (settings.bedrock.region, settings.bedrock.access_key) == (
        "eu-west-1",
        "AKIA" + "X" * 16,
    )
    assert (settings.vertex.region, settings.vertex.project_id) == ("global", "octo")
    # The secrets are masked in every log line and report.
    masked = settings.redactor(f"{'s' * 40} {'ya29.' + 't' * 40}")
    assert "s" * 40 not in masked
    assert "t" * 40 not in masked
