"""Run settings from the environment: the one place that reads environment variables.

Everything else receives these values as arguments (no layer reads the
environment itself). Secrets are kept here only to hand them to the clients and the Redactor.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from reviewbot.config.providers import BedrockAccess, VertexAccess
from reviewbot.redact import Redactor


@dataclass(frozen=True, slots=True, kw_only=True)
class Settings:
    anthropic_api_key: str | None = field(default=None, repr=False)
    anthropic_base_url: str | None = None
    # REVIEWBOT_PROVIDER: anthropic (default), bedrock or vertex; checked when the client is made.
    provider: str = "anthropic"
    bedrock: BedrockAccess = field(default_factory=BedrockAccess)
    vertex: VertexAccess = field(default_factory=VertexAccess)
    github_token: str | None = field(default=None, repr=False)
    github_api_url: str | None = None  # GITHUB_API_URL: GitHub Enterprise, or a test fake
    github_server_url: str | None = None
    repository: str | None = None  # GITHUB_REPOSITORY, as given: checked, never trimmed
    in_actions: bool = False
    event_name: str | None = None
    event_path: Path | None = None
    workspace: Path | None = None
    output_file: Path | None = None  # GITHUB_OUTPUT: where the Action's outputs go
    step_summary: Path | None = None
    runner_temp: Path | None = None
    run_id: str | None = None  # GITHUB_RUN_ID: this workflow run's check runs never count for CI
    bot_login: str | None = (
        None  # REVIEWBOT_BOT_LOGIN: the account reviewbot posts as (GitHub Apps)
    )
    # REVIEWBOT_MARKER_KEY: the secret reviewbot seals its comments with (see memory/seal.py).
    marker_key: str | None = field(default=None, repr=False)
    redactor: Redactor = field(default_factory=Redactor, repr=False)

    @classmethod
    def from_environ(cls, env: Mapping[str, str]) -> Settings:
        def text(name: str) -> str | None:
            value = env.get(name, "").strip()
            return value or None

        def path(name: str) -> Path | None:
            value = text(name)
            return Path(value) if value else None

        token = text("GITHUB_TOKEN") or text("GH_TOKEN")
        key = text("ANTHROPIC_API_KEY")
        marker_key = text("REVIEWBOT_MARKER_KEY")
        bedrock = BedrockAccess(
            region=text("AWS_REGION") or text("AWS_DEFAULT_REGION"),
            access_key=text("AWS_ACCESS_KEY_ID"),
            secret_key=text("AWS_SECRET_ACCESS_KEY"),
            session_token=text("AWS_SESSION_TOKEN"),
            profile=text("AWS_PROFILE"),
            base_url=text("ANTHROPIC_BEDROCK_BASE_URL"),
        )
        vertex = VertexAccess(
            region=text("CLOUD_ML_REGION"),
            project_id=text("ANTHROPIC_VERTEX_PROJECT_ID"),
            access_token=text("GOOGLE_OAUTH_ACCESS_TOKEN"),
            base_url=text("ANTHROPIC_VERTEX_BASE_URL"),
        )
        secrets = (token, key, marker_key, bedrock.secret_key, bedrock.session_token)
        return cls(
            anthropic_api_key=key,
            anthropic_base_url=text("ANTHROPIC_BASE_URL"),
            provider=(text("REVIEWBOT_PROVIDER") or "anthropic").lower(),
            bedrock=bedrock,
            vertex=vertex,
            github_token=token,
            github_api_url=text("GITHUB_API_URL"),
            github_server_url=text("GITHUB_SERVER_URL"),
            repository=env.get("GITHUB_REPOSITORY") or None,
            in_actions=env.get("GITHUB_ACTIONS") == "true",
            event_name=text("GITHUB_EVENT_NAME"),
            event_path=path("GITHUB_EVENT_PATH"),
            workspace=path("GITHUB_WORKSPACE"),
            output_file=path("GITHUB_OUTPUT"),
            step_summary=path("GITHUB_STEP_SUMMARY"),
            runner_temp=path("RUNNER_TEMP"),
            run_id=text("GITHUB_RUN_ID"),
            bot_login=text("REVIEWBOT_BOT_LOGIN"),
            marker_key=marker_key,
            redactor=Redactor.from_environ(
                env, extra=[v for v in (*secrets, vertex.access_token) if v]
            ),
        )

    @property
    def seal_secret(self) -> str | None:
        """What reviewbot's comments are sealed with: the marker key, else the model key."""
        return self.marker_key or self.anthropic_api_key
