"""`reviewbot review --local --base main` in a real repository, with no GitHub at all.

One run per output format (they start together); each output must parse as what it claims.
"""

from __future__ import annotations

import json
from typing import Any

import cmarkgfm
import jsonschema
import pytest

from tests.fakes.messages_api import reply, tool_use
from tests.fakes.runs import Run
from tests.fakes.world import World

FORMATS = ("text", "json", "sarif", "markdown")
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


@pytest.fixture(scope="module")
def local_runs(worlds) -> dict[str, tuple[World, Run]]:
    """Run `review --local --base main --format F` for every format, in the repository."""
    started = {}
    for fmt in FORMATS:
        world = worlds(
            f"local-{fmt}",
            base=BASE,
            head=HEAD,
            script=[
                reply(tool_use("add_review_node", FINDING)),
                reply(tool_use("finalize_review", {"summary": "One bug.", "verdict": "hold"})),
            ],
        )
        args = ["review", "--local", "--base", "main", "--format", fmt]
        started[fmt] = (world, world.start(args, github=False, cwd=world.repo))
    runs = {fmt: (world, pending.wait()) for fmt, (world, pending) in started.items()}
    for world, _ in runs.values():
        world.model.verify()
    return runs


@pytest.mark.parametrize("fmt", FORMATS, ids=FORMATS)
class TestEveryFormat:
    def test_reviews_the_branch_with_the_model_and_no_github(self, local_runs, fmt):
        """The local review exits 0, asks the model twice and never talks to GitHub."""
        world, run = local_runs[fmt]
        assert run.returncode == 0, run.stderr
        assert len(run.model) == 2
        assert world.github_server.snapshot() == ()
        assert "Traceback" not in run.stderr

    def test_the_model_saw_the_branch_diff(self, local_runs, fmt):
        """The first request carries the change between main and the branch."""
        _, run = local_runs[fmt]
        assert "return a // b" in json.dumps(run.model[0])


def test_text_prints_the_review(local_runs):
    """The readable review names the verdict, the file and the finding."""
    out = local_runs["text"][1].stdout
    assert "Hold" in out
    assert "lib.py" in out
    assert "Floor division changes the result" in out


def test_json_is_a_valid_report(local_runs, report_schema):
    """`--format json` prints a report valid under the published schema."""
    report: dict[str, Any] = json.loads(local_runs["json"][1].stdout)
    jsonschema.validate(report, report_schema)
    assert report["verdict"] == "hold"
    assert report["pr"]["origin"] == "local"
    assert [n["title"] for n in report["nodes"]] == ["Floor division changes the result"]
    assert report["published"] is None


def test_sarif_is_a_sarif_log_with_the_finding(local_runs):
    """`--format sarif` prints SARIF 2.1.0 with the finding at its file and line."""
    sarif = json.loads(local_runs["sarif"][1].stdout)
    assert sarif["version"] == "2.1.0"
    (result,) = sarif["runs"][0]["results"]
    location = result["locations"][0]["physicalLocation"]
    assert location["artifactLocation"]["uri"] == "lib.py"
    assert location["region"]["startLine"] == 2
    assert "Floor division" in json.dumps(result["message"])


def test_markdown_renders_with_the_verdict_and_the_finding(local_runs):
    """`--format markdown` is GitHub markdown whose tables render and name the finding."""
    out = local_runs["markdown"][1].stdout
    assert out.startswith("## ")
    html = cmarkgfm.github_flavored_markdown_to_html(out)
    assert "<table>" in html
    assert "Floor division changes the result" in html
    assert "Hold" in html
