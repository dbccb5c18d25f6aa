"""The edges of the process: a reader that quits, Ctrl-C at a terminal, a console that is not UTF-8.

Each runs `python -m reviewbot review --local` in a real repository against the fake Messages
API, with stdout or stderr wired the way the case needs (a closed pipe, a pty).
"""

from __future__ import annotations

import json
import os
import pty
import signal
import subprocess
import sys
import threading
from typing import Any

import pytest

from tests.fakes.messages_api import Reply, reply, text, tool_use
from tests.fakes.world import SOURCE_ROOT, World

BASE = {"lib.py": "def ratio(a, b):\n    return a / b\n"}
HEAD = {"lib.py": "def ratio(a, b):\n    return a // b\n"}
# None of these is in cp1252: each would crash a strict encoder.
TITLE = "Floor division → truncates ✓ 🐛"
FINDING = {
    "kind": "bug",
    "priority": "P2",
    "confidence": 0.7,
    "title": TITLE,
    "body": "`a // b` truncates — callers expect a float.",
    "anchor": {"path": "lib.py", "start_line": 2, "end_line": 2, "quote": "    return a // b"},
}
LOCAL = ["review", "--local", "--base", "main"]


def _script() -> list[Any]:
    return [
        reply(tool_use("add_review_node", FINDING)),
        reply(tool_use("finalize_review", {"summary": "One bug.", "verdict": "hold"})),
    ]


class TestClosedStdout:
    def test_a_reader_that_quit_gets_exit_141_and_the_run_completes(self, worlds, tmp_path):
        """stdout closed before the report is printed: exit 141, no traceback, report still written."""
        world: World = worlds("closed-stdout", base=BASE, head=HEAD, script=_script())
        report = tmp_path / "report.json"
        read_end, write_end = os.pipe()
        pending = world.start(
            [*LOCAL, "--format", "json", "--report", str(report)],
            github=False,
            cwd=world.repo,
            stdout=write_end,
        )
        os.close(write_end)
        os.close(read_end)  # the reader is gone before reviewbot prints anything
        run = pending.wait()
        assert run.returncode == 141, run.stderr
        assert "Traceback" not in run.stderr
        assert "Exception ignored" not in run.stderr
        assert "reviewbot: verdict hold" in run.stderr
        assert json.loads(report.read_text(encoding="utf-8"))["verdict"] == "hold"

    @pytest.mark.parametrize("fmt", ["text", "markdown", "sarif"])
    def test_every_format_is_141_and_still_writes_the_report(self, worlds, tmp_path, fmt):
        """`reviewbot review --local | head -1` with the default text format (rich's console
        would exit 1 on the broken pipe): 141, the report and GITHUB_OUTPUT written."""
        world: World = worlds(f"closed-{fmt}", base=BASE, head=HEAD, script=_script())
        report, outputs = tmp_path / "report.json", tmp_path / "github-output"
        read_end, write_end = os.pipe()
        pending = world.start(
            [*LOCAL, "--format", fmt, "--report", str(report)],
            github=False,
            cwd=world.repo,
            stdout=write_end,
            extra_env={"GITHUB_OUTPUT": str(outputs)},
        )
        os.close(write_end)
        os.close(read_end)
        run = pending.wait()
        assert run.returncode == 141, run.stderr
        assert "Traceback" not in run.stderr
        assert "Exception ignored" not in run.stderr
        assert "reviewbot: verdict hold" in run.stderr
        assert json.loads(report.read_text(encoding="utf-8"))["verdict"] == "hold"
        assert "verdict=hold" in outputs.read_text(encoding="utf-8")

    @pytest.mark.parametrize("args", [["--help"], ["--version"], ["review", "--help"], ["schema"]])
    def test_help_and_version_into_a_closed_pipe_are_141(self, args):
        """`reviewbot --help | true`: the reader is gone before a byte is written."""
        read_end, write_end = os.pipe()
        os.close(read_end)
        try:
            done = subprocess.run(
                [sys.executable, "-m", "reviewbot", *args],
                stdout=write_end,
                stderr=subprocess.PIPE,
                text=True,
                env={**os.environ, "PYTHONPATH": str(SOURCE_ROOT)},
                timeout=60,
                check=False,
            )
        finally:
            os.close(write_end)
        assert done.returncode == 141, done.stderr
        assert done.stderr == ""


class TestInterrupt:
    def test_ctrl_c_exits_130_and_gives_the_cursor_back(self, worlds):
        """SIGINT while the model answers: exit 130, one line, the live line stopped, cursor shown."""
        arrived, release = threading.Event(), threading.Event()

        def hang(body: Any) -> Reply:
            arrived.set()
            release.wait(60)
            return reply(text("too late"))

        world: World = worlds("interrupt", base=BASE, head=HEAD, script=[hang])
        master, slave = pty.openpty()
        pending = world.start(
            LOCAL, github=False, cwd=world.repo, stderr=slave, extra_env={"TERM": "xterm"}
        )
        os.close(slave)
        seen = bytearray()
        reader = threading.Thread(target=_drain, args=(master, seen), daemon=True)
        reader.start()
        try:
            assert arrived.wait(60), "the model request never came"
            pending.process.send_signal(signal.SIGINT)
            run = pending.wait()
        finally:
            release.set()
        reader.join(10)
        os.close(master)
        terminal = seen.decode("utf-8", "replace")
        assert run.returncode == 130, terminal
        assert "reviewbot: interrupted" in terminal
        assert "Traceback" not in terminal
        hidden, shown = terminal.rfind("\x1b[?25l"), terminal.rfind("\x1b[?25h")
        assert hidden >= 0, terminal  # the live line ran (and hid the cursor)
        assert shown > hidden, terminal  # …and the cursor came back after it


def _drain(fd: int, into: bytearray) -> None:
    while True:
        try:
            chunk = os.read(fd, 4096)
        except OSError:  # EIO: the child closed its end
            return
        if not chunk:
            return
        into.extend(chunk)


@pytest.mark.parametrize("fmt", ["text", "json", "sarif", "markdown"])
class TestNotUnicodeConsole:
    def test_a_cp1252_stdout_prints_the_review(self, worlds, fmt):
        """PYTHONIOENCODING=cp1252: every format prints, exit 0; JSON keeps every character."""
        world: World = worlds(f"cp1252-{fmt}", base=BASE, head=HEAD, script=_script())
        run = world.run(
            [*LOCAL, "--format", fmt],
            github=False,
            cwd=world.repo,
            extra_env={"PYTHONIOENCODING": "cp1252"},
        )
        assert run.returncode == 0, run.stderr
        assert "Traceback" not in run.stderr
        assert "Floor division" in run.stdout
        if fmt == "json":
            assert json.loads(run.stdout)["nodes"][0]["title"] == TITLE
        if fmt == "sarif":
            assert TITLE in json.dumps(json.loads(run.stdout), ensure_ascii=False)
