"""Bad input: odd pull requests, bad configuration, bad URLs and bad credentials.

Odd PRs (empty, binary-only, a 50 MB file, non-UTF-8, renames, deletions,
submodules, more files than GitHub lists) must review to a definite, honest
outcome; user mistakes must end in one `reviewbot: error:` line with the exit
code the CLI documents (2 usage/config, 3 auth, 4 not found), before any model
request or GitHub write.
"""

from __future__ import annotations

import json
import tracemalloc

import pytest

from reviewbot.agent.context import (
    REASON_BINARY,
    REASON_EXCLUDED,
    REASON_SUBMODULE,
)
from reviewbot.github.admission import NO_KEY_HINT, NO_KEY_REMEDY
from tests.fakes.github_api import FakeFile, FakeGitHub
from tests.fakes.keys import GITHUB_TOKEN
from tests.fakes.messages_api import reply, text, tool_use
from tests.fakes.scenario import BASE_APP, HEAD_APP, finding
from tests.fakes.server import Request, Response
from tests.fakes.world import World

BIG = 50 * 1024 * 1024
BIG_PATH = "generated/big.txt"
FILES_CAP = 3_000


class _TooLarge(FakeFile):
    """A file GitHub lists without a patch because it is too large, with its line counts."""

    def counts(self) -> tuple[int, int]:
        return (BIG // 65, 0)


def _written_nothing(world: World) -> bool:
    return world.github_server.writes == 0


def _first_prompt(world: World) -> str:
    return json.dumps(world.api.requests[0])


class TestOddPullRequests:
    """Pull requests whose shape is unusual still get an honest, complete review."""

    def test_empty_pull_request(self, world: World) -> None:
        """A PR that changes no file reviews to Ship with zero files covered and one review posted."""
        world.build(head={})
        world.seed()
        world.serve(reply(text("Nothing changed.")))
        run = world.review("--post")
        assert run.exit_code == 0, run.stderr
        assert run.report is not None
        assert run.report["coverage"]["files_total"] == 0
        assert run.report["coverage"]["partial"] is False
        assert run.report["verdict"] == "ship"
        assert len(world.posted_reviews()) == 1

    def test_only_binary_files(self, world: World) -> None:
        """Binary files are listed as binary (not as 'too large'), and none is packed."""
        world.build(
            base={"README": "x\n"},
            head={"logo.png": bytes(range(256)) * 8, "blob.bin": b"\x00\x01" * 100},
        )
        world.seed()
        world.serve(reply(text("Only binaries.")))
        run = world.review("--post")
        assert run.exit_code == 0, run.stderr
        assert run.report is not None
        coverage = run.report["coverage"]
        assert coverage["files_in_context"] == 0
        assert {(f["path"], f["reason"]) for f in coverage["files_listed"]} == {
            ("blob.bin", REASON_BINARY),
            ("logo.png", REASON_BINARY),
        }

    def test_fifty_megabyte_file_is_listed_never_packed(self, world: World) -> None:
        """A 50 MB generated file is listed, never packed or read, and memory stays bounded."""
        line = b"0123456789abcdef" * 4 + b"\n"
        world.build(head={"app.py": HEAD_APP, BIG_PATH: line * (BIG // len(line))})
        pull = world.seed()
        # GitHub lists a file this large without its patch.
        pull.files = [
            _TooLarge(filename=f.filename, status=f.status) if f.filename == BIG_PATH else f
            for f in pull.files
        ]
        world.serve(
            reply(tool_use("read_file", {"path": BIG_PATH})),
            reply(tool_use("search_code", {"regex": "fedcba"})),
            reply(text("Nothing to add.")),
        )
        tracemalloc.start()
        try:
            run = world.review()
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
        assert run.exit_code == 0, run.stderr
        assert peak < 40 * 1024 * 1024, f"peak {peak:,} bytes"
        assert run.report is not None
        listed = {f["path"]: f["reason"] for f in run.report["coverage"]["files_listed"]}
        # generated/ is excluded by default: policy, not a gap, though GitHub sent no patch.
        assert listed == {BIG_PATH: REASON_EXCLUDED}
        assert run.report["coverage"]["partial"] is False
        assert max(len(json.dumps(r)) for r in world.api.requests) < 200_000
        results = [r["content"] for r in world.tool_results()]
        assert "too large to read" in results[0]
        assert "1 binary, oversized or linked-out files were not searched" in results[1]

    def test_non_utf8_and_mixed_line_endings(self, world: World) -> None:
        """Undecodable bytes become U+FFFD and CRLF lines keep their numbers: comments land."""
        legacy = b"# caf\xe9 (latin-1)\r\nvalue = 1\r\nother = 2\nlast = 3\r\n"
        world.build(head={"app.py": HEAD_APP, "legacy.py": legacy})
        world.seed()
        world.serve(
            reply(
                tool_use("add_review_node", finding("legacy.py", 2, "value = 1", priority="P2")),
                tool_use(
                    "add_review_node",
                    finding("legacy.py", 3, "other = 2", priority="P3", title="magic number"),
                ),
            ),
            reply(text("Two notes.")),
        )
        run = world.review("--post")
        assert run.exit_code == 0, run.stderr
        assert "caf\\ufffd" in _first_prompt(world) or "caf\ufffd" in _first_prompt(world)
        assert sorted((c["path"], c["line"]) for c in world.inline_comments()) == [
            ("legacy.py", 2),
            ("legacy.py", 3),
        ]
        assert run.report is not None
        assert all(c["landed"] for c in run.report["published"]["comments"])

    def test_rename_with_edits(self, world: World) -> None:
        """A finding on an edited line of a renamed file is posted inline on the new path."""
        body = "".join(f"line_{n} = {n}\n" for n in range(1, 21))
        world.build(
            base={"old_name.py": body},
            head={"old_name.py": None, "new_name.py": body.replace("line_5 = 5", "line_5 = 50")},
        )
        pull = world.seed()
        assert [(f.filename, f.status, f.previous_filename) for f in pull.files] == [
            ("new_name.py", "renamed", "old_name.py")
        ]
        world.serve(
            reply(tool_use("add_review_node", finding("new_name.py", 5, "line_5 = 50"))),
            reply(text("One finding.")),
            reply(text("Not confirmed.")),  # the verifier examines the P0
        )
        run = world.review("--post")
        assert run.exit_code == 0, run.stderr
        assert [(c["path"], c["line"]) for c in world.inline_comments()] == [("new_name.py", 5)]

    def test_deleted_file(self, world: World) -> None:
        """An anchor in a deleted file is refused with a reason; a PR-level note goes in the body."""
        world.build(
            base={"app.py": BASE_APP, "gone.py": "def gone():\n    pass\n"},
            head={"app.py": HEAD_APP, "gone.py": None},
        )
        world.seed()
        note = {
            "kind": "question",
            "priority": "P2",
            "confidence": 0.6,
            "title": "Was gone.py still imported somewhere?",
            "body": "The module is deleted; check its callers.",
        }
        world.serve(
            reply(tool_use("add_review_node", finding("gone.py", 1, "def gone():", priority="P2"))),
            reply(tool_use("add_review_node", note)),
            reply(text("Done.")),
        )
        run = world.review("--post")
        assert run.exit_code == 0, run.stderr
        refused = world.tool_results()[0]
        assert refused.get("is_error") is True
        assert "gone.py" in refused["content"]
        assert run.report is not None
        assert [n["title"] for n in run.report["nodes"]] == [note["title"]]
        assert world.inline_comments() == []
        assert note["title"] in world.posted_reviews()[0]["body"]

    def test_submodule_bump(self, world: World) -> None:
        """A submodule pointer change is listed as such; nothing is fetched for it."""
        world.build(
            head={"app.py": HEAD_APP},
            base_links={"vendor/lib": "a" * 40},
            head_links={"vendor/lib": "b" * 40},
        )
        world.seed()
        world.serve(reply(text("Bumped a submodule.")))
        run = world.review("--post")
        assert run.exit_code == 0, run.stderr
        assert run.report is not None
        listed = {f["path"]: f["reason"] for f in run.report["coverage"]["files_listed"]}
        assert listed == {"vendor/lib": REASON_SUBMODULE}
        assert run.report["coverage"]["files_in_context"] == 1

    def test_more_files_than_github_lists(self, world: World) -> None:
        """3,001 changed files: the listing stops at 3,000, coverage is partial, the check never success."""
        world.build(head={f"many/f{n:04d}.txt": f"{n}\n" for n in range(FILES_CAP + 1)})
        pull = world.seed()
        assert len(pull.files) == FILES_CAP + 1
        world.serve(reply(text("Looked at what fits.")))
        run = world.review("--post")
        assert run.exit_code == 0, run.stderr
        assert run.report is not None
        coverage = run.report["coverage"]
        assert coverage["files_total"] == FILES_CAP + 1
        assert coverage["partial"] is True
        assert coverage["files_unlisted"] == 1  # counted: nothing resolves, nothing is named
        assert any("lists at most 3,000" in n for n in coverage["notes"])
        summary = world.issue_comments()[0]["body"]
        assert "lists at most 3,000" in summary
        assert world.check_runs()[0]["conclusion"] == "failure"


class TestUserMistakes:
    """Mistakes a user makes end in one clear line and the documented exit code."""

    @pytest.mark.parametrize(
        ("config", "line"),
        [
            ("[budget]\nmax_turns = 10\ncontext_tokens = \n", "line 3"),
            ('[budget]\nmax_turns = "many"\n', "line 2"),
        ],
        ids=["toml-syntax", "bad-value"],
    )
    def test_malformed_config_on_the_base_branch(
        self, world: World, config: str, line: str
    ) -> None:
        """A malformed .reviewbot.toml on the base exits 2 naming the line; nothing is asked or posted."""
        world.build(base={"app.py": BASE_APP, ".reviewbot.toml": config})
        world.seed()
        world.serve()
        run = world.review("--post")
        assert run.exit_code == 2, run.stderr
        assert len(run.error_lines) == 1, run.stderr
        assert ".reviewbot.toml" in run.error_lines[0]
        assert line in run.error_lines[0]
        assert world.api.requests == []
        assert _written_nothing(world)

    @pytest.mark.parametrize(
        "url",
        [
            "https://github.com/octo/app/issues/7",
            "https://github.com/octo/app",
            "octo/app#7",
            "https://github.com/octo/app/pull/seven",
        ],
        ids=["issue", "repository", "shorthand", "not-a-number"],
    )
    def test_url_that_is_not_a_pull_request(self, world: World, url: str) -> None:
        """A URL that is not a PR exits 2 with the expected shape, without any request."""
        world.build()
        world.seed()
        world.serve()
        run = world.review(url=url)
        assert run.exit_code == 2, run.stderr
        assert len(run.error_lines) == 1
        assert "not a pull request URL" in run.error_lines[0]
        assert "https://github.com/OWNER/REPO/pull/NUMBER" in run.error_lines[0]
        assert world.github_server.snapshot() == ()
        assert world.api.requests == []

    def test_missing_token_on_a_private_repository(self, world: World) -> None:
        """Without a token GitHub hides a private repo (404): exit 4, and the fix is named."""
        world.build()
        world.seed()
        world.serve()
        world.github_server.handler = _private(world.github)
        run = world.review("--post", GITHUB_TOKEN=None)
        assert run.exit_code == 4, run.stderr
        assert len(run.error_lines) == 1
        assert "set GITHUB_TOKEN for a private repository" in run.error_lines[0]
        assert world.api.requests == []

    def test_revoked_token(self, world: World) -> None:
        """A token GitHub no longer accepts (401) exits 3 naming GITHUB_TOKEN."""
        world.github = FakeGitHub(user_endpoint=False, tokens=frozenset({"ghs_" + "N" * 36}))
        world.build()
        world.seed()
        world.serve()
        run = world.review("--post")
        assert run.exit_code == 3, run.stderr
        assert len(run.error_lines) == 1
        assert "GITHUB_TOKEN" in run.error_lines[0]
        assert GITHUB_TOKEN not in run.stderr
        assert world.api.requests == []

    def test_missing_anthropic_key(self, world: World) -> None:
        """No ANTHROPIC_API_KEY: the review axis is not_run, the verdict Hold, exit 0, one clear line."""
        world.build()
        world.seed()
        world.serve()
        run = world.review("--post", ANTHROPIC_API_KEY=None)
        assert run.exit_code == 0, run.stderr
        assert run.axis("review")["outcome"] == "not_run"
        assert run.axis("review")["detail"] == "ANTHROPIC_API_KEY is not set"
        assert run.verdict == "hold"
        # At a terminal, what to set there (not the Action's input).
        hint = NO_KEY_HINT.format(remedy=NO_KEY_REMEDY[False])
        assert f"reviewbot: {hint}" in run.stderr.splitlines()
        assert world.api.requests == []
        assert [r["state"] for r in world.posted_reviews()] == ["COMMENTED"]
        # A Hold keeps a required `reviewbot` check failing (advisory_hold is off by default).
        assert world.check_runs()[0]["conclusion"] == "failure"


def _private(fake: FakeGitHub) -> object:
    """GitHub's answer to an anonymous request for a private repository: 404, not 401."""

    def handle(request: Request) -> Response:
        if "authorization" not in request.headers:
            return Response.json(404, {"message": "Not Found", "status": "404"})
        return fake(request)

    return handle
