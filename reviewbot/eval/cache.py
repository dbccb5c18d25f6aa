"""Finished PRs on disk, so an interrupted `reviewbot eval` resumes where it stopped.

One JSON file per PR under the cache folder, named by a digest of its key: the PR
URL, the reviewers' model, the judge's model, reviewbot's version, the result schema
and the PR's golden comments (an edited benchmark entry is judged afresh). A PR is
written once it is reviewed and judged, atomically (temporary file, then rename), so
an interrupted run never leaves half an entry. An entry that cannot be read back is
a miss, logged, never an error. Must not: decide whether to reuse (the runner does).
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

from pydantic import ValidationError

from reviewbot import __version__
from reviewbot.errors import UsageError
from reviewbot.eval.bench import BenchmarkPR
from reviewbot.eval.result import SCHEMA_VERSION, PRResult

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True, kw_only=True)
class CacheKey:
    url: str
    model: str
    judge_model: str
    version: str = __version__

    def digest(self, pr: BenchmarkPR) -> str:
        fields = {
            "url": self.url,
            "model": self.model,
            "judge_model": self.judge_model,
            "version": self.version,
            "schema": SCHEMA_VERSION,
            "golden": [c.model_dump(mode="json") for c in pr.comments],
        }
        raw = json.dumps(fields, sort_keys=True, ensure_ascii=False).encode()
        return hashlib.sha256(raw).hexdigest()[:32]


class EvalCache:
    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def path(self, key: CacheKey, pr: BenchmarkPR) -> Path:
        return self.folder / f"{key.digest(pr)}.json"

    def load(self, key: CacheKey, pr: BenchmarkPR) -> PRResult | None:
        path = self.path(key, pr)
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return None
        except OSError as exc:
            log.warning("cannot read the cached result %s (%s): running the PR again", path, exc)
            return None
        try:
            result = PRResult.model_validate_json(text)
        except ValidationError:
            log.warning("the cached result %s is not valid: running the PR again", path)
            return None
        # The digest already covers the key; a renamed or copied file must not be trusted.
        if (result.url, result.model, result.judge_model) != (key.url, key.model, key.judge_model):
            log.warning("the cached result %s belongs to another PR: running the PR again", path)
            return None
        return result

    def save(self, key: CacheKey, pr: BenchmarkPR, result: PRResult) -> Path:
        path = self.path(key, pr)
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=".pr-", suffix=".json", dir=self.folder)
        except OSError as exc:
            raise UsageError(
                f"cannot write the eval cache in {self.folder}: {exc.strerror}"
            ) from exc
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as stream:
                stream.write(result.model_dump_json(indent=2))
            os.replace(tmp, path)
        except OSError as exc:
            raise UsageError(f"cannot write the eval cache entry {path}: {exc.strerror}") from exc
        finally:
            Path(tmp).unlink(missing_ok=True)  # gone after the rename; left over after a failure
        return path
