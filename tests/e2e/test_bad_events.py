"""Bad input at the Actions entry point: `reviewbot review --github-event` on broken events
and broken base-branch configs ends in one `reviewbot: error:` line and exit 2, with no
GitHub write and no model request — never an internal error (exit 70).

Every run here is independent: they start together in one module-scoped fixture.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.messages_api import reply, text, tool_use
from tests.fakes.pulls import seed_pull
from tests.fakes.runs import Run
from tests.fakes.webhooks import check_suite_event, issue_comment_event, pull_request_event
from tests.fakes.world import REPO, World

BASE = {"app.py": "def total(items):\n    return sum(items)\n"}
HEAD = {"app.py": "def total(items):\n    return sum(items) + 0\n"}
ARGS = ["review", "--github-event", "--post"]

DEEP_TOML = "x = " + "[" * 1_000 + "]" * 1_000 + "\n"
LONG_INT_TOML = "[budget]\nmax_turns = " + "7" * 5_000 + "\n"
LOOSE_CONFIGS = {
    "max-turns-string": '[budget]\nmax_turns = "30"\n',
    "max-turns-bool": "[budget]\nmax_turns = true\n",
    "approve-yes": '[publish]\napprove = "yes"\n',
}


def _number(value: Any) -> Callable[[World], dict[str, Any]]:
    def make(world: World) -> dict[str, Any]:
        payload = pull_request_event(world)
        payload["pull_request"]["number"] = value
        return payload

    return make


def _raw(encode: Callable[[bytes], bytes]) -> Callable[[World], bytes]:
    return lambda world: encode(json.dumps(pull_request_event(world)).encode("utf-8"))


def _deep_event(world: World) -> bytes:
    text = json.dumps(pull_request_event(world))
    return (text[:-1] + ', "x": ' + "[" * 1_000 + "]" * 1_000 + "}").encode()


def _long_int_event(world: World) -> bytes:
    text = json.dumps(pull_request_event(world))
    return (text[:-1] + ', "x": ' + "9" * 5_000 + "}").encode()


def _suite_number(world: World) -> dict[str, Any]:
    payload = check_suite_event(world)
    payload["check_suite"]["pull_requests"][0]["number"] = "7"
    return payload


OTHER = "other-org/app"  # a repository the token can write to, but the workflow does not run in
LOOSE_NAMES = {
    "dot-git": f"{REPO}.git",
    "trailing-slash": f"{REPO}/",
    "double-slash": REPO.replace("/", "//"),
    "newline": f"{REPO}\n",
}


def _named(full_name: str) -> Callable[[World], dict[str, Any]]:
    def make(world: World) -> dict[str, Any]:
        payload = pull_request_event(world)
        payload["repository"]["full_name"] = full_name
        return payload

    return make


# name → (how to make the event from the world, the event name)
BAD_EVENTS: dict[str, tuple[Callable[[World], Any], str]] = {
    "byte-ff": (lambda world: b"\xff", "pull_request"),
    "gzip": (_raw(gzip.compress), "pull_request"),
    "utf-16": (_raw(lambda b: b.decode("utf-8").encode("utf-16")), "pull_request"),
    "deep-json": (_deep_event, "pull_request"),
    "long-integer": (_long_int_event, "pull_request"),
    "number-float": (_number(7.0), "pull_request"),
    "number-string": (_number("7"), "pull_request"),
    "number-padded": (_number(" 7 "), "pull_request"),
    "number-true": (_number(True), "pull_request"),
    "number-nan": (_number(float("nan")), "pull_request"),
    "suite-number-string": (_suite_number, "check_suite"),
    "other-repository": (_named(OTHER), "pull_request"),
    **{name: (_named(full_name), "pull_request") for name, full_name in LOOSE_NAMES.items()},
    "traversal-login": (
        lambda world: issue_comment_event(world, login="x/../maintainer"),
        "issue_comment",
    ),
}
BAD_CONFIGS = {"deep-toml": DEEP_TOML, "long-int-toml": LONG_INT_TOML, **LOOSE_CONFIGS}


@pytest.fixture(scope="module")
def bad_runs(worlds) -> dict[str, Run]:
    """Every bad event against one world, every bad config in a world of its own; all at once."""
    world = worlds("events", base=BASE, head=HEAD, permissions={"maintainer": "write"})
    # The same PR in another repository of the fake, so a run that obeyed the payload would post.
    seed_pull(world.github, world.repo, "main", "feature", full_name=OTHER, author="octocat")
    started = {
        name: world.start(ARGS, event_name=event_name, event=make(world))
        for name, (make, event_name) in BAD_EVENTS.items()
    }
    for name, config in BAD_CONFIGS.items():
        configured = worlds(name, base={**BASE, ".reviewbot.toml": config}, head=HEAD)
        started[name] = configured.start(
            ARGS, event_name="pull_request", event=pull_request_event(configured)
        )
    return {name: pending.wait() for name, pending in started.items()}


def _refused_in_one_line(run: Run) -> str:
    """The run's one error line, after checking it wrote nothing and asked no model."""
    assert run.returncode == 2, run.stderr
    errors = [line for line in run.stderr.splitlines() if line.startswith("reviewbot: error:")]
    assert len(errors) == 1, run.stderr
    assert "internal error" not in run.stderr
    assert run.writes() == []
    assert run.model == ()
    return errors[0]


class TestUnreadableEventFile:
    """Item 1: an event file that is not strict JSON in UTF-8 is bad input, not a bug."""

    @pytest.mark.parametrize(
        ("name", "said"),
        [
            ("byte-ff", "is not UTF-8 text"),
            ("gzip", "is not UTF-8 text"),
            ("utf-16", "is not UTF-8 text"),
            ("deep-json", "nested too deeply"),
            ("long-integer", "an integer of 5,000 digits"),
        ],
        ids=["byte-ff", "gzip", "utf-16", "deep-json", "long-integer"],
    )
    def test_is_exit_2_in_one_line(self, bad_runs, name, said):
        """Not UTF-8, nested ~1,000 deep, a 5,000-digit integer: one line, exit 2, nothing written."""
        assert said in _refused_in_one_line(bad_runs[name])


class TestUnreadableConfig:
    """Item 1: a base-branch `.reviewbot.toml` Python's parser chokes on is a config error."""

    @pytest.mark.parametrize(
        ("name", "said"),
        [("deep-toml", "nested too deeply"), ("long-int-toml", "an integer is too long")],
        ids=["deep-array", "long-integer"],
    )
    def test_is_exit_2_in_one_line(self, bad_runs, name, said):
        """A deeply nested array or a 5,000-digit integer in the config: one line, exit 2."""
        line = _refused_in_one_line(bad_runs[name])
        assert "`.reviewbot.toml` (base branch main)" in line
        assert said in line


class TestLooseTypes:
    """Item 4: numbers are integers and flags booleans, in the event and in the config."""

    @pytest.mark.parametrize(
        "name",
        [
            "number-float",
            "number-string",
            "number-padded",
            "number-true",
            "number-nan",
            "suite-number-string",
        ],
    )
    def test_a_pr_number_that_is_not_an_integer_is_refused(self, bad_runs, name):
        """`7.0`, `"7"`, `" 7 "`, `true`, `NaN` never review #7 (or #1)."""
        line = _refused_in_one_line(bad_runs[name])
        assert "number" in line or "NaN" in line

    @pytest.mark.parametrize("name", sorted(LOOSE_CONFIGS))
    def test_a_setting_of_the_wrong_type_is_refused(self, bad_runs, name):
        """`max_turns = "30"` or `true`, `approve = "yes"`: a config error naming the key."""
        line = _refused_in_one_line(bad_runs[name])
        key = "publish.approve" if name == "approve-yes" else "budget.max_turns"
        assert f"line 2: {key}: Input should be a valid" in line


class TestTheWrongRepository:
    """Item 2: in Actions the repository is GITHUB_REPOSITORY, and names are parsed strictly."""

    def test_a_payload_naming_another_repository_is_refused(self, bad_runs):
        """`other-org/app` in the payload while GITHUB_REPOSITORY is octo/app: refused, nothing asked."""
        run = bad_runs["other-repository"]
        line = _refused_in_one_line(run)
        assert f"names the repository {OTHER}, but this workflow runs in {REPO}" in line
        assert [r.path for r in run.github if OTHER in r.path] == []

    @pytest.mark.parametrize("name", sorted(LOOSE_NAMES))
    def test_a_name_that_only_looks_like_ours_is_refused(self, bad_runs, name):
        """`octo/app.git`, `octo/app/`, `octo//app`, `"octo/app\\n"` are not octo/app."""
        line = _refused_in_one_line(bad_runs[name])
        assert "is not a repository name: expected OWNER/REPO" in line


class TestALoginThatRewritesAUrl:
    """Item 3: a login is checked against GitHub's rules before any permission lookup."""

    def test_a_commenter_named_like_a_path_is_refused_before_any_lookup(self, bad_runs):
        """`/review` by `x/../maintainer` never asks about (nor runs as) `maintainer`."""
        run = bad_runs["traversal-login"]
        line = _refused_in_one_line(run)
        assert "comment.user.login: is not a GitHub login" in line
        assert [r.path for r in run.github if "/collaborators/" in r.path] == []


INJECTED = "::error::injected"
HOSTILE_NODE = {
    "kind": "bug",
    "priority": "P2",
    "confidence": 0.6,
    "title": f"{INJECTED} in a title",
    "body": f"First line.\n{INJECTED}\n  ::warning::indented\nand ##[error]legacy",
    "anchor": {
        "path": "app.py",
        "start_line": 2,
        "end_line": 2,
        "quote": "    return sum(items) + 0",
    },
}


def workflow_commands(lines: list[str], *, fenced: bool = True) -> list[str]:
    """The lines GitHub's runner would run as workflow commands (`::x::` after leading
    whitespace, or `##[` anywhere), honouring `::stop-commands::` when `fenced`."""
    stopped: str | None = None
    found = []
    for line in lines:
        text = line.lstrip()
        if stopped is not None:
            stopped = None if text == f"::{stopped}::" else stopped
            continue
        if fenced and text.startswith("::stop-commands::"):
            stopped = text.removeprefix("::stop-commands::")
        elif (text.startswith("::") and "::" in text[2:]) or "##[" in line:
            found.append(line)
    return found


def _fence(run: Run) -> tuple[str, str]:
    lines = run.stderr.splitlines()
    return lines[0], lines[-1]


@pytest.fixture(scope="module")
def log_runs(worlds) -> dict[str, Run]:
    """A payload field with a workflow command in it; a 1 MB field; PR text and model text
    with commands, reviewed and printed as text (the Action's default) — all at once."""
    world = worlds("log", base=BASE, head=HEAD)
    hostile = worlds(
        "hostile",
        base=BASE,
        head=HEAD,
        script=[reply(tool_use("add_review_node", HOSTILE_NODE)), reply(text("Done."))],
    )
    hostile.pull.title = f"Fix\n{INJECTED}"
    hostile.pull.body = f"##[warning]body\n{INJECTED}"
    injected, huge = pull_request_event(world), pull_request_event(world)
    injected["action"] = f"opened\n{INJECTED}"
    huge["action"] = "x" * 1_000_000
    started = {
        "action": world.start(ARGS, event_name="pull_request", event=injected),
        "huge": world.start(ARGS, event_name="pull_request", event=huge),
        "review": hostile.start(
            ["review", "--github-event"],
            event_name="pull_request",
            event=pull_request_event(hostile),
        ),
    }
    return {name: pending.wait() for name, pending in started.items()}


class TestWorkflowCommandsInTheLog:
    """Item 6: untrusted text never reaches the Actions log as a workflow command."""

    def test_a_payload_field_cannot_start_a_line_with_a_command(self, log_runs):
        """`action: "opened\\n::error::injected"`: skipped, and no line of the log is a command."""
        run = log_runs["action"]
        assert run.returncode == 0, run.stderr
        lines = run.stderr.splitlines()
        assert any(line.endswith(f"| {INJECTED}: nothing to review") for line in lines)
        assert workflow_commands(lines) == []
        # Even a runner that ignored the fence would see only the fence itself.
        assert workflow_commands(lines, fenced=False) == list(_fence(run))

    def test_pr_and_model_text_printed_on_stdout_is_fenced(self, log_runs):
        """Title, body and a finding full of commands: stdout and stderr run no command."""
        run = log_runs["review"]
        assert run.returncode == 0, run.stderr
        assert INJECTED in run.stdout  # printed, as text
        start, end = _fence(run)
        assert start.startswith("::stop-commands::")
        assert end == f"::{start.removeprefix('::stop-commands::')}::"
        log = [start, *run.stdout.splitlines(), *run.stderr.splitlines()[1:]]
        assert workflow_commands(log) == []

    def test_a_huge_value_is_cut_in_the_log(self, log_runs):
        """A 1 MB payload field prints a few kilobytes, not megabytes."""
        run = log_runs["huge"]
        assert run.returncode == 0, run.stderr
        assert len(run.stderr) < 40_000
        assert "more characters cut]" in run.stderr


def _suite_of(world: World, numbers: list[int]) -> dict[str, Any]:
    """A completed check suite on the world's head that names the PRs `numbers`."""
    payload = check_suite_event(world)
    stub = payload["check_suite"]["pull_requests"][0]
    payload["check_suite"]["pull_requests"] = [{**stub, "number": n} for n in numbers]
    return payload


@pytest.fixture(scope="module")
def suite_runs(worlds) -> dict[str, Run]:
    """A check suite naming PRs #7 and #8 (`--format json`), and one naming #7, #99 and #8
    where #99 does not exist; each world has PR #8 on the same head as #7."""
    started = {}
    for name, numbers in (("two", [8, 7]), ("missing", [7, 99, 8])):
        world = worlds(f"suite-{name}", base=BASE, head=HEAD)
        seed_pull(world.github, world.repo, "main", "feature", number=8, author="octocat")
        started[name] = world.start(
            [*ARGS, "--format", "json"], event_name="check_suite", event=_suite_of(world, numbers)
        )
    return {name: pending.wait() for name, pending in started.items()}


def _numbers(document: Any) -> list[int]:
    return [report["pr"]["number"] for report in document]


def _report_file(run: Run) -> Any:
    return json.loads(Path(run.outputs["report-path"]).read_text(encoding="utf-8"))


class TestASuiteOfSeveralPullRequests:
    """Item 5: one JSON document for the run, every PR's report in the file, each PR's outcome."""

    def test_json_output_is_one_document_with_every_report(self, suite_runs):
        """Two PRs: stdout parses as one JSON array of two reports, as does the report file."""
        run = suite_runs["two"]
        assert run.returncode == 0, run.stderr
        assert _numbers(json.loads(run.stdout)) == [7, 8]
        assert _numbers(_report_file(run)) == [7, 8]
        assert run.outputs["verdict"] == "hold"  # no review of the head yet: not_run → Hold
        lines = run.stderr.splitlines()
        assert f"reviewbot: {REPO}#7: verdict hold" in lines
        assert f"reviewbot: {REPO}#8: verdict hold" in lines

    def test_a_pr_that_does_not_exist_fails_alone(self, suite_runs):
        """#99 is not found: #7 and #8 are still re-folded and reported, then exit 4."""
        run = suite_runs["missing"]
        assert run.returncode == 4, run.stderr
        assert _numbers(json.loads(run.stdout)) == [7, 8]
        assert _numbers(_report_file(run)) == [7, 8]
        errors = [line for line in run.stderr.splitlines() if "reviewbot: error:" in line]
        assert len(errors) == 1
        assert errors[0].startswith(f"reviewbot: error: {REPO}#99: ")
        checks = [p.json()["head_sha"] for p in run.calls("POST", "/check-runs")]
        assert len(checks) == 2  # one check run for the head of #7 and #8 each
