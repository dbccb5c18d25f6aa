"""CI runs the README's test command verbatim, and that command measures coverage."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def readme_test_command() -> str:
    """The one line under "Run the tests" on the README's first screen."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    found = re.search(r"\*\*Run the tests\*\*[^\n]*\s*```sh\n(?P<line>[^\n]+)\n```", readme)
    assert found, "README: no one-line sh block under **Run the tests:**"
    return found["line"]


class TestTheTestCommand:
    def test_ci_runs_the_readmes_command_verbatim(self):
        lines = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
        assert readme_test_command() in lines

    def test_it_measures_coverage_against_the_gate(self):
        """`--cov` is what applies [tool.coverage] (subprocesses, branches, fail_under)."""
        pytest = readme_test_command().split("&&")[-1].split()
        assert pytest[0] == "pytest"
        assert "--cov" in pytest[1:]
