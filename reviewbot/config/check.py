"""`reviewbot config check [PATH]`: validate a config file on disk, print what takes effect.

A config is read from the base branch, so a mistake in it only shows once it is merged; this
checks the file before it is committed, with the same validation and the same one-line errors
(`ConfigError`, exit 2), and prints the effective configuration — every key, defaults filled
in — as TOML that loads back to the same configuration. Must not: read git or the network.
"""

from __future__ import annotations

import json
from enum import Enum
from pathlib import Path
from typing import Any

from reviewbot.config.file import DEFAULT_GUIDELINES, ReviewConfig, load_config
from reviewbot.errors import ConfigError


def check_file(path: Path) -> ReviewConfig:
    """The configuration `path` holds; ConfigError (exit 2) names the line of what is wrong."""
    origin = f"`{path}`"
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(f"{origin}: not found (give the path of the file to check)") from None
    except (OSError, UnicodeDecodeError) as exc:
        why = exc.strerror if isinstance(exc, OSError) else "not UTF-8 text"
        raise ConfigError(f"{origin}: cannot read it: {why}") from exc
    return load_config(text, origin=origin)


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
