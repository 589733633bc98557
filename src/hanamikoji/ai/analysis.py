"""Analysis: hints for a position and a review of a whole game, from each decider's VIEW only.

A hint and a review search with one budget (:data:`ITERATIONS`) and one seed, so a review of a
decision where a hint was given repeats the hint's search and finds the same move; two searches
of the same position with other seeds differ by up to :data:`NOISE` (docs/ai.md).

>>> from hanamikoji.state import State
>>> hint = suggest(State.new(3).view(0), iterations=200, seed=1)
>>> 0.0 <= hint.win_probability <= 1.0
True
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from hanamikoji.ai.ismcts import SearchResult
from hanamikoji.ai.master import MasterAgent
from hanamikoji.moves import Move
from hanamikoji.record import Record
from hanamikoji.state import Rules
from hanamikoji.view import View

__all__ = [
    "DEFAULT_ITERATIONS",
    "ITERATIONS",
    "MARKS",
    "MISTAKE",
    "NOISE",
    "DecisionReview",
    "Hint",
    "SeatSummary",
    "mark",
    "review",
    "search_root",
    "suggest",
    "summarize",
    "value_of",
]

ITERATIONS = 20000
"""The search budget of a hint and of each decision of a review (one figure for both)."""
DEFAULT_ITERATIONS = ITERATIONS

NOISE = 0.03
"""How much loss a review may find where there is none: the 95th percentile (2.4%, rounded up) of
the loss that a search at :data:`ITERATIONS` gives to the move another search of the same
position chose, with another seed (``bench/analysis_noise.py``; docs/ai.md has the figures)."""

MISTAKE = 0.10
"""The loss from which the review page calls a move a mistake (at least :data:`NOISE`)."""

MARKS = (("??", 0.15), ("?", 0.05))
"""The marks ``hanamikoji analyze`` puts on a move by what it lost, the heavier first: ``??``
from 15%, ``?`` from 5% (the review page's one word, a mistake, starts at :data:`MISTAKE`)."""

_MIN_SHARE = 40
"""A move the search visited at least 1/_MIN_SHARE of its iterations (500 of 20,000) is valued by
its own statistics in that search; one visited less, by a search of it alone."""


@dataclass(frozen=True)
class Hint:
    """The AI's suggestion: the move, its estimated win probability, and the runners-up that
    are as good within the search's noise (:data:`NOISE`), each with its own."""

    move: Move
    win_probability: float
    alternatives: tuple[tuple[Move, float], ...]


def _searcher(iterations: int, rules: Rules | None) -> MasterAgent:
    agent = MasterAgent(iterations=iterations)
    agent.rules = rules or Rules()
    return agent


def search_root(
    view: View,
    *,
    iterations: int = ITERATIONS,
    seed: int = 0,
    rules: Rules | None = None,
) -> SearchResult:
    """The master search of ``view``'s decision with a fixed budget: every legal move's visits
    and value, best first (deterministic for a seed)."""
    legal = view.legal_moves
    if not legal:
        raise ValueError("it is not this seat's decision")
    return _searcher(iterations, rules).search(view, legal, random.Random(seed))


def suggest(
    view: View,
    *,
    iterations: int = ITERATIONS,
    seed: int = 0,
    rules: Rules | None = None,
) -> Hint:
    """The best move for ``view``'s seat, by a master search with a fixed budget (deterministic)."""
    result = search_root(view, iterations=iterations, seed=seed, rules=rules)
    best = result.best
    # "Also good": runners-up the search looked at enough to judge (a mean over a few shallow
    # lines can be far too low) and that lose no more than the search's own noise.
    others = [
        (s.move, s.value)
        for s in result.moves[1:4]
        if s.visits * _MIN_SHARE >= result.iterations and best.value - s.value <= NOISE
    ]
    # Told best first by their own chances (the search ranks them by visits: "also good: G345
    # 48%, S7 49%" read as if the second were the lesser)
    others.sort(key=lambda other: -other[1])
    return Hint(best.move, best.value, tuple(others))


def value_of(
    view: View,
    move: Move,
    result: SearchResult,
    *,
    seed: int = 0,
    rules: Rules | None = None,
) -> float:
    """The estimated score of ``move`` in the position ``result`` searched: the search's own
    figure when it looked at the move enough, else a search of that move alone."""
    stats = next(s for s in result.moves if s.move == move)
    if stats.move == result.best.move or stats.visits * _MIN_SHARE >= result.iterations:
        return stats.value
    # Few visits: the search soon preferred others, and a mean over a few shallow lines can be
    # far below what the move is worth (a pick at 0.35 from 126 visits, 0.67 in another search).
    budget = max(50, result.iterations // 4)
    alone = _searcher(budget, rules).search(view, [move], random.Random(seed))
    return alone.best.value


@dataclass(frozen=True)
class DecisionReview:
    """One decision of a game, judged from the decider's view."""

    round: int
    index: int
    seat: int
    played: Move
    best: Move
    win_probability: float
    played_value: float

    @property
    def loss(self) -> float:
        """How much estimated score the move played gave away (0 when it was the best)."""
        return max(0.0, self.win_probability - self.played_value)


def review(
    record: Record,
    *,
    seat: int | None = None,
    iterations: int = ITERATIONS,
    seed: int = 0,
) -> Iterator[DecisionReview]:
    """Judge every decision of ``record`` (or only ``seat``'s), in order, from its VIEW.

    Each decision is searched as :func:`suggest` would search it with the same ``iterations``
    and ``seed``, so a decision where that hint was followed is judged the hint's own move.
    """
    state = record.replay()
    plies = state.history
    position = state
    positions = []
    while position.parent is not None:  # walk back to every position that led to a decision
        positions.append(position.parent)
        position = position.parent
    positions.reverse()
    counts: dict[int, int] = {}
    for before, ply in zip(positions, plies, strict=True):
        index = counts.get(ply.round, 0)
        counts[ply.round] = index + 1
        if seat is not None and ply.seat != seat:
            continue
        view = before.view(ply.seat)
        result = search_root(view, iterations=iterations, seed=seed, rules=record.rules)
        played = value_of(view, ply.move, result, seed=seed, rules=record.rules)
        best = result.best
        yield DecisionReview(ply.round, index, ply.seat, ply.move, best.move, best.value, played)


def mark(loss: float) -> str:
    """The mark of :data:`MARKS` a move that lost ``loss`` bears, or ``""``.

    >>> mark(0.2), mark(0.05), mark(0.01)
    ('??', '?', '')
    """
    return next((symbol for symbol, least in MARKS if loss >= least), "")


@dataclass(frozen=True)
class SeatSummary:
    """One seat's reviewed decisions in sum: how many, how many bore each mark of
    :data:`MARKS`, the chance they gave away in all, and the one that gave away most."""

    seat: int
    decisions: int
    marked: dict[str, int]
    loss: float
    worst: DecisionReview | None  # None when no decision lost anything

    @property
    def average_loss(self) -> float:
        """The chance given away per decision (0 without decisions)."""
        return self.loss / self.decisions if self.decisions else 0.0


def summarize(
    decisions: Iterable[DecisionReview], seats: Iterable[int] = (0, 1)
) -> tuple[SeatSummary, ...]:
    """A :class:`SeatSummary` for each of ``seats``, from ``decisions`` (a review's, in order);
    a seat without decisions gets one of none. Of equal losses the earlier is the worst."""
    mine: dict[int, list[DecisionReview]] = {seat: [] for seat in seats}
    for decision in decisions:
        if decision.seat in mine:
            mine[decision.seat].append(decision)
    summaries = []
    for seat, made in mine.items():
        marked = {symbol: 0 for symbol, _ in reversed(MARKS)}  # told lightest first: ? then ??
        for decision in made:
            if symbol := mark(decision.loss):
                marked[symbol] += 1
        worst = max(made, key=lambda d: d.loss, default=None)
        if worst is not None and worst.loss <= 0.0:  # every move the best: none is the worst
            worst = None
        summaries.append(SeatSummary(seat, len(made), marked, sum(d.loss for d in made), worst))
    return tuple(summaries)
