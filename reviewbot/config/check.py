"""`reviewbot config check [PATH]`: validate a config file on disk, print what takes effect.

A config is read from the base branch, so a mistake in it only shows once it is merged; this
checks the file before it is committed, with the same validation and the same one-line errors
(`ConfigError`, exit 2), and prints the effective configuration — every key, defaults filled
in — as TOML that loads back to the same configuration. Must not: read git or the network.
"""

from __future__ import annotations

import json
import os
import stat
from enum import Enum
from pathlib import Path
from typing import Any

from reviewbot.config.file import DEFAULT_GUIDELINES, ReviewConfig, load_config
from reviewbot.errors import ConfigError

# No config is this long: refused unread (the contents API, which reads a PR's base config,
# serves files only up to 1 MB), so a mistaken path cannot cost minutes of parsing.
MAX_BYTES = 1_000_000
_KINDS = (
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def check_file(path: Path) -> ReviewConfig:
    """The configuration `path` holds; ConfigError (exit 2) names the line of what is wrong.

    Only a regular file is read: a FIFO, a device or `/dev/stdin` on a pipe would block or
    never end. It is opened without blocking (a FIFO with no writer), then judged by its
    descriptor, so what is checked is what is read.
    """
    origin = f"`{path}`"
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except FileNotFoundError:
        raise ConfigError(f"{origin}: not found (give the path of the file to check)") from None
    except IsADirectoryError:
        raise ConfigError(f"{origin}: is a directory, not a file") from None
    except OSError as exc:
        raise ConfigError(f"{origin}: cannot read it: {exc.strerror}") from exc
    try:
        data = _regular_bytes(fd, origin)
    finally:
        os.close(fd)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{origin}: cannot read it: not UTF-8 text") from exc
    return load_config(text, origin=origin)


def _regular_bytes(fd: int, origin: str) -> bytes:
    """The bytes of the regular file open on `fd`, at most `MAX_BYTES`; ConfigError otherwise."""
    mode = os.fstat(fd).st_mode
    if stat.S_ISDIR(mode):
        raise ConfigError(f"{origin}: is a directory, not a file")
    if not stat.S_ISREG(mode):
        kind = next((name for test, name in _KINDS if test(mode)), "not a file")
        raise ConfigError(f"{origin}: is not a regular file ({kind}): give the path of the file")
    try:
        data = _read_at_most(fd, MAX_BYTES + 1)  # a file growing meanwhile is still cut here
    except OSError as exc:
        raise ConfigError(f"{origin}: cannot read it: {exc.strerror}") from exc
    if len(data) > MAX_BYTES:
        size = max(os.fstat(fd).st_size, len(data))
        raise ConfigError(
            f"{origin}: is too large ({size:,} bytes; a config is at most {MAX_BYTES:,})"
        )
    return data


def _read_at_most(fd: int, limit: int) -> bytes:
    chunks: list[bytes] = []
    left = limit
    while left > 0 and (chunk := os.read(fd, min(left, 1 << 16))):
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def effective_toml(config: ReviewConfig) -> str:
    """Every key with its value in effect, as TOML (`tomllib` reads it back to `config`)."""
    data = _plain(config.model_dump())
    out = [f"{key} = {_value(value)}" for key, value in data.items() if _scalar(value)]
    for key, value in data.items():
        if isinstance(value, dict):
            out.extend(_table(key, value))
        elif isinstance(value, list) and value and all(isinstance(item, dict) for item in value):
            for item in value:
                out.extend(["", f"[[{key}]]", *_pairs(item)])
        if key == "policy" and config.policy.rules is None:
            rules = "; ".join(rule.describe() for rule in config.policy.node_policy().rules)
            out.append(f"# no [[policy.rules]]: the default rules apply ({rules})")
        if key == "review" and config.review.guidelines is None:
            out.append(
                f"# no guidelines list: the first that exists of {', '.join(DEFAULT_GUIDELINES)}"
            )
        if key == "publish" and config.publish.max_inline_per_file is None:
            out.append("# no max_inline_per_file: no cap per file")
    return "\n".join(out) + "\n"


def _plain(value: object) -> Any:
    """Python values as TOML has them: a set sorted (its order is arbitrary), enums as text."""
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    if isinstance(value, frozenset | set):
        return sorted(_plain(item) for item in value)
    if isinstance(value, tuple | list):
        return [_plain(item) for item in value]
    if isinstance(value, Enum):
        return value.value
    return value


def _table(name: str, table: dict[str, Any]) -> list[str]:
    lines = ["", f"[{name}]", *_pairs(table)]
    for key, value in table.items():
        if isinstance(value, dict):  # a sub-table: `[ask.budget]`
            lines.extend(_table(f"{name}.{key}", value))
        elif isinstance(value, list) and value and all(isinstance(item, dict) for item in value):
            for item in value:
                lines.extend(["", f"[[{name}.{key}]]", *_pairs(item)])
    return lines


def _pairs(table: dict[str, Any]) -> list[str]:
    return [f"{key} = {_value(value)}" for key, value in table.items() if _scalar(value)]


def _scalar(value: object) -> bool:
    """A value written as `key = value`: not a table, an array of tables, or unset (None)."""
    if value is None or isinstance(value, dict):
        return False
    return not (isinstance(value, list) and value and all(isinstance(v, dict) for v in value))


def _value(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return "[" + ", ".join(_value(item) for item in value) + "]"
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, int):
        return str(value)
    # A JSON string is a TOML basic string: the same quotes and escapes.
    return json.dumps(value, ensure_ascii=False)
