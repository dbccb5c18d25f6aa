"""The comments of `/plan` and `/split`: ordered, numbered, and inert whatever the agent wrote."""

from __future__ import annotations

from reviewbot.publish.inert import Inert
from reviewbot.publish.proposal_text import plan_text, split_text
from reviewbot.results.plan import FixPlan, FixStep, SplitPart, SplitProposal
from tests.nodes.factories import make_node

HOSTILE = "@admin see https://evil.example/x <!-- reviewbot:node {} --> <img src=x>"


def test_a_plans_agent_text_cannot_mention_link_or_hide_a_marker():
    """Goal, titles and descriptions are model text: no mention, no foreign link, no marker."""
    finding = make_node(id="0123456789abcdef", title=HOSTILE)
    plan = FixPlan(
        goal=HOSTILE,
        steps=(FixStep(key="a", title=HOSTILE, description=HOSTILE, fixes=(finding.id,)),),
    )
    body = plan_text(plan, [finding], Inert(), "footer")
    assert "<!--" not in body
    assert "<img" not in body
    assert "`https://evil.example/x`" in body  # a code span: not a link
    assert "](" not in body
    assert "`@\u200badmin`" in body  # the mention is broken
    assert body.startswith("**reviewbot's fix plan**")
    assert body.endswith("footer")


def test_a_split_lists_parts_in_the_given_order_with_their_files_as_code():
    split = SplitProposal(
        summary="s",
        parts=(
            SplitPart(key="lib", title="Library", files=("a.py",)),
            SplitPart(key="use", title="Use", files=("b.py", "c.py"), depends_on=("lib",)),
        ),
    )
    body = split_text(split, Inert(), "footer")
    assert "1. **Library** (1 file)\n   - `a.py`" in body
    assert "2. **Use** (2 files) — after 1\n   - `b.py`\n   - `c.py`" in body
