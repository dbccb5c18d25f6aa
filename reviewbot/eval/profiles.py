"""The benchmark's golden-comment categories and its scoring profiles (pure).

Where the rules come from — the public Code Review Bench repository,
github.com/withmartian/code-review-benchmark, read at these commits:

    offline/analysis/score_profiles.py     01776de2d7bfae59381c4c97f51ec0276374bfd9
        the three profiles and their categories, F-beta, β = 2 and Core the defaults, and
        the counting under a profile: TP and FN only for golden comments whose category is
        in the profile; FP (findings matched to no golden comment) always, whatever the
        profile; a finding matched only to a golden comment outside the profile is
        neither (it is set aside, "matched-excluded")
    offline/golden_comments/cal_dot_com.json  b696c0cffdc016b71349322984b9f94fff3d902e
        the newer format: each golden comment carries a `category`
    offline/README.md                      305605d59091cb5e87a33ec2aca63904bfc7ddd1
        line-specific comments are candidates as they are; general (summary) comments
        are split into their distinct issues, each one candidate

The older files have no `category`. The benchmark's own scorer would then count none of
their golden comments in any profile (an empty category is in no profile); here an
uncategorised golden comment counts in every profile instead, so the older files keep
scoring as they did (every profile gives the same figures on them).
"""

from __future__ import annotations

from enum import StrEnum


class Category(StrEnum):
    """What kind of issue a golden comment describes (the newer golden files)."""

    BUG = "bug"
    SECURITY = "security"
    CONCURRENCY = "concurrency"
    DATA = "data"
    API = "api"
    PERF = "perf"
    TEST_GAP = "test_gap"
    DOC_DEFECT = "doc_defect"
    STYLE = "style"
    SPECULATIVE = "speculative"


class Profile(StrEnum):
    """Which categories a score counts: Strict ⊂ Core ⊂ All."""

    STRICT = "strict"
    CORE = "core"
    ALL = "all"

    @property
    def categories(self) -> frozenset[Category]:
        return _CATEGORIES[self]

    def counts(self, category: Category | None) -> bool:
        """Whether a golden comment of `category` is scored (uncategorised: always)."""
        return category is None or category in _CATEGORIES[self]


_STRICT = frozenset(
    {Category.BUG, Category.SECURITY, Category.CONCURRENCY, Category.DATA, Category.API}
)
_CORE = _STRICT | {Category.PERF, Category.TEST_GAP, Category.DOC_DEFECT}
_CATEGORIES = {
    Profile.STRICT: _STRICT,
    Profile.CORE: _CORE,
    Profile.ALL: _CORE | {Category.STYLE, Category.SPECULATIVE},
}

DEFAULT_PROFILE = Profile.CORE
DEFAULT_BETA = 2.0
UNCATEGORISED = "uncategorised"  # the by-category row of golden comments without a category


def fbeta(precision: float, recall: float, beta: float) -> float:
    """(1 + β²)·P·R / (β²·P + R), 0 when the denominator is 0; β > 1 weighs recall more."""
    beta2 = beta * beta
    denominator = beta2 * precision + recall
    return (1 + beta2) * precision * recall / denominator if denominator > 0 else 0.0
