"""What one reviewbot run of a test world produced, and what left it.

Two ways to run the real CLI against a world (tests/fakes/world.py), one record each:

- `Run`: `python -m reviewbot` as a child process with the environment GitHub Actions
  sets (the Action's outputs, the step summary, the exit code as a shell sees it);
- `CliRun`: `reviewbot review URL …` in-process with click's `CliRunner` and the real
  clients made wait-free (faults and retries without sleeping), with the JSON report.

Both keep the requests each fake received during the run, so a test asks the same
questions of either (`calls`, `writes`).
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tests.fakes.keys import SECRET_NAMES
from tests.fakes.server import Recorded

if TYPE_CHECKING:
    from tests.fakes.world import World

RUN_TIMEOUT = 120


@dataclass(frozen=True, slots=True, kw_only=True)
class Requests:
    """The requests the fakes received during one run."""

    github: tuple[Recorded, ...]  # requests to the fake GitHub during this run
    model: tuple[dict[str, Any], ...]  # request bodies sent to the fake Messages API

    def writes(self) -> list[Recorded]:
        return [r for r in self.github if r.is_write]

    def calls(self, method: str, suffix: str) -> list[Recorded]:
        """Requests of `method` whose path ends with `suffix` (e.g. "/pulls/7/reviews")."""
        return [r for r in self.github if r.method == method and r.path.endswith(suffix)]


@dataclass(frozen=True, slots=True, kw_only=True)
class Run(Requests):
    """One finished `python -m reviewbot` and what the fakes received while it ran."""

    args: tuple[str, ...]
    returncode: int
    stdout: str  # empty when the run's stdout (or stderr) was not a pipe to this process
    stderr: str
    outputs: dict[str, str]  # GITHUB_OUTPUT, parsed
    step_summary: str

    @property
    def said(self) -> list[str]:
        """stderr's non-empty lines, less the workflow-command fence a run in Actions prints
        first and last (`::stop-commands::TOKEN` … `::TOKEN::`, see reviewbot/config/logs.py)."""
        lines = [line for line in self.stderr.splitlines() if line.strip()]
        if lines and lines[0].startswith("::stop-commands::"):
            token = lines[0].removeprefix("::stop-commands::")
            lines = [line for line in lines[1:] if line != f"::{token}::"]
        return lines

    def report(self) -> dict[str, Any]:
        """The JSON report the run wrote to the `report-path` output."""
        return dict(json.loads(Path(self.outputs["report-path"]).read_text(encoding="utf-8")))


@dataclass(frozen=True, slots=True, kw_only=True)
class CliRun(Requests):
    """What one in-process `reviewbot review` invocation produced."""

    exit_code: int
    stdout: str
    stderr: str
    report: dict[str, Any] | None  # the JSON report file; None when none was written

    @property
    def error_lines(self) -> list[str]:
        return [line for line in self.stderr.splitlines() if line.startswith("reviewbot: error:")]

    @property
    def verdict(self) -> str:
        assert self.report is not None, self.stderr
        return str(self.report["verdict"])

    def axis(self, name: str) -> dict[str, Any]:
        assert self.report is not None, self.stderr
        return next(a for a in self.report["axes"] if a["name"] == name)


@dataclass(slots=True, kw_only=True)
class Pending:
    """A started run: `wait()` finishes it (so independent runs can overlap)."""

    world: World
    args: tuple[str, ...]
    process: subprocess.Popen[str]
    folder: Path
    github_from: int
    model_from: int

    def wait(self) -> Run:
        stdout, stderr = self.process.communicate(timeout=RUN_TIMEOUT)
        output = self.folder / "github-output"
        summary = self.folder / "step-summary"
        return Run(
            args=self.args,
            returncode=self.process.returncode,
            stdout=stdout or "",
            stderr=stderr or "",
            outputs=_outputs(output.read_text(encoding="utf-8") if output.exists() else ""),
            step_summary=summary.read_text(encoding="utf-8") if summary.exists() else "",
            **self.world.requests_since(self.github_from, self.model_from),
        )


def _outputs(text: str) -> dict[str, str]:
    found = {}
    for line in text.splitlines():
        key, sep, value = line.partition("=")
        if sep:
            found[key] = value
    return found


# ---------------------------------------------------------------- what left the process


def leaked(texts: Sequence[str]) -> list[str]:
    """Which of the world's secrets appear in any of `texts` (names only, never the values)."""
    return sorted({name for secret, name in SECRET_NAMES.items() for t in texts if secret in t})


def context_of(run: Run) -> str:
    """The shared context block of the run's first model request (what every agent is shown)."""
    first = run.model[0]["messages"][0]["content"]
    return "\n".join(block["text"] for block in first if block.get("type") == "text")


def everything_sent(run: Run) -> list[str]:
    """Every text a run let out: stdout, stderr, outputs, report, step summary, request bodies."""
    texts = [run.stdout, run.stderr, run.step_summary, json.dumps(run.outputs)]
    if run.outputs.get("report-path"):
        texts.append(Path(run.outputs["report-path"]).read_text(encoding="utf-8"))
    texts += [r.body.decode("utf-8", "replace") for r in run.github]
    texts += [json.dumps(body) for body in run.model]
    return texts
