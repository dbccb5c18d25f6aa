"""The GitHub App manifest asks for what the server needs and subscribes to what it acts on."""

from __future__ import annotations

import json
from pathlib import Path

from reviewbot.serve.intake import ACTED_ON

MANIFEST = Path(__file__).resolve().parents[2] / "examples" / "github-app" / "manifest.json"


def test_the_manifest_permissions_and_events():
    manifest = json.loads(MANIFEST.read_text(encoding="utf-8"))
    assert manifest["default_permissions"] == {
        "contents": "read",
        "pull_requests": "write",
        "checks": "write",
        "issues": "write",
        "metadata": "read",
        "statuses": "read",  # the CI axis reads commit statuses; without it that axis is not_run
    }
    # installation and installation_repositories reach every App without a subscription.
    assert set(manifest["default_events"]) == {str(e) for e in ACTED_ON}
    assert manifest["hook_attributes"]["url"].endswith("/webhook")
    assert manifest["public"] is False
