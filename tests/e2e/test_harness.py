"""The harness runs the reviewbot of this checkout, not whatever copy happens to be installed,
and under `pytest --cov` its runs are measured too."""

from __future__ import annotations

import subprocess
import sys

import coverage

from tests.fakes.world import COVERAGE_VARIABLES, SOURCE_ROOT, open_world

BASE = {"a.py": "a = 1\n"}
HEAD = {"a.py": "a = 2\n"}


class TestHarness:
    def test_the_subprocess_imports_this_checkouts_reviewbot(self, tmp_path):
        """With the run's environment, `import reviewbot` resolves inside this source tree."""
        with open_world(tmp_path, base=BASE, head=HEAD) as world:
            folder = world.folder("probe")
            env = world.process_env(folder, event_name=None, event=None)
            found = subprocess.run(
                [sys.executable, "-c", "import reviewbot; print(reviewbot.__file__)"],
                cwd=folder,
                env=env,
                capture_output=True,
                text=True,
                check=True,
            ).stdout.strip()
        assert found == str(SOURCE_ROOT / "reviewbot" / "__init__.py")


class TestMeasuredRuns:
    def test_the_run_environment_keeps_coverages_variables_and_nothing_else(
        self, tmp_path, monkeypatch
    ):
        """Both ways coverage starts in a child pass; the developer's other variables do not."""
        for name in COVERAGE_VARIABLES:
            monkeypatch.setenv(name, f"value of {name}")
        monkeypatch.setenv("DEVELOPERS_OWN", "x")
        with open_world(tmp_path, base=BASE, head=HEAD) as world:
            for github in (True, False):
                env = world.process_env(
                    world.folder(f"probe-{github}"), event_name=None, event=None, github=github
                )
                assert {n: env[n] for n in COVERAGE_VARIABLES} == {
                    n: f"value of {n}" for n in COVERAGE_VARIABLES
                }
                assert "DEVELOPERS_OWN" not in env

    def test_a_run_under_coverage_records_the_lines_it_ran(self, tmp_path, monkeypatch):
        """A real `python -m reviewbot` through the harness writes coverage data for cli.py."""
        data_file = tmp_path / "measured" / ".coverage"
        data_file.parent.mkdir()
        config = tmp_path / "coverage.toml"
        config.write_text(
            f'[tool.coverage.run]\nbranch = true\nsource = ["reviewbot"]\ndata_file = "{data_file}"\n',
            encoding="utf-8",
        )
        # The suite's own measurement (COVERAGE_PROCESS_CONFIG) would win over this file.
        monkeypatch.delenv("COVERAGE_PROCESS_CONFIG", raising=False)
        monkeypatch.setenv("COVERAGE_PROCESS_START", str(config))
        with open_world(tmp_path / "world", base=BASE, head=HEAD) as world:
            run = world.run(["version"], anthropic=False, github=False)
        assert run.returncode == 0, run.stderr
        data = coverage.CoverageData(str(data_file))
        data.read()
        cli = str(SOURCE_ROOT / "reviewbot" / "cli.py")
        assert cli in data.measured_files()
        assert data.lines(cli)
