"""Information-set Monte-Carlo tree search (Cowling, Powley and Whitehouse, 2012).

Each iteration samples the hidden cards afresh (:func:`~hanamikoji.ai.belief.determinize`), walks
one shared tree with UCB over the moves legal in that sample (counting each child's availability),
adds one node, and finishes the game with a playout. The tree is keyed by moves as the searching
seat observes them: the opponent's Secrets and Discards are one edge each (``S``, ``D``), since
their cards are hidden. The tree covers the current round; beyond it, the playout decides.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from hanamikoji.ai.belief import determinize, unseen_cards
from hanamikoji.ai.greedy import GreedyAgent
from hanamikoji.ai.opponent import WeightedPool
from hanamikoji.ai.playout import play_round, play_round_smart, playout_policy_move
from hanamikoji.ai.values import TABLES, evaluate_round_end
from hanamikoji.moves import Action, Move
from hanamikoji.state import Phase, Rules, State
from hanamikoji.view import View

__all__ = ["IsmctsAgent", "MoveStats", "SearchResult", "random_playout"]

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
        """The most visited move."""
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


def table_playout(state: State, rng: random.Random) -> float:
    """Play the policy to the end of this round, then read the between-rounds value table."""
    return evaluate_round_end(play_round(state, rng))


def smart_playout(state: State, rng: random.Random) -> float:
    """Play the smart heuristic to the end of this round, then read the value table."""
    return evaluate_round_end(play_round_smart(state, rng))


def greedy_playout(state: State, rng: random.Random) -> float:
    """Play greedy for both sides to the end of this round (in numba), then read the table."""
    from hanamikoji.ai.fastplay import greedy_round_value  # needs numpy and numba

    return greedy_round_value(state, rng)


MODELS = ("none", "pick", "all")
"""How the search plays the opponent: by its tree (``none``), or by greedy's choice in each
determinized world for its picks (``pick``) or for all its decisions (``all``)."""

HIDDEN = ("random", "greedy")
"""How the search picks the opponent's hidden card(s) behind its Secret or Discard edge in each
determinized world: uniformly (``random``) or as greedy would with that world's hand."""

PLAYOUTS: dict[str, Evaluator] = {
    "greedy": greedy_playout,
    "smart": smart_playout,
    "random": random_playout,
    "policy": policy_playout,
    "table": table_playout,
}


PYTHON_POOL = 128
"""How many worlds the Python search's belief weighs by default (``pool=0``)."""
FAST_POOL = 65536
"""How many worlds the fast search's belief weighs by default (``pool=0``): some 20 ms (a
quarter as many with ``mix``, which weighs each four times)."""


class IsmctsAgent:
    """SO-ISMCTS with UCB1 selection and availability counts.

    Options: ``iterations`` (a fixed budget: deterministic for a seed), or else ``time_ms``
    (0: the ``clock_ms`` of each decision, else 1000 ms); ``exploration`` (the UCB constant);
    ``playout`` (one of :data:`PLAYOUTS`); ``prior`` (progressive bias from greedy at the root);
    ``belief`` and ``pool`` (worlds weighted by the opponent's decisions; 0: the default size,
    :data:`PYTHON_POOL` or :data:`FAST_POOL`); ``model`` (one of :data:`MODELS`); ``hidden`` (one
    of :data:`HIDDEN`); ``fast`` (the search in numba, :mod:`hanamikoji.ai.fastsearch`: greedy
    playouts, ``model`` none or pick) and, for it only, ``guide`` (greedy's bias below the
    root), ``noise`` (random actions in the playouts), ``values`` (which round-value table,
    :data:`~hanamikoji.ai.values.TABLES`), ``draws`` (a branch for each card the searching seat
    draws), ``histories`` (how many orders of the opponent's draws the belief averages), ``mix``
    (the belief as a mixture of softnesses) and ``adapt`` (with the mixture: the opponent's
    picks searched as greedy's once the mixture finds it greedy-like with this probability).
    """

    name = "ismcts"

    def __init__(
        self,
        iterations: int = 0,
        time_ms: int = 0,
        exploration: float = 0.7,
        playout: str = "random",
        prior: float = 0.0,
        belief: float = 0.0,
        pool: int = 0,
        model: str = "none",
        hidden: str = "random",
        fast: bool = False,
        noise: float = 0.0,
        values: str = "playout",
        guide: float = 0.0,
        draws: bool = False,
        histories: int = 1,
        mix: bool = False,
        adapt: float = 0.0,
    ) -> None:
        if fast and (playout != "greedy" or model == "all"):
            raise ValueError(
                "the fast (numba) search plays greedy playouts, without model=all: "
                "use fast=1 with playout=greedy, model=none or pick"
            )
        self.fast = fast
        if not 0.0 <= noise <= 1.0:
            raise ValueError(f"noise must be between 0 and 1, got {noise}")
        if noise and not fast:
            raise ValueError("noise (random actions in the playouts) needs the fast search: fast=1")
        self.noise = noise
        if values not in TABLES:
            raise ValueError(f"unknown value table {values!r}; known: {', '.join(TABLES)}")
        if values != "playout" and not fast:
            raise ValueError("another value table (values=...) needs the fast search: fast=1")
        self.values = values
        if guide < 0:
            raise ValueError("guide must be 0 or more")
        if guide and not fast:
            raise ValueError("guide (greedy's bias below the root) needs the fast search: fast=1")
        self.guide = guide
        if draws and not fast:
            raise ValueError("draws (a branch per card drawn) needs the fast search: fast=1")
        self.draws = draws
        if histories < 1:
            raise ValueError("histories (draw orders averaged by the belief) must be 1 or more")
        if histories > 1 and not (fast and belief > 0):
            raise ValueError("histories needs the fast search's belief: fast=1, belief > 0")
        self.histories = histories
        if mix and not (fast and belief > 0):
            raise ValueError("mix needs the fast search's belief: fast=1, belief > 0")
        self.mix = mix
        if not 0.0 <= adapt <= 1.0 or (adapt > 0 and not mix):
            raise ValueError("adapt is a probability (0 to 1) and needs the mixture: mix=1")
        self.adapt = adapt
        if hidden not in HIDDEN:
            raise ValueError(f"unknown hidden-move policy {hidden!r}; known: {', '.join(HIDDEN)}")
        self.hidden = hidden
        if iterations < 0 or time_ms < 0:
            raise ValueError("iterations and time_ms must be 0 or more")
        if exploration < 0:
            raise ValueError("exploration must be 0 or more")
        if playout not in PLAYOUTS:
            known = ", ".join(PLAYOUTS)
            raise ValueError(f"unknown playout policy {playout!r}; known: {known}")
        if belief < 0 or pool < 0:
            raise ValueError("belief must be 0 or more and pool 0 (the default size) or more")
        if model not in MODELS:
            raise ValueError(f"unknown opponent model {model!r}; known: {', '.join(MODELS)}")
        self.belief = belief
        self.pool = pool
        self.model = model
        if playout == "greedy" or belief > 0 or model != "none" or hidden != "random":
            try:
                import hanamikoji.ai.fastplay  # noqa: F401
            except ImportError as e:
                raise ValueError(
                    f"playout 'greedy', belief, model and hidden need numpy and numba ({e}); "
                    "they come with hanamikoji: reinstall it, or: pip install numpy numba"
                ) from None
        self.iterations = iterations
        self.time_ms = time_ms
        self.exploration = exploration
        self.playout = playout
        if prior < 0:
            raise ValueError("prior must be 0 or more")
        self.prior = prior
        self.rules = Rules()
        self.evaluate: Evaluator = PLAYOUTS[playout]

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
        """The most visited root move after the search."""
        if not legal:
            raise ValueError("no legal moves to choose from")
        if len(legal) == 1:
            return legal[0]
        return self.search(view, legal, rng, clock_ms).best.move

    def budget(self, clock_ms: int | None) -> tuple[int, float]:
        """(iterations, seconds) for one decision: one of the two limits is infinite."""
        if self.iterations:
            return self.iterations, math.inf
        ms = self.time_ms or clock_ms or 1000
        return 2**62, ms / 1000.0 * 0.9

    def search(
        self,
        view: View,
        legal: Sequence[Move],
        rng: random.Random,
        clock_ms: int | None = None,
        worlds: Callable[[random.Random], State] | None = None,
        truth: State | None = None,
        pile: bool = False,
    ) -> SearchResult:
        """Search from ``view`` and return every root move's statistics, best first.

        ``worlds``, for experiments, supplies each iteration's world instead of the agent's own
        determinizations (``bench/information.py`` gives it more than the view shows); the
        Python search serves it, whatever ``fast`` says. The fast search takes ``truth`` (and
        ``pile``) instead: :func:`~hanamikoji.ai.fastsearch.fast_search`'s oracle.
        """
        max_iter, seconds = self.budget(clock_ms)
        if truth is not None and not self.fast:
            raise ValueError("truth is the fast search's oracle; the Python search takes worlds")
        if self.fast and worlds is None:
            return self._fast_search(view, legal, rng, max_iter, seconds, truth, pile)
        me = view.seat
        unseen = unseen_cards(view)
        root = _Node()
        root_options = _options(tuple(legal), True)
        bias = heuristic_bias(view, legal) if self.prior > 0 else None
        start = time.perf_counter()
        deadline = start + seconds
        done = 0
        pool = None
        if self.belief > 0 and worlds is None:  # weighted by the opponent's actions in them
            size = self.pool or PYTHON_POOL
            pool = WeightedPool(view, rng, size=size, beta=self.belief, rules=self.rules)
        while done < max_iter:
            if worlds is not None:
                state = worlds(rng)
            elif pool is not None:
                state = pool.draw(rng)
            else:
                state = determinize(view, rng, rules=self.rules, unseen=unseen)
            self._iterate(root, root_options, state, me, rng, bias)
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
        truth: State | None = None,
        pile: bool = False,
    ) -> SearchResult:
        from hanamikoji.ai.fastsearch import fast_search

        start = time.perf_counter()
        bias = None
        if self.prior > 0:
            heuristic = heuristic_bias(view, legal, fast=True)
            bias = {m: heuristic[m] for m in legal}
        found, done, _ = fast_search(
            view,
            legal,
            rng,
            iterations=max_iter if seconds == math.inf else 0,
            seconds=max(0.0, seconds - (time.perf_counter() - start)),
            exploration=self.exploration,
            prior=self.prior,
            bias=bias,
            hidden=self.hidden,
            noise=self.noise,
            values=self.values,
            model=self.model,
            guide=self.guide,
            draws=self.draws,
            rules=self.rules,
            truth=truth,
            pile=pile,
            belief=self.belief,
            pool=self.pool or (FAST_POOL // 4 if self.mix else FAST_POOL),
            histories=self.histories,
            mix=self.mix,
            adapt=self.adapt,
        )
        stats = [MoveStats(m, n, v) for m, n, v in found]
        stats.sort(key=lambda s: (-s.visits, -s.value))
        return SearchResult(tuple(stats), done, time.perf_counter() - start)

    def _iterate(
        self,
        root: _Node,
        root_options: dict[Key, tuple[Move, ...]],
        state: State,
        me: int,
        rng: random.Random,
        bias: dict[Key, float] | None,
    ) -> None:
        c = self.exploration
        node = root
        path: list[tuple[_Node, int]] = []
        round_ = state.round
        options = root_options  # the searching seat's own hand is known: same moves every time
        model = self.model
        greedy_hidden = self.hidden == "greedy"
        while True:
            mover = state.to_move
            assert mover is not None
            children = node.children
            if mover != me and (model == "all" or (model == "pick" and state.phase is Phase.PICK)):
                # The opponent as greedy would play with the hand this world gives it.
                from hanamikoji.ai.fastplay import greedy_move

                move = greedy_move(state, rng)
                key: Key = move.action if move.action in (Action.SECRET, Action.DISCARD) else move
                child = children.get(key)
                fresh = child is None
                if child is None:
                    child = children[key] = _Node()
                child.avail += 1
                state = state.apply(move)
                path.append((child, mover))
                node = child
                if fresh or state.to_move is None or state.round != round_:
                    break
                options = _options(state.legal_moves, state.to_move == me)
                continue
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
                        score += self.prior * weights[k] / (ch.n + 1)
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
        reward0 = self.evaluate(state, rng)
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
