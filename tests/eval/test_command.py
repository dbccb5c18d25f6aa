"""`reviewbot eval` through click's CliRunner: the ways it ends before any request."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from reviewbot.cli import cli
from tests.fakes.keys import ANTHROPIC_KEY

ENTRY = {
    "pr_title": "A PR",
    "url": "https://github.com/octo/app/pull/7",
    "comments": [{"comment": "a bug", "severity": "High"}],
}


@pytest.fixture
def run(tmp_path, monkeypatch):
    """Invoke `reviewbot eval` on a file holding `content`, with a key set (unless told not)."""
    for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "REVIEWBOT_MODEL", "GITHUB_ACTIONS"):
        monkeypatch.delenv(name, raising=False)

    def invoke(content: str, *args: str, key: bool = True):
        if key:
            monkeypatch.setenv("ANTHROPIC_API_KEY", ANTHROPIC_KEY)
        path = tmp_path / "bench.json"
        path.write_text(content, encoding="utf-8")
        cache = str(tmp_path / "cache")
        return CliRunner().invoke(cli, ["eval", str(path), "--cache-dir", cache, *args])

    return invoke


class TestEndsEarly:
    @pytest.mark.parametrize(
        ("content", "args", "message"),
        [
            ("not json", (), "is not JSON"),
            ('{"a": 1}', (), "must be a JSON list of PRs"),
            ("[]", (), "has no valid pull request entry"),
            (
                json.dumps([ENTRY]),
                ("--only", "nothing"),
                "--only 'nothing' selects none of the 1 PR(s)",
            ),
        ],
        ids=["not-json", "object", "empty", "nothing-selected"],
    )
    def test_unusable_input_is_one_line_and_exit_2(self, run, content, args, message):
        """Nothing to evaluate: one error line, exit 2, no traceback."""
        result = run(content, *args)
        assert result.exit_code == 2, result.output
        assert result.stderr.strip().splitlines()[-1].startswith("reviewbot: error: ")
        assert message in result.stderr
        assert "Traceback" not in result.stderr

    def test_the_key_is_checked_before_the_file_is_read(self, run):
        """Without ANTHROPIC_API_KEY even a broken file gets only the key's line, exit 3."""
        result = run("not json", key=False)
        assert result.exit_code == 3
        assert result.stderr.strip().splitlines() == [
            "reviewbot: error: ANTHROPIC_API_KEY is not set: reviewbot eval needs the Messages API "
            "for the reviewers and the judge"
        ]

    def test_help_documents_the_exit_codes(self):
        """`reviewbot eval --help` has an example and the exit codes."""
        result = CliRunner().invoke(cli, ["eval", "--help"])
        assert result.exit_code == 0
        assert "reviewbot eval golden_comments/sentry.json" in result.output
        assert "3   ANTHROPIC_API_KEY is not set" in result.output
