"""Coverage is what the reviewers saw: packed patches and lines their read tools showed in full."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from reviewbot.agent.context import (
    REASON_BINARY,
    REASON_EXCLUDED,
    REASON_NO_PATCH,
    REASON_SUBMODULE,
    pack_context,
)
from reviewbot.agent.panel import run_panel
from reviewbot.agent.progress import SilentProgress
from reviewbot.config.file import BudgetConfig, ReviewConfig
from reviewbot.coverage.model import Coverage, UnseenFile
from reviewbot.coverage.seen import HeadViews
from reviewbot.coverage.unseen import REMEDY_NO_PATCH, REMEDY_UNLISTED, assess
from reviewbot.redact import Redactor
from reviewbot.sources.diff_index import DiffIndex, FileStatus
from reviewbot.tools.ask_user import NoOperator
from tests.agent.factories import FakeClock, client_for, file_diff, index, snapshot
from tests.fakes.messages_api import (
    Failure,
    FakeMessagesAPI,
    reply,
    text,
    tool_use,
    unauthorized,
)

BUDGET = 1_000
SMALL = "@@ -1,2 +1,2 @@\n a = 1\n-b = 2\n+b = 3\n"
# 400 added lines: far more than BUDGET tokens, so it is listed for the budget.
BIG = "@@ -1,2 +1,402 @@\n a = 1\n" + "".join(f"+pad_{n} = {n}\n" for n in range(400)) + " z = 0\n"
BIG_LINES = range(1, 403)  # its head lines: the context line, 400 added, the last context line
SUBMODULE = f"@@ -1 +1 @@\n-Subproject commit {'a' * 40}\n+Subproject commit {'b' * 40}\n"
DELETED = "@@ -1,400 +0,0 @@\n" + "".join(f"-gone_{n} = {n}\n" for n in range(400))


def assess_diff(
    diff: DiffIndex,
    views: HeadViews | None = None,
    *,
    excluded: Callable[[str], bool] = lambda path: False,
) -> Coverage:
    packed = pack_context(
        snapshot(Path("/nonexistent"), diff),
        budget_tokens=BUDGET,
        excluded=excluded,
        redactor=Redactor(),
    )
    return assess(packed, diff, views or HeadViews(), context_tokens=BUDGET)


def shown(path: str, lines: range | list[int], total: int) -> HeadViews:
    views = HeadViews()
    views.show(path, lines, total=total)
    return views


class TestBudget:
    def test_a_file_past_the_budget_nobody_read_is_unseen(self):
        """Not packed, not read: unseen, with the reason and the config key that lets it in."""
        coverage = assess_diff(index(file_diff("a.py", SMALL), file_diff("big.py", BIG)))
        assert coverage.partial is True
        [unseen] = coverage.unseen
        assert unseen.path == "big.py"
        assert "did not fit the context budget" in unseen.reason
        assert unseen.remedy.startswith("raise `[budget] context_tokens` (now 1,000;")
        assert "tokens" in unseen.reason

    def test_reading_every_line_of_the_hunks_makes_it_seen(self):
        """A reviewer shown every head line of the file's hunks saw it: not partial."""
        diff = index(file_diff("a.py", SMALL), file_diff("big.py", BIG))
        coverage = assess_diff(diff, shown("big.py", BIG_LINES, total=402))
        assert (coverage.partial, coverage.unseen, coverage.files_read) == (False, (), ("big.py",))

    @pytest.mark.parametrize(
        "lines",
        [range(1, 21), [n for n in BIG_LINES if n != 200], range(1, 402)],
        ids=["the-top", "all-but-one-line", "all-but-the-last-context-line"],
    )
    def test_a_partial_read_is_not_seen(self, lines):
        """Twenty lines, or all but one, of a padded file: the rest may hide anything."""
        diff = index(file_diff("big.py", BIG))
        coverage = assess_diff(diff, shown("big.py", lines, total=402))
        assert [f.path for f in coverage.unseen] == ["big.py"]

    def test_lines_of_another_file_do_not_count(self):
        """What was shown is per file: the same numbers of another path do not cover it."""
        coverage = assess_diff(index(file_diff("big.py", BIG)), shown("other.py", BIG_LINES, 402))
        assert [f.path for f in coverage.unseen] == ["big.py"]

    def test_a_deletion_past_the_budget_is_unseen_whatever_was_read(self):
        """A deleted file has no head lines: only its packed patch shows it."""
        diff = index(file_diff("old.py", DELETED, status=FileStatus.DELETED))
        coverage = assess_diff(diff, shown("old.py", range(1, 401), total=400))
        [unseen] = coverage.unseen
        assert "deleted" in unseen.reason
        assert "context_tokens" in unseen.remedy

    def test_a_renamed_file_keeps_its_old_path(self):
        """An unseen rename names both paths, so findings under the old name stay open too."""
        diff = index(file_diff("new.py", BIG, status=FileStatus.RENAMED, old_path="old.py"))
        [unseen] = assess_diff(diff).unseen
        assert (unseen.path, unseen.old_path) == ("new.py", "old.py")


class TestNoPatch:
    def test_a_file_github_sent_no_patch_for_must_be_read_whole(self):
        """Without a patch, the hunks are unknown: only the whole file, read, counts."""
        diff = index(file_diff("huge.py", None, additions=5_000, deletions=10))
        assert [f.remedy for f in assess_diff(diff).unseen] == [REMEDY_NO_PATCH]
        half = assess_diff(diff, shown("huge.py", range(1, 2_500), total=5_000))
        assert [f.path for f in half.unseen] == ["huge.py"]
        whole = assess_diff(diff, shown("huge.py", range(1, 5_001), total=5_000))
        assert (whole.partial, whole.files_read) == (False, ("huge.py",))


class TestPolicy:
    def test_binary_submodule_and_excluded_files_are_listed_not_unseen(self):
        """Leaving these out is the config's decision: listed by name, coverage stays full."""
        diff = index(
            file_diff("a.py", SMALL),
            file_diff("logo.png", None, binary=True),
            file_diff("vendor/lib", SUBMODULE, submodule=True),
            file_diff("package-lock.json", BIG),
        )
        coverage = assess_diff(diff, excluded=lambda path: path == "package-lock.json")
        assert {f.path for f in coverage.files_listed} == {
            "logo.png",
            "vendor/lib",
            "package-lock.json",
        }
        assert (coverage.partial, coverage.unseen) == (False, ())

    @pytest.mark.parametrize(
        ("flags", "excluded", "reason"),
        [
            ({}, True, REASON_EXCLUDED),
            ({"binary": True}, False, REASON_BINARY),
            ({"binary": True}, True, REASON_BINARY),
            ({"submodule": True}, False, REASON_SUBMODULE),
            ({"submodule": True}, True, REASON_SUBMODULE),
            ({}, False, REASON_NO_PATCH),
        ],
        ids=["excluded", "binary", "binary-excluded", "submodule", "submodule-excluded", "none"],
    )
    def test_policy_comes_before_a_missing_patch(self, flags, excluded, reason):
        """A huge lockfile is the very file GitHub sends no patch for: excluded, not a gap."""
        diff = index(
            file_diff("a.py", SMALL),
            file_diff("package-lock.json", None, additions=90_000, deletions=80_000, **flags),
        )
        coverage = assess_diff(diff, excluded=lambda path: excluded)
        [listed] = [f for f in coverage.files_listed if f.path == "package-lock.json"]
        assert listed.reason == reason
        gap = reason == REASON_NO_PATCH
        assert (coverage.partial, [f.path for f in coverage.unseen]) == (
            gap,
            ["package-lock.json"] if gap else [],
        )

    def test_a_rename_without_content_change_has_nothing_to_see(self):
        """No hunks, no lines: a listed rename is not a gap."""
        diff = index(
            file_diff("big.py", BIG),
            file_diff("b.py", None, status=FileStatus.RENAMED, old_path="a.py"),
        )
        coverage = assess_diff(diff, shown("big.py", BIG_LINES, total=402))
        assert coverage.partial is False


class TestUnlisted:
    def test_files_github_did_not_list_make_it_partial(self):
        """Past the 3,000-file listing, the unlisted files are counted, with what to do."""
        diff = index(file_diff("a.py", SMALL), listing_truncated=True, total_files=3_001)
        coverage = assess_diff(diff)
        assert (coverage.partial, coverage.files_unlisted, coverage.unseen) == (True, 3_000, ())
        assert any(REMEDY_UNLISTED in note for note in coverage.notes)


def covering(*unseen: UnseenFile, partial: bool = True, unlisted: int = 0) -> Coverage:
    return Coverage(
        files_total=3, files_in_context=1, unseen=unseen, files_unlisted=unlisted, partial=partial
    )


RENAMED = UnseenFile(path="new.py", old_path="old.py", reason="r", remedy="m")


class TestCovers:
    @pytest.mark.parametrize(
        ("coverage", "path", "expected"),
        [
            (covering(partial=False), "a.py", True),
            (covering(partial=False), None, True),
            (covering(RENAMED), "a.py", True),
            (covering(RENAMED), "new.py", False),
            (covering(RENAMED), "old.py", False),
            (covering(RENAMED), None, False),
            (covering(RENAMED, unlisted=5), "a.py", False),
            (covering(), "a.py", False),
            # A marker read back a token-shaped path redacted: it names no file exactly.
            (covering(partial=False), "src/[REDACTED].py", False),
            (covering(RENAMED), "src/[REDACTED].py", False),
        ],
        ids=[
            "full",
            "full-whole-pr",
            "seen-file",
            "unseen-file",
            "unseen-old-name",
            "whole-pr-when-partial",
            "unlisted-files",
            "partial-without-a-file-list",
            "redacted-path-full",
            "redacted-path-partial",
        ],
    )
    def test_covers(self, coverage, path, expected):
        """Only where the run saw may an earlier finding count as fixed; unknown gaps cover nothing."""
        assert coverage.covers(path) is expected


BIG_HEAD = "a = 1\n" + "".join(f"pad_{n} = {n}\n" for n in range(400)) + "z = 0\n"
P1_ON_A = {
    "kind": "bug",
    "priority": "P1",
    "confidence": 0.9,
    "title": "b changed",
    "body": "b is 3 now.",
    "anchor": {"path": "a.py", "start_line": 2, "end_line": 2, "quote": "b = 3"},
}


class TestPanel:
    """Through run_panel: the reviewers' reads are the coverage, the verifier's are not."""

    @pytest.fixture
    def checkout(self, tmp_path: Path) -> Path:
        (tmp_path / "a.py").write_text("a = 1\nb = 3\n")
        (tmp_path / "big.py").write_text(BIG_HEAD)
        return tmp_path

    def panel(self, checkout: Path, fake: FakeMessagesAPI) -> Coverage:
        config = ReviewConfig(budget=BudgetConfig(context_tokens=BUDGET))
        diff = index(file_diff("a.py", SMALL), file_diff("big.py", BIG))
        outcome = run_panel(
            snapshot(checkout, diff, config=config),
            config,
            client=client_for(fake),
            operator=NoOperator(),
            redactor=Redactor(),
            progress=SilentProgress(),
            excluded=lambda path: False,
            clock=FakeClock(),
        )
        return outcome.coverage

    def test_a_reviewer_reading_the_file_whole_covers_it(self, checkout, messages_api):
        """The reviewer reads big.py in full: nothing unseen."""
        fake = messages_api(
            reply(tool_use("read_file", {"path": "big.py"})),
            reply(text("Padding only.")),
        )
        coverage = self.panel(checkout, fake)
        assert (coverage.partial, coverage.files_read) == (False, ("big.py",))

    def test_the_verifiers_reads_do_not_count(self, checkout, messages_api):
        """Only the verifier reads big.py: the reviewers never saw it, so it stays unseen."""
        fake = messages_api(
            reply(tool_use("add_review_node", P1_ON_A)),
            reply(text("One finding.")),
            reply(tool_use("read_file", {"path": "big.py"})),
            reply(text("Looked around.")),
        )
        coverage = self.panel(checkout, fake)
        assert [f.path for f in coverage.unseen] == ["big.py"]


class TestNoReviewerGotTheContext:
    """Packed files count as seen only by a reviewer whose first request was answered."""

    @pytest.fixture
    def checkout(self, tmp_path: Path) -> Path:
        (tmp_path / "a.py").write_text("a = 1\nb = 3\n")
        return tmp_path

    def panel(self, checkout: Path, client, **budget: int) -> Coverage:
        config = ReviewConfig(budget=BudgetConfig(context_tokens=BUDGET, **budget))
        diff = index(
            file_diff("a.py", SMALL),
            file_diff("big.py", BIG),
            file_diff("logo.png", None, binary=True),
        )
        return run_panel(
            snapshot(checkout, diff, config=config),
            config,
            client=client,
            operator=NoOperator(),
            redactor=Redactor(),
            progress=SilentProgress(),
            excluded=lambda path: False,
            clock=FakeClock(),
        ).coverage

    def test_without_a_client_every_text_file_is_unseen(self, checkout):
        """No key: nothing was reviewed, the packed a.py included; the binary stays policy."""
        coverage = self.panel(checkout, None)
        assert coverage.partial is True
        assert coverage.files_in_context == 0
        assert [f.path for f in coverage.unseen] == ["a.py", "big.py"]
        assert all("ANTHROPIC_API_KEY is not set" in f.reason for f in coverage.unseen)
        assert all("ANTHROPIC_API_KEY" in f.remedy for f in coverage.unseen)

    def test_a_refused_key_is_the_reason(self, checkout, messages_api):
        """A 401 on the first request: the model never got the context."""
        coverage = self.panel(checkout, client_for(messages_api(unauthorized())))
        assert [f.path for f in coverage.unseen] == ["a.py", "big.py"]
        assert all("the request to the model failed" in f.reason for f in coverage.unseen)
        assert all("ANTHROPIC_API_KEY" in f.reason for f in coverage.unseen)

    def test_a_first_request_never_sent_is_the_reason(self, checkout, messages_api):
        """The input budget is smaller than the first request: nothing reached a model."""
        coverage = self.panel(checkout, client_for(messages_api()), max_input_tokens=1_000)
        assert [f.path for f in coverage.unseen] == ["a.py", "big.py"]
        assert all(
            "no request was sent to the model (max_input_tokens" in f.reason
            for f in coverage.unseen
        )

    def test_one_answered_request_is_enough(self, checkout, messages_api):
        """The first request was answered, then the API failed: the packed file was seen."""
        fake = messages_api(
            reply(tool_use("read_file", {"path": "a.py"})),
            Failure(400, "invalid_request_error", "bad request"),
        )
        coverage = self.panel(checkout, client_for(fake))
        assert coverage.files_in_context == 1
        assert [f.path for f in coverage.unseen] == ["big.py"]
