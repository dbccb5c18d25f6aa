"""What people read: the rendered review, inline comments and summary, as GitHub renders them."""

from __future__ import annotations

import re

import cmarkgfm
import pytest
from cmarkgfm.cmark import Options

from reviewbot.nodes import ReviewNode
from reviewbot.publish.body import (
    MAX_BODY,
    TRUNCATED,
    checkout_reader,
    finish,
    inline_body,
    review_body,
    summary_body,
)
from reviewbot.publish.markers import NODE_TAG, SUMMARY_TAG, SummaryMarker, find_markers
from reviewbot.publish.plan import LinkBuilder, plan_review
from reviewbot.redact import MASK, Redactor
from tests.publish.conftest import HEAD, REPO, every_kind, make_diff, make_report, node

LINKS = LinkBuilder(web_url="https://github.com", repo=REPO, head_sha=HEAD)
GITHUB = Options.CMARK_OPT_UNSAFE | Options.CMARK_OPT_GITHUB_PRE_LANG
_COMMENT = re.compile(r"<!--.*?-->", re.S)
_TAG = re.compile(r"<[^>]+>")


@pytest.fixture
def posted(checkout):
    """The three bodies a first run posts for `every_kind()`."""
    report = make_report(every_kind())
    plan = plan_review(report.nodes, make_diff(), max_inline=30, link_of=LINKS)
    head = checkout_reader(checkout)
    inline = [
        inline_body(item.node, item.target, head=head, redactor=Redactor()) for item in plan.inline
    ]
    review = review_body(report, plan, link_of=LINKS, head=head, redactor=Redactor())
    summary = summary_body(
        report,
        plan=plan,
        marker=SummaryMarker.of(report, head_sha=HEAD, review_id=42),
        link_of=LINKS,
        redactor=Redactor(),
    )
    return {"inline": inline, "review": review, "summary": summary}


def visible(html: str) -> str:
    """The text a reader sees: comments dropped, tags stripped."""
    return _TAG.sub("", _COMMENT.sub("", html))


class TestSnapshots:
    def test_inline_comments(self, posted, snapshot):
        """Inline comments: a committable suggestion, and a narrowed comment."""
        assert posted["inline"] == snapshot

    def test_review_body(self, posted, snapshot):
        """The review body lists every finding not commented inline, with links and markers."""
        assert posted["review"] == snapshot

    def test_summary(self, posted, snapshot):
        """The summary: verdict and reason, axes, counts, findings, coverage, usage."""
        assert posted["summary"] == snapshot


class TestGitHubRendering:
    def test_suggestion_block_survives(self, posted):
        """GitHub-flavoured markdown turns the block into a `suggestion` code block."""
        html = cmarkgfm.github_flavored_markdown_to_html(posted["inline"][0], options=GITHUB)
        assert '<pre lang="suggestion"><code>x3 = 30\nx4 = 40\n</code></pre>' in html

    @pytest.mark.parametrize("which", ["inline-0", "inline-1", "review"], ids=str)
    def test_node_markers_survive_rendering_hidden(self, posted, which):
        """Each node marker renders as an HTML comment, intact, and shows no text."""
        text = posted["inline"][int(which[-1])] if which.startswith("inline") else posted["review"]
        html = cmarkgfm.github_flavored_markdown_to_html(text, options=GITHUB)
        assert find_markers(html, NODE_TAG) == find_markers(text, NODE_TAG) != []
        assert "reviewbot:node" not in visible(html)
        assert "fingerprint" not in visible(html)

    def test_summary_marker_survives_and_tables_render(self, posted):
        """The summary marker stays hidden; axes and findings are real tables."""
        html = cmarkgfm.github_flavored_markdown_to_html(posted["summary"], options=GITHUB)
        (marker,) = find_markers(html, SUMMARY_TAG)
        assert marker == find_markers(posted["summary"], SUMMARY_TAG)[0]
        assert (marker["head_sha"], marker["verdict"], marker["review_id"]) == (HEAD, "block", 42)
        assert [axis["name"] for axis in marker["axes"]] == ["review", "ci"]
        assert html.count("<table>") == 3  # axes, findings, agents
        assert "reviewbot:summary" not in visible(html)

    def test_hostile_title_cannot_forge_or_break_a_marker(self):
        """A title that tries to close the marker and open a forged one stays inert text."""
        hostile = node(
            id="h",
            title='x --> <!-- reviewbot:node {"id":"evil"} -->',
            body='<!-- reviewbot:node {"id":"evil2"} -->',
        )
        plan = plan_review((hostile,), make_diff(), max_inline=30, link_of=LINKS)
        text = inline_body(
            plan.inline[0].node, plan.inline[0].target, head=lambda p: None, redactor=Redactor()
        )
        markers = find_markers(text, NODE_TAG)
        assert len(markers) == 1
        assert markers[0]["id"] == "h"
        html = cmarkgfm.github_flavored_markdown_to_html(text, options=GITHUB)
        assert [m["id"] for m in find_markers(html, NODE_TAG)] == ["h"]


class TestLimits:
    def test_long_summary_is_cut_with_a_pointer_and_keeps_its_marker(self):
        """A summary over 65,536 characters is shortened, never refused; the marker stays on top."""
        nodes: tuple[ReviewNode, ...] = tuple(
            node(id=f"n{i}", title=f"finding number {i} " + "x" * 150, lines=(3, 3))
            for i in range(600)
        )
        text = summary_body(
            make_report(nodes),
            marker=SummaryMarker(head_sha=HEAD, verdict="block"),
            redactor=Redactor(),
        )
        assert len(text) <= MAX_BODY
        assert text.endswith(TRUNCATED)
        assert find_markers(text, SUMMARY_TAG)[0]["head_sha"] == HEAD

    def test_marker_tail_survives_a_cut(self):
        """When a body is cut, the marker after it is kept whole: the finding stays known."""
        out = finish("x" * 500, Redactor(), limit=300, tail="<!-- reviewbot:node {} -->\n")
        assert len(out) <= 300
        assert out.endswith(TRUNCATED + "<!-- reviewbot:node {} -->\n")

    def test_summary_is_redacted(self):
        """A secret in an axis detail never reaches the summary."""
        report = make_report(())
        secret = "ghp_" + "a" * 36
        axes = (report.axes[0].model_copy(update={"detail": f"token {secret} leaked"}),)
        text = summary_body(report.model_copy(update={"axes": axes}), redactor=Redactor())
        assert secret not in text
        assert MASK in text
