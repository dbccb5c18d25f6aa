"""Fingerprints identify a finding by what it says, not by where it sits."""

from __future__ import annotations

from reviewbot.nodes import Anchor, Finding, Kind, Priority, fingerprint


def finding(**changes: object) -> Finding:
    base: dict[str, object] = {
        "kind": Kind.BUG,
        "priority": Priority.P1,
        "confidence": 0.9,
        "title": "SQL built from user input",
        "anchor": Anchor(
            path="db.py", start_line=10, end_line=11, quote='q = "SELECT " + name\ncur.execute(q)'
        ),
    }
    base.update(changes)
    return Finding.model_validate(base)


class TestFingerprint:
    def test_line_shift_keeps_the_fingerprint(self):
        """Moving the same code down 40 lines keeps the identity."""
        shifted = Anchor(
            path="db.py", start_line=50, end_line=51, quote='q = "SELECT " + name\ncur.execute(q)'
        )
        assert fingerprint(finding()) == fingerprint(finding(anchor=shifted))

    def test_deleted_code_is_another_finding_than_the_same_head_code(self):
        """The same text deleted (LEFT) and in the head (RIGHT) are two findings; RIGHT is unchanged."""
        right = finding()
        left = finding(anchor=right.anchor.model_copy(update={"side": "LEFT"}))
        assert fingerprint(left) != fingerprint(right)
        explicit = finding(anchor=right.anchor.model_copy(update={"side": "RIGHT"}))
        assert fingerprint(explicit) == fingerprint(right)

    def test_reindent_and_crlf_keep_the_fingerprint(self):
        """Whitespace and line endings do not change which code is meant."""
        crlf = Anchor(
            path="db.py",
            start_line=10,
            end_line=12,
            quote='    q = "SELECT " +  name\r\n\r\n    cur.execute(q)\r\n',
        )
        assert fingerprint(finding()) == fingerprint(finding(anchor=crlf))

    def test_title_case_and_punctuation_keep_the_fingerprint(self):
        """`SQL built from user input.` and `sql  built from USER input` are one finding."""
        assert fingerprint(finding()) == fingerprint(finding(title="sql  built from USER input."))

    def test_priority_and_confidence_do_not_matter(self):
        """Re-rating a finding does not make it a new one."""
        assert fingerprint(finding()) == fingerprint(finding(priority=Priority.P0, confidence=0.2))

    def test_different_code_path_kind_or_title_differ(self):
        """What the finding is about changes the identity."""
        base = fingerprint(finding())
        other_code = Anchor(
            path="db.py", start_line=10, end_line=10, quote="cur.execute(q, (name,))"
        )
        other_path = Anchor(
            path="api.py", start_line=10, end_line=11, quote='q = "SELECT " + name\ncur.execute(q)'
        )
        variants = [
            finding(anchor=other_code),
            finding(anchor=other_path),
            finding(kind=Kind.SUGGESTION),
            finding(title="Cursor never closed"),
            finding(anchor=None),
        ]
        assert len({base, *map(fingerprint, variants)}) == 6

    def test_shape(self):
        """Sixteen lower-case hex digits."""
        fp = fingerprint(finding())
        assert len(fp) == 16
        assert int(fp, 16) >= 0


class TestPriority:
    def test_rank_orders_by_severity(self):
        """P0 ranks first: sorting by rank puts the most severe finding first."""
        assert sorted(Priority, key=lambda p: p.rank) == [
            Priority.P0,
            Priority.P1,
            Priority.P2,
            Priority.P3,
        ]
        assert Priority.P2.rank == 2
