"""The JSON report: schema export, round trip, and bounded raw discards."""

from __future__ import annotations

import json
import math
from pathlib import Path

import jsonschema
import pytest
from click.testing import CliRunner
from pydantic import ValidationError

from reviewbot.cli import cli
from reviewbot.modes.profile import Role
from reviewbot.results.report import (
    AgentReport,
    ReasonReport,
    Report,
    json_safe,
    report_schema,
)
from reviewbot.results.run import StopReason, Usage
from reviewbot.verdict import Verdict
from tests.factories import sample_report


class TestReport:
    def test_report_validates_against_its_own_schema(self):
        """The exported JSON Schema accepts a real report."""
        report = sample_report()
        jsonschema.validate(json.loads(report.model_dump_json()), report_schema())

    def test_report_round_trips(self):
        """A report read back from its JSON equals the original."""
        report = sample_report()
        assert Report.model_validate_json(report.model_dump_json()) == report

    def test_schema_command_prints_the_schema(self):
        """`reviewbot schema` prints valid JSON with the report's fields."""
        result = CliRunner().invoke(cli, ["schema"])
        assert result.exit_code == 0
        schema = json.loads(result.output)
        assert {"verdict", "axes", "nodes", "discarded", "usage", "pr", "published"} <= set(
            schema["properties"]
        )

    def test_schema_is_the_published_one(self):
        """`reviewbot schema` prints byte for byte the committed schema: a change is deliberate.

        `tests/report.schema.json` is the output of `reviewbot schema`; regenerate it (and
        bump `SCHEMA_VERSION` if a consumer could break) when the report changes."""
        result = CliRunner().invoke(cli, ["schema"])
        assert result.exit_code == 0
        assert result.output == (Path(__file__).parent / "report.schema.json").read_text("utf-8")

    def test_the_verdict_and_roles_are_enums_inside_and_labels_outside(self):
        """Code reads `Verdict` and `Role`; the JSON carries `"ship"` and `"reviewer"`, as before."""
        agent = AgentReport(
            name="r", role=Role.REVIEWER, model="m", stop_reason=StopReason.END_TURN
        )
        reason = {"verdict": "hold", "source": "axis", "name": "review", "text": "t"}
        report = sample_report().model_copy(
            update={"agents": (agent,), "reasons": (ReasonReport.model_validate(reason),)}
        )
        read = Report.model_validate_json(report.model_dump_json())
        assert read.verdict is Verdict.SHIP
        assert read.reasons[0].verdict is Verdict.HOLD
        assert read.agents[0].role is Role.REVIEWER
        data = json.loads(report.model_dump_json())
        assert (data["verdict"], data["reasons"][0]["verdict"]) == ("ship", "hold")
        assert data["agents"][0]["role"] == "reviewer"

    @pytest.mark.parametrize("label", ["Ship", " hold", "BLOCK", 1, None], ids=repr)
    def test_only_a_verdict_label_is_read_back(self, label):
        """The JSON's verdict is one of the three labels, spelled as written, or the report is refused."""
        data = json.loads(sample_report().model_dump_json())
        with pytest.raises(ValidationError):
            Report.model_validate({**data, "verdict": label})

    def test_usage_adds_up(self):
        """Usage of two requests sums field by field."""
        total = Usage(requests=1, input_tokens=10, cost_usd=0.5) + Usage(
            requests=1, cache_read_tokens=90, cost_usd=0.25
        )
        assert (total.requests, total.total_input_tokens, total.cost_usd) == (2, 100, 0.75)


class TestJsonSafe:
    def test_bounds_strings_depth_and_nan(self):
        """Raw discards are kept, but bounded and JSON-serialisable."""
        deep: list[object] = []
        cursor = deep
        for _ in range(50):
            cursor.append([])
            cursor = cursor[0]  # type: ignore[assignment]
        value = json_safe(
            {"big": "x" * 10_000, "nan": math.nan, "deep": deep, "obj": object(), b"k": b"\xff"}
        )
        text = json.dumps(value)
        assert "(+6000 chars)" in text
        assert '"nan": "nan"' in text
        assert "nested too deep" in text
