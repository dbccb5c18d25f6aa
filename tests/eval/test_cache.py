"""The eval cache: keyed by everything that changes a result; an unreadable entry is a miss."""

from __future__ import annotations

import pytest

from reviewbot.errors import UsageError
from reviewbot.eval.bench import BenchmarkPR
from reviewbot.eval.cache import CacheKey, EvalCache
from reviewbot.eval.result import PRResult, ScoreReport
from reviewbot.eval.score import EMPTY
from reviewbot.results.run import Usage

URL = "https://github.com/octo/app/pull/7"
PR = BenchmarkPR(pr_title="t", url=URL, comments=({"comment": "bug", "severity": "High"},))
KEY = CacheKey(url=URL, model="claude-sonnet-4-5", judge_model="claude-haiku-4-5")
RESULT = PRResult(
    url=URL,
    title="t",
    head_sha="a" * 40,
    model=KEY.model,
    judge_model=KEY.judge_model,
    tool_version="0.1.0",
    findings=(),
    golden=(),
    score=ScoreReport.of(EMPTY, 2.0),
    reviewers=Usage(requests=2),
    judge=Usage(),
)


class TestCache:
    def test_a_saved_result_loads_back(self, tmp_path):
        """What is saved is what is loaded, and no temporary file is left."""
        cache = EvalCache(tmp_path / "cache")
        cache.save(KEY, PR, RESULT)
        assert cache.load(KEY, PR) == RESULT
        assert [p.name for p in (tmp_path / "cache").iterdir()] == [cache.path(KEY, PR).name]

    @pytest.mark.parametrize(
        "other",
        [
            CacheKey(url=URL, model="claude-opus-4-5", judge_model=KEY.judge_model),
            CacheKey(url=URL, model=KEY.model, judge_model="claude-sonnet-4-5"),
            CacheKey(url=URL, model=KEY.model, judge_model=KEY.judge_model, version="0.2.0"),
        ],
        ids=["model", "judge-model", "version"],
    )
    def test_another_model_judge_or_version_misses(self, tmp_path, other):
        """A result is reused only for the same reviewers' model, judge model and version."""
        cache = EvalCache(tmp_path)
        cache.save(KEY, PR, RESULT)
        assert cache.load(other, PR) is None

    def test_edited_golden_comments_miss(self, tmp_path):
        """A benchmark entry whose golden comments changed is judged afresh."""
        cache = EvalCache(tmp_path)
        cache.save(KEY, PR, RESULT)
        edited = PR.model_copy(update={"comments": ()})
        assert cache.load(KEY, edited) is None

    @pytest.mark.parametrize(
        "content", ["{", '{"url": 1}', ""], ids=["truncated", "wrong", "empty"]
    )
    def test_an_unreadable_entry_is_a_miss(self, tmp_path, content):
        """A corrupt entry is logged and the PR runs again; it never ends the run."""
        cache = EvalCache(tmp_path)
        cache.path(KEY, PR).write_text(content, encoding="utf-8")
        assert cache.load(KEY, PR) is None

    def test_an_entry_of_another_pr_is_not_trusted(self, tmp_path):
        """A file copied under this PR's name but holding another PR's result is a miss."""
        cache = EvalCache(tmp_path)
        other = RESULT.model_copy(update={"url": "https://github.com/octo/app/pull/8"})
        cache.path(KEY, PR).write_text(other.model_dump_json(), encoding="utf-8")
        assert cache.load(KEY, PR) is None

    def test_an_unwritable_folder_is_a_usage_error(self, tmp_path):
        """A cache folder under a file: one line, exit 2."""
        blocker = tmp_path / "file"
        blocker.write_text("", encoding="utf-8")
        with pytest.raises(UsageError, match="cannot write the eval cache"):
            EvalCache(blocker / "cache").save(KEY, PR, RESULT)

    def test_an_entry_that_cannot_be_read_is_a_miss(self, tmp_path):
        """Not a file (a folder under its name): logged, and the PR runs again."""
        cache = EvalCache(tmp_path)
        cache.path(KEY, PR).mkdir()
        assert cache.load(KEY, PR) is None

    def test_an_entry_that_cannot_be_renamed_into_place_is_a_usage_error(self, tmp_path):
        """The write lands but the rename cannot (a folder holds its name): one line, no temp
        file left behind."""
        cache = EvalCache(tmp_path)
        cache.path(KEY, PR).mkdir()
        (cache.path(KEY, PR) / "x").write_text("", encoding="utf-8")
        with pytest.raises(UsageError, match="cannot write the eval cache entry"):
            cache.save(KEY, PR, RESULT)
        assert [p.name for p in tmp_path.iterdir()] == [cache.path(KEY, PR).name]
