"""`--format markdown`: the summary body as it is posted."""

from __future__ import annotations

from reviewbot.publish.body import summary_body
from reviewbot.publish.markdown import summary_markdown
from reviewbot.redact import Redactor
from tests.publish.conftest import every_kind, make_report, make_snapshot


class TestMarkdown:
    def test_without_snapshot_is_the_summary_without_placement(self):
        """With no diff to place against, the findings table has no Posted column."""
        report = make_report(every_kind())
        text = summary_markdown(report)
        assert text == summary_body(report, redactor=Redactor())
        assert "| Posted |" not in text
        assert "reviewbot:summary" not in text

    def test_with_snapshot_places_like_a_post(self, checkout):
        """With the snapshot, each finding says where a `--post` run would put it, with links."""
        text = summary_markdown(make_report(every_kind()), snapshot=make_snapshot(checkout))
        assert "| Posted |" in text
        assert "| inline |" in text
        assert "review body (outside the diff)" in text
        assert "https://github.com/octo/widgets/blob/" in text
