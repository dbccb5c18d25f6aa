"""Where a finished review goes on this machine: stdout formats, the report file, Actions outputs.

Every text leaves through the run's Redactor. Must not: talk to GitHub or the
model (that is publishing and the agents).

A run that reviews several PRs (a `check_suite` naming more than one) still prints one
document: `--format json` and the report file hold a JSON array of the reports (one PR:
the report itself), `--format sarif` one SARIF log with a run per PR. Text and markdown
print each review as it finishes.
"""

from __future__ import annotations

import codecs
import io
import json
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from reviewbot.config.settings import Settings
from reviewbot.errors import UsageError
from reviewbot.redact import Redactor

# The renderers pull in rich, jinja2 and pydantic: imported when a review is written, so
# the CLI can read `Format` for its --help without them (bench/bench_startup.py).
if TYPE_CHECKING:
    from reviewbot.results.report import Report
    from reviewbot.sources.snapshot import PRSnapshot

REPORT_NAME = "reviewbot-report.json"


class Format(StrEnum):
    TEXT = "text"
    JSON = "json"
    SARIF = "sarif"
    MARKDOWN = "markdown"


def report_json(report: Report, redactor: Redactor, *, ascii_only: bool = False) -> str:
    text = redactor(report.model_dump_json(indent=2))
    if ascii_only:  # the same JSON, every non-ASCII character as a \\u escape
        text = json.dumps(json.loads(text), indent=2, ensure_ascii=True)
    return text + "\n"


def reports_json(reports: Sequence[Report], redactor: Redactor, *, ascii_only: bool = False) -> str:
    """One JSON document: the report of a run over one PR, an array of reports over several."""
    if len(reports) == 1:
        return report_json(reports[0], redactor, ascii_only=ascii_only)
    items = [json.loads(report.model_dump_json()) for report in reports]
    return redactor(json.dumps(items, indent=2, ensure_ascii=ascii_only)) + "\n"


def encodes_unicode(stream: TextIO) -> bool:
    """Whether `stream` can take any character (not so: cp1252 consoles, PYTHONIOENCODING)."""
    encoding = getattr(stream, "encoding", None) or "utf-8"
    try:
        return codecs.lookup(encoding).name.startswith("utf")
    except LookupError:
        return False


def emitter(
    fmt: Format, stream: TextIO, redactor: Redactor
) -> Callable[[Report, PRSnapshot | None], None]:
    """A callback that writes one finished review to `stream` in `fmt`.

    On a stream that cannot encode every character, JSON and SARIF are written with
    ASCII escapes (the same data); text and markdown rely on the stream's error handler.
    """
    from reviewbot.output.markdown import summary_markdown
    from reviewbot.output.sarif import to_sarif
    from reviewbot.output.terminal import print_report

    ascii_only = not encodes_unicode(stream)

    def emit(report: Report, snapshot: PRSnapshot | None) -> None:
        if report.skipped is not None and fmt is not Format.JSON:
            return  # nothing was reviewed: the CLI's one line says so; JSON has its report
        match fmt:
            case Format.TEXT:
                print_report(report, snapshot, stream, redactor=redactor)
            case Format.JSON:
                stream.write(report_json(report, redactor, ascii_only=ascii_only))
            case Format.SARIF:
                sarif = to_sarif(report, redactor=redactor)
                stream.write(json.dumps(sarif, indent=2, ensure_ascii=ascii_only) + "\n")
            case Format.MARKDOWN:
                stream.write(summary_markdown(report, snapshot=snapshot, redactor=redactor))
        stream.flush()

    return emit


def default_report_path(settings: Settings) -> Path | None:
    """In GitHub Actions the report always lands in RUNNER_TEMP, for the `report-path` output."""
    if settings.in_actions:
        return (settings.runner_temp or Path.cwd()) / REPORT_NAME
    return None


def prepare_file(path: Path, what: str) -> None:
    """Make the parent folders of `path` and check it can be written: before the review runs."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        is_dir, exists = path.is_dir(), path.exists()  # these raise too (a name too long)
    except OSError as exc:
        raise UsageError(f"cannot write {what} to {path}: {exc.strerror}") from exc
    if is_dir:
        raise UsageError(f"cannot write {what} to {path}: Is a directory")
    if not os.access(path if exists else path.parent, os.W_OK):
        raise UsageError(f"cannot write {what} to {path}: Permission denied")


def write_report(reports: Sequence[Report], path: Path, redactor: Redactor) -> Path:
    """The report file: the same one document `--format json` prints."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(reports_json(reports, redactor), encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"cannot write the report to {path}: {exc.strerror}") from exc
    return path.resolve()


@dataclass(slots=True)
class ReportFile:
    """The report file a run promised (`--report`, or Actions' default) and whether it was written.

    `explicit`: the user asked for it, so a run that reviewed nothing writes the report that
    says so (the Actions default stays unwritten then: `report-path` is empty).
    """

    path: Path | None
    explicit: bool = False
    written: Path | None = None

    def write(self, reports: Sequence[Report], redactor: Redactor) -> Path | None:
        if self.path is None or not reports:
            return None
        self.written = write_report(reports, self.path, redactor)
        return self.written

    def aside(self, message: str) -> str:
        """What an error line adds when the `--report` file was not written (so nobody reads
        an older one as this run's); "" when it was, was not asked for, or `message` names it."""
        if not self.explicit or self.path is None or self.written is not None:
            return ""
        return "" if str(self.path) in message else f" (no report written to {self.path})"


def write_actions_outputs(
    settings: Settings,
    report: Report | None,
    report_path: Path | None,
    redactor: Redactor,
    *,
    every: Sequence[Report] = (),
) -> None:
    """`verdict` (of `report`, the strictest) and `report-path` for the action's outputs; the
    summary of each report (`every`, else `report`) for the job page."""
    if settings.output_file is not None:
        verdict = report.verdict.label if report is not None else ""
        lines = [f"verdict={verdict}", f"report-path={report_path or ''}"]
        _append(settings.output_file, "\n".join(lines) + "\n")
    shown = every or ((report,) if report is not None else ())
    if settings.step_summary is not None and shown:
        from reviewbot.output.markdown import summary_markdown

        for each in shown:
            _append(settings.step_summary, summary_markdown(each, redactor=redactor) + "\n")


def _append(path: Path, text: str) -> None:
    try:
        with path.open("a", encoding="utf-8") as out:
            out.write(text)
    except OSError as exc:
        raise UsageError(f"cannot write {path}: {exc.strerror}") from exc


@dataclass(slots=True)
class Delivery:
    """Whether stdout's reader got the output: a closed pipe is noted, never a crash."""

    closed: bool = False


@contextmanager
def open_stream(output: Path | None) -> Iterator[TextIO]:
    """stdout, or the -o file (checked and created first, closed at the end)."""
    if output is None:
        yield safe_stdout()
        return
    prepare_file(output, "the output")
    try:
        stream = output.open("w", encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"cannot write the output to {output}: {exc.strerror}") from exc
    with stream:
        yield stream


@dataclass(slots=True, kw_only=True)
class Emission:
    """What a run prints: text and markdown as each review finishes; JSON and SARIF once,
    at `close`, as one document however many PRs the run reviewed."""

    fmt: Format
    stream: TextIO
    redactor: Redactor
    delivery: Delivery
    held: list[Report] = field(default_factory=list)

    def __call__(self, report: Report, snapshot: PRSnapshot | None) -> None:
        if self.fmt in (Format.JSON, Format.SARIF):
            self.held.append(report)  # the snapshot is not needed: neither shows code
            return
        self._deliver(lambda: emitter(self.fmt, self.stream, self.redactor)(report, snapshot))

    def close(self) -> None:
        """Print the held reports as one document (nothing when there is none)."""
        if self.held:
            self._deliver(self._document)

    def _document(self) -> None:
        ascii_only = not encodes_unicode(self.stream)
        if self.fmt is Format.JSON:
            self.stream.write(reports_json(self.held, self.redactor, ascii_only=ascii_only))
        else:
            from reviewbot.output.sarif import to_sarif

            logs = [to_sarif(report, redactor=self.redactor) for report in self.held]
            merged = {**logs[0], "runs": [run for log in logs for run in log["runs"]]}
            self.stream.write(json.dumps(merged, indent=2, ensure_ascii=ascii_only) + "\n")
        self.stream.flush()

    def _deliver(self, write: Callable[[], None]) -> None:
        # The review is done (and published) when it is printed: a reader that quit early
        # (`| head -1`) must not cost the report file, the outputs or the exit code.
        try:
            write()
        except BrokenPipeError:
            if self.stream is not sys.stdout:
                raise
            self.delivery.closed = True
            discard_stdout()


def stdout_emitter(fmt: Format, stream: TextIO, settings: Settings, delivery: Delivery) -> Emission:
    return Emission(fmt=fmt, stream=stream, redactor=settings.redactor, delivery=delivery)


def safe_stdout() -> TextIO:
    """stdout, where a character it cannot encode (a cp1252 console) becomes `?`, not a crash."""
    if not encodes_unicode(sys.stdout) and isinstance(sys.stdout, io.TextIOWrapper):
        sys.stdout.reconfigure(errors="replace")
    return sys.stdout


def discard_stdout() -> None:
    # Python flushes stdout once more at exit; aimed at /dev/null, that flush cannot fail.
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # a stdout without a descriptor (tests): nothing to flush
        pass
    finally:
        os.close(devnull)
