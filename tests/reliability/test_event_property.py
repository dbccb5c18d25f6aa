"""The Actions entry point under generated input: `reviewbot review --github-event --post
--format json`, in-process, against the loopback GitHub of the reliability world.

Hypothesis (seeded, bounded) starts from GitHub's real webhook payloads
(tests/data/github-webhooks, MIT), aimed at the world's PR #7 of octo/app, and breaks one
thing at a time: a field replaced by any JSON value (deep, huge, of the wrong type, with
line breaks and workflow commands), a key dropped, another repository or a name that only
looks like ours, another event name, the file's bytes re-encoded, cut or nested deep; and
the base branch's `.reviewbot.toml`, valid or with one setting of the wrong type. For every
run it asserts the rules of the entry point:

- the exit code is one `reviewbot review` documents, and never 70 (an internal error);
- an invalid or skipped event writes nothing to GitHub;
- nothing is ever written outside GITHUB_REPOSITORY;
- stdout is one valid JSON document whenever it is not empty.

No model key is set: a valid event reviews with the reviewer axes not_run (Hold) and
publishes, so the valid path is exercised too, without scripting a model.
"""

from __future__ import annotations

import copy
import gzip
import json
from pathlib import Path
from typing import Any

from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reviewbot import app
from reviewbot.cli import cli
from reviewbot.errors import EXIT_CODES, ExitCode
from reviewbot.github.client import make_client
from tests.fakes.world import REPO, World

WEBHOOKS = Path(__file__).resolve().parents[1] / "data" / "github-webhooks"
PAYLOADS = {
    p.name: json.loads(p.read_text(encoding="utf-8"))
    for p in sorted(WEBHOOKS.glob("*.json"))
    if p.name != "LICENSE"
}
EVENT_NAMES = ["pull_request", "pull_request_target", "issue_comment", "check_suite", "push"]
DOCUMENTED = {int(code) for code in EXIT_CODES}
BAD_NAMES = ["other-org/app", f"{REPO}.git", f"{REPO}/", REPO.replace("/", "//"), f"{REPO}\n"]
HOSTILE_TEXT = ["opened\n::error::injected", "##[warning]x", "x" * 100_000, "", " 7 "]

JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**40), max_value=10**40)
    | st.floats(allow_nan=False)
    | st.sampled_from(HOSTILE_TEXT)
    | st.text(max_size=12),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=10,
)
TOML_VALUES = st.one_of(
    st.sampled_from(['"30"', "true", '"yes"', "nan", "inf", "-1", "0", "1.5", "[]", '["P0"]']),
    st.sampled_from(["[" * 600 + "]" * 600, "9" * 5_000, '"::error::x"', "{ a = 1 }"]),
    st.integers(min_value=-5, max_value=10**6).map(str),
)
CONFIG_KEYS = [
    ("budget", "max_turns"),
    ("budget", "max_cost_usd"),
    ("publish", "approve"),
    ("publish", "max_inline_comments"),
    ("publish", "advisory_hold"),
    ("review", "incremental"),
    ("verifier", "priorities"),
    ("paths", "exclude"),
    ("ci", "gated"),
]


def aimed(payload: dict[str, Any], world: World) -> dict[str, Any]:
    """A real payload about the world's PR #7 of octo/app at its head."""
    out = copy.deepcopy(payload)
    pull = world.pull
    assert pull is not None
    repo_id = world.github.repo(REPO).id
    if isinstance(out.get("repository"), dict):
        out["repository"].update(full_name=REPO, id=repo_id)
    if isinstance(out.get("pull_request"), dict):
        pr = out["pull_request"]
        pr["number"] = pull.number
        pr["head"]["sha"], pr["base"]["sha"] = pull.head_sha, pull.base_sha
    if isinstance(out.get("issue"), dict):
        out["issue"]["number"] = pull.number
    if isinstance(out.get("check_suite"), dict):
        out["check_suite"]["head_sha"] = pull.head_sha
        for stub in out["check_suite"].get("pull_requests") or []:
            stub["number"] = pull.number
    return out


def paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every key path in a JSON value, shallow ones first (bounded)."""
    found = []
    if isinstance(value, dict):
        items: list[tuple[Any, Any]] = list(value.items())
    elif isinstance(value, list):
        items = list(enumerate(value))
    else:
        return []
    for key, child in items:
        found.append((*prefix, key))
        if len(prefix) < 3:
            found += paths(child, (*prefix, key))
    return found


def _parent(payload: Any, path: tuple[Any, ...]) -> Any:
    for key in path[:-1]:
        payload = payload[key]
    return payload


@st.composite
def events(draw: st.DrawFn, world: World) -> tuple[str, bytes, bool]:
    """(event name, event file bytes, whether it is the real payload unchanged)."""
    file_name = draw(st.sampled_from(sorted(PAYLOADS)))
    payload = aimed(PAYLOADS[file_name], world)
    name = draw(st.sampled_from([file_name.split(".")[0], *EVENT_NAMES]))
    how = draw(st.sampled_from(["as-is", "replace", "drop", "repository", "bytes"]))
    if how == "replace":
        path = draw(st.sampled_from(paths(payload)))
        _parent(payload, path)[path[-1]] = draw(JSON_VALUES)
    elif how == "drop":
        path = draw(st.sampled_from([p for p in paths(payload) if isinstance(p[-1], str)]))
        del _parent(payload, path)[path[-1]]
    elif how == "repository" and isinstance(payload.get("repository"), dict):
        payload["repository"]["full_name"] = draw(st.sampled_from(BAD_NAMES))
    raw = json.dumps(payload).encode()
    if how == "bytes":
        transform = draw(st.sampled_from(["utf-16", "gzip", "cut", "xff", "deep", "bom"]))
        raw = {
            "utf-16": lambda: raw.decode().encode("utf-16"),
            "gzip": lambda: gzip.compress(raw),
            "cut": lambda: raw[: len(raw) // 2],
            "xff": lambda: b"\xff" + raw,
            "deep": lambda: b'{"a":' * 1_200 + b"1" + b"}" * 1_200,
            "bom": lambda: b"\xef\xbb\xbf" + raw,
        }[transform]()
    return name, raw, how == "as-is" and name == file_name.split(".")[0]


@st.composite
def configs(draw: st.DrawFn) -> str | None:
    """The base branch's `.reviewbot.toml`: none, a valid one, or one setting broken."""
    kind = draw(st.sampled_from(["none", "valid", "broken"]))
    if kind == "none":
        return None
    if kind == "valid":
        return "[budget]\nmax_turns = 5\n\n[publish]\napprove = false\n"
    table, key = draw(st.sampled_from(CONFIG_KEYS))
    return f"[{table}]\n{key} = {draw(TOML_VALUES)}\n"


def _clients() -> app.Clients:
    return app.Clients(
        github=lambda ref, s: make_client(ref.api_url, s.github_token, backoff=0, retries=1)
    )


def _env(world: World, event_path: Path, name: str) -> dict[str, str | None]:
    return world.env(
        ANTHROPIC_API_KEY=None,
        ANTHROPIC_BASE_URL=None,
        GITHUB_ACTIONS="true",
        GITHUB_REPOSITORY=REPO,
        GITHUB_EVENT_NAME=name,
        GITHUB_EVENT_PATH=str(event_path),
        RUNNER_TEMP=str(world.tmp / "runner"),
        REVIEWBOT_MARKER_KEY="marker-" + "M" * 24,
    )


class TestTheEntryPointUnderGeneratedInput:
    def test_every_generated_event_and_config_keeps_the_rules(self, world: World):
        """Any event file and base config: a documented exit code (never 70), no write for an
        invalid or skipped event, none outside GITHUB_REPOSITORY, valid JSON on stdout."""
        world.build()
        world.seed()
        world.serve()
        pull = world.pull
        assert pull is not None
        seen: dict[str, int] = {}

        @settings(
            max_examples=40,
            derandomize=True,
            database=None,
            deadline=None,
            suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
        )
        @given(event=events(world), config=configs())
        def check(event: tuple[str, bytes, bool], config: str | None) -> None:
            name, raw, _ = event
            if config is None:
                world.github.repo(REPO).contents.pop((pull.base_sha, ".reviewbot.toml"), None)
            else:
                world.github.set_content(REPO, pull.base_sha, ".reviewbot.toml", config)
            event_path = world.tmp / "event.json"
            event_path.write_bytes(raw)
            before = len(world.github_server.snapshot())
            result = CliRunner().invoke(
                cli,
                ["review", "--github-event", "--post", "--format", "json"],
                env=_env(world, event_path, name),
                obj=_clients(),
            )
            sent = world.github_server.snapshot()[before:]
            writes = [r for r in sent if r.is_write]
            code = result.exit_code
            seen[str(code)] = seen.get(str(code), 0) + 1
            assert code in DOCUMENTED, (code, result.output, result.exception)
            assert code != ExitCode.INTERNAL, result.stderr
            assert all(r.path.startswith(f"/repos/{REPO}/") for r in writes), [
                r.path for r in writes
            ]
            reviewed = "reviewbot: verdict " in result.stderr
            if not reviewed:
                assert writes == [], (result.stderr, [r.path for r in writes])
            if result.stdout.strip():
                json.loads(result.stdout)

        check()
        # The generator reached both sides: refusals (2) and completed runs (0).
        assert seen.get("2", 0) > 0
        assert seen.get("0", 0) > 0
