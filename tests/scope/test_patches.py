"""Which files' PR diffs the last review saw (scope/patches.py)."""

from __future__ import annotations

from reviewbot.memory.markers import MAX_PATCHES_MARKED
from reviewbot.scope.patches import digests, entered, patch_digest, shown_again
from reviewbot.sources.diff_index import FileStatus
from tests.agent.factories import file_diff, index

AUTH = "@@ -1,2 +1,2 @@ def allowed(user):\n def allowed(user):\n-    return user.is_admin\n+    return True"
MOVED = AUTH.replace("@@ -1,2 +1,2 @@", "@@ -11,2 +11,2 @@")
APP = "@@ -1 +1 @@\n-X = 1\n+X = 2"
SINCE = "@@ -1 +1 @@\n-X = 2\n+X = 3"


class TestDigest:
    def test_the_same_change_elsewhere_in_the_file_is_the_same_patch(self):
        """The base moved the hunk down ten lines: the change the review saw is unchanged."""
        assert patch_digest(file_diff("auth.py", AUTH)) == patch_digest(file_diff("auth.py", MOVED))

    def test_another_change_path_or_status_is_another_patch(self):
        """Content, path and status each make the patch another one."""
        base = patch_digest(file_diff("auth.py", AUTH))
        assert base != patch_digest(file_diff("auth.py", AUTH.replace("True", "False")))
        assert base != patch_digest(file_diff("login.py", AUTH))
        assert base != patch_digest(file_diff("auth.py", AUTH, status=FileStatus.ADDED))

    def test_a_file_without_a_patch_has_no_digest(self):
        """GitHub sent no patch: nothing says the review saw this one."""
        assert patch_digest(file_diff("big.py", None)) is None

    def test_a_pr_past_the_cap_records_nothing(self):
        """More files than the marker holds: None, and the next review is full."""
        many = index(*(file_diff(f"f{i}.py", APP) for i in range(MAX_PATCHES_MARKED + 1)))
        assert digests(many) is None
        assert digests(index(file_diff("app.py", APP))) == (patch_digest(file_diff("app.py", APP)),)


class TestShownAgain:
    def test_a_file_whose_pr_diff_is_new_is_shown_whole(self):
        """auth.py did not change since the review but entered the PR: its whole PR patch."""
        pr = index(file_diff("app.py", APP), file_diff("auth.py", AUTH))
        recorded = digests(index(file_diff("app.py", APP))) or ()
        out = shown_again(index(), pr, recorded=recorded, base_moved=False)
        assert list(out.files) == ["auth.py"]
        assert out.files["auth.py"] is pr.files["auth.py"]
        assert entered(index(), pr, recorded=recorded) == ("auth.py",)

    def test_a_file_the_review_saw_as_it_is_is_not(self):
        """The same PR patch as reviewed, nothing since: not shown (its coverage is carried)."""
        pr = index(file_diff("app.py", APP))
        recorded = digests(pr) or ()
        assert len(shown_again(index(), pr, recorded=recorded, base_moved=True)) == 0

    def test_the_changes_since_stand_for_a_touched_file_when_the_base_stayed(self):
        """The author's edit since is what changed in its PR patch: the changes are shown."""
        since = index(file_diff("app.py", SINCE))
        pr = index(file_diff("app.py", APP.replace("X = 2", "X = 3")))
        out = shown_again(since, pr, recorded=(), base_moved=False)
        assert out.files["app.py"] is since.files["app.py"]

    def test_a_touched_file_is_shown_whole_when_the_base_moved(self):
        """The base merged in or changed: the changes since need not show what it changed."""
        since = index(file_diff("app.py", SINCE))
        pr = index(file_diff("app.py", APP.replace("X = 2", "X = 3")))
        out = shown_again(since, pr, recorded=(), base_moved=True)
        assert out.files["app.py"] is pr.files["app.py"]
