"""The server's settings, read from the environment once and checked before it listens.

Everything the CLI reads (the model provider and key, REVIEWBOT_MARKER_KEY, GITHUB_API_URL)
comes through `reviewbot.config.settings.Settings`; this adds the App's identity, the webhook
secret, the queue and the limits. A missing or malformed value is one `UsageError` line.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from reviewbot.config.settings import Settings
from reviewbot.errors import UsageError

PUBLIC_API = "https://api.github.com"
MAX_BODY = 25 * 1024 * 1024  # GitHub caps webhook payloads at 25 MB
QUEUE_SCHEMES = ("postgresql://", "postgres://")


@dataclass(frozen=True, slots=True, kw_only=True)
class ServeConfig:
    app_id: int
    private_key: str = field(repr=False)
    webhook_secret: bytes = field(repr=False)
    queue_url: str | None  # None: the private cluster in `state_dir`
    state_dir: Path
    api_url: str
    max_body: int = MAX_BODY
    max_reviews: int = 8  # running reviews across every worker and machine
    max_per_installation: int = 4  # ... of one installation (one organisation)
    worker_concurrency: int = 2  # reviews one worker process runs at once
    shutdown_grace: float = 600.0  # seconds a running review may take to finish on SIGTERM
    heartbeat: float = 10.0  # seconds between a worker's heartbeats; 3 missed: its jobs rerun
    bot_login: str | None = None  # REVIEWBOT_BOT_LOGIN, else asked from GET /app
    review: Settings = field(default_factory=Settings, repr=False)

    @classmethod
    def from_environ(cls, env: Mapping[str, str]) -> ServeConfig:
        def text(name: str) -> str | None:
            value = env.get(name, "").strip()
            return value or None

        review = Settings.from_environ(env)
        if review.github_token is not None:
            raise UsageError(
                "reviewbot serve authenticates as a GitHub App: unset GITHUB_TOKEN / GH_TOKEN"
            )
        queue_url = text("REVIEWBOT_QUEUE_URL")
        if queue_url is not None and not queue_url.startswith(QUEUE_SCHEMES):
            raise UsageError("REVIEWBOT_QUEUE_URL must be a postgresql:// URL")
        state = text("REVIEWBOT_STATE_DIR")
        return cls(
            app_id=_positive(env, "REVIEWBOT_APP_ID", required=True),
            private_key=_private_key(env),
            webhook_secret=_required(env, "REVIEWBOT_WEBHOOK_SECRET").encode("utf-8"),
            queue_url=queue_url,
            state_dir=Path(state) if state else _default_state(env),
            api_url=(review.github_api_url or PUBLIC_API).rstrip("/"),
            max_body=_positive(env, "REVIEWBOT_MAX_BODY", default=MAX_BODY),
            max_reviews=_positive(env, "REVIEWBOT_MAX_REVIEWS", default=8),
            max_per_installation=_positive(
                env, "REVIEWBOT_MAX_REVIEWS_PER_INSTALLATION", default=4
            ),
            worker_concurrency=_positive(env, "REVIEWBOT_WORKER_CONCURRENCY", default=2),
            shutdown_grace=float(_positive(env, "REVIEWBOT_SHUTDOWN_GRACE", default=600)),
            heartbeat=float(_positive(env, "REVIEWBOT_HEARTBEAT", default=10)),
            bot_login=review.bot_login,
            review=review,
        )


def _required(env: Mapping[str, str], name: str) -> str:
    value = env.get(name, "").strip()
    if not value:
        raise UsageError(f"reviewbot serve needs {name}")
    return value


def _positive(
    env: Mapping[str, str], name: str, *, default: int = 0, required: bool = False
) -> int:
    raw = _required(env, name) if required else env.get(name, "").strip()
    if not raw:
        return default
    if not raw.isdigit() or int(raw) < 1:
        raise UsageError(f"{name} must be a positive whole number, not {raw!r}")
    return int(raw)


def _private_key(env: Mapping[str, str]) -> str:
    """The App's PEM key, from REVIEWBOT_APP_PRIVATE_KEY or the file REVIEWBOT_APP_PRIVATE_KEY_FILE."""
    inline = env.get("REVIEWBOT_APP_PRIVATE_KEY", "").strip()
    path = env.get("REVIEWBOT_APP_PRIVATE_KEY_FILE", "").strip()
    if inline and path:
        raise UsageError(
            "set REVIEWBOT_APP_PRIVATE_KEY or REVIEWBOT_APP_PRIVATE_KEY_FILE, not both"
        )
    if path:
        try:
            inline = Path(path).read_text(encoding="utf-8").strip()
        except (OSError, UnicodeDecodeError) as exc:
            raise UsageError(f"cannot read REVIEWBOT_APP_PRIVATE_KEY_FILE {path}: {exc}") from exc
    if not inline:
        raise UsageError(
            "reviewbot serve needs REVIEWBOT_APP_PRIVATE_KEY or _FILE (the App's PEM key)"
        )
    if not (inline.startswith("-----BEGIN") and "PRIVATE KEY-----" in inline):
        raise UsageError(
            "the App's private key is not a PEM private key (-----BEGIN … PRIVATE KEY-----)"
        )
    return inline + "\n"


def _default_state(env: Mapping[str, str]) -> Path:
    base = env.get("XDG_STATE_HOME", "").strip() or os.path.join(
        env.get("HOME", "."), ".local", "state"
    )
    return Path(base) / "reviewbot"
