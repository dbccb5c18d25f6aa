"""The rule for a head that moves during a run, where it lives (admission.still_head)."""

from __future__ import annotations

import pytest

from reviewbot.errors import ExitCode, HeadMoved
from reviewbot.github.admission import still_head
from reviewbot.github.reader import PullRequestInfo
from reviewbot.sources.pr_ref import parse_pr_url

REVIEWED, NEWER = "a" * 40, "b" * 40


def info() -> PullRequestInfo:
    return PullRequestInfo(
        ref=parse_pr_url("https://github.com/octo/app/pull/7"),
        title="t",
        body="",
        author="octocat",
        base_ref="main",
        base_sha="c" * 40,
        head_ref="feature",
        head_sha=REVIEWED,
        head_repo="octo/app",
        draft=False,
        fork=False,
        state="open",
        changed_files=1,
        clone_url="https://github.com/octo/app.git",
    )


def test_the_reviewed_head_passes():
    still_head(info(), REVIEWED)
    still_head(info(), REVIEWED, posting=True)


@pytest.mark.parametrize(
    ("posting", "start"), [(False, "not posting: "), (True, "not posting the rest: ")]
)
def test_a_moved_head_supersedes_the_run_with_exit_0(posting, start):
    with pytest.raises(HeadMoved) as caught:
        still_head(info(), NEWER, posting=posting)
    message = str(caught.value)
    assert message.startswith(start)
    assert f"moved to {NEWER[:12]} while {REVIEWED[:12]} was reviewed" in message
    assert "\n" not in message
    assert caught.value.exit_code == ExitCode.OK
