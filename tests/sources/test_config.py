"""`.reviewbot.toml` loading (line-precise errors) and the path filters' glob semantics."""

from __future__ import annotations

import pytest

from reviewbot.config.file import (
    DEFAULT_EXCLUDE,
    PathsConfig,
    ReviewConfig,
    config_origin,
    is_excluded,
    load_config,
    matches_any,
)
from reviewbot.errors import ConfigError

ORIGIN = config_origin("main")

FULL = """\
model = "claude-opus-4-1"

[budget]
max_turns = 12
context_tokens = 30000

[[reviewers]]
name = "security"
brief = "Injection, authz, secrets."

[[reviewers]]
name = "perf"
gated = false

[policy]
min_confidence = 0.8

[paths]
exclude = ["**/*.snap", "docs/**"]

[ci]
gated_checks = ["test (3.11)"]
"""


class TestLoadConfig:
    def test_empty_file_is_the_defaults(self):
        """An empty `.reviewbot.toml` is valid and equals the defaults."""
        assert load_config("", origin=ORIGIN) == ReviewConfig()

    def test_full_file(self):
        """Every section is read into the model."""
        config = load_config(FULL, origin=ORIGIN)
        assert config.model == "claude-opus-4-1"
        assert (config.budget.max_turns, config.budget.context_tokens) == (12, 30000)
        assert [r.name for r in config.all_reviewers] == ["review", "security", "perf"]
        assert config.reviewers[1].gated is False
        assert config.policy.min_confidence == 0.8
        assert config.paths.exclude == ("**/*.snap", "docs/**")
        assert config.ci.gated_checks == ("test (3.11)",)

    def test_hold_blocks_unless_made_advisory(self):
        """`publish.advisory_hold` is off by default and read as a TOML boolean."""
        assert ReviewConfig().publish.advisory_hold is False
        config = load_config("[publish]\nadvisory_hold = true\n", origin=ORIGIN)
        assert config.publish.advisory_hold is True

    def test_origin_names_the_base_branch(self):
        """Messages name the file and the branch it was read from."""
        assert ORIGIN == "`.reviewbot.toml` (base branch main)"

    @pytest.mark.parametrize(
        ("text", "message"),
        [
            (
                "model = 'x'\n\n[verifier]\nenabled = true\n\n[budget]\nmax_turns = 0\n",
                "`.reviewbot.toml` (base branch main) line 7: budget.max_turns: Input should be greater than or equal to 1",
            ),
            (
                "[budget]\nmax_turn = 3\n",
                "`.reviewbot.toml` (base branch main) line 2: budget.max_turn: unknown key; did you mean max_turns?",
            ),
            (
                "[[reviewers]]\nname = 'ok'\n[[reviewers]]\nname = 'Bad Name'\n",
                "`.reviewbot.toml` (base branch main) line 4: reviewers[1].name: String should match pattern '^[a-z][a-z0-9_-]{0,39}$'",
            ),
            (
                "budget.max_cost_usd = -1\n",
                "`.reviewbot.toml` (base branch main) line 1: budget.max_cost_usd: Input should be greater than 0",
            ),
            (
                "reviewers = [\n  { name = 'ok' },\n  { nam = 'typo' },\n]\n",
                "`.reviewbot.toml` (base branch main) line 1: reviewers[1].name: Field required; line 1: reviewers[1].nam: unknown key; did you mean name?",
            ),
            (
                "[ci]\n# gated?\ngated = 'yes please'\n",
                "`.reviewbot.toml` (base branch main) line 3: ci.gated: Input should be a valid boolean",
            ),
            (
                "[publish]\nadvisory_hold = 'yes'\n",
                "`.reviewbot.toml` (base branch main) line 2: publish.advisory_hold: Input should be a valid boolean",
            ),
            (
                "[paths]\nexclude = ['vendor/**', '[z-a]']\n",
                "`.reviewbot.toml` (base branch main) line 2: paths.exclude: '[z-a]' is not a valid glob (bad character range z-a at position 9)",
            ),
        ],
        ids=[
            "out-of-range",
            "unknown-key",
            "array-of-tables",
            "dotted-key",
            "inline-table",
            "after-comment",
            "advisory-hold-not-a-boolean",
            "a-glob-that-cannot-compile",
        ],
    )
    def test_validation_errors_name_the_line(self, text, message):
        """A validation error points at the line of the offending key."""
        with pytest.raises(ConfigError) as caught:
            load_config(text, origin=ORIGIN)
        assert str(caught.value) == message

    def test_syntax_error_names_line_and_column(self):
        """A TOML syntax error carries tomllib's line and column."""
        with pytest.raises(ConfigError) as caught:
            load_config("[budget]\nmax_turns = \n", origin=ORIGIN)
        assert str(caught.value) == (
            "`.reviewbot.toml` (base branch main) line 2: Invalid value (column 13)"
        )

    def test_many_errors_stay_on_one_line(self):
        """Only the first three problems are spelled out, the rest counted, all on one line."""
        text = "[budget]\nmax_turns = 0\nmax_input_tokens = 1\nmax_output_tokens = 1\nmax_cost_usd = 0\n"
        with pytest.raises(ConfigError) as caught:
            load_config(text, origin=ORIGIN)
        message = str(caught.value)
        assert "\n" not in message
        assert message.startswith("`.reviewbot.toml` (base branch main) line 2: budget.max_turns")
        assert "line 4: budget.max_output_tokens" in message
        assert message.endswith("(and 1 more)")

    def test_model_level_error_has_no_line(self):
        """An error about the whole file (clashing reviewer names) is still one line."""
        with pytest.raises(ConfigError) as caught:
            load_config("[[reviewers]]\nname = 'ci'\n", origin=ORIGIN)
        assert str(caught.value).startswith(
            "`.reviewbot.toml` (base branch main): reviewer names must be unique"
        )

    def test_multiline_strings_do_not_confuse_the_line_scan(self):
        """A `key = ` inside a multi-line string is not taken for a key."""
        text = '[[reviewers]]\nname = "sec"\nbrief = """\nmax_turns = 1\n"""\n[budget]\nmax_turns = 0\n'
        with pytest.raises(ConfigError, match=r"line 7: budget\.max_turns"):
            load_config(text, origin=ORIGIN)


class TestGlobs:
    @pytest.mark.parametrize(
        ("pattern", "path", "expected"),
        [
            ("**/package-lock.json", "package-lock.json", True),
            ("**/package-lock.json", "web/app/package-lock.json", True),
            ("**/vendor/**", "vendor/x/y.go", True),
            ("**/vendor/**", "a/vendor/y.go", True),
            ("**/vendor/**", "vendored/y.go", False),
            ("a/**/b.txt", "a/b.txt", True),
            ("a/**/b.txt", "a/x/y/b.txt", True),
            ("a/**/b.txt", "ab.txt", False),
            ("src/*.py", "src/x.py", True),
            ("src/*.py", "src/sub/x.py", False),
            ("*.lock", "deep/dir/Cargo.lock", True),
            ("*.lock", "Cargo.lock.bak", False),
            ("/build/**", "build/out.o", True),
            ("/build/**", "src/build/out.o", False),
            ("dist/", "web/dist/app.js", True),
            ("file?.txt", "file1.txt", True),
            ("file?.txt", "file/.txt", False),
            ("[ab].txt", "b.txt", True),
            ("[!ab].txt", "c.txt", True),
            ("[!ab].txt", "a.txt", False),
            ("[a-c]x", "bx", True),
            ("we[ird", "we[ird", True),
            ("**", "any/thing/at/all", True),
            ("src/**", "src", False),
            ("a.b", "axb", False),
            ("x**y", "x/y", False),
        ],
        ids=lambda v: str(v),
    )
    def test_matches(self, pattern, path, expected):
        """`*`/`?` stay within a segment; `**` spans segments; slashless patterns match anywhere."""
        assert matches_any(path, (pattern,)) is expected


class TestIsExcluded:
    @pytest.mark.parametrize(
        ("path", "excluded"),
        [
            ("poetry.lock", True),
            ("frontend/package-lock.json", True),
            ("go.sum", True),
            ("static/app.min.js", True),
            ("api/v1/service.pb.go", True),
            ("proto/thing_pb2.py", True),
            ("third_party/lib/a.c", True),
            ("node_modules/x/index.js", True),
            ("src/generated/models.py", True),
            ("src/app.py", False),
            ("docs/lockfiles.md", False),
            ("distribution/setup.py", False),
        ],
        ids=lambda v: str(v),
    )
    def test_default_excludes(self, path, excluded):
        """The defaults keep lockfiles, generated and vendored code out of the review budget."""
        assert is_excluded(path, PathsConfig()) is excluded

    def test_include_narrows_and_exclude_wins(self):
        """A path must match an include and no exclude."""
        paths = PathsConfig(include=("src/**",), exclude=("**/*_test.py",))
        assert is_excluded("src/app.py", paths) is False
        assert is_excluded("tests/app.py", paths) is True
        assert is_excluded("src/app_test.py", paths) is True

    def test_defaults_are_globs_we_understand(self):
        """Every default pattern matches at least one realistic path."""
        samples = {
            "**/package-lock.json": "package-lock.json",
            "**/yarn.lock": "a/yarn.lock",
            "**/pnpm-lock.yaml": "pnpm-lock.yaml",
            "**/poetry.lock": "poetry.lock",
            "**/uv.lock": "uv.lock",
            "**/Cargo.lock": "Cargo.lock",
            "**/Gemfile.lock": "Gemfile.lock",
            "**/composer.lock": "composer.lock",
            "**/go.sum": "go.sum",
            "**/Pipfile.lock": "Pipfile.lock",
            "**/*.min.js": "a.min.js",
            "**/*.min.css": "a/b.min.css",
            "**/*.map": "x.js.map",
            "**/*.pb.go": "a.pb.go",
            "**/*_pb2.py": "a_pb2.py",
            "**/*.generated.*": "api.generated.ts",
            "**/generated/**": "generated/x",
            "**/vendor/**": "vendor/x",
            "**/third_party/**": "third_party/x",
            "**/node_modules/**": "node_modules/x",
            "**/dist/**": "dist/x",
        }
        assert set(samples) == set(DEFAULT_EXCLUDE)
        assert all(matches_any(path, (pattern,)) for pattern, path in samples.items())
