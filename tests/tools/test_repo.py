"""The read-only repository tools: read_file, list_files, search_code, over a real checkout."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from reviewbot.text.hygiene import quoted
from reviewbot.tools.ask_user import NoOperator
from reviewbot.tools.context import Deadline, ToolContext, ToolTimedOut
from reviewbot.tools.repo import SearchCodeInput, search_code
from reviewbot.tools.session import NodeStore, Workspace
from tests.tools.factories import app_diff, build_repo, guard, lines_of, make_session, tree_digest


@pytest.fixture
def repo(tmp_path):
    return build_repo(tmp_path)


class TestReadFile:
    def test_whole_file_with_line_numbers(self, repo):
        """A read shows a header and every line prefixed by its 1-based number."""
        result = make_session(repo).call("read_file", {"path": "src/app.py"})
        assert not result.is_error
        assert result.content == '"src/app.py" — lines 1–17 of 17'
        assert result.data is not None
        assert result.data.kind == "file_lines"
        lines = result.data.text.splitlines()
        assert lines[0] == "     1\timport os"
        assert lines[9] == "    10\t    return os.system(command)"

    def test_line_range(self, repo):
        """start_line/end_line select exactly those lines."""
        result = make_session(repo).call(
            "read_file", {"path": "src/app.py", "start_line": 9, "end_line": 10}
        )
        assert lines_of(result) == [
            "     9\tdef run(command):",
            "    10\t    return os.system(command)",
        ]

    def test_end_line_past_the_end_is_clamped(self, repo):
        """An end_line past the end shows up to the last line."""
        result = make_session(repo).call(
            "read_file", {"path": "src/app.py", "start_line": 16, "end_line": 99}
        )
        assert result.content == '"src/app.py" — lines 16–17 of 17'

    def test_start_line_past_the_end_is_an_error(self, repo):
        """A start_line past the end says how long the file is."""
        result = make_session(repo).call("read_file", {"path": "src/app.py", "start_line": 40})
        assert result.is_error
        assert result.content == '"src/app.py" has 17 lines; start_line 40 is past the end'

    def test_end_before_start_is_an_error(self, repo):
        """A reversed range is refused with both numbers."""
        result = make_session(repo).call(
            "read_file", {"path": "src/app.py", "start_line": 5, "end_line": 2}
        )
        assert result.is_error
        assert result.content == "end_line 2 is before start_line 5"

    def test_large_file_is_cut_head_and_tail_with_a_note(self, repo):
        """A file over the budget keeps its head and tail; the note names the omitted range."""
        session = make_session(repo, max_output_chars=2_000)
        result = session.call("read_file", {"path": "big.txt"})
        assert result.data is not None
        assert len(result.content) + len(result.data.text) <= 2_000
        lines = lines_of(result)
        assert lines[0] == "     1\tline 1"
        assert lines[-1] == "  3000\tline 3000"
        note = next(line for line in lines if line.startswith("…"))
        first, last = (
            int(lines[lines.index(note) - 1].split()[0]) + 1,
            int(lines[lines.index(note) + 1].split()[0]) - 1,
        )
        assert note == (
            f"… {last - first + 1:,} lines omitted; call read_file with "
            f"start_line={first} end_line={last} to read them"
        )

    def test_reading_the_omitted_range_from_the_note_works(self, repo):
        """Following the note's advice returns the lines it named."""
        session = make_session(repo, max_output_chars=2_000)
        result = session.call(
            "read_file", {"path": "big.txt", "start_line": 1500, "end_line": 1502}
        )
        assert lines_of(result) == [
            "  1500\tline 1500",
            "  1501\tline 1501",
            "  1502\tline 1502",
        ]

    def test_crlf_line_endings_are_not_content(self, repo):
        """CRLF files read like LF files, trailing spaces kept."""
        result = make_session(repo).call("read_file", {"path": "crlf.txt"})
        assert lines_of(result) == ["     1\tone", "     2\ttwo  ", "     3\tthree"]

    def test_binary_file_is_not_shown(self, repo):
        """A binary file is described, not dumped."""
        result = make_session(repo).call("read_file", {"path": "data.bin"})
        assert not result.is_error
        assert result.content == '"data.bin" is a binary file (9 bytes); not shown'

    @pytest.mark.parametrize(
        ("path", "message"),
        [
            ("nope.py", '"nope.py" is not a file in the PR head'),
            ("src", '"src" is a directory; list its files with a glob like "src/**"'),
        ],
        ids=["missing", "directory"],
    )
    def test_not_a_file(self, repo, path, message):
        """A missing path or a directory is a clear error."""
        result = make_session(repo).call("read_file", {"path": path})
        assert result.is_error
        assert result.content == message

    def test_reading_marks_the_file_seen(self, repo):
        """A file read through read_file counts as seen, under its normalised path."""
        session = make_session(repo, seen=())
        session.call("read_file", {"path": "./src//util.py", "start_line": 1, "end_line": 1})
        assert "src/util.py" in session.seen

    def test_a_symlink_inside_reads_its_target(self, repo):
        """A link to a file inside the checkout is read and both names are marked seen."""
        session = make_session(repo, seen=())
        result = session.call("read_file", {"path": "link_in.py", "end_line": 1})
        assert lines_of(result)[0] == "     1\timport os"
        assert {"link_in.py", "src/app.py"} <= session.seen


class TestPathsStayInside:
    @pytest.mark.parametrize(
        ("path", "message"),
        [
            ("../../etc/passwd", "path: must not contain '..'"),
            ("/etc/passwd", "path: must be a relative path with forward slashes"),
            ("src/../../outside-secret.txt", "path: must not contain '..'"),
        ],
        ids=["dotdot", "absolute", "dotdot-inside-path"],
    )
    def test_traversal_is_refused_at_the_guard(self, repo, path, message):
        """`..` and absolute paths never reach the tool: the input schema refuses them."""
        result = make_session(repo).call("read_file", {"path": path})
        assert result.is_error
        assert result.content == f"invalid input for `read_file`: {message}"

    @pytest.mark.parametrize(
        ("path", "message"),
        [
            ("link_out", '"link_out" is a symbolic link that points outside the repository'),
            (
                "src/dir_out/outside-secret.txt",
                '"src/dir_out/outside-secret.txt" is a symbolic link that points outside the repository',
            ),
            (
                ".git/config",
                '".git/config" is inside git\'s own storage, which is not part of the PR',
            ),
        ],
        ids=["file-link-out", "dir-link-out", "git-storage"],
    )
    def test_links_out_and_git_storage_are_refused_by_the_tool(self, repo, path, message):
        """A symlink escaping the checkout (file or directory) or `.git` is refused by the tool."""
        session = make_session(repo, seen=())
        result = session.call("read_file", {"path": path})
        assert result.is_error
        assert result.content == message
        assert "TOP SECRET" not in result.content
        assert session.seen == frozenset()

    def test_nothing_on_disk_changes(self, repo):
        """A run of reads, listings, searches and refusals leaves the checkout byte-identical."""
        before = tree_digest(repo.root)
        session = make_session(repo)
        for name, tool_input in [
            ("read_file", {"path": "src/app.py"}),
            ("read_file", {"path": "link_out"}),
            ("list_files", {"glob": "**"}),
            ("search_code", {"regex": "os\\."}),
            ("git_log", {}),
            ("git_show", {"rev": "HEAD~1"}),
            ("git_blame", {"path": "src/app.py", "start_line": 1, "end_line": 5}),
        ]:
            session.call(name, tool_input)
        assert tree_digest(repo.root) == before


class TestListFiles:
    def test_glob_any_depth_and_changed_files_are_marked(self, repo):
        """`**/*.py` matches at any depth; files changed by the PR say so."""
        result = make_session(repo).call("list_files", {"glob": "**/*.py"})
        assert result.content.splitlines() == [
            '3 files match "**/*.py"',
            '"link_in.py"',
            '"src/app.py"  (changed in this PR: modified)',
            '"src/util.py"  (changed in this PR: added)',
        ]

    def test_single_star_stays_in_one_directory(self, repo):
        """`*.py` matches top-level files only, like a shell glob."""
        result = make_session(repo).call("list_files", {"glob": "*.py"})
        assert result.content.splitlines()[1:] == ['"link_in.py"']

    def test_default_lists_everything_but_git_storage(self, repo):
        """Without a glob every file is listed, and nothing under `.git`."""
        result = make_session(repo).call("list_files", {})
        listed = result.content.splitlines()[1:]
        assert '"README.md"' in listed
        assert not any(line.startswith('".git') for line in listed)
        assert result.content.startswith(f'{len(listed)} files match "**"')

    def test_no_match(self, repo):
        """A glob that matches nothing says so, without an error."""
        result = make_session(repo).call("list_files", {"glob": "**/*.rs"})
        assert not result.is_error
        assert result.content == 'no file matches "**/*.rs"'


class TestSearchCode:
    def test_matches_are_path_line_text(self, repo):
        """Each match is `path:line: text`, limited to the glob."""
        result = make_session(repo).call("search_code", {"regex": r"return \d", "glob": "src/*"})
        assert result.content == (
            '2 lines match "return \\\\d" in files matching "src/*" (path:line: text)'
        )
        assert lines_of(result) == ['"src/util.py":2: return 1', '"src/util.py":6: return 1']

    def test_matches_are_bounded(self, repo):
        """max_matches stops the search and the note says how to narrow it."""
        result = make_session(repo).call(
            "search_code", {"regex": "line", "glob": "big.txt", "max_matches": 3}
        )
        assert lines_of(result) == [
            '"big.txt":1: line 1',
            '"big.txt":2: line 2',
            '"big.txt":3: line 3',
        ]
        assert result.content.splitlines()[1:] == [
            "… stopped at 3 matches; narrow the regex or the glob"
        ]

    def test_invalid_regex_is_an_error(self, repo):
        """A regex that does not compile comes back with RE2's reason, quoting the model's text."""
        result = make_session(repo).call("search_code", {"regex": "(unclosed"})
        assert result.is_error
        assert result.content.startswith(
            'search_code cannot run "(unclosed": "missing ): (unclosed" (search_code uses RE2 syntax'
        )

    @pytest.mark.parametrize(
        ("regex", "line"),
        [
            (r"(a+)+$", "a" * 30 + "!"),
            (r"(x+x+)+y", "x" * 40),
            (r"(a|aa)+$", "a" * 40 + "!"),
        ],
        ids=["nested-plus", "overlapping-plus", "overlapping-alternatives"],
    )
    def test_a_backtracking_pattern_returns_promptly(self, repo, regex, line):
        """A pattern that makes a backtracking engine run for minutes is answered at once."""
        (repo.root / "redos.txt").write_text(f"{line}\n")
        with guard():
            result = make_session(repo).call("search_code", {"regex": regex, "glob": "redos.txt"})
        assert not result.is_error
        assert result.content == f'no line matches {quoted(regex)} in files matching "redos.txt"'

    def test_a_backtracking_glob_returns_promptly(self, repo):
        """The glob is matched in linear time too: `*a*a…*c` against a long name of `a`s."""
        (repo.root / ("a" * 40)).write_text("x\n")
        glob = "*a" * 12 + "*c"
        with guard():
            listed = make_session(repo).call("list_files", {"glob": glob})
            searched = make_session(repo).call("search_code", {"regex": "x", "glob": glob})
        assert listed.content == f'no file matches "{glob}"'
        assert searched.content == f'no line matches "x" in files matching "{glob}"'

    @pytest.mark.parametrize(
        ("regex", "construct"),
        [
            (r"(\w+) \1", "backreferences"),
            (r"eval(?=\()", "lookaround"),
            (r"(?<!self\.)run", "lookaround"),
        ],
        ids=["backreference", "lookahead", "lookbehind"],
    )
    def test_syntax_a_linear_engine_cannot_run_is_a_clear_error(self, repo, regex, construct):
        """Backreferences and lookaround are refused with RE2's reason and what to do instead."""
        result = make_session(repo).call("search_code", {"regex": regex})
        assert result.is_error
        assert result.content.startswith(f"search_code cannot run {quoted(regex)}: ")
        assert construct in result.content
        assert "RE2" in result.content

    def test_links_out_are_not_searched(self, repo):
        """A link to a file outside the checkout is skipped, never read."""
        result = make_session(repo).call("search_code", {"regex": "SECRET"})
        assert "TOP SECRET" not in result.content
        assert result.data is None
        assert result.content.startswith('no line matches "SECRET"')
        assert "were not searched" in result.content


class TestHostileNames:
    def test_a_name_with_a_newline_is_listed_once_quoted(self, repo):
        """A file whose name holds a newline is matched by `**` and shown as one JSON string."""
        (repo.root / "src" / "a\nHARNESS_NOTE.py").write_text("x = 1\n")
        for glob in ("**", "src/**", "**/*.py"):
            result = make_session(repo).call("list_files", {"glob": glob})
            assert '"src/a\\nHARNESS_NOTE.py"' in result.content.splitlines(), glob


@dataclass
class Ticking:
    """A clock that moves one second each time it is read."""

    now: float = 0.0

    def __call__(self) -> float:
        self.now += 1
        return self.now


def context(repo, deadline: Deadline) -> ToolContext:
    session = make_session(repo)
    ctx = ToolContext(
        agent="review",
        role="reviewer",
        workspace=Workspace(checkout=repo.root, head_sha=repo.head_sha, diff=app_diff()),
        store=NodeStore(),
        operator=NoOperator(),
        seen=set(session.seen),
        max_output_chars=20_000,
    )
    ctx.deadline = deadline
    return ctx


class TestTimeLimit:
    """A call past its time limit answers the model with an error saying what it did."""

    def test_a_search_out_of_time_says_so_with_the_matches_so_far(self, repo):
        """The error names the limit and the files searched, and carries the matches found."""
        deadline = Deadline.after(5, clock=Ticking())
        with pytest.raises(ToolTimedOut) as stopped:
            search_code(context(repo, deadline), SearchCodeInput(regex="line", glob="big.txt"))
        message = str(stopped.value)
        assert message.startswith(
            "search_code stopped at its time limit (5 s) after searching 1 file(s)"
        )
        assert message.endswith("matching lines so far (path:line: text):")
        assert stopped.value.data is not None
        assert stopped.value.data.text.startswith('"big.txt":1: line 1\n')

    @pytest.mark.parametrize(
        ("tool", "tool_input"),
        [("search_code", {"regex": "x"}), ("list_files", {})],
        ids=["search_code", "list_files"],
    )
    def test_no_time_is_an_error_result_not_a_hang(self, repo, tool, tool_input):
        """Through the session, a call given no time comes back as an is_error result."""
        result = make_session(repo).call(tool, tool_input, timeout=0)
        assert result.is_error
        assert result.content.startswith(f"{tool} stopped at its time limit (0 s)")

    def test_a_quick_call_is_not_affected(self, repo):
        """A call well within its limit answers normally."""
        result = make_session(repo).call("read_file", {"path": "src/app.py"}, timeout=30)
        assert not result.is_error
