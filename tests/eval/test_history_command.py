"""`reviewbot eval --history REPO` through click's CliRunner: mining only, no model."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from reviewbot.cli import cli
from reviewbot.eval.bench import load_benchmark
from tests.e2e.harness import open_world
from tests.eval.history_repo import FIXED, Builder, with_buggy_pr
from tests.eval.world import APP_BASE, APP_HEAD, judge_reply, node
from tests.fakes.messages_api import reply, text, tool_use


@pytest.fixture
def repo(tmp_path, monkeypatch):
    for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "GITHUB_ACTIONS"):
        monkeypatch.delenv(name, raising=False)
    builder = Builder(tmp_path / "repo")
    builder.commit("Initial commit", {"app.py": "VERSION = 1\n"})
    with_buggy_pr(builder)
    builder.git("remote", "add", "origin", "git@github.com:octo/calc.git")
    return builder


def invoke(*args: str):
    return CliRunner().invoke(cli, ["eval", *args])


def test_mine_only_writes_a_benchmark_eval_reads(repo, tmp_path):
    fix = repo.commit("Fix add() returning the difference", {"calc.py": FIXED})
    out = tmp_path / "golden.json"
    result = invoke("--history", str(repo.path), "--mine-only", "--golden-out", str(out))
    assert result.exit_code == 0, result.output
    assert "1 pull request(s), 1 fix commit(s)" in result.output
    assert "1 golden entry kept" in result.output
    bench = load_benchmark(out)
    assert bench.problems == ()
    [pr] = bench.prs
    assert (pr.url, pr.pr_title) == ("https://github.com/octo/calc/pull/1", "Add an add() helper")
    [golden] = pr.comments
    assert golden.comment == (
        f"Fix add() returning the difference (fixed later by {fix[:12]}). "
        "The fix changed lines this PR wrote: calc.py:3 `return a - b`."
    )
    assert (golden.severity.value, golden.category) == ("Medium", "bug")
    [entry] = json.loads(out.read_text(encoding="utf-8"))
    assert entry["history"]["head"] == repo.git("rev-parse", "add")
    assert entry["history"]["fixes"][0]["commit"] == fix


def test_the_same_history_gives_the_same_file(repo, tmp_path):
    repo.commit("Fix add()", {"calc.py": FIXED})
    first, second = tmp_path / "1.json", tmp_path / "2.json"
    for out in (first, second):
        assert (
            invoke("--history", str(repo.path), "--mine-only", "--golden-out", str(out)).exit_code
            == 0
        )
    assert first.read_bytes() == second.read_bytes()


def test_a_golden_file_that_cannot_be_written_is_one_line_exit_2(repo, tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("x", encoding="utf-8")
    out = blocker / "golden.json"  # its folder is a file: it cannot be made
    result = invoke("--history", str(repo.path), "--mine-only", "--golden-out", str(out))
    assert result.exit_code == 2, result.output
    assert "cannot write the golden set" in result.output


def test_nothing_mined_is_an_empty_set_with_mine_only(repo, tmp_path):
    out = tmp_path / "golden.json"
    result = invoke("--history", str(repo.path), "--mine-only", "--golden-out", str(out))
    assert result.exit_code == 0, result.output
    assert json.loads(out.read_text(encoding="utf-8")) == []


def test_nothing_mined_without_mine_only_is_exit_2(repo, tmp_path):
    result = invoke("--history", str(repo.path), "--cache-dir", str(tmp_path / "c"))
    assert result.exit_code == 2
    assert "gave no golden entry" in result.output


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        (["--mine-only"], 2, "--mine-only need --history REPO"),
        ([], 2, "give a benchmark file BENCH, or --history REPO"),
        (["bench.json", "--history", "."], 2, "not both"),
        (["--history", "{repo}", "--since", "soon", "--mine-only"], 2, "is not a date"),
        (["--history", "{tmp}", "--mine-only"], 6, "is not a git repository"),
    ],
)
def test_usage_errors_are_one_line(repo, tmp_path, args, code, message):
    filled = [a.format(repo=repo.path, tmp=tmp_path) for a in args]
    result = invoke(*filled)
    assert result.exit_code == code, result.output
    assert message in result.output
    assert "Traceback" not in result.output


def test_since_keeps_the_later_prs_only(repo, tmp_path):
    repo.commit("Fix add()", {"calc.py": FIXED})
    out = tmp_path / "golden.json"
    args = ["--history", str(repo.path), "--mine-only", "--golden-out", str(out)]
    assert invoke(*args, "--since", "2030-01-01").exit_code == 0
    assert json.loads(out.read_text(encoding="utf-8")) == []
    assert invoke(*args, "--since", "2020-01-01").exit_code == 0
    assert len(json.loads(out.read_text(encoding="utf-8"))) == 1


def test_the_mined_prs_are_reviewed_from_the_clone_not_github(repo, tmp_path):
    """The fake GitHub knows no octo/calc: the review must come from the clone's commits."""
    repo.commit("Fix add() returning the difference", {"calc.py": FIXED})
    finding = node("add() subtracts instead of adding", "P2", "calc.py", 3, "    return a - b")
    judged = {"add() subtracts instead of adding": 1}
    app = {"base": {"app.py": APP_BASE}, "head": {"app.py": APP_HEAD}}
    with open_world(tmp_path / "world", **app) as world:
        world.model.add(
            reply(tool_use("add_review_node", finding)),
            reply(text("Reviewed.")),
            judge_reply(judged),
        )
        out, cache = tmp_path / "result.json", tmp_path / "cache"
        args = ["eval", "--history", str(repo.path), "--out", str(out), "--cache-dir", str(cache)]
        run = world.run(args)
        assert run.returncode == 0, run.stderr
        result = json.loads(out.read_text(encoding="utf-8"))
        [scored] = result["prs"]
        assert scored["url"] == "https://github.com/octo/calc/pull/1"
        assert scored["head_sha"] == repo.git("rev-parse", "add")
        assert (scored["score"]["total"]["tp"], scored["score"]["total"]["fn"]) == (1, 0)
        assert (cache / "history-golden.json").exists()
        resumed = world.run([*args, "--resume"])  # cached: no model request is left to answer
        assert resumed.returncode == 0, resumed.stderr
        assert json.loads(out.read_text(encoding="utf-8"))["cached"] == [scored["url"]]
