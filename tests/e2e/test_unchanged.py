"""A full review's silence about unchanged code resolves nothing, end to end.

The real CLI runs three times on `pull_request` events against the loopback fakes, with
`[review] incremental = false` (every review is full) and a policy under which an open P2
holds. Head A gets two findings (`LEAK` in
app.py, `ZERO` in util.py), posted inline. A push adds `new.py` only and the model raises
nothing: both findings stand, the verdict is A's, no comment is marked resolved and no
thread is resolved. A second push fixes LEAK's own line and the model again raises nothing:
LEAK resolves, its thread too, and ZERO, whose code never changed, still stands.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from tests.e2e.harness import Run, World, pull_request_event
from tests.fakes.scenario import clean
from tests.fakes.two_bugs import APP, BASE, HEAD, LEAK, ZERO, found_both

ARGS = ["review", "--github-event", "--post"]
# Every review is full, and an open P2 holds: the verdict shows whether a finding stood.
CONFIG = (
    "[review]\nincremental = false\n\n"
    '[[policy.rules]]\nstatus = "open"\npriorities = ["P2"]\neffect = "hold"\n'
)
FULL = {".reviewbot.toml": CONFIG}
KEPT = "not raised again, code unchanged: kept"


def standing(run: Run) -> dict[str, str]:
    """Title → the last note of each standing finding in the run's report."""
    return {
        n["title"]: (n["notes"] or [""])[-1]
        for n in run.report()["nodes"]
        if n["status"] in ("open", "consensusReady")
    }


@dataclass(frozen=True, slots=True, kw_only=True)
class Flow:
    world: World
    first: Run
    untouched: Run
    untouched_summary: str
    fixed: Run


@pytest.fixture(scope="module")
def flow(worlds) -> Flow:
    world = worlds(
        "unchanged", base={**FULL, **BASE}, head=HEAD, script=[*found_both(), *clean(), *clean()]
    )
    first = world.run(ARGS, event_name="pull_request", event=pull_request_event(world))
    world.push({"new.py": "VALUE = 1\n"})
    untouched = world.synchronize(ARGS)
    untouched_summary = world.summary()
    world.push({"app.py": APP.replace("open(path).read()", "''")})
    fixed = world.synchronize(ARGS)
    return Flow(
        world=world,
        first=first,
        untouched=untouched,
        untouched_summary=untouched_summary,
        fixed=fixed,
    )


class TestUntouchedFiles:
    def test_both_findings_stand_and_say_why(self, flow):
        """The model raised nothing, the findings' code did not change: both stand, noted."""
        assert flow.untouched.returncode in (0, 1), flow.untouched.stderr
        assert flow.untouched.report()["review"]["kind"] == "full"
        kept = standing(flow.untouched)
        assert set(kept) == {LEAK["title"], ZERO["title"]}
        assert all(note.startswith(KEPT) for note in kept.values()), kept
        assert all("did not change since the review of" in note for note in kept.values())

    def test_the_verdict_is_unchanged(self, flow):
        """Nothing was fixed, so the verdict is the first review's Hold, not greener."""
        assert flow.first.report()["verdict"] == "hold"
        assert flow.untouched.report()["verdict"] == "hold"

    def test_no_comment_and_no_thread_is_resolved(self, flow):
        """No resolution edit, no `resolveReviewThread`, nothing in `published.resolved`."""
        published = flow.untouched.report()["published"]
        assert published["resolved"] == []
        assert flow.untouched.calls("PATCH", "/pulls/comments/") == []
        queries = [r.json()["query"] for r in flow.untouched.calls("POST", "/graphql")]
        assert not any("resolveReviewThread(" in query for query in queries)

    def test_the_summary_says_why_they_were_kept(self, flow):
        """The summary names the rule: carried forward, standing unless raised again."""
        assert "on unchanged code carried forward (each stands unless raised again)" in (
            flow.untouched_summary
        )


class TestTheAnchoredLineChanged:
    def test_the_fixed_finding_resolves_and_the_other_stands(self, flow):
        """LEAK's own line changed and app.py was seen: resolved, its thread too; ZERO stands."""
        run = flow.fixed
        assert run.returncode in (0, 1), run.stderr
        assert set(standing(run)) == {ZERO["title"]}
        published = run.report()["published"]
        leak = next(n["id"] for n in flow.first.report()["nodes"] if n["title"] == LEAK["title"])
        assert published["resolved"] == [leak]
        assert len(published["threads_resolved"]) == 1
