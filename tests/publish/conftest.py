"""Shared builders for publishing tests: a checkout, its diff, nodes of every kind, a report,
the PR on the loopback fake GitHub (tests/fakes/github_api.py) they are published to, a
publisher talking to it, and the check that plain text renders nothing live."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from reviewbot.config.file import PublishConfig, ReviewConfig
from reviewbot.coverage.model import Coverage, SkippedFile
from reviewbot.github.client import make_client
from reviewbot.github.publisher import GitHubPublisher
from reviewbot.memory.markers import seal_body
from reviewbot.memory.prior import Trust
from reviewbot.memory.seal import Sealer
from reviewbot.nodes import Kind, Priority, ReviewNode, Status
from reviewbot.publish.inert import RepoLinks
from reviewbot.redact import Redactor
from reviewbot.results.report import (
    AgentReport,
    AxisReport,
    DiscardReport,
    PRInfo,
    ReasonReport,
    Report,
)
from reviewbot.results.run import StopReason, Usage
from reviewbot.sources.comments import CommentRecord
from reviewbot.sources.diff_index import DiffIndex, FileStatus, file_diff_from_patch
from reviewbot.sources.snapshot import Origin, PRSnapshot
from reviewbot.verdict.axes import Outcome
from reviewbot.verdict.fold import Source
from tests.fakes.github_api import FakeFile, FakeGitHub, FakePull, FakePush
from tests.fakes.server import LoopbackServer
from tests.nodes.factories import make_node

HEAD = "b" * 40
NEW_HEAD = "c" * 40  # a later push to the PR, with the same diff
BASE = "a" * 40
REPO = "octo/widgets"
NUMBER = 7
BOT = "github-actions[bot]"
# The key this PR's earlier runs sealed their comments with (in the Action: a repository secret).
SEALER = Sealer.of("marker-key-for-tests-0123456789", repo=REPO, number=NUMBER)
TRUST = Trust(bot_login=BOT, sealer=SEALER)
PR_URL = f"https://github.com/{REPO}/pull/{NUMBER}"
AGENT_SUMMARY = "`x3` is read as `x3 * 10` below, so it must be 30.\n\nNothing else stood out."
PRICE_NOTE = "no price known for model `claude-x`; cost counted at the highest known rate"

# src/app.py in the head: 30 lines `xN = N`. The diff touches new lines 1–8 and 20–23.
APP_PATCH = """@@ -1,5 +1,8 @@
 x1 = 1
 x2 = 2
+x3 = 3
+x4 = 4
+x5 = 5
 x6 = 6
 x7 = 7
 x8 = 8
@@ -17,3 +20,4 @@
 x20 = 20
+x21 = 21
 x22 = 22
 x23 = 23
"""


def app_text() -> str:
    return "".join(f"x{n} = {n}\n" for n in range(1, 31))


def make_diff() -> DiffIndex:
    app = file_diff_from_patch("src/app.py", APP_PATCH, status=FileStatus.MODIFIED)
    return DiffIndex(files={"src/app.py": app}, total_files=1)


def node(*, id: str, lines: tuple[int, int] = (3, 3), **fields: Any) -> ReviewNode:
    """`make_node` anchored on `lines` of src/app.py at HEAD, quoting them exactly."""
    quote = "\n".join(f"x{n} = {n}" for n in range(lines[0], lines[1] + 1))
    anchor = {"line": lines[0], "end_line": lines[1], "quote": quote}
    return make_node(id=id, commit_sha=HEAD, **{**anchor, **fields})


def every_kind() -> tuple[ReviewNode, ...]:
    """One node of each kind and each placement: inline, narrowed, outside the diff, no anchor…"""
    return (
        node(
            id="review-1",
            priority=Priority.P0,
            title="x3 is off by one",
            body="`x3` should be `30`: the loop below reads `x3 * 10`.",
            lines=(3, 4),
            suggestion="x3 = 30\nx4 = 40",
            status=Status.CONSENSUS_READY,
        ).model_copy(update={"confirmed_by": ("verifier",)}),
        node(
            id="review-2",
            kind=Kind.SUGGESTION,
            priority=Priority.P1,
            confidence=0.8,
            title="Name the constant",
            body="A name says what 7 means.",
            lines=(7, 10),
        ),
        node(
            id="review-3",
            kind=Kind.RECOMMENDATION,
            priority=Priority.P2,
            confidence=0.7,
            title="Unchanged helper has the same bug",
            body="Lines 12–14 were not changed but repeat the pattern.",
            lines=(12, 14),
        ),
        node(
            id="review-4",
            kind=Kind.QUESTION,
            priority=Priority.P3,
            confidence=0.5,
            title="Is the migration needed?",
            body="Nothing in the PR description says.",
            path=None,
        ),
        node(
            id="review-5",
            kind=Kind.TICKET,
            priority=Priority.P2,
            confidence=0.6,
            title="Document the widgets format",
            path="docs/format.md",
            lines=(1, 2),
        ),
        node(
            id="review-6",
            priority=Priority.P1,
            title="Was fine after all",
            lines=(21, 21),
            status=Status.DISMISSED,
        ),
    )


def make_report(
    nodes: tuple[ReviewNode, ...] = (),
    *,
    verdict: str = "block",
    partial: bool = False,
    head_sha: str = HEAD,
) -> Report:
    reasons = {
        "block": ReasonReport(
            verdict="block", source=Source.AXIS, name="review", text="gated axis `review` failed"
        ),
        "hold": ReasonReport(
            verdict="hold", source=Source.NODE, name="review-2", text="P0 bug `x` (open P0 → hold)"
        ),
    }
    return Report(
        tool_version="0.1.0",
        verdict=verdict,
        reasons=(reasons[verdict],) if verdict in reasons else (),
        axes=(
            AxisReport(
                name="review",
                gated=True,
                outcome=Outcome.FAILED if verdict == "block" else Outcome.PASSED,
            ),
            AxisReport(name="ci", gated=False, outcome=Outcome.NOT_RUN, detail="2 checks pending"),
        ),
        nodes=nodes,
        discarded=(DiscardReport(origin="add_review_node", reason="priority: missing", raw={}),),
        usage=Usage(
            requests=4,
            input_tokens=12_000,
            output_tokens=1_500,
            cache_read_tokens=30_000,
            cache_write_tokens=8_000,
            cost_usd=0.1234,
        ),
        agents=(
            AgentReport(
                name="review",
                role="reviewer",
                model="claude-sonnet-4-5",
                stop_reason=StopReason.FINALIZED,
                turns=6,
                summary=AGENT_SUMMARY,
                notes=(PRICE_NOTE,),
            ),
        ),
        coverage=Coverage(
            files_total=2,
            files_in_context=1,
            files_listed=(
                SkippedFile(path="package-lock.json", reason="excluded by paths.exclude"),
            ),
            partial=partial,
        ),
        pr=PRInfo(
            origin="github",
            url=PR_URL,
            repo=REPO,
            number=NUMBER,
            title="Widgets",
            base_sha=BASE,
            head_sha=head_sha,
        ),
    )


def make_snapshot(checkout: Path, *, head_sha: str = HEAD) -> PRSnapshot:
    return PRSnapshot(
        origin=Origin.GITHUB,
        url=PR_URL,
        repo=REPO,
        number=NUMBER,
        title="Widgets",
        body="",
        author="alice",
        base_ref="main",
        head_ref="widgets",
        base_sha=BASE,
        head_sha=head_sha,
        diff=make_diff(),
        checkout=checkout,
        config=ReviewConfig(),
    )


@dataclass(frozen=True, slots=True)
class OnePull:
    """The PR of these tests on the fake GitHub: its state, seeded and read as a run sees it."""

    github: FakeGitHub

    @property
    def pull(self) -> FakePull:
        return self.github.repo(REPO).pulls[NUMBER]

    @property
    def reviews(self) -> list[dict[str, Any]]:
        return self.github.repo(REPO).reviews.setdefault(NUMBER, [])

    @property
    def review_comments(self) -> list[dict[str, Any]]:
        return self.github.repo(REPO).review_comments.setdefault(NUMBER, [])

    @property
    def issue_comments(self) -> list[dict[str, Any]]:
        return self.github.repo(REPO).issue_comments.setdefault(NUMBER, [])

    @property
    def statuses(self) -> list[dict[str, Any]]:
        return self.github.repo(REPO).statuses

    def add_review(self, body: str, *, login: str, state: str = "COMMENTED") -> dict[str, Any]:
        return self.github.add_review(REPO, NUMBER, body, author=login, state=state)

    def add_review_comment(
        self,
        body: str,
        *,
        login: str,
        line: int = 3,
        in_reply_to: int | None = None,
        association: str = "NONE",
    ) -> dict[str, Any]:
        if in_reply_to is not None:
            return self.github.add_reply(
                REPO,
                NUMBER,
                in_reply_to=in_reply_to,
                body=body,
                author=login,
                association=association,
            )
        return self.github.add_review_comment(
            REPO, NUMBER, body, author=login, path="src/app.py", line=line, association=association
        )

    def add_issue_comment(self, body: str, *, login: str) -> dict[str, Any]:
        return self.github.add_issue_comment(REPO, NUMBER, body, login)


def fake_pull() -> OnePull:
    """PR #7 with src/app.py's diff, pushed from HEAD to NEW_HEAD: reviews may name either."""
    github = FakeGitHub(login=BOT)
    pull = github.add_pull(
        REPO,
        number=NUMBER,
        title="Widgets",
        head_sha=HEAD,
        base_sha=BASE,
        files=[FakeFile(filename="src/app.py", patch=APP_PATCH)],
    )
    pull.push(FakePush(head_sha=NEW_HEAD, files=pull.files))
    return OnePull(github)


@pytest.fixture
def fake() -> OnePull:
    return fake_pull()


@pytest.fixture
def served(fake: OnePull) -> Iterator[LoopbackServer]:
    """The fake GitHub on loopback; it records every request the publisher makes."""
    with LoopbackServer(fake.github) as server:
        yield server


@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    root = tmp_path / "checkout"
    (root / "src").mkdir(parents=True)
    (root / "src" / "app.py").write_text(app_text(), encoding="utf-8")
    return root


def sealed(record: CommentRecord, *, edited: bool = False) -> CommentRecord:
    """`record` as reviewbot posted it (`edited`: edited in place, the seal bound to it)."""
    body = seal_body(record.body, SEALER, at=record.location if edited else None)
    return CommentRecord(
        id=record.id,
        where=record.where,
        author=record.author,
        body=body,
        in_reply_to=record.in_reply_to,
        path=record.path,
        line=record.line,
        start_line=record.start_line,
        state=record.state,
    )


# ---------------------------------------------------------------- publishing to the fake

WRITERS = {"carol", "bob"}  # what the permission API would answer "write" for


def client(url, *, retries=0):
    # No retries unless a test asks, no pacing; the composition root keeps the defaults.
    return make_client(url, "ghs_" + "t" * 36, retries=retries, backoff=0)


def make_publisher(url, config=None, redactor=None, *, retries=0):
    return GitHubPublisher(
        client(url, retries=retries),
        REPO,
        NUMBER,
        bot_login=BOT,
        config=config or PublishConfig(),
        redactor=redactor or Redactor(),
        sealer=SEALER,
        pr_author="octocat",
        is_writer=WRITERS.__contains__,
    )


def bodies(served: LoopbackServer, method, path_end):
    return [r.json() for r in served.snapshot() if r.method == method and r.path.endswith(path_end)]


# ---------------------------------------------------------------- inert plain text

LINKS = RepoLinks(web_url="https://github.com", repo=REPO)
_ZWSP = "\u200b"


def assert_plain_inert(text: str) -> None:
    """Plain text a viewer cannot turn into an outside link, a mention or a reference."""
    for url in re.findall(r"\S*://\S*", text):
        assert LINKS.allows(url.rstrip(".,:;!?'\")*_~")), url
    assert not re.search(r"(?<![\w.\[])www\.", text)
    assert not re.search(r"@[A-Za-z0-9]|#[0-9]|GH-[0-9]", text, re.IGNORECASE)
    ours = text.replace("@" + _ZWSP, "@").replace("#" + _ZWSP, "#").replace("-" + _ZWSP, "-")
    hidden = [c for c in ours if c != "\n" and unicodedata.category(c) in ("Cf", "Cc", "Co")]
    assert hidden == []
