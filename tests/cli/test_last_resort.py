"""The CLI's last resort: a bug is one redacted line and exit 70, never a traceback; a
configuration file that cannot be read is one line and exit 2."""

from __future__ import annotations

import pytest

from reviewbot.config.check import check_file
from reviewbot.errors import ConfigError, ExitCode
from reviewbot.output.exits import last_resort
from reviewbot.redact import Redactor

SECRET = "sk-ant-api03-" + "x" * 40


class Progress:
    closed = False

    def close(self) -> None:
        self.closed = True


def test_a_bug_is_one_redacted_line_and_exit_70(capsys):
    progress = Progress()
    with pytest.raises(SystemExit) as exited, last_resort(0, Redactor([SECRET]), progress):
        raise RuntimeError(f"boom with {SECRET}")
    assert exited.value.code == ExitCode.INTERNAL
    err = capsys.readouterr().err
    assert err.startswith("reviewbot: internal error: RuntimeError: boom with ")
    assert SECRET not in err
    assert err.count("\n") == 1
    assert progress.closed  # before the line, so a live display does not draw over it


def test_a_missing_or_unreadable_config_is_one_line(tmp_path):
    with pytest.raises(ConfigError, match="not found"):
        check_file(tmp_path / "nowhere.toml")
    binary = tmp_path / "binary.toml"
    binary.write_bytes(b"\xff\xfe\x00")
    with pytest.raises(ConfigError, match="not UTF-8 text"):
        check_file(binary)
