"""Full or incremental, and why (scope/decision.py), and the joined coverage (coverage.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from reviewbot.config.file import ReviewConfig
from reviewbot.coverage.inherited import joined
from reviewbot.coverage.model import Coverage, UnseenFile
from reviewbot.memory.markers import AxisMarker, CoverageMarker, SummaryMarker
from reviewbot.memory.prior import PriorState, PriorSummary
from reviewbot.nodes.model import Priority
from reviewbot.redact import Redactor
from reviewbot.results.report import ReviewKind
from reviewbot.scope.decision import config_digest, decide_review
from reviewbot.scope.full import FullScope
from reviewbot.verdict.axes import Outcome
from tests.agent.factories import HEAD_SHA, file_diff, index, snapshot

REVIEWED = "a" * 40
PATCH = "@@ -1 +1 @@\n-a\n+b"


def marker(**changes) -> SummaryMarker:
    fields = {
        "head_sha": REVIEWED,
        "verdict": "ship",
        "axes": (AxisMarker(name="review", gated=True, outcome=Outcome.PASSED),),
        "coverage": CoverageMarker(
            files_total=1, files_in_context=1, files_listed=0, partial=False
        ),
        "nodes": (),
        "kind": ReviewKind.FULL,
        "config_digest": config_digest(ReviewConfig()),
        "last_comment": 10,
        "patches": (),
    }
    return SummaryMarker(**(fields | changes))


def prior(summary: SummaryMarker | None, **changes) -> PriorState:
    held = PriorSummary(comment_id=1, marker=summary) if summary is not None else None
    return PriorState(summary=held, **changes)


def reason(tmp_path: Path, state: PriorState, *, config: ReviewConfig | None = None, **kw) -> str:
    snap = snapshot(tmp_path, index(file_diff("a.py", PATCH), **kw), config=config)
    plan = decide_review(snap, state)
    assert plan.run.kind is ReviewKind.FULL
    assert isinstance(plan, FullScope)  # nothing inherited, nothing carried
    return plan.run.reason


class TestWhyFull:
    @pytest.mark.parametrize(
        ("state", "config", "expected"),
        [
            (prior(None), None, "no earlier review of this PR"),
            (
                prior(marker()),
                ReviewConfig.model_validate({"review": {"incremental": False}}),
                "incremental = false",
            ),
            (prior(marker(head_sha=HEAD_SHA)), None, "reviewing the same head again"),
            (prior(marker(), full_requests=(11,)), None, "`/review full` was asked (comment 11)"),
            (prior(marker(config_digest=None)), None, "the effective config differs"),
            (prior(marker()), ReviewConfig(model="another-model"), "the effective config differs"),
            (
                prior(
                    marker(axes=(AxisMarker(name="review", gated=True, outcome=Outcome.NOT_RUN),))
                ),
                None,
                "no completed `review` axis",
            ),
            (prior(marker(axes=())), None, "no completed `review` axis"),
            (prior(marker(nodes=None)), None, "did not record where each of its findings is"),
            (
                prior(
                    marker(
                        coverage=CoverageMarker(
                            files_total=40,
                            files_in_context=1,
                            files_listed=39,
                            partial=True,
                            files_unseen=39,
                        )
                    )
                ),
                None,
                "did not record which files it did not see",
            ),
            (prior(marker(coverage=None)), None, "did not record which files it did not see"),
            (prior(marker(patches=None)), None, "did not record the PR's diff it reviewed"),
        ],
        ids=[
            "no review",
            "switched off",
            "same head",
            "/review full after it",
            "no digest",
            "config changed",
            "axis not run",
            "axis missing",
            "nodes not recorded",
            "unseen files not named",
            "no coverage",
            "no PR diff",
        ],
    )
    def test_each_rule_names_its_reason(self, tmp_path: Path, state, config, expected):
        """The first rule that fails makes the review full, and its reason says which."""
        assert expected in reason(tmp_path, state, config=config)

    def test_a_request_older_than_the_review_does_not_count(self, tmp_path: Path):
        """`/review full` before the last review read the PR was answered by it."""
        state = prior(marker(), full_requests=(9,))
        assert "is not a git clone" in reason(tmp_path, state)  # the rules after it decide

    @pytest.mark.parametrize(
        "recorded",
        ["src/ghp_" + "A" * 30 + ".py", "src/" + "d/" * 160 + "big.py", "gone.py"],
        ids=["token-shaped (redacted)", "past 300 characters (cut)", "renamed or deleted since"],
    )
    def test_an_unseen_file_the_marker_cannot_name_exactly_is_full(
        self, tmp_path: Path, recorded: str
    ):
        """Carried coverage must find each unseen file again: a lost one would read as seen."""
        unseen = UnseenFile(path=recorded, reason="over budget", remedy="raise it")
        earlier = Coverage(files_total=2, files_in_context=1, partial=True, unseen=(unseen,))
        coverage = CoverageMarker.of(earlier, redactor=Redactor())
        coverage = CoverageMarker.model_validate_json(coverage.model_dump_json())
        state = prior(marker(coverage=coverage))
        assert "recorded an unseen file this PR has under no such name" in reason(tmp_path, state)

    def test_a_listing_past_githubs_limit_is_full(self, tmp_path: Path):
        """GitHub did not list every changed file: nothing to map them with."""
        state = prior(marker())
        assert "did not list every changed file" in reason(tmp_path, state, listing_truncated=True)

    def test_a_checkout_without_history_is_full(self, tmp_path: Path):
        """Every rule passes, but the folder is no clone: full, never incremental on a guess."""
        assert "is not a git clone" in reason(tmp_path, prior(marker()))


class TestDigest:
    def test_the_digest_ignores_the_order_of_a_set(self):
        """Priorities are a set: written in any order, the same config, the same digest."""
        one = ReviewConfig.model_validate({"verifier": {"priorities": ["P0", "P1"]}})
        two = ReviewConfig.model_validate({"verifier": {"priorities": ["P1", "P0"]}})
        assert config_digest(one) == config_digest(two)
        three = ReviewConfig.model_validate({"verifier": {"priorities": [Priority.P0]}})
        assert config_digest(one) != config_digest(three)


class TestJoinedCoverage:
    def joined(self, now: Coverage, earlier: Coverage) -> Coverage:
        pr = index(*(file_diff(p, PATCH) for p in ("a.py", "b.py", "c.py")))
        changed = index(file_diff("a.py", PATCH))
        return joined(now, earlier=earlier, pr=pr, changed=changed, since=REVIEWED)

    def test_an_unchanged_file_unseen_then_is_still_unseen(self):
        """b.py was not seen by the review of A and did not change: partial, with A's reason."""
        earlier = Coverage(
            files_total=3,
            files_in_context=2,
            unseen=(UnseenFile(path="b.py", reason="too big", remedy="raise it"),),
            partial=True,
        )
        now = Coverage(files_total=1, files_in_context=1, partial=False)
        out = self.joined(now, earlier)
        assert out.partial
        assert [(f.path, f.reason) for f in out.unseen] == [
            ("b.py", "at the review of aaaaaaaaaaaa: too big")
        ]

    def test_unchanged_files_seen_then_are_no_gap_and_resolve_nothing(self):
        """Everything seen then and now: not partial, but b.py and c.py (and the whole PR) resolve nothing."""
        earlier = Coverage(files_total=3, files_in_context=3, partial=False)
        now = Coverage(files_total=1, files_in_context=1, partial=False)
        out = self.joined(now, earlier)
        assert not out.partial
        assert out.files_carried == ("b.py", "c.py")
        assert out.covers("a.py")
        assert not out.covers("b.py")
        assert not out.covers(None)

    def test_a_changed_file_nobody_saw_now_is_partial(self):
        """a.py changed and nobody saw it in this run: unseen, partial."""
        earlier = Coverage(files_total=3, files_in_context=3, partial=False)
        now = Coverage(
            files_total=1,
            files_in_context=0,
            unseen=(UnseenFile(path="a.py", reason="budget", remedy="raise it"),),
            partial=True,
        )
        out = self.joined(now, earlier)
        assert out.partial
        assert not out.covers("a.py")
        assert out.files_total == 3
