"""The PR's comments as reviewbot reads them: every kind keeps when it was written.

`reviewbot learn --since 30d` keeps the dismissals written in that window; a `/dismiss <id>`
in the PR's discussion must carry its time as a thread reply does (it was read as 1970).
"""

from __future__ import annotations

from reviewbot.github.client import make_client
from reviewbot.github.reader import fetch_comment_records
from reviewbot.sources.comments import Where
from tests.fakes.github_api import FakeGitHub
from tests.fakes.server import LoopbackServer

REPO = "octo/app"


def test_discussion_comments_keep_when_they_were_written():
    fake = FakeGitHub()
    fake.add_repo(REPO)
    fake.add_pull(REPO, number=7)
    stored = fake.add_issue_comment(REPO, 7, "/dismiss 0123456789abcdef not a bug", "maintainer")
    with LoopbackServer(fake) as server:
        client = make_client(server.url, "ghs_" + "t" * 36, retries=0, backoff=0)
        (record,) = [r for r in fetch_comment_records(client, REPO, 7) if r.where is Where.ISSUE]
    assert record.created_at == stored["created_at"]
    assert record.created_at is not None
