"""Event planning over GitHub's real webhook payloads (tests/data/github-webhooks, MIT)."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reviewbot.commands.grammar import Unknown
from reviewbot.errors import UsageError
from reviewbot.github.event import EventPlan, PlanAction, plan_event, plan_event_json

WEBHOOKS = Path(__file__).resolve().parents[1] / "data" / "github-webhooks"
REPO = "Codertocat/Hello-World"
SHA = "ec26c3e57ca3a959ca5aad62de7213c562f8c821"
REVIEW, REFOLD, SKIP = PlanAction.REVIEW, PlanAction.REFOLD, PlanAction.SKIP
PR2 = {"repo": REPO, "number": 2, "numbers": (2,), "head_sha": SHA}
PR2_BY = {**PR2, "actor": "Codertocat"}


def load(name: str) -> dict[str, Any]:
    return json.loads((WEBHOOKS / name).read_text(encoding="utf-8"))


def event_name(file_name: str) -> str:
    return file_name.split(".")[0]


# file → the plan reviewbot must make for it (action, reason, then the other fields)
EXPECTED: dict[str, EventPlan] = {
    "pull_request.opened.payload.json": EventPlan(
        action=REVIEW, trigger="pull_request", reason="pull_request opened on #2", **PR2_BY
    ),
    "pull_request.opened.with-null-body.json": EventPlan(
        action=REVIEW, trigger="pull_request", reason="pull_request opened on #2", **PR2_BY
    ),
    "pull_request.synchronize.payload.json": EventPlan(
        action=REVIEW, trigger="pull_request", reason="pull_request synchronize on #2", **PR2_BY
    ),
    "pull_request.reopened.payload.json": EventPlan(
        action=REVIEW, trigger="pull_request", reason="pull_request reopened on #2", **PR2_BY
    ),
    "pull_request.ready_for_review.payload.json": EventPlan(
        action=REVIEW,
        trigger="pull_request",
        reason="pull_request ready_for_review on #2",
        **PR2_BY,
    ),
    "pull_request.closed.payload.json": EventPlan(
        action=SKIP,
        trigger="pull_request",
        reason="pull_request closed: nothing to review",
        **PR2_BY,
    ),
    "pull_request.converted_to_draft.payload.json": EventPlan(
        action=SKIP,
        trigger="pull_request",
        reason="pull_request converted_to_draft: nothing to review",
        **PR2_BY,
    ),
    "pull_request.labeled.payload.json": EventPlan(
        action=SKIP,
        trigger="pull_request",
        reason="pull_request labeled: nothing to review",
        **PR2_BY,
    ),
    "issue_comment.created.payload.json": EventPlan(
        action=SKIP,
        trigger="issue_comment",
        reason="#1 is an issue, not a pull request",
        repo=REPO,
        number=1,
        numbers=(1,),
        actor="Codertocat",
    ),
    "issue_comment.created.1.payload.json": EventPlan(
        action=SKIP,
        trigger="issue_comment",
        reason="#1 is an issue, not a pull request",
        repo=REPO,
        number=1,
        numbers=(1,),
        actor="Codertocat",
    ),
    "check_suite.completed.payload.json": EventPlan(
        action=REFOLD,
        trigger="check_suite",
        reason="CI finished (success) on ec26c3e: re-fold the verdict",
        **PR2,
    ),
    "check_run.completed.payload.json": EventPlan(
        action=SKIP, trigger="check_run", reason="reviewbot does not act on check_run events"
    ),
    "pull_request_review.submitted.payload.json": EventPlan(
        action=SKIP,
        trigger="pull_request_review",
        reason="reviewbot does not act on pull_request_review events",
    ),
    "pull_request_review_comment.created.payload.json": EventPlan(
        action=SKIP,
        trigger="pull_request_review_comment",
        reason="the review comment starts a thread: commands are replies",
        repo=REPO,
        number=2,
        numbers=(2,),
        head_sha="ec26c3e57ca3a959ca5aad62de7213c562f8c821",
        actor="Codertocat",
    ),
    "pull_request_review_thread.resolved.payload.json": EventPlan(
        action=SKIP,
        trigger="pull_request_review_thread",
        reason="reviewbot does not act on pull_request_review_thread events",
    ),
}


class TestRealPayloads:
    def test_every_stored_payload_has_an_expected_plan(self):
        """No payload in the data folder goes untested (LICENSE is the only other file)."""
        stored = {p.name for p in WEBHOOKS.iterdir()} - {"LICENSE"}
        assert stored == set(EXPECTED)

    def test_the_payloads_ship_with_their_license(self):
        """The fixtures are MIT-licensed and carry that license beside them."""
        assert "MIT License" in (WEBHOOKS / "LICENSE").read_text(encoding="utf-8")

    @pytest.mark.parametrize("file_name", sorted(EXPECTED), ids=sorted(EXPECTED))
    def test_plan(self, file_name):
        """Each real payload yields exactly the expected plan."""
        assert plan_event(event_name(file_name), load(file_name)) == EXPECTED[file_name]

    @pytest.mark.parametrize("file_name", sorted(EXPECTED), ids=sorted(EXPECTED))
    def test_plan_from_raw_json_text(self, file_name):
        """Planning from the raw event file text gives the same plan."""
        text = (WEBHOOKS / file_name).read_text(encoding="utf-8")
        assert plan_event_json(event_name(file_name), text) == EXPECTED[file_name]


def opened(**pull_request: Any) -> dict[str, Any]:
    payload = load("pull_request.opened.payload.json")
    payload["pull_request"].update(pull_request)
    return payload


class TestPullRequest:
    def test_pull_request_target_plans_like_pull_request(self):
        """pull_request_target is reviewed the same way; the trigger records which it was."""
        plan = plan_event("pull_request_target", load("pull_request.opened.payload.json"))
        assert (plan.action, plan.trigger, plan.number) == (REVIEW, "pull_request_target", 2)

    def test_draft_is_planned_for_the_config_to_decide(self):
        """A draft is planned as a review: the base branch's publish.review_drafts decides later."""
        assert plan_event("pull_request", opened(draft=True)).action is REVIEW

    def test_synchronize_on_a_closed_pr_is_skipped(self):
        """A review action on a PR that is no longer open is skipped."""
        payload = load("pull_request.synchronize.payload.json")
        payload["pull_request"]["state"] = "closed"
        plan = plan_event("pull_request", payload)
        assert (plan.action, plan.reason) == (SKIP, "pull request #2 is closed")


def pr_comment(body: str | None, association: str = "OWNER", **changes: Any) -> dict[str, Any]:
    """The real issue_comment payload, moved onto a pull request."""
    payload = load("issue_comment.created.payload.json")
    payload["issue"]["pull_request"] = {
        "url": "https://api.github.com/repos/Codertocat/Hello-World/pulls/1"
    }
    payload["comment"]["body"] = body
    payload["comment"]["author_association"] = association
    payload.update(changes)
    return payload


class TestIssueComment:
    @pytest.mark.parametrize(
        "body",
        ["/review", "/review  \n", "/review please, security focus", "/review\tnow"],
        ids=["bare", "padded", "with-words", "tab"],
    )
    def test_review_command_from_a_trusted_author(self, body):
        """`/review` at the start of a comment by the owner asks for a review of that PR."""
        plan = plan_event("issue_comment", pr_comment(body))
        assert plan == EventPlan(
            action=REVIEW,
            trigger="issue_comment",
            reason="/review by Codertocat (OWNER) on #1",
            repo=REPO,
            number=1,
            numbers=(1,),
            actor="Codertocat",
        )

    @pytest.mark.parametrize("association", ["MEMBER", "COLLABORATOR"], ids=str.lower)
    def test_members_and_collaborators_may_ask(self, association):
        """MEMBER and COLLABORATOR are trusted like OWNER."""
        assert plan_event("issue_comment", pr_comment("/review", association)).action is REVIEW

    @pytest.mark.parametrize(
        "association",
        ["CONTRIBUTOR", "FIRST_TIME_CONTRIBUTOR", "FIRST_TIMER", "MANNEQUIN", "NONE"],
        ids=str.lower,
    )
    def test_others_are_ignored_with_a_reason(self, association):
        """Anyone else's `/review` is skipped, and the reason names them and the rule."""
        plan = plan_event("issue_comment", pr_comment("/review", association))
        assert plan.action is SKIP
        assert plan.reason == (
            f"/review from Codertocat ({association}) is ignored: "
            "only an OWNER, MEMBER or COLLABORATOR may ask"
        )

    @pytest.mark.parametrize(
        "body",
        [
            "please /review",
            "LGTM",
            "",
            None,
            "/ review",
            "/usr/bin/env fails",
            "thanks\n/review",
            "  /review",
        ],
        ids=[
            "not-first",
            "other",
            "empty",
            "null",
            "spaced",
            "a-path",
            "not-first-line",
            "indented",
        ],
    )
    def test_other_comments_are_skipped(self, body):
        """Only a comment that starts with a `/word`, at its first character, is a command."""
        plan = plan_event("issue_comment", pr_comment(body))
        assert (plan.action, plan.reason) == (
            SKIP,
            "the comment is not a command (it does not start with a /word)",
        )

    def test_a_longer_word_is_an_unknown_command(self):
        """`/reviewer` is not `/review`: it is answered as an unknown command, never reviewed."""
        plan = plan_event("issue_comment", pr_comment("/reviewer"))
        assert plan.action is PlanAction.ANSWER
        assert isinstance(plan.command, Unknown)
        assert plan.command.word == "/reviewer"

    def test_bot_comments_are_ignored(self):
        """A bot (for instance reviewbot itself) cannot trigger a review."""
        payload = pr_comment("/review")
        payload["comment"]["user"]["type"] = "Bot"
        plan = plan_event("issue_comment", payload)
        assert (plan.action, plan.reason) == (SKIP, "/review from the bot Codertocat is ignored")

    @pytest.mark.parametrize("action", ["edited", "deleted"], ids=str)
    def test_only_new_comments_count(self, action):
        """Editing an old comment into `/review` does not trigger a review."""
        plan = plan_event("issue_comment", pr_comment("/review", action=action))
        assert plan.action is SKIP
        assert plan.reason == f"comment {action}: only new comments can ask for a review"

    def test_closed_pr_is_skipped(self):
        """`/review` on a closed PR is skipped."""
        payload = pr_comment("/review")
        payload["issue"]["state"] = "closed"
        plan = plan_event("issue_comment", payload)
        assert (plan.action, plan.reason) == (SKIP, "pull request #1 is closed")


def suite(**changes: Any) -> dict[str, Any]:
    payload = load("check_suite.completed.payload.json")
    payload.update({k: v for k, v in changes.items() if k == "action"})
    payload["check_suite"].update({k: v for k, v in changes.items() if k != "action"})
    return payload


class TestCheckSuite:
    def test_several_prs_are_all_refolded(self):
        """A suite on a commit shared by several PRs names them all; `number` stays unset."""
        payload = suite()
        other = copy.deepcopy(payload["check_suite"]["pull_requests"][0])
        other["number"] = 7
        payload["check_suite"]["pull_requests"].insert(0, other)
        plan = plan_event("check_suite", payload)
        assert (plan.action, plan.numbers, plan.number) == (REFOLD, (2, 7), None)

    def test_suite_without_prs_is_skipped(self):
        """GitHub lists no PR for a fork's suite: nothing to refold, and the reason says so."""
        plan = plan_event("check_suite", suite(pull_requests=[]))
        assert (plan.action, plan.reason) == (
            SKIP,
            "the check suite on ec26c3e names no pull request",
        )

    @pytest.mark.parametrize("action", ["requested", "rerequested"], ids=str)
    def test_unfinished_suites_are_skipped(self, action):
        """Only a completed suite changes the CI axis."""
        plan = plan_event("check_suite", suite(action=action))
        assert (plan.action, plan.reason) == (
            SKIP,
            f"check_suite {action}: the CI result is not final",
        )


def workflow_run(**run: Any) -> dict[str, Any]:
    """A workflow_run payload built from the real PR payload's repositories."""
    action = run.pop("action", "completed")
    base = load("pull_request.opened.payload.json")
    pr = base["pull_request"]
    fields: dict[str, Any] = {
        "name": "reviewbot snapshot",
        "event": "pull_request",
        "status": "completed",
        "conclusion": "success",
        "head_sha": SHA,
        "head_repository": pr["head"]["repo"],
        "triggering_actor": base["sender"],
        "pull_requests": [
            {
                "number": 2,
                "head": {"sha": SHA, "repo": {"id": pr["head"]["repo"]["id"]}},
                "base": {"sha": pr["base"]["sha"], "repo": {"id": pr["base"]["repo"]["id"]}},
            }
        ],
    }
    fields.update(run)
    return {
        "action": action,
        "workflow_run": fields,
        "repository": base["repository"],
        "sender": base["sender"],
    }


class TestWorkflowRun:
    def test_successful_snapshot_run_is_reviewed(self):
        """A completed, successful PR run means: review its snapshot, for that head SHA."""
        plan = plan_event("workflow_run", workflow_run())
        assert plan == EventPlan(
            action=REVIEW,
            trigger="workflow_run",
            reason="reviewbot snapshot succeeded for ec26c3e: review its snapshot",
            actor="Codertocat",
            **PR2,
        )

    def test_fork_run_has_no_pr_number(self):
        """For a fork GitHub lists no PR: the plan is a review of unknown number (the snapshot names it)."""
        fork = {**workflow_run()["workflow_run"]["head_repository"], "id": 999}
        plan = plan_event("workflow_run", workflow_run(head_repository=fork, pull_requests=[]))
        assert (plan.action, plan.number, plan.numbers) == (REVIEW, None, ())

    @pytest.mark.parametrize(
        ("changes", "reason"),
        [
            (
                {"conclusion": "failure"},
                "reviewbot snapshot concluded failure: no snapshot to review",
            ),
            (
                {"conclusion": None},
                "reviewbot snapshot concluded without a result: no snapshot to review",
            ),
            ({"event": "push"}, "reviewbot snapshot ran for a push event, not a pull request"),
            ({"action": "requested"}, "workflow_run requested: wait for the run to complete"),
        ],
        ids=["failed", "no-conclusion", "push", "requested"],
    )
    def test_runs_that_cannot_be_reviewed_are_skipped(self, changes, reason):
        """Unfinished, failed or non-PR runs are skipped with the reason."""
        plan = plan_event("workflow_run", workflow_run(**changes))
        assert (plan.action, plan.reason) == (SKIP, reason)


class TestMalformed:
    @pytest.mark.parametrize(
        ("name", "file_name", "message"),
        [
            (
                "pull_request",
                "issue_comment.created.payload.json",
                "the event payload does not match a pull_request event: pull_request: Field required",
            ),
            (
                "issue_comment",
                "pull_request.opened.payload.json",
                "the event payload does not match a issue_comment event: issue: Field required (and 1 more)",
            ),
            (
                "check_suite",
                "check_run.completed.payload.json",
                "the event payload does not match a check_suite event: check_suite: Field required",
            ),
            (
                "workflow_run",
                "check_suite.completed.payload.json",
                "the event payload does not match a workflow_run event: workflow_run: Field required",
            ),
        ],
        ids=["pr-from-comment", "comment-from-pr", "suite-from-run", "run-from-suite"],
    )
    def test_payload_of_another_event_is_a_usage_error(self, name, file_name, message):
        """A payload that is not what the event name says fails with one clear line."""
        with pytest.raises(UsageError) as caught:
            plan_event(name, load(file_name))
        assert str(caught.value) == message

    def test_wrong_type_names_the_field(self):
        """A field of the wrong type is named with its path."""
        payload = load("pull_request.opened.payload.json")
        payload["pull_request"]["number"] = "two"
        with pytest.raises(
            UsageError, match=r"^the event payload does not match a pull_request event: "
        ):
            plan_event("pull_request", payload)

    @pytest.mark.parametrize("payload", [[], "x", 3, None], ids=["list", "str", "int", "null"])
    def test_non_object_payload_is_a_usage_error(self, payload):
        """A JSON value that is not an object is refused in one line."""
        with pytest.raises(
            UsageError, match=r"^the pull_request event payload must be a JSON object$"
        ):
            plan_event("pull_request", payload)

    def test_invalid_json_text_is_a_usage_error(self):
        """A truncated event file is a usage error, not a traceback."""
        with pytest.raises(
            UsageError, match=r"^the pull_request event payload is not valid JSON: "
        ):
            plan_event_json("pull_request", '{"action": ')

    def test_unknown_event_with_any_object_is_a_skip(self):
        """An event reviewbot does not handle never raises, whatever its payload."""
        plan = plan_event("push", {"anything": [1, 2]})
        assert plan == EventPlan(
            action=SKIP, trigger="push", reason="reviewbot does not act on push events"
        )

    def test_plan_is_frozen(self):
        """An EventPlan cannot be changed after it is made."""
        plan = plan_event("push", {})
        with pytest.raises(AttributeError):
            plan.action = REVIEW  # type: ignore[misc]


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),
    max_leaves=12,
)
EVENT_NAMES = st.sampled_from(
    ["pull_request", "pull_request_target", "issue_comment", "check_suite", "workflow_run", "push"]
)


def outcome(name, payload) -> EventPlan | UsageError:
    """The plan, or the UsageError planning raised (any other exception propagates)."""
    try:
        return plan_event(name, payload)
    except UsageError as exc:
        return exc


class TestNeverCrashes:
    @settings(max_examples=300, deadline=None)
    @given(name=EVENT_NAMES, payload=JSON_VALUES)
    def test_any_json_gives_a_plan_or_a_one_line_usage_error(self, name, payload):
        """Whatever JSON arrives, planning answers a plan or a one-line UsageError, nothing else."""
        result = outcome(name, payload)
        assert isinstance(result, EventPlan) or "\n" not in str(result)

    @settings(max_examples=100, deadline=None)
    @given(
        file_name=st.sampled_from(sorted(EXPECTED)),
        path=st.lists(st.text(max_size=6), min_size=1, max_size=3),
        value=JSON_VALUES,
    )
    def test_mutated_real_payloads_never_crash(self, file_name, path, value):
        """A real payload with one field replaced by arbitrary JSON still plans or refuses cleanly."""
        payload = load(file_name)
        target = payload
        for key in path[:-1]:
            child = target.get(key) if isinstance(target, dict) else None
            if not isinstance(child, dict):
                break
            target = child
        target[path[-1]] = value
        result = outcome(event_name(file_name), payload)
        assert isinstance(result, EventPlan) or "\n" not in str(result)


def review_reply(body: str | None, **comment: Any) -> dict[str, Any]:
    """The real pull_request_review_comment payload, as a reply in the thread of comment 1."""
    payload = load("pull_request_review_comment.created.payload.json")
    payload["comment"].update({"body": body, "in_reply_to_id": 1, **comment})
    return payload


class TestReviewThreadReplies:
    def test_ask_in_a_thread_is_answered_about_its_thread(self):
        plan = plan_event("pull_request_review_comment", review_reply("/ask why?"))
        assert plan.action is PlanAction.ANSWER
        assert plan.command is not None
        assert plan.command.written.thread_root == 1
        assert plan.command.written.comment_id == 284312630

    @pytest.mark.parametrize("body", ["/dismiss fine", "/Confirm"])
    def test_a_decision_re_folds_the_verdict(self, body):
        assert plan_event("pull_request_review_comment", review_reply(body)).action is REFOLD

    @pytest.mark.parametrize(
        ("head_repo", "from_fork"),
        [("same", False), ({"id": 1, "full_name": "forker/Hello-World"}, True), (None, True)],
        ids=["same-repository", "a-fork", "a-deleted-fork"],
    )
    def test_a_reply_on_a_forks_pr_is_known_as_one(self, head_repo, from_fork):
        payload = review_reply("/dismiss fine")
        if head_repo != "same":
            payload["pull_request"]["head"]["repo"] = head_repo
        assert plan_event("pull_request_review_comment", payload).from_fork is from_fork

    def test_review_belongs_in_the_discussion(self):
        plan = plan_event("pull_request_review_comment", review_reply("/review"))
        assert (plan.action, plan.reason) == (
            SKIP,
            "write /review in the PR's discussion, not a thread",
        )

    def test_a_bot_an_edit_and_a_new_thread_are_not_commands(self):
        bot = review_reply("/ask x")
        bot["comment"]["user"]["type"] = "Bot"
        assert plan_event("pull_request_review_comment", bot).reason == (
            "/ask from the bot Codertocat is ignored"
        )
        edited = review_reply("/ask x")
        edited["action"] = "edited"
        assert plan_event("pull_request_review_comment", edited).action is SKIP
        started = review_reply("/ask x", in_reply_to_id=None)
        assert plan_event("pull_request_review_comment", started).action is SKIP
