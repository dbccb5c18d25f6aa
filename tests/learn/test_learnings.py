"""The learnings file, the matching rule, and what a match does to a run's findings."""

from __future__ import annotations

import io

import pytest
from rich.console import Console

from reviewbot.config.learnings import (
    Learning,
    Learnings,
    learning_of,
    learnings_toml,
    load_learnings,
    merged_learnings,
)
from reviewbot.errors import ConfigError
from reviewbot.nodes.model import Kind, Priority, Status
from reviewbot.output.terminal import render_terminal
from reviewbot.publish.body import summary_body
from reviewbot.redact import Redactor
from reviewbot.review.learned import Learner
from tests.nodes.factories import make_node
from tests.publish.conftest import make_report

ORIGIN = "`.reviewbot/learnings.toml` (base branch main)"
NODE = make_node(title="Query built by string formatting", path="src/db/query.py", quote="q % x")


def entry(**fields: object) -> Learning:
    base = learning_of(
        NODE, reason="parameters are escaped upstream", by="alice", at="2026-11-30T09:00:00Z", pr=12
    )
    return base.model_copy(update=fields)


class TestFile:
    def test_what_learn_writes_reads_back_the_same(self):
        """Written and read back: equal, and every field a person needs is there."""
        learnings = Learnings(entries=(entry(reason='says "no" \\ tab\t and DEL \x7f'),))
        text = learnings_toml(learnings)
        assert load_learnings(text, origin=ORIGIN) == learnings
        assert 'scope = "/src/db/query.py"' in text
        assert "pr = 12" in text

    @pytest.mark.parametrize(
        ("bad", "said"),
        [
            (
                'scope = "../x"',
                "entry 2 (fingerprint 00000000000000e0): scope: must not contain '..'",
            ),
            (
                'scope = ""',
                "entry 2 (fingerprint 00000000000000e0): scope: String should have at least 1 character",
            ),
            (
                'scope = "[z-a]"',
                "entry 2 (fingerprint 00000000000000e0): scope: '[z-a]' is not a valid glob",
            ),
            ('at = "yesterday"', "entry 2 (fingerprint 00000000000000e0): at: must be an ISO 8601"),
            ('kind = "nit"', "entry 2 (fingerprint 00000000000000e0): kind: Input should be"),
            ('colour = "red"', "entry 2 (fingerprint 00000000000000e0): colour: Extra inputs"),
        ],
    )
    def test_a_bad_entry_is_one_line_naming_it(self, bad, said):
        good = learnings_toml(Learnings(entries=(entry(),)))
        second = (
            '\n[[learning]]\nfingerprint = "00000000000000e0"\nkind = "bug"\ntitle = "T"\n'
            'scope = "a.py"\nby = "bob"\nat = "2026-11-01"\n'
        )
        key = bad.split(" = ")[0]
        lines = [line for line in second.splitlines() if not line.startswith(f"{key} =")]
        text = good + "\n".join(lines) + f"\n{bad}\n"
        with pytest.raises(ConfigError) as caught:
            load_learnings(text, origin=ORIGIN)
        message = str(caught.value)
        assert "\n" not in message
        assert message.startswith(f"{ORIGIN}: {said}")

    def test_syntax_and_shape_errors_are_one_line(self):
        for text, said in [
            ("[[learning]\n", "line 1"),
            ("learnings = 3\n", 'unknown key "learnings"'),
            ("learning = 3\n", "must be an array of tables"),
        ]:
            with pytest.raises(ConfigError, match=said):
                load_learnings(text, origin=ORIGIN)

    def test_merging_updates_and_orders_stably(self):
        """The same fingerprint is updated in place (its scope kept), never repeated."""
        widened = entry(scope="src/db/**")
        other = learning_of(
            make_node(title="Another", path="a.py"), reason="", by="bob", at="2026-11-01", pr=3
        )
        once = merged_learnings(Learnings(entries=(widened,)), [entry(reason="newer"), other])
        assert [e.fingerprint for e in once.entries] == [other.fingerprint, NODE.fingerprint]
        assert once.entries[1].scope == "src/db/**"
        assert once.entries[1].reason == "newer"
        assert merged_learnings(once, [entry(reason="newer"), other]) == once


class TestMatching:
    def test_same_fingerprint(self):
        assert entry().match(NODE) == "fingerprint"

    def test_same_rule_is_kind_and_normalised_title_in_scope(self):
        """Another file and code, the title differing in case, spacing, trailing dot: the rule."""
        moved = make_node(
            title="  query BUILT by string formatting.", path="src/db/other.py", quote="y"
        )
        assert entry(scope="src/db/**").match(moved) == "rule"
        assert entry(scope="/src/db/query.py").match(moved) is None  # out of scope
        assert entry(scope="src/db/**", kind=Kind.SUGGESTION).match(moved) is None  # another kind
        retitled = make_node(title="Query built with f-strings", path="src/db/other.py")
        assert entry(scope="src/db/**").match(retitled) is None

    def test_a_note_about_the_whole_pr_matches_by_fingerprint_only(self):
        note = make_node(title=NODE.title, path=None)
        assert entry(scope="**").match(note) is None


class TestLearner:
    def test_a_match_is_dismissed_with_a_note_and_listed(self):
        learner = Learner(Learnings(entries=(entry(),)), changed=("src/db/query.py",))
        apply = learner.after(None)
        assert apply is not None
        (node,) = apply([NODE])
        assert node.status is Status.DISMISSED
        assert "suppressed by a learning (fingerprint)" in node.notes[-1]
        report = learner.report()
        assert report is not None
        assert [m.node_id for m in report.suppressed] == [NODE.id]
        assert report.shown == (entry(),)

    def test_a_p0_is_never_suppressed(self):
        p0 = NODE.model_copy(update={"priority": Priority.P0})
        learner = Learner(Learnings(entries=(entry(),)))
        apply = learner.after(None)
        assert apply is not None
        (node,) = apply([p0])
        assert node.status is Status.OPEN
        assert "not applied to a P0" in node.notes[-1]
        report = learner.report()
        assert report is not None
        assert (report.suppressed, [m.priority for m in report.kept]) == ((), [Priority.P0])

    def test_a_persons_confirmation_on_this_pr_outranks_a_learning(self):
        """A writer /confirmed it here: a decision taken on an earlier PR does not undo it
        (an agent's confirmation does not protect it: the learning is a person's decision)."""
        confirmed = NODE.model_copy(
            update={"status": Status.CONSENSUS_READY, "confirmed_by": ("human:maintainer",)}
        )
        by_agent = NODE.model_copy(
            update={
                "id": "review-2",
                "status": Status.CONSENSUS_READY,
                "confirmed_by": ("verifier",),
            }
        )
        learner = Learner(Learnings(entries=(entry(),)))
        apply = learner.after(None)
        assert apply is not None
        kept, suppressed = apply([confirmed, by_agent])
        assert kept.status is Status.CONSENSUS_READY
        assert "not applied to a finding a person confirmed on this PR" in kept.notes[-1]
        assert suppressed.status is Status.DISMISSED
        report = learner.report()
        assert report is not None
        assert ([m.node_id for m in report.kept], [m.node_id for m in report.suppressed]) == (
            [NODE.id],
            ["review-2"],
        )

    def test_no_learnings_changes_nothing(self):
        assert Learner(Learnings()).after(None) is None
        assert Learner(Learnings()).report() is None


class TestShown:
    def _report(self):
        learner = Learner(Learnings(entries=(entry(reason="see <!-- x --> @team"),)))
        apply = learner.after(None)
        assert apply is not None
        nodes = tuple(apply([NODE]))
        return make_report(nodes).model_copy(update={"learnings": learner.report()})

    def test_the_summary_lists_the_suppressed_finding_inertly(self):
        body = summary_body(self._report(), redactor=Redactor())
        assert "**Suppressed by a learning** (1)" in body
        section = body[body.index("### Learnings") :]
        assert "<!--" not in section
        assert "@team" not in section  # a mention is defanged

    def test_the_terminal_counts_and_names_it(self):
        out = io.StringIO()
        console = Console(file=out, width=160, color_system=None, force_terminal=False)
        render_terminal(self._report(), None, console, redactor=Redactor())
        printed = out.getvalue()
        assert "1 finding(s) suppressed by a learning, 0 learned P0(s) not suppressed" in printed
        assert NODE.fingerprint in printed


class TestTheFileAsAWhole:
    @pytest.mark.parametrize(
        ("text", "said"),
        [
            ("[[learning]\n", "line 1"),
            ('colour = "red"\n', 'unknown key "colour" (the file holds [[learning]] tables)'),
            ('learning = "x"\n', "`learning` must be an array of tables"),
            ('[[learning]]\nfingerprint = "not hex"\n', "entry 1: "),
        ],
    )
    def test_what_is_not_a_learnings_file_is_one_line(self, text, said):
        with pytest.raises(ConfigError) as caught:
            load_learnings(text, origin=ORIGIN)
        assert said in str(caught.value)
        assert "\n" not in str(caught.value)
