"""Placement: inline only where GitHub accepts it, narrowing by rule, nothing ever dropped."""

from __future__ import annotations

import pytest

from reviewbot.config.file import PublishConfig
from reviewbot.memory.postings import PriorNode
from reviewbot.nodes import Anchor, Priority, ReviewNode, Status
from reviewbot.publish.placement import (
    BodyReason,
    CommentTarget,
    InlineRules,
    LinkBuilder,
    inline_rules,
    locate,
    place_nodes,
)
from reviewbot.sources.comments import DiffLines, Where
from reviewbot.sources.diff_index import DiffIndex, FileStatus, file_diff_from_patch
from tests.publish.conftest import HEAD, REPO, every_kind, make_diff, node

LINKS = LinkBuilder(web_url="https://github.com", repo=REPO, head_sha=HEAD)


def anchor(start: int, end: int, path: str = "src/app.py") -> Anchor:
    return Anchor(path=path, start_line=start, end_line=end, quote="")


class TestLocate:
    @pytest.mark.parametrize(
        ("lines", "expected"),
        [
            ((3, 3), CommentTarget(path="src/app.py", line=3)),
            ((3, 6), CommentTarget(path="src/app.py", line=6, start_line=3)),
            ((1, 8), CommentTarget(path="src/app.py", line=8, start_line=1)),
            ((7, 10), CommentTarget(path="src/app.py", line=8, start_line=7, narrowed=True)),
            ((19, 21), CommentTarget(path="src/app.py", line=21, start_line=20, narrowed=True)),
            ((8, 8), CommentTarget(path="src/app.py", line=8)),
            ((6, 20), CommentTarget(path="src/app.py", line=8, start_line=6, narrowed=True)),
            ((10, 21), BodyReason.OUTSIDE_DIFF),
            ((12, 14), BodyReason.OUTSIDE_DIFF),
            ((15, 20), BodyReason.OUTSIDE_DIFF),
            ((9, 9), BodyReason.OUTSIDE_DIFF),
        ],
        ids=[
            "one-line",
            "range-in-hunk",
            "whole-hunk",
            "narrowed-overlap-holds-first-line",
            "narrowed-overlap-covers-half",
            "last-line-of-hunk",
            "spans-two-hunks-narrowed-to-the-first-line",
            "late-small-overlap",
            "between-hunks",
            "overlap-too-small",
            "just-after-hunk",
        ],
    )
    def test_target_for_anchor(self, lines, expected):
        """Lines of one hunk are inline; a partial overlap narrows only by the documented rule."""
        assert locate(anchor(*lines), make_diff()) == expected

    def test_file_not_in_the_diff(self):
        """An anchor in an unchanged file cannot be commented inline."""
        assert locate(anchor(1, 1, "README.md"), make_diff()) is BodyReason.FILE_NOT_IN_DIFF


# A hunk that deletes base lines 2–3 and adds head line 2: base 1–4 are LEFT lines, head 1–3 RIGHT.
DELETING = "@@ -1,4 +1,3 @@\n x1 = 1\n-x2 = 2\n-x3 = 3\n+x2 = 20\n x4 = 4\n"


def deleting_diff() -> DiffIndex:
    app = file_diff_from_patch("src/app.py", DELETING, status=FileStatus.MODIFIED)
    return DiffIndex(files={"src/app.py": app}, total_files=1)


def left(start: int, end: int) -> Anchor:
    return Anchor(path="src/app.py", start_line=start, end_line=end, quote="", side="LEFT")


class TestLocateOnTheBaseSide:
    @pytest.mark.parametrize(
        ("lines", "expected"),
        [
            ((2, 3), CommentTarget(path="src/app.py", line=3, start_line=2, side="LEFT")),
            ((4, 4), CommentTarget(path="src/app.py", line=4, side="LEFT")),
            (
                (3, 6),
                CommentTarget(path="src/app.py", line=4, start_line=3, side="LEFT", narrowed=True),
            ),
            ((9, 9), BodyReason.OUTSIDE_DIFF),
        ],
        ids=["deleted-range", "context-line", "narrowed", "outside"],
    )
    def test_left_anchors_are_placed_on_left_lines(self, lines, expected):
        """A LEFT anchor is placed on deleted or context lines of one hunk, numbered as in the base."""
        assert locate(left(*lines), deleting_diff()) == expected

    def test_a_deleted_line_number_is_not_a_head_line(self):
        """Base line 4 is commentable on the left; head line 4 does not exist in the hunk."""
        right = Anchor(path="src/app.py", start_line=4, end_line=4, quote="")
        assert locate(right, deleting_diff()) is BodyReason.OUTSIDE_DIFF

    def test_deleted_lines_get_no_head_link(self):
        """A link to the head would show other lines: LEFT anchors are named, not linked."""
        assert LINKS(left(2, 3)) is None
        assert LINKS(anchor(2, 3)) is not None


class TestPlanReview:
    def test_every_node_lands_somewhere(self):
        """Each node of every kind is inline, in the body, or quiet: none is lost."""
        plan = place_nodes(every_kind(), make_diff(), max_inline=30)
        inline = {item.node.id: item.target for item in plan.inline}
        body = {item.node.id: item.reason for item in plan.body}
        assert inline == {
            "review-1": CommentTarget(path="src/app.py", line=4, start_line=3),
            "review-2": CommentTarget(path="src/app.py", line=8, start_line=7, narrowed=True),
        }
        assert body == {
            "review-3": BodyReason.OUTSIDE_DIFF,
            "review-4": BodyReason.NO_ANCHOR,
            "review-5": BodyReason.FILE_NOT_IN_DIFF,
        }
        assert [n.id for n in plan.quiet] == ["review-6"]

    @pytest.mark.parametrize(
        ("target", "expected"),
        [
            (anchor(12, 14), f"https://github.com/{REPO}/blob/{HEAD}/src/app.py#L12-L14"),
            (
                anchor(3, 3, "docs/a b.md"),
                f"https://github.com/{REPO}/blob/{HEAD}/docs/a%20b.md#L3",
            ),
            (None, None),
        ],
        ids=["range", "one-line-quoted-path", "no-anchor"],
    )
    def test_link_to_the_head_lines(self, target, expected):
        """The body links an anchored node to its lines at the head commit; no anchor, no link."""
        assert LINKS(target) == expected

    def test_inline_limit_keeps_the_most_severe_then_most_confident(self):
        """Over the limit, P0 beats P1 and higher confidence wins; the rest go to the body."""
        nodes = (
            node(id="low", priority=Priority.P2, title="a", lines=(3, 3)),
            node(id="sure", priority=Priority.P1, confidence=0.95, title="b", lines=(4, 4)),
            node(id="unsure", priority=Priority.P1, confidence=0.4, title="c", lines=(5, 5)),
            node(id="p0", priority=Priority.P0, confidence=0.3, title="d", lines=(6, 6)),
        )
        plan = place_nodes(nodes, make_diff(), max_inline=2)
        assert [item.node.id for item in plan.inline] == ["p0", "sure"]
        assert [(item.node.id, item.reason) for item in plan.body] == [
            ("unsure", BodyReason.OVER_LIMIT),
            ("low", BodyReason.OVER_LIMIT),
        ]

    def test_already_posted_fingerprints_are_not_posted_again(self):
        """A node whose fingerprint is on the PR is neither inline nor in the body."""
        nodes = every_kind()
        posted = frozenset({nodes[0].fingerprint, nodes[3].fingerprint})
        plan = place_nodes(nodes, make_diff(), max_inline=30, posted=posted)
        assert [n.id for n in plan.already_posted] == ["review-1", "review-4"]
        placed = {i.node.id for i in plan.inline} | {i.node.id for i in plan.body}
        assert placed == {"review-2", "review-3", "review-5"}

    @pytest.mark.parametrize(
        "status", [Status.RESOLVED, Status.DISMISSED], ids=["resolved", "dismissed"]
    )
    def test_closed_nodes_are_never_inline(self, status):
        """Resolved and dismissed nodes stay out of the review."""
        plan = place_nodes((node(id="n", status=status),), make_diff(), max_inline=30)
        assert (plan.inline, plan.body, [n.id for n in plan.quiet]) == ((), (), ["n"])

    def test_rejected_comments_move_to_the_body(self):
        """Comments GitHub refused become body items, keeping the others inline."""
        plan = place_nodes(every_kind(), make_diff(), max_inline=30)
        moved = plan.reject(["review-2"])
        assert [i.node.id for i in moved.inline] == ["review-1"]
        assert (moved.body[-1].node.id, moved.body[-1].reason) == ("review-2", BodyReason.REJECTED)
        assert moved.body[:-1] == plan.body


def _confirmed(n: ReviewNode) -> ReviewNode:
    return n.model_copy(update={"status": Status.CONSENSUS_READY, "confirmed_by": ("verifier",)})


class TestRanking:
    def test_at_the_cap_priority_then_confirmation_then_confidence(self):
        """A confirmed P1 beats a more confident open P1; everything else goes to the body in rank order."""
        nodes = (
            node(id="p2", priority=Priority.P2, confidence=0.99, title="a", lines=(3, 3)),
            node(id="open", priority=Priority.P1, confidence=0.95, title="b", lines=(4, 4)),
            _confirmed(node(id="confirmed", priority=Priority.P1, confidence=0.6, lines=(5, 5))),
            node(id="p0", priority=Priority.P0, confidence=0.3, title="d", lines=(6, 6)),
            node(id="p3", priority=Priority.P3, confidence=0.9, title="e", lines=(7, 7)),
        )
        plan = place_nodes(nodes, make_diff(), max_inline=2)
        assert [item.node.id for item in plan.inline] == ["p0", "confirmed"]
        assert [(item.node.id, item.reason) for item in plan.body] == [
            ("open", BodyReason.OVER_LIMIT),
            ("p2", BodyReason.OVER_LIMIT),
            ("p3", BodyReason.OVER_LIMIT),
        ]
        (said,) = plan.choices()
        assert said.startswith("3 finding(s) over the inline comment limit (2 a review)")
        assert "chosen by priority, then confirmation, then confidence" in said

    def test_a_file_cap_moves_that_files_rest_to_the_body(self):
        """`max_per_file` keeps the file's best inline; the review-wide cap still counts the rest."""
        nodes = tuple(
            node(id=f"n{line}", priority=Priority.P1, confidence=line / 10, lines=(line, line))
            for line in (3, 4, 5)
        )
        plan = place_nodes(
            nodes, make_diff(), max_inline=InlineRules(max_inline=30, max_per_file=1)
        )
        assert [item.node.id for item in plan.inline] == ["n5"]
        assert {(i.node.id, i.reason) for i in plan.body} == {
            ("n4", BodyReason.OVER_FILE_LIMIT),
            ("n3", BodyReason.OVER_FILE_LIMIT),
        }
        assert "(30 a review, 1 a file)" in plan.choices()[0]

    def test_no_choice_is_stated_when_nothing_was_moved(self):
        plan = place_nodes(every_kind(), make_diff(), max_inline=30)
        assert plan.choices() == ()


class TestReReview:
    RULES = InlineRules(max_inline=30, held_below=Priority.P2)

    def test_new_findings_below_the_minimum_go_in_the_body(self):
        """On a re-review P0–P2 stay inline and P3 is held back, said so with its count."""
        nodes = tuple(
            node(id=p.value, priority=p, lines=(3 + p.rank, 3 + p.rank)) for p in Priority
        )
        plan = place_nodes(nodes, make_diff(), max_inline=self.RULES)
        assert [item.node.id for item in plan.inline] == ["P0", "P1", "P2"]
        assert [(i.node.id, i.reason) for i in plan.body] == [("P3", BodyReason.HELD_BACK)]
        (said,) = plan.choices()
        assert said.startswith("1 new finding(s) less severe than P2 held back from inline")

    def test_a_posted_finding_is_not_posted_again_anywhere(self):
        """Already on the PR: neither inline nor in the body, whatever its priority."""
        low = node(id="low", priority=Priority.P3)
        plan = place_nodes(
            (low,), make_diff(), max_inline=self.RULES, posted=frozenset({low.fingerprint})
        )
        assert (plan.inline, plan.body, [n.id for n in plan.already_posted]) == ((), (), ["low"])

    def test_the_first_review_holds_nothing_back(self):
        rules = inline_rules(PublishConfig(), rereview=False)
        plan = place_nodes((node(id="low", priority=Priority.P3),), make_diff(), max_inline=rules)
        assert [item.node.id for item in plan.inline] == ["low"]
        assert inline_rules(PublishConfig(), rereview=True).held_below is Priority.P2


class TestSuppressedByALearning:
    def test_it_goes_in_the_body_once_recorded_as_it_stood(self):
        """Dismissed by a learning: listed in the body (never inline, never lost), its marker
        the node before the learning, so a later run applies the learnings again."""
        learned = node(id="learned", priority=Priority.P1).model_copy(
            update={"status": Status.DISMISSED}
        )
        person = node(id="person", priority=Priority.P1, lines=(5, 5)).model_copy(
            update={"status": Status.DISMISSED}
        )
        plan = place_nodes(
            (learned, person),
            make_diff(),
            max_inline=30,
            suppressed=frozenset({learned.fingerprint}),
        )
        assert plan.inline == ()
        (item,) = plan.body
        assert (item.node.id, item.reason) == ("learned", BodyReason.SUPPRESSED)
        assert item.recorded.status is Status.OPEN
        assert [n.id for n in plan.quiet] == ["person"]  # a person's /dismiss stays quiet

    def test_already_in_a_body_it_is_not_listed_again(self):
        learned = node(id="learned").model_copy(update={"status": Status.DISMISSED})
        plan = place_nodes(
            (learned,),
            make_diff(),
            max_inline=30,
            posted=frozenset({learned.fingerprint}),
            suppressed=frozenset({learned.fingerprint}),
        )
        assert (plan.body, [n.id for n in plan.already_posted]) == ((), ["learned"])


def resolved_posting(n: ReviewNode, shown_at: DiffLines | None) -> PriorNode:
    """`n`'s earlier inline comment, resolved, shown by the head's diff at `shown_at`."""
    resolved = n.model_copy(update={"status": Status.RESOLVED})
    return PriorNode(node=resolved, comment_id=41, where=Where.INLINE, body="", shown_at=shown_at)


class TestReopen:
    def place(self, n: ReviewNode, shown_at: DiffLines | None, *, edits: int = 1, max_inline=30):
        reopen = {n.fingerprint: resolved_posting(n, shown_at)}
        return place_nodes([n], make_diff(), max_inline=max_inline, reopen=reopen, edits=edits)

    def test_a_comment_shown_on_the_findings_lines_is_reopened_not_posted(self):
        """Shown on its target: reopened, no new inline comment, whatever the inline limit."""
        n = node(id="back", lines=(3, 4))
        plan = self.place(n, DiffLines(path="src/app.py", line=4, start_line=3), max_inline=0)
        assert [(i.node.id, i.earlier.comment_id) for i in plan.reopened] == [("back", 41)]
        assert (plan.inline, plan.body, plan.new_count) == ((), (), 0)
        assert "1 resolved finding(s) found again are reopened" in plan.counts()

    @pytest.mark.parametrize(
        ("shown_at", "edits"),
        [
            (None, 1),
            (DiffLines(path="src/app.py", line=5, start_line=3), 1),
            (DiffLines(path="src/app.py", line=4, start_line=3, side="LEFT"), 1),
            (DiffLines(path="src/app.py", line=4, start_line=3), 0),
        ],
        ids=["outdated", "other-lines", "other-side", "no-edit-left"],
    )
    def test_otherwise_it_is_posted_anew(self, shown_at, edits):
        """Outdated, on other lines or past the run's edits: a new inline comment, once."""
        n = node(id="back", lines=(3, 4))
        plan = self.place(n, shown_at, edits=edits)
        assert plan.reopened == ()
        assert [i.node.id for i in plan.inline] == ["back"]

    def test_a_reopen_that_cannot_be_made_is_posted_anew(self):
        """`post_anew` moves a reopened item to the new inline comments, on the same lines."""
        n = node(id="back", lines=(3, 4))
        plan = self.place(n, DiffLines(path="src/app.py", line=4, start_line=3)).post_anew(["back"])
        assert plan.reopened == ()
        assert [(i.node.id, i.target.line, i.target.start_line) for i in plan.inline] == [
            ("back", 4, 3)
        ]

    @pytest.mark.parametrize(
        ("rules", "reason"),
        [
            (InlineRules(max_inline=0), BodyReason.OVER_LIMIT),
            (InlineRules(max_inline=1), BodyReason.OVER_LIMIT),
            (InlineRules(max_inline=30, max_per_file=1), BodyReason.OVER_FILE_LIMIT),
            (InlineRules(max_inline=30, held_below=Priority.P2), BodyReason.HELD_BACK),
        ],
        ids=["no-inline", "review-cap", "file-cap", "held-back"],
    )
    def test_a_reopen_posted_anew_keeps_the_inline_rules(self, rules, reason):
        """A P3 whose reopen cannot be made is placed as a new finding would be: past the
        limits (a P1 on the same file inline already) it goes in the body, with the reason."""
        back = node(id="back", priority=Priority.P3, lines=(3, 4))
        other = node(id="other", priority=Priority.P1, lines=(6, 6))
        reopen = {
            back.fingerprint: resolved_posting(
                back, DiffLines(path="src/app.py", line=4, start_line=3)
            )
        }
        plan = place_nodes([back, other], make_diff(), max_inline=rules, reopen=reopen, edits=1)
        assert [i.node.id for i in plan.reopened] == ["back"]
        anew = plan.post_anew(["back"])
        assert [i.node.id for i in anew.inline] == ([] if rules.max_inline == 0 else ["other"])
        assert ("back", reason) in [(i.node.id, i.reason) for i in anew.body]
        assert anew.choices(), "a finding moved to the body by a rule, the rule unsaid"

    def test_a_reopen_posted_anew_is_ranked_with_the_new_findings(self):
        """At the cap a returning P0 posted anew takes the inline place of a new P1, as it
        would have had it never been reopenable; the P1 is listed in the body."""
        back = node(id="back", priority=Priority.P0, lines=(3, 4))
        other = node(id="other", priority=Priority.P1, lines=(6, 6))
        reopen = {
            back.fingerprint: resolved_posting(
                back, DiffLines(path="src/app.py", line=4, start_line=3)
            )
        }
        plan = place_nodes([back, other], make_diff(), max_inline=1, reopen=reopen, edits=1)
        assert [i.node.id for i in plan.inline] == ["other"]
        anew = plan.post_anew(["back"])
        assert [i.node.id for i in anew.inline] == ["back"]
        assert [(i.node.id, i.reason) for i in anew.body] == [("other", BodyReason.OVER_LIMIT)]
        assert anew == place_nodes([back, other], make_diff(), max_inline=1)
