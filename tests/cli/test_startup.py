"""Start-up: `--help`, usage errors and `version` import none of the heavy libraries.

The time itself is measured in bench/bench_startup.py (timings never go in tests); this
checks the mechanism that makes it short, in a fresh interpreter per case.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from reviewbot import cli as cli_module
from reviewbot.config.file import CONFIG_FILE

ROOT = Path(__file__).resolve().parents[2]
HEAVY = ("anthropic", "github", "pydantic", "rich", "git", "jinja2", "httpx")
PROBE = """
import json, sys
from reviewbot.cli import cli
try:
    cli.main({args!r}, prog_name="reviewbot", standalone_mode=False)
except SystemExit:
    pass
print(json.dumps(sorted(m for m in {heavy!r} if m in sys.modules)))
"""


def loaded_by(args: list[str]) -> list[str]:
    """The heavy modules a fresh interpreter has loaded after running the CLI with `args`."""
    done = subprocess.run(
        [sys.executable, "-c", PROBE.format(args=args, heavy=HEAVY)],
        cwd=ROOT,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT), "LANG": "C.UTF-8"},
        capture_output=True,
        text=True,
        check=True,
    )
    result: list[str] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


class TestStartup:
    @pytest.mark.parametrize(
        "args",
        [["--help"], ["review", "--help"], ["review"], ["--version"], ["version"]],
        ids=["help", "review-help", "usage-error", "--version", "version"],
    )
    def test_no_heavy_import_without_a_review(self, args):
        """Help, a usage error and the version load neither the SDKs nor pydantic, rich or git."""
        assert loaded_by(args) == []

    @pytest.mark.parametrize("args", [["--help"], ["review"]], ids=["help", "usage-error"])
    def test_the_version_metadata_is_read_only_when_asked_for(self, args):
        """`importlib.metadata` (as costly as click) waits for `--version` or a report."""
        probe = PROBE.replace("{heavy!r}", "('importlib.metadata',)")
        done = subprocess.run(
            [sys.executable, "-c", probe.format(args=args)],
            cwd=ROOT,
            env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT), "LANG": "C.UTF-8"},
            capture_output=True,
            text=True,
            check=True,
        )
        assert json.loads(done.stdout.strip().splitlines()[-1]) == []

    def test_a_review_command_does_load_them(self):
        """The probe can fail: `schema` needs pydantic and loads it."""
        assert "pydantic" in loaded_by(["schema"])

    def test_the_config_default_is_the_config_modules(self):
        """The CLI's copy of the default config name is config.CONFIG_FILE."""
        assert cli_module.CONFIG_DEFAULT == CONFIG_FILE
