"""SARIF 2.1.0 output that GitHub code scanning accepts (`--format sarif`).

One rule per node kind; one result per anchored, still-standing node, with its
priority as the level (P0/P1 error, P2 warning, P3 note), its lines as the region
and its fingerprint as a partial fingerprint, so code scanning tracks an alert
across pushes the way reviewbot tracks the node. Nodes without an anchor cannot
be shown by code scanning (it needs a location); they are counted in the run's
properties instead of being sent location-less. Must not: read files or call GitHub.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from reviewbot.nodes.model import Anchor, Kind, Priority, ReviewNode, Status
from reviewbot.redact import Redactor
from reviewbot.report import Report

SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"
INFORMATION_URI = "https://github.com/reviewbot/reviewbot"
FINGERPRINT_KEY = "reviewbotFingerprint/v1"
LEVELS = {Priority.P0: "error", Priority.P1: "error", Priority.P2: "warning", Priority.P3: "note"}
_DESCRIPTIONS = {
    Kind.BUG: "A defect: the code does not do what it should.",
    Kind.SUGGESTION: "A concrete change that would improve the code.",
    Kind.RECOMMENDATION: "A broader recommendation about design or practice.",
    Kind.QUESTION: "An open question the reviewer could not settle from the code.",
    Kind.TICKET: "Follow-up work worth tracking outside this pull request.",
}
_KINDS = tuple(Kind)


def rule_id(kind: Kind) -> str:
    return f"reviewbot/{kind.value}"


def _rules() -> list[dict[str, Any]]:
    return [
        {
            "id": rule_id(kind),
            "name": kind.value.capitalize(),
            "shortDescription": {"text": f"reviewbot {kind.value}"},
            "fullDescription": {"text": _DESCRIPTIONS[kind]},
            "defaultConfiguration": {"level": "warning"},
        }
        for kind in _KINDS
    ]


def _physical(anchor: Anchor) -> dict[str, Any]:
    where: dict[str, Any] = {
        "artifactLocation": {"uri": quote(anchor.path, safe="/"), "uriBaseId": "%SRCROOT%"}
    }
    # Deleted (LEFT) lines are numbered in the base version: as a region of the analysed
    # head they would name other lines, so such a result names the file only.
    if anchor.side == "RIGHT":
        where["region"] = {"startLine": anchor.start_line, "endLine": anchor.end_line}
    return where


def _result(node: ReviewNode, anchor: Anchor, redact: Redactor) -> dict[str, Any]:
    text = f"[{node.priority.value}] {node.title}"
    if node.body:
        text += f"\n\n{node.body}"
    return {
        "ruleId": rule_id(node.kind),
        "ruleIndex": _KINDS.index(node.kind),
        "level": LEVELS[node.priority],
        "message": {"text": redact(text)},
        "locations": [{"physicalLocation": _physical(anchor)}],
        "partialFingerprints": {FINGERPRINT_KEY: node.fingerprint},
        "properties": {
            "nodeId": node.id,
            "priority": node.priority.value,
            "confidence": node.confidence,
            "status": node.status.value,
            "author": node.author,
        },
    }


def to_sarif(report: Report, *, redactor: Redactor | None = None) -> dict[str, Any]:
    """The SARIF log of `report` as a JSON-ready dict."""
    redact = redactor if redactor is not None else Redactor()
    standing = [n for n in report.nodes if n.status not in (Status.RESOLVED, Status.DISMISSED)]
    located = [(n, n.anchor) for n in standing if n.anchor is not None]
    run: dict[str, Any] = {
        "tool": {
            "driver": {
                "name": "reviewbot",
                "version": report.tool_version,
                "informationUri": INFORMATION_URI,
                "rules": _rules(),
            }
        },
        "results": [_result(node, anchor, redact) for node, anchor in located],
        "properties": {
            "verdict": report.verdict.label,
            "headSha": report.pr.head_sha,
            "unlocatedFindings": len(standing) - len(located),
        },
    }
    if report.pr.url:
        run["versionControlProvenance"] = [
            {"repositoryUri": _repository_uri(report.pr.url), "revisionId": report.pr.head_sha}
        ]
    return {"$schema": SCHEMA_URI, "version": "2.1.0", "runs": [run]}


def _repository_uri(pr_url: str) -> str:
    """https://github.com/o/r/pull/5 → https://github.com/o/r."""
    head, sep, _ = pr_url.partition("/pull/")
    return head if sep else pr_url
