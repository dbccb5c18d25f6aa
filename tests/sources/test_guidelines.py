"""Which guideline files a review reads from the base, within what budget, and what it says about them."""

from __future__ import annotations

from collections.abc import Mapping

import pytest

from reviewbot.config.file import RunConfig, load_config
from reviewbot.errors import ConfigError
from reviewbot.sources.diff_index import DiffIndex, FileStatus, file_diff_from_patch
from reviewbot.sources.guidelines import (
    CUT_NOTE,
    MAX_NESTED_DIRECTORIES,
    UnreadableFile,
    read_guidelines,
)

PATCH = "@@ -1 +1 @@\n-a\n+b\n"


class Files:
    """A base commit's files in memory; `broken` paths exist but are not text."""

    def __init__(self, files: Mapping[str, str], broken: frozenset[str] = frozenset()) -> None:
        self.files, self.broken = dict(files), broken
        self.asked: list[str] = []

    def text(self, path: str) -> str | None:
        self.asked.append(path)
        if path in self.broken:
            raise UnreadableFile("is not valid UTF-8")
        return self.files.get(path)

    def names(self, folder: str) -> tuple[str, ...]:
        prefix = f"{folder}/"
        return tuple(
            p[len(prefix) :]
            for p in self.files
            if p.startswith(prefix) and "/" not in p[len(prefix) :]
        )


def diff(*paths: str) -> DiffIndex:
    files = {p: file_diff_from_patch(p, PATCH, status=FileStatus.MODIFIED) for p in paths}
    return DiffIndex(files=files, total_files=len(files))


DEFAULTS = RunConfig()


def used(files: Files, config: RunConfig = DEFAULTS, changed: DiffIndex | None = None):
    got = read_guidelines(files, config, changed or diff("src/x.py"))
    return [(f.path, f.scope, f.use) for f in got.files]


class TestWhichFiles:
    def test_the_default_is_the_first_that_exists(self):
        files = Files({"AGENTS.md": "agents", "CLAUDE.md": "claude"})
        assert used(files) == [("AGENTS.md", "", "used")]

    def test_cursor_rules_are_every_mdc_file_in_their_folder(self):
        files = Files(
            {".cursor/rules/b.mdc": "b", ".cursor/rules/a.mdc": "a", ".cursor/rules/c.md": "c"}
        )
        assert used(files) == [
            (".cursor/rules/a.mdc", "", "used"),
            (".cursor/rules/b.mdc", "", "used"),
        ]

    def test_a_configured_list_reads_every_file_it_names(self):
        files = Files({"docs/review.md": "r", "AGENTS.md": "a", "REVIEW.md": "not named"})
        config = RunConfig(guidelines=("docs/review.md", "AGENTS.md"))
        assert used(files, config) == [("docs/review.md", "", "used"), ("AGENTS.md", "", "used")]

    def test_an_empty_list_reads_nothing(self):
        files = Files({"REVIEW.md": "r", "src/AGENTS.md": "n"})
        assert used(files, RunConfig(guidelines=())) == []
        assert files.asked == []

    def test_nested_agents_md_apply_to_the_changed_directories_only(self):
        """A monorepo: only the AGENTS.md above a changed path, shallowest first, with its scope."""
        files = Files(
            {
                "REVIEW.md": "root",
                "svc/AGENTS.md": "svc",
                "svc/api/AGENTS.md": "api",
                "svc/web/AGENTS.md": "web",
            }
        )
        got = used(files, changed=diff("svc/api/handler.py"))
        assert got == [
            ("REVIEW.md", "", "used"),
            ("svc/AGENTS.md", "svc/", "used"),
            ("svc/api/AGENTS.md", "svc/api/", "used"),
        ]

    def test_a_moved_file_counts_both_directories(self):
        moved = file_diff_from_patch("b/x.py", PATCH, status=FileStatus.RENAMED, old_path="a/x.py")
        files = Files({"a/AGENTS.md": "a", "b/AGENTS.md": "b"})
        changed = DiffIndex(files={"b/x.py": moved}, total_files=1)
        assert [p for p, _, _ in used(files, changed=changed)] == ["a/AGENTS.md", "b/AGENTS.md"]

    def test_a_list_without_agents_md_reads_no_nested_file(self):
        files = Files({"REVIEW.md": "r", "src/AGENTS.md": "n"})
        assert used(files, RunConfig(guidelines=("REVIEW.md",))) == [("REVIEW.md", "", "used")]

    def test_too_many_directories_is_said(self):
        changed = diff(*(f"d{n}/x.py" for n in range(MAX_NESTED_DIRECTORIES + 5)))
        got = read_guidelines(Files({}), RunConfig(), changed)
        assert got.notes == (
            f"nested AGENTS.md files were looked up in the {MAX_NESTED_DIRECTORIES} shallowest "
            f"of the {MAX_NESTED_DIRECTORIES + 5} directories this change touches",
        )

    def test_an_unreadable_file_is_reported_not_fatal(self):
        files = Files({"REVIEW.md": "x"}, broken=frozenset({"REVIEW.md"}))
        got = read_guidelines(files, RunConfig(), diff("x.py"))
        assert got.shown == ()
        assert [(f.path, f.use, f.note) for f in got.files] == [
            ("REVIEW.md", "left_out", "not read: is not valid UTF-8")
        ]


class TestBudget:
    def test_the_file_that_does_not_fit_is_cut_visibly_and_the_rest_left_out(self):
        """A 10 kB REVIEW.md in a 1,000-token budget: cut with a line saying so; the nested one left out."""
        files = Files({"REVIEW.md": "r" * 10_000, "src/AGENTS.md": "nested"})
        got = read_guidelines(files, RunConfig(guidelines_tokens=1_000), diff("src/x.py"))
        [shown] = got.shown
        assert shown.text.endswith(CUT_NOTE.format(budget=1_000))
        assert len(shown.text) < 3_600
        assert [(f.path, f.use, f.tokens) for f in got.files] == [
            ("REVIEW.md", "cut", 1_000),
            ("src/AGENTS.md", "left_out", 0),
        ]
        assert got.files[0].size == 10_000

    def test_within_the_budget_nothing_is_cut(self):
        files = Files({"REVIEW.md": "r" * 10_000})
        [shown] = read_guidelines(files, RunConfig(), diff("x.py")).shown
        assert shown.text == "r" * 10_000
        assert shown.file.use == "used"


class TestConfig:
    def test_the_keys_parse(self):
        config = load_config(
            '[review]\nguidelines = ["docs/*.md", "AGENTS.md"]\nguidelines_tokens = 2000\n',
            origin="`.reviewbot.toml`",
        )
        assert config.review.guidelines == ("docs/*.md", "AGENTS.md")
        assert config.review.guidelines_tokens == 2_000

    @pytest.mark.parametrize("entry", ["/etc/passwd", "../x.md", "a/./b.md", "*/AGENTS.md"])
    def test_a_path_outside_the_repository_or_a_folder_pattern_is_an_error(self, entry):
        with pytest.raises(ConfigError, match="line 2"):
            load_config(f'[review]\nguidelines = ["{entry}"]\n', origin="`.reviewbot.toml`")
