"""Match statistics: Elo from pair results (pentanomial), its 95% interval, and the SPRT.

Games are played in pairs on the same deals with the seats swapped, so the unit of evidence is the
pair: it scores 0, 1/2, 1, 3/2 or 2 points for the first player, counted in five bins. Treating the
pairs (not the games) as independent samples gives honest error bars: most of the luck of a deal
cancels inside its pair.

>>> p = Pentanomial((10, 20, 40, 20, 10))
>>> round(p.score, 3), round(p.elo, 1)
(0.5, 0.0)
"""

from __future__ import annotations

import math
from dataclasses import dataclass

__all__ = ["Pentanomial", "Sprt", "elo_from_score", "score_from_elo"]

Z95 = 1.959963984540054
_BIN_SCORES = (0.0, 0.25, 0.5, 0.75, 1.0)


def elo_from_score(score: float) -> float:
    """The Elo difference that gives an expected score ``score`` (±inf at 0 and 1)."""
    if score <= 0.0:
        return -math.inf
    if score >= 1.0:
        return math.inf
    return 400.0 * math.log10(score / (1.0 - score))


def score_from_elo(elo: float) -> float:
    """The expected score of a player ``elo`` points stronger."""
    return 1.0 / (1.0 + math.pow(10.0, -elo / 400.0))


@dataclass(frozen=True)
class Pentanomial:
    """Counts of pairs scoring 0, 0.5, 1, 1.5 and 2 points (for the first player)."""

    counts: tuple[int, int, int, int, int] = (0, 0, 0, 0, 0)

    def add(self, points: float) -> Pentanomial:
        """These counts with one more pair of ``points`` (0, 0.5, 1, 1.5 or 2)."""
        if not math.isfinite(points) or not 0 <= round(points * 2) <= 4:
            raise ValueError(f"a pair scores 0, 0.5, 1, 1.5 or 2 points, got {points!r}")
        index = round(points * 2)
        if abs(index - points * 2) > 1e-9:
            raise ValueError(f"a pair scores 0, 0.5, 1, 1.5 or 2 points, got {points!r}")
        c = list(self.counts)
        c[index] += 1
        return Pentanomial((c[0], c[1], c[2], c[3], c[4]))

    @property
    def pairs(self) -> int:
        """Number of pairs counted."""
        return sum(self.counts)

    @property
    def score(self) -> float:
        """Mean score per game (0..1); 0.5 with no pairs."""
        n = self.pairs
        if n == 0:
            return 0.5
        return sum(c * s for c, s in zip(self.counts, _BIN_SCORES, strict=True)) / n

    @property
    def variance(self) -> float:
        """Variance of one pair's score (per game, 0..1 scale)."""
        n = self.pairs
        if n == 0:
            return 0.0
        mu = self.score
        return sum(c * (s - mu) ** 2 for c, s in zip(self.counts, _BIN_SCORES, strict=True)) / n

    @property
    def elo(self) -> float:
        """The Elo difference of the mean score."""
        return elo_from_score(self.score)

    @property
    def spread(self) -> float:
        """The variance of one pair's score the intervals use: with one pseudo-pair at each
        extreme (0 and 2 points), as the SPRT takes it. Without them a sweep (every pair won) has
        no spread at all, and its interval collapses to a point ("+inf to +inf" in Elo), a
        certainty no number of pairs gives."""
        c = self.counts
        return Pentanomial((c[0] + 1, c[1], c[2], c[3], c[4] + 1)).variance

    def score_interval(self, z: float = Z95) -> tuple[float, float]:
        """Confidence interval of the mean score (normal approximation over pairs, with
        :attr:`spread`); fewer than two pairs say nothing: 0 to 1."""
        n = self.pairs
        if n < 2:
            return (0.0, 1.0)
        half = z * math.sqrt(self.spread / n)
        return (max(0.0, self.score - half), min(1.0, self.score + half))

    def elo_interval(self, z: float = Z95) -> tuple[float, float]:
        """95% (by default) confidence interval of the Elo difference: five won pairs are "at
        least +142"."""
        low, high = self.score_interval(z)
        return (elo_from_score(low), elo_from_score(high))


@dataclass(frozen=True)
class Sprt:
    """Sequential probability ratio test of H0: elo = elo0 against H1: elo = elo1.

    Uses the generalised SPRT on pair scores (the normal approximation fishtest popularised):
    ``LLR = N (s1 - s0) (2 x - s0 - s1) / (2 var)``, where x and var are the mean and variance of
    the pair scores and s0, s1 the expected scores of elo0 and elo1.
    """

    elo0: float
    elo1: float
    alpha: float = 0.05
    beta: float = 0.05

    def __post_init__(self) -> None:
        if not self.elo0 < self.elo1:
            raise ValueError(f"SPRT needs ELO0 < ELO1, got {self.elo0} and {self.elo1}")
        for name, p in (("alpha", self.alpha), ("beta", self.beta)):
            if not 0.0 < p < 0.5:
                raise ValueError(f"SPRT {name} must be between 0 and 0.5, got {p}")

    @property
    def bounds(self) -> tuple[float, float]:
        """(lower, upper) LLR bounds: below accepts H0, above accepts H1."""
        return (math.log(self.beta / (1 - self.alpha)), math.log((1 - self.beta) / self.alpha))

    def llr(self, p: Pentanomial) -> float:
        """The log-likelihood ratio of H1 against H0 given the pairs so far."""
        if p.pairs < 2:
            return 0.0
        # One pseudo-pair at each extreme keeps the variance honest when every pair so far
        # scored alike (otherwise two identical pairs would "prove" anything).
        c = p.counts
        q = Pentanomial((c[0] + 1, c[1], c[2], c[3], c[4] + 1))
        s0, s1 = score_from_elo(self.elo0), score_from_elo(self.elo1)
        return p.pairs * (s1 - s0) * (2 * q.score - s0 - s1) / (2 * q.variance)

    def verdict(self, p: Pentanomial) -> str | None:
        """``"H1"`` (ELO1 or better), ``"H0"`` (ELO0 or worse), or None while undecided."""
        llr = self.llr(p)
        low, high = self.bounds
        if llr >= high:
            return "H1"
        if llr <= low:
            return "H0"
        return None
