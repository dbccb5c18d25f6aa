"""Who may decide: the permission API is asked once per account per run, a failure too."""

from __future__ import annotations

import responses

from reviewbot.app import GitHub
from reviewbot.github.client import make_client

API = "https://api.github.com:443"  # how PyGithub spells it
REPO = "octo/app"


def connection() -> GitHub:
    client = make_client("https://api.github.com", "ghs_" + "t" * 36, retries=0, backoff=0)
    return GitHub(client=client, login="github-actions[bot]")


@responses.activate
def test_a_failed_lookup_is_not_asked_again():
    """The lookup errors: the account is no writer, and the API is not asked for each command."""
    responses.get(
        f"{API}/repos/{REPO}",
        json={"full_name": REPO, "name": "app", "url": f"https://api.github.com/repos/{REPO}"},
    )
    url = f"{API}/repos/{REPO}/collaborators/bob/permission"
    responses.get(url, status=403, json={"message": "Resource not accessible by integration"})
    github = connection()
    assert [github.is_writer(REPO, "bob"), github.is_writer(REPO, "bob")] == [False, False]
    assert (
        len([c for c in responses.calls if "/collaborators/bob/permission" in c.request.url]) == 1
    )
