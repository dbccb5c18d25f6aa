"""GitHub Actions expressions, the part a workflow's `if:` uses, evaluated as GitHub does.

Literals are `'single quoted'` (`''` is a quote; no backslash escapes), `true`, `false`,
`null` and numbers; contexts are dotted names (`github.event.comment.body`; a missing one is
null); the operators `!`, `==`, `!=`, `&&`, `||` and parentheses; the functions
`startsWith`, `endsWith`, `contains` (strings compared ignoring case, as GitHub does),
`toJSON` and `fromJSON`. `&&` and `||` return an operand, as GitHub's do. Anything else is a
syntax error here, so a workflow that starts using more fails its test loudly.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from typing import Any

_TOKEN = re.compile(
    r"\s*(?:(?P<string>'(?:[^']|'')*')|(?P<number>-?\d+(?:\.\d+)?)"
    r"|(?P<op>&&|\|\||==|!=|[!(),])|(?P<name>[A-Za-z_][\w.-]*))"
)


def _text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return value if isinstance(value, str) else json.dumps(value)


def _truthy(value: Any) -> bool:
    return value not in (None, False, 0, "")


def _equal(a: Any, b: Any) -> bool:
    if isinstance(a, str) and isinstance(b, str):
        return a.casefold() == b.casefold()
    return bool(a == b)


_FUNCTIONS: dict[str, Callable[..., Any]] = {
    "startswith": lambda s, p: _text(s).casefold().startswith(_text(p).casefold()),
    "endswith": lambda s, p: _text(s).casefold().endswith(_text(p).casefold()),
    "contains": lambda s, p: _text(p).casefold() in _text(s).casefold(),
    # GitHub's is indented JSON; a string's escapes (\n, \r, \t, \") are the same.
    "tojson": lambda v: json.dumps(v, indent=2, ensure_ascii=False),
    "fromjson": lambda s: json.loads(_text(s)),
}


def evaluate(expression: str, contexts: Mapping[str, Any]) -> Any:
    """The value of `expression` (an `if:` without `${{ }}`) over `contexts`."""
    tokens = [(m.lastgroup, m.group(m.lastgroup or "")) for m in _tokens(expression)]
    parser = _Parser(tokens, contexts)
    value = parser.or_()
    if parser.at < len(tokens):
        raise SyntaxError(f"unexpected {tokens[parser.at][1]!r} in {expression!r}")
    return value


def _tokens(expression: str) -> list[re.Match[str]]:
    found, at = [], 0
    while expression[at:].strip():
        match = _TOKEN.match(expression, at)
        if match is None or match.lastgroup is None:
            raise SyntaxError(f"cannot read {expression[at:]!r}")
        found.append(match)
        at = match.end()
    return found


class _Parser:
    def __init__(self, tokens: list[tuple[str | None, str]], contexts: Mapping[str, Any]):
        self.tokens, self.contexts, self.at = tokens, contexts, 0

    def _peek(self) -> str | None:
        return self.tokens[self.at][1] if self.at < len(self.tokens) else None

    def _take(self, expected: str | None = None) -> tuple[str | None, str]:
        token = self.tokens[self.at]
        if expected is not None and token[1] != expected:
            raise SyntaxError(f"expected {expected!r}, found {token[1]!r}")
        self.at += 1
        return token

    def or_(self) -> Any:
        return self._chain("||", self.and_, lambda left, right: left if _truthy(left) else right)

    def and_(self) -> Any:
        return self._chain("&&", self.compare, lambda left, right: right if _truthy(left) else left)

    def _chain(self, op: str, operand: Callable[[], Any], pick: Callable[[Any, Any], Any]) -> Any:
        """`operand (op operand)*`, left to right; both sides are read (nothing here has effects)."""
        value = operand()
        while self._peek() == op:
            self._take()
            value = pick(value, operand())
        return value

    def compare(self) -> Any:
        value = self.unary()
        while self._peek() in ("==", "!="):
            op = self._take()[1]
            same = _equal(value, self.unary())
            value = same if op == "==" else not same
        return value

    def unary(self) -> Any:
        if self._peek() == "!":
            self._take()
            return not _truthy(self.unary())
        return self.atom()

    def atom(self) -> Any:
        kind, text = self._take()
        if text == "(":
            value = self.or_()
            self._take(")")
            return value
        if kind == "string":
            return text[1:-1].replace("''", "'")
        if kind == "number":
            return float(text)
        if kind != "name":
            raise SyntaxError(f"unexpected {text!r}")
        if self._peek() == "(":
            return self._call(text)
        return {"true": True, "false": False, "null": None}.get(text, self._lookup(text))

    def _call(self, name: str) -> Any:
        self._take("(")
        args = [self.or_()]
        while self._peek() == ",":
            self._take()
            args.append(self.or_())
        self._take(")")
        return _FUNCTIONS[name.casefold()](*args)

    def _lookup(self, dotted: str) -> Any:
        value: Any = self.contexts
        for part in dotted.split("."):
            value = value.get(part) if isinstance(value, Mapping) else None
        return value
