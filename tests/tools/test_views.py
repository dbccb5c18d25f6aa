"""What the read tools showed an agent of the head, line by line: the input of coverage."""

from __future__ import annotations

import pytest

from reviewbot.coverage.seen import HeadViews
from reviewbot.text.truncate import MAX_LINE_CHARS
from reviewbot.tools.context import ToolContext
from reviewbot.tools.session import ReviewSession
from reviewbot.tools.toolbox import ToolResult
from tests.tools.factories import build_repo, make_session, with_handler


def delivered(session: ReviewSession) -> HeadViews:
    """What the session saw once the loop delivered its results to the model."""
    session.delivered()
    return session.views


@pytest.fixture
def repo(tmp_path):
    return build_repo(tmp_path)


class TestDelivery:
    def test_a_result_counts_only_once_delivered(self, repo):
        """Shown by a tool but not yet sent to the model: nothing is seen yet."""
        session = make_session(repo, seen=())
        session.call("read_file", {"path": "src/util.py"})
        assert session.views.lines == {}
        session.delivered()
        assert session.views.saw_whole("src/util.py")

    def test_a_later_undelivered_read_is_not_added(self, repo):
        """Delivered lines stay; a read after the last delivery is pending."""
        session = make_session(repo, seen=())
        session.call("read_file", {"path": "src/util.py", "start_line": 1, "end_line": 2})
        session.delivered()
        session.call("read_file", {"path": "src/util.py", "start_line": 3, "end_line": 6})
        assert session.views.lines == {"src/util.py": {1, 2}}


class TestReadFile:
    def test_a_whole_small_file_is_seen_whole(self, repo):
        """Reading all of src/util.py records its six lines and its length."""
        session = make_session(repo, seen=())
        session.call("read_file", {"path": "src/util.py"})
        assert delivered(session).saw_whole("src/util.py")

    def test_a_range_records_only_that_range(self, repo):
        """Lines 2–3 of six are shown: those two, not the file."""
        session = make_session(repo, seen=())
        session.call("read_file", {"path": "src/util.py", "start_line": 2, "end_line": 3})
        views = delivered(session)
        assert views.lines == {"src/util.py": {2, 3}}
        assert views.lengths == {"src/util.py": 6}
        assert not views.saw_whole("src/util.py")

    def test_lines_cut_from_a_long_output_are_not_seen(self, repo):
        """big.txt does not fit one answer: the omitted middle is not seen until read."""
        session = make_session(repo, seen=())
        result = session.call("read_file", {"path": "big.txt"})
        assert result.data is not None
        assert "lines omitted" in result.data.text
        views = delivered(session)
        shown = views.lines["big.txt"]
        assert {1, 3_000} <= shown
        assert 1_500 not in shown
        for start in range(1, 3_001, 1_000):  # in ranges that fit one answer
            session.call(
                "read_file", {"path": "big.txt", "start_line": start, "end_line": start + 999}
            )
        assert delivered(session).saw_whole("big.txt")

    def test_a_clipped_line_is_not_seen(self, repo):
        """A line longer than the clip limit is shown cut: it does not count as seen."""
        (repo.root / "wide.py").write_text(f"a = 1\nb = '{'x' * (MAX_LINE_CHARS + 10)}'\nc = 3\n")
        session = make_session(repo, seen=())
        session.call("read_file", {"path": "wide.py"})
        assert delivered(session).lines == {"wide.py": {1, 3}}

    def test_a_link_records_the_file_it_shows(self, repo):
        """Through link_in.py the model sees src/app.py: that file's lines are recorded."""
        session = make_session(repo, seen=())
        session.call("read_file", {"path": "link_in.py", "end_line": 2})
        assert delivered(session).lines == {"src/app.py": {1, 2}}

    def test_an_empty_file_is_seen_whole(self, repo):
        """Nothing to show is all there is."""
        (repo.root / "empty.py").write_text("")
        session = make_session(repo, seen=())
        session.call("read_file", {"path": "empty.py"})
        assert delivered(session).saw_whole("empty.py")


class TestOtherTools:
    def test_git_blame_records_its_range(self, repo):
        """Blame shows head lines with their numbers: they count."""
        session = make_session(repo, seen=())
        session.call("git_blame", {"path": "src/app.py", "start_line": 6, "end_line": 8})
        assert delivered(session).lines == {"src/app.py": {6, 7, 8}}

    def test_search_hits_and_git_show_do_not_count(self, repo):
        """Fragments and other revisions are not a reading of the head file."""
        session = make_session(repo, seen=())
        session.call("search_code", {"regex": "def"})
        session.call("git_show", {"path": "src/app.py"})
        assert delivered(session).lines == {}


class TestSession:
    def test_a_result_the_session_cuts_records_nothing(self, repo):
        """When the session cuts a tool's answer, the lines the tool claimed were not shown."""

        def claims_all(ctx: ToolContext, args: object) -> ToolResult:
            ctx.views.show("src/util.py", range(1, 7), total=6)
            return ToolResult(content="x" * 50_000)

        session = with_handler(make_session(repo, seen=()), "read_file", claims_all)
        result = session.call("read_file", {"path": "src/util.py"})
        assert "characters omitted" in result.content
        assert delivered(session).lines == {}

    def test_views_are_per_session_and_a_copy(self, repo):
        """One agent's reads are its own; the exposed views cannot change the session's."""
        first, second = make_session(repo, seen=()), make_session(repo, seen=())
        first.call("read_file", {"path": "src/util.py"})
        first.delivered()
        second.delivered()
        first.views.lines.clear()
        assert first.views.saw_whole("src/util.py")
        assert second.views.lines == {}
