"""The base commit's files through the contents API, as the guidelines read them on GitHub."""

from __future__ import annotations

import pytest

from reviewbot.github.client import make_client
from reviewbot.github.reader import BaseContents
from reviewbot.sources.guidelines import UnreadableFile
from tests.fakes.github_api import FakeGitHub
from tests.fakes.server import LoopbackServer

REPO = "octo/app"
SHA = "a" * 40


@pytest.fixture
def contents():
    fake = FakeGitHub()
    fake.add_repo(REPO)
    fake.set_content(REPO, SHA, "REVIEW.md", "be kind\n")
    fake.set_content(REPO, SHA, "svc/AGENTS.md", "scoped\n")
    fake.set_content(REPO, SHA, "svc/api/AGENTS.md", "deeper\n")
    with LoopbackServer(fake) as server:
        client = make_client(server.url, "ghs_" + "t" * 36, retries=0, backoff=0)
        yield BaseContents(client=client, repo=REPO, sha=SHA)


def test_a_file_is_its_text_and_a_missing_one_none(contents):
    assert contents.text("REVIEW.md") == "be kind\n"
    assert contents.text("CLAUDE.md") is None


def test_a_folder_is_not_a_file(contents):
    with pytest.raises(UnreadableFile, match="is not a file"):
        contents.text("svc")


def test_a_folder_lists_its_files_only(contents):
    """`svc/` holds a file and a folder: the names are the files'; a file or nothing: none."""
    assert contents.names("svc") == ("AGENTS.md",)
    assert contents.names("REVIEW.md") == ()
    assert contents.names("nowhere") == ()
