"""The author's changes since the reviewed head, from a real repository (scope/changes.py)."""

from __future__ import annotations

from pathlib import Path

from reviewbot.scope.changes import authored
from reviewbot.sources.diff_index import LineKind
from reviewbot.sources.git_repo import diff_index, open_repo, push_since
from tests.fakes.gitrepo import make_repo


def lines(n: int, *, changed: dict[int, str] | None = None) -> str:
    out = [f"line {i}" for i in range(1, n + 1)]
    for number, text in (changed or {}).items():
        out[number - 1] = text
    return "\n".join(out) + "\n"


def added(change) -> list[str]:
    return [ln.text for h in change.hunks for ln in h.lines if ln.kind is LineKind.ADDED]


class TestABaseMergeBetween:
    def test_what_the_base_brought_in_is_not_the_authors(self, tmp_path: Path):
        """The author merges main (which changed a.py's line 25 and b.py) and edits line 5:
        only line 5 is the author's new change; b.py is not part of the PR at all."""
        repo = make_repo(
            tmp_path / "r",
            base={"a.py": lines(30), "b.py": lines(5)},
            head={"a.py": lines(30, changed={2: "author A"})},
        )
        reviewed = repo.sha("feature")
        repo.git("checkout", "-q", "main")
        repo.write_files(
            {"a.py": lines(30, changed={25: "base"}), "b.py": lines(5, changed={1: "b"})}
        )
        repo.commit("base moves")
        repo.git("checkout", "-q", "feature")
        repo.git("merge", "-q", "--no-edit", "main")
        repo.write_files({"a.py": lines(30, changed={2: "author A", 5: "author B", 25: "base"})})
        head = repo.commit("author B")
        push = push_since(repo.path, reviewed, head)
        assert not isinstance(push, str)
        assert push.merged
        fork = repo.git("merge-base", "main", head)
        pr = diff_index(open_repo(repo.path), fork, head)
        changed = authored(push.moved, pr, merged=push.merged)
        assert list(changed.files) == ["a.py"]
        assert added(changed.files["a.py"]) == ["author B"]
        assert set(push.moved.files) == {"a.py", "b.py"}  # the whole diff, for mapping lines

    def test_without_a_merge_every_change_on_the_prs_files_counts(self, tmp_path: Path):
        """No merge in between: the push's changes to the PR's files are all the author's,
        even one that puts a line back as the base had it."""
        repo = make_repo(
            tmp_path / "r",
            base={"a.py": lines(30), "c.py": lines(3)},
            head={"a.py": lines(30, changed={2: "author A", 20: "author A2"})},
        )
        reviewed = repo.sha("feature")
        repo.write_files(
            {"a.py": lines(30, changed={2: "author A"}), "c.py": lines(3, changed={1: "c"})}
        )
        head = repo.commit("revert line 20, touch c.py")
        push = push_since(repo.path, reviewed, head)
        assert not isinstance(push, str)
        assert not push.merged
        pr = diff_index(open_repo(repo.path), repo.sha("main"), head)
        changed = authored(push.moved, pr, merged=push.merged)
        assert set(changed.files) == {"a.py", "c.py"}
        assert added(changed.files["a.py"]) == ["line 20"]


class TestForcePush:
    def test_a_head_that_is_not_an_ancestor_is_refused(self, tmp_path: Path):
        """An amended commit: the reviewed head is no ancestor of the new one."""
        repo = make_repo(
            tmp_path / "r", base={"a.py": lines(3)}, head={"a.py": lines(3, changed={1: "x"})}
        )
        reviewed = repo.sha("feature")
        repo.write_files({"a.py": lines(3, changed={1: "y"})})
        repo.git("commit", "-q", "-a", "--amend", "--no-edit")
        why = push_since(repo.path, reviewed, repo.sha("feature"))
        assert isinstance(why, str)
        assert "force-pushed" in why

    def test_a_head_missing_from_the_clone_is_refused(self, tmp_path: Path):
        """A head the clone's history does not hold cannot be mapped: a full review."""
        repo = make_repo(
            tmp_path / "r", base={"a.py": lines(3)}, head={"a.py": lines(3, changed={1: "x"})}
        )
        why = push_since(repo.path, "1" * 40, repo.sha("feature"))
        assert isinstance(why, str)
        assert "not in the clone's history" in why
