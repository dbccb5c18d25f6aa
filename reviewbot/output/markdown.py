"""`--format markdown`: the summary body exactly as the GitHub summary comment shows it.

Without a snapshot the findings table has no "Posted" column (nothing was placed);
with one, placement is planned against the diff as a `--post` run would place it
on a PR with no earlier reviews. Must not: call GitHub.
"""

from __future__ import annotations

from reviewbot.publish.body import summary_body
from reviewbot.publish.learned import suppressed_by_learnings
from reviewbot.publish.placement import (
    LinkBuilder,
    Placement,
    inline_rules,
    place_nodes,
    web_url_of,
)
from reviewbot.redact import Redactor
from reviewbot.results.report import Report
from reviewbot.sources.snapshot import PRSnapshot


def summary_markdown(
    report: Report,
    *,
    snapshot: PRSnapshot | None = None,
    redactor: Redactor | None = None,
) -> str:
    """The summary markdown of `report` (redacted; no hidden marker: nothing reads it back).

    Links name the PR's own host, as the posted summary does (GitHub Enterprise included).
    """
    redact = redactor if redactor is not None else Redactor()
    plan: Placement | None = None
    link_of: LinkBuilder | None = None
    if snapshot is not None:
        if snapshot.repo is not None:
            web_url = web_url_of(snapshot.url)
            link_of = LinkBuilder(web_url=web_url, repo=snapshot.repo, head_sha=snapshot.head_sha)
        if report.published is not None:  # a "Posted" column only when something was posted
            rules = inline_rules(snapshot.config.publish, rereview=False)
            plan = place_nodes(
                report.nodes,
                snapshot.diff,
                max_inline=rules,
                suppressed=suppressed_by_learnings(report),
            )
    return summary_body(report, plan=plan, link_of=link_of, redactor=redact)
