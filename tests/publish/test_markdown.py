"""`--format markdown`: the summary body as it is posted."""

from __future__ import annotations

from reviewbot.output.markdown import summary_markdown
from reviewbot.publish.body import summary_body
from reviewbot.redact import Redactor
from reviewbot.results.report import Published
from tests.publish.conftest import every_kind, make_report, make_snapshot


class TestMarkdown:
    def test_without_snapshot_is_the_summary_without_placement(self):
        """With no diff to place against, the findings table has no Posted column."""
        report = make_report(every_kind())
        text = summary_markdown(report)
        assert text == summary_body(report, redactor=Redactor())
        assert "| Posted |" not in text
        assert "reviewbot:summary" not in text

    def test_unposted_findings_claim_no_place(self, checkout):
        """Nothing was posted: no finding says `inline` or has a Posted column, links stay."""
        text = summary_markdown(make_report(every_kind()), snapshot=make_snapshot(checkout))
        assert "| Posted |" not in text
        assert "| inline |" not in text
        assert "https://github.com/octo/widgets/blob/" in text

    def test_with_snapshot_places_like_a_post(self, checkout):
        """After a `--post`, each finding says where it went, with links."""
        posted = make_report(every_kind()).model_copy(
            update={"published": Published(review_id=1, review_url=None, event="COMMENT")}
        )
        text = summary_markdown(posted, snapshot=make_snapshot(checkout))
        assert "| Posted |" in text
        assert "| inline |" in text
        assert "review body (outside the diff)" in text
        assert "https://github.com/octo/widgets/blob/" in text
