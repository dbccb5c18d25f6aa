"""The registry's tool definitions: self-contained input schemas the Messages API can take as is."""

from __future__ import annotations

import json
import re

import jsonschema
import pytest

from reviewbot.modes import PROFILES, Mode
from reviewbot.nodes.model import Finding
from reviewbot.tools.registry import REGISTRY, self_contained
from reviewbot.tools.surface import compute_surface

CASES = [(mode, role) for mode in Mode for role in ("reviewer", "verifier")]
IDS = [f"{mode}-{role}" for mode, role in CASES]

GOOD = {
    "kind": "bug",
    "priority": "P0",
    "confidence": 0.9,
    "title": "Shell injection in run()",
    "anchor": {"path": "src/app.py", "start_line": 10, "end_line": 10, "quote": "x"},
}


def keys(value: object) -> set[str]:
    """Every key at any depth of a JSON value."""
    if isinstance(value, dict):
        return set(value) | {k for item in value.values() for k in keys(item)}
    if isinstance(value, list):
        return {k for item in value for k in keys(item)}
    return set()


def finding_schema() -> dict:
    return REGISTRY["add_review_node"].param()["input_schema"]


class TestInputSchemas:
    @pytest.mark.parametrize(("mode", "role"), CASES, ids=IDS)
    def test_no_tool_on_any_surface_has_a_reference(self, mode, role):
        """No input_schema on any mode's surface holds `$ref` or `$defs` at any depth."""
        surface = compute_surface(PROFILES[mode], role)
        for tool in surface:
            found = keys(tool.param()["input_schema"]) & {"$ref", "$defs"}
            assert found == set(), tool.name

    def test_finding_schema_needed_inlining(self):
        """pydantic's own Finding schema does use references, so the check above is not vacuous."""
        assert {"$ref", "$defs"} <= keys(Finding.model_json_schema())

    def test_definitions_are_inlined_with_the_field_description(self):
        """Enums and the anchor appear in place; a field's description wins over its type's."""
        props = finding_schema()["properties"]
        assert props["kind"]["enum"] == [
            "bug",
            "suggestion",
            "recommendation",
            "question",
            "ticket",
        ]
        assert (
            props["kind"]["description"] == "bug | suggestion | recommendation | question | ticket."
        )
        assert props["priority"]["description"].startswith("P0 = must not ship")
        anchor = props["anchor"]["anyOf"][0]
        assert anchor["required"] == ["path", "start_line", "end_line", "quote"]
        assert anchor["properties"]["quote"]["description"].startswith("The exact text of lines")

    def test_schema_is_byte_stable(self):
        """Two calls give the same bytes in the same key order."""
        assert json.dumps(finding_schema()) == json.dumps(finding_schema())

    def test_inlined_schema_accepts_a_good_finding(self):
        """The inlined add_review_node schema is valid JSON Schema and accepts a good finding."""
        schema = finding_schema()
        jsonschema.Draft202012Validator.check_schema(schema)
        jsonschema.validate(GOOD, schema, cls=jsonschema.Draft202012Validator)

    @pytest.mark.parametrize(
        "bad",
        [
            {**GOOD, "priority": "P7"},
            {**GOOD, "kind": "nit"},
            {**GOOD, "anchor": {**GOOD["anchor"], "start_line": 0}},
            {**GOOD, "anchor": {**GOOD["anchor"], "colour": "red"}},
            {k: v for k, v in GOOD.items() if k != "title"},
        ],
        ids=["unknown-priority", "unknown-kind", "line-zero", "extra-anchor-field", "no-title"],
    )
    def test_inlined_schema_rejects_a_bad_finding(self, bad):
        """Constraints from the inlined definitions still hold: a bad finding is rejected."""
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(bad, finding_schema(), cls=jsonschema.Draft202012Validator)


class TestSelfContained:
    def test_nested_references_are_inlined_and_siblings_kept(self):
        """A reference inside a definition is inlined too; keys beside `$ref` are kept after it."""
        schema = {
            "$defs": {
                "A": {"type": "object", "properties": {"b": {"$ref": "#/$defs/B"}}},
                "B": {"type": "string", "description": "a B"},
            },
            "properties": {"a": {"$ref": "#/$defs/A", "description": "the A"}},
        }
        assert self_contained(schema) == {
            "properties": {
                "a": {
                    "type": "object",
                    "properties": {"b": {"type": "string", "description": "a B"}},
                    "description": "the A",
                }
            }
        }

    @pytest.mark.parametrize(
        ("schema", "message"),
        [
            (
                {"$defs": {"N": {"properties": {"n": {"$ref": "#/$defs/N"}}}}, "$ref": "#/$defs/N"},
                "schema definition 'N' is recursive and cannot be inlined",
            ),
            (
                {"properties": {"x": {"$ref": "#/$defs/Missing"}}},
                "schema reference '#/$defs/Missing' is not one of its own $defs",
            ),
            (
                {"properties": {"x": {"$ref": "https://example.com/s.json"}}},
                "schema reference 'https://example.com/s.json' is not one of its own $defs",
            ),
        ],
        ids=["recursive", "missing-definition", "remote-reference"],
    )
    def test_what_cannot_be_inlined_is_an_error(self, schema, message):
        """A recursive, missing or remote reference is a programming error, not a silent `$ref`."""
        with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
            self_contained(schema)
