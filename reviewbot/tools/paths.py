"""Paths the model names, held inside the checkout; file listing and glob matching.

The second copy of the read-only posture (the first: the mode's surface): even a read tool must never
show a byte from outside the checkout. Every path is resolved (symlinks
included) and refused unless the result lies inside the checkout. git's own
storage (`.git`) is refused too: it holds configuration, and in CI possibly a
credential, and none of it is PR content. This module reads the file system; it
never writes it.
"""

from __future__ import annotations

import os
import posixpath
import re
from collections.abc import Iterator
from pathlib import Path

from reviewbot.config.file import glob_source
from reviewbot.text.hygiene import quoted
from reviewbot.tools.context import ToolRetry
from reviewbot.tools.pattern import Matches, glob_matcher

GIT_DIR = ".git"


def normalise(path: str) -> str:
    """`./src//a.py` → `src/a.py`: the form paths are compared and marked seen in."""
    return posixpath.normpath(path.replace("\\", "/")).lstrip("/") if path else path


def resolve_inside(root: Path, path: str) -> Path:
    """The real path of `path` under `root`; `ToolRetry` when it leaves the checkout."""
    if not path or "\x00" in path:
        raise ToolRetry("the path is empty or contains a NUL character")
    if path.startswith(("/", "\\")) or re.match(r"^[A-Za-z]:", path):
        raise ToolRetry(f"{quoted(path)} is absolute; paths are relative to the repository root")
    relative = normalise(path)
    if relative == ".." or relative.startswith("../"):
        raise ToolRetry(f"{quoted(path)} leaves the repository; paths are relative to its root")
    if relative.split("/")[0] == GIT_DIR:
        raise ToolRetry(f"{quoted(path)} is inside git's own storage, which is not part of the PR")
    # resolve() follows every symlink on the way, so a link that points out is caught here.
    real = (root / relative).resolve()
    if not real.is_relative_to(root):
        raise ToolRetry(f"{quoted(path)} is a symbolic link that points outside the repository")
    inner = real.relative_to(root).as_posix()
    if inner.split("/")[0] == GIT_DIR:
        raise ToolRetry(
            f"{quoted(path)} points into git's own storage, which is not part of the PR"
        )
    return real


def iter_files(root: Path) -> Iterator[str]:
    """Every file under `root` as a relative POSIX path, sorted, without `.git`; links not followed."""
    for directory, subdirs, files in os.walk(root, followlinks=False):
        subdirs[:] = sorted(d for d in subdirs if d != GIT_DIR)
        base = Path(directory).relative_to(root).as_posix()
        for name in sorted(files):
            yield name if base == "." else f"{base}/{name}"


def glob_matching(pattern: str) -> Matches:
    """`pattern` over the whole POSIX path from the root (config's glob syntax, `rooted`),
    matched by RE2: `*a*a*…*c` against a long name backtracks for minutes in `re`."""
    glob = normalise(pattern) if pattern.strip() else "**"
    return glob_matcher(glob_source(glob, rooted=True), pattern)


_BINARY_PROBE = 8_000
MAX_FILE_BYTES = 20_000_000


def read_lines(real: Path, shown_as: str) -> list[str] | None:
    """The file's lines as git and GitHub number them (split on LF only), or None if binary."""
    text = read_text(real, shown_as)
    return None if text is None else split_lines(text)


def read_text(real: Path, shown_as: str) -> str | None:
    """The file's text (UTF-8, undecodable bytes replaced), or None if binary."""
    if real.is_dir():
        raise ToolRetry(
            f"{quoted(shown_as)} is a directory; list its files with a glob like "
            f"{quoted(shown_as + '/**')}"
        )
    if not real.is_file():  # a FIFO or a device would block or never end: never opened
        raise ToolRetry(f"{quoted(shown_as)} is not a file in the PR head")
    size = real.stat().st_size
    if size > MAX_FILE_BYTES:
        raise ToolRetry(f"{quoted(shown_as)} is {size:,} bytes, too large to read")
    return decode_text(real.read_bytes())


def decode_text(data: bytes) -> str | None:
    if b"\x00" in data[:_BINARY_PROBE]:
        return None
    return data.decode("utf-8", errors="replace")


def decode_lines(data: bytes) -> list[str] | None:
    """A file's bytes as numbered lines (UTF-8, undecodable bytes replaced), or None if binary."""
    text = decode_text(data)
    return None if text is None else split_lines(text)


def split_lines(text: str) -> list[str]:
    # Not str.splitlines(): it also splits on \v, \f, U+2028…, which would shift line
    # numbers against the diff and GitHub. A trailing CR (CRLF files) is not content.
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [line.removesuffix("\r") for line in lines]
