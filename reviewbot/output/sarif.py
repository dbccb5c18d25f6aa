"""SARIF 2.1.0 output that GitHub code scanning accepts (`--format sarif`).

One rule per node kind; one result per anchored, still-standing node, with its
priority as the level (P0/P1 error, P2 warning, P3 note), its lines as the region
and its fingerprint as a partial fingerprint, so code scanning tracks an alert
across pushes the way reviewbot tracks the node. Nodes without an anchor cannot
be shown by code scanning (it needs a location); they are counted in the run's
properties instead of being sent location-less.

Messages are model text, and code scanning shows them to every reader of the alert
(and may make a URL clickable): they pass the same neutraliser as the check run's
annotations, `Inert.text` — redacted, invisible and bidi characters shown, URLs outside
the PR's repository defanged, mentions and references broken. Must not: read files or
call GitHub.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from reviewbot import REPOSITORY_URL
from reviewbot.errors import UsageError
from reviewbot.nodes.model import Anchor, Kind, Priority, ReviewNode, Status
from reviewbot.publish.inert import Inert, RepoLinks
from reviewbot.redact import Redactor
from reviewbot.results.report import Report
from reviewbot.sources.pr_ref import read_pr_url

SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"
INFORMATION_URI = REPOSITORY_URL
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


def _result(node: ReviewNode, anchor: Anchor, inert: Inert) -> dict[str, Any]:
    text = inert.text(f"[{node.priority.value}] {node.title}", one_line=True)
    if node.body:
        text += f"\n\n{inert.text(node.body).strip()}"
    return {
        "ruleId": rule_id(node.kind),
        "ruleIndex": _KINDS.index(node.kind),
        "level": LEVELS[node.priority],
        "message": {"text": text},
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
    inert = _inert(report, redactor if redactor is not None else Redactor())
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
        "results": [_result(node, anchor, inert) for node, anchor in located],
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


def _inert(report: Report, redactor: Redactor) -> Inert:
    """The sanitizer of the annotations: URLs into the PR's own repository stay whole."""
    try:
        where = read_pr_url(report.pr.url or "")
    except UsageError:
        return Inert(redactor=redactor)  # a local review: no repository, every URL defanged
    web_url = f"{where.scheme}://{where.netloc}"
    return Inert(redactor=redactor, links=RepoLinks(web_url=web_url, repo=where.full_name))


def _repository_uri(pr_url: str) -> str:
    """https://github.com/o/r/pull/5 → https://github.com/o/r."""
    head, sep, _ = pr_url.partition("/pull/")
    return head if sep else pr_url
