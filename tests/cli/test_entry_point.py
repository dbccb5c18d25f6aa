"""The console script's own manners, the same in every command (not only `review`)."""

from __future__ import annotations

import io
import sys

import pytest

from reviewbot import app, cli


def _main(monkeypatch: pytest.MonkeyPatch, *argv: str) -> int:
    monkeypatch.setattr(sys, "argv", ["reviewbot", *argv])
    with pytest.raises(SystemExit) as ended:
        cli.main()
    code = ended.value.code
    return code if isinstance(code, int) else (0 if code is None else 1)


class TestInterrupt:
    def test_ctrl_c_in_snapshot_is_130_not_click_s_exit_1(self, monkeypatch, capsys, tmp_path):
        """Standalone click says "Aborted!" and exits 1, which is --fail-on's code."""

        def interrupted(out, settings):
            raise KeyboardInterrupt

        monkeypatch.setattr(app, "save_reference", interrupted)
        assert _main(monkeypatch, "snapshot", "--out", str(tmp_path / "ref")) == 130
        err = capsys.readouterr().err
        assert "reviewbot: interrupted" in err
        assert "Aborted" not in err


class TestClosedStdout:
    def test_a_reader_that_quit_during_schema_is_141_without_a_traceback(self, monkeypatch):
        class Closed(io.StringIO):
            def write(self, text: str) -> int:
                raise BrokenPipeError(32, "Broken pipe")

        monkeypatch.setattr(sys, "stdout", Closed())
        assert _main(monkeypatch, "schema") == 141


class TestClickStillDoesItsPart:
    def test_usage_errors_are_2_with_click_s_message(self, monkeypatch, capsys):
        assert _main(monkeypatch, "review", "--no-such-option") == 2
        assert "No such option" in capsys.readouterr().err

    def test_help_and_version_are_0(self, monkeypatch, capsys):
        assert _main(monkeypatch, "--help") == 0
        assert "review" in capsys.readouterr().out
        assert _main(monkeypatch, "--version") == 0
        assert capsys.readouterr().out.startswith("reviewbot ")
