"""Precision, recall, F1 and F-beta of one PR's findings against its golden comments (pure).

The counting follows the public Code Review Bench offline methodology (its step 3,
with step 2.5's duplicate groups), applied to the judge's matches:

    TP  golden comments matched by at least one finding; each golden comment counts
        once, however many findings matched it (duplicates collapse into it, and none
        of them is a false positive)
    FP  findings the judge matched to no golden comment
    FN  golden comments no finding matched

    precision = TP / (TP + FP)      recall = TP / (TP + FN)      F1 = 2PR / (P + R)
    Fβ = (1 + β²)PR / (β²P + R)   (β = 2 by default: recall weighs more)

so the precision denominator is the findings after collapsing duplicates (one per
matched golden comment, plus every unmatched finding). A ratio whose denominator is
0 is 0, as the public scripts report it. Over several PRs the counts are summed
first (micro-average), as the public dashboard does.

Under a profile (profiles.py: Strict, Core, All), only golden comments whose category is
in the profile are TPs or FNs; the others are set aside (`golden_outside`), and so is a
finding matched only to one of them (`findings_outside`: neither TP nor FP). An FP is an
FP under every profile.

By category, TP and FN take their golden comment's category (an FP has none, so the
category rows hold no FP and add up to the total's TP and FN). By severity, every count lands in exactly one severity, so the rows add up to the
total: a TP or FN has its golden comment's severity; an FP has no golden comment, so
it takes the severity of its own priority (P0 Critical, P1 High, P2 Medium, P3 Low).

Must not: import anything but the standard library and reviewbot's pure values.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from reviewbot.eval.bench import Severity
from reviewbot.eval.profiles import UNCATEGORISED, Category, Profile, fbeta
from reviewbot.nodes.model import Priority

SEVERITY_OF_PRIORITY: Mapping[Priority, Severity] = {
    Priority.P0: Severity.CRITICAL,
    Priority.P1: Severity.HIGH,
    Priority.P2: Severity.MEDIUM,
    Priority.P3: Severity.LOW,
}


@dataclass(frozen=True, slots=True, kw_only=True)
class Counts:
    tp: int = 0
    fp: int = 0
    fn: int = 0

    def __add__(self, other: Counts) -> Counts:
        return Counts(tp=self.tp + other.tp, fp=self.fp + other.fp, fn=self.fn + other.fn)

    @property
    def precision(self) -> float:
        return _ratio(self.tp, self.tp + self.fp)

    @property
    def recall(self) -> float:
        return _ratio(self.tp, self.tp + self.fn)

    @property
    def f1(self) -> float:
        return fbeta(self.precision, self.recall, 1.0)

    def fbeta(self, beta: float) -> float:
        return fbeta(self.precision, self.recall, beta)


@dataclass(frozen=True, slots=True, kw_only=True)
class Score:
    total: Counts
    by_severity: Mapping[Severity, Counts]
    by_category: Mapping[str, Counts] = field(default_factory=dict)  # category value → counts
    golden_outside: int = 0  # golden comments whose category the profile leaves out
    findings_outside: int = 0  # findings matched only to those: neither TP nor FP

    def __add__(self, other: Score) -> Score:
        categories = sorted({*self.by_category, *other.by_category})
        return Score(
            total=self.total + other.total,
            by_severity={
                s: self.by_severity.get(s, Counts()) + other.by_severity.get(s, Counts())
                for s in Severity
            },
            by_category={
                c: self.by_category.get(c, Counts()) + other.by_category.get(c, Counts())
                for c in categories
            },
            golden_outside=self.golden_outside + other.golden_outside,
            findings_outside=self.findings_outside + other.findings_outside,
        )


EMPTY = Score(total=Counts(), by_severity={s: Counts() for s in Severity})


def score_pr(
    golden: Sequence[Severity],
    findings: Sequence[Priority],
    matches: Sequence[int | None],
    *,
    categories: Sequence[Category | None] | None = None,
    profile: Profile = Profile.ALL,
) -> Score:
    """Score one PR: `matches[i]` is the golden index finding `i` was matched to, or None.

    `categories[g]` is golden comment g's category (None: uncategorised, or no categories
    given at all); `profile` says which categories count.
    """
    if len(matches) != len(findings):
        raise ValueError(f"{len(matches)} matches for {len(findings)} findings")
    if any(m is not None and not 0 <= m < len(golden) for m in matches):
        raise ValueError(f"a match outside the {len(golden)} golden comment(s)")
    kinds = list(categories) if categories is not None else [None] * len(golden)
    if len(kinds) != len(golden):
        raise ValueError(f"{len(kinds)} categories for {len(golden)} golden comments")
    counted = [profile.counts(c) for c in kinds]
    found = {m for m in matches if m is not None}
    tallies = {s: [0, 0, 0] for s in Severity}
    by_category: dict[str, list[int]] = {}
    for index, severity in enumerate(golden):
        if not counted[index]:
            continue
        slot = 0 if index in found else 2
        tallies[severity][slot] += 1
        by_category.setdefault(kinds[index] or UNCATEGORISED, [0, 0, 0])[slot] += 1
    for priority, match in zip(findings, matches, strict=True):
        if match is None:
            tallies[SEVERITY_OF_PRIORITY[priority]][1] += 1
    by_severity = {s: Counts(tp=t[0], fp=t[1], fn=t[2]) for s, t in tallies.items()}
    return Score(
        total=_sum(by_severity.values()),
        by_severity=by_severity,
        by_category={c: Counts(tp=t[0], fn=t[2]) for c, t in sorted(by_category.items())},
        golden_outside=counted.count(False),
        findings_outside=sum(1 for m in matches if m is not None and not counted[m]),
    )


def overall(scores: Iterable[Score]) -> Score:
    """The micro-average: counts summed over the PRs."""
    total = EMPTY
    for score in scores:
        total = total + score
    return total


def _sum(counts: Iterable[Counts]) -> Counts:
    total = Counts()
    for c in counts:
        total = total + c
    return total


def _ratio(numerator: float, denominator: float) -> float:
    return numerator / denominator if denominator else 0.0
