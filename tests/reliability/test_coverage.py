"""Coverage decides what may resolve: a push after a confirmed P0, reviewed through the real CLI.

Head A carries `eval` (a P0 the verifier confirms). Head B changes `app.py` again in a way that
keeps its patch out of the model's context. Whether the P0 may be marked resolved depends
only on whether a reviewer saw the file: read in full, it may; a file GitHub sent without a
patch and nobody read whole keeps it standing: the run blocks on it again.
"""

from __future__ import annotations

from typing import Any

from tests.fakes.github_api import FakeFile
from tests.fakes.gitrepo import GitRepo
from tests.fakes.messages_api import Scripted, reply, text, tool_use
from tests.fakes.scenario import BASE_APP, HEAD_APP, finding
from tests.fakes.world import World

CONFIG = "[budget]\ncontext_tokens = 1000\n"
PADDING = "".join(f"PAD_{n} = {n}\n" for n in range(1_000))
FIXED_APP = HEAD_APP.replace("eval(checked)", "checked")


class _NoPatch(FakeFile):
    """A file GitHub lists without a patch (its diff is too large), with its line counts."""

    def counts(self) -> tuple[int, int]:
        return (1_000, 2)


def first_review() -> list[Scripted]:
    return [
        reply(tool_use("add_review_node", finding())),
        reply(text("eval on input.")),
        reply(tool_use("confirm_review_node", {"id": "review-1", "reason": "eval of input"})),
    ]


def read(start: int, end: int) -> Scripted:
    return reply(tool_use("read_file", {"path": "app.py", "start_line": start, "end_line": end}))


def push(world: World, app: str) -> None:
    """Commit `app` as app.py on the feature branch and list the new head as the PR's."""
    repo = GitRepo(world.repo)
    repo.write_files({"app.py": app})
    repo.commit("second push")
    world.seed()


def review_twice(world: World, app: str, second: list[Scripted], *, no_patch: bool) -> Any:
    world.build(base={"app.py": BASE_APP, ".reviewbot.toml": CONFIG})
    world.seed()
    world.serve(*first_review(), *second)
    first = world.review("--post")
    assert first.verdict == "block", first.stderr
    push(world, app)
    if no_patch:
        assert world.pull is not None
        world.pull.files = [
            _NoPatch(filename=f.filename, status=f.status) for f in world.pull.files
        ]
    return world.review("--post")


def read_the_top(world: World, app: str) -> Any:
    """The second review of `app` without a patch, its reviewer reading only the top."""
    run = review_twice(world, app, [read(1, 50), reply(text("Nothing to report."))], no_patch=True)
    assert run.report is not None
    return run


def p0_comment(world: World) -> dict[str, Any]:
    return next(c for c in world.inline_comments() if c["path"] == "app.py")


class TestReadInFull:
    def test_a_file_read_in_full_counts_as_seen_and_may_resolve(self, world: World) -> None:
        """The reviewer reads every line of the padded, fixed file: seen, and the P0 resolves."""
        run = review_twice(
            world,
            FIXED_APP + PADDING,
            [read(1, 520), read(521, 2_000), reply(text("Fixed; the rest is padding."))],
            no_patch=False,
        )
        assert run.report is not None
        coverage = run.report["coverage"]
        assert [f["path"] for f in coverage["files_listed"]] == ["app.py"]
        assert (coverage["partial"], coverage["files_read"]) == (False, ["app.py"])
        assert run.report["published"]["resolved"] == ["review-1"]
        assert p0_comment(world)["body"].startswith("✅ **Resolved**")
        assert world.check_runs()[-1]["conclusion"] == "success"


class TestNoPatch:
    def test_a_file_without_a_patch_read_in_part_resolves_nothing(self, world: World) -> None:
        """GitHub sends no patch; the reviewer reads the top: unseen, the P0 stays open."""
        run = read_the_top(world, HEAD_APP + PADDING)
        coverage = run.report["coverage"]
        assert coverage["partial"] is True
        [unseen] = coverage["unseen"]
        assert unseen["path"] == "app.py"
        assert "no patch" in unseen["reason"]
        assert "reviewbot review --local" in unseen["remedy"]
        assert run.report["published"]["resolved"] == []
        assert "Resolved" not in p0_comment(world)["body"]
        assert run.verdict == "block"  # the confirmed P0 still stands
        assert world.check_runs()[-1]["conclusion"] == "failure"
        summary = world.issue_comments()[0]["body"]
        assert "**Not seen** by any reviewer: `app.py`" in summary

    def test_a_finding_standing_in_an_unseen_file_is_on_its_axis_everywhere(
        self, world: World
    ) -> None:
        """Its line changed, nobody saw app.py: the P0 stands, and every output's axis says so."""
        changed = HEAD_APP.replace("eval(checked)", "eval(checked)  # still")
        run = read_the_top(world, changed + PADDING)
        [standing] = [n for n in run.report["nodes"] if n["status"] == "consensusReady"]
        assert "this run did not see where it is" in standing["notes"][-1]
        assert run.verdict == "block"
        review = next(a for a in run.report["axes"] if a["name"] == "review")
        assert review["outcome"] == "failed"
        assert review["detail"] == "1 finding(s), 1 confirmed by a peer"
        row = "| review | yes | failed | 1 finding(s), 1 confirmed by a peer |"
        assert row in world.issue_comments()[0]["body"]
        assert row in world.check_runs()[-1]["output"]["summary"]
        assert "1 finding(s), 1 confirmed by a peer" in run.stdout
