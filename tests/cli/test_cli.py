"""The click surface through CliRunner: help texts, and the exit code of every kind of failure.

Runs in-process against the loopback fakes (tests/fakes/world.py builds the world), so a
user mistake must come out as one `reviewbot: error:` line — never a traceback.
"""

from __future__ import annotations

import io
import json
import logging
import re
import socket
from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest
import urllib3
from click.testing import CliRunner, Result

from reviewbot.cli import cli
from reviewbot.config.logs import configure_logging
from reviewbot.config.settings import Settings
from reviewbot.errors import EXIT_CODES
from reviewbot.redact import MASK
from tests.fakes.gitrepo import GitRepo, make_repo
from tests.fakes.keys import ANTHROPIC_KEY, GITHUB_TOKEN
from tests.fakes.messages_api import Scripted, reply, text, tool_use
from tests.fakes.world import World, open_world

PR_URL = "https://github.com/octo/app/pull/7"
APP_BASE = "def run(command):\n    return command\n"
APP_HEAD = "def run(command):\n    return eval(command)\n"
P0 = {
    "kind": "bug",
    "priority": "P0",
    "confidence": 0.95,
    "title": "eval() on the command",
    "anchor": {
        "path": "app.py",
        "start_line": 2,
        "end_line": 2,
        "quote": "    return eval(command)",
    },
}
P2 = {**P0, "priority": "P2", "title": "A nit"}


def block_script() -> list[Scripted]:
    """A confirmed P0: the verdict is Block."""
    return [
        reply(tool_use("add_review_node", P0)),
        reply(text("One P0.")),
        reply(tool_use("confirm_review_node", {"id": "review-1", "reason": "eval of input"})),
    ]


def hold_script() -> list[Scripted]:
    """A P2 and a proposed Hold (the verifier has nothing to check): the verdict is Hold."""
    return [
        reply(tool_use("add_review_node", P2)),
        reply(tool_use("finalize_review", {"summary": "A nit.", "verdict": "hold"})),
    ]


def invoke(args: list[str], env: Mapping[str, str] | None = None) -> Result:
    """Run the CLI; anything but a clean exit (a crash inside click) fails the test."""
    result = CliRunner().invoke(cli, args, env=dict(env or {}))
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    assert "Traceback" not in result.output
    return result


def world_env(world: World) -> dict[str, str]:
    return {
        "GITHUB_API_URL": world.github_server.url,
        "GITHUB_SERVER_URL": "https://github.com",  # the loopback API serves github.com's PRs
        "GITHUB_TOKEN": GITHUB_TOKEN,
        "ANTHROPIC_API_KEY": ANTHROPIC_KEY,
        "ANTHROPIC_BASE_URL": world.model_server.url,
        "HOME": str(world.root),
    }


def error_lines(result: Result) -> list[str]:
    return [line for line in result.stderr.splitlines() if line.startswith("reviewbot: error:")]


@pytest.fixture
def world(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[World]:
    """PR #7 of octo/app whose head adds eval(); `open_world` options come as an indirect param."""
    options = dict(getattr(request, "param", {}))
    base = {"app.py": APP_BASE, **options.pop("base", {})}
    head = {"app.py": APP_HEAD, **options.pop("head", {})}
    with open_world(tmp_path / "world", base=base, head=head, **options) as built:
        yield built


# ---------------------------------------------------------------- help

COMMANDS = [[], ["review"], ["snapshot"], ["schema"], ["version"]]
COMMAND_IDS = ["reviewbot", "review", "snapshot", "schema", "version"]
# errors.EXIT_CODES is the one table: `review --help` and the README must say the same.
EXIT_TABLE = [(str(code.value), meaning) for code, meaning in EXIT_CODES.items()]


class TestHelp:
    @pytest.mark.parametrize("command", COMMANDS, ids=COMMAND_IDS)
    def test_shows_examples(self, command):
        """Every command's --help carries at least one example invocation."""
        result = invoke([*command, "--help"])
        assert result.exit_code == 0
        assert re.search(r"Examples?:\n +reviewbot ", result.stdout)

    def test_review_help_has_the_whole_exit_code_table(self):
        """`review --help` lists every exit code with the meaning the module documents."""
        assert len(EXIT_TABLE) == 10
        result = invoke(["review", "--help"])
        for code, meaning in EXIT_TABLE:
            assert re.search(rf"^ +{code} +{re.escape(meaning)}$", result.stdout, re.MULTILINE)

    def test_the_readme_documents_the_same_exit_codes(self):
        """The README's exit-code table lists exactly the codes the CLI documents."""
        readme = (Path(__file__).parents[2] / "README.md").read_text(encoding="utf-8")
        # The table of `reviewbot review` in the command reference (`eval` has its own).
        reference = readme[readme.index("## Command reference") :]
        table = reference[reference.index("| exit code | meaning |") :].split("\n\n", 1)[0]
        documented = re.findall(r"^\| (\d+) \| ", table, flags=re.MULTILINE)
        assert documented == [code for code, _ in EXIT_TABLE]

    def test_snapshot_help_has_its_exit_codes(self):
        """`snapshot --help` says what 0 and 2 mean for it."""
        result = invoke(["snapshot", "--help"])
        assert re.search(r"^ +0 +the reference was saved$", result.stdout, re.MULTILINE)
        assert re.search(r"^ +2 +usage error", result.stdout, re.MULTILINE)


# ---------------------------------------------------------------- usage errors (2)


class TestUsageErrors:
    @pytest.mark.parametrize(
        ("args", "message"),
        [
            (["review", "https://github.com/octo/app/issues/7"], "not a pull request URL"),
            (["review", "octo/app#7"], "not a pull request URL"),
            (["review", PR_URL, "--local"], "give one of"),
            (["review", "--local", "--github-event"], "give one of"),
            (["review"], "nothing to review"),
            (["review", "--github-event"], "needs GITHUB_EVENT_NAME and GITHUB_EVENT_PATH"),
            (["snapshot", "--out", "out"], "reviewbot snapshot needs GITHUB_EVENT_NAME"),
        ],
        ids=[
            "issue-url",
            "not-a-url",
            "url-and-local",
            "local-and-event",
            "nothing",
            "event-without-env",
            "snapshot-without-env",
        ],
    )
    def test_exit_2_with_one_line(self, args, message):
        """A usage mistake exits 2 with one `reviewbot: error:` line naming it."""
        result = invoke(args)
        assert result.exit_code == 2
        lines = error_lines(result)
        assert len(lines) == 1
        assert message in lines[0]

    def test_snapshot_without_an_event_speaks_of_snapshot_not_github_event(self):
        """`reviewbot snapshot` at a terminal: the line names what was run and where it runs."""
        result = invoke(["snapshot", "--out", "out"])
        [line] = error_lines(result)
        assert "--github-event" not in line
        assert "reviewbot snapshot needs GITHUB_EVENT_NAME and GITHUB_EVENT_PATH" in line
        assert "workflow step" in line

    def test_a_bad_option_value_is_clicks_usage_error(self):
        """An unknown --format is refused by click with exit 2 and the valid choices."""
        result = invoke(["review", PR_URL, "--format", "yaml"])
        assert result.exit_code == 2
        assert "'yaml' is not one of 'text', 'json', 'sarif', 'markdown'" in result.stderr

    def test_an_event_file_that_is_not_json(self, tmp_path):
        """A GITHUB_EVENT_PATH that is not JSON exits 2 and says so."""
        event = tmp_path / "event.json"
        event.write_text("{not json", encoding="utf-8")
        env = {"GITHUB_EVENT_NAME": "pull_request", "GITHUB_EVENT_PATH": str(event)}
        result = invoke(["review", "--github-event"], env)
        assert result.exit_code == 2
        assert "the pull_request event payload is not valid JSON" in error_lines(result)[0]

    def test_snapshot_into_a_path_that_is_a_file(self, tmp_path):
        """`snapshot --out` under a regular file exits 2 with a message, not a traceback."""
        event = tmp_path / "event.json"
        event.write_text(
            (
                Path(__file__).parents[1] / "data/github-webhooks/pull_request.opened.payload.json"
            ).read_text(encoding="utf-8"),
            encoding="utf-8",
        )
        blocker = tmp_path / "file"
        blocker.write_text("", encoding="utf-8")
        env = {"GITHUB_EVENT_NAME": "pull_request", "GITHUB_EVENT_PATH": str(event)}
        result = invoke(["snapshot", "--out", str(blocker / "out")], env)
        assert result.exit_code == 2
        assert "cannot write the PR reference" in error_lines(result)[0]

    def test_a_missing_snapshot_folder(self, tmp_path):
        """`--from-snapshot` naming a folder without the reference exits 2."""
        result = invoke(["review", "--from-snapshot", str(tmp_path / "gone")])
        assert result.exit_code == 2
        assert "cannot read the PR snapshot" in error_lines(result)[0]


# ---------------------------------------------------------------- local repository (4, 6)


class TestLocalErrors:
    def test_outside_a_repository_exits_6(self, tmp_path, monkeypatch):
        """`--local` in a folder that is not a git checkout is a git error: exit 6."""
        monkeypatch.chdir(tmp_path)
        result = invoke(["review", "--local"])
        assert result.exit_code == 6
        assert "is not inside a git repository" in error_lines(result)[0]

    def test_an_unknown_base_ref_exits_4(self, tmp_path, monkeypatch):
        """`--local --base REF` with a ref the repository lacks is not found: exit 4."""
        monkeypatch.chdir(
            make_repo(tmp_path / "repo", base={"a.py": "a = 1\n"}, head={"a.py": "a = 2\n"}).path
        )
        result = invoke(["review", "--local", "--base", "nosuchref"])
        assert result.exit_code == 4
        (line,) = error_lines(result)
        assert line.startswith("reviewbot: error: unknown ref 'nosuchref'")
        assert "pass --base" in line


# ---------------------------------------------------------------- configuration (2)


def _configs(base_text: str) -> dict[str, dict[str, str]]:
    # The head carries a valid file: only the base branch's may count.
    return {"base": {".reviewbot.toml": base_text}, "head": {".reviewbot.toml": "model = 'x'\n"}}


class TestConfigError:
    @pytest.mark.parametrize(
        ("world", "where"),
        [
            (_configs("[ci]\ngated = maybe\n"), "line 2: Invalid value"),
            (_configs("[ci]\ngated = true\nflaky = 3\n"), "line 3: ci.flaky: unknown key"),
        ],
        ids=["toml-syntax", "unknown-key"],
        indirect=["world"],
    )
    def test_malformed_base_config_exits_2_with_the_line(self, world, where):
        """A malformed `.reviewbot.toml` on the BASE branch exits 2 naming the file and line."""
        result = invoke(["review", PR_URL], world_env(world))
        assert result.exit_code == 2
        (message,) = error_lines(result)
        assert f"`.reviewbot.toml` (base branch main) {where}" in message
        assert world.model.requests == []  # nothing is spent before the config is known


# ---------------------------------------------------------------- GitHub failures (3, 4, 5)


class TestGitHubFailures:
    @pytest.mark.parametrize(
        "world", [{"tokens": frozenset({"ghs_" + "Y" * 36})}], ids=["other-token"], indirect=True
    )
    def test_a_refused_token_exits_3(self, world):
        """GitHub answering 401 is an authentication error: exit 3."""
        result = invoke(["review", PR_URL], world_env(world))
        assert result.exit_code == 3
        assert "GitHub rejected the token — check GITHUB_TOKEN" in error_lines(result)[0]
        assert world.github_server.count(None, None) >= 1

    def test_a_missing_pull_request_exits_4(self, world):
        """A PR number the repository does not have exits 4."""
        result = invoke(["review", "https://github.com/octo/app/pull/99"], world_env(world))
        assert result.exit_code == 4
        assert "pull request octo/app#99 not found" in error_lines(result)[0]

    def test_an_unreachable_github_exits_5(self, monkeypatch):
        """A closed port behind GITHUB_API_URL exits 5 after the client's retries."""
        with socket.socket() as probe:  # a port that was free a moment ago, and is closed now
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        waits: list[object] = []
        # The retries back off for ~30 s in real life; record them instead of waiting.
        monkeypatch.setattr(
            urllib3.util.retry.Retry, "sleep", lambda self, response=None: waits.append(response)
        )
        env = {
            "GITHUB_API_URL": f"http://127.0.0.1:{port}",
            "GITHUB_SERVER_URL": "https://github.com",
            "GITHUB_TOKEN": GITHUB_TOKEN,
        }
        result = invoke(["review", PR_URL], env)
        assert result.exit_code == 5
        assert f"GitHub at http://127.0.0.1:{port} could not be reached" in error_lines(result)[0]
        assert len(waits) == 5  # every retry was tried before giving up


# ---------------------------------------------------------------- --fail-on (0 or 1)


class TestFailOn:
    @pytest.mark.parametrize(
        ("script", "fail_on", "code"),
        [
            (block_script, "none", 0),
            (block_script, "hold", 1),
            (block_script, "block", 1),
            (hold_script, "block", 0),
            (hold_script, "hold", 1),
        ],
        ids=["block-none", "block-hold", "block-block", "hold-block", "hold-hold"],
    )
    def test_exit_code_follows_the_verdict(self, tmp_path, script, fail_on, code):
        """Exit 1 only when the verdict reaches the --fail-on level; a verdict is never a crash."""
        with open_world(
            tmp_path / "world",
            base={"app.py": APP_BASE},
            head={"app.py": APP_HEAD},
            script=script(),
        ) as world:
            result = invoke(["review", PR_URL, "--fail-on", fail_on], world_env(world))
            world.model.verify()
        verdict = "block" if script is block_script else "hold"
        assert result.exit_code == code
        assert f"reviewbot: verdict {verdict}" in result.stderr
        gate = error_lines(result)
        assert gate == (
            [f"reviewbot: error: the verdict is {verdict} and --fail-on is {fail_on}"]
            if code
            else []
        )


class TestUnwritableOutputs:
    def test_an_unwritable_report_path_is_a_usage_error(self, tmp_path, monkeypatch):
        """--report under a regular file exits 2 with one line, never a traceback or the verdict's code."""
        repo = make_repo(tmp_path / "repo", base={"a.py": "x = 1\n"}, head={"a.py": "x = 2\n"}).path
        blocker = tmp_path / "file"
        blocker.write_text("")
        monkeypatch.chdir(repo)
        argv = ["review", "--local", "--base", "main", "--report", str(blocker / "r.json")]
        result = CliRunner().invoke(cli, argv)
        assert result.exit_code == 2, result.output
        assert "reviewbot: error: cannot write the report to" in result.stderr
        assert "Traceback" not in result.output

    @pytest.mark.parametrize("flag", ["-o", "--report"])
    def test_a_file_name_too_long_is_a_usage_error(self, tmp_path, monkeypatch, flag):
        """A name the file system refuses (ENAMETOOLONG) exits 2 with one line, no traceback."""
        monkeypatch.chdir(_local_repo(tmp_path, base_config=None))
        target = tmp_path / ("r" * 300 + ".json")
        result = CliRunner().invoke(cli, ["review", "--local", "--base", "main", flag, str(target)])
        assert result.exit_code == 2, result.output
        (line,) = error_lines(result)
        assert line.startswith("reviewbot: error: cannot write the ")
        assert line.endswith(": File name too long")
        assert "Traceback" not in result.output

    def test_an_unwritable_github_output_is_a_usage_error(self, tmp_path, monkeypatch):
        """GITHUB_OUTPUT naming a directory: exit 2 with one line naming it, after the verdict."""
        monkeypatch.chdir(_local_repo(tmp_path, base_config=None))
        outputs = tmp_path / "outputs"
        outputs.mkdir()
        result = CliRunner().invoke(
            cli, ["review", "--local", "--base", "main"], env={"GITHUB_OUTPUT": str(outputs)}
        )
        assert result.exit_code == 2, result.output
        assert error_lines(result) == [f"reviewbot: error: cannot write {outputs}: Is a directory"]


# ---------------------------------------------------------------- options do what they say

BROKEN_CONFIG = "[ci]\ngated = maybe\n"  # read → exit 2 naming line 2; ignored → a review runs


def _local_repo(tmp_path: Path, base_config: str | None = BROKEN_CONFIG) -> Path:
    base = {"a.py": "x = 1\n"} | ({".reviewbot.toml": base_config} if base_config else {})
    return make_repo(tmp_path / "repo", base=base, head={"a.py": "x = 2\n"}).path


class TestExplicitConfig:
    @pytest.mark.parametrize(
        "given",
        ["./.reviewbot.toml", "{repo}/.reviewbot.toml", "sub/../.reviewbot.toml"],
        ids=["dot-slash", "absolute", "dot-dot-inside"],
    )
    def test_every_spelling_of_the_file_reads_it(self, tmp_path, monkeypatch, given):
        """`--config` as ./x, an absolute path in the checkout or a/../x reads that file at the base."""
        repo = _local_repo(tmp_path)
        monkeypatch.chdir(repo)
        result = invoke(
            ["review", "--local", "--base", "main", "--config", given.format(repo=repo)]
        )
        assert result.exit_code == 2, result.output
        (line,) = error_lines(result)
        assert "`.reviewbot.toml` (base branch main) line 2" in line

    @pytest.mark.parametrize(
        ("args", "message"),
        [
            (["--config", "missing.toml"], "`missing.toml` (base branch main): not found"),
            (["--config", "/etc/reviewbot.toml"], "is outside the repository"),
            (["--config", "../other.toml"], "is outside the repository"),
        ],
        ids=["missing", "absolute-outside", "dot-dot-outside"],
    )
    def test_an_explicit_config_that_cannot_be_read_exits_2(
        self, tmp_path, monkeypatch, args, message
    ):
        """An explicit --config that is missing or outside the repository is one line, exit 2."""
        monkeypatch.chdir(_local_repo(tmp_path, base_config=None))
        result = invoke(["review", "--local", "--base", "main", *args])
        assert result.exit_code == 2, result.output
        (line,) = error_lines(result)
        assert message in line

    def test_reviewbot_config_naming_another_file_must_exist(self, tmp_path, monkeypatch):
        """REVIEWBOT_CONFIG (the Action's config-path) naming a file that is not there exits 2."""
        monkeypatch.chdir(_local_repo(tmp_path, base_config=None))
        env = {"REVIEWBOT_CONFIG": "ci/reviewbot.toml"}
        result = invoke(["review", "--local", "--base", "main"], env)
        assert result.exit_code == 2, result.output
        assert "`ci/reviewbot.toml` (base branch main): not found" in error_lines(result)[0]

    def test_the_default_name_may_be_missing(self, tmp_path, monkeypatch):
        """Without --config (or with the Action's REVIEWBOT_CONFIG default) a missing file is the defaults."""
        monkeypatch.chdir(_local_repo(tmp_path, base_config=None))
        result = invoke(
            ["review", "--local", "--base", "main"], {"REVIEWBOT_CONFIG": ".reviewbot.toml"}
        )
        assert result.exit_code == 0, result.output

    @pytest.mark.parametrize(
        ("world", "given", "message"),
        [
            (
                {"base": {".reviewbot.toml": BROKEN_CONFIG}},
                "./.reviewbot.toml",
                "line 2: Invalid value",
            ),
            ({}, "ci/missing.toml", "`ci/missing.toml` (base branch main): not found"),
        ],
        ids=["dot-slash", "missing"],
        indirect=["world"],
    )
    def test_a_pull_request_reads_the_explicit_config_or_exits_2(self, world, given, message):
        """For a PR, `--config ./x` reads x at the base, and a missing explicit file exits 2 before the model."""
        result = invoke(["review", PR_URL, "--config", given], world_env(world))
        assert result.exit_code == 2, result.output
        (line,) = error_lines(result)
        assert message in line
        assert world.model.requests == []


class TestRefusedCombinations:
    @pytest.mark.parametrize(
        ("args", "env", "message"),
        [
            (["--local", "--post"], {}, "--post publishes on a pull request"),
            (["--local"], {"REVIEWBOT_POST": "true"}, "REVIEWBOT_POST"),
            ([PR_URL, "--base", "main"], {}, "--base, --head and --worktree only apply to --local"),
            (
                [PR_URL, "--head", "HEAD~1"],
                {},
                "--base, --head and --worktree only apply to --local",
            ),
            (
                ["--github-event", "--base", "dev"],
                {},
                "--base, --head and --worktree only apply to --local",
            ),
            ([PR_URL, "--worktree"], {}, "--base, --head and --worktree only apply to --local"),
            (["--local", "--worktree", "--head", "HEAD~1"], {}, "give it or --head, not both"),
        ],
        ids=[
            "post-local",
            "post-env-local",
            "base-url",
            "head-url",
            "base-event",
            "worktree-url",
            "worktree-head",
        ],
    )
    def test_options_that_would_be_ignored_are_refused(
        self, tmp_path, monkeypatch, args, env, message
    ):
        """An option the chosen mode would silently ignore exits 2 with one line, before any work."""
        monkeypatch.chdir(_local_repo(tmp_path, base_config=None))
        result = invoke(["review", *args], env)
        assert result.exit_code == 2, result.output
        (line,) = error_lines(result)
        assert message in line


class TestVersion:
    def test_every_way_to_ask_prints_the_same(self):
        """`-V`, `--version` and `reviewbot version` print one identical line."""
        outputs = {flag: invoke([flag]).stdout for flag in ("-V", "--version", "version")}
        assert len(set(outputs.values())) == 1, outputs
        assert re.fullmatch(r"reviewbot \d+\.\d+\.\d+\S*\n", outputs["version"])


class TestOutputFiles:
    @pytest.mark.parametrize("world", [{"base": {"app.py": APP_BASE}}], ids=["pr"], indirect=True)
    def test_an_unwritable_report_path_is_refused_before_the_model_runs(self, world, tmp_path):
        """--report under a regular file exits 2 before any model request, like -o."""
        blocker = tmp_path / "file"
        blocker.write_text("")
        result = invoke(["review", PR_URL, "--report", str(blocker / "r.json")], world_env(world))
        assert result.exit_code == 2, result.output
        (line,) = error_lines(result)
        assert "cannot write the report to" in line
        assert world.model.requests == []

    def test_both_files_get_their_parent_folders(self, tmp_path, monkeypatch):
        """-o and --report into folders that do not exist yet create them, both."""
        monkeypatch.chdir(_local_repo(tmp_path, base_config=None))
        out, report = tmp_path / "a" / "b" / "out.json", tmp_path / "c" / "d" / "report.json"
        argv = ["review", "--local", "--base", "main", "--format", "json", "-o", str(out)]
        result = invoke([*argv, "--report", str(report)])
        assert result.exit_code == 0, result.output
        assert json.loads(out.read_text())["verdict"] == json.loads(report.read_text())["verdict"]

    def test_nothing_to_review_still_writes_the_report_it_was_asked_for(
        self, tmp_path, monkeypatch
    ):
        """No changes: --report FILE holds the report that says so, never an earlier run's."""
        repo = make_repo(tmp_path / "repo", base={"a.py": "x = 1\n"}, head={"a.py": "x = 1\n"})
        monkeypatch.chdir(repo.path)
        report = tmp_path / "report.json"
        report.write_text('{"verdict": "ship"}')  # what an earlier run left there
        result = invoke(["review", "--local", "--base", "main", "--report", str(report)])
        assert result.exit_code == 0, result.output
        written = json.loads(report.read_text())
        assert written["skipped"].startswith("no changes between main and HEAD")
        assert written["nodes"] == []

    def test_an_error_says_the_report_was_not_written(self, tmp_path):
        """A run that ends on an error before its report says so, in its one error line."""
        report = tmp_path / "report.json"
        result = invoke(["review", "https://example.com/not-a-pr", "--report", str(report)])
        assert result.exit_code == 2, result.output
        [line] = result.stderr.splitlines()
        assert line.startswith("reviewbot: error: not a pull request URL")
        assert line.endswith(f" (no report written to {report})")
        assert not report.exists()

    def test_an_error_after_the_checks_says_so_too(self, tmp_path, monkeypatch):
        """A local review that fails (an unknown base) says its report was not written."""
        monkeypatch.chdir(_local_repo(tmp_path, base_config=None))
        report = tmp_path / "report.json"
        result = invoke(["review", "--local", "--base", "nope", "--report", str(report)])
        assert result.exit_code != 0, result.output
        [line] = error_lines(result)
        assert line.endswith(f" (no report written to {report})")
        assert not report.exists()


# ---------------------------------------------------------------- what people read

TWO_FILES_BASE = {"a_util.py": "def f():\n    return 1\n", "z_core.py": "def g(x):\n    return x\n"}
TWO_FILES_HEAD = {
    "a_util.py": "def f():\n    return 2\n",
    "z_core.py": "def g(x):\n    y = x\n    return eval(y)\n",
}
NIT = {
    "kind": "suggestion",
    "priority": "P2",
    "confidence": 0.6,
    "title": "A nit in the first file",
    "anchor": {"path": "a_util.py", "start_line": 2, "end_line": 2, "quote": "    return 2"},
}
SEVERE = {
    "kind": "bug",
    "priority": "P0",
    "confidence": 0.9,
    "title": "eval in the last file",
    "anchor": {
        "path": "z_core.py",
        "start_line": 2,
        "end_line": 3,
        "quote": "    y = x\n    return eval(y)",
    },
}


def _local_env(world: World) -> dict[str, str]:
    return {k: v for k, v in world_env(world).items() if not k.startswith("GITHUB_")}


class TestHumanOutput:
    def test_text_lists_findings_by_priority_with_their_lines(self, tmp_path, monkeypatch):
        """A P0 in the last file comes before a P2 in the first; one line is `line N`, a range `lines N–M`."""
        script = [
            reply(tool_use("add_review_node", NIT)),
            reply(tool_use("add_review_node", SEVERE)),
            reply(tool_use("finalize_review", {"summary": "Two.", "verdict": "hold"})),
            reply(text("Not confirmed.")),  # the verifier looks at the P0
        ]
        with open_world(
            tmp_path / "world", base=TWO_FILES_BASE, head=TWO_FILES_HEAD, script=script
        ) as world:
            monkeypatch.chdir(world.repo)
            result = invoke(["review", "--local", "--base", "main"], _local_env(world))
        assert result.exit_code == 0, result.output
        out = result.stdout
        assert "eval in the last file" in out, out
        assert out.index("eval in the last file") < out.index("A nit in the first file")
        assert re.search(r"z_core\.py · lines 2–3", out), out
        assert re.search(r"a_util\.py · line 2\b", out), out
        assert "lines 2–2" not in out

    def test_files_outside_the_budget_are_one_short_list(self, tmp_path, monkeypatch):
        """Twenty files outside the context budget: no model hint, a few lines, the rest counted."""
        body = "".join(f"value_{i} = {i} * 1234567\n" for i in range(120))
        base = {".reviewbot.toml": "[budget]\ncontext_tokens = 1000\n"}
        head = {f"mod_{n:02d}.py": body for n in range(20)}
        monkeypatch.chdir(make_repo(tmp_path / "repo", base=base, head=head).path)
        result = invoke(["review", "--local", "--base", "main"])
        assert result.exit_code == 0, result.output
        out = result.stdout
        assert "read the file if it matters" not in out
        assert "mod_00.py" in out
        assert "17 more file(s)" in out  # the rest counted, the first of them named
        assert len(out.splitlines()) < 40, out

    @pytest.mark.parametrize("fmt", ["text", "markdown"])
    def test_a_local_run_without_a_model_claims_no_coverage_or_posting(
        self, tmp_path, monkeypatch, fmt
    ):
        """No key and no --post: nothing says files were reviewed or findings posted."""
        monkeypatch.chdir(_local_repo(tmp_path, base_config=None))
        result = invoke(["review", "--local", "--base", "main", "--format", fmt])
        assert result.exit_code == 0, result.output
        out = result.stdout
        assert "Posted" not in out
        assert "inline" not in out
        assert not re.search(r"1 of 1 changed files", out), out
        assert re.search(r"no model ran", out), out


class TestGitHubRetryLines:
    def test_an_unreachable_github_prints_one_line_of_ours_per_retry(self, monkeypatch):
        """Each retry is one `reviewbot:` line naming the cause; urllib3's own lines never show."""
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        monkeypatch.setattr(urllib3.util.retry.Retry, "sleep", lambda self, response=None: None)
        env = {
            "GITHUB_API_URL": f"http://127.0.0.1:{port}",
            "GITHUB_SERVER_URL": "https://github.com",
            "GITHUB_TOKEN": GITHUB_TOKEN,
        }
        result = invoke(["review", PR_URL], env)
        assert result.exit_code == 5
        assert "GithubRetry" not in result.stderr
        assert "Retrying (" not in result.stderr
        retries = [line for line in result.stderr.splitlines() if "retrying" in line]
        assert len(retries) == 5, result.stderr
        assert all(
            line.startswith("reviewbot: GitHub unreachable (Connection refused)")
            for line in retries
        )
        assert "4 attempt(s) left" in retries[0]
        assert "0 attempt(s) left" in retries[-1]


# ---------------------------------------------------------------- local reviews


def _git(path: Path, *args: str) -> str:
    return GitRepo(path).git(*args)


class TestLocalReviews:
    def test_no_changes_is_nothing_to_review_and_no_request(self, tmp_path, monkeypatch):
        """A branch with no changes against the base says so, exits 0 and asks the model nothing."""
        with open_world(tmp_path / "world", base={"a.py": "x = 1\n"}, head={}) as world:
            monkeypatch.chdir(world.repo)
            result = invoke(["review", "--local", "--base", "main"], _local_env(world))
            assert world.model.requests == []
        assert result.exit_code == 0, result.output
        assert "reviewbot: nothing to review: no changes between main and HEAD" in result.stderr

    def test_uncommitted_changes_are_reported(self, tmp_path, monkeypatch):
        """Modified and untracked files are named as left out, with the option that reviews them."""
        repo = _local_repo(tmp_path, base_config=None)
        (repo / "a.py").write_text("x = 3\n")
        (repo / "new.py").write_text("y = 1\n")
        monkeypatch.chdir(repo)
        result = invoke(["review", "--local", "--base", "main"])
        assert result.exit_code == 0, result.output
        assert "2 uncommitted change(s) are not in this review" in result.stderr
        assert "--worktree" in result.stderr

    def test_worktree_reviews_uncommitted_and_untracked_files_never_ignored_ones(
        self, tmp_path, monkeypatch
    ):
        """--worktree sends modified and new files against the base; ignored files and the index stay out."""
        base = {"a.py": "x = 1\n", ".gitignore": ".env\n"}
        with open_world(
            tmp_path / "world", base=base, head={}, script=[reply(text("Looks fine."))]
        ) as world:
            repo = world.repo
            (repo / "a.py").write_text("x = 'UNCOMMITTED_EDIT'\n")
            (repo / "new.py").write_text("y = 'UNTRACKED_FILE'\n")
            (repo / ".env").write_text("TOKEN=IGNORED_SECRET\n")
            before = (_git(repo, "status", "--porcelain"), _git(repo, "for-each-ref"))
            monkeypatch.chdir(repo)
            result = invoke(
                ["review", "--local", "--base", "main", "--worktree"], _local_env(world)
            )
            sent = json.dumps(world.model.requests)
            after = (_git(repo, "status", "--porcelain"), _git(repo, "for-each-ref"))
        assert result.exit_code == 0, result.output
        assert "UNCOMMITTED_EDIT" in sent
        assert "UNTRACKED_FILE" in sent
        assert "IGNORED_SECRET" not in sent
        assert after == before  # the user's index, branches and refs are untouched
        assert "uncommitted change(s) are not in this review" not in result.stderr

    def test_the_default_base_is_origin_head(self, tmp_path, monkeypatch):
        """Without --base, origin/HEAD's branch is the base (here it already holds the branch)."""
        repo = make_repo(tmp_path / "repo", base={"a.py": "x = 1\n"}, head={"a.py": "x = 2\n"})
        repo.git("update-ref", "refs/remotes/origin/trunk", repo.sha("feature"))
        repo.git("symbolic-ref", "refs/remotes/origin/HEAD", "refs/remotes/origin/trunk")
        monkeypatch.chdir(repo.path)
        result = invoke(["review", "--local"])
        assert result.exit_code == 0, result.output
        assert "nothing to review: no changes between origin/trunk and HEAD" in result.stderr

    def test_a_master_repository_needs_no_base(self, tmp_path, monkeypatch):
        """Without origin/HEAD and main, `master` is the base: no "unknown ref 'main'"."""
        repo = make_repo(tmp_path / "repo", base={"a.py": "x = 1\n"}, head={"a.py": "x = 2\n"})
        repo.git("branch", "-m", "main", "master")
        monkeypatch.chdir(repo.path)
        result = invoke(["review", "--local", "--format", "json"])
        assert result.exit_code == 0, result.output
        assert json.loads(result.stdout)["pr"]["base_sha"] == repo.sha("master")

    def test_no_default_base_says_what_to_pass(self, tmp_path, monkeypatch):
        """A repository with neither origin/HEAD, main nor master: one line asking for --base."""
        repo = make_repo(tmp_path / "repo", base={"a.py": "x = 1\n"}, head={"a.py": "x = 2\n"})
        repo.git("branch", "-m", "main", "trunk")
        monkeypatch.chdir(repo.path)
        result = invoke(["review", "--local"])
        assert result.exit_code == 4, result.output
        (line,) = error_lines(result)
        assert "pass --base" in line

    def test_a_shallow_clone_is_told_to_fetch_history(self, tmp_path, monkeypatch):
        """Branches cut off by a shallow clone: exit 6, and the line says how to fetch more history."""
        origin = make_repo(tmp_path / "origin", base={"a.py": "x = 1\n"}, head={"a.py": "x = 2\n"})
        origin.git("commit", "--quiet", "--allow-empty", "-m", "more")
        clone = tmp_path / "clone"
        GitRepo(tmp_path).git(
            "clone",
            "--quiet",
            "--depth=1",
            "--no-single-branch",
            f"file://{origin.path}",
            str(clone),
        )
        monkeypatch.chdir(clone)
        result = invoke(["review", "--local", "--base", "origin/main"])
        assert result.exit_code == 6, result.output
        (line,) = error_lines(result)
        assert "shallow" in line
        assert "git fetch --unshallow" in line


class _Leak(Exception):
    """An exception whose message carries a secret, as a failed request's URL or body can."""


def _raise_with_cause(secret: str) -> None:
    try:
        raise _Leak(f"inner failure, key={secret}")
    except _Leak as inner:
        raise RuntimeError("outer failure") from inner


def _raise_while_handling(secret: str) -> None:
    try:
        raise _Leak(f"first failure, key={secret}")
    except _Leak:
        raise RuntimeError("failed while handling it")  # noqa: B904 (the implicit context is the point)


class TestLogRedaction:
    """Every line the CLI's log handler writes passed the redactor, tracebacks included."""

    SECRET = "hunter2-" + "s3cr3t-value"

    @pytest.fixture
    def logger(self) -> logging.Logger:
        return logging.getLogger("reviewbot.test")

    def _configure(self) -> None:
        # In the test body: the handler binds the sys.stderr that capsys has in place then.
        settings = Settings.from_environ({"DEPLOY_PASSWORD": self.SECRET})
        configure_logging(True, settings)

    def _logged(self, capsys: pytest.CaptureFixture[str]) -> str:
        err = capsys.readouterr().err
        assert "Traceback" in err or "Stack" in err, err  # the traceback was written
        return err

    def test_log_exception_with_the_secret_in_the_message(self, logger, capsys):
        """`log.exception` of an exception whose message holds the secret: masked in the traceback."""
        self._configure()
        try:
            raise _Leak(f"request to https://x.invalid/?key={self.SECRET} failed")
        except _Leak:
            logger.exception("the request failed")
        err = self._logged(capsys)
        assert self.SECRET not in err
        assert f"key={MASK}" in err

    def test_exc_info_true(self, logger, capsys):
        """`exc_info=True` on any level: the traceback is masked too."""
        self._configure()
        try:
            raise _Leak(f"token {self.SECRET}")
        except _Leak:
            logger.debug("while retrying", exc_info=True)
        err = self._logged(capsys)
        assert self.SECRET not in err
        assert f"token {MASK}" in err

    def test_a_chained_cause(self, logger, capsys):
        """The secret in a `__cause__`, printed above the outer traceback, is masked."""
        self._configure()
        try:
            _raise_with_cause(self.SECRET)
        except RuntimeError as exc:
            logger.error("failed", exc_info=exc)
        err = self._logged(capsys)
        assert "direct cause" in err  # the chained exception was printed
        assert self.SECRET not in err
        assert f"key={MASK}" in err

    def test_a_chained_context(self, logger, capsys):
        """The secret in an implicit `__context__` (raised while handling) is masked."""
        self._configure()
        try:
            _raise_while_handling(self.SECRET)
        except RuntimeError:
            logger.exception("failed")
        err = self._logged(capsys)
        assert "During handling" in err
        assert self.SECRET not in err

    def test_stack_info_and_arguments(self, logger, capsys):
        """A secret passed as a format argument, with `stack_info`, is masked."""
        self._configure()
        logger.warning("using %s", self.SECRET, stack_info=True)
        err = self._logged(capsys)
        assert self.SECRET not in err
        assert f"using {MASK}" in err

    def test_a_record_that_cannot_be_written(self, logger, capsys):
        """A failed write (a closed stream) is reported in one redacted line, never the raw record."""
        self._configure()
        stream = logging.getLogger().handlers[0]
        assert isinstance(stream, logging.StreamHandler)
        closed = io.StringIO()
        closed.close()
        stream.setStream(closed)
        try:
            raise _Leak(f"key={self.SECRET}")
        except _Leak:
            logger.exception("using %s", self.SECRET)
        err = capsys.readouterr().err
        assert err.startswith("reviewbot: a log line could not be written (ValueError: I/O ")
        assert err.count("\n") == 1
        assert self.SECRET not in err


class TestUnknownStreamEncoding:
    def test_json_to_a_stream_of_an_unknown_encoding_is_ascii_escaped(self):
        """An encoding Python does not know is treated as not Unicode: the same JSON, escaped."""
        from reviewbot.output.emit import Format, emitter
        from reviewbot.redact import Redactor
        from tests.publish.conftest import make_report, node

        class Stream(io.StringIO):
            encoding = "x-no-such-codec"  # type: ignore[assignment]

        report = make_report((node(id="review-1", title="Größe überläuft — ∞"),))
        stream = Stream()
        emitter(Format.JSON, stream, Redactor())(report, None)
        written = stream.getvalue()
        assert written.isascii()
        assert "\\u00f6" in written
        assert json.loads(written)["nodes"][0]["title"] == "Größe überläuft — ∞"
