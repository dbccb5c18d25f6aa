"""What the person is told about findings that could not be recorded (`publish.discards`)."""

from __future__ import annotations

import json

from reviewbot.publish.discards import not_recorded
from reviewbot.results.report import DiscardReport
from tests.publish.conftest import make_report, node

REFUSED = (
    'anchor refused: the quote does not match lines 5–5 of "a.py" and is not found elsewhere '
    "in the file. Copy the quote from the file and send the node again. Those lines are:"
)


def _with(discards, nodes=()):
    return make_report(nodes).model_copy(update={"discarded": tuple(discards)})


def test_a_refusal_is_its_fact_not_the_instructions_to_the_model():
    raw = {"title": "Off by one", "anchor": {"path": "a.py", "start_line": 5, "end_line": 7}}
    [item] = not_recorded(_with([DiscardReport(origin="model:review", reason=REFUSED, raw=raw)]))
    assert (item.title, item.where, item.malformed) == ("Off by one", "a.py lines 5–7", False)
    assert item.why == (
        'anchor refused: the quote does not match lines 5–5 of "a.py" and is not found '
        "elsewhere in the file"
    )


def test_a_finding_sent_again_and_recorded_is_not_listed():
    kept = node(id="review-1", title="x3 is off by one")
    raw = {"title": "x3 is off by one", "anchor": {"path": "src/app.py", "start_line": 30}}
    discard = DiscardReport(origin=f"model:{kept.author}", reason=REFUSED, raw=raw)
    assert not_recorded(_with([discard], nodes=(kept,))) == []


def test_a_marker_that_is_not_json_is_malformed_and_says_where_it_was():
    marker = DiscardReport(origin="marker in review comment 12", reason="invalid JSON", raw="{x")
    [item] = not_recorded(_with([marker]))
    assert item.malformed
    assert item.why == "malformed: invalid JSON (marker in review comment 12)"
    assert item.title is None
    good = json.dumps({"title": "Kept title", "priority": "P7"})
    [item] = not_recorded(_with([marker.model_copy(update={"raw": good})]))
    assert item.title == "Kept title"
