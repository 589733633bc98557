"""Glicko-2 ratings: Glickman's method for players who meet one another over time.

The formulas are those of Mark Glickman's "Example of the Glicko-2 system" (Boston University,
2013 revision, http://www.glicko.net/glicko/glicko2.pdf), steps 1 to 8, with the Illinois
algorithm for the new volatility. A rating is a mean and a deviation (the rating's standard
deviation) on the familiar scale where 1500 is a new player, plus a volatility saying how erratic
the player's results have been.

The choices the paper leaves open (lichess, which uses the same method for chess, is the model):

- **τ (``TAU``) = 0.5.** The system constant limits how fast the volatility may change; Glickman
  suggests 0.3 to 1.2. Hanamikoji's deal is luckier than a chess position, so streaks come by chance
  more often; a τ at the lower half of the range keeps them from being read as a change of strength.
  (lichess plays chess with 0.75; Glickman's worked example uses 0.5.)
- **A rating period.** Glickman rates the games of one period together; a server rates each game
  as it ends, as lichess does, by calling :func:`update` with that one game and ``periods`` = the
  time since the player's previous rated game in rating periods (``days * PERIODS_PER_DAY``; 0
  for a first game). A whole period per game would stop the deviation of a player who plays every
  day near 60; lichess's fraction lets it fall further.
- **New players** start at 1500, deviation 350, volatility 0.06 (Glickman's defaults); a deviation
  never grows past 350 (``MAX_DEVIATION``), however long a player is away.
- **Provisional** while the deviation is 110 or more (``PROVISIONAL_DEVIATION``, lichess's value):
  the rating is shown with a "?" and the player is left off the leaderboard.
- **Fixed ratings** (the AI levels): :func:`fixed_rating` gives a rating with a small deviation
  that :func:`rate_game` leaves as it is; a person's update treats it as any opponent.

>>> player = Rating(1500, 200)
>>> new = update(player, [(Rating(1400, 30), 1), (Rating(1550, 100), 0), (Rating(1700, 300), 0)])
>>> round(new.rating, 2), round(new.deviation, 2), round(new.volatility, 6)
(1464.05, 151.52, 0.059996)
>>> Rating().provisional, new.provisional
(True, True)
>>> round(expected_score(Rating(1700, 50), Rating(1500, 50)), 3)
0.755
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from numbers import Real

__all__ = [
    "DEFAULT_VOLATILITY",
    "FIXED_DEVIATION",
    "MAX_DEVIATION",
    "PERIODS_PER_DAY",
    "PROVISIONAL_DEVIATION",
    "RATING_LIMIT",
    "SCALE",
    "TAU",
    "Rating",
    "age",
    "expected_score",
    "fixed_rating",
    "from_glicko2_scale",
    "rate_game",
    "to_glicko2_scale",
    "update",
]

SCALE = 400.0 / math.log(10.0)
"""Glicko points per Glicko-2 unit (Glickman's 173.7178)."""

BASE = 1500.0
MAX_DEVIATION = 350.0
DEFAULT_VOLATILITY = 0.06
TAU = 0.5
PROVISIONAL_DEVIATION = 110.0

FIXED_DEVIATION = 30.0
"""The deviation of a fixed rating: about the standard error of the measured AI ladder (its 95%
intervals are about ±40, so σ ≈ 20), rounded up to err on the side of weighing each result less."""

PERIODS_PER_DAY = 0.21436
"""Rating periods per day of absence, lichess's figure: at volatility 0.06 a deviation of 60 grows
to 110 in a year without games."""

RATING_LIMIT = 10_000.0
"""Ratings are accepted within ±RATING_LIMIT: far beyond any player, near enough to keep the
exponentials finite."""

EPSILON = 1e-6  # Glickman's convergence tolerance for the volatility
_MAX_ITERATIONS = 200  # the Illinois iteration converges in a handful; this only bounds a bug
_RESULTS = (0.0, 0.5, 1.0)


def _number(name: str, value: object) -> float:
    """``value`` as a finite float, or a ValueError naming ``name``."""
    if isinstance(value, bool) or not isinstance(value, Real):
        raise ValueError(f"{name} must be a number, got {value!r}")
    try:
        number = float(value)
    except OverflowError:  # an int too big for a float
        number = math.inf
    if not math.isfinite(number):
        raise ValueError(f"{name} must be finite, got {value!r}")
    return number


@dataclass(frozen=True)
class Rating:
    """A Glicko-2 rating on the Glicko scale (a new player's by default).

    >>> Rating(1620.5, 80)
    Rating(rating=1620.5, deviation=80.0, volatility=0.06)
    """

    rating: float = BASE
    deviation: float = MAX_DEVIATION
    volatility: float = DEFAULT_VOLATILITY

    def __post_init__(self) -> None:
        rating = _number("rating", self.rating)
        deviation = _number("deviation", self.deviation)
        volatility = _number("volatility", self.volatility)
        if abs(rating) > RATING_LIMIT:
            raise ValueError(f"rating must be within ±{RATING_LIMIT:g}, got {rating!r}")
        if not 0.0 < deviation <= MAX_DEVIATION:
            raise ValueError(
                f"deviation must be above 0 and at most {MAX_DEVIATION:g}, got {deviation!r}"
            )
        if not 0.0 < volatility <= 1.0:
            raise ValueError(f"volatility must be above 0 and at most 1, got {volatility!r}")
        # Stored as floats so that equal ratings compare and serialise alike.
        object.__setattr__(self, "rating", rating)
        object.__setattr__(self, "deviation", deviation)
        object.__setattr__(self, "volatility", volatility)

    @property
    def provisional(self) -> bool:
        """Whether the rating is still uncertain: deviation at least ``PROVISIONAL_DEVIATION``."""
        return self.deviation >= PROVISIONAL_DEVIATION


def to_glicko2_scale(rating: float, deviation: float) -> tuple[float, float]:
    """Glickman's step 2: ``(μ, φ)`` from a rating and deviation on the Glicko scale.

    >>> to_glicko2_scale(1500, 350)[0], round(to_glicko2_scale(1500, 350)[1], 4)
    (0.0, 2.0148)
    """
    return (rating - BASE) / SCALE, deviation / SCALE


def from_glicko2_scale(mu: float, phi: float) -> tuple[float, float]:
    """Glickman's step 8: a rating and deviation on the Glicko scale from ``(μ, φ)``."""
    return BASE + SCALE * mu, SCALE * phi


def _g(phi: float) -> float:
    """Glickman's g(φ): how much an opponent's uncertainty dilutes a result."""
    return 1.0 / math.sqrt(1.0 + 3.0 * phi * phi / (math.pi * math.pi))


def _expected(mu: float, mu_j: float, phi_j: float) -> float:
    """Glickman's E(μ, μj, φj): the score expected against opponent j, used by the update."""
    return 1.0 / (1.0 + math.exp(-_g(phi_j) * (mu - mu_j)))


def expected_score(player: Rating, opponent: Rating) -> float:
    """The score ``player`` is expected to make against ``opponent`` (a win is 1).

    Both deviations count (Glickman's prediction formula, g of their combined deviation), so the
    two players' expectations sum to 1; the update's E uses the opponent's deviation alone.
    """
    mu, phi = to_glicko2_scale(player.rating, player.deviation)
    mu_j, phi_j = to_glicko2_scale(opponent.rating, opponent.deviation)
    return 1.0 / (1.0 + math.exp(-_g(math.hypot(phi, phi_j)) * (mu - mu_j)))


def _check_parameters(tau: float, periods: float) -> tuple[float, float]:
    tau = _number("tau", tau)
    periods = _number("periods", periods)
    if tau <= 0.0:
        raise ValueError(f"tau must be above 0 (Glickman suggests 0.3 to 1.2), got {tau!r}")
    if periods < 0.0:
        raise ValueError(f"periods must be 0 or more, got {periods!r}")
    return tau, periods


def _check_opponent(opponent: object) -> Rating:
    if not isinstance(opponent, Rating):
        raise ValueError(f"an opponent must be a Rating, got {opponent!r:.60}")
    return opponent


def _check_result(result: object) -> float:
    score = _number("result", result)
    if score not in _RESULTS:
        raise ValueError(f"result must be 0 (a loss), 0.5 (a draw) or 1 (a win), got {result!r}")
    return score


def age(player: Rating, periods: float = 1.0) -> Rating:
    """``player`` after ``periods`` rating periods without games: only the deviation grows.

    >>> age(Rating(1500, 60), 365 * PERIODS_PER_DAY).deviation  # doctest: +ELLIPSIS
    110.0...
    """
    _, periods = _check_parameters(TAU, periods)
    # Step 6 on the Glicko scale, where sqrt(RD²) is exactly RD: no period, no change.
    growth = periods * (SCALE * player.volatility) ** 2
    deviation = min(math.sqrt(player.deviation**2 + growth), MAX_DEVIATION)
    return Rating(player.rating, deviation, player.volatility)


def _new_volatility(phi: float, sigma: float, delta: float, v: float, tau: float) -> float:
    """Glickman's step 5: the new volatility, by the Illinois algorithm on f(x) = 0."""
    a = math.log(sigma * sigma)

    def f(x: float) -> float:
        ex = math.exp(x)
        d = phi * phi + v + ex
        return ex * (delta * delta - phi * phi - v - ex) / (2.0 * d * d) - (x - a) / (tau * tau)

    big_a = a
    if delta * delta > phi * phi + v:
        big_b = math.log(delta * delta - phi * phi - v)
    else:
        k = 1
        while f(a - k * tau) < 0.0:
            k += 1
        big_b = a - k * tau
    f_a, f_b = f(big_a), f(big_b)
    for _ in range(_MAX_ITERATIONS):
        if abs(big_b - big_a) <= EPSILON:
            break
        big_c = big_a + (big_a - big_b) * f_a / (f_b - f_a)
        f_c = f(big_c)
        if f_c * f_b <= 0.0:
            big_a, f_a = big_b, f_b
        else:
            f_a /= 2.0  # the Illinois step: halve the stale end so the bracket keeps shrinking
        big_b, f_b = big_c, f_c
    return math.exp(big_a / 2.0)


def update(
    player: Rating,
    games: Sequence[tuple[Rating, float]],
    *,
    tau: float = TAU,
    periods: float = 1.0,
) -> Rating:
    """``player``'s rating after one rating period with ``games``: (opponent's rating, result).

    Results are 1 (a win), 0.5 (a draw) or 0 (a loss). The opponents' ratings are those from
    before the period. ``periods`` is the time the period spans (1 in Glickman's paper; see the
    module's note on rating each game as it ends). With no games, only the deviation grows.

    >>> round(update(Rating(1500, 350), [(Rating(1500, 350), 1)]).rating)
    1662
    """
    tau, periods = _check_parameters(tau, periods)
    checked = [(_check_opponent(opponent), _check_result(result)) for opponent, result in games]
    if not checked:
        return age(player, periods)
    mu, phi = to_glicko2_scale(player.rating, player.deviation)
    sigma = player.volatility
    # Steps 3 and 4: the estimated variance v of the rating from the games alone, and the
    # estimated improvement Δ/v (kept as a sum so step 7 reuses it).
    info = 0.0
    improvement = 0.0
    for opponent, score in checked:
        mu_j, phi_j = to_glicko2_scale(opponent.rating, opponent.deviation)
        g = _g(phi_j)
        e = _expected(mu, mu_j, phi_j)
        info += g * g * e * (1.0 - e)
        improvement += g * (score - e)
    v = 1.0 / info if info > 0.0 else math.inf
    if math.isinf(v):
        # Games so lopsided that each result was certain tell nothing: as an idle period.
        return age(player, periods)
    new_sigma = _new_volatility(phi, sigma, v * improvement, v, tau)
    # Step 6 grows the deviation for the time the period spans; step 7 shrinks it by the games.
    phi_star = math.sqrt(phi * phi + periods * new_sigma * new_sigma)
    new_phi = 1.0 / math.sqrt(1.0 / (phi_star * phi_star) + 1.0 / v)
    new_mu = mu + new_phi * new_phi * improvement
    rating, deviation = from_glicko2_scale(new_mu, min(new_phi, MAX_DEVIATION / SCALE))
    # Held within what Rating accepts, so an update never fails: no real history comes near
    # ±10,000 points or a volatility of 1 (τ keeps it near 0.06).
    rating = max(-RATING_LIMIT, min(RATING_LIMIT, rating))
    return Rating(rating, deviation, min(new_sigma, 1.0))


def fixed_rating(rating: float, deviation: float = FIXED_DEVIATION) -> Rating:
    """A rating that stays as it is (an AI level's, from the measured ladder in docs/ai.md).

    >>> fixed_rating(1900)
    Rating(rating=1900.0, deviation=30.0, volatility=0.06)
    """
    return Rating(rating, deviation, DEFAULT_VOLATILITY)


def rate_game(
    first: Rating,
    second: Rating,
    result: float,
    *,
    first_fixed: bool = False,
    second_fixed: bool = False,
    tau: float = TAU,
    first_periods: float = 1.0,
    second_periods: float = 1.0,
) -> tuple[Rating, Rating]:
    """Both players' ratings after one game in which ``first`` scored ``result`` (1, 0.5 or 0).

    Each is updated against the other's rating from before the game; a fixed side (an AI level)
    is returned unchanged. ``*_periods``: each player's time since their previous rated game.

    >>> person, level = rate_game(Rating(1500, 200), fixed_rating(1700), 1, second_fixed=True)
    >>> round(person.rating), level.rating
    (1641, 1700.0)
    """
    score = _check_result(result)
    new_first = (
        first if first_fixed else update(first, [(second, score)], tau=tau, periods=first_periods)
    )
    new_second = (
        second
        if second_fixed
        else update(second, [(first, 1.0 - score)], tau=tau, periods=second_periods)
    )
    return new_first, new_second
