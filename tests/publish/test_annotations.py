"""Findings as check-run annotations: which nodes, their level and text, and the batches."""

from __future__ import annotations

import pytest

from reviewbot.nodes import Kind, Priority, Status
from reviewbot.publish.annotations import (
    CUT,
    MAX_ANNOTATIONS,
    MAX_MESSAGE,
    MAX_TITLE,
    PER_REQUEST,
    Unannotated,
    plan_annotations,
    remaining,
)
from reviewbot.publish.inert import Inert
from reviewbot.redact import Redactor
from reviewbot.sources.diff_index import DiffIndex, FileStatus, file_diff_from_patch
from tests.fakes import hostile
from tests.publish.conftest import (
    APP_PATCH,
    HEAD,
    LINKS,
    REPO,
    assert_plain_inert,
    every_kind,
    make_diff,
    node,
)

INERT = Inert(redactor=Redactor(), links=LINKS)
SECRET = "s3cr3t-value-" + "Q" * 20


def plan(nodes, diff=None, **kwargs):
    return plan_annotations(
        nodes, diff or make_diff(), head_sha=HEAD, inert=kwargs.pop("inert", INERT), **kwargs
    )


def many(count: int, priority: Priority = Priority.P2):
    """`count` open findings on lines 1–30 of src/app.py (changed in the PR)."""
    return tuple(
        node(id=f"review-{i}", priority=priority, title=f"Finding {i}", lines=(i % 30 + 1,) * 2)
        for i in range(count)
    )


class TestWhichNodes:
    def test_every_standing_head_finding_on_a_changed_file(self):
        """Inline, narrowed and outside-the-diff lines of a changed file are annotated, by priority."""
        got = plan(every_kind())
        assert [a.node_id for a in got.items] == ["review-1", "review-2", "review-3"]
        assert [(a.path, a.start_line, a.end_line) for a in got.items] == [
            ("src/app.py", 3, 4),
            ("src/app.py", 7, 10),
            ("src/app.py", 12, 14),  # unchanged lines of a changed file: the checks UI shows them
        ]

    def test_what_is_left_out_and_why(self):
        """No anchor, a file the PR does not change: left out with the reason; dismissed: not listed."""
        got = plan(every_kind())
        assert dict(got.left_out) == {
            "review-5": Unannotated.FILE_NOT_CHANGED,
            "review-4": Unannotated.NO_ANCHOR,
        }
        assert "review-6" not in {a.node_id for a in got.items}  # dismissed

    def test_deleted_lines_are_not_annotated(self):
        """A LEFT anchor names base lines; an annotation names head lines: left out, said so."""
        left = node(id="review-1", lines=(2, 2))
        left = left.model_copy(
            update={"anchor": left.anchor.model_copy(update={"side": "LEFT"})}  # type: ignore[union-attr]
        )
        got = plan((left, node(id="review-2")))
        assert [a.node_id for a in got.items] == ["review-2"]
        assert got.left_out == (("review-1", Unannotated.DELETED_LINES),)
        assert "1 on deleted lines" in got.notes()[0]

    def test_a_finding_carried_from_an_earlier_head_is_not_annotated(self):
        """Its lines are lines of the commit it was found on, not of this head."""
        earlier = node(id="review-1").model_copy(update={"commit_sha": "c" * 12})
        short = node(id="review-2").model_copy(update={"commit_sha": HEAD[:12]})
        got = plan((earlier, short))
        assert [a.node_id for a in got.items] == ["review-2"]
        assert got.left_out == (("review-1", Unannotated.EARLIER_HEAD),)

    def test_a_finding_an_incremental_review_carried_onto_this_head_is_annotated(self):
        """Carried forward, its anchor was mapped onto this head's lines: each push makes a
        new check run, which would otherwise lose every carried finding's annotation."""
        carried = node(id="aaaaaaaaaaaa:review-1").model_copy(update={"commit_sha": "c" * 12})
        got = plan((carried,), rebased=frozenset({"aaaaaaaaaaaa:review-1"}))
        assert [a.node_id for a in got.items] == ["aaaaaaaaaaaa:review-1"]
        assert got.left_out == ()

    def test_a_deleted_file_is_not_a_head_file(self):
        """A file the PR deletes has no head lines to annotate."""
        gone = file_diff_from_patch("src/app.py", APP_PATCH, status=FileStatus.DELETED)
        got = plan((node(id="review-1"),), DiffIndex(files={"src/app.py": gone}))
        assert got.left_out == (("review-1", Unannotated.FILE_NOT_CHANGED),)

    @pytest.mark.parametrize(
        "status", [Status.OPEN, Status.CONSENSUS_READY, Status.RESOLVED, Status.DISMISSED], ids=str
    )
    def test_only_standing_findings(self, status):
        """Open and confirmed findings are annotated; resolved and dismissed ones are not."""
        got = plan((node(id="review-1", status=status),))
        standing = status in (Status.OPEN, Status.CONSENSUS_READY)
        assert [a.node_id for a in got.items] == (["review-1"] if standing else [])

    def test_the_cap_keeps_the_most_severe(self):
        """Past the cap, the least severe findings are left out (and counted), never dropped silently."""
        nodes = (*many(MAX_ANNOTATIONS, Priority.P3), node(id="review-p0", priority=Priority.P0))
        got = plan(nodes)
        assert len(got.items) == MAX_ANNOTATIONS
        assert got.items[0].node_id == "review-p0"
        assert [why for _, why in got.left_out] == [Unannotated.OVER_LIMIT]
        assert f"past the limit of {MAX_ANNOTATIONS}" in got.notes()[0]

    def test_no_findings_no_note(self):
        """A clean PR's check summary says nothing about annotations."""
        assert plan(()).notes() == ()


class TestLevels:
    @pytest.mark.parametrize(
        ("priority", "level"),
        [
            (Priority.P0, "failure"),
            (Priority.P1, "failure"),
            (Priority.P2, "warning"),
            (Priority.P3, "notice"),
        ],
        ids=["P0", "P1", "P2", "P3"],
    )
    def test_level_from_priority(self, priority, level):
        """P0/P1 failure, P2 warning, P3 notice (the SARIF split)."""
        (annotation,) = plan((node(id="review-1", priority=priority),)).items
        assert annotation.level == level
        assert annotation.payload()["annotation_level"] == level


class TestText:
    def test_payload_fields(self):
        """Title with priority and kind, body and status in the message, the suggestion as details."""
        (first, *_) = plan(every_kind()).items
        assert first.payload() == {
            "path": "src/app.py",
            "start_line": 3,
            "end_line": 4,
            "annotation_level": "failure",
            "title": "P0 bug: x3 is off by one",
            "message": "`x3` should be `30`: the loop below reads `x3 * 10`.\n\n"
            "P0 · confirmed · confidence 0.90",
            "raw_details": "Suggested replacement of these lines:\nx3 = 30\nx4 = 40",
        }
        assert "start_column" not in first.payload()

    def test_an_empty_body_gives_the_title_as_message(self):
        """GitHub requires a message: a finding without a body says its title."""
        (annotation,) = plan((node(id="review-1", kind=Kind.QUESTION, title="Why?"),)).items
        assert annotation.message.startswith("P1 question: Why?\n\n")

    def test_hostile_text_is_plain_and_inert(self):
        """Every payload of the hostile fixture: no outside link, mention, reference or hidden char."""
        hostile_node = node(
            id="review-1",
            title=hostile.TITLE,
            body=hostile.PAYLOAD,
            suggestion=hostile.PAYLOAD,
        )
        (annotation,) = plan((hostile_node,)).items
        for text in (annotation.title, annotation.message, annotation.raw_details or ""):
            assert_plain_inert(text)
        assert "\n" not in annotation.title
        assert "⟨U+202E⟩" in annotation.title  # shown, not obeyed
        assert "http[:]//attacker.invalid/leak" in annotation.message
        assert "www[.]attacker.invalid" in annotation.message

    def test_links_into_the_repository_stay(self):
        """A link to a file of the PR's repository is kept as it is."""
        own = f"https://github.com/{REPO}/blob/{HEAD}/src/app.py#L3"
        (annotation,) = plan(
            (node(id="review-1", body=f"see {own} and https://x.invalid/a"),)
        ).items
        assert own in annotation.message
        assert "https[:]//x.invalid/a" in annotation.message

    def test_secrets_are_redacted_before_the_cut(self):
        """A secret astride the cut is masked whole first, so no half of it is posted."""
        inert = Inert(redactor=Redactor.of([SECRET]), links=LINKS)
        body = "x" * (MAX_MESSAGE - 60) + SECRET + "y" * 100
        title = "\u200b" * 30 + SECRET  # each invisible is shown as 8 characters: ⟨U+200B⟩
        (annotation,) = plan((node(id="review-1", title=title, body=body),), inert=inert).items
        for text in (annotation.title, annotation.message):
            assert SECRET[:6] not in text  # masked whole, then cut: not even its start is posted
        assert len(annotation.title) <= MAX_TITLE
        assert annotation.title.endswith(CUT)
        assert len(annotation.message) <= MAX_MESSAGE

    def test_long_text_is_cut_within_github_limits(self):
        """Title ≤ 255 characters, message and details well under 64 KB, each cut marked."""
        shown_long = "\u202e" * 200  # 1,600 characters once shown as ⟨U+202E⟩
        long = node(id="review-1", title=shown_long, body="B" * 20_000, suggestion=shown_long * 3)
        (annotation,) = plan((long,)).items
        assert len(annotation.title) <= MAX_TITLE
        assert CUT in annotation.message
        assert len(annotation.message.encode()) < 64 * 1024
        assert annotation.raw_details is not None
        assert annotation.raw_details.endswith(CUT)


class TestBatches:
    @pytest.mark.parametrize(
        ("count", "sizes"),
        [(0, []), (1, [1]), (50, [50]), (51, [50, 1]), (150, [50, 50, 50])],
        ids=["none", "one", "fifty", "fifty-one", "the-cap"],
    )
    def test_at_most_fifty_a_request(self, count, sizes):
        """Batches of at most GitHub's 50, in priority order."""
        items = plan(many(count)).items
        batches = remaining(items, 0)
        assert [len(b) for b in batches] == sizes
        assert [a for batch in batches for a in batch] == list(items)
        assert PER_REQUEST == 50

    @pytest.mark.parametrize(
        ("stored", "sizes"),
        [(0, [50, 50, 20]), (50, [50, 20]), (73, [47]), (120, []), (500, [])],
        ids=["none", "first-batch", "mid-batch", "all", "more-than-sent"],
    )
    def test_the_rest_after_what_github_holds(self, stored, sizes):
        """After a lost answer, only the annotations past GitHub's count are sent again."""
        items = plan(many(120)).items
        batches = remaining(items, stored)
        assert [len(b) for b in batches] == sizes
        assert [a for batch in batches for a in batch] == list(items[stored:])
