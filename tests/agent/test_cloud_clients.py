"""AnthropicClient.bedrock / .vertex: the SDK's cloud clients against the fake behind each
cloud's endpoint (tests/fakes/cloud_api.py), and their errors as one line each."""

from __future__ import annotations

import sys
from collections.abc import Iterator

import pytest

from reviewbot.agent.client import AnthropicClient
from reviewbot.config.providers import BedrockAccess, VertexAccess
from reviewbot.errors import AuthError, CredentialsRefusedError, ModelNotFoundError, UsageError
from tests.agent.factories import Sleeps, request
from tests.fakes.cloud_api import FakeBedrock, FakeVertex
from tests.fakes.messages_api import FakeMessagesAPI, not_found, reply, text
from tests.fakes.server import LoopbackServer

KEY = "AKIA" + "FAKE" * 4
SECRET = "s" * 40
TOKEN = "ya29." + "G" * 60


@pytest.fixture
def bedrock() -> Iterator[tuple[FakeBedrock, str]]:
    fake = FakeBedrock(api=FakeMessagesAPI(), access_key=KEY, region="eu-west-1")
    with LoopbackServer(fake) as server:
        yield fake, server.url


@pytest.fixture
def vertex() -> Iterator[tuple[FakeVertex, str]]:
    fake = FakeVertex(api=FakeMessagesAPI(), access_token=TOKEN, project="octo", region="global")
    with LoopbackServer(fake) as server:
        yield fake, server.url


MADE: list[AnthropicClient] = []


@pytest.fixture(autouse=True)
def _closed() -> Iterator[None]:
    """Every client a test made is closed after it (no socket outlives the test)."""
    yield
    while MADE:
        MADE.pop().close()


def bedrock_client(url: str, key: str = KEY) -> AnthropicClient:
    access = BedrockAccess(region="eu-west-1", access_key=key, secret_key=SECRET, base_url=url)
    MADE.append(AnthropicClient.bedrock(access, sleep=Sleeps()))
    return MADE[-1]


def vertex_client(url: str, token: str = TOKEN) -> AnthropicClient:
    access = VertexAccess(region="global", project_id="octo", access_token=token, base_url=url)
    MADE.append(AnthropicClient.vertex(access, sleep=Sleeps()))
    return MADE[-1]


class TestBedrock:
    def test_a_request_is_signed_and_names_the_model_in_the_path(self, bedrock):
        """SigV4 with the key and region, POST /model/{bedrock id}/invoke, no `model` in the body."""
        fake, url = bedrock
        fake.api.add(reply(text("ok")))
        response = bedrock_client(url).create(request(model="claude-haiku-4-5"))
        assert [c.path for c in fake.calls] == [
            "/model/anthropic.claude-haiku-4-5-20251001-v1:0/invoke"
        ]
        assert response.content[0].text == "ok"  # type: ignore[union-attr]
        fake.api.verify()

    def test_an_unknown_key_is_refused_in_one_line(self, bedrock):
        """403 UnrecognizedClientException is the credentials themselves: no agent can succeed."""
        _, url = bedrock
        with pytest.raises(
            CredentialsRefusedError, match=r"^Amazon Bedrock rejected the AWS credentials \(403"
        ) as caught:
            bedrock_client(url, key="AKIA" + "OTHER" * 3).create(request())
        assert "\n" not in str(caught.value)
        assert SECRET not in str(caught.value)

    def test_an_unknown_model_names_both_ids(self, bedrock):
        fake, url = bedrock
        fake.api.add(not_found("anthropic.claude-nope"))
        with pytest.raises(
            ModelNotFoundError,
            match=r"model 'claude-nope' \('anthropic.claude-nope'\) was not found on Amazon Bedrock",
        ):
            bedrock_client(url).create(request(model="claude-nope"))


class TestVertex:
    def test_a_request_carries_the_token_and_names_the_model_in_the_path(self, vertex):
        fake, url = vertex
        fake.api.add(reply(text("ok")))
        vertex_client(url).create(request(model="claude-opus-4-1"))
        assert [c.path for c in fake.calls] == [
            "/projects/octo/locations/global/publishers/anthropic/models/claude-opus-4-1@20250805:rawPredict"
        ]
        fake.api.verify()

    def test_a_refused_token_is_one_line(self, vertex):
        _, url = vertex
        with pytest.raises(
            CredentialsRefusedError,
            match=r"^Google Vertex AI rejected the Google Cloud credentials \(401",
        ):
            vertex_client(url, token="ya29." + "X" * 60).create(request())

    def test_a_region_is_required(self):
        with pytest.raises(UsageError, match="needs CLOUD_ML_REGION"):
            AnthropicClient.vertex(VertexAccess(project_id="octo", access_token=TOKEN))

    def test_a_project_is_required(self):
        """An access token names no project: the run stops before any request, saying which."""
        with pytest.raises(
            UsageError, match=r"^REVIEWBOT_PROVIDER=vertex needs ANTHROPIC_VERTEX_PROJECT_ID$"
        ):
            AnthropicClient.vertex(VertexAccess(region="global", access_token=TOKEN))

    def test_unreadable_application_credentials_are_one_auth_line(self, monkeypatch, tmp_path):
        """GOOGLE_APPLICATION_CREDENTIALS naming no file: an AuthError naming both ways to log in."""
        monkeypatch.setenv("GOOGLE_APPLICATION_CREDENTIALS", str(tmp_path / "missing.json"))
        with pytest.raises(AuthError) as caught:
            AnthropicClient.vertex(VertexAccess(region="global", project_id="octo"))
        message = str(caught.value)
        assert message.startswith("REVIEWBOT_PROVIDER=vertex found no Google Cloud credentials")
        assert "GOOGLE_OAUTH_ACCESS_TOKEN" in message
        assert "\n" not in message


class TestBedrockSetup:
    @pytest.fixture(autouse=True)
    def _no_aws_config(self, monkeypatch, tmp_path):
        """No region or credentials anywhere boto3 looks (and never the metadata service)."""
        empty = tmp_path / "aws"
        empty.write_text("")
        for name in ("AWS_REGION", "AWS_DEFAULT_REGION", "AWS_PROFILE", "AWS_ACCESS_KEY_ID"):
            monkeypatch.delenv(name, raising=False)
        monkeypatch.setenv("AWS_CONFIG_FILE", str(empty))
        monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(empty))
        monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")

    def test_a_region_is_required(self):
        """Neither AWS_REGION nor the profile names a region: one line saying what to set."""
        with pytest.raises(UsageError, match=r"^REVIEWBOT_PROVIDER=bedrock needs AWS_REGION"):
            AnthropicClient.bedrock(BedrockAccess(access_key=KEY, secret_key=SECRET))


@pytest.mark.parametrize(
    ("module", "make"),
    [
        ("boto3", lambda: bedrock_client("http://127.0.0.1:9")),
        ("google.auth", lambda: vertex_client("http://127.0.0.1:9")),
    ],
    ids=["bedrock", "vertex"],
)
def test_without_the_extra_one_line_says_what_to_install(monkeypatch, module, make):
    """The plain install has no boto3 / google-auth: choosing that cloud is exit 2 with the pip line."""
    monkeypatch.setitem(sys.modules, module, None)  # `import module` now raises ImportError
    with pytest.raises(UsageError, match=r"pip install 'reviewbot\[(bedrock|vertex)\]'") as caught:
        make()
    assert caught.value.exit_code == 2
