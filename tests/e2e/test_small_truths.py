"""Small truths of the terminal, each through the real CLI in a subprocess.

`--format markdown` links where the posted summary links (GitHub Enterprise too); `--format
json` of "nothing to review" is a report that says so; the text output names the base it
compared against; `-v` is reviewbot's own debug lines, third-party DEBUG only with `-vv`.
"""

from __future__ import annotations

import json
import re

import jsonschema
import pytest

from tests.fakes.keys import GITHUB_TOKEN
from tests.fakes.messages_api import reply, tool_use
from tests.fakes.world import REPO, World

BASE = {"lib.py": "def ratio(a, b):\n    return a / b\n"}
HEAD = {"lib.py": "def ratio(a, b):\n    return a // b\n"}
FINDING = {
    "kind": "bug",
    "priority": "P2",
    "confidence": 0.7,
    "title": "Floor division changes the result",
    "body": "`a // b` truncates; callers expect a float.",
    "anchor": {"path": "lib.py", "start_line": 2, "end_line": 2, "quote": "    return a // b"},
}
GHE_PR = f"https://ghe.example.test/{REPO}/pull/7"
LINK = re.compile(r"\]\((https://[^)\s]+/blob/[^)\s]+)\)")


def _script() -> list:
    return [
        reply(tool_use("add_review_node", FINDING)),
        reply(tool_use("finalize_review", {"summary": "One bug.", "verdict": "hold"})),
    ]


class TestMarkdownIsWhatIsPosted:
    def test_links_name_the_enterprise_host_as_the_posted_summary_does(self, worlds):
        world: World = worlds("ghe", base=BASE, head=HEAD, script=_script())
        api = {
            "GITHUB_API_URL": world.github_server.url,
            "GITHUB_SERVER_URL": "https://ghe.example.test",  # the API serves this host's PRs
            "GITHUB_TOKEN": GITHUB_TOKEN,
        }
        run = world.run(
            ["review", GHE_PR, "--post", "--format", "markdown"], github=False, extra_env=api
        )
        assert run.returncode == 0, run.stderr
        printed = LINK.findall(run.stdout)
        [summary] = [
            c["body"]
            for c in world.github.repo(REPO).issue_comments[7]
            if "reviewbot:summary" in c["body"]
        ]
        posted = LINK.findall(summary)
        assert printed, run.stdout
        assert printed == posted
        assert all(link.startswith("https://ghe.example.test/") for link in printed)


class TestNothingToReview:
    def test_json_prints_a_report_that_says_so(self, worlds, report_schema):
        world: World = worlds("nothing", base=BASE, head=BASE)
        run = world.run(
            ["review", "--local", "--base", "main", "--format", "json"],
            github=False,
            cwd=world.repo,
        )
        assert run.returncode == 0, run.stderr
        report = json.loads(run.stdout)
        jsonschema.validate(report, report_schema)
        assert report["skipped"].startswith("no changes between main and HEAD")
        assert report["nodes"] == []
        assert world.model.requests == []


class TestTheBaseIsShown:
    def test_the_text_output_names_the_base_it_compared_against(self, worlds):
        world: World = worlds("base-shown", base=BASE, head=HEAD, script=_script())
        run = world.run(["review", "--local"], github=False, cwd=world.repo)
        assert run.returncode == 0, run.stderr
        assert "base main at " in run.stdout


@pytest.mark.parametrize(("flag", "third_party"), [("-v", False), ("-vv", True)])
def test_verbose_is_reviewbots_own_lines_and_very_verbose_adds_the_libraries(
    worlds, flag, third_party
):
    world: World = worlds(f"verbose{flag}", base=BASE, head=HEAD, script=_script())
    run = world.run(["review", "--local", "--base", "main", flag], github=False, cwd=world.repo)
    assert run.returncode == 0, run.stderr
    names = set(re.findall(r"^DEBUG (\S+):", run.stderr, re.M))
    assert any(name.startswith("reviewbot") for name in names), run.stderr
    others = {name for name in names if not name.startswith("reviewbot")}
    assert bool(others) is third_party, others
