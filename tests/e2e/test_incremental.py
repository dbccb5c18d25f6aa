"""Incremental review on push, end to end.

Each flow runs the real CLI twice or more against the loopback GitHub and Messages API
fakes, on heads pushed to a real repository:

- carry: head A gets two findings, one in `app.py` and one in `util.py`. A push inserts
  lines above the first (its lines move, their text does not) and changes the lines of
  the second, and adds `new.py`. The second review is incremental: the agents get only
  the changes since A, the first finding is carried forward re-anchored without a model
  call, the second is shown to be re-judged and, not raised again on a file that was
  seen, is resolved.
- force: A is reviewed, then the branch is rewritten (amended): the old head is not an
  ancestor of the new one, so the review is full.
- full: after a push, `/review full` by the PR's author changes nothing (incremental);
  by a maintainer it makes the next review full; the push after that is incremental
  again (the command is older than the last review).
- merged: the author merges the base branch (which changed a line of `app.py` far from the
  PR's change, and added `base_only.py`) and edits `util.py`: the agents get the author's
  edit only, not what the merge brought in.
- partial: with a small context budget A's review could not see `big.py`; a push adds
  `huge.py`, which does not fit either. The incremental review's coverage is partial:
  `huge.py` unseen in this run, `big.py` unseen since A (it did not change) — and the
  check run fails, never a clean pass.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import pytest

from tests.fakes.gitrepo import git
from tests.fakes.runs import Run, context_of
from tests.fakes.scenario import clean
from tests.fakes.two_bugs import APP, BASE, HEAD, LEAK, ZERO, found_both
from tests.fakes.webhooks import issue_comment_event, pull_request_event
from tests.fakes.world import AUTHOR, REPO, World

ARGS = ["review", "--github-event", "--post"]
PUSHED = {
    "app.py": "import os\n\n\n" + APP,  # LEAK's line moves from 2 to 5, its text unchanged
    "util.py": "def ratio(a, b):\n    return a / b if b else 0.0\n",  # ZERO's line changes
    "new.py": "VALUE = 1\n",
}


def merge_base_in(world: World, app: str) -> None:
    """The base branch moves (far from the PR's change), the author merges it and edits util.py."""
    repo = world.repo
    git(repo, "checkout", "-q", "main")
    (repo / "app.py").write_text(
        app.replace("return 11", "return 'from the base'"), encoding="utf-8"
    )
    (repo / "base_only.py").write_text("BASE_ONLY = True\n", encoding="utf-8")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "base moves")
    git(repo, "checkout", "-q", "feature")
    git(repo, "merge", "-q", "--no-edit", "main")
    (repo / "util.py").write_text(
        "def ratio(a, b):\n    return a / b  # the author's\n", encoding="utf-8"
    )
    git(repo, "commit", "-q", "-am", "after the merge")
    world.seed()


def review_of(run: Run) -> dict:
    assert run.returncode in (0, 1), run.stderr
    return dict(run.report()["review"])


@dataclass(frozen=True, slots=True, kw_only=True)
class Flows:
    carry_a: Run
    carry_b: Run
    carry_a_sha: str
    carry: World
    force_a: Run
    force_b: Run
    force_a_sha: str
    force: World
    author_asked: Run
    maintainer_asked: Run
    after_full: Run
    full: World
    partial_a: Run
    partial_b: Run
    merged_b: Run


@pytest.fixture(scope="module")
def flows(worlds) -> Flows:
    carry = worlds("carry", base=BASE, head=HEAD, script=[*found_both(), *clean()])
    force = worlds("force", base=BASE, head=HEAD, script=[*clean(), *clean()])
    full = worlds(
        "full",
        base=BASE,
        head=HEAD,
        script=[*clean(), *clean(), *clean(), *clean()],
        permissions={AUTHOR: "write", "maintainer": "write"},
    )
    small_budget = {".reviewbot.toml": "[budget]\ncontext_tokens = 4000\n", **BASE}
    big = "".join(f"line_{i} = {i} * 2  # a long enough line to cost tokens\n" for i in range(700))
    partial = worlds(
        "partial",
        base=small_budget,
        head={**HEAD, "big.py": big},
        script=[*clean(), *clean()],
    )
    long_app = {
        "app.py": BASE["app.py"] + "".join(f"\n\ndef f{i}():\n    return {i}\n" for i in range(12))
    }
    merged = worlds(
        "merged",
        base={**BASE, **long_app},
        head={"app.py": long_app["app.py"].replace("return ''", "return open(path).read()")},
        script=[*clean(), *clean()],
    )
    started = [
        w.start(ARGS, event_name="pull_request", event=pull_request_event(w))
        for w in (carry, force, full, partial, merged)
    ]
    carry_a, force_a, full_a, partial_a, _ = (p.wait() for p in started)
    merge_base_in(merged, long_app["app.py"])
    assert full_a.returncode == 0, full_a.stderr

    carry_a_sha, force_a_sha = carry.pull.head_sha, force.pull.head_sha
    carry.push(PUSHED)
    force.push({"util.py": "def ratio(a, b):\n    return a // b\n"}, amend=True)
    full.push({"new.py": "VALUE = 1\n"})
    partial.push({"huge.py": big.replace("line_", "huge_"), "new.py": "VALUE = 1\n"})
    # The PR's author asks for a full review: not entitled (as for /confirm), so ignored.
    full.github.add_issue_comment(REPO, full.pull.number, "/review full", AUTHOR, "MEMBER")
    started = [
        w.start(ARGS, event_name="pull_request", event=pull_request_event(w, action="synchronize"))
        for w in (carry, force, full, partial, merged)
    ]
    carry_b, force_b, author_asked, partial_b, merged_b = (p.wait() for p in started)

    # A maintainer asks on the same head: a full review, through the issue_comment event.
    full.github.add_issue_comment(REPO, full.pull.number, "/review full", "maintainer", "MEMBER")
    maintainer_asked = full.run(
        ARGS,
        event_name="issue_comment",
        event=issue_comment_event(full, login="maintainer", body="/review full"),
    )
    full.push({"newer.py": "OTHER = 2\n"})
    after_full = full.synchronize(ARGS)
    return Flows(
        carry_a=carry_a,
        carry_b=carry_b,
        carry_a_sha=carry_a_sha,
        carry=carry,
        force_a=force_a,
        force_b=force_b,
        force_a_sha=force_a_sha,
        force=force,
        author_asked=author_asked,
        maintainer_asked=maintainer_asked,
        after_full=after_full,
        full=full,
        partial_a=partial_a,
        partial_b=partial_b,
        merged_b=merged_b,
    )


class TestCarriedForward:
    def test_the_first_review_is_full(self, flows):
        """A PR with no earlier review gets a full review, and says so."""
        review = review_of(flows.carry_a)
        assert review["kind"] == "full"
        assert review["reason"] == "no earlier review of this PR"

    def test_the_push_is_reviewed_incrementally_since_a(self, flows):
        """After a push that only added commits, the review is incremental since A."""
        review = review_of(flows.carry_b)
        assert review["kind"] == "incremental", review
        assert review["since"] == flows.carry_a_sha
        assert (review["carried"], review["rejudged"]) == (1, 1)

    def test_the_agents_get_only_the_changes_since_a(self, flows):
        """The context holds the changes since A (the inserted import), not A's own patch."""
        context = context_of(flows.carry_b)
        assert "An incremental review: the changes since the last review" in context
        assert "+ import os" in context
        assert "VALUE = 1" in context
        assert "+     return open(path).read()" not in context  # A's change, reviewed then

    def test_the_unchanged_finding_is_carried_forward_re_anchored(self, flows):
        """LEAK's lines moved from 2 to 5 with the same text: carried, on line 5, no model call."""
        nodes = {n["title"]: n for n in flows.carry_b.report()["nodes"]}
        leak = nodes[LEAK["title"]]
        assert leak["id"].startswith(flows.carry_a_sha[:12] + ":")
        assert (leak["anchor"]["start_line"], leak["anchor"]["end_line"]) == (5, 5)
        assert leak["status"] == "open"
        assert leak["fingerprint"] == next(
            n["fingerprint"] for n in flows.carry_a.report()["nodes"] if n["title"] == LEAK["title"]
        )
        since = context_of(flows.carry_b).partition("# An incremental review")[2]
        assert since
        assert LEAK["title"] not in since  # not among the findings to re-judge

    def test_the_finding_on_changed_lines_is_shown_to_re_judge(self, flows):
        """ZERO's line changed: it is in the context with the lines it was anchored on."""
        context = context_of(flows.carry_b)
        assert "Earlier findings on lines this push changed (1)" in context
        assert ZERO["title"] in context
        assert "    return a / b" in context

    def test_the_re_judged_finding_not_raised_again_is_resolved(self, flows):
        """util.py was seen in this run and the agents did not raise ZERO again: resolved."""
        report = flows.carry_b.report()
        assert ZERO["title"] not in [n["title"] for n in report["nodes"]]
        assert len(report["published"]["resolved"]) == 1

    def test_the_carried_finding_is_not_posted_again(self, flows):
        """The carried finding is already on the PR: no second inline comment."""
        comments = flows.carry.github.repo(REPO).review_comments[flows.carry.pull.number]
        assert sum(1 for c in comments if LEAK["title"] in c["body"]) == 1

    def test_the_summary_says_incremental_since_a(self, flows):
        """The summary comment names the kind and the head it counted from."""
        summary = flows.carry.summary()
        assert f"Incremental review: the changes since `{flows.carry_a_sha[:12]}`" in summary


class TestForcePush:
    def test_a_rewritten_branch_gets_a_full_review(self, flows):
        """The old head is not an ancestor of the amended one: a full review, saying why."""
        review = review_of(flows.force_b)
        assert review["kind"] == "full"
        assert flows.force_a_sha[:12] in review["reason"]
        assert "force-push" in review["reason"]

    def test_the_full_review_packs_every_file(self, flows):
        """A full review's context is the whole PR, not the changes since A."""
        context = context_of(flows.force_b)
        assert "An incremental review" not in context
        assert "return open(path).read()" in context

    def test_the_summary_says_full(self, flows):
        """The summary names the full review and its reason."""
        assert "Full review (" in flows.force.summary()
        assert "force-push" in flows.force.summary()


class TestReviewFull:
    def test_the_authors_request_is_ignored(self, flows):
        """`/review full` by the PR's author does not count (the /confirm rule): incremental."""
        assert review_of(flows.author_asked)["kind"] == "incremental"
        # …and the summary comment it posted says so, as it does for an ignored /confirm.
        summary = next(
            json.loads(r.body)["body"]
            for r in flows.author_asked.writes()
            if "/issues/" in r.path and b"reviewbot:summary" in r.body
        )
        assert "Ignored `/review full` by `" in summary
        assert "is the PR's author" in summary

    def test_a_maintainers_request_gives_a_full_review(self, flows):
        """`/review full` by someone with write access: the next review is full, saying why."""
        review = review_of(flows.maintainer_asked)
        assert review["kind"] == "full"
        assert "`/review full` was asked" in review["reason"]

    def test_the_request_counts_once(self, flows):
        """The push after the full review is incremental again: the command is older."""
        review = review_of(flows.after_full)
        assert review["kind"] == "incremental", review
        assert review["since"] == flows.maintainer_asked.report()["pr"]["head_sha"]


class TestBaseMergedIn:
    def test_the_push_with_a_merge_is_incremental(self, flows):
        """A merge of the base branch is no rewrite: the reviewed head is still an ancestor."""
        assert review_of(flows.merged_b)["kind"] == "incremental"

    def test_the_agents_get_the_authors_change_not_the_bases(self, flows):
        """util.py's edit is in the context; the base's line and file are not."""
        context = context_of(flows.merged_b).partition("## Patches")[2]
        assert "# the author's" in context
        assert "from the base" not in context
        assert "BASE_ONLY" not in context


class TestPartialCoverage:
    def test_the_first_review_could_not_see_big_py(self, flows):
        """A's review is partial: big.py did not fit the context budget."""
        coverage = flows.partial_a.report()["coverage"]
        assert coverage["partial"] is True
        assert [f["path"] for f in coverage["unseen"]] == ["big.py"]

    def test_a_changed_file_nobody_saw_makes_the_push_partial(self, flows):
        """huge.py changed since A and no agent saw it: unseen; big.py stays unseen since A."""
        report = flows.partial_b.report()
        assert report["review"]["kind"] == "incremental"
        unseen = {f["path"]: f["reason"] for f in report["coverage"]["unseen"]}
        assert set(unseen) == {"huge.py", "big.py"}
        assert unseen["big.py"].startswith("at the review of ")
        assert report["coverage"]["partial"] is True
        assert "app.py" in report["coverage"]["files_carried"]

    def test_the_partial_push_is_never_a_clean_pass(self, flows):
        """The check run of the partial incremental review fails."""
        posted = flows.partial_b.calls("POST", f"/repos/{REPO}/check-runs")
        assert [p.json()["conclusion"] for p in posted] == ["failure"]
