"""Layout rules: each third-party library is imported by its adapter only; the core is pure."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "reviewbot"

# library → the modules allowed to import it (paths relative to reviewbot/, prefixes allowed)
ADAPTERS = {
    "anthropic": ("agent/client.py",),
    "github": ("github_api.py",),
    "git": ("sources/git_repo.py", "tools/git_views.py"),
    "jinja2": ("render.py",),
    "click": ("cli.py",),
    "unidiff": ("sources/diff_index.py",),
    "rich": ("publish/terminal.py", "agent/progress.py", "eval/terminal.py", "eval/command.py"),
    "re2": ("tools/pattern.py",),
    "requests": (),
    "httpx": ("agent/client.py",),  # only to type the injectable transport-level client
}
PURE_CORE = ("nodes/", "verdict/")
PURE_ALLOWED = {"pydantic", "reviewbot"}


def imported_roots(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    roots = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            roots.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            roots.add(node.module.split(".")[0])
    return roots


MODULES = sorted(PACKAGE.rglob("*.py"))


class TestImports:
    @pytest.mark.parametrize("path", MODULES, ids=[str(p.relative_to(PACKAGE)) for p in MODULES])
    def test_third_party_libraries_only_in_their_adapter(self, path):
        """`anthropic`, `github`, `git`, `jinja2`, `click`… are each imported by one adapter."""
        rel = path.relative_to(PACKAGE).as_posix()
        for library in imported_roots(path) & ADAPTERS.keys():
            assert rel.startswith(ADAPTERS[library]), (
                f"{rel} imports {library}; only {ADAPTERS[library]} may"
            )

    @pytest.mark.parametrize(
        "path",
        [p for p in MODULES if p.relative_to(PACKAGE).as_posix().startswith(PURE_CORE)],
        ids=lambda p: str(p.relative_to(PACKAGE)),
    )
    def test_core_is_pure(self, path):
        """nodes/ and verdict/ import only the standard library, pydantic and reviewbot's pure parts."""
        import sys

        third_party = {r for r in imported_roots(path) if r not in sys.stdlib_module_names}
        assert third_party <= PURE_ALLOWED, f"{path.name} imports {third_party - PURE_ALLOWED}"
