"""A second forge: one review, end to end, over a test double of `ForgeReader` and
`ForgePublisher` (tests/fakes/forge.py) — the real agents and client against the fake
Messages API, a real git checkout, and no GitHub at all."""

from __future__ import annotations

import json
from contextlib import nullcontext

import pytest

from reviewbot.agent.progress import SilentProgress
from reviewbot.memory.read import read_memory
from reviewbot.redact import Redactor
from reviewbot.review.pipeline import Agents
from reviewbot.review.pull import review_on_forge
from reviewbot.sources.ci import CheckState, CheckStatus
from reviewbot.sources.comments import CommentRecord, Where
from reviewbot.sources.git_repo import local_snapshot
from reviewbot.tools.ask_user import NoOperator
from reviewbot.verdict.lattice import Verdict
from tests.agent.factories import client_for
from tests.fakes.forge import MemoryForge
from tests.fakes.gitrepo import make_repo
from tests.fakes.messages_api import FakeMessagesAPI, reply, tool_use

BASE = {"rates.py": "RATES = {'eur': 1.0}\n\n\ndef rate(code):\n    return RATES[code]\n"}
HEAD = {"rates.py": "RATES = {'eur': 1.0}\n\n\ndef rate(code):\n    return RATES.get(code, 0)\n"}
QUOTE = "    return RATES.get(code, 0)"
FINDING = {
    "kind": "bug",
    "priority": "P2",
    "confidence": 0.7,
    "title": "An unknown currency costs nothing",
    "body": "A missing rate becomes 0 instead of an error.",
    "anchor": {"path": "rates.py", "start_line": 5, "end_line": 5, "quote": QUOTE},
}
ASKED = "Is a missing rate handled?"


@pytest.fixture
def forge(tmp_path):
    repo = make_repo(tmp_path / "repo", BASE, HEAD)
    with local_snapshot(repo.path, base="main") as pull:
        comment = CommentRecord(id=7, where=Where.ISSUE, author="alice", body=ASKED)
        yield MemoryForge(pull=pull, comments_on_pr=[comment])


def review(forge, *script, config=None):
    """What a forge's flow does: read the memory, review the pull request, publish."""
    model = FakeMessagesAPI(script)
    memory = read_memory(forge.comments(), forge.trust)
    agents = Agents(
        client=client_for(model),
        operator=NoOperator(),
        redactor=Redactor.of([]),
        progress=SilentProgress(),
    )
    config = config or forge.pull.config
    snapshot = forge.snapshot(
        checkout=forge.pull.checkout, config=config, discussion=memory.discussion()
    )
    reviewed = review_on_forge(
        snapshot, memory=memory, agents=nullcontext(agents), axes=(forge.ci,)
    )
    published = forge.publish(reviewed.report, snapshot, memory)
    model.verify()
    return reviewed, snapshot, published, memory, model


class TestASecondForge:
    def test_its_pull_request_is_reviewed_and_the_review_handed_to_its_publisher(self, forge):
        """The finding the model raised is in the report the double was asked to publish,
        with the memory the review was built on."""
        reviewed, snapshot, published, memory, _ = review(
            forge,
            reply(tool_use("add_review_node", FINDING)),
            reply(tool_use("finalize_review", {"summary": "One bug.", "verdict": "hold"})),
        )
        assert reviewed.report.verdict is Verdict.HOLD
        assert [n.title for n in reviewed.report.nodes] == [FINDING["title"]]
        assert forge.posted == [(reviewed.report, snapshot, memory)]
        assert published.review_id == 1

    def test_its_comments_reach_the_model_as_the_discussion(self, forge):
        """The forge's comments are read once, into memory, and shown to the reviewers."""
        _, snapshot, _, memory, model = review(
            forge, reply(tool_use("finalize_review", {"summary": "Fine.", "verdict": "ship"}))
        )
        assert [c.body for c in snapshot.comments] == [ASKED]
        assert memory.discussion() == snapshot.comments
        assert ASKED in json.dumps(model.requests[0])

    def test_its_failing_gated_check_blocks_through_the_ci_axis(self, forge):
        """The reader's checks are folded into the CI axis like GitHub's."""
        forge.checks.append(CheckState(name="tests", status=CheckStatus.FAILURE))
        gated = forge.pull.config.model_copy(
            update={"ci": forge.pull.config.ci.model_copy(update={"gated": True})}
        )
        reviewed, *_ = review(
            forge,
            reply(tool_use("finalize_review", {"summary": "Fine.", "verdict": "ship"})),
            config=gated,
        )
        assert reviewed.report.verdict is Verdict.BLOCK
        assert [a.name for a in reviewed.report.axes if a.outcome == "failed"] == ["ci"]
