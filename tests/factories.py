"""Builders shared by tests of more than one package: a whole JSON report."""

from __future__ import annotations

import math

from reviewbot.nodes.boundary import Discarded
from reviewbot.results.report import AxisReport, DiscardReport, PRInfo, Report
from reviewbot.results.run import Usage
from reviewbot.verdict import AxisResult, Outcome, default_policy, finalize
from tests.nodes.factories import make_node


def sample_report() -> Report:
    """A valid report: one gated axis passed, one finding, one discard, usage and the PR."""
    axes = [AxisResult(name="review", gated=True, outcome=Outcome.PASSED)]
    nodes = [make_node()]
    decision = finalize(None, axes, nodes, default_policy(), coverage_gap=None)
    return Report(
        tool_version="0.1.0",
        verdict=decision.verdict.label,
        reasons=Report.reasons_of(decision),
        axes=tuple(AxisReport.of(a) for a in axes),
        nodes=tuple(nodes),
        discarded=(
            DiscardReport.of(
                Discarded(raw={"priority": math.nan}, reason="bad", origin="model:review")
            ),
        ),
        usage=Usage(requests=2, input_tokens=100, cost_usd=0.01),
        pr=PRInfo(
            origin="github",
            url="https://github.com/o/r/pull/1",
            repo="o/r",
            number=1,
            title="t",
            base_sha="a" * 40,
            head_sha="b" * 40,
        ),
    )
