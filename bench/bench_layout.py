"""Layout and coverage figures: branch coverage per package, test lines per source line, long
modules and long functions.

    pytest --cov --cov-report=json:after.json        # the suite, subprocesses measured
    python bench/bench_layout.py [LABEL=]REPORT.json ...

Each REPORT is a `coverage json` report (pytest-cov's `--cov-report=json:PATH`); several are
printed side by side (e.g. `before=main.json after=branch.json`). Without a report only the
layout figures are printed. Definitions:
- **total**: coverage.py's figure, the one `fail_under` gates: (covered lines + covered
  branches) / (statements + branches); **branches**: covered branches / branches alone.
- **package**: the first folder under `reviewbot/`; modules directly in it are "(top)".
- **lines**: physical lines of the `.py` files under `reviewbot/` and `tests/`; **code lines**
  leave out blank lines and lines that are only a comment.
- **function length**: from its `def` line to its last line (decorators not counted); nested
  functions are counted on their own and inside their parent.
"""

from __future__ import annotations

import argparse
import ast
import json
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = "reviewbot"
MODULE_LIMIT = 600
FUNCTION_LIMIT = 60
SHOWN_MODULES = ("app.py", "cli.py")


@dataclass(frozen=True, slots=True)
class Counts:
    statements: int = 0
    covered_lines: int = 0
    branches: int = 0
    covered_branches: int = 0

    def __add__(self, other: Counts) -> Counts:
        return Counts(
            self.statements + other.statements,
            self.covered_lines + other.covered_lines,
            self.branches + other.branches,
            self.covered_branches + other.covered_branches,
        )

    @property
    def total(self) -> float:
        measured = self.statements + self.branches
        return (
            100.0 * (self.covered_lines + self.covered_branches) / measured if measured else 100.0
        )

    @property
    def branch_share(self) -> float:
        return 100.0 * self.covered_branches / self.branches if self.branches else 100.0


def module_of(path: str) -> str:
    """`reviewbot/github/publisher.py` (wherever the report was made) → `github/publisher.py`."""
    parts = Path(path).parts
    return "/".join(parts[len(parts) - 1 - parts[::-1].index(PACKAGE) + 1 :])


def package_of(module: str) -> str:
    return module.split("/")[0] if "/" in module else "(top)"


def read_report(path: Path) -> dict[str, Counts]:
    """Per module of the package: the counts of a `coverage json` report."""
    report: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    modules = {}
    for name, entry in report["files"].items():
        summary = entry["summary"]
        modules[module_of(name)] = Counts(
            summary["num_statements"],
            summary["covered_lines"],
            summary.get("num_branches", 0),
            summary.get("covered_branches", 0),
        )
    return modules


def coverage_table(reports: dict[str, dict[str, Counts]]) -> list[str]:
    labels = list(reports)
    rows: dict[str, dict[str, Counts]] = defaultdict(dict)
    for label, modules in reports.items():
        for module, counts in modules.items():
            package = rows[package_of(module)]
            package[label] = package.get(label, Counts()) + counts
            if module in SHOWN_MODULES:
                rows[module][label] = counts
            rows["TOTAL"][label] = rows["TOTAL"].get(label, Counts()) + counts
    head = f"{'':<22}" + "".join(
        f"{label + ' total':>16}{label + ' branches':>19}" for label in labels
    )
    lines = [head]
    order = sorted(k for k in rows if k not in SHOWN_MODULES and k != "TOTAL")
    for key in ["TOTAL", *SHOWN_MODULES, *order]:
        cells = [rows[key].get(label) for label in labels]
        lines.append(
            f"{key:<22}"
            + "".join(
                f"{c.total:>15.1f}%{c.branch_share:>18.1f}%" if c else f"{'-':>16}{'-':>19}"
                for c in cells
            )
        )
    return lines


def count_lines(folder: Path) -> tuple[int, int]:
    """(physical lines, code lines) of the `.py` files under `folder`."""
    physical = code = 0
    for path in folder.rglob("*.py"):
        for line in path.read_text(encoding="utf-8").splitlines():
            physical += 1
            stripped = line.strip()
            code += bool(stripped) and not stripped.startswith("#")
    return physical, code


def layout() -> list[str]:
    source, tests = count_lines(ROOT / PACKAGE), count_lines(ROOT / "tests")
    modules = sorted((ROOT / PACKAGE).rglob("*.py"))
    long_modules, long_functions = [], []
    for path in modules:
        text = path.read_text(encoding="utf-8")
        name = path.relative_to(ROOT).as_posix()
        if (length := len(text.splitlines())) > MODULE_LIMIT:
            long_modules.append(f"  {name}: {length}")
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                span = (node.end_lineno or node.lineno) - node.lineno + 1
                if span > FUNCTION_LIMIT:
                    long_functions.append(f"  {name}:{node.lineno} {node.name}: {span}")
    return [
        f"modules: {len(modules)}; source lines: {source[0]} (code {source[1]}); "
        f"test lines: {tests[0]} (code {tests[1]})",
        f"test lines per source line: {tests[0] / source[0]:.2f} (code lines: {tests[1] / source[1]:.2f})",
        f"modules over {MODULE_LIMIT} lines: {len(long_modules)}",
        *long_modules,
        f"functions over {FUNCTION_LIMIT} lines: {len(long_functions)}",
        *long_functions,
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("reports", nargs="*", help="[LABEL=]PATH of a `coverage json` report")
    args = parser.parse_args()
    reports = {}
    for spec in args.reports:
        label, sep, path = spec.partition("=")
        reports[label if sep else Path(spec).stem] = read_report(Path(path if sep else spec))
    if reports:
        print("\n".join(coverage_table(reports)), end="\n\n")
    print("\n".join(layout()))


if __name__ == "__main__":
    main()
