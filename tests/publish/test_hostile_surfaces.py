"""Every surface reviewbot posts, with the hostile fixture in every untrusted field.

A report whose titles, bodies, suggestions, paths, reasons, axis details, agent
summaries, errors, notes and coverage notes all carry the payloads of
`tests.fakes.hostile` is published to the fake GitHub; each body it receives is
rendered as GitHub renders it. Markdown surfaces (inline comments, the review
body, the summary comment, the check run's summary and the step summary) must be
inert and keep the structure of the same report with harmless texts; plain-text
surfaces (the check-run title, the commit-status description) must show every
character and stay one line; the check run's annotations (plain text too) must also
link nothing outside the repository, mention nobody and reference nothing. reviewbot's own links, suggestion blocks and
markers still work.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from reviewbot.config.settings import Settings
from reviewbot.coverage.model import Coverage, SkippedFile, UnseenFile
from reviewbot.memory.markers import NODE_TAG, SUMMARY_TAG, find_markers
from reviewbot.nodes import Kind, Priority, ReviewNode, Status
from reviewbot.output.emit import write_actions_outputs
from reviewbot.output.markdown import summary_markdown
from reviewbot.publish.inert import plain
from reviewbot.redact import Redactor
from reviewbot.results.report import ReasonReport, Report
from reviewbot.verdict.fold import Source
from tests.fakes import hostile
from tests.fakes.github_markdown import assert_inert, render
from tests.fakes.server import LoopbackServer
from tests.publish.conftest import (
    HEAD,
    LINKS,
    REPO,
    assert_plain_inert,
    bodies,
    fake_pull,
    make_publisher,
    make_report,
    make_snapshot,
    node,
)

SUGGESTION = "x3 = 30\nx4 = 40"


def _report(*, payload: str, title: str, path: str) -> Report:
    """Every untrusted field of a report filled with `payload` (`title` for one-line fields)."""
    nodes: tuple[ReviewNode, ...] = (
        node(
            id="review-1",
            priority=Priority.P0,
            title=title,
            body=payload,
            lines=(3, 4),
            suggestion=SUGGESTION,
            status=Status.CONSENSUS_READY,
        ),
        node(
            id="review-2",
            priority=Priority.P1,
            title=title,
            body=payload,
            lines=(5, 5),
            suggestion=f"{payload}\n\u202ex5 = 5",
        ),
        node(id="review-3", kind=Kind.QUESTION, title=title, body=payload, path=path, lines=(1, 1)),
        node(
            id="review-4",
            kind=Kind.TICKET,
            priority=Priority.P3,
            title=title,
            body=payload,
            path=None,
        ),
    )
    base = make_report(nodes, verdict="block")
    reasons = (
        ReasonReport(
            verdict="block",
            source=Source.AXIS,
            name="review",
            text=f"gated axis `review` failed: {title}",
        ),
        ReasonReport(
            verdict="block",
            source=Source.NODE,
            name="review-1",
            text=f"P0 bug “{title}” (confirmed P0 → fail)",
        ),
    )
    axes = tuple(a.model_copy(update={"detail": title}) for a in base.axes)
    agents = tuple(
        a.model_copy(update={"summary": payload, "notes": (title,), "error": title})
        for a in base.agents
    )
    coverage = Coverage(
        files_total=3,
        files_in_context=1,
        files_listed=(
            SkippedFile(path=path, reason=title),
            SkippedFile(path=f"{path}~", reason=title),
        ),
        unseen=(UnseenFile(path=f"{path}~", reason=title, remedy=title),),
        partial=True,
        notes=(title,),
    )
    return base.model_copy(
        update={"reasons": reasons, "axes": axes, "agents": agents, "coverage": coverage}
    )


HOSTILE = {"payload": hostile.PAYLOAD, "title": hostile.TITLE, "path": hostile.BACKTICK_PATH}
HARMLESS = {"payload": "Plain words.", "title": "A plain title", "path": "src/plain.py"}


def _publish(checkout: Path, texts: dict[str, str], *, forbidden: bool = False) -> dict:
    """Publish the report to a fresh fake GitHub; every text it received, by surface."""
    fake = fake_pull()
    fake.github.checks_allowed = not forbidden
    with LoopbackServer(fake.github) as served:
        publisher = make_publisher(served.url, redactor=Redactor())
        publisher.publish(_report(**texts), make_snapshot(checkout))
        return _received(served, forbidden=forbidden)


def _received(served: LoopbackServer, *, forbidden: bool) -> dict:
    (review,) = bodies(served, "POST", "/reviews")
    sent = {
        "inline": [c["body"] for c in review["comments"]],
        "review": review["body"],
        "summary": bodies(served, "POST", "/comments")[0]["body"],
    }
    if forbidden:
        sent["status description"] = bodies(served, "POST", f"/statuses/{HEAD}")[0]["description"]
    else:
        output = bodies(served, "POST", "/check-runs")[0]["output"]
        sent |= {"check title": output["title"], "check summary": output["summary"]}
        sent["annotations"] = output.get("annotations", [])
        assert "text" not in output  # the check run's text is not sent (nothing to sanitize)
    return sent


MARKDOWN = ("review", "summary", "check summary")


@pytest.fixture
def sent(checkout):
    return _publish(checkout, HOSTILE)


class TestMarkdownSurfaces:
    @pytest.mark.parametrize("surface", MARKDOWN, ids=str)
    def test_surface_is_inert(self, sent, surface):
        """No image, raw HTML, outside link, mention or reference on the surface."""
        assert_inert(sent[surface], LINKS)

    def test_inline_comments_are_inert(self, sent):
        """Each inline comment is inert too."""
        assert len(sent["inline"]) == 2
        for body in sent["inline"]:
            assert_inert(body, LINKS)

    @pytest.mark.parametrize("surface", [*MARKDOWN, "inline"], ids=str)
    def test_structure_is_the_structure_of_harmless_text(self, checkout, sent, surface):
        """Headings, lists, quotes and tables are the ones the same report with harmless texts has."""
        harmless = _publish(checkout, HARMLESS)

        def shape(text):
            return {k: v for k, v in render(text).structure().items() if k != "pre"}

        if surface == "inline":
            assert [shape(t) for t in sent[surface]] == [shape(t) for t in harmless[surface]]
        else:
            assert shape(sent[surface]) == shape(harmless[surface])

    def test_own_links_suggestions_and_markers_still_work(self, sent):
        """The head-commit links, the committable suggestion and every marker survive."""
        review = render(sent["review"])
        path = "src/we%60ird%20%7C%20name.py"
        assert f"https://github.com/{REPO}/blob/{HEAD}/{path}#L1" in review.links
        assert hostile.BACKTICK_PATH in review.code  # the path, whole, backticks and all
        first = render(sent["inline"][0])
        assert '<pre lang="suggestion"><code>x3 = 30\nx4 = 40\n</code></pre>' in first.html
        second = render(sent["inline"][1])
        assert '<pre lang="suggestion">' not in second.html
        assert "+⟨U+202E⟩x5 = 5" in second.code[-1]  # shown as a diff, the bidi control visible
        ids = [
            m["id"] for t in (*sent["inline"], sent["review"]) for m in find_markers(t, NODE_TAG)
        ]
        assert sorted(ids) == ["review-1", "review-2", "review-3", "review-4"]
        assert len(find_markers(sent["summary"], SUMMARY_TAG)) == 1

    def test_titles_in_reasons_and_cells_read_whole(self, sent):
        """A title with a backtick and a pipe is shown as written, not cut by a code span or a cell."""
        shown = render(sent["summary"]).text()
        assert "“### ✅ Ship — @\u200boctocat #123 ![x](http://attacker.invalid/t)" in shown
        assert "`a`b | c⟨U+202E⟩”" not in shown  # `a` is code, the rest text: read, not literal
        assert "<img src=x> ab | c⟨U+202E⟩" in shown


class TestPlainSurfaces:
    def test_check_title_is_one_visible_line(self, sent):
        """The check-run title (plain text on GitHub): every character visible, one line."""
        title = sent["check title"]
        assert plain(title) == title
        assert "⟨U+202E⟩" in title
        assert title.startswith("⛔ Block: gated axis `review` failed")

    def test_annotations_are_plain_and_inert(self, sent):
        """Each annotation's title, message and details: visible, defanged, the title one line."""
        annotations = sent["annotations"]
        assert [a["start_line"] for a in annotations] == [3, 5]  # review-3's file is not changed
        for annotation in annotations:
            for key in ("title", "message", "raw_details"):
                assert_plain_inert(annotation.get(key, ""))
            assert "\n" not in annotation["title"]
            assert "⟨U+202E⟩" in annotation["title"]

    def test_status_description_is_one_visible_line(self, checkout):
        """The commit-status fallback's description: every character visible, one line, ≤ 140."""
        description = _publish(checkout, HOSTILE, forbidden=True)["status description"]
        assert plain(description) == description
        assert len(description) <= 140


class TestStepSummary:
    def test_step_summary_is_inert(self, tmp_path):
        """The Actions step summary (no repository known: no link at all) is inert."""
        path = tmp_path / "summary.md"
        settings = Settings(step_summary=path)
        write_actions_outputs(settings, _report(**HOSTILE), None, Redactor())
        assert_inert(path.read_text(encoding="utf-8"), links=None)

    def test_markdown_format_with_a_snapshot_links_only_the_repository(self, checkout):
        """`--format markdown` with a snapshot: links into the repository only."""
        text = summary_markdown(_report(**HOSTILE), snapshot=make_snapshot(checkout))
        assert_inert(text, LINKS)


class TestSnapshots:
    @pytest.mark.parametrize(
        "surface",
        ["inline", *MARKDOWN, "check title", "annotations"],
        ids=str,
    )
    def test_surface(self, sent, surface, snapshot):
        """What each surface posts for the hostile fixture (read the diff like code)."""
        assert sent[surface] == snapshot

    def test_status_description(self, checkout, snapshot):
        """What the commit-status fallback posts for the hostile fixture."""
        assert _publish(checkout, HOSTILE, forbidden=True)["status description"] == snapshot

    def test_step_summary(self, tmp_path, snapshot):
        """What the Actions step summary shows for the hostile fixture."""
        path = tmp_path / "summary.md"
        write_actions_outputs(Settings(step_summary=path), _report(**HOSTILE), None, Redactor())
        assert path.read_text(encoding="utf-8") == snapshot
