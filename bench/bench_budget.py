"""Benchmark the time budget: catastrophic patterns, and a run against a Messages API that hangs.

    python bench/bench_budget.py                          # this checkout only (~20 s)
    python bench/bench_budget.py --before /path/to/old    # also the hanging-API runs of another checkout

Prints, each as before → after where there is a before:
1. `search_code` with `(a+)+$` (and two other backtracking patterns) on a line of `a`s and
   a `!`: Python's `re` line by line, as the tool matched before (n = 20…24 measured, the
   n = 30 of the issue in a child process stopped at 60 s), then the tool itself (RE2).
2. A glob of 12 stars (`*a*a…*c`) against a 40-character name: `re` (config's compiler,
   which the read tools used) against the tools' RE2 matcher.
3. Throughput: one search over a 200,000-line file, `re` per line against RE2's one pass.
4. `reviewbot review --github-event --post` as a subprocess against loopback fakes whose
   Messages API accepts every request and never answers, with `timeout_seconds` = N:
   the run's wall time, the requests the API received, the verdict and whether it posted.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from reviewbot.config.file import matches_any
from reviewbot.tools.paths import glob_matching
from reviewbot.tools.pattern import LinePattern
from tests.e2e import harness
from tests.fakes.server import Stall
from tests.fakes.webhooks import pull_request_event
from tests.fakes.world import open_world
from tests.tools.factories import build_repo, make_session

CAP = 60.0  # seconds a "before" measurement may run before it is stopped


def timed(work: Callable[[], object]) -> float:
    started = time.perf_counter()
    work()
    return time.perf_counter() - started


def in_child(code: str, cap: float = CAP) -> str:
    """Wall time of `code` in a child interpreter, or `> cap s` when it had to be stopped."""
    started = time.perf_counter()
    try:
        subprocess.run([sys.executable, "-c", code], timeout=cap, check=True)
    except subprocess.TimeoutExpired:
        return f"> {cap:.0f} s (stopped)"
    return f"{time.perf_counter() - started:.2f} s"


def regexes(root: Path) -> None:
    print("## 1. search_code with a backtracking pattern (line: n `a`s and a `!`)")
    session = make_session(build_repo(root))
    target = root / "repo" / "redos.txt"

    def search(regex: str) -> float:
        return timed(lambda: session.call("search_code", {"regex": regex, "glob": "redos.txt"}))

    for regex in (r"(a+)+$", r"(a|aa)+$", r"(x+x+)+y"):
        letter = "x" if "x" in regex else "a"
        compiled = re.compile(regex)
        before = [
            (n, timed(lambda n=n, c=compiled, a=letter: c.search(a * n + "!")))
            for n in (20, 22, 24)
        ]
        child = in_child(f"import re; re.compile({regex!r}).search({letter * 30 + '!'!r})")
        target.write_text(letter * 30 + "!\n")
        after = search(regex)
        target.write_text(letter * 9_000 + "!\n")
        after_long = search(regex)
        steps = ", ".join(f"n={n}: {t:.2f} s" for n, t in before)
        print(f"- `{regex}`  before (re): {steps}; n=30: {child}")
        print(
            f"  after (search_code, RE2): n=30: {after * 1000:.1f} ms; "
            f"n=9,000: {after_long * 1000:.1f} ms"
        )


def globs() -> None:
    print("\n## 2. a 12-star glob against a long name of `a`s")
    glob = "*a" * 12 + "*c"
    for n in (20, 26, 30):
        path = "a" * n
        before = timed(lambda path=path: matches_any(path, (glob,), rooted=True))
        print(f"- n={n}: before (re) {before:.2f} s", end="")
        after = timed(lambda path=path: glob_matching(glob)(path))
        print(f"; after (RE2) {after * 1000:.2f} ms")
    child = in_child(
        "from reviewbot.config.file import matches_any; "
        f"matches_any({'a' * 40!r}, ({glob!r},), rooted=True)"
    )
    after = timed(lambda: glob_matching(glob)("a" * 40))
    print(f"- n=40: before (re) {child}; after (RE2) {after * 1000:.2f} ms")


def throughput(root: Path) -> None:
    print("\n## 3. throughput: one search over a 200,000-line file (8 MB)")
    lines = [f"    value_{i} = compute(item_{i}, other) + {i}" for i in range(200_000)]
    repo = root / "wide"
    repo.mkdir()
    (repo / "big.py").write_text("\n".join(lines) + "\n")
    text = (repo / "big.py").read_text()
    for regex in (r"compute\(item_1999", r"\bnot_there\b"):
        pattern = re.compile(regex)
        before = timed(lambda pattern=pattern: [ln for ln in lines if pattern.search(ln[:2000])])
        after = timed(lambda r=regex, t=text: list(LinePattern(r).matching_lines(t)))
        print(
            f"- `{regex}`: before (re, per line) {before:.2f} s; after (RE2, one pass) {after:.2f} s"
        )


def hanging_api(root: Path, checkouts: list[tuple[str, Path]], budgets: list[float]) -> None:
    print("\n## 4. a run against a Messages API that accepts and never answers")
    print(
        "| code | timeout_seconds | process wall s | first request → check run posted, s "
        "| requests to the API | verdict | posted |"
    )
    print("|---|---:|---:|---:|---:|---|---|")
    for label, checkout in checkouts:
        harness.SOURCE_ROOT = checkout
        for budget in budgets:
            files = {
                "app.py": "x = 1\n",
                ".reviewbot.toml": f"[budget]\ntimeout_seconds = {budget}\n",
            }
            folder = root / f"hang-{label}-{budget}"
            with open_world(folder, base=files, head={"app.py": "x = eval(input())\n"}) as world:
                world.model_server.fail_next("POST", r"^/v1/messages$", Stall(), times=50)
                args = ["review", "--github-event", "--post"]
                started = time.perf_counter()
                run = world.run(args, event_name="pull_request", event=pull_request_event(world))
                wall = time.perf_counter() - started
                requests = len(world.model_server.snapshot())
                checks = run.calls("POST", "/check-runs")
                span = f"{checks[-1].at - run.github[0].at:.1f}" if checks else "—"
                verdict = run.outputs.get("verdict", "?")
                print(
                    f"| {label} | {budget:g} | {wall:.1f} | {span} | {requests} | {verdict} "
                    f"| {bool(checks)} |"
                )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", type=Path, help="another checkout, run for section 4 too")
    parser.add_argument("--budgets", type=float, nargs="+", default=[2.0, 5.0])
    parser.add_argument("--api-only", action="store_true", help="section 4 only")
    args = parser.parse_args()
    here = Path(__file__).resolve().parents[1]
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        if not args.api_only:
            regexes(root)
            globs()
            throughput(root)
        checkouts = [("after", here)]
        if args.before is not None:
            checkouts.insert(0, ("before", args.before.resolve()))
        hanging_api(root, checkouts, args.budgets)


if __name__ == "__main__":
    main()
