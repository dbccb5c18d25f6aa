"""Claude through Amazon Bedrock and Google Vertex AI, end to end through the CLI.

The fake Messages API is served behind each cloud's endpoint (tests/fakes/cloud_api.py) and
reached through the SDK's own `AnthropicBedrock` / `AnthropicVertex`, with fake credentials:
static AWS keys in the environment (as aws-actions/configure-aws-credentials exports them),
a Google access token. The runs start together, one world each. An unreachable cloud (exit 5, after the real
retries) is in tests/reliability/test_faults.py, whose clients record the waits instead.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import ExitStack
from dataclasses import dataclass

import pytest

from tests.fakes.cloud_api import FakeBedrock, FakeVertex
from tests.fakes.messages_api import reply, text
from tests.fakes.runs import Run
from tests.fakes.server import LoopbackServer
from tests.fakes.webhooks import pull_request_event
from tests.fakes.world import World

BASE = {"app.py": "def total(items):\n    return sum(items)\n"}
HEAD = {"app.py": "def total(items):\n    return sum(items) + 0\n"}
# A dated model: Vertex names it claude-sonnet-4-5@20250929 (the default model has no date).
DATED = {**BASE, ".reviewbot.toml": 'model = "claude-sonnet-4-5"\n'}
ARGS = ["review", "--github-event", "--post"]
# Fake credentials with the real shapes, built by concatenation (no key-like literal).
AWS_KEY = "AKIA" + "FAKE" * 4
AWS_SECRET = "s" * 40
AWS_TOKEN = "IQoJb3JpZ2lu" + "T" * 40
GOOGLE_TOKEN = "ya29." + "G" * 60
REGION = "us-east-1"
PROJECT = "octo-reviews"
VERTEX_REGION = "us-east5"
# No credentials from this machine: no ~/.aws, no instance metadata, no gcloud, no GCE.
ISOLATED = {"AWS_EC2_METADATA_DISABLED": "true", "NO_GCE_CHECK": "true"}


MARKER_KEY = "a-marker-key-for-the-cloud-runs"  # no Anthropic key to seal with


def clean_review() -> list:
    return [reply(text("Nothing to report: the change is harmless."))]


def bedrock_env(url: str, **extra: str) -> dict[str, str]:
    return {
        **ISOLATED,
        "REVIEWBOT_PROVIDER": "bedrock",
        "REVIEWBOT_MARKER_KEY": MARKER_KEY,
        "ANTHROPIC_BEDROCK_BASE_URL": url,
        "AWS_REGION": REGION,
        "AWS_ACCESS_KEY_ID": AWS_KEY,
        "AWS_SECRET_ACCESS_KEY": AWS_SECRET,
        "AWS_SESSION_TOKEN": AWS_TOKEN,
        **extra,
    }


def vertex_env(url: str, **extra: str) -> dict[str, str]:
    return {
        **ISOLATED,
        "REVIEWBOT_PROVIDER": "vertex",
        "REVIEWBOT_MARKER_KEY": MARKER_KEY,
        "ANTHROPIC_VERTEX_BASE_URL": url,
        "CLOUD_ML_REGION": VERTEX_REGION,
        "ANTHROPIC_VERTEX_PROJECT_ID": PROJECT,
        "GOOGLE_OAUTH_ACCESS_TOKEN": GOOGLE_TOKEN,
        **extra,
    }


@dataclass(frozen=True, slots=True, kw_only=True)
class Runs:
    bedrock: Run
    bedrock_fake: FakeBedrock
    vertex: Run
    vertex_fake: FakeVertex
    no_aws: Run
    no_google: Run
    refused: Run  # Bedrock refuses the access key
    refused_world: World
    ambiguous: Run  # an Anthropic key is set too: the provider still decides
    ambiguous_world: World
    unknown: Run  # REVIEWBOT_PROVIDER=azure
    unsealed: Run  # Bedrock with no marker key


@pytest.fixture(scope="module")
def runs(worlds) -> Iterator[Runs]:
    with ExitStack() as stack:

        def serve(handler) -> str:
            return stack.enter_context(LoopbackServer(handler)).url

        def start(world: World, env: Mapping[str, str], *, anthropic: bool = False):
            event = pull_request_event(world)
            return world.start(
                ARGS, event_name="pull_request", event=event, anthropic=anthropic, extra_env=env
            )

        bedrock_world = worlds("bedrock", base=BASE, head=HEAD, script=clean_review())
        bedrock = FakeBedrock(
            api=bedrock_world.model, access_key=AWS_KEY, region=REGION, session_token=AWS_TOKEN
        )
        vertex_world = worlds("vertex", base=DATED, head=HEAD, script=clean_review())
        vertex = FakeVertex(
            api=vertex_world.model, access_token=GOOGLE_TOKEN, project=PROJECT, region=VERTEX_REGION
        )
        refused_world = worlds("refused", base=BASE, head=HEAD)
        refused = FakeBedrock(
            api=refused_world.model, access_key="AKIA" + "OTHER" * 3, region=REGION
        )
        ambiguous_world = worlds("ambiguous", base=BASE, head=HEAD, script=clean_review())
        ambiguous = FakeBedrock(
            api=ambiguous_world.model, access_key=AWS_KEY, region=REGION, session_token=AWS_TOKEN
        )
        no_aws = {k: v for k, v in bedrock_env("http://127.0.0.1:9").items() if "AWS_" not in k}
        unsealed_world = worlds("unsealed", base=BASE, head=HEAD)
        unsealed_fake = FakeBedrock(
            api=unsealed_world.model, access_key=AWS_KEY, region=REGION, session_token=AWS_TOKEN
        )
        unsealed = bedrock_env(serve(unsealed_fake))
        del unsealed["REVIEWBOT_MARKER_KEY"]
        no_google = vertex_env("http://127.0.0.1:9")
        del no_google["GOOGLE_OAUTH_ACCESS_TOKEN"]
        pending = [
            start(bedrock_world, bedrock_env(serve(bedrock))),
            start(vertex_world, vertex_env(serve(vertex))),
            start(worlds("no-aws", base=BASE, head=HEAD), {**no_aws, "AWS_REGION": REGION}),
            start(worlds("no-google", base=BASE, head=HEAD), no_google),
            start(refused_world, bedrock_env(serve(refused), AWS_SESSION_TOKEN="")),
            start(ambiguous_world, bedrock_env(serve(ambiguous)), anthropic=True),
            start(worlds("unknown", base=BASE, head=HEAD), {"REVIEWBOT_PROVIDER": "azure"}),
            start(unsealed_world, unsealed),
        ]
        done = [p.wait() for p in pending]
        yield Runs(
            bedrock=done[0],
            bedrock_fake=bedrock,
            vertex=done[1],
            vertex_fake=vertex,
            no_aws=done[2],
            no_google=done[3],
            refused=done[4],
            refused_world=refused_world,
            ambiguous=done[5],
            ambiguous_world=ambiguous_world,
            unknown=done[6],
            unsealed=done[7],
        )


def errors(run: Run) -> list[str]:
    return [line for line in run.stderr.splitlines() if line.startswith("reviewbot: error:")]


class TestBedrock:
    def test_the_review_completes_through_bedrock(self, runs):
        """The Action run exits 0 with a published verdict, the model reached via Bedrock."""
        run = runs.bedrock
        assert run.returncode == 0, run.stderr
        assert run.outputs["verdict"] == "ship"
        assert run.report()["agents"][0]["stop_reason"] == "end_turn"

    def test_requests_name_the_bedrock_model_id_in_the_path(self, runs):
        """POST /model/anthropic.claude-sonnet-5/invoke, the body without `model`."""
        calls = runs.bedrock_fake.calls
        assert [c.path for c in calls] == ["/model/anthropic.claude-sonnet-5/invoke"]
        assert calls[0].body["anthropic_version"] == "bedrock-2023-05-31"
        assert "model" not in calls[0].body
        assert calls[0].headers["x-amz-security-token"] == AWS_TOKEN

    def test_the_provider_decides_even_with_an_anthropic_key(self, runs):
        """REVIEWBOT_PROVIDER=bedrock with ANTHROPIC_API_KEY also set: Bedrock is used."""
        run = runs.ambiguous
        assert run.returncode == 0, run.stderr
        assert run.outputs["verdict"] == "ship"
        assert len(run.model) == 1
        assert runs.ambiguous_world.model_server.snapshot() == ()  # Anthropic's API: no request

    def test_refused_credentials_exit_3_after_the_hold(self, runs):
        """A key Bedrock does not know: the Hold is published, then exit 3 in one line."""
        run = runs.refused
        assert run.returncode == 3, run.stderr
        assert run.outputs["verdict"] == "hold"
        [line] = errors(run)
        assert "Amazon Bedrock rejected the AWS credentials" in line
        assert AWS_SECRET not in run.stderr


class TestVertex:
    def test_the_review_completes_through_vertex(self, runs):
        run = runs.vertex
        assert run.returncode == 0, run.stderr
        assert run.outputs["verdict"] == "ship"

    def test_requests_name_the_vertex_model_id_in_the_path(self, runs):
        """The configured claude-sonnet-4-5 becomes claude-sonnet-4-5@20250929 in the path."""
        calls = runs.vertex_fake.calls
        assert [c.path for c in calls] == [
            f"/projects/{PROJECT}/locations/{VERTEX_REGION}/publishers/anthropic/models/"
            "claude-sonnet-4-5@20250929:rawPredict"
        ]
        assert calls[0].body["anthropic_version"] == "vertex-2023-10-16"
        assert "model" not in calls[0].body

    def test_the_report_prices_the_model(self, runs):
        """The cost table knows the model: no "no price known" note."""
        agents = runs.vertex.report()["agents"]
        assert not any("no price known" in note for a in agents for note in a["notes"])


class TestMissingCredentials:
    @pytest.mark.parametrize(
        ("name", "says"),
        [
            ("no_aws", "REVIEWBOT_PROVIDER=bedrock found no AWS credentials"),
            ("no_google", "REVIEWBOT_PROVIDER=vertex found no Google Cloud credentials"),
        ],
    )
    def test_one_line_and_exit_3_before_any_request(self, runs, name, says):
        """The chosen cloud without credentials: exit 3 with one line, no model request."""
        run = getattr(runs, name)
        assert run.returncode == 3, run.stderr
        [line] = errors(run)
        assert says in line
        assert run.model == ()
        assert "Traceback" not in run.stderr

    def test_an_unknown_provider_is_a_usage_error(self, runs):
        """REVIEWBOT_PROVIDER=azure: exit 2 with the names it accepts, no model request."""
        run = runs.unknown
        assert run.returncode == 2, run.stderr
        [line] = errors(run)
        assert "REVIEWBOT_PROVIDER is 'azure': it must be one of anthropic, bedrock, vertex" in line
        assert run.model == ()

    def test_a_cloud_without_a_marker_key_is_refused_before_any_request(self, runs):
        """No Anthropic key to seal with: a run could not recognise its own comments and would
        post every finding again on each push. Exit 2 with what to set, no model request."""
        run = runs.unsealed
        assert run.returncode == 2, run.stderr
        [line] = errors(run)
        assert "set REVIEWBOT_MARKER_KEY (the Action's `marker-key`)" in line
        assert run.model == ()
        assert run.writes() == []
