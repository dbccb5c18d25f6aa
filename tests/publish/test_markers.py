"""Markers: written hidden and intact, read back only from reviewbot, through the read boundary."""

from __future__ import annotations

import json

import pytest

from reviewbot.nodes import Status
from reviewbot.publish.markers import (
    MAX_UNSEEN_MARKED,
    NODE_TAG,
    CommentRecord,
    SummaryMarker,
    Where,
    carry_over,
    find_markers,
    neutralize,
    node_marker,
    read_prior,
    rewrite_status,
    summary_marker,
)
from reviewbot.redact import MASK, Redactor
from reviewbot.report import UnseenFile
from reviewbot.verdict.axes import Outcome
from tests.publish.conftest import HEAD, make_report, node

BOT = "github-actions[bot]"


def inline(id, body, *, author=BOT, association="NONE", reply_to=None):
    return CommentRecord(
        id=id,
        where=Where.INLINE,
        author=author,
        body=body,
        association=association,
        in_reply_to=reply_to,
    )


class TestWriting:
    def test_marker_round_trips_the_node_state(self):
        """id, fingerprint, status, priority, kind, title, anchor lines and confirmers come back."""
        original = node(id="review-1", title="A <!-- tricky --> title", lines=(3, 5)).model_copy(
            update={"status": Status.CONSENSUS_READY, "confirmed_by": ("verifier",)}
        )
        state = read_prior([inline(1, "text\n\n" + node_marker(original))], BOT)
        (prior,) = state.nodes
        back = prior.node
        assert back.model_dump(exclude={"body", "anchor"}) == original.model_dump(
            exclude={"body", "anchor"}
        )
        assert (back.anchor.path, back.anchor.start_line, back.anchor.end_line) == (
            "src/app.py",
            3,
            5,
        )

    @pytest.mark.parametrize(
        "title",
        ["ends --> early", "opens <!-- another", "a -- b & <c>", "line\u2028separator"],
        ids=["closer", "opener", "dashes-amp-angle", "unicode-separator"],
    )
    def test_marker_is_one_html_comment_whatever_the_title(self, title):
        """No character of the payload can end the comment early or start another."""
        marker = node_marker(node(id="n", title=title))
        inner = marker.removeprefix("<!-- ").removesuffix(" -->")
        assert "--" not in inner
        assert "<" not in inner
        assert ">" not in inner
        assert "\n" not in inner
        assert find_markers(marker, NODE_TAG)[0]["title"] == title

    def test_summary_marker_round_trips(self):
        """The summary marker keeps head and verdict."""
        marker = SummaryMarker(head_sha=HEAD, verdict="hold")
        record = CommentRecord(id=9, where=Where.ISSUE, author=BOT, body=summary_marker(marker))
        state = read_prior([record], BOT)
        assert state.summary is not None
        assert (state.summary.comment_id, state.summary.marker) == (9, marker)

    def test_summary_marker_of_an_older_version_still_reads(self):
        """A summary written when the marker still carried `review_id` keeps its verdict and axes."""
        old = (
            '<!-- reviewbot:summary {"head_sha":"' + HEAD + '","verdict":"block","review_id":12,'
            '"axes":[{"name":"review","gated":true,"outcome":"failed","detail":""}]} -->'
        )
        state = read_prior([CommentRecord(id=9, where=Where.ISSUE, author=BOT, body=old)], BOT)
        assert state.summary is not None
        assert state.summary.marker is not None
        assert state.summary.marker.verdict == "block"
        assert [(a.name, a.outcome) for a in state.axes()] == [("review", Outcome.FAILED)]

    def test_summary_marker_fields_are_still_checked(self):
        """Ignoring unknown top-level fields does not loosen the fields that are read."""
        bad = '<!-- reviewbot:summary {"head_sha":"' + HEAD + '","verdict":"approve"} -->'
        state = read_prior([CommentRecord(id=9, where=Where.ISSUE, author=BOT, body=bad)], BOT)
        assert state.summary is not None
        assert (state.summary.comment_id, state.summary.marker) == (9, None)

    def test_summary_marker_keeps_axes_and_coverage_for_a_refold(self):
        """A re-fold gets the last review's axes and coverage back from the summary marker."""
        report = make_report((), verdict="hold", partial=True)
        marker = SummaryMarker.of(report, head_sha=HEAD)
        record = CommentRecord(id=9, where=Where.ISSUE, author=BOT, body=summary_marker(marker))
        state = read_prior([record], BOT)
        assert [(a.name, a.gated, a.outcome, a.detail) for a in state.axes()] == [
            ("review", True, Outcome.PASSED, ""),
            ("ci", False, Outcome.NOT_RUN, "2 checks pending"),
        ]
        coverage = state.coverage()
        assert (coverage.files_total, coverage.files_in_context, coverage.partial) == (2, 1, True)
        assert "1 file(s) were not in the reviewer's context" in coverage.notes[0]

    @pytest.mark.parametrize("count", [1, MAX_UNSEEN_MARKED + 1], ids=["named", "too-many"])
    def test_unseen_files_survive_a_refold_all_or_none(self, count):
        """The summary marker names every unseen file, or none: a re-fold never thinks more was seen."""
        report = make_report((), verdict="ship", partial=True)
        assert report.coverage is not None
        unseen = tuple(
            UnseenFile(path=f"f{n}.py", reason="did not fit", remedy="raise it")
            for n in range(count)
        )
        coverage = report.coverage.model_copy(update={"unseen": unseen})
        marker = SummaryMarker.of(report.model_copy(update={"coverage": coverage}), head_sha=HEAD)
        record = CommentRecord(id=9, where=Where.ISSUE, author=BOT, body=summary_marker(marker))
        refolded = read_prior([record], BOT).coverage()
        assert refolded is not None
        assert refolded.partial is True
        if count == 1:
            assert refolded.unseen == unseen
            assert (refolded.covers("f0.py"), refolded.covers("other.py")) == (False, True)
        else:
            assert refolded.unseen == ()
            assert f"{count} file(s) were not seen by any reviewer" in refolded.notes[-1]
            assert refolded.covers("other.py") is False

    def test_no_summary_means_no_remembered_axes(self):
        """Without a readable summary there is nothing to reuse: the re-fold must treat axes as not run."""
        state = read_prior([], BOT)
        assert (state.axes(), state.coverage()) == ((), None)

    def test_neutralize_disarms_comment_openers(self):
        """Untrusted text cannot open an HTML comment once neutralised."""
        assert "<!--" not in neutralize("x <!-- reviewbot:node {} --> y")


class TestTrust:
    def test_marker_by_another_account_is_ignored(self):
        """A forged marker in someone else's comment is counted and never trusted."""
        forged = node_marker(node(id="forged", status=Status.DISMISSED))
        state = read_prior([inline(1, forged, author="mallory")], BOT)
        assert (state.nodes, state.untrusted_markers) == ((), 1)

    def test_bot_login_comparison_ignores_case(self):
        """GitHub logins are case-insensitive."""
        state = read_prior(
            [inline(1, node_marker(node(id="n")), author="GitHub-Actions[bot]")], BOT
        )
        assert [p.node.id for p in state.nodes] == ["n"]

    @pytest.mark.parametrize(
        "payload",
        [
            '{"id": "x"}',
            "not json",
            json.dumps(
                {**json.loads(json.dumps(node(id="n").model_dump(mode="json"))), "priority": "P9"}
            ),
            json.dumps({**node(id="n").model_dump(mode="json"), "extra": 1}),
        ],
        ids=["missing-fields", "not-json", "bad-priority", "extra-field"],
    )
    def test_malformed_marker_is_a_discard(self, payload):
        """A malformed marker, even from the bot's account, is discarded with a reason."""
        state = read_prior([inline(1, f"<!-- reviewbot:node {payload} -->")], BOT)
        assert state.nodes == ()
        assert len(state.discarded) == 1
        assert state.discarded[0].reason

    def test_own_pending_review_is_collected_for_deletion(self):
        """A PENDING review left by a crashed run is reported so it can be deleted."""
        pending = CommentRecord(id=77, where=Where.REVIEW, author=BOT, body="", state="PENDING")
        assert read_prior([pending], BOT).pending_reviews == (77,)


class TestHumanDecisions:
    def setup_method(self):
        self.target = node(id="review-1", title="Leak")
        self.bot_comment = inline(100, node_marker(self.target))

    def test_confirm_and_dismiss_replies_become_peer_events(self):
        """`/confirm` and `/dismiss` replies by collaborators are events by `human:<login>`."""
        replies = [
            inline(101, "/confirm real", author="bob", association="MEMBER", reply_to=100),
            inline(
                102, "/dismiss not a bug\nmore", author="carol", association="OWNER", reply_to=100
            ),
        ]
        state = read_prior([self.bot_comment, *replies], BOT)
        assert [(d.event.action.value, d.event.by, d.event.reason) for d in state.decisions] == [
            ("confirm", "human:bob", "real"),
            ("dismiss", "human:carol", "not a bug"),
        ]

    def test_reply_from_account_without_write_access_is_ignored(self):
        """A drive-by `/dismiss` cannot dismiss a finding."""
        reply = inline(101, "/dismiss", author="mallory", association="CONTRIBUTOR", reply_to=100)
        state = read_prior([self.bot_comment, reply], BOT)
        assert (state.decisions, state.ignored_commands) == ((), 1)

    def test_carry_over_applies_decisions_by_fingerprint(self):
        """A new node with the same fingerprint is confirmed by the human's reply."""
        reply = inline(101, "/confirm", author="bob", association="MEMBER", reply_to=100)
        state = read_prior([self.bot_comment, reply], BOT)
        fresh = node(id="review-9", title="Leak")
        (after,) = carry_over([fresh], state)
        assert (after.id, after.status, after.confirmed_by) == (
            "review-9",
            Status.CONSENSUS_READY,
            ("human:bob",),
        )

    def test_dismissed_stays_dismissed_and_late_confirm_is_moot(self):
        """Dismissed is final: a later /confirm does not reopen the finding nor end the run."""
        replies = [
            inline(101, "/dismiss", author="carol", association="OWNER", reply_to=100),
            inline(102, "/confirm", author="bob", association="MEMBER", reply_to=100),
        ]
        state = read_prior([self.bot_comment, *replies], BOT)
        (after,) = carry_over([node(id="review-9", title="Leak")], state)
        assert after.status is Status.DISMISSED

    def test_unrelated_nodes_are_unchanged(self):
        """A node with another fingerprint is left as the reviewer produced it."""
        state = read_prior([self.bot_comment], BOT)
        other = node(id="review-2", title="Different")
        assert carry_over([other], state) == (other,)

    def test_review_nodes_refold_prior_state(self):
        """Prior nodes come back with their statuses and the human decisions applied."""
        resolved = node(id="old", title="Gone", status=Status.RESOLVED)
        reply = inline(101, "/dismiss", author="carol", association="OWNER", reply_to=100)
        state = read_prior([self.bot_comment, inline(200, node_marker(resolved)), reply], BOT)
        statuses = {n.id: n.status for n in state.review_nodes()}
        assert statuses == {"review-1": Status.DISMISSED, "old": Status.RESOLVED}


class TestRewrite:
    def test_rewrite_sets_status_and_banner_only_for_named_fingerprints(self):
        """Only the named findings' markers change; the others stay byte-identical."""
        a, b = node(id="a", title="A"), node(id="b", title="B")
        body = f"- A\n  {node_marker(a)}\n- B\n  {node_marker(b)}\n"
        out = rewrite_status(body, {a.fingerprint}, Status.RESOLVED, banner="✅ resolved")
        state = read_prior([CommentRecord(id=1, where=Where.REVIEW, author=BOT, body=out)], BOT)
        assert {p.node.id: p.node.status for p in state.nodes} == {
            "a": Status.RESOLVED,
            "b": Status.OPEN,
        }
        assert "✅ resolved <!-- reviewbot:node" in out
        assert node_marker(b) in out

    def test_rewrite_redacts_the_marker_it_writes(self):
        """A marker written before a secret was known is masked when it is re-written."""
        secret = "s3cr3t-value-123"
        leaky = node(id="a", title=f"uses {secret}")
        out = rewrite_status(
            node_marker(leaky), {leaky.fingerprint}, Status.RESOLVED, redactor=Redactor.of([secret])
        )
        (marker,) = find_markers(out, NODE_TAG)
        assert (marker["title"], marker["status"]) == (f"uses {MASK}", "resolved")
        assert secret.replace("-", "\\u002d") not in out
