"""Where a finished review goes on this machine: stdout formats, the report file, Actions outputs.

Every text leaves through the run's Redactor. Must not: talk to GitHub or the
model (that is publishing and the agents).
"""

from __future__ import annotations

import codecs
import io
import json
import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from reviewbot.errors import UsageError
from reviewbot.redact import Redactor
from reviewbot.settings import Settings

# The renderers pull in rich, jinja2 and pydantic: imported when a review is written, so
# the CLI can read `Format` for its --help without them (bench/bench_startup.py).
if TYPE_CHECKING:
    from reviewbot.report import Report
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
    from reviewbot.publish.markdown import summary_markdown
    from reviewbot.publish.sarif import to_sarif
    from reviewbot.publish.terminal import print_report

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


def write_report(report: Report, path: Path, redactor: Redactor) -> Path:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(report_json(report, redactor), encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"cannot write the report to {path}: {exc.strerror}") from exc
    return path.resolve()


def write_actions_outputs(
    settings: Settings, report: Report | None, report_path: Path | None, redactor: Redactor
) -> None:
    """`verdict` and `report-path` for the action's outputs; the summary for the job page."""
    if settings.output_file is not None:
        verdict = report.verdict.label if report is not None else ""
        lines = [f"verdict={verdict}", f"report-path={report_path or ''}"]
        _append(settings.output_file, "\n".join(lines) + "\n")
    if settings.step_summary is not None and report is not None:
        from reviewbot.publish.markdown import summary_markdown

        _append(settings.step_summary, summary_markdown(report, redactor=redactor) + "\n")


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


def stdout_emitter(
    fmt: Format, stream: TextIO, settings: Settings, delivery: Delivery
) -> Callable[[Report, PRSnapshot | None], None]:
    emit = emitter(fmt, stream, settings.redactor)
    if stream is not sys.stdout:
        return emit

    def deliver(report: Report, snapshot: PRSnapshot | None) -> None:
        # The review is done (and published) when it is printed: a reader that quit early
        # (`| head -1`) must not cost the report file, the outputs or the exit code.
        try:
            emit(report, snapshot)
        except BrokenPipeError:
            delivery.closed = True
            discard_stdout()

    return deliver


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
