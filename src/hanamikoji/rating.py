"""Ratings of many players from all their games at once: one maximum-likelihood fit.

The model is Bradley-Terry on the Elo scale: a player ``d`` Elo stronger scores
``1 / (1 + 10 ** (-d / 400))`` on average; a draw counts as half a point. All games enter one
fit (as BayesElo and Ordo do), so a rating rests on every opponent, not on a chain of pairs.

Prior: each pairing that played gets ``prior_draws`` extra virtual draws (BayesElo's device).
It pulls ratings a little toward each other and keeps them finite when a player won or lost
every game; with real sample sizes its effect is small. Intervals are 95%, from the curvature
of the log-likelihood (the inverse Hessian) with the anchor held fixed; they treat games as
independent, which for duplicate pairs (deal luck cancels inside a pair) is on the wide side.

>>> fit = fit_ratings([("a", "b", 30.0, 40)], anchor="b")  # with the prior: 30.5 of 41
>>> round(fit.ratings["a"])
185
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

__all__ = ["Fit", "RatingError", "fit_ratings"]

Z95 = 1.959963984540054
_K = math.log(10.0) / 400.0  # Elo points to natural log-odds


class RatingError(ValueError):
    """Ratings that cannot be fitted as asked (unknown anchor, no games)."""


@dataclass(frozen=True)
class Fit:
    """Fitted ratings with their 95% intervals; players not connected to the anchor are absent."""

    ratings: dict[str, float]
    intervals: dict[str, tuple[float, float]]
    anchor: str
    anchor_elo: float
    unrated: tuple[str, ...]
    iterations: int
    covariance: dict[tuple[str, str], float] = field(default_factory=dict)

    def difference(self, a: str, b: str) -> tuple[float, float, float]:
        """``a``'s rating minus ``b``'s with its 95% interval (from the fit's covariance).

        Tighter than the two players' own intervals suggest: those are relative to the anchor.
        """
        d = self.ratings[a] - self.ratings[b]
        cov = self.covariance
        var = cov.get((a, a), 0.0) + cov.get((b, b), 0.0) - 2 * cov.get((a, b), 0.0)
        half = Z95 * math.sqrt(max(0.0, var))
        return d, d - half, d + half


def fit_ratings(
    results: Iterable[tuple[str, str, float, int]],
    *,
    anchor: str,
    anchor_elo: float = 0.0,
    players: Sequence[str] = (),
    prior_draws: float = 1.0,
    tol: float = 1e-9,
    max_iter: int = 100,
) -> Fit:
    """Fit ratings from ``(a, b, points of a, games)`` rows (rows may repeat a pairing).

    ``players`` lists players to report even without games (they come back in ``unrated``).
    """
    if prior_draws < 0:
        raise RatingError(f"prior_draws must be at least 0, got {prior_draws}")
    names: list[str] = list(dict.fromkeys(players))
    points: dict[tuple[str, str], float] = {}
    games: dict[tuple[str, str], int] = {}
    for a, b, pts, n in results:
        if a == b:
            raise RatingError(f"a player cannot play itself: {a!r}")
        if n < 0 or not 0 <= pts <= n:
            raise RatingError(f"{a} vs {b}: {pts} points in {n} games")
        for p in (a, b):
            if p not in names:
                names.append(p)
        key = (a, b) if a < b else (b, a)
        points[key] = points.get(key, 0.0) + (pts if a < b else n - pts)
        games[key] = games.get(key, 0) + n
    if anchor not in names:
        raise RatingError(f"the anchor {anchor!r} is not among the players: {', '.join(names)}")
    played = {k: n for k, n in games.items() if n > 0}
    connected = _component(anchor, played)
    free = [p for p in names if p in connected and p != anchor]
    index = {p: i for i, p in enumerate(free)}
    # The pairings as arrays: i, j (index into free, -1 for the anchor), scores and games,
    # each with the prior's virtual draws added.
    rows = [(a, b) for (a, b) in played if a in connected]
    ia = np.array([index.get(a, -1) for a, _ in rows], dtype=np.int64)
    ib = np.array([index.get(b, -1) for _, b in rows], dtype=np.int64)
    n_arr = np.array([played[r] + prior_draws for r in rows], dtype=np.float64)
    s = np.array([points[r] + prior_draws / 2 for r in rows], dtype=np.float64)
    m = len(free)
    x = np.zeros(m)  # ratings relative to the anchor, in natural log-odds units
    iterations = 0
    cov: Any = np.zeros((m, m))
    for iterations in range(1, max_iter + 1):  # noqa: B007 (reported)
        ra = np.where(ia >= 0, x[np.maximum(ia, 0)], 0.0)
        rb = np.where(ib >= 0, x[np.maximum(ib, 0)], 0.0)
        p = 1.0 / (1.0 + np.exp(rb - ra))
        resid = s - n_arr * p  # d logL / d r_a for each pairing (and minus that for b)
        w = n_arr * p * (1.0 - p)
        grad = np.zeros(m)
        hess = np.zeros((m, m))  # minus the Hessian: positive definite when connected
        for k in range(len(rows)):
            i, j = ia[k], ib[k]
            if i >= 0:
                grad[i] += resid[k]
                hess[i, i] += w[k]
            if j >= 0:
                grad[j] -= resid[k]
                hess[j, j] += w[k]
            if i >= 0 and j >= 0:
                hess[i, j] -= w[k]
                hess[j, i] -= w[k]
        if m == 0:
            break
        step = np.linalg.solve(hess, grad)
        # A Newton step on a logistic likelihood can overshoot from far away: cap it.
        step = np.clip(step, -2.0, 2.0)
        x = x + step
        if float(np.max(np.abs(step))) < tol:
            break
    if m:
        cov = np.linalg.inv(hess)
    ratings = {anchor: anchor_elo}
    intervals = {anchor: (anchor_elo, anchor_elo)}
    for p, i in index.items():
        elo = anchor_elo + float(x[i]) / _K
        half = Z95 * math.sqrt(max(0.0, float(cov[i, i]))) / _K
        ratings[p] = elo
        intervals[p] = (elo - half, elo + half)
    covariance = {
        (p, q): float(cov[i, j]) / _K**2 for p, i in index.items() for q, j in index.items()
    }
    unrated = tuple(p for p in names if p not in connected)
    return Fit(ratings, intervals, anchor, anchor_elo, unrated, iterations, covariance)


def _component(start: str, played: dict[tuple[str, str], int]) -> set[str]:
    """The players linked to ``start`` through games."""
    seen = {start}
    frontier = [start]
    while frontier:
        p = frontier.pop()
        for a, b in played:
            for q, r in ((a, b), (b, a)):
                if q == p and r not in seen:
                    seen.add(r)
                    frontier.append(r)
    return seen
