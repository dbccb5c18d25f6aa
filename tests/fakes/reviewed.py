"""Reviewing a real repository's snapshot in-process, and remembering it as the PR would.

`review` runs `review_snapshot` with the real agents and client against the fake Messages
API; `remembered` is what the publisher leaves on the PR after that review (its summary
marker and each finding posted inline), the `PriorState` the next review reads back;
`commit` is one push. The scope and review tests that compare two reviews of a PR share them.
"""

from __future__ import annotations

from contextlib import nullcontext

from reviewbot.agent.progress import SilentProgress
from reviewbot.memory.markers import SummaryMarker
from reviewbot.memory.postings import PriorNode
from reviewbot.memory.prior import PriorState, PriorSummary
from reviewbot.redact import Redactor
from reviewbot.results.report import Report
from reviewbot.review.pipeline import Agents, review_snapshot
from reviewbot.sources.comments import Where
from reviewbot.tools.ask_user import NoOperator
from tests.agent.factories import client_for
from tests.fakes.gitrepo import GitRepo
from tests.fakes.messages_api import FakeMessagesAPI


def review(snapshot, script, *, prior=None, plan=None) -> Report:
    model = FakeMessagesAPI(script)
    agents = Agents(
        client=client_for(model),
        operator=NoOperator(),
        redactor=Redactor.of([]),
        progress=SilentProgress(),
    )
    with nullcontext(agents) as live:
        report = review_snapshot(snapshot, agents=live, prior=prior, plan=plan)
    model.verify()
    return report


def remembered(report: Report) -> PriorState:
    """What the publisher leaves on the PR: the summary marker, each finding posted inline."""
    head = report.pr.head_sha
    marker = SummaryMarker.of(report, head_sha=head)
    return PriorState(
        summary=PriorSummary(
            comment_id=1, marker=SummaryMarker.model_validate_json(marker.model_dump_json())
        ),
        nodes=tuple(
            PriorNode(node=node, comment_id=10 + i, where=Where.INLINE, body="")
            for i, node in enumerate(report.nodes)
        ),
    )


def commit(repo: GitRepo, files: dict[str, str | None], message: str = "push") -> None:
    for name, content in files.items():
        if content is None:
            (repo.path / name).unlink()
        else:
            repo.write(name, content)
    repo.git("add", "--all")
    repo.git("commit", "--quiet", "-m", message)
