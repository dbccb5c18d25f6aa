"""`reviewbot config check [PATH]` and the did-you-mean of an unknown key, through the real CLI."""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib

import pytest

from reviewbot.config.file import ReviewConfig, load_config
from tests.fakes.world import child_env


def check(folder, *args, stdin=subprocess.DEVNULL):
    return subprocess.run(
        [sys.executable, "-m", "reviewbot", "config", "check", *args],
        cwd=folder,
        stdin=stdin,
        capture_output=True,
        text=True,
        env=child_env(),  # measured like every other subprocess of the suite
        timeout=60,  # a guard against a hang, not a measurement
        check=False,
    )


CONFIG = """model = "claude-sonnet-4-5"

[[reviewers]]
name = "security"
brief = "Injection, \\"authz\\", secrets."

[publish]
max_inline_comments = 10
"""


class TestConfigCheck:
    def test_a_valid_file_prints_the_effective_configuration(self, tmp_path):
        (tmp_path / ".reviewbot.toml").write_text(CONFIG, encoding="utf-8")
        done = check(tmp_path)
        assert done.returncode == 0, done.stderr
        assert done.stderr == "reviewbot: .reviewbot.toml is valid\n"
        effective = tomllib.loads(done.stdout)
        assert effective["publish"] == {
            "approve": True,
            "max_inline_comments": 10,
            "rereview_min_priority": "P2",
            "review_drafts": False,
            "advisory_hold": False,
        }
        assert "# no max_inline_per_file: no cap per file" in done.stdout
        assert "# no guidelines list: the first that exists of REVIEW.md, AGENTS.md" in done.stdout
        assert effective["budget"]["max_turns"] == 30  # defaults filled in
        assert "the default rules apply" in done.stdout
        # What it prints is itself a valid config, and the same one.
        assert load_config(done.stdout, origin="x") == load_config(CONFIG, origin="y")

    @pytest.mark.parametrize(
        ("text", "line"),
        [
            (
                "[budget]\nmax_turn = 3\n",
                "`bad.toml` line 2: budget.max_turn: unknown key; did you mean max_turns?",
            ),
            (
                '[[reviewers]]\nname = "sec"\nbreif = "x"\n',
                "`bad.toml` line 3: reviewers[0].breif: unknown key; did you mean brief?",
            ),
            (
                "[publish]\nzzz = 1\n",
                "`bad.toml` line 2: publish.zzz: unknown key (the keys of [publish]: "
                "advisory_hold, approve, max_inline_comments, max_inline_per_file, "
                "rereview_min_priority, review_drafts)",
            ),
            ("[budget]\nmax_turns = 0\n", "`bad.toml` line 2: budget.max_turns: Input should be"),
        ],
        ids=["did-you-mean", "in-an-array-of-tables", "no-close-key", "out-of-range"],
    )
    def test_an_invalid_file_is_exit_2_and_one_line(self, tmp_path, text, line):
        (tmp_path / "bad.toml").write_text(text, encoding="utf-8")
        done = check(tmp_path, "bad.toml")
        assert done.returncode == 2
        assert done.stdout == ""
        [error] = done.stderr.splitlines()
        assert error.startswith(f"reviewbot: error: {line}")

    def test_a_missing_file_is_exit_2(self, tmp_path):
        done = check(tmp_path, "nope.toml")
        assert done.returncode == 2
        assert done.stderr == (
            "reviewbot: error: `nope.toml`: not found (give the path of the file to check)\n"
        )

    def test_the_defaults_print_and_load_back(self, tmp_path):
        (tmp_path / "empty.toml").write_text("", encoding="utf-8")
        done = check(tmp_path, "empty.toml")
        assert done.returncode == 0, done.stderr
        assert load_config(done.stdout, origin="x") == ReviewConfig()


class TestNotARegularFile:
    """Anything but a regular file is one line and exit 2: never a hang, never a traceback."""

    def test_a_directory(self, tmp_path):
        (tmp_path / "conf").mkdir()
        done = check(tmp_path, "conf")
        assert done.returncode == 2
        assert done.stderr == "reviewbot: error: `conf`: is a directory, not a file\n"

    def test_a_fifo_is_refused_without_waiting_for_a_writer(self, tmp_path):
        os.mkfifo(tmp_path / "pipe")
        done = check(tmp_path, "pipe")
        assert done.returncode == 2
        assert done.stderr == (
            "reviewbot: error: `pipe`: is not a regular file (a FIFO): give the path of the file\n"
        )

    def test_dev_stdin_on_a_pipe_is_refused(self, tmp_path):
        done = check(tmp_path, "/dev/stdin", stdin=subprocess.PIPE)
        assert done.returncode == 2
        [error] = done.stderr.splitlines()
        assert error.startswith("reviewbot: error: `/dev/stdin`: is not a regular file"), error

    def test_a_character_device_is_refused(self, tmp_path):
        done = check(tmp_path, os.devnull)
        assert done.returncode == 2
        assert done.stderr == (
            f"reviewbot: error: `{os.devnull}`: is not a regular file (a character device): "
            "give the path of the file\n"
        )

    def test_a_file_over_1_mb_is_refused_unread(self, tmp_path):
        (tmp_path / "big.toml").write_text("# padding\n" * 200_000, encoding="utf-8")
        done = check(tmp_path, "big.toml")
        assert done.returncode == 2
        assert done.stderr == (
            "reviewbot: error: `big.toml`: is too large (2,000,000 bytes; a config is at most "
            "1,000,000)\n"
        )
