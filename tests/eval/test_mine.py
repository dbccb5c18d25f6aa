"""The SZZ miner on repositories built here: what is a bug-introducing PR, and what is not."""

from __future__ import annotations

import pytest

from reviewbot.eval.mine import (
    MineOptions,
    docstring_lines,
    is_code,
    is_comment_or_blank,
    mine,
    selected,
)
from reviewbot.sources.git_history import History
from tests.eval.history_repo import CODE, FIXED, Builder, with_buggy_pr


@pytest.fixture
def repo(tmp_path):
    builder = Builder(tmp_path / "repo")
    builder.commit("Initial commit", {"README.md": "# demo\n", "app.py": "VERSION = 1\n"})
    return builder


def run(repo: Builder, **options):
    return mine(History(repo.path), MineOptions(**options))


def test_a_bug_introduced_by_pr_1_and_fixed_later_is_found(repo):
    merge = with_buggy_pr(repo)
    fix = repo.commit("Fix add() returning the difference", {"calc.py": FIXED})
    entries, stats = run(repo)
    assert [e.pr.number for e in entries] == [1]
    entry = entries[0]
    assert (entry.pr.sha, entry.pr.title) == (merge, "Add an add() helper")
    assert entry.pr.base == repo.git("rev-parse", f"{merge}^1")
    assert entry.pr.head == repo.git("rev-parse", "add")
    [found] = entry.fixes
    assert found.commit.sha == fix
    assert [(ln.path, ln.line, ln.text) for ln in found.lines] == [
        ("calc.py", 3, "    return a - b")
    ]
    assert (stats.prs, stats.fixes, stats.blamed_to_pr) == (1, 1, 1)


def test_a_squash_merged_pr_is_blamed_and_a_fix_reference_counts(repo):
    squash = repo.commit("Add add() helper (#7)", {"calc.py": CODE})
    repo.commit("Correct the sum\n\nCloses #12", {"calc.py": FIXED})
    entries, _ = run(repo)
    assert [(e.pr.number, e.pr.sha, e.pr.base) for e in entries] == [
        (7, squash, repo.git("rev-parse", f"{squash}^"))
    ]


def test_a_message_that_does_not_say_fix_is_not_a_fix(repo):
    with_buggy_pr(repo)
    repo.commit("Use the sum in add()", {"calc.py": FIXED})
    entries, stats = run(repo)
    assert (entries, stats.fixes) == ([], 0)


@pytest.mark.parametrize(
    "subject",
    [
        "fix pyright findings",
        "Fix test for delayed display",
        "fix merge",
        "Fix typos",
        "fix new mypy findings",
        "apply ruff fixes",
        "[pre-commit.ci] auto fixes from pre-commit.com hooks",
        "pydocstyle and flake8 fixes",
        "pep8 fix",
    ],
)
def test_a_fix_of_the_tooling_is_not_a_bug_fix(repo, subject):
    """The message says fix, but of a checker, a test, a merge or a typo: no bug to blame."""
    with_buggy_pr(repo)
    repo.commit(subject, {"calc.py": FIXED})
    entries, stats = run(repo)
    assert (entries, stats.fixes) == ([], 0)


def test_in_a_checkers_own_history_a_fix_naming_it_is_a_bug_fix(repo):
    """In mypy's repository "Fix mypy crash on …" fixes the product; another checker's name
    still says tooling."""
    with_buggy_pr(repo)
    repo.commit("Fix mypy crash on add()", {"calc.py": FIXED})
    assert [e.pr.number for e in run(repo, project="mypy")[0]] == [1]
    assert run(repo, project="Mypy")[1].fixes == 1
    assert run(repo)[1].fixes == 0
    assert run(repo, project="ruff")[1].fixes == 0


def test_a_whitespace_fix_is_not_blamed(repo):
    with_buggy_pr(repo)
    repo.commit(
        "Fix indentation", {"calc.py": CODE.replace("    return a - b", "  return a  -  b")}
    )
    entries, stats = run(repo)
    assert entries == []
    assert stats.filtered == {"whitespace only": 1}


def test_a_comment_only_fix_is_not_blamed(repo):
    with_buggy_pr(repo)
    repo.commit("Fix the comment of add()", {"calc.py": CODE.replace("# sum of", "# the sum of")})
    entries, stats = run(repo)
    assert entries == []
    assert stats.filtered == {"blank or comment only": 1}


def test_a_fix_that_only_adds_lines_is_not_blamed(repo):
    with_buggy_pr(repo)
    repo.commit("Fix: check the types", {"calc.py": CODE.replace("):\n", "):\n    assert a\n", 1)})
    entries, stats = run(repo)
    assert entries == []
    assert stats.add_only == 1


def test_a_fix_that_moves_code_is_not_blamed(repo):
    with_buggy_pr(repo)
    moved = CODE.split("\n\n\n")
    repo.commit("Fix the order of the helpers", {"calc.py": moved[1] + "\n\n" + moved[0] + "\n"})
    entries, stats = run(repo)
    assert entries == []
    assert stats.filtered.get("moved, not changed", 0) >= 1


def test_a_name_the_fix_renamed_is_not_blamed(repo):
    """The fix renames a local and corrects one line: only the corrected line was the bug."""
    code = (
        "def total(values):\n    result_sum = 0\n    for value in values:\n"
        "        result_sum = result_sum - value\n    return result_sum\n"
    )
    repo.branch("total")
    repo.commit("Add total()", {"calc.py": code})
    repo.merge_pr(1, "total", "Add total()")
    fixed = code.replace("result_sum", "running_total").replace("- value", "+ value")
    repo.commit("Fix total() subtracting", {"calc.py": fixed})
    [entry], stats = run(repo)
    assert [ln.text for ln in entry.fixes[0].lines] == ["        result_sum = result_sum - value"]
    assert stats.filtered == {"renamed, not changed": 2}


def test_a_name_from_outside_swapped_for_another_is_a_change(repo):
    """An imported name replaced by the right one is the fix, not a rename."""
    code = (
        "from http.client import IncompleteRead\n\n\ndef read(response):\n    try:\n"
        "        return response.read()\n    except IncompleteRead:\n        return b''\n"
    )
    repo.branch("read")
    repo.commit("Add read()", {"net.py": code})
    repo.merge_pr(1, "read", "Add read()")
    repo.commit(
        "Fix read() on a dropped connection",
        {"net.py": code.replace("IncompleteRead", "ProtocolError")},
    )
    [entry], stats = run(repo)
    assert len(entry.fixes[0].lines) == 2
    assert stats.filtered == {}


def test_a_rename_is_not_the_introducing_pr(repo):
    """PR 1 writes the bug, PR 2 renames the file: the fix is blamed on PR 1 only."""
    with_buggy_pr(repo)
    repo.branch("rename")
    repo.move("calc.py", "arith.py", "Rename calc to arith")
    repo.merge_pr(2, "rename", "Rename calc.py")
    repo.commit("Fix add()", {"arith.py": FIXED})
    entries, _ = run(repo)
    assert [(e.pr.number, e.fixes[0].lines[0].path) for e in entries] == [(1, "calc.py")]


def test_code_moved_to_another_file_keeps_its_origin(repo):
    """PR 2 moves a function into its own module: blame follows the move back to PR 1.

    (git looks for moved code of at least 40 letters and digits: a real function's size.)
    """
    body = "def total(first_number, second_number):\n    return first_number - second_number\n"
    repo.branch("add")
    repo.commit("Add total()", {"calc.py": body + "\n\n" + "def keep():\n    return 1\n"})
    repo.merge_pr(1, "add", "Add total()")
    repo.branch("split")
    repo.commit("Split the helpers", {"calc.py": "def keep():\n    return 1\n", "sums.py": body})
    repo.merge_pr(2, "split", "Split calc.py")
    repo.commit("Fix total()", {"sums.py": body.replace(" - ", " + ")})
    entries, _ = run(repo)
    assert [(e.pr.number, e.fixes[0].lines[0].path) for e in entries] == [(1, "calc.py")]


def test_a_merge_of_the_base_is_not_blamed(repo):
    """A bug that came in by merging the maintenance branch is no PR's."""
    repo.branch("1.x")
    repo.commit("Add add() on 1.x", {"calc.py": CODE})
    repo.checkout("main")
    repo.merge("1.x", "Merge branch '1.x'")
    repo.commit("Fix add()", {"calc.py": FIXED})
    entries, stats = run(repo)
    assert entries == []
    assert stats.filtered == {"blamed on a merge that is not a PR": 1}


def test_a_pr_that_merged_its_base_is_not_blamed_for_the_base(repo):
    """PR 3 merges main (with a bug pushed there) into its branch: the bug is not PR 3's."""
    repo.branch("feature")
    repo.commit("Feature work", {"feature.py": "FLAG = True\n"})
    repo.checkout("main")
    repo.commit("Add add()", {"calc.py": CODE})
    repo.checkout("feature")
    repo.merge("main", "Merge branch 'main' into feature")
    repo.merge_pr(3, "feature", "A feature")
    repo.commit("Fix add()", {"calc.py": FIXED})
    entries, stats = run(repo)
    assert entries == []
    assert stats.filtered == {"blamed outside a PR": 1}


def test_test_and_doc_changes_are_not_bugs(repo):
    repo.branch("docs")
    repo.commit("Docs and tests", {"docs/usage.rst": "Use add.\n", "tests/test_calc.py": "x = 1\n"})
    repo.merge_pr(4, "docs", "Docs")
    repo.commit(
        "Fix usage and its check",
        {"docs/usage.rst": "Use add().\n", "tests/test_calc.py": "x = 2\n"},
    )
    entries, stats = run(repo)
    assert entries == []
    assert stats.filtered == {"not a code file, or not in --paths": 2}


def test_build_ci_and_tooling_files_are_not_bugs(repo):
    """A fix of the docs build, the CI, a dev tool's settings or the README: no bug shipped."""
    tooling = {
        "docs/conf.py": "project = 'demo'\n",
        ".github/workflows/ci.yml": "on: push\n",
        "tox.ini": "[tox]\nenvlist = py312\n",
        "Makefile": "test:\n\tpytest\n",
        "README": "Install it.\n",
    }
    repo.branch("tooling")
    repo.commit("Set up the tooling", tooling)
    repo.merge_pr(5, "tooling", "Tooling")
    repo.commit("Fix the tooling", {path: text.upper() for path, text in tooling.items()})
    entries, stats = run(repo)
    assert entries == []
    assert stats.filtered == {"not a code file, or not in --paths": 7}


def test_since_paths_and_limit(repo):
    with_buggy_pr(repo)
    repo.branch("other")
    repo.commit("Add lib", {"lib/util.py": "X = 1\n"})
    later = repo.merge_pr(2, "other", "Add lib")
    repo.commit("Fix both", {"calc.py": FIXED, "lib/util.py": "X = 2\n"})
    assert [e.pr.number for e in run(repo)[0]] == [2, 1]  # newest first
    assert [e.pr.number for e in run(repo, limit=1)[0]] == [2]
    assert [e.pr.number for e in run(repo, paths=("lib",))[0]] == [2]
    assert [e.pr.number for e in run(repo, paths=("*.py",))[0]] == [2, 1]
    since = int(repo.git("log", "-1", "--format=%ct", later))
    assert [e.pr.number for e in run(repo, since=since)[0]] == [2]


def test_the_first_fix_of_a_line_wins(repo):
    with_buggy_pr(repo)
    first = repo.commit("Fix add()", {"calc.py": FIXED})
    repo.commit("Fix add() again", {"calc.py": FIXED.replace("a + b", "b + a")})
    [entry], _ = run(repo)
    assert [f.commit.sha for f in entry.fixes] == [first]


@pytest.mark.parametrize(
    ("path", "text", "expected"),
    [
        ("a.py", "   # note", True),
        ("a.py", "x = 1  # note", False),
        ("a.js", " // note", True),
        ("a.c", " * note", True),
        ("a.sql", "-- note", True),
        ("a.py", "   ", True),
        ("a.go", "x := 1", False),
    ],
)
def test_comment_syntax(path, text, expected):
    assert is_comment_or_blank(path, text) is expected


def test_code_and_path_selection():
    assert is_code("src/click/core.py")
    assert not is_code("tests/test_core.py")
    assert not is_code("src/x_test.go")
    assert not is_code("docs/index.rst")
    assert not is_code("CHANGES.rst")
    assert not is_code("README")
    assert not is_code("docs/conf.py")
    assert not is_code(".azure-pipelines.yml")
    assert not is_code(".github/workflows/ci.yml")
    assert not is_code("tox.ini")
    assert not is_code("MANIFEST.in")
    assert is_code("setup.py")
    assert is_code("src/app/history.py")
    assert is_code("src/app/license.py")
    assert is_code("src/app/config.yml")
    assert not is_code("web/.eslintrc.js")
    assert selected("src/click/core.py", ("src/click",))
    assert not selected("src/x.py", ("src/click",))
    assert selected("src/a.py", ("src/*.py",))
    assert selected("anything", ())


def test_a_docstring_fix_is_not_blamed(repo):
    documented = (
        'def add(a, b):\n    """Add a and b,\n    returning the sum."""\n    return a + b\n'
    )
    repo.branch("doc")
    repo.commit("Add add()", {"calc.py": documented})
    repo.merge_pr(1, "doc", "Add add()")
    repo.commit(
        "Fix what add() says it does", {"calc.py": documented.replace("the sum", "their sum")}
    )
    entries, stats = run(repo)
    assert entries == []
    assert stats.filtered == {"docstring": 1}


def test_docstring_lines():
    source = 'x = """not a docstring\n"""\n\n\ndef f():\n    """One,\n    two."""\n    return "s"\n'
    assert docstring_lines(source) == {6, 7}
    assert docstring_lines("print 'python 2'\n  bad indent\n") == set()
