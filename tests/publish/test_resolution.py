"""Marking an earlier comment's findings resolved in place, within the body limit."""

from __future__ import annotations

from reviewbot.coverage.model import Coverage, UnseenFile
from reviewbot.memory.markers import (
    NODE_TAG,
    SummaryMarker,
    find_markers,
    node_marker,
    seal_body,
)
from reviewbot.memory.postings import PriorNode
from reviewbot.memory.prior import PriorState, PriorSummary
from reviewbot.publish.resolution import Edit, edits_left, reopened_body, resolved_body
from reviewbot.redact import Redactor
from reviewbot.results.report import AgentReport
from reviewbot.results.run import StopReason
from reviewbot.review.resolution import MAX_RESOLVE_EDITS, resolution
from reviewbot.sources.comments import Where
from tests.nodes.factories import make_node
from tests.publish.conftest import SEALER, every_kind

LIMIT = 5_000
BANNER = "✅ **Resolved** — no longer reported on `abcdef123456`."


def body_of(room: int, *, prose_lines: int = 1) -> tuple[str, set[str]]:
    """Prose, then a list of every_kind()'s markers, sealed, `room` characters short of LIMIT."""
    nodes = every_kind()
    items = "\n".join(f"- item {n.id} {node_marker(n)}" for n in nodes)
    pad = LIMIT - room - len(items) - 2 - (prose_lines - 1)
    prose = "\n".join(["y" * (pad // prose_lines)] * prose_lines)
    prose += "y" * (pad - len(prose) + prose_lines - 1)
    return seal_body(f"{prose}\n\n{items}", SEALER), {n.fingerprint for n in nodes}


def statuses(body: str) -> list[str]:
    return [m["status"] for m in find_markers(body, NODE_TAG) if isinstance(m, dict)]


class TestResolvedBody:
    def test_with_room_every_item_gets_its_banner(self):
        old, fingerprints = body_of(1_000)
        new = resolved_body(
            old, fingerprints, BANNER, on_top=False, redactor=Redactor(), limit=LIMIT
        )
        assert new is not None
        assert new.count(BANNER) == len(fingerprints)
        assert statuses(new) == ["resolved"] * len(fingerprints)
        assert "reviewbot:seal" not in new  # the caller seals it again

    def test_without_room_for_banners_the_markers_still_change(self):
        """Banners would push it over: they are left out, never a marker cut."""
        old, fingerprints = body_of(100)
        new = resolved_body(
            old, fingerprints, BANNER, on_top=False, redactor=Redactor(), limit=LIMIT
        )
        assert new is not None
        assert len(new) <= LIMIT
        assert BANNER not in new
        assert statuses(new) == ["resolved"] * len(fingerprints)

    def test_at_the_limit_prose_lines_go_last_first(self):
        """Even the status words do not fit: whole prose lines are dropped, last first."""
        old, fingerprints = body_of(0, prose_lines=4)
        new = resolved_body(
            old, fingerprints, BANNER, on_top=True, redactor=Redactor(), limit=LIMIT
        )
        assert new is not None
        assert len(new) <= LIMIT
        assert statuses(new) == ["resolved"] * len(fingerprints)
        assert new.count("yyy\n") < 4

    def test_an_inline_comment_near_the_limit_keeps_its_banner_and_loses_prose(self):
        """Its thread is resolved, so its body must say resolved too: the banner on top stays,
        lines of prose go instead."""
        n = make_node(id="review-1", line=3)
        tail = f"\n\n{node_marker(n)}\n"
        prose = "\n".join(["y" * 99] * (LIMIT // 100))
        old = seal_body(prose[: LIMIT - 10 - len(tail)] + tail, SEALER)  # no room for a banner
        new = resolved_body(
            old, {n.fingerprint}, BANNER, on_top=True, redactor=Redactor(), limit=LIMIT
        )
        assert new is not None
        assert len(new) <= LIMIT
        assert new.startswith(BANNER)
        assert statuses(new) == ["resolved"]

    def test_markers_alone_over_the_limit_are_not_edited(self):
        old, fingerprints = body_of(0)
        tight = 500  # less than the markers alone
        assert (
            resolved_body(old, fingerprints, "", on_top=True, redactor=Redactor(), limit=tight)
            is None
        )


class TestReopenedBody:
    def test_the_banner_goes_and_the_marker_says_what_this_run_found(self):
        """Resolved, then reopened: no banner, the marker open with this run's head and lines."""
        n = make_node(id="review-1", title="Off by one", line=3, commit_sha="a" * 40)
        old = seal_body(f"**Off by one**\n\nThe loop stops early. {node_marker(n)}", SEALER)
        resolved = resolved_body(old, {n.fingerprint}, BANNER, on_top=True, redactor=Redactor())
        assert resolved is not None
        assert resolved.startswith(BANNER)
        back = n.model_copy(update={"commit_sha": "d" * 40})
        body = reopened_body(seal_body(resolved, SEALER), back, redactor=Redactor())
        assert body is not None
        assert body.startswith("**Off by one**")
        (marker,) = find_markers(body, NODE_TAG)
        assert isinstance(marker, dict)
        assert (marker["status"], marker["commit_sha"]) == ("open", "d" * 40)

    def test_a_body_that_cannot_fit_its_markers_is_not_reopened(self):
        """Over the limit with every marker: None, so the finding is posted anew instead."""
        n = make_node(id="review-1", line=3)
        old = f"{BANNER}\n\n{'y' * 400} {node_marker(n)}"
        assert reopened_body(old, n, redactor=Redactor(), limit=200) is None


def _prior(count: int, *, owed: tuple[str, ...] = ()) -> PriorState:
    """`count` earlier findings, each on its own inline comment; the summary owes `owed`."""
    nodes = tuple(
        PriorNode(
            node=make_node(id=f"review-{i}", title=f"Finding {i}", line=i + 1),
            comment_id=100 + i,
            where=Where.INLINE,
            body="",
        )
        for i in range(count)
    )
    marker = SummaryMarker(head_sha="c" * 40, verdict="hold", resolve_later=owed)
    return PriorState(nodes=nodes, summary=PriorSummary(comment_id=1, marker=marker))


SEEN = Coverage(files_total=1, files_in_context=1, partial=False)
UNSEEN = Coverage(
    files_total=1,
    files_in_context=0,
    partial=True,
    unseen=(UnseenFile(path="src/app.py", reason="r", remedy="m"),),
)
REVIEWER = AgentReport(name="review", role="reviewer", model="m", stop_reason=StopReason.FINALIZED)


def test_a_comment_too_long_to_edit_leaves_its_edit_to_reopens():
    """It makes no write (the summary resolves its findings), so it takes none of the edits."""
    n = make_node(id="review-1", line=3)
    prior = PriorNode(node=n, comment_id=1, where=Where.REVIEW, body="")
    unedited = Edit(where=Where.REVIEW, comment_id=1, priors=(prior,), body=None)
    edited = Edit(where=Where.REVIEW, comment_id=2, priors=(prior,), body="resolved")
    assert edits_left([unedited, edited]) == MAX_RESOLVE_EDITS - 1


class TestResolution:
    def test_past_the_edits_a_run_makes_findings_wait_for_the_next_run(self):
        """Eleven found fixed: ten comments are this run's; the eleventh is for later."""
        out = resolution(
            (), SEEN, (REVIEWER,), prior=_prior(MAX_RESOLVE_EDITS + 1), head_sha="d" * 40
        )
        assert len(out.now) == MAX_RESOLVE_EDITS
        assert [p.node.id for p in out.later] == [f"review-{MAX_RESOLVE_EDITS}"]
        assert "stand until the next run marks them" in out.notes[-1]

    def test_an_owed_finding_resolves_whatever_this_run_saw(self):
        """The last review found it fixed: it resolves although this run did not see its file."""
        state = _prior(2)
        owed = state.by_fingerprint()
        first = next(iter(owed))
        state = _prior(2, owed=(first,))
        out = resolution((), UNSEEN, (REVIEWER,), prior=state, head_sha="d" * 40)
        assert [p.node.fingerprint for p in out.now] == [first]
        assert out.later == ()

    def test_an_owed_finding_raised_again_stands(self):
        """Raised again by this run: not vanished, so not resolved."""
        state = _prior(1)
        (fingerprint, found) = next(iter(state.by_fingerprint().items()))
        state = _prior(1, owed=(fingerprint,))
        out = resolution((found.node,), SEEN, (REVIEWER,), prior=state, head_sha="d" * 40)
        assert out.now == ()
        assert out.later == ()
