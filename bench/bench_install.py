"""Benchmark the Action's install step: the old unpinned `pip install` against the locked one.

    python bench/bench_install.py [--python python3.12] [--source DIR] [--only locked]

Each variant runs twice in a fresh venv: first with an empty pip cache (a first run, or a
new lock), then with the cache the first run left (what actions/cache restores). pip reads
no config file (PIP_CONFIG_FILE=/dev/null), as on a GitHub runner. Printed per run: wall
seconds and the CPU seconds of pip and its children (wall time on a loaded machine says
little; CPU time travels better).

  unpinned  the old step: `pip install SRC` (resolves and builds with isolation every run)
  locked    the new step: `pip install --no-compile --require-hashes --only-binary :all:
            -r requirements/action.txt`, then `pip install --no-compile --no-deps
            --no-build-isolation SRC`
  uv        the same two installs by `uv pip` (the `uv` on PATH, its cache emptied the
            same way): what the step would cost were uv bootstrapped first
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
VARIANTS = ["unpinned", "locked", "uv"]


def _steps(venv: Path, source: Path) -> dict[str, list[list[str]]]:
    pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet"]
    new = [*pip, "--no-compile"]
    uv = ["uv", "pip", "install", "--quiet", "--python", str(venv / "bin" / "python")]
    lock = source / "requirements" / "action.txt"
    locked = ["--require-hashes", "--only-binary", ":all:", "-r", str(lock)]
    return {
        "unpinned": [[*pip, str(source)]],
        "locked": [[*new, *locked], [*new, "--no-deps", "--no-build-isolation", str(source)]],
        "uv": [[*uv, *locked], [*uv, "--no-deps", "--no-build-isolation", str(source)]],
    }


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run(variant: str, python: str, source: Path, cache: Path, work: Path) -> tuple[float, float]:
    venv = work / "venv"
    shutil.rmtree(venv, ignore_errors=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith("PIP_")}
    env |= {"PIP_CONFIG_FILE": os.devnull, "PIP_CACHE_DIR": str(cache), "UV_CACHE_DIR": str(cache)}
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    started, cpu = time.perf_counter(), _cpu()
    subprocess.run([python, "-m", "venv", str(venv)], check=True)
    for step in _steps(venv, source)[variant]:
        subprocess.run(step, env=env, check=True)
    return time.perf_counter() - started, _cpu() - cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--python", default="python3", help="the interpreter the venv is made of")
    parser.add_argument("--source", type=Path, default=ROOT, help="reviewbot's source tree")
    parser.add_argument("--only", choices=VARIANTS, help="run one variant")
    args = parser.parse_args()
    for variant in [args.only] if args.only else VARIANTS:
        with tempfile.TemporaryDirectory() as tmp:
            work = Path(tmp)
            for cache in ("cold", "warm"):
                wall, cpu = run(variant, args.python, args.source.resolve(), work / "cache", work)
                print(
                    f"{variant:9} {cache} cache: {wall:6.1f} s wall, {cpu:6.1f} s CPU", flush=True
                )


if __name__ == "__main__":
    main()
