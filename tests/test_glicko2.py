"""Glicko-2: Glickman's worked example, the `glicko2` package from PyPI, properties, bad input."""

from __future__ import annotations

import doctest
import math
import random
from pathlib import Path
from typing import Any

import glicko2 as pypi_glicko2  # type: ignore[import-untyped]
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import hanamikoji.glicko2
from hanamikoji.glicko2 import (
    MAX_DEVIATION,
    PERIODS_PER_DAY,
    PROVISIONAL_DEVIATION,
    SCALE,
    Rating,
    age,
    expected_score,
    fixed_rating,
    from_glicko2_scale,
    rate_game,
    to_glicko2_scale,
    update,
)

EXAMPLE_GAMES = [(Rating(1400, 30), 1), (Rating(1550, 100), 0), (Rating(1700, 300), 0)]


def test_docstring_examples_run() -> None:
    result = doctest.testmod(hanamikoji.glicko2, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0
    assert result.failed == 0


# -- Glickman's worked example ---------------------------------------------------------------


def test_glickmans_worked_example() -> None:
    # "Example of the Glicko-2 system": 1464.06, 151.52 and 0.05999 from intermediate values he
    # rounds to four places; unrounded the same steps give 1464.0507, 151.5165 and 0.0599960.
    new = update(Rating(1500, 200, 0.06), EXAMPLE_GAMES, tau=0.5)
    assert new.rating == pytest.approx(1464.06, abs=0.01)
    assert new.deviation == pytest.approx(151.52, abs=0.01)
    assert new.volatility == pytest.approx(0.05999, abs=1e-5)
    assert (new.rating, new.deviation, new.volatility) == pytest.approx(
        (1464.0507, 151.5165, 0.0599960), abs=1e-4
    )


def test_glickmans_intermediate_values() -> None:
    # Steps 2 to 4 of the example: μ, φ, then v = 1.7785 and Δ = -0.4834.
    mu, phi = to_glicko2_scale(1500, 200)
    assert (mu, phi) == pytest.approx((0.0, 1.1513), abs=1e-4)
    assert to_glicko2_scale(1400, 30) == pytest.approx((-0.5756, 0.1727), abs=1e-4)
    g = [0.9955, 0.9531, 0.7242]
    e = [0.639, 0.432, 0.303]
    opponents = [to_glicko2_scale(o.rating, o.deviation) for o, _ in EXAMPLE_GAMES]
    for (mu_j, phi_j), g_j, e_j in zip(opponents, g, e, strict=True):
        assert hanamikoji.glicko2._g(phi_j) == pytest.approx(g_j, abs=1e-4)
        assert hanamikoji.glicko2._expected(mu, mu_j, phi_j) == pytest.approx(e_j, abs=1e-3)
    v = 1 / sum(gj * gj * ej * (1 - ej) for gj, ej in zip(g, e, strict=True))
    assert v == pytest.approx(1.7785, abs=1e-3)


def test_scale_conversion_round_trips() -> None:
    assert pytest.approx(173.7178) == SCALE
    assert from_glicko2_scale(*to_glicko2_scale(1832.5, 71.0)) == pytest.approx((1832.5, 71.0))


# -- the glicko2 package from PyPI -----------------------------------------------------------
#
# glicko2 2.1.0 (Ryan Kirkman's code, updated to the 2012 Illinois iteration) writes step 5's
# f(x) with μ² where Glickman has φ² (its `_f` reads the player's rating, not the deviation). The
# two agree where μ² = φ², i.e. |rating - 1500| = deviation, and otherwise differ a little in the
# volatility and, through it, in the rating. With f corrected they agree on whole histories to
# rounding (its SCALE is 173.7178, ours 400/ln 10). It has no ceiling on the deviation, so the
# histories cap it as we do.


class CorrectedPlayer(pypi_glicko2.Player):  # type: ignore[misc]
    """The PyPI player with step 5's f(x) as Glickman writes it (φ² where it has μ²)."""

    def _f(self, x: float, delta: float, v: float, a: float) -> float:
        ex = math.exp(x)
        phi2 = self._Player__rd**2
        return float(
            ex * (delta**2 - phi2 - v - ex) / (2 * (phi2 + v + ex) ** 2) - (x - a) / self._tau**2
        )


def random_history(seed: int) -> tuple[Rating, list[list[tuple[Rating, float]]]]:
    """A player and up to 30 rating periods of 0 to 5 games against opponents within ±500."""
    rng = random.Random(seed)
    start = Rating(rng.uniform(1000, 2200), rng.uniform(40, 350), rng.uniform(0.03, 0.09))
    periods = []
    for _ in range(rng.randint(1, 30)):
        games = [
            (
                Rating(start.rating + rng.uniform(-500, 500), rng.uniform(30, 350)),
                rng.choice([0.0, 0.5, 1.0]),
            )
            for _ in range(rng.choice([0, 1, 1, 2, 3, 5]))
        ]
        periods.append(games)
    return start, periods


def replay(player_class: Any, seed: int) -> float:
    """The largest difference between the two codes' ratings along one random history."""
    start, periods = random_history(seed)
    theirs = player_class(start.rating, start.deviation, start.volatility)
    ours = start
    worst = 0.0
    for games in periods:
        ours = update(ours, games, tau=0.5)
        if games:
            theirs.update_player(
                [o.rating for o, _ in games], [o.deviation for o, _ in games], [s for _, s in games]
            )
        else:
            theirs.did_not_compete()
        theirs.rd = min(theirs.rd, MAX_DEVIATION)
        assert ours.deviation == pytest.approx(theirs.rd, abs=1e-3)
        assert ours.volatility == pytest.approx(theirs.vol, abs=1e-8)
        worst = max(worst, abs(ours.rating - theirs.rating))
    return worst


def test_pypi_glicko2_agrees_on_random_histories_once_its_f_is_corrected() -> None:
    assert max(replay(CorrectedPlayer, seed) for seed in range(300)) < 1e-3


def test_pypi_glicko2_agrees_where_its_f_coincides() -> None:
    rng = random.Random(7)
    for _ in range(200):
        deviation = rng.uniform(40, 350)
        player = Rating(1500 + rng.choice([-1, 1]) * deviation, deviation, rng.uniform(0.03, 0.09))
        games = [
            (Rating(rng.uniform(1000, 2200), rng.uniform(30, 350)), rng.choice([0.0, 0.5, 1.0]))
            for _ in range(rng.randint(1, 5))
        ]
        ours = update(player, games)
        theirs = pypi_glicko2.Player(player.rating, player.deviation, player.volatility)
        theirs.update_player(
            [o.rating for o, _ in games], [o.deviation for o, _ in games], [s for _, s in games]
        )
        assert (ours.rating, ours.deviation) == pytest.approx((theirs.rating, theirs.rd), abs=1e-3)
        assert ours.volatility == pytest.approx(theirs.vol, abs=1e-8)


def test_pypi_glicko2_as_published_stays_close() -> None:
    # Its f differs (above): over up to 30 periods its ratings drift a tenth of a point at most.
    assert max(replay_loosely(seed) for seed in range(300)) < 0.5


def replay_loosely(seed: int) -> float:
    """As :func:`replay` with the published package, whose volatility differs slightly."""
    start, periods = random_history(seed)
    theirs = pypi_glicko2.Player(start.rating, start.deviation, start.volatility)
    ours = start
    worst = 0.0
    for games in periods:
        ours = update(ours, games)
        if games:
            theirs.update_player(
                [o.rating for o, _ in games], [o.deviation for o, _ in games], [s for _, s in games]
            )
        else:
            theirs.did_not_compete()
        theirs.rd = min(theirs.rd, MAX_DEVIATION)
        assert ours.volatility == pytest.approx(theirs.vol, abs=1e-3)
        worst = max(worst, abs(ours.rating - theirs.rating), abs(ours.deviation - theirs.rd))
    return worst


# -- properties ------------------------------------------------------------------------------

ratings = st.builds(
    Rating,
    st.floats(0, 3000),
    st.floats(30, MAX_DEVIATION),
    st.floats(0.03, 0.1),
)
results = st.sampled_from([0.0, 0.5, 1.0])
periods = st.floats(0, 10)


@st.composite
def nearby_games(draw: st.DrawFn, player: Rating) -> list[tuple[Rating, float]]:
    """1 to 5 games against opponents within 400 points of ``player``."""
    count = draw(st.integers(1, 5))
    return [
        (
            Rating(player.rating + draw(st.floats(-400, 400)), draw(st.floats(30, MAX_DEVIATION))),
            draw(results),
        )
        for _ in range(count)
    ]


@settings(max_examples=300)
@given(ratings, ratings, periods)
def test_a_win_never_lowers_a_rating_and_a_loss_never_raises_it(
    player: Rating, opponent: Rating, elapsed: float
) -> None:
    assert update(player, [(opponent, 1)], periods=elapsed).rating >= player.rating
    assert update(player, [(opponent, 0)], periods=elapsed).rating <= player.rating


@settings(max_examples=300)
@given(ratings, st.data())
def test_games_shrink_the_deviation(player: Rating, data: st.DataObject) -> None:
    games = data.draw(nearby_games(player))
    # Without time passing, any game is information: the deviation falls.
    assert update(player, games, periods=0).deviation < player.deviation
    # Over a whole period it also grows by the volatility: the games win while it is not small.
    if player.deviation >= 150:
        assert update(player, games, periods=1).deviation < player.deviation


@settings(max_examples=300)
@given(ratings, periods, periods)
def test_an_idle_period_grows_the_deviation_up_to_350(
    player: Rating, first: float, more: float
) -> None:
    once = age(player, first)
    assert player.deviation <= once.deviation <= MAX_DEVIATION
    assert (once.rating, once.volatility) == (player.rating, player.volatility)
    assert once.deviation <= age(player, first + more).deviation
    assert update(player, [], periods=first) == once


@settings(max_examples=300)
@given(ratings, ratings)
def test_two_players_expected_scores_sum_to_1(a: Rating, b: Rating) -> None:
    assert expected_score(a, b) + expected_score(b, a) == pytest.approx(1.0, abs=1e-12)
    if a.rating >= b.rating:
        assert expected_score(a, b) >= 0.5


@settings(max_examples=200)
@given(ratings, ratings, results)
def test_rate_game_updates_each_side_against_the_other(a: Rating, b: Rating, result: float) -> None:
    new_a, new_b = rate_game(a, b, result)
    assert new_a == update(a, [(b, result)])
    assert new_b == update(b, [(a, 1 - result)])
    assert rate_game(a, b, result, second_fixed=True) == (new_a, b)
    assert rate_game(a, b, result, first_fixed=True) == (a, new_b)


# -- fixed ratings, provisional players ------------------------------------------------------


def test_a_fixed_rating_counts_as_an_established_opponent() -> None:
    level = fixed_rating(1700)
    assert not level.provisional
    person = Rating(1500, 200)
    beat_level, _ = rate_game(person, level, 1, second_fixed=True)
    beat_stranger, _ = rate_game(person, Rating(1700, 350), 1)
    # The level's rating is known, so beating it says more than beating a stranger at 1700.
    assert beat_level.rating > beat_stranger.rating > person.rating


def test_provisional_until_the_deviation_falls_below_110() -> None:
    assert Rating().provisional
    assert Rating(1500, PROVISIONAL_DEVIATION).provisional
    assert not Rating(1500, PROVISIONAL_DEVIATION - 0.01).provisional
    player = Rating()
    games = 0
    while player.provisional:
        opponent = fixed_rating(1500 + 100 * (games % 3 - 1))
        player = update(player, [(opponent, games % 2)], periods=0.1)
        games += 1
    assert 10 <= games <= 30


def test_a_year_away_takes_a_typical_deviation_from_60_to_110() -> None:
    assert age(Rating(1500, 60), 365 * PERIODS_PER_DAY).deviation == pytest.approx(110, abs=0.1)
    assert age(Rating(1500, 60), 2000).deviation == MAX_DEVIATION


# -- bad input -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"rating": math.nan}, "rating must be finite"),
        ({"rating": math.inf}, "rating must be finite"),
        ({"rating": "1500"}, "rating must be a number"),
        ({"rating": True}, "rating must be a number"),
        ({"rating": 1e6}, "rating must be within"),
        ({"rating": 10**400}, "rating must be finite"),
        ({"deviation": 0}, "deviation must be above 0"),
        ({"deviation": -5}, "deviation must be above 0"),
        ({"deviation": 351}, "at most 350"),
        ({"volatility": 0}, "volatility must be above 0"),
        ({"volatility": 2}, "volatility must be above 0 and at most 1"),
        ({"volatility": None}, "volatility must be a number"),
    ],
)
def test_bad_ratings_are_refused(fields: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Rating(**fields)


@pytest.mark.parametrize("result", [2, -1, 0.25, math.nan, "1", None, 10**400])
def test_bad_results_are_refused(result: Any) -> None:
    with pytest.raises(ValueError, match="result must"):
        update(Rating(), [(Rating(), result)])
    with pytest.raises(ValueError, match="result must"):
        rate_game(Rating(), Rating(), result)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"tau": 0}, "tau must be above 0"),
        ({"tau": math.inf}, "tau must be finite"),
        ({"periods": -1}, "periods must be 0 or more"),
        ({"periods": math.nan}, "periods must be finite"),
    ],
)
def test_bad_parameters_are_refused(options: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        update(Rating(), [(Rating(), 1)], **options)


def test_results_as_ints_and_floats_rate_alike() -> None:
    assert update(Rating(), [(Rating(1600), 1)]) == update(Rating(), [(Rating(1600), 1.0)])


def test_lopsided_games_stay_finite() -> None:
    # A result certain to floating point carries no information: the rating stays put.
    low, high = Rating(-9000, 30), Rating(9000, 30)
    after = update(high, [(low, 1)] * 5)
    assert after.rating == pytest.approx(high.rating)
    assert math.isfinite(after.deviation)
    assert update(low, [(high, 1)]).rating <= 10_000


def test_the_ratings_and_clocks_page_runs() -> None:
    page = Path(__file__).resolve().parents[1] / "docs" / "ratings-and-clocks.md"
    result = doctest.testfile(str(page), module_relative=False, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0
    assert result.failed == 0


def test_an_opponent_must_be_a_rating() -> None:
    with pytest.raises(ValueError, match="an opponent must be a Rating"):
        update(Rating(), [(1500, 1)])  # type: ignore[list-item]
