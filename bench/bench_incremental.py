"""Benchmark incremental review on push: input tokens of a push's review, incremental vs full.

    python bench/bench_incremental.py [--files 20] [--pushed 2] [--lines 60]

Builds two identical worlds (tests/fakes/world.py: a real git repository, the fake
GitHub and the fake Messages API on loopback, `python -m reviewbot review --github-event
--post` as GitHub Actions runs it). In each, a PR changing `--files` files is reviewed
at its first head A (one finding, carried later), then a push touches `--pushed` more
files. World one reviews the push as the `synchronize` event does (incremental since A);
world two gets a `/review full` from a maintainer first, so the same head is reviewed in
full. The scripted model ends each review of the push without findings, so both runs make
the same requests and differ only in what the context holds.

Prints, for the review of the push: model requests, input tokens (uncached + cache
writes + cache reads, the fake's count), and the ratio incremental / full.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.fakes.messages_api import reply, text, tool_use
from tests.fakes.runs import Run
from tests.fakes.webhooks import issue_comment_event, pull_request_event
from tests.fakes.world import REPO, World, open_world

ARGS = ["review", "--github-event", "--post"]


def source(name: str, lines: int, version: int) -> str:
    """A Python file of `lines` functions; `version` changes every other body."""
    out = []
    for i in range(lines):
        body = f"x * {i + version}" if i % 2 == 0 and version else f"x + {i}"
        out.append(f"def {name}_{i}(x):\n    return {body}\n")
    return "\n".join(out)


def finding() -> dict[str, Any]:
    line = "    return x * 1"  # f00_0 at the first head: changed from x + 0
    return {
        "kind": "suggestion",
        "priority": "P3",
        "confidence": 0.6,
        "title": "A magic number",
        "body": "Name the factor.",
        "anchor": {"path": "f00.py", "start_line": 2, "end_line": 2, "quote": line},
    }


def world(root: Path, files: int, pushed: int, lines: int) -> World:
    names = [f"f{i:02d}" for i in range(files + pushed)]
    base = {f"{n}.py": source(n, lines, 0) for n in names}
    head = {f"{n}.py": source(n, lines, 1) for n in names[:files]}
    script = [
        reply(tool_use("add_review_node", finding())),
        reply(text("One suggestion.")),
        reply(text("Nothing new.")),
    ]
    return open_world(
        root, base=base, head=head, script=script, permissions={"maintainer": "write"}
    )


def push(w: World, names: list[str], lines: int) -> None:
    w.push({f"{name}.py": source(name, lines, 2) for name in names})


def tokens(run: Run) -> tuple[int, int, str]:
    assert run.returncode in (0, 1), run.stderr
    report = run.report()
    usage = report["usage"]
    total = usage["input_tokens"] + usage["cache_read_tokens"] + usage["cache_write_tokens"]
    # A version before incremental review (run from an older checkout) records no kind.
    return usage["requests"], total, (report.get("review") or {}).get("kind", "full")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=20)
    parser.add_argument("--pushed", type=int, default=2)
    parser.add_argument("--lines", type=int, default=60, help="functions per file")
    args = parser.parse_args()
    pushed = [f"f{i:02d}" for i in range(args.files, args.files + args.pushed)]
    rows = []
    with tempfile.TemporaryDirectory(prefix="bench-incremental-") as tmp:
        for kind in ("incremental", "full"):
            with world(Path(tmp) / kind, args.files, args.pushed, args.lines) as w:
                first = w.run(ARGS, event_name="pull_request", event=pull_request_event(w))
                push(w, pushed, args.lines)
                if kind == "full":
                    w.github.add_issue_comment(
                        REPO, w.pull.number, "/review full", "maintainer", "MEMBER"
                    )
                    event = issue_comment_event(w, login="maintainer", body="/review full")
                    second = w.run(ARGS, event_name="issue_comment", event=event)
                else:
                    event = pull_request_event(w, action="synchronize")
                    second = w.run(ARGS, event_name="pull_request", event=event)
                rows.append((kind, tokens(first), tokens(second)))
    print(
        f"PR of {args.files} files ({args.lines} functions each), then a push touching {args.pushed} more"
    )
    print("| review of the push | kind ran | model req | input tok | first review's input tok |")
    print("|---|---|---|---|---|")
    for kind, first, second in rows:
        print(f"| {kind} | {second[2]} | {second[0]} | {second[1]:,} | {first[1]:,} |")
    ratio = rows[0][2][1] / rows[1][2][1]
    print(f"incremental / full input tokens: {ratio:.1%} (target ≤ 30%)")


if __name__ == "__main__":
    main()
