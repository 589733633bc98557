"""Match statistics: Elo from scores, the pentanomial model of pairs, and the SPRT.

Every expected number below is worked out by hand from the formulas in stats.py's docstrings.
"""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hanamikoji.stats import Z95, Pentanomial, Sprt, elo_from_score, score_from_elo

# -- Elo <-> score ---------------------------------------------------------------------------


def test_even_score_is_zero_elo() -> None:
    assert elo_from_score(0.5) == 0.0
    assert score_from_elo(0.0) == 0.5


def test_three_quarters_is_about_191_elo() -> None:
    # -400 log10(1/0.75 - 1) = 400 log10(3) = 190.848...
    assert elo_from_score(0.75) == pytest.approx(400 * math.log10(3))
    assert elo_from_score(0.75) == pytest.approx(190.85, abs=0.01)
    assert elo_from_score(0.25) == pytest.approx(-190.85, abs=0.01)


def test_certain_scores_are_infinite_elo() -> None:
    assert elo_from_score(1.0) == math.inf
    assert elo_from_score(0.0) == -math.inf


@given(st.floats(min_value=-1500, max_value=1500, allow_nan=False))
def test_score_from_elo_inverts_elo_from_score(elo: float) -> None:
    assert elo_from_score(score_from_elo(elo)) == pytest.approx(elo, abs=1e-6)


@given(st.floats(min_value=0.001, max_value=0.999))
def test_elo_from_score_inverts_score_from_elo(score: float) -> None:
    assert score_from_elo(elo_from_score(score)) == pytest.approx(score, abs=1e-12)


@given(st.floats(min_value=0.01, max_value=0.99), st.floats(min_value=0.01, max_value=0.99))
def test_elo_is_monotonic_and_antisymmetric(a: float, b: float) -> None:
    if a < b:
        assert elo_from_score(a) < elo_from_score(b)
    assert elo_from_score(1 - a) == pytest.approx(-elo_from_score(a), abs=1e-9)


# -- Pentanomial -----------------------------------------------------------------------------


def test_empty_pentanomial() -> None:
    p = Pentanomial()
    assert p.counts == (0, 0, 0, 0, 0)
    assert p.pairs == 0
    assert p.score == 0.5
    assert p.variance == 0.0
    assert p.elo == 0.0
    assert p.score_interval() == (0.0, 1.0)


def test_add_counts_each_pair_in_its_bin() -> None:
    p = Pentanomial()
    for points in (0, 0.5, 1, 1, 1.5, 2, 2, 2):
        p = p.add(points)
    assert p.counts == (1, 1, 2, 1, 3)
    assert p.pairs == 8


def test_add_returns_a_new_value() -> None:
    p = Pentanomial()
    q = p.add(2)
    assert p.counts == (0, 0, 0, 0, 0)
    assert q.counts == (0, 0, 0, 0, 1)


@pytest.mark.parametrize("points", [-0.5, 0.25, 0.75, 1.2, 2.5, 3])
def test_add_rejects_impossible_pair_scores(points: float) -> None:
    with pytest.raises(ValueError, match=r"0, 0\.5, 1, 1\.5 or 2"):
        Pentanomial().add(points)


@pytest.mark.parametrize("points", [math.nan, math.inf, -math.inf])
def test_add_rejects_non_finite_pair_scores(points: float) -> None:
    # a ValueError like any other impossible score (not an OverflowError from round())
    with pytest.raises(ValueError):
        Pentanomial().add(points)


def test_score_and_variance_by_hand() -> None:
    # one pair of 0, two of 1 point, one of 2: per-game scores 0, 0.5, 0.5, 1
    p = Pentanomial((1, 0, 2, 0, 1))
    assert p.pairs == 4
    assert p.score == pytest.approx(0.5)
    # ((0 - 0.5)^2 + 0 + 0 + (1 - 0.5)^2) / 4 = 0.125
    assert p.variance == pytest.approx(0.125)
    assert p.elo == pytest.approx(0.0)
    # The interval's spread adds a pseudo-pair at each extreme: per-game 0, 0, 0.5, 0.5, 1, 1.
    assert p.spread == pytest.approx(1 / 6)
    low, high = p.score_interval()
    half = Z95 * math.sqrt(1 / 6 / 4)
    assert low == pytest.approx(0.5 - half)
    assert high == pytest.approx(0.5 + half)


def test_score_and_variance_uneven() -> None:
    # pairs scoring 1.5, 1.5, 2 and 1 points: per-game 0.75, 0.75, 1, 0.5; mean 0.75
    p = Pentanomial((0, 0, 1, 2, 1))
    assert p.score == pytest.approx(0.75)
    # (0.0625 + 0 + 0 + 0.0625) / 4 = 0.03125
    assert p.variance == pytest.approx(0.03125)
    assert p.elo == pytest.approx(190.85, abs=0.01)
    # With the pseudo-pairs, per-game 0, 0.5, 0.75, 0.75, 1, 1: mean 2/3, variance 17/144.
    assert p.spread == pytest.approx(17 / 144)
    low, high = p.score_interval()
    half = Z95 * math.sqrt(17 / 144 / 4)
    assert low == pytest.approx(0.75 - half)
    assert 0.75 + half > 1 and high == 1.0  # four pairs cannot rule out a sweep
    elo_low, elo_high = p.elo_interval()
    assert elo_low == pytest.approx(elo_from_score(0.75 - half))
    assert elo_low < p.elo < elo_high == math.inf


def test_interval_is_clamped_to_scores() -> None:
    p = Pentanomial((0, 0, 0, 1, 9))
    low, high = p.score_interval()
    assert high == 1.0
    assert 0.0 <= low < p.score
    assert p.elo_interval()[1] == math.inf


def test_pairs_all_alike_still_leave_room_for_doubt() -> None:
    """No spread among the pairs is no certainty: five drawn pairs, or five won, bound the
    score only as far as five pairs can."""
    p = Pentanomial((0, 0, 5, 0, 0))
    assert p.variance == 0.0
    low, high = p.score_interval()
    assert low < 0.5 < high and high - 0.5 == pytest.approx(0.5 - low)
    sweep = Pentanomial((0, 0, 0, 0, 5))
    elo_low, elo_high = sweep.elo_interval()
    assert elo_low == pytest.approx(141.7, abs=0.05) and elo_high == math.inf


def test_one_pair_gives_no_information_about_the_spread() -> None:
    assert Pentanomial((0, 0, 0, 0, 1)).score_interval() == (0.0, 1.0)


def scaled(p: Pentanomial, k: int) -> Pentanomial:
    """The same pairs, ``k`` times over."""
    c = p.counts
    return Pentanomial((c[0] * k, c[1] * k, c[2] * k, c[3] * k, c[4] * k))


counts = st.tuples(*(st.integers(0, 40) for _ in range(5))).filter(lambda c: sum(c) >= 2)


@given(counts)
def test_interval_contains_the_estimate_and_is_symmetric(c: tuple[int, int, int, int, int]) -> None:
    p = Pentanomial(c)
    low, high = p.score_interval()
    assert 0.0 <= low <= p.score <= high <= 1.0
    if low > 0.0 and high < 1.0:  # not clamped: symmetric in score space
        assert p.score - low == pytest.approx(high - p.score)
    elo_low, elo_high = p.elo_interval()
    assert elo_low <= p.elo <= elo_high


@given(counts, st.integers(2, 10))
def test_interval_narrows_as_pairs_grow(c: tuple[int, int, int, int, int], k: int) -> None:
    p = Pentanomial(c)
    q = scaled(p, k)
    assert q.score == pytest.approx(p.score)
    assert q.variance == pytest.approx(p.variance)
    width_p = p.score_interval()[1] - p.score_interval()[0]
    width_q = q.score_interval()[1] - q.score_interval()[0]
    assert width_q <= width_p + 1e-12
    if p.score_interval()[0] > 0.0 and p.score_interval()[1] < 1.0:
        # at least as fast as 1/sqrt(k): the pseudo-pairs weigh less among more pairs
        assert width_q <= width_p / math.sqrt(k) + 1e-12


# -- SPRT ------------------------------------------------------------------------------------


def test_sprt_bounds() -> None:
    s = Sprt(0, 50, 0.05, 0.05)
    low, high = s.bounds
    assert low == pytest.approx(math.log(0.05 / 0.95))
    assert high == pytest.approx(math.log(0.95 / 0.05))
    assert low == pytest.approx(-2.944, abs=1e-3)
    s2 = Sprt(0, 10, alpha=0.1, beta=0.2)
    assert s2.bounds == pytest.approx((math.log(0.2 / 0.9), math.log(0.8 / 0.1)))


@pytest.mark.parametrize(
    ("elo0", "elo1", "alpha", "beta"),
    [
        (50, 0, 0.05, 0.05),
        (10, 10, 0.05, 0.05),
        (0, 10, 0.0, 0.05),
        (0, 10, 0.05, 0.0),
        (0, 10, 0.5, 0.05),
        (0, 10, 0.05, 0.7),
        (0, 10, -0.1, 0.05),
        (math.nan, 10, 0.05, 0.05),
        (0, 10, math.nan, 0.05),
    ],
)
def test_sprt_rejects_invalid_parameters(
    elo0: float, elo1: float, alpha: float, beta: float
) -> None:
    with pytest.raises(ValueError, match="SPRT"):
        Sprt(elo0, elo1, alpha, beta)


def test_llr_is_zero_without_evidence() -> None:
    s = Sprt(0, 50)
    assert s.llr(Pentanomial()) == 0.0
    assert s.llr(Pentanomial((0, 0, 0, 0, 1))) == 0.0
    assert s.verdict(Pentanomial()) is None


def test_llr_by_hand() -> None:
    s = Sprt(0, 50)
    p = Pentanomial((0, 0, 1, 2, 1))  # 4 pairs
    # regularised with one pseudo-pair at each extreme: (1, 0, 1, 2, 2), 6 pairs
    q = Pentanomial((1, 0, 1, 2, 2))
    assert q.score == pytest.approx(4 / 6)
    s0, s1 = 0.5, score_from_elo(50)
    want = 4 * (s1 - s0) * (2 * q.score - s0 - s1) / (2 * q.variance)
    assert s.llr(p) == pytest.approx(want)


def test_llr_sign_follows_the_evidence() -> None:
    s = Sprt(0, 50)
    midpoint = (0.5 + score_from_elo(50)) / 2  # about 0.536
    strong = Pentanomial((1, 2, 4, 6, 3))  # score 0.61
    weak = Pentanomial((3, 6, 4, 2, 1))  # score 0.39
    assert strong.score > midpoint
    assert weak.score < midpoint
    assert s.llr(strong) > 0
    assert s.llr(weak) < 0
    # more of the same evidence, a larger LLR
    assert s.llr(scaled(strong, 3)) > s.llr(strong)


def test_lopsided_sample_accepts_h1() -> None:
    s = Sprt(0, 50, 0.05, 0.05)
    p = Pentanomial((0, 0, 1, 2, 17))
    assert s.llr(p) >= s.bounds[1]
    assert s.verdict(p) == "H1"


def test_all_wins_still_decides() -> None:
    # no spread at all: the pseudo-pairs keep the variance finite, so a clean sweep decides
    s = Sprt(0, 50)
    assert s.verdict(Pentanomial((0, 0, 0, 0, 30))) == "H1"


def test_two_identical_pairs_decide_nothing() -> None:
    s = Sprt(0, 50)
    assert s.verdict(Pentanomial((0, 0, 2, 0, 0))) is None
    assert s.verdict(Pentanomial((0, 0, 0, 0, 2))) is None
    assert s.verdict(Pentanomial((10, 0, 0, 0, 0))) == "H0"


def test_balanced_large_sample_accepts_h0() -> None:
    s = Sprt(0, 50, 0.05, 0.05)
    p = Pentanomial((100, 200, 400, 200, 100))  # score 0.5, LLR about -34
    assert s.llr(p) <= s.bounds[0]
    assert s.verdict(p) == "H0"


def test_small_balanced_sample_is_undecided() -> None:
    s = Sprt(0, 50)
    assert s.verdict(Pentanomial((1, 2, 4, 2, 1))) is None
