"""The benchmark file: the whole file refused only when it is unusable, else one line per bad entry."""

from __future__ import annotations

import json

import pytest

from reviewbot.errors import UsageError
from reviewbot.eval.bench import Severity, load_benchmark, parse_entries, short_name
from reviewbot.eval.runner import select

GOLDEN = [{"comment": "a real bug", "severity": "High"}]


def entry(url="https://github.com/octo/app/pull/7", **fields):
    return {"pr_title": "A PR", "url": url, "comments": GOLDEN} | fields


class TestFile:
    @pytest.mark.parametrize(
        ("content", "message"),
        [
            ("{not json", "is not JSON: Expecting property name"),
            ('{"url": "x"}', "must be a JSON list of PRs, not a JSON object"),
            ('"text"', "not a JSON string"),
            (b"\xff\xfe", "is not UTF-8 text"),
            ("true", "not a JSON boolean"),
            ("7", "not a JSON number"),
            ("2.5", "not a JSON number"),
            ("null", "not a JSON null"),
        ],
        ids=["not-json", "object", "string", "binary", "boolean", "integer", "float", "null"],
    )
    def test_an_unusable_file_is_one_usage_error(self, tmp_path, content, message):
        """Nothing can run from such a file: a UsageError (exit 2) with one line."""
        path = tmp_path / "bench.json"
        path.write_bytes(content if isinstance(content, bytes) else content.encode())
        with pytest.raises(UsageError, match=message) as caught:
            load_benchmark(path)
        assert "\n" not in str(caught.value)

    def test_a_missing_file(self, tmp_path):
        """A path that does not exist names the path and the reason."""
        with pytest.raises(UsageError, match=r"cannot read the benchmark .*No such file"):
            load_benchmark(tmp_path / "missing.json")

    def test_the_public_format_with_extra_fields_loads(self, tmp_path):
        """Fields the format does not define are ignored; severities are normalised."""
        path = tmp_path / "bench.json"
        raw = [entry(extra=1, comments=[{"comment": "x", "severity": "critical", "line": 3}])]
        path.write_text(json.dumps(raw), encoding="utf-8")
        bench = load_benchmark(path)
        assert bench.problems == ()
        assert bench.prs[0].comments[0].severity is Severity.CRITICAL


class TestEntries:
    @pytest.mark.parametrize(
        ("raw", "message"),
        [
            (
                {"url": "https://github.com/o/r/pull/1", "comments": GOLDEN},
                "pr_title: Field required",
            ),
            (entry(url="https://github.com/o/r/issues/1"), "url: not a pull request URL"),
            (entry(url="not a url"), "url: not a pull request URL"),
            (entry(comments=[]), "comments: Tuple should have at least 1 item"),
            (entry(comments=[{"comment": "x"}]), "comments[0].severity: Field required"),
            (
                entry(comments=[{"comment": "x", "severity": "Urgent"}]),
                "comments[0].severity: Input should be",
            ),
            ([1, 2], "the entry: Input should be a valid dictionary"),
        ],
        ids=[
            "no-title",
            "issue-url",
            "not-a-url",
            "no-comments",
            "no-severity",
            "bad-severity",
            "list",
        ],
    )
    def test_a_bad_entry_is_one_line_and_the_others_stay(self, raw, message):
        """The bad entry is named by its number with its first problem; the valid one is kept."""
        bench = parse_entries([raw, entry()], origin="b.json")
        assert len(bench.prs) == 1
        assert len(bench.problems) == 1
        assert bench.problems[0].startswith("b.json: entry 1: ")
        assert message in bench.problems[0]

    def test_a_url_given_twice_keeps_the_first(self):
        """The same PR twice (a trailing /files is the same PR) is a problem line for the second."""
        bench = parse_entries(
            [entry(), entry(url="https://github.com/octo/app/pull/7/files")], origin="b.json"
        )
        assert [p.url for p in bench.prs] == ["https://github.com/octo/app/pull/7"]
        assert bench.problems == (
            "b.json: entry 2: https://github.com/octo/app/pull/7 is already entry 1",
        )

    def test_more_problems_are_counted(self):
        """An entry with several problems shows the first and how many more."""
        bench = parse_entries([{"comments": 3}], origin="b.json")
        assert "(and 2 more)" in bench.problems[0]


class TestSelect:
    PRS = parse_entries(
        [
            entry("https://github.com/getsentry/sentry/pull/1", pr_title="Fix race"),
            entry("https://github.com/grafana/grafana/pull/2", pr_title="Panel"),
            entry("https://github.com/getsentry/sentry/pull/3", pr_title="Paginator"),
        ],
        origin="b.json",
    ).prs

    @pytest.mark.parametrize(
        ("only", "limit", "numbers"),
        [
            (None, None, ["1", "2", "3"]),
            ("getsentry", None, ["1", "3"]),
            ("*/pull/[23]", None, ["2", "3"]),
            ("RACE", None, ["1"]),
            ("getsentry", 1, ["1"]),
            ("nothing", None, []),
        ],
        ids=["all", "substring", "glob", "title-any-case", "limit", "none"],
    )
    def test_only_then_limit(self, only, limit, numbers):
        """--only filters by URL or title (glob or substring), then --limit keeps the first N."""
        chosen = select(self.PRS, only=only, limit=limit)
        assert [p.url.rsplit("/", 1)[1] for p in chosen] == numbers

    def test_short_name(self):
        """Tables name a PR owner/repo#N."""
        assert (
            short_name("https://github.com/getsentry/sentry/pull/93824") == "getsentry/sentry#93824"
        )

    @pytest.mark.parametrize(
        "url", ["https://gitlab.com/a/b/-/merge_requests/1", "not a url", ""], ids=str
    )
    def test_short_name_of_what_is_not_a_pr_url_is_the_text_itself(self, url):
        """A URL that names no GitHub PR is shown as given, never an error in a progress line."""
        assert short_name(url) == url
