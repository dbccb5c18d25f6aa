"""Benchmark start-up: how long `reviewbot --help` and a usage error take, against `import click`.

    python bench/bench_startup.py [--runs 15] [--source DIR]

Each command is a fresh interpreter (`python -m reviewbot …`, with PYTHONPATH at
`--source`, default this checkout), run `--runs` times after one warm-up run, and the
median wall time is printed with the minimum. The yardstick is `python -c "import
click"` on the same machine in the same loop, so the ratio holds on a loaded
machine too (the target: `reviewbot --help` at most 4× it). The last lines say
whether `import reviewbot.cli` loads anthropic, github (PyGithub), pydantic or rich.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
COMMANDS = {
    "python -c 'import click'": ["-c", "import click"],
    "reviewbot --help": ["-m", "reviewbot", "--help"],
    "reviewbot review --help": ["-m", "reviewbot", "review", "--help"],
    "reviewbot review (usage error)": ["-m", "reviewbot", "review"],
    "reviewbot --version": ["-m", "reviewbot", "--version"],
}
HEAVY = ("anthropic", "github", "pydantic", "rich", "git", "jinja2")


def timed(args: list[str], env: dict[str, str], source: Path) -> float:
    started = time.perf_counter()
    # cwd too: `python -m` puts the working directory first on sys.path.
    subprocess.run([sys.executable, *args], env=env, cwd=source, capture_output=True, check=False)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--source", type=Path, default=ROOT)
    options = parser.parse_args()
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "PYTHONPATH": str(options.source.resolve()),
        "LANG": "C.UTF-8",
    }
    results: dict[str, list[float]] = {name: [] for name in COMMANDS}
    source = options.source.resolve()
    for args in COMMANDS.values():
        timed(args, env, source)  # warm the file cache and write the bytecode
    for _ in range(options.runs):  # interleaved, so a busy moment hits every command alike
        for name, args in COMMANDS.items():
            results[name].append(timed(args, env, source))
    click = statistics.median(results["python -c 'import click'"])
    print(f"source: {options.source.resolve()}  runs: {options.runs}")
    print(f"{'command':<34} {'median s':>9} {'min s':>7} {'× click':>8}")
    for name, times in results.items():
        median = statistics.median(times)
        print(f"{name:<34} {median:>9.3f} {min(times):>7.3f} {median / click:>8.1f}")
    probe = f"import sys, reviewbot.cli; print(' '.join(m for m in {HEAVY!r} if m in sys.modules))"
    loaded = subprocess.run(
        [sys.executable, "-c", probe], env=env, cwd=source, capture_output=True, text=True
    ).stdout.strip()
    print(f"loaded by `import reviewbot.cli`: {loaded or 'none of ' + ', '.join(HEAVY)}")


if __name__ == "__main__":
    main()
