"""Secret redaction and the environment reader."""

from __future__ import annotations

from pathlib import Path

from reviewbot.config.settings import Settings
from reviewbot.redact import MASK, Redactor

FAKE_GH = "ghs_" + "A1b2C3d4E5f6G7h8I9j0" * 2
FAKE_KEY = "sk-ant-api03-" + "x" * 40


class TestRedactor:
    def test_masks_secret_values_from_the_environment(self):
        """A value whose variable name says secret is masked wherever it appears."""
        redact = Redactor.from_environ(
            {"MY_SERVICE_PASSWORD": "hunter2hunter2", "HOME": "/root/home/dir"}
        )
        assert redact("pw=hunter2hunter2 home=/root/home/dir") == f"pw={MASK} home=/root/home/dir"

    def test_masks_token_shapes_from_anywhere(self):
        """A token pasted into a PR is masked by its shape even if it is not ours."""
        text = f"leak {FAKE_GH} and {FAKE_KEY} and github_pat_{'a' * 30}"
        assert Redactor()(text) == f"leak {MASK} and {MASK} and {MASK}"

    def test_short_values_are_not_treated_as_secrets(self):
        """A 3-character 'token' would mask ordinary words; it is ignored."""
        assert Redactor.from_environ({"TOKEN": "abc"})("abc def") == "abc def"

    def test_longest_secret_first(self):
        """A secret containing another is masked whole."""
        redact = Redactor.of(["abcdefgh", "abcdefgh-ijkl"])
        assert redact("x abcdefgh-ijkl y") == f"x {MASK} y"


class TestSettings:
    def test_reads_the_actions_environment(self):
        """GITHUB_* and ANTHROPIC_* variables become typed settings; GH_TOKEN is a fallback."""
        env = {
            "GH_TOKEN": FAKE_GH,
            "ANTHROPIC_API_KEY": FAKE_KEY,
            "GITHUB_ACTIONS": "true",
            "GITHUB_EVENT_NAME": "pull_request",
            "GITHUB_EVENT_PATH": "/tmp/event.json",
            "GITHUB_API_URL": "http://127.0.0.1:9/api",
        }
        settings = Settings.from_environ(env)
        assert settings.github_token == FAKE_GH
        assert settings.in_actions
        assert settings.event_path == Path("/tmp/event.json")
        assert FAKE_GH not in repr(settings)
        assert settings.redactor(f"token {FAKE_GH}") == f"token {MASK}"

    def test_the_seal_secret_is_the_marker_key_else_the_model_key_and_is_masked(self):
        """REVIEWBOT_MARKER_KEY seals comments when set (and is a secret); else the model key does."""
        marker_key = "rbk_" + "m" * 30  # a name without KEY/TOKEN in it would still be masked
        settings = Settings.from_environ(
            {"ANTHROPIC_API_KEY": FAKE_KEY, "REVIEWBOT_MARKER_KEY": marker_key}
        )
        assert settings.seal_secret == marker_key
        assert marker_key not in repr(settings)
        assert settings.redactor(marker_key) == MASK
        assert Settings.from_environ({"ANTHROPIC_API_KEY": FAKE_KEY}).seal_secret == FAKE_KEY
        assert Settings.from_environ({}).seal_secret is None

    def test_empty_values_are_absent(self):
        """An empty ANTHROPIC_API_KEY is no key at all."""
        assert Settings.from_environ({"ANTHROPIC_API_KEY": "  "}).anthropic_api_key is None
