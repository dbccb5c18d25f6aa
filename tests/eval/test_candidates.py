"""Which findings the benchmark counts: each one the review would post, inline or in its body, once;
never one the review closed. Placement is the publisher's own."""

from __future__ import annotations

from dataclasses import replace

from reviewbot.eval.candidates import candidates
from reviewbot.nodes import Status
from tests.publish.conftest import every_kind, make_report, make_snapshot, node


class TestCandidates:
    def test_inline_and_body_findings_count_and_closed_ones_do_not(self, tmp_path):
        """every_kind(): review-1, -2 inline (in the diff); review-3 (outside the diff), -4 (no
        anchor), -5 (a file the PR does not change) in the review body; review-6 dismissed: not a
        candidate, listed as closed."""
        found = candidates(make_report(every_kind()), make_snapshot(tmp_path))
        assert [(c.node.id, c.placement) for c in found.found] == [
            ("review-1", "inline"),
            ("review-2", "inline"),
            ("review-3", "body"),
            ("review-4", "body"),
            ("review-5", "body"),
        ]
        assert found.closed == ("review-6",)

    def test_over_the_inline_limit_is_still_one_candidate(self, tmp_path):
        """max_inline_comments 1: the second in-diff finding moves to the body, and still counts."""
        snapshot = make_snapshot(tmp_path)
        config = snapshot.config.model_copy(
            update={
                "publish": snapshot.config.publish.model_copy(update={"max_inline_comments": 1})
            }
        )
        snapshot = replace(snapshot, config=config)
        found = candidates(make_report(every_kind()[:2]), snapshot)
        assert sorted(c.placement for c in found.found) == ["body", "inline"]

    def test_without_a_snapshot_placement_follows_the_anchor(self):
        """No diff to place by: anchored findings are inline, unanchored ones in the body."""
        nodes = (
            node(id="review-1"),
            node(id="review-2", path=None),
            node(id="review-3", status=Status.RESOLVED),
        )
        found = candidates(make_report(nodes), None)
        assert [(c.node.id, c.placement) for c in found.found] == [
            ("review-1", "inline"),
            ("review-2", "body"),
        ]
        assert found.closed == ("review-3",)
