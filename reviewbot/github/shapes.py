"""GitHub's answers to the publisher's writes (the shared ones: github/answers.py), and a write's key.

Must not: call GitHub (github/publisher.py and github/review_write.py do).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from typing import Any

from reviewbot.github.answers import Shape, User
from reviewbot.github.rest import GitHubClient, repo_path


class StatusShape(Shape):
    context: str | None = None
    state: str | None = None
    description: str | None = None
    creator: User | None = None


class Created(Shape):
    id: int
    html_url: str | None = None


class CheckOutput(Shape):
    annotations_count: int | None = None


class CheckRun(Shape):
    id: int
    output: CheckOutput | None = None

    @property
    def annotations(self) -> int | None:
        return self.output.annotations_count if self.output else None


def key(identity: object) -> str:
    """A short hash of what one write says: equal writes, equal keys; any difference, another."""
    text = json.dumps(identity, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


class RepoApi:
    """The client's calls with paths relative to `/repos/{repo}`."""

    def __init__(self, client: GitHubClient, repo: str) -> None:
        self.client = client
        self.base = repo_path(repo)  # each segment encoded; callers add `api_path(...)` paths

    def call(self, verb: str, path: str, body: dict[str, Any] | None = None) -> Any:
        return self.client.call(verb, self.base + path, body)

    def get(self, path: str, params: dict[str, Any]) -> Any:
        return self.client.get(self.base + path, params)

    def pages(self, path: str) -> list[Any]:
        return self.client.pages(self.base + path)

    def write_once(self, path: str, body: dict[str, Any], *, find: Callable[[], Any | None]) -> Any:
        return self.client.write_once(self.base + path, body, find=find)

    def append(self, path: str, body: dict[str, Any]) -> Any:
        return self.client.append(self.base + path, body)

    def delete(self, path: str) -> None:
        self.client.delete(self.base + path)
