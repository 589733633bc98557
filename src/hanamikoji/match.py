"""The match runner: two players, games in duplicate pairs, Elo with error bars, SPRT.

Each pair plays the same deals twice with the seats swapped, so most of the luck of the deal
cancels inside the pair. Pairs run in parallel (local processes or a Ray cluster) and every game
is reproducible from the match seed. A player that crashes, hangs, or cheats loses that game by
forfeit and is restarted for the next.

>>> summary = run_match(MatchConfig("greedy", "random", games=4, seed=1))
>>> summary.games, sum(summary.wins) + summary.draws
(4, 4)
"""

from __future__ import annotations

import contextlib
import json
import multiprocessing
import multiprocessing.util
import os
import random
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from hanamikoji.ai import AgentError, parse_agent
from hanamikoji.ai.base import Agent, start_game
from hanamikoji.engine import Engine, EngineError, kill_all_engines
from hanamikoji.moves import Move
from hanamikoji.state import Outcome, Rules, State, Termination
from hanamikoji.stats import Pentanomial, Sprt
from hanamikoji.view import View

__all__ = [
    "MatchConfig",
    "MatchError",
    "MatchSummary",
    "PairResult",
    "Player",
    "in_pool",
    "make_player",
    "play_pair",
    "play_pairs",
    "run_match",
    "worker_started",
]

SIDES = ("A", "B")


class MatchError(ValueError):
    """A match that cannot be run as asked (bad player, bad option)."""


# -- players ---------------------------------------------------------------------------------


class Player(Protocol):
    """One side of a match: a built-in agent or an external engine."""

    label: str

    def start(self, seat: int, rules: Rules, opponent: str, seed: int) -> None:
        """A game starts; ``seed`` seeds this game's randomness (for built-in agents)."""
        ...

    def act(self, view: View, legal: Sequence[Move], clock_ms: int) -> Move:
        """A legal move, or an EngineError naming the failure."""
        ...

    def finish(self, view: View, outcome: Outcome) -> None:
        """The game ended."""
        ...

    def close(self) -> None:
        """Release the player (stop its process)."""
        ...


class AgentPlayer:
    """A built-in agent, in this process."""

    def __init__(self, label: str, agent: Agent) -> None:
        self.label = label
        self.agent = agent
        self._rng = random.Random(0)

    def start(self, seat: int, rules: Rules, opponent: str, seed: int) -> None:
        """Seed this game's random numbers and tell the agent the rules."""
        self._rng = random.Random(seed)
        start_game(self.agent, seat, rules)

    def act(self, view: View, legal: Sequence[Move], clock_ms: int) -> Move:
        """The agent's move (an exception in the agent counts as a crash)."""
        try:
            move = self.agent.choose(view, legal, self._rng, clock_ms)
        except Exception as e:
            raise EngineError("crash", f"agent error: {type(e).__name__}: {e}") from None
        if move not in legal:
            raise EngineError("illegal", f"illegal move {move}")
        return move

    def finish(self, view: View, outcome: Outcome) -> None:
        """Nothing to do."""

    def close(self) -> None:
        """Nothing to do."""


class EnginePlayer:
    """An external engine, started on first use and restarted after a failure."""

    def __init__(self, label: str, command: str, *, hard_limit_ms: int | None = None) -> None:
        self.label = label
        self.command = command
        self.hard_limit_ms = hard_limit_ms
        self._engine: Engine | None = None

    def _get(self) -> Engine:
        if self._engine is None:
            self._engine = Engine.popen(self.command)
        return self._engine

    def start(self, seat: int, rules: Rules, opponent: str, seed: int) -> None:
        """Start (or restart) the engine and announce the game."""
        try:
            self._get().new_game(seat, rules, opponent)
        except EngineError:
            self.close()
            raise

    def act(self, view: View, legal: Sequence[Move], clock_ms: int) -> Move:
        """The engine's move; on failure the engine is stopped, to be restarted next game."""
        try:
            return self._get().act(view, legal, clock_ms, hard_limit_ms=self.hard_limit_ms).move
        except EngineError:
            self.close()
            raise

    def finish(self, view: View, outcome: Outcome) -> None:
        """Send the result (a failure here only restarts the engine)."""
        if self._engine is None:
            return
        try:
            self._engine.result(view, outcome.winner, outcome.reason.value)
        except EngineError:
            self.close()

    def close(self) -> None:
        """Stop the engine process."""
        if self._engine is not None:
            engine, self._engine = self._engine, None
            engine.close()


def make_player(spec: str, *, hard_limit_ms: int | None = None) -> Player:
    """A player from ``NAME[:KEY=VALUE,...]`` (built-in agent) or ``cmd:COMMAND`` (engine)."""
    if spec.startswith("cmd:"):
        command = spec[4:].strip()
        if not command:
            raise MatchError("cmd: needs a command, e.g. 'cmd:node examples/random_engine.js'")
        return EnginePlayer(spec, command, hard_limit_ms=hard_limit_ms)
    try:
        return AgentPlayer(spec, parse_agent(spec))
    except AgentError as e:
        raise MatchError(str(e)) from None


# -- games and pairs -------------------------------------------------------------------------


@dataclass(frozen=True)
class MatchConfig:
    """What to play: the two players (specs), how many games, and under which conditions."""

    a: str
    b: str
    games: int = 100
    jobs: int = 1
    clock_ms: int = 1000
    seed: int = 0
    rules: Rules = field(default_factory=Rules)
    records: Path | None = None
    sprt: Sprt | None = None
    hard_limit_ms: int | None = None
    backend: str = "local"

    def __post_init__(self) -> None:
        if self.games < 1:
            raise MatchError(f"--games must be at least 1, got {self.games}")
        if self.jobs < 1:
            raise MatchError(f"--jobs must be at least 1, got {self.jobs}")
        if self.clock_ms < 1:
            raise MatchError(f"--clock-ms must be at least 1, got {self.clock_ms}")
        if self.backend not in ("local", "ray"):
            raise MatchError(f"--backend must be local or ray, got {self.backend!r}")

    @property
    def pairs(self) -> int:
        """Pairs to play (games are rounded up to an even number)."""
        return (self.games + 1) // 2


@dataclass(frozen=True)
class GameResult:
    """One game of a pair: who sat where, who won and why, and its record."""

    number: int
    seat_of_a: int
    winner: str | None
    reason: str
    why: str | None
    forfeit: str | None
    record: dict[str, Any]


@dataclass(frozen=True)
class PairResult:
    """Both games of one pair and A's points in it (0 to 2)."""

    index: int
    games: tuple[GameResult, GameResult]

    @property
    def points_a(self) -> float:
        """A's points over the two games."""
        return sum(1.0 if g.winner == "A" else 0.5 if g.winner is None else 0.0 for g in self.games)


def _seed(config: MatchConfig, *parts: object) -> int:
    return random.Random(":".join(str(p) for p in (config.seed, *parts))).getrandbits(63)


def play_game(
    players: tuple[Player, Player],
    state: State,
    clock_ms: int,
    seeds: tuple[int, int],
) -> State:
    """Play one game from ``state`` to its end; a failing player forfeits."""
    rules = state.rules
    for seat in (0, 1):
        try:
            players[seat].start(seat, rules, players[1 - seat].label, seeds[seat])
        except EngineError as e:
            return state.concede(seat, Termination.FORFEIT, f"seat {seat}: {e.kind}: {e}")
    while state.to_move is not None:
        seat = state.to_move
        try:
            move = players[seat].act(state.view(seat), state.legal_moves, clock_ms)
        except EngineError as e:
            state = state.concede(seat, Termination.FORFEIT, f"seat {seat}: {e.kind}: {e}")
            break
        state = state.apply(move)
    outcome = state.outcome
    assert outcome is not None
    for seat in (0, 1):
        players[seat].finish(state.view(seat), outcome)
    return state


def play_pair(players: dict[str, Player], config: MatchConfig, index: int) -> PairResult:
    """Pair ``index``: the same deals twice, A in seat 0 then in seat 1."""
    deal_seed = _seed(config, "deal", index)
    results = []
    for game, seat_of_a in ((0, 0), (1, 1)):
        seated = (players["A"], players["B"]) if seat_of_a == 0 else (players["B"], players["A"])
        start = State.new(random.Random(deal_seed), rules=config.rules)
        seeds = (_seed(config, "agent", index, game, 0), _seed(config, "agent", index, game, 1))
        final = play_game(seated, start, config.clock_ms, seeds)
        outcome = final.outcome
        assert outcome is not None
        side_of = {seat_of_a: "A", 1 - seat_of_a: "B"}
        forfeit = None
        if outcome.reason is Termination.FORFEIT and outcome.winner is not None:
            forfeit = side_of[1 - outcome.winner]
        results.append(
            GameResult(
                number=index * 2 + game + 1,
                seat_of_a=seat_of_a,
                winner=None if outcome.winner is None else side_of[outcome.winner],
                reason=outcome.reason.value,
                why=outcome.why,
                forfeit=forfeit,
                record=final.record((seated[0].label, seated[1].label)).to_json(),
            )
        )
    return PairResult(index, (results[0], results[1]))


# -- the summary -----------------------------------------------------------------------------


@dataclass
class MatchSummary:
    """Everything a match has shown so far."""

    a: str
    b: str
    planned: int
    wins: list[int] = field(default_factory=lambda: [0, 0])
    draws: int = 0
    pentanomial: Pentanomial = field(default_factory=Pentanomial)
    forfeits: list[tuple[int, str, str]] = field(default_factory=list)
    reasons: dict[str, int] = field(default_factory=dict)
    sprt: Sprt | None = None
    stopped: str | None = None
    elapsed: float = 0.0

    @property
    def games(self) -> int:
        """Games played."""
        return self.wins[0] + self.wins[1] + self.draws

    @property
    def score(self) -> float:
        """A's score per game (0..1)."""
        return self.pentanomial.score

    def add(self, pair: PairResult) -> None:
        """Count one finished pair."""
        for g in pair.games:
            if g.winner is None:
                self.draws += 1
            else:
                self.wins[SIDES.index(g.winner)] += 1
            self.reasons[g.reason] = self.reasons.get(g.reason, 0) + 1
            if g.forfeit is not None:
                self.forfeits.append((g.number, g.forfeit, g.why or "?"))
                self.forfeits.sort()
        self.pentanomial = self.pentanomial.add(pair.points_a)

    @property
    def verdict(self) -> str | None:
        """The SPRT's verdict so far (``H0``/``H1``), if a test was asked for."""
        return self.sprt.verdict(self.pentanomial) if self.sprt is not None else None

    def progress(self) -> str:
        """One line: games done, the score, Elo so far."""
        elo = _fmt_elo(self.pentanomial.elo)
        low, high = self.pentanomial.elo_interval()
        line = (
            f"{self.games}/{self.planned} games  A {self.wins[0]} - B {self.wins[1]} - draws "
            f"{self.draws}  score {100 * self.score:.1f}%  Elo {elo} [{_fmt_elo(low)}, "
            f"{_fmt_elo(high)}]"
        )
        if self.sprt is not None:
            line += f"  LLR {self.sprt.llr(self.pentanomial):.2f}"
        return line

    def to_json(self) -> dict[str, Any]:
        """The summary as a JSON-ready object."""
        low, high = self.pentanomial.elo_interval()
        out: dict[str, Any] = {
            "a": self.a,
            "b": self.b,
            "games": self.games,
            "planned": self.planned,
            "pairs": self.pentanomial.pairs,
            "a_results": {"wins": self.wins[0], "draws": self.draws, "losses": self.wins[1]},
            "b_results": {"wins": self.wins[1], "draws": self.draws, "losses": self.wins[0]},
            "score": self.score,
            "elo": _json_num(self.pentanomial.elo),
            "elo_95": [_json_num(low), _json_num(high)],
            "pentanomial": list(self.pentanomial.counts),
            "reasons": dict(sorted(self.reasons.items())),
            "forfeits": [{"game": n, "side": side, "why": why} for n, side, why in self.forfeits],
            "stopped": self.stopped,
            "seconds": round(self.elapsed, 3),
        }
        if self.sprt is not None:
            s = self.sprt
            out["sprt"] = {
                "elo0": s.elo0,
                "elo1": s.elo1,
                "alpha": s.alpha,
                "beta": s.beta,
                "llr": self.sprt.llr(self.pentanomial),
                "bounds": list(s.bounds),
                "verdict": self.verdict,
            }
        return out

    def render(self) -> str:
        """The summary as readable text."""
        low, high = self.pentanomial.elo_interval()
        lines = [
            f"A = {self.a}",
            f"B = {self.b}",
            f"games {self.games} of {self.planned} ({self.pentanomial.pairs} pairs on shared deals)"
            + (f", stopped: {self.stopped}" if self.stopped else ""),
            f"A: {self.wins[0]} wins, {self.draws} draws, {self.wins[1]} losses",
            f"B: {self.wins[1]} wins, {self.draws} draws, {self.wins[0]} losses",
            f"score of A: {100 * self.score:.1f}%",
            f"Elo of A over B: {_fmt_elo(self.pentanomial.elo)} "
            f"(95% interval {_fmt_elo(low)} to {_fmt_elo(high)}; pairs 0/0.5/1/1.5/2: "
            + " ".join(str(c) for c in self.pentanomial.counts)
            + ")",
            "endings: " + ", ".join(f"{k} {v}" for k, v in sorted(self.reasons.items())),
        ]
        if self.forfeits:
            lines.append(f"forfeits: {len(self.forfeits)}")
            lines.extend(f"  game {n}: {side} forfeited: {why}" for n, side, why in self.forfeits)
        else:
            lines.append("forfeits: none")
        if self.sprt is not None:
            s = self.sprt
            low_b, high_b = s.bounds
            verdict = {
                "H1": f"H1 accepted: A is at least {s.elo1:g} Elo stronger",
                "H0": f"H0 accepted: A is not {s.elo1:g} Elo stronger (at most {s.elo0:g})",
                None: "undecided",
            }[self.verdict]
            lines.append(
                f"SPRT elo0={s.elo0:g} elo1={s.elo1:g} alpha={s.alpha:g} beta={s.beta:g}: "
                f"LLR {s.llr(self.pentanomial):.2f} (bounds {low_b:.2f}, {high_b:.2f}): {verdict}"
            )
        lines.append(f"time {self.elapsed:.1f} s")
        return "\n".join(lines) + "\n"


def _fmt_elo(x: float) -> str:
    if x == float("inf"):
        return "+inf"
    if x == float("-inf"):
        return "-inf"
    return f"{x:+.1f}"


def _json_num(x: float) -> float | None:
    return None if x in (float("inf"), float("-inf")) else round(x, 2)


# -- running ---------------------------------------------------------------------------------


def run_match(
    config: MatchConfig,
    *,
    on_pair: Callable[[MatchSummary], None] | None = None,
) -> MatchSummary:
    """Play the match; ``on_pair`` sees the summary after each pair.

    Ctrl-C, or SIGTERM, stops it cleanly: the summary so far comes back with ``stopped``
    ``"interrupted"``, and every worker and engine it started is stopped.
    """
    with _sigterm_interrupts():
        return _run_match(config, on_pair)


@contextlib.contextmanager
def _sigterm_interrupts() -> Iterator[None]:
    """While the match runs, SIGTERM raises KeyboardInterrupt, as Ctrl-C does (main thread only)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def interrupt(signum: int, frame: object) -> None:
        # Once only: a second SIGTERM must not break off the cleanup of the first.
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _run_match(config: MatchConfig, on_pair: Callable[[MatchSummary], None] | None) -> MatchSummary:
    # Fail early, in this process, on a bad player spec or an engine that cannot start.
    for side, spec in zip(SIDES, (config.a, config.b), strict=True):
        player = make_player(spec)
        try:
            if isinstance(player, EnginePlayer):
                try:
                    player._get()
                except EngineError as e:
                    raise MatchError(f"player {side} ({spec}): {e}") from None
        finally:
            player.close()
    summary = MatchSummary(config.a, config.b, config.pairs * 2, sprt=config.sprt)
    if config.records is not None:
        try:
            config.records.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise MatchError(f"cannot create the records folder {config.records}: {e}") from None
    start = time.monotonic()
    results = play_pairs(config)
    try:
        for pair in results:
            _write_records(config, pair)
            summary.add(pair)
            summary.elapsed = time.monotonic() - start
            if on_pair is not None:
                on_pair(summary)
            if summary.verdict is not None:
                summary.stopped = f"SPRT accepted {summary.verdict}"
                break
    except KeyboardInterrupt:
        summary.stopped = "interrupted"
    finally:
        close = getattr(results, "close", None)
        if close is not None:
            close()
    summary.elapsed = time.monotonic() - start
    return summary


def _write_records(config: MatchConfig, pair: PairResult) -> None:
    if config.records is None:
        return
    for g in pair.games:
        path = config.records / f"game-{g.number:05d}.json"
        path.write_text(json.dumps(g.record, indent=1) + "\n", encoding="utf-8")


def play_pairs(config: MatchConfig) -> Iterator[PairResult]:
    """Every pair of the match, as each finishes, on the configured backend."""
    if config.backend == "ray":
        from hanamikoji.match_ray import ray_pairs

        return ray_pairs(config)
    if config.jobs == 1:
        return _serial(config)
    return _parallel(config)


def _players(config: MatchConfig) -> dict[str, Player]:
    return {
        "A": make_player(config.a, hard_limit_ms=config.hard_limit_ms),
        "B": make_player(config.b, hard_limit_ms=config.hard_limit_ms),
    }


def _serial(config: MatchConfig) -> Iterator[PairResult]:
    players = _players(config)
    try:
        for index in range(config.pairs):
            yield play_pair(players, config, index)
    finally:
        for p in players.values():
            p.close()


# Worker processes keep their players (and so their engine processes) from pair to pair.
_WORKER: dict[str, Any] = {}


def worker_started(close: Callable[[], None]) -> None:
    """Set up a pool worker that plays engines: the parent decides when to stop (SIGINT is
    ignored); SIGTERM (the pool terminated) kills its engines at once; ending normally (the pool
    closed) calls ``close``, so that an engine that ignores ``quit`` never outlives the run."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)

    def stop(signum: int, frame: object) -> None:
        # No I/O here: the signal may land in the middle of a write to an engine.
        try:
            kill_all_engines()
        finally:
            os._exit(0)

    # The parent's handler (SIGTERM as Ctrl-C) came with the fork and must not run here.
    signal.signal(signal.SIGTERM, stop)
    multiprocessing.util.Finalize(None, close, exitpriority=10)


def in_pool(
    jobs: int,
    initializer: Callable[..., None],
    initargs: tuple[Any, ...],
    work: Callable[[Any], Any],
    items: Iterable[Any],
) -> Iterator[Any]:
    """``work(item)`` for each item in ``jobs`` worker processes, as each finishes; the pool is
    closed when all are done, terminated when the caller stops early."""
    ctx = multiprocessing.get_context("fork" if sys.platform != "win32" else "spawn")
    pool = ctx.Pool(jobs, initializer=initializer, initargs=initargs)
    finished = False
    try:
        yield from pool.imap_unordered(work, items)
        finished = True
    finally:
        if finished:
            pool.close()
        else:
            pool.terminate()
        pool.join()


def _init_worker(config: MatchConfig) -> None:
    worker_started(_close_worker_players)
    _WORKER["config"] = config
    _WORKER["players"] = _players(config)


def _close_worker_players() -> None:
    for player in _WORKER.get("players", {}).values():
        with contextlib.suppress(Exception):
            player.close()


def _worker_pair(index: int) -> PairResult:
    return play_pair(_WORKER["players"], _WORKER["config"], index)


def _parallel(config: MatchConfig) -> Iterator[PairResult]:
    return in_pool(config.jobs, _init_worker, (config,), _worker_pair, range(config.pairs))
