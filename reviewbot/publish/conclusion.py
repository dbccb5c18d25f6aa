"""The verdict as branch protection sees it: the `reviewbot` check's conclusion and its words.

GitHub counts `success`, `neutral` and `skipped` as passing a required check, a
commit status only `success`:

    verdict                      check run   commit status (fallback)   title / description
    Ship, full coverage          success     success                    "Ship: …"
    Ship, coverage partial/none  failure     failure                    "Ship, not a clean pass (…)" (*)
    Hold (default)               failure     failure                    "Hold (blocks merge): …"
    Hold, `advisory_hold = true` neutral     success                    "Hold (advisory): …"
    Hold, coverage partial/none  failure     failure                    "Hold (blocks merge: coverage is partial): …"
    Hold, an approval stands     failure     failure                    "Hold (blocks merge: reviewbot's earlier approval …)"
    Block                        failure     failure                    "Block: …"

(*) The fold never gives one (verdict/fold.py: a reviewer axis that did not see the whole
PR is `partial`, a Hold); kept so that no report, however built, passes on a gap.

`failure` rather than `action_required`: both keep a required check failing, but
`action_required` promises a fix on the integrator's `details_url`, and a check run
made with an Actions GITHUB_TOKEN gets its Details link set to the workflow run
whatever `details_url` says. `advisory_hold` comes from the base branch's config.
Commit statuses have no neutral state; the fallback passes exactly when the check
run would (an advisory Hold is `success`), and its description says which verdict
it stands for.

Must not: call GitHub (github/publisher.py writes the check run or the status).
"""

from __future__ import annotations

from typing import Literal

from reviewbot.coverage.policy import brief_gap
from reviewbot.publish.body import VERDICT_LABEL, deciding
from reviewbot.publish.inert import plain
from reviewbot.redact import Redactor
from reviewbot.results.report import Report
from reviewbot.verdict.lattice import Verdict

MAX_STATUS_DESCRIPTION = 140  # GitHub: a commit status description

Conclusion = Literal["success", "neutral", "failure"]


def check_conclusion(report: Report, *, advisory_hold: bool = False) -> Conclusion:
    """The `reviewbot` check's conclusion: only a fully covered Ship (or an advisory Hold) passes."""
    return conclusion_and_qualifier(report, advisory_hold=advisory_hold)[0]


def conclusion_and_qualifier(
    report: Report, *, advisory_hold: bool, approval_stands: bool = False
) -> tuple[Conclusion, str]:
    """The conclusion and what it means next to the verdict's name (see the module docstring).

    GitHub counts `success`, `neutral` and `skipped` as passing a required check, so
    everything that must keep a PR unmergeable is `failure`. Partial or unreported
    coverage is never a pass, whatever the verdict and `advisory_hold`; nor is a Hold while
    an earlier approval by reviewbot could not be dismissed (`approval_stands`: it still
    counts toward required reviews, so an advisory Hold would let the PR merge on it).
    """
    verdict, gap = report.verdict, brief_gap(report.coverage)
    # (The fold makes a partial review a Hold; a Ship is never partial. Checked here again:
    # a report read from elsewhere must not pass on a gap either.)
    if verdict is Verdict.BLOCK:
        return "failure", ""
    if verdict is Verdict.SHIP:
        return ("success", "") if gap is None else ("failure", f", not a clean pass ({gap})")
    if gap is not None:
        return "failure", f" (blocks merge: {gap})"
    if approval_stands:
        return "failure", " (blocks merge: reviewbot's earlier approval could not be dismissed)"
    if advisory_hold:
        return "neutral", " (advisory)"
    return "failure", " (blocks merge)"


def check_title(report: Report, qualifier: str) -> str:
    label = VERDICT_LABEL[report.verdict]
    return f"{label}{qualifier}: {deciding(report)[0]}"


def status_description(report: Report, qualifier: str, redactor: Redactor) -> str:
    """`Hold (blocks merge): …`: what the status stands for, in GitHub's 140 characters."""
    label = report.verdict.name.capitalize()
    text = plain(redactor(f"{label}{qualifier}: {deciding(report)[0]}"))  # plain text on GitHub
    if len(text) <= MAX_STATUS_DESCRIPTION:
        return text
    return text[: MAX_STATUS_DESCRIPTION - 1].rstrip() + "…"
