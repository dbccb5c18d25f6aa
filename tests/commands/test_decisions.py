"""`/confirm` and `/dismiss`: in a finding's thread without an id, in the discussion with one."""

from __future__ import annotations

import pytest

from reviewbot.memory.postings import PriorNode, decisions_of
from reviewbot.nodes.lifecycle import Action
from reviewbot.sources.comments import CommentRecord, Where
from tests.nodes.factories import make_node

ROOT = 10  # the sealed inline comment that carries the finding
FIRST = make_node(title="Division by zero")
OTHER = make_node(title="Unused import", id="review-2")
POSTED = (
    PriorNode(node=FIRST, comment_id=ROOT, where=Where.INLINE, body=""),
    PriorNode(node=OTHER, comment_id=11, where=Where.INLINE, body=""),
)


def everyone(login: str) -> str | None:
    return None


def decide(*records: CommentRecord):
    return decisions_of(records, POSTED, everyone)


def reply(body: str, to: int = ROOT) -> CommentRecord:
    return CommentRecord(id=99, where=Where.INLINE, author="maint", body=body, in_reply_to=to)


def discussion(body: str) -> CommentRecord:
    return CommentRecord(id=98, where=Where.ISSUE, author="maint", body=body)


def test_a_reply_in_the_thread_needs_no_id():
    (decision,), ignored = decide(reply("/dismiss not reachable"))
    assert (decision.fingerprint, decision.transition.action) == (FIRST.fingerprint, Action.DISMISS)
    assert decision.transition.reason == "not reachable"
    assert ignored == ()


def test_an_id_in_the_thread_must_be_the_threads_finding():
    (decision,), _ = decide(reply(f"/confirm {FIRST.fingerprint[:8]} yes"))
    assert decision.transition.reason == "yes"
    decisions, (ignored,) = decide(reply(f"/confirm {OTHER.fingerprint} yes"))
    assert decisions == ()
    assert (
        ignored.why
        == f"named finding {OTHER.fingerprint} in the thread of finding {FIRST.fingerprint}"
    )


def test_in_the_thread_a_first_word_naming_no_finding_is_the_reasons():
    """`/dismiss 20261130 decided at standup` in the thread: a date, not an id (it was dropped)."""
    (decision,), ignored = decide(reply("/dismiss 20261130 decided at standup"))
    assert (decision.fingerprint, decision.transition.action) == (FIRST.fingerprint, Action.DISMISS)
    assert decision.transition.reason == "20261130 decided at standup"
    assert ignored == ()


def test_in_the_discussion_the_id_names_the_finding():
    (decision,), _ = decide(discussion(f"/dismiss {OTHER.fingerprint[:10]} generated code"))
    assert (decision.fingerprint, decision.transition.reason) == (
        OTHER.fingerprint,
        "generated code",
    )


@pytest.mark.parametrize(
    ("body", "why"),
    [
        ("/dismiss because", "wrote no finding id (/dismiss <id> … in the PR's discussion)"),
        ("/confirm 00000000 sure", "named 00000000, which is no finding"),
    ],
)
def test_in_the_discussion_without_a_known_id_nothing_is_decided(body, why):
    decisions, (ignored,) = decide(discussion(body))
    assert decisions == ()
    assert ignored.why == why


def test_other_comments_are_not_decisions():
    assert decide(discussion("/ask why?"), reply("thanks"), reply("/dismiss x", to=555)) == ((), ())


def test_who_may_decide_is_still_asked():
    decisions, (ignored,) = decisions_of([reply("/dismiss x")], POSTED, lambda login: "no write")
    assert decisions == ()
    assert ignored.why == "no write"
