"""`/plan` and `/split`: a read-only agent proposes, and its proposal is posted as one comment.

`/plan` (plan mode): the head's open and confirmed findings, from the PR's memory (the sealed
postings, with people's decisions applied), go to one agent that delivers a fix plan through
`submit_plan`. With no such finding there is nothing to plan: "no plan needed" is posted and
no model is asked. A finding is named by its fingerprint, the id `/confirm` and `/dismiss`
take.

`/split` (orchestrate mode): below `[split] min_files` changed files the PR is small enough and
the answer is one line, without a checkout or a model request; above it one agent proposes,
through `propose_orchestration`, a stack of smaller PRs covering every changed file. Nothing
is pushed, branched or created.

Both answers are posted once by the dispatcher (talk/dispatch.py, its answer marker) and carry
the proposal for the JSON report. A run that ends without its verb (after the loop's one
reminder) posts one line saying so, with the reason.
"""

from __future__ import annotations

from reviewbot.agent.messages import ModelClient
from reviewbot.agent.proposal import ProposalRun, Proposer
from reviewbot.github.forge import GitHubReader
from reviewbot.github.gather import gathered
from reviewbot.nodes.history import OPEN_STATUSES
from reviewbot.nodes.model import ReviewNode
from reviewbot.publish.proposal_text import NO_PLAN_NEEDED, plan_text, split_text
from reviewbot.talk.dispatch import Answer, Asked
from reviewbot.tools.ask_user import NoOperator

NO_MODEL = (
    "reviewbot cannot answer `/{verb}` here: no model is configured for this run (no API key)."
)
NOT_DELIVERED = "reviewbot could not make {what}: the agent ended without one ({why})."
SMALL = (
    "`/split` is for large pull requests: this one changes {files} file(s), fewer than "
    "`[split] min_files` ({least}); nothing was run."
)


def open_findings(asked: Asked) -> tuple[ReviewNode, ...]:
    """The head's open and confirmed findings, each with its fingerprint as its id."""
    nodes = asked.memory.prior.review_nodes(asked.info.head_sha)
    return tuple(
        node.model_copy(update={"id": node.fingerprint})
        for node in nodes
        if node.status in OPEN_STATUSES
    )


def plan(asked: Asked) -> Answer:
    """The `/plan` handler."""
    findings = open_findings(asked)
    if not findings:
        return Answer(body=NO_PLAN_NEEDED)
    with asked.model() as client:
        if client is None:
            return Answer(body=NO_MODEL.format(verb="plan"))
        with gathered(_reader(asked), asked.config, asked.settings, asked.memory) as (snap, _):
            run = _proposer(asked, client).plan(snap, findings)
    if run.plan is None:
        return Answer(body=_not_delivered(run, "a fix plan"))
    body = plan_text(run.plan, findings, asked.inert, _footer("plan", run, asked.info.head_sha))
    return Answer(body=body, proposal=run.plan)


def split(asked: Asked) -> Answer:
    """The `/split` handler."""
    files, least = asked.info.changed_files, asked.config.split.min_files
    if files < least:
        return Answer(body=SMALL.format(files=files, least=least))
    with asked.model() as client:
        if client is None:
            return Answer(body=NO_MODEL.format(verb="split"))
        with gathered(_reader(asked), asked.config, asked.settings, asked.memory) as (snap, _):
            run = _proposer(asked, client).split(snap)
    if run.split is None:
        return Answer(body=_not_delivered(run, "a split"))
    footer = _footer("orchestrate", run, asked.info.head_sha)
    return Answer(body=split_text(run.split, asked.inert, footer), proposal=run.split)


def _reader(asked: Asked) -> GitHubReader:
    return GitHubReader(client=asked.client, info=asked.info, run_id=asked.settings.run_id)


def _proposer(asked: Asked, client: ModelClient) -> Proposer:
    return Proposer(
        config=asked.config,
        client=client,
        operator=NoOperator(),
        redactor=asked.settings.redactor,
        progress=asked.progress,
    )


def _not_delivered(run: ProposalRun, what: str) -> str:
    why = run.agent.error or run.agent.stop_reason.value
    return NOT_DELIVERED.format(what=what, why=why)


def _footer(mode: str, run: ProposalRun, head_sha: str) -> str:
    u = run.usage
    return (
        f"<sub>{mode} mode: read-only, nothing pushed or changed · head `{head_sha[:12]}` · "
        f"{u.requests} model request(s) · {u.total_input_tokens:,} input tokens · "
        f"{u.output_tokens:,} output tokens · ${u.cost_usd:.4f}</sub>"
    )
