"""Information-set Monte-Carlo tree search (Cowling, Powley and Whitehouse, 2012).

Each iteration samples the hidden cards afresh (:func:`~hanamikoji.ai.belief.determinize`), walks
one shared tree with UCB over the moves legal in that sample (counting each child's availability),
adds one node, and finishes the game with a playout. The tree is keyed by moves as the searching
seat observes them: the opponent's Secrets and Discards are one edge each (``S``, ``D``), since
their cards are hidden. The tree covers the current round; beyond it, the playout decides.
"""

from __future__ import annotations

import dataclasses
import math
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from hanamikoji.ai.base import check_choice
from hanamikoji.ai.belief import determinize, unseen_cards
from hanamikoji.ai.config import (
    ISMCTS,
    LONG,
    OPTIONS,
    Limits,
    Option,
    SearchConfig,
    unknown_option,
)
from hanamikoji.ai.greedy import GreedyAgent
from hanamikoji.ai.opponent import WeightedPool
from hanamikoji.ai.playout import play_round_smart, playout_policy_move
from hanamikoji.ai.values import evaluate_round_end
from hanamikoji.moves import Action, Move
from hanamikoji.state import Rules, State
from hanamikoji.view import View

if TYPE_CHECKING:  # (the compiled search is imported when it is used: numba takes a while)
    from hanamikoji.ai.fastsearch import Dealing

__all__ = [
    "PLAYOUTS",
    "IsmctsAgent",
    "MoveStats",
    "SearchResult",
    "random_playout",
    "search_worlds",
]

Key = Move | Action
Evaluator = Callable[[State, random.Random], float]


def heuristic_bias(view: View, legal: Sequence[Move], fast: bool = False) -> dict[Key, float]:
    """The greedy evaluation of each root move, scaled to 0..1 (the best is 1).

    ``fast``: the same scores from the numba kernel (greedy judges from the seat's own cards
    and the table only, so any world consistent with the view gives them).
    """
    if fast:
        from hanamikoji.ai.fastplay import greedy_scores

        every = greedy_scores(determinize(view, random.Random(0)))
        scores = {m: every[m] for m in legal}
    else:
        greedy = GreedyAgent()
        scores = {m: greedy.score(view, m) for m in legal}
    low, high = min(scores.values()), max(scores.values())
    span = (high - low) or 1.0
    return {m: (s - low) / span for m, s in scores.items()}


class _Node:
    __slots__ = ("avail", "children", "n", "w")

    def __init__(self) -> None:
        self.children: dict[Key, _Node] = {}
        self.n = 0
        self.w = 0.0  # total reward of the player who moved into this node
        self.avail = 0


@dataclass(frozen=True)
class MoveStats:
    """A root move's search statistics: visits and mean reward (0..1) for the searching seat."""

    move: Move
    visits: int
    value: float


@dataclass(frozen=True)
class SearchResult:
    """What a search found: the root moves, best first, and the effort spent."""

    moves: tuple[MoveStats, ...]
    iterations: int
    seconds: float

    @property
    def best(self) -> MoveStats:
        """The move the search chose: the most visited, or with ``halving`` the survivor."""
        return self.moves[0]

    @property
    def win_probability(self) -> float:
        """The searching seat's estimated score with the best move (win 1, draw 1/2)."""
        return self.best.value


def policy_playout(state: State, rng: random.Random) -> float:
    """Play the playout policy (random actions, charm-greedy picks) to the end; seat 0's score."""
    while state.to_move is not None:
        state = state.apply(playout_policy_move(state, rng))
    outcome = state.outcome
    assert outcome is not None
    return 0.5 if outcome.winner is None else 1.0 - outcome.winner


def random_playout(state: State, rng: random.Random) -> float:
    """Play uniformly random moves to the end; seat 0's score (1 win, 1/2 draw, 0 loss)."""
    uniform = rng.random
    while state.to_move is not None:
        moves = state.legal_moves
        state = state.apply(moves[int(uniform() * len(moves))])
    outcome = state.outcome
    assert outcome is not None
    return 0.5 if outcome.winner is None else 1.0 - outcome.winner


def smart_playout(state: State, rng: random.Random) -> float:
    """Play the smart heuristic to the end of this round, then read the value table."""
    return evaluate_round_end(play_round_smart(state, rng))


def greedy_playout(state: State, rng: random.Random) -> float:
    """Play greedy for both sides to the end of this round (in numba), then read the table."""
    from hanamikoji.ai.fastplay import greedy_round_value  # needs numpy and numba

    return greedy_round_value(state, rng)


PLAYOUTS: dict[str, Evaluator] = {
    "greedy": greedy_playout,
    "smart": smart_playout,
    "random": random_playout,
    "policy": policy_playout,
}
"""How the Python search finishes a world (the ``playout`` option)."""

PYTHON_POOL = 128
"""How many worlds the Python search's belief weighs by default (``pool=0``)."""

Worlds = Callable[[random.Random], State]
"""A source of worlds for the Python search: one each iteration (see :func:`search_worlds`)."""


class IsmctsAgent:
    """SO-ISMCTS with UCB1 selection and availability counts, in Python.

    Limits: ``iterations`` (a fixed budget: deterministic for a seed), or else ``time_ms`` (0:
    the ``clock_ms`` of each decision, else 1000 ms). Settings: ``config``
    (:class:`~hanamikoji.ai.config.SearchConfig`, the agent's preset by default) changed by
    keywords, each one of the options :data:`~hanamikoji.ai.config.OPTIONS` declares for this
    search: ``IsmctsAgent(iterations=200, playout="policy")``.
    """

    name = "ismcts"
    fast: ClassVar[bool] = False
    """Whether the agent runs the compiled search (``master``) rather than the Python one."""
    preset: ClassVar[SearchConfig] = ISMCTS
    """The settings the agent starts from."""

    def __init__(
        self,
        iterations: int = 0,
        time_ms: int = 0,
        *,
        config: SearchConfig | None = None,
        **settings: Any,
    ) -> None:
        limits = Limits(iterations, time_ms)
        allowed = self.options()
        for key in settings:
            if key not in allowed:
                raise ValueError(unknown_option(key, list(allowed)))
        self.config: SearchConfig = (config or self.preset).replace(**settings)
        self.given = frozenset(settings)
        """The settings given by keyword: a long budget's (``long``) leave them as they are."""
        self.iterations = limits.iterations
        """The fixed budget (0: use time); may be changed between decisions."""
        self.time_ms = limits.time_ms
        if self.needs_kernels:
            try:
                import hanamikoji.ai.fastplay  # noqa: F401
            except ImportError as e:
                raise ValueError(
                    f"this search needs numpy and numba ({e}); they come with hanamikoji: "
                    "reinstall it, or: pip install numpy numba"
                ) from None
        self.rules = Rules()

    @classmethod
    def options(cls) -> dict[str, Option]:
        """The options this agent takes, each with the agent's own default."""
        search = "fast" if cls.fast else "python"
        return {
            name: dataclasses.replace(option, default=getattr(cls.preset, name))
            for name, option in OPTIONS.items()
            if option.search in (search, "both")
        }

    @property
    def limits(self) -> Limits:
        """How long the agent searches a decision."""
        return Limits(self.iterations, self.time_ms)

    @property
    def needs_kernels(self) -> bool:
        """Whether the search calls numba kernels (greedy's, or the compiled search)."""
        c = self.config
        return self.fast or c.playout == "greedy" or c.belief > 0 or c.hidden != "random"

    def start(self, seat: int, rules: Rules) -> None:
        """A game starts under ``rules`` (the round limit matters to the search)."""
        self.rules = rules

    def choose(
        self,
        view: View,
        legal: Sequence[Move],
        rng: random.Random,
        clock_ms: int | None = None,
    ) -> Move:
        """The search's best root move (:attr:`SearchResult.best`)."""
        check_choice(view, legal, rng, clock_ms)
        if len(legal) == 1:
            return legal[0]
        return self._search(view, legal, rng, clock_ms).best.move  # checked just above

    def budget(self, clock_ms: int | None) -> tuple[int, float]:
        """(iterations, seconds) for one decision: one of the two limits is infinite."""
        return self.limits.budget(clock_ms)

    def settings(self, clock_ms: int | None) -> SearchConfig:
        """The settings one decision searches with: :attr:`config`, with
        :data:`~hanamikoji.ai.config.LONG`'s for those not given where the decision has a time
        budget of ``long`` ms or more (a fixed number of iterations keeps :attr:`config`, so a
        seed still gives the same moves)."""
        config = self.config
        ms = self.limits.time_budget_ms(clock_ms)
        if not config.long or ms is None or ms < config.long:
            return config
        return config.replace(**{k: v for k, v in LONG.items() if k not in self.given})

    def search(
        self,
        view: View,
        legal: Sequence[Move],
        rng: random.Random,
        clock_ms: int | None = None,
    ) -> SearchResult:
        """Search from ``view`` and return every root move's statistics, best first. The
        arguments are checked as :meth:`choose` checks them
        (:func:`~hanamikoji.ai.base.check_choice`): a wrong one is a clear TypeError or
        ValueError, not a failure deep in the search."""
        check_choice(view, legal, rng, clock_ms)
        return self._search(view, legal, rng, clock_ms)

    def _search(
        self,
        view: View,
        legal: Sequence[Move],
        rng: random.Random,
        clock_ms: int | None,
    ) -> SearchResult:
        """:meth:`search` of arguments already checked."""
        max_iter, seconds = self.budget(clock_ms)
        if self.fast:
            return self._fast_search(
                view, legal, rng, max_iter, seconds, config=self.settings(clock_ms)
            )
        return self._python_search(view, legal, rng, max_iter, seconds, None)

    def _python_search(
        self,
        view: View,
        legal: Sequence[Move],
        rng: random.Random,
        max_iter: int,
        seconds: float,
        worlds: Worlds | None,
    ) -> SearchResult:
        me = view.seat
        unseen = unseen_cards(view)
        root = _Node()
        root_options = _options(tuple(legal), True)
        config = self.config
        bias = heuristic_bias(view, legal) if config.prior > 0 else None
        evaluate = PLAYOUTS[config.playout]
        start = time.perf_counter()
        deadline = start + seconds
        done = 0
        pool = None
        if config.belief > 0 and worlds is None:  # weighted by the opponent's actions in them
            size = config.pool or PYTHON_POOL
            pool = WeightedPool(view, rng, size=size, beta=config.belief, rules=self.rules)
        while done < max_iter:
            if worlds is not None:
                state = worlds(rng)
            elif pool is not None:
                state = pool.draw(rng)
            else:
                state = determinize(view, rng, rules=self.rules, unseen=unseen)
            self._iterate(root, root_options, state, me, rng, bias, evaluate)
            done += 1
            if seconds != math.inf and done % 16 == 0 and time.perf_counter() >= deadline:
                break
        elapsed = time.perf_counter() - start
        stats = []
        for move in legal:
            child = root.children.get(move)
            if child is not None and child.n:
                stats.append(MoveStats(move, child.n, child.w / child.n))
            else:
                stats.append(MoveStats(move, 0, 0.0))
        stats.sort(key=lambda s: (-s.visits, -s.value))
        return SearchResult(tuple(stats), done, elapsed)

    def _fast_search(
        self,
        view: View,
        legal: Sequence[Move],
        rng: random.Random,
        max_iter: int,
        seconds: float,
        dealing: Dealing | None = None,
        *,
        config: SearchConfig,
    ) -> SearchResult:
        from hanamikoji.ai.fastsearch import fast_search

        start = time.perf_counter()
        bias = None
        if config.prior > 0 and config.rootprior == "net":
            from hanamikoji.ai.net import prior_bias

            bias = prior_bias(view, legal, self.rules)
        elif config.prior > 0:
            heuristic = heuristic_bias(view, legal, fast=True)
            bias = {m: heuristic[m] for m in legal}
        found, done, _ = fast_search(
            view,
            legal,
            rng,
            iterations=max_iter if seconds == math.inf else 0,
            seconds=max(0.0, seconds - (time.perf_counter() - start)),
            config=config,
            bias=bias,
            rules=self.rules,
            dealing=dealing,
        )
        stats = [MoveStats(m, n, v) for m, n, v in found]  # (best first)
        return SearchResult(tuple(stats), done, time.perf_counter() - start)

    def _iterate(
        self,
        root: _Node,
        root_options: dict[Key, tuple[Move, ...]],
        state: State,
        me: int,
        rng: random.Random,
        bias: dict[Key, float] | None,
        evaluate: Evaluator,
    ) -> None:
        c = self.config.exploration
        prior = self.config.prior
        node = root
        path: list[tuple[_Node, int]] = []
        round_ = state.round
        options = root_options  # the searching seat's own hand is known: same moves every time
        greedy_hidden = self.config.hidden == "greedy"
        while True:
            mover = state.to_move
            assert mover is not None
            children = node.children
            untried = [k for k in options if k not in children]
            for k in options:
                child = children.get(k)
                if child is not None:
                    child.avail += 1
            if untried:
                if bias is not None and node is root:  # the heuristic's favourite first
                    key = max(untried, key=lambda k: bias.get(k, 0.0))
                else:
                    key = untried[int(rng.random() * len(untried))]
                child = _Node()
                child.avail = 1
                children[key] = child
            else:
                best = -math.inf
                key = next(iter(options))
                weights = bias if bias is not None and node is root else None
                for k in options:
                    ch = children[k]
                    score = ch.w / ch.n + c * math.sqrt(math.log(ch.avail) / ch.n)
                    if weights is not None:  # progressive bias, fading with visits
                        score += prior * weights[k] / (ch.n + 1)
                    if score > best:
                        best, key = score, k
                child = children[key]
            concrete = options[key]
            if len(concrete) == 1:
                move = concrete[0]
            elif greedy_hidden:
                from hanamikoji.ai.fastplay import greedy_scores

                scores = greedy_scores(state)
                move = max(concrete, key=scores.__getitem__)
            else:
                move = concrete[int(rng.random() * len(concrete))]
            state = state.apply(move)
            path.append((child, mover))
            node = child
            if untried or state.to_move is None or state.round != round_:
                break
            options = _options(state.legal_moves, state.to_move == me)
        reward0 = evaluate(state, rng)
        for child, mover in path:
            child.n += 1
            child.w += reward0 if mover == 0 else 1.0 - reward0


# Legal-move tuples are shared and live as long as the process (moves.action_moves caches them),
# so their edges can be cached by identity; the tuple is kept alongside to pin it.
_OPTIONS: dict[tuple[int, bool], tuple[Sequence[Move], dict[Key, tuple[Move, ...]]]] = {}


def _options(legal: Sequence[Move], own: bool) -> dict[Key, tuple[Move, ...]]:
    """A node's edges: own moves as they are, the opponent's as the searcher sees them."""
    cached = _OPTIONS.get((id(legal), own))
    if cached is not None and cached[0] is legal:
        return cached[1]
    if own:
        options: dict[Key, tuple[Move, ...]] = {m: (m,) for m in legal}
    else:
        grouped: dict[Key, list[Move]] = {}
        for m in legal:
            key: Key = m.action if m.action in (Action.SECRET, Action.DISCARD) else m
            grouped.setdefault(key, []).append(m)
        options = {k: tuple(v) for k, v in grouped.items()}
    if isinstance(legal, tuple):
        _OPTIONS[(id(legal), own)] = (legal, options)
    return options


def search_worlds(
    agent: IsmctsAgent,
    view: View,
    legal: Sequence[Move],
    rng: random.Random,
    worlds: Worlds | Dealing,
    clock_ms: int | None = None,
) -> SearchResult:
    """``agent``'s search with its worlds from an experiment rather than from the view: a
    function giving each iteration's world (the Python search), or a
    :class:`~hanamikoji.ai.fastsearch.Dealing` (the compiled search; its belief then does not
    apply). ``bench/information.py`` gives it more than the view shows."""
    max_iter, seconds = agent.budget(clock_ms)
    if agent.fast:
        if callable(worlds):
            raise ValueError("the compiled search deals its worlds from a Dealing")
        return agent._fast_search(
            view, legal, rng, max_iter, seconds, worlds, config=agent.settings(clock_ms)
        )
    if not callable(worlds):
        raise ValueError("the Python search takes a function giving each iteration's world")
    return agent._python_search(view, legal, rng, max_iter, seconds, worlds)
