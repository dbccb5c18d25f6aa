"""Marking an earlier comment's findings resolved in place, within the body limit."""

from __future__ import annotations

from reviewbot.publish.markers import NODE_TAG, find_markers, node_marker, seal_body
from reviewbot.publish.resolution import resolved_body
from reviewbot.redact import Redactor
from tests.publish.conftest import SEALER, every_kind

LIMIT = 5_000
BANNER = "✅ **Resolved** — no longer reported on `abcdef123456`."


def body_of(room: int, *, prose_lines: int = 1) -> tuple[str, set[str]]:
    """Prose, then a list of every_kind()'s markers, sealed, `room` characters short of LIMIT."""
    nodes = every_kind()
    items = "\n".join(f"- item {n.id} {node_marker(n)}" for n in nodes)
    pad = LIMIT - room - len(items) - 2 - (prose_lines - 1)
    prose = "\n".join(["y" * (pad // prose_lines)] * prose_lines)
    prose += "y" * (pad - len(prose) + prose_lines - 1)
    return seal_body(f"{prose}\n\n{items}", SEALER), {n.fingerprint for n in nodes}


def statuses(body: str) -> list[str]:
    return [m["status"] for m in find_markers(body, NODE_TAG) if isinstance(m, dict)]


class TestResolvedBody:
    def test_with_room_every_item_gets_its_banner(self):
        old, fingerprints = body_of(1_000)
        new = resolved_body(
            old, fingerprints, BANNER, on_top=False, redactor=Redactor(), limit=LIMIT
        )
        assert new is not None
        assert new.count(BANNER) == len(fingerprints)
        assert statuses(new) == ["resolved"] * len(fingerprints)
        assert "reviewbot:seal" not in new  # the caller seals it again

    def test_without_room_for_banners_the_markers_still_change(self):
        """Banners would push it over: they are left out, never a marker cut."""
        old, fingerprints = body_of(100)
        new = resolved_body(
            old, fingerprints, BANNER, on_top=False, redactor=Redactor(), limit=LIMIT
        )
        assert new is not None
        assert len(new) <= LIMIT
        assert BANNER not in new
        assert statuses(new) == ["resolved"] * len(fingerprints)

    def test_at_the_limit_prose_lines_go_last_first(self):
        """Even the status words do not fit: whole prose lines are dropped, last first."""
        old, fingerprints = body_of(0, prose_lines=4)
        new = resolved_body(
            old, fingerprints, BANNER, on_top=True, redactor=Redactor(), limit=LIMIT
        )
        assert new is not None
        assert len(new) <= LIMIT
        assert statuses(new) == ["resolved"] * len(fingerprints)
        assert new.count("yyy\n") < 4

    def test_markers_alone_over_the_limit_are_not_edited(self):
        old, fingerprints = body_of(0)
        tight = 500  # less than the markers alone
        assert (
            resolved_body(old, fingerprints, "", on_top=True, redactor=Redactor(), limit=tight)
            is None
        )
