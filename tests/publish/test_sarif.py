"""SARIF output: valid against the official 2.1.0 schema and shaped for GitHub code scanning."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from reviewbot.nodes import Priority, Status
from reviewbot.output.sarif import FINGERPRINT_KEY, to_sarif
from reviewbot.publish.inert import Inert, RepoLinks
from reviewbot.redact import MASK, Redactor
from tests.publish.conftest import HEAD, REPO, every_kind, make_report, node

SCHEMA = json.loads(
    (Path(__file__).resolve().parents[1] / "data" / "sarif-schema-2.1.0.json").read_text("utf-8")
)


class TestSarif:
    def test_valid_against_the_sarif_schema(self):
        """The log validates against the vendored OASIS schema (formats checked too)."""
        log = to_sarif(make_report(every_kind()))
        validator = jsonschema.Draft4Validator(SCHEMA, format_checker=jsonschema.FormatChecker())
        assert sorted(e.message for e in validator.iter_errors(log)) == []

    def test_schema_rejects_a_broken_log(self):
        """The vendored schema is real: a result without a message is refused."""
        log = to_sarif(make_report(every_kind()))
        del log["runs"][0]["results"][0]["message"]
        assert not jsonschema.Draft4Validator(SCHEMA).is_valid(log)

    def test_results_for_anchored_standing_nodes(self):
        """Anchored open/confirmed nodes become results; unanchored and dismissed ones do not."""
        run = to_sarif(make_report(every_kind()))["runs"][0]
        ids = [r["properties"]["nodeId"] for r in run["results"]]
        assert ids == ["review-1", "review-2", "review-3", "review-5"]
        assert run["properties"]["unlocatedFindings"] == 1

    def test_result_shape_for_code_scanning(self):
        """ruleId, level from priority, region lines and the node fingerprint as partial fingerprint."""
        nodes = every_kind()
        first = to_sarif(make_report(nodes))["runs"][0]["results"][0]
        assert first["ruleId"] == "reviewbot/bug"
        assert first["level"] == "error"
        location = first["locations"][0]["physicalLocation"]
        assert location["artifactLocation"]["uri"] == "src/app.py"
        assert location["region"] == {"startLine": 3, "endLine": 4}
        assert first["partialFingerprints"] == {FINGERPRINT_KEY: nodes[0].fingerprint}

    @pytest.mark.parametrize(
        ("priority", "level"),
        [
            (Priority.P0, "error"),
            (Priority.P1, "error"),
            (Priority.P2, "warning"),
            (Priority.P3, "note"),
        ],
        ids=["P0", "P1", "P2", "P3"],
    )
    def test_level_from_priority(self, priority, level):
        """P0/P1 are errors, P2 warnings, P3 notes."""
        log = to_sarif(make_report((node(id="n", priority=priority),)))
        assert log["runs"][0]["results"][0]["level"] == level

    def test_rules_and_provenance(self):
        """Every ruleIndex points at its rule; the run names the repository and head commit."""
        run = to_sarif(make_report(every_kind()))["runs"][0]
        rules = run["tool"]["driver"]["rules"]
        for result in run["results"]:
            assert rules[result["ruleIndex"]]["id"] == result["ruleId"]
        assert run["versionControlProvenance"] == [
            {"repositoryUri": f"https://github.com/{REPO}", "revisionId": HEAD}
        ]

    def test_paths_are_uri_encoded_and_messages_redacted(self):
        """A path with a space is a valid URI reference; secrets are masked in messages."""
        leaky = node(
            id="n", path="docs/my file.py", body="token s3cr3t-value-123", status=Status.OPEN
        )
        log = to_sarif(make_report((leaky,)), redactor=Redactor.of(["s3cr3t-value-123"]))
        result = log["runs"][0]["results"][0]
        assert (
            result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
            == "docs/my%20file.py"
        )
        assert MASK in result["message"]["text"]
        assert "s3cr3t" not in result["message"]["text"]

    def test_a_finding_on_deleted_lines_names_its_file_without_a_head_region(self):
        """Base-side (LEFT) line numbers would be other lines of the head: no region, still valid."""
        base = node(id="review-1", lines=(4, 5))
        deleted = base.model_copy(
            update={"anchor": base.anchor.model_copy(update={"side": "LEFT"})}
        )
        log = to_sarif(make_report((deleted,)))
        [result] = log["runs"][0]["results"]
        location = result["locations"][0]["physicalLocation"]
        assert location == {"artifactLocation": {"uri": "src/app.py", "uriBaseId": "%SRCROOT%"}}
        assert jsonschema.Draft4Validator(SCHEMA).is_valid(log)


class TestMessagesAreInert:
    """A SARIF message is model text shown by code scanning: the annotations' neutraliser."""

    def message(self, **fields) -> str:
        finding = node(id="n", **fields)
        return to_sarif(make_report((finding,)))["runs"][0]["results"][0]["message"]["text"]

    def test_bidi_and_invisible_characters_are_shown(self):
        text = self.message(title="ok\u202eevil", body="zero\u200bwidth")
        assert "\u202e" not in text
        assert "\u200b" not in text
        assert "⟨U+202E⟩" in text
        assert "⟨U+200B⟩" in text

    def test_urls_outside_the_repository_are_defanged_and_its_own_kept(self):
        own = f"https://github.com/{REPO}/blob/{HEAD}/src/app.py#L3"
        text = self.message(body=f"see http://attacker.invalid/x, www.attacker.invalid and {own}")
        assert "http[:]//attacker.invalid/x" in text
        assert "www[.]attacker.invalid" in text
        assert own in text

    def test_mentions_and_references_are_broken(self):
        text = self.message(title="cc @octocat", body="fixes #12 and GH-3 @acme/team")
        assert "@\u200boctocat" in text
        assert "#\u200b12" in text
        assert "GH-\u200b3" in text
        assert "@\u200bacme/team" in text

    def test_the_same_function_as_the_annotations(self):
        """One neutraliser: the SARIF message of a finding is its annotation's text."""
        body = "x\u202e @octocat http://attacker.invalid #4"
        inert = Inert(links=RepoLinks(web_url="https://github.com", repo=REPO))
        assert self.message(body=body).endswith(inert.text(body).strip())
