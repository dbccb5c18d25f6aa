"""The harness runs the reviewbot of this checkout, not whatever copy happens to be installed."""

from __future__ import annotations

import subprocess
import sys

from tests.e2e.harness import SOURCE_ROOT, open_world


class TestHarness:
    def test_the_subprocess_imports_this_checkouts_reviewbot(self, tmp_path):
        """With the run's environment, `import reviewbot` resolves inside this source tree."""
        with open_world(tmp_path, base={"a.py": "a = 1\n"}, head={"a.py": "a = 2\n"}) as world:
            folder = world.folder("probe")
            env = world.env(folder, event_name=None, event=None)
            found = subprocess.run(
                [sys.executable, "-c", "import reviewbot; print(reviewbot.__file__)"],
                cwd=folder,
                env=env,
                capture_output=True,
                text=True,
                check=True,
            ).stdout.strip()
        assert found == str(SOURCE_ROOT / "reviewbot" / "__init__.py")
