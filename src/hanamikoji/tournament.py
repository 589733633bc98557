"""Tournaments: many players in a round robin or a gauntlet, rated by one fit over all games.

Every pairing plays duplicate pairs exactly as ``hanamikoji match`` does (``play_pair`` with a
``MatchConfig`` whose seed is the tournament's), so pair ``i`` deals the same cards in every
pairing and a game is reproducible from the seed. Pairs run ``jobs`` at once, locally or on Ray.
A state file (JSON, replaced atomically after each pair) lets a stopped tournament resume
without playing a finished pair again; it remembers what each player was (:func:`identity`), and
the pairs of a player that has changed since are played again. A player that cannot start is
reported and left out.

>>> t = run_tournament(TournamentConfig(("greedy", "random", "level:beginner"), games_per_pair=2))
>>> t.games, len(t.pairs)
(6, 3)
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import json
import math
import shlex
import signal
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hanamikoji.ai import AGENTS, LEVELS
from hanamikoji.engine import EngineError, kill_all_engines
from hanamikoji.files import write_whole
from hanamikoji.match import (
    AgentPlayer,
    EnginePlayer,
    MatchConfig,
    MatchError,
    PairResult,
    Player,
    in_pool,
    make_player,
    play_pair,
    worker_started,
)
from hanamikoji.match.summary import plural
from hanamikoji.rating import Fit, RatingError, fit_ratings
from hanamikoji.state import Rules
from hanamikoji.terminal import printable

__all__ = [
    "PairRecord",
    "Tournament",
    "TournamentConfig",
    "identity",
    "run_tournament",
    "schedule",
]

STATE_FORMAT = "hanamikoji-tournament/1"
FORFEITS_SHOWN = 5
"""Forfeits (and engines restarted) listed with their reasons per player in the text output
(``--json`` has all)."""

NO_GAUNTLET = "the gauntlet's player cannot start"
TOO_FEW = "fewer than two players can play"
NO_ANCHOR = "the --anchor player cannot start, and without it nobody could be rated"
"""The ways a tournament stops before playing anything (:attr:`Tournament.unplayable`)."""
STATE_UNSAVED = "the state file could not be saved"


@dataclass(frozen=True)
class TournamentConfig:
    """Who plays (specs, as for ``match``), in which form, and under which conditions."""

    players: tuple[str, ...]
    gauntlet: str | None = None
    games_per_pair: int = 10
    jobs: int = 1
    clock_ms: int = 1000
    seed: int = 0
    rules: Rules = field(default_factory=Rules)
    hard_limit_ms: int | None = None
    anchor: str | None = None
    anchor_elo: float = 0.0
    state: Path | None = None
    backend: str = "local"

    def __post_init__(self) -> None:
        players = self.all_players
        if len(players) < 2:
            raise MatchError("a tournament needs at least two players")
        seen: set[str] = set()
        same: dict[tuple[object, ...], str] = {}
        for p in players:
            if p in seen:
                raise MatchError(f"player {p!r} is named twice")
            seen.add(p)
            first = same.setdefault(same_player(p), p)
            if first != p:  # the same agent or command, spelled otherwise: it would play itself
                raise MatchError(
                    f"players {first!r} and {p!r} are the same player, named twice: name each "
                    "player once"
                )
        if self.anchor is not None and self.anchor not in seen:
            raise MatchError(
                f"--anchor {self.anchor!r} is not one of the players: {', '.join(players)}"
            )
        if self.games_per_pair < 1:
            raise MatchError(f"--games-per-pair must be at least 1, got {self.games_per_pair}")
        if self.gauntlet is not None and self.gauntlet not in self.players:
            _check_gauntlet(self.gauntlet, self.players)
        if self.state is not None:
            _check_state_path(self.state)
        # The rest (jobs, clock, backend) is checked by MatchConfig, with match's messages.
        self.match_config(players[0], players[1])

    @property
    def all_players(self) -> tuple[str, ...]:
        """Every player, the gauntlet's first."""
        if self.gauntlet is None:
            return self.players
        return (self.gauntlet, *(p for p in self.players if p != self.gauntlet))

    @property
    def pairs_per_pairing(self) -> int:
        """Duplicate pairs each pairing plays (games rounded up to an even number)."""
        return (self.games_per_pair + 1) // 2

    def match_config(self, a: str, b: str) -> MatchConfig:
        """The match settings of one pairing; the same seed everywhere, so the same deals."""
        return MatchConfig(
            a,
            b,
            games=self.games_per_pair,
            jobs=self.jobs,
            clock_ms=self.clock_ms,
            seed=self.seed,
            rules=self.rules,
            hard_limit_ms=self.hard_limit_ms,
            backend=self.backend,
        )

    def settings(self) -> dict[str, Any]:
        """What a state file must agree on to be resumed."""
        return {
            "players": list(self.all_players),
            "gauntlet": self.gauntlet,
            "games_per_pair": self.games_per_pair,
            "clock_ms": self.clock_ms,
            "hard_limit_ms": self.hard_limit_ms,
            "seed": self.seed,
            "max_rounds": self.rules.max_rounds,
        }


def _check_gauntlet(gauntlet: str, players: tuple[str, ...]) -> None:
    """Refuse a gauntlet from outside ``players`` that is no player spec at all (a typo would
    otherwise be run as a player, and only be found out when it cannot start)."""
    try:
        make_player(gauntlet).close()
    except (MatchError, ValueError) as e:  # (ValueError: a command that cannot be split)
        raise MatchError(
            f"--gauntlet {gauntlet!r} must be one of the players ({', '.join(players)}) or "
            f"another player (NAME[:KEY=VALUE,...], level:NAME or cmd:COMMAND): {e}"
        ) from None


def _check_state_path(path: Path) -> None:
    """Refuse a state file that could never be written, before anything is played (its
    folder is not made: a typo in it would otherwise leave folders anywhere)."""
    if path.is_dir():
        raise MatchError(f"--state {path} is a folder: give a file to keep the results in")
    if not path.parent.is_dir():
        raise MatchError(
            f"cannot keep the state in {path}: the folder {path.parent} does not exist"
        )


def schedule(players: tuple[str, ...], gauntlet: str | None) -> list[tuple[str, str]]:
    """The pairings: every two players (round robin) or the gauntlet against each other."""
    if gauntlet is not None:
        return [(gauntlet, p) for p in players if p != gauntlet]
    return [(a, b) for i, a in enumerate(players) for b in players[i + 1 :]]


# -- results ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class PairRecord:
    """One finished pair of one pairing: per game the winner (a, b or None) and any forfeit,
    and the engines restarted between games (as a match lists them)."""

    a: str
    b: str
    index: int
    winners: tuple[str | None, str | None]
    forfeits: tuple[str | None, str | None]
    whys: tuple[str | None, str | None]
    restarts: tuple[tuple[int, str, str], ...] = ()
    """(game of the pair, 0 or 1; player; what happened) for each engine found dead before a
    game and restarted for it."""

    @property
    def key(self) -> tuple[str, str, int]:
        """What identifies the pair in a state file."""
        return (self.a, self.b, self.index)

    @property
    def points_a(self) -> float:
        """A's points over the two games."""
        return sum(1.0 if w == self.a else 0.5 if w is None else 0.0 for w in self.winners)

    @classmethod
    def from_pair(cls, a: str, b: str, pair: PairResult) -> PairRecord:
        """The record of a pair played by ``play_pair`` (sides A and B become names)."""
        name = {"A": a, "B": b}
        g0, g1 = pair.games
        return cls(
            a,
            b,
            pair.index,
            (name.get(g0.winner or ""), name.get(g1.winner or "")),
            (name.get(g0.forfeit or ""), name.get(g1.forfeit or "")),
            (g0.why if g0.forfeit else None, g1.why if g1.forfeit else None),
            tuple(
                (k, name[side], note) for k, g in enumerate(pair.games) for side, note in g.restarts
            ),
        )

    def to_json(self) -> dict[str, Any]:
        """The pair as a JSON-ready object."""
        out: dict[str, Any] = {
            "a": self.a,
            "b": self.b,
            "pair": self.index,
            "winners": list(self.winners),
            "forfeits": list(self.forfeits),
            "why": list(self.whys),
        }
        if self.restarts:  # (rare: a state file without them reads as before)
            out["restarts"] = [list(r) for r in self.restarts]
        return out

    @classmethod
    def from_json(cls, obj: Any) -> PairRecord:
        """A pair from its JSON object (as written by ``to_json``), checked as strictly as a
        game record: a ValueError says what is wrong (a damaged or hand-edited state file once
        counted games twice, or lost them, without a word)."""
        if not isinstance(obj, dict):
            raise ValueError(f"a pair that is not an object: {obj!r:.60}")
        a, b, index = obj.get("a"), obj.get("b"), obj.get("pair")
        if not isinstance(a, str) or not isinstance(b, str):
            raise ValueError(f"a pair whose players are not two names: {a!r:.40}, {b!r:.40}")
        if type(index) is not int:  # (not a bool, not 1.0)
            raise ValueError(f"{a!r} against {b!r}: a pair index that is not a whole number")
        what = f"{a!r} against {b!r}, pair {index}"

        def per_game(key: str, default: Any = None) -> list[Any]:
            games = obj.get(key, default)
            if not isinstance(games, list) or len(games) != 2:
                raise ValueError(f"{what}: {key} must list its two games, got {games!r:.60}")
            return games

        w, f, y = per_game("winners"), per_game("forfeits"), per_game("why", [None, None])
        for key, games in (("winners", w), ("forfeits", f)):
            for g in games:
                if g not in (a, b, None):
                    raise ValueError(f"{what}: {key} names {g!r:.40}, not one of the two")
        for loser, winner in zip(f, w, strict=True):
            if loser is not None and winner != (b if loser == a else a):
                raise ValueError(f"{what}: {loser!r} forfeited a game won by {winner!r}")
        if not all(x is None or isinstance(x, str) for x in y):
            raise ValueError(f"{what}: why must be two reasons (text or null), got {y!r:.60}")
        restarts = obj.get("restarts", [])
        if not isinstance(restarts, list) or not all(
            isinstance(r, list)
            and len(r) == 3
            and type(r[0]) is int  # (not a bool, not 1.0)
            and r[0] in (0, 1)
            and r[1] in (a, b)
            and isinstance(r[2], str)
            for r in restarts
        ):
            raise ValueError(
                f"{what}: restarts must list [game 0 or 1, player, why], got {restarts!r:.60}"
            )
        return cls(
            a,
            b,
            index,
            (w[0], w[1]),
            (f[0], f[1]),
            (y[0], y[1]),
            tuple((r[0], r[1], r[2]) for r in restarts),
        )


@dataclass
class Tournament:
    """Everything a tournament has shown so far: pairs, dropped players, the fit."""

    config: TournamentConfig
    players: list[str]
    dropped: dict[str, str] = field(default_factory=dict)
    pairs: list[PairRecord] = field(default_factory=list)
    resumed: int = 0
    stopped: str | None = None
    signal: int | None = None
    """The signal that stopped it (``stopped`` is then ``"interrupted"``): SIGINT or SIGTERM."""
    elapsed: float = 0.0
    changed: list[str] = field(default_factory=list)
    state_error: str | None = None
    """Why the state file could not be saved (a full disk, its folder removed): the tournament
    stopped there, ``stopped`` saying so; its last pair is in the results, not in the file."""

    @property
    def unplayable(self) -> bool:
        """Whether it stopped before any pairing could be played (players could not start)."""
        return self.stopped in (NO_GAUNTLET, TOO_FEW, NO_ANCHOR)

    @property
    def pairings(self) -> list[tuple[str, str]]:
        """The pairings among the players that started."""
        g = self.config.gauntlet
        if g is not None and g not in self.players:
            return []
        return schedule(tuple(self.players), g)

    @property
    def planned(self) -> int:
        """Games planned among the players that started."""
        return len(self.pairings) * self.config.pairs_per_pairing * 2

    @property
    def games(self) -> int:
        """Games played (including those of a resumed state)."""
        return 2 * len(self.pairs)

    def cross(self) -> dict[str, dict[str, list[float]]]:
        """``cross[x][y] = [points of x, games, wins, draws, losses]`` against y."""
        table: dict[str, dict[str, list[float]]] = {}
        for pr in self.pairs:
            for me, other in ((pr.a, pr.b), (pr.b, pr.a)):
                cell = table.setdefault(me, {}).setdefault(other, [0.0, 0, 0, 0, 0])
                for w in pr.winners:
                    cell[1] += 1
                    if w is None:
                        cell[0] += 0.5
                        cell[3] += 1
                    elif w == me:
                        cell[0] += 1
                        cell[2] += 1
                    else:
                        cell[4] += 1
        return table

    def forfeits(self) -> dict[str, int]:
        """Games each player lost by forfeit."""
        out = {p: 0 for p in self.config.all_players}
        for pr in self.pairs:
            for f in pr.forfeits:
                if f is not None:
                    out[f] = out.get(f, 0) + 1
        return out

    def forfeited_games(self) -> list[tuple[str, str, int, str]]:
        """Every game lost by forfeit: (player, opponent, game, why), in the order of the
        players and then of the games (``game`` numbers the pairing's games from 1, as a
        match's records do)."""
        out = []
        for pr in self.pairs:
            for k, (f, why) in enumerate(zip(pr.forfeits, pr.whys, strict=True)):
                if f is not None:
                    other = pr.b if f == pr.a else pr.a
                    out.append((f, other, 2 * pr.index + k + 1, why or "?"))
        return self._in_players_order(out)

    def restarted_engines(self) -> list[tuple[str, str, int, str]]:
        """Every engine found dead before a game and restarted for it: (player, opponent, game,
        what happened), ordered as :meth:`forfeited_games` (``game`` numbers the pairing's
        games from 1)."""
        out = []
        for pr in self.pairs:
            for k, player, why in pr.restarts:
                other = pr.b if player == pr.a else pr.a
                out.append((player, other, 2 * pr.index + k + 1, why))
        return self._in_players_order(out)

    def _in_players_order(
        self, rows: list[tuple[str, str, int, str]]
    ) -> list[tuple[str, str, int, str]]:
        """(player, opponent, game, ...) rows in the order of the players, then of the games."""
        rank = {p: k for k, p in enumerate(self.config.all_players)}
        return sorted(
            rows, key=lambda x: (rank.get(x[0], len(rank)), rank.get(x[1], len(rank)), x[2])
        )

    def fit(self) -> Fit | None:
        """The maximum-likelihood ratings so far (None before any game)."""
        if not self.pairs:
            return None
        # By default the first player that plays (the first one named may have been left out).
        anchor = self.config.anchor or (self.players or self.config.all_players)[0]
        rows = [(pr.a, pr.b, pr.points_a, 2) for pr in self.pairs]
        names = [p for p in self.config.all_players if p not in self.dropped]
        if anchor not in names:
            names.insert(0, anchor)
        try:
            return fit_ratings(
                rows, anchor=anchor, anchor_elo=self.config.anchor_elo, players=names
            )
        except RatingError:
            return None

    def progress(self) -> str:
        """One line: games so far and the current leader."""
        line = f"{self.games}/{self.planned} games"
        fit = self.fit()
        if fit is not None:
            best = max(fit.ratings, key=lambda p: fit.ratings[p])
            line += f"  leader {best} ({_elo(fit.ratings[best])})"
        return line

    def to_json(self) -> dict[str, Any]:
        """Ratings, cross table, forfeits and dropped players as a JSON-ready object."""
        fit = self.fit()
        cross = self.cross()
        forfeits = self.forfeits()
        ratings = []
        order = self._order(fit)
        for k, p in enumerate(order):
            cells = cross.get(p, {})
            games = sum(int(c[1]) for c in cells.values())
            points = sum(c[0] for c in cells.values())
            r = fit.ratings.get(p) if fit else None
            lo, hi = fit.intervals[p] if fit and p in fit.intervals else (None, None)
            # The gap to the next player down has an interval of its own, usually much
            # tighter than the two ratings' intervals (those are relative to the anchor).
            below = order[k + 1] if k + 1 < len(order) else None
            gap = None
            if fit is not None and p in fit.ratings and below in fit.ratings:
                assert below is not None
                gap = {"player": below, "elo": [_num(x) for x in fit.difference(p, below)]}
            ratings.append(
                {
                    "player": p,
                    "elo": _num(r),
                    "elo_95": [_num(lo), _num(hi)],
                    "games": games,
                    "score": round(points / games, 4) if games else None,
                    "forfeits": forfeits.get(p, 0),
                    "gap_below": gap,
                }
            )
        return {
            "format": "hanamikoji-tournament-result/1",
            "kind": "gauntlet" if self.config.gauntlet else "round robin",
            "players": list(self.config.all_players),
            "dropped": [{"player": p, "why": why} for p, why in self.dropped.items()],
            "anchor": {
                "player": fit.anchor if fit else self.config.anchor,
                "elo": self.config.anchor_elo,
            },
            "games": self.games,
            "planned": self.planned,
            "resumed_games": 2 * self.resumed,
            "changed": list(self.changed),
            "ratings": ratings,
            "forfeits": [
                {"player": p, "opponent": q, "game": n, "why": why}
                for p, q, n, why in self.forfeited_games()
            ],
            "restarts": [
                {"player": p, "opponent": q, "game": n, "why": why}
                for p, q, n, why in self.restarted_engines()
            ],
            "cross_table": {
                p: {
                    q: {
                        "points": c[0],
                        "games": int(c[1]),
                        "wins": int(c[2]),
                        "draws": int(c[3]),
                        "losses": int(c[4]),
                    }
                    for q, c in cross.get(p, {}).items()
                }
                for p in self._order(fit)
            },
            "stopped": self.stopped,
            "seconds": round(self.elapsed, 3),
        }

    def _order(self, fit: Fit | None) -> list[str]:
        """The players that started, best rated first (unrated last)."""
        ratings = fit.ratings if fit else {}
        return sorted(self.players, key=lambda p: -ratings.get(p, -math.inf))

    def render(self) -> str:
        """Rating list, cross table, forfeits and dropped players as readable text."""
        fit = self.fit()
        order = self._order(fit)
        # The names as printed: escaped here, so the columns are measured as they will show.
        shown = {p: printable(p) for p in order}
        kind = f"gauntlet of {self.config.gauntlet}" if self.config.gauntlet else "round robin"
        lines = [
            f"{kind}: {len(self.players)} players, {self.games} of {self.planned} games "
            f"({plural(self.config.pairs_per_pairing, 'duplicate pair')} a pairing)"
            + (f", {2 * self.resumed} from the state file" if self.resumed else "")
            + (f", stopped: {self.stopped}" if self.stopped else ""),
        ]
        if fit is not None:
            lines.append(
                f"ratings (one maximum-likelihood fit, {fit.anchor} = {fit.anchor_elo:g}, "
                "95% intervals):"
            )
        data = self.to_json()["ratings"]
        width = max(len(shown[p]) for p in order) if order else 6
        lines.append(
            f"  {'#':>2}  {'player':<{width}}  {'Elo':>6}  {'95% interval':>15}  "
            f"{'games':>5}  {'score':>6}  {'forfeits':>8}  gap to the next (95%)"
        )
        for rank, row in enumerate(data, 1):
            elo, (lo, hi) = row["elo"], row["elo_95"]
            e = _elo(elo) if elo is not None else "-"
            iv = f"{_elo(lo)} to {_elo(hi)}" if lo is not None and hi is not None else "-"
            sc = f"{100 * row['score']:.1f}%" if row["score"] is not None else "-"
            gap = ""
            if row["gap_below"] is not None:
                d, glo, ghi = row["gap_below"]["elo"]
                gap = f"{_elo(d)} ({_elo(glo)} to {_elo(ghi)})"
            lines.append(
                f"  {rank:>2}  {shown[row['player']]:<{width}}  {e:>6}  {iv:>15}  "
                f"{row['games']:>5}  {sc:>6}  {row['forfeits']:>8}  {gap}".rstrip()
            )
        lines.append("cross table (points of the row's player / games):")
        cross = self.cross()
        cols = [str(i) for i in range(1, len(order) + 1)]
        lines.append(f"  {'':>2}  {'':<{width}}  " + "  ".join(f"{c:>9}" for c in cols))
        for rank, p in enumerate(order, 1):
            cells = []
            for q in order:
                c = cross.get(p, {}).get(q)
                cells.append("x" if p == q else f"{c[0]:g}/{c[1]:g}" if c else "-")
            lines.append(
                f"  {rank:>2}  {shown[p]:<{width}}  " + "  ".join(f"{c:>9}" for c in cells)
            )
        if fit is not None and fit.unrated:
            lines.append(
                "not rated (no games linking them to the anchor): " + ", ".join(fit.unrated)
            )
        lines.extend(self._render_forfeits())
        lines.extend(self._render_restarts())
        for p in self.changed:
            lines.append(f"changed since the state file: {p}: its pairs were played again")
        for p, why in self.dropped.items():
            lines.append(f"left out: {p}: {why}")
        lines.append(f"time {self.elapsed:.1f} s")
        return "\n".join(lines) + "\n"

    def _render_forfeits(self) -> list[str]:
        """Each player's forfeits with their reasons, the first few of each (--json has all)."""
        by_player: dict[str, list[tuple[str, int, str]]] = {}
        for p, q, n, why in self.forfeited_games():
            by_player.setdefault(p, []).append((q, n, why))
        lines = []
        for p, games in by_player.items():
            lines.append(f"forfeits of {p}: {len(games)}")
            for q, n, why in games[:FORFEITS_SHOWN]:
                lines.append(f"  against {q}, game {n}: {why}")
            if len(games) > FORFEITS_SHOWN:
                lines.append(f"  ... and {len(games) - FORFEITS_SHOWN} more (--json lists all)")
        return lines

    def _render_restarts(self) -> list[str]:
        """The engines restarted between games, in a match's words: the first few of each
        player (--json has all)."""
        restarts = self.restarted_engines()
        if not restarts:
            return []
        lines = [f"engines restarted between games: {len(restarts)}"]
        by_player: dict[str, list[tuple[str, int, str]]] = {}
        for p, q, n, why in restarts:
            by_player.setdefault(p, []).append((q, n, why))
        for p, games in by_player.items():
            for q, n, why in games[:FORFEITS_SHOWN]:
                lines.append(f"  {p}, against {q}, before game {n}: {why}")
            if len(games) > FORFEITS_SHOWN:
                more = len(games) - FORFEITS_SHOWN
                lines.append(f"  ... and {more} more of {p} (--json lists all)")
        return lines


def _num(x: float | None) -> float | None:
    return None if x is None else round(x, 1) + 0.0  # + 0.0: never -0.0


def _elo(x: float) -> str:
    """A rating difference in whole points with its sign: "+12", "-315", "+0" (never "-0")."""
    return f"{round(x) + 0:+d}"


# -- the state file --------------------------------------------------------------------------


def load_state(config: TournamentConfig) -> tuple[list[PairRecord], dict[str, str]]:
    """The pairs a state file already holds and the players' identities it recorded (both
    empty when there is none; a file written before identities were kept has none); refuses
    other settings."""
    path = config.state
    if path is None or not path.exists():
        return [], {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(data, dict) or data.get("format") != STATE_FORMAT:
            raise MatchError(f"{path} is not a tournament state file ({STATE_FORMAT})")
        pairs = [PairRecord.from_json(p) for p in data["pairs"]]
        saved = data["settings"]
        if not isinstance(saved, dict):
            raise TypeError("its settings are not an object")
        known = data.get("identities", {})
        if not isinstance(known, dict) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in known.items()
        ):
            raise TypeError("its identities are not an object of strings")
    except (OSError, ValueError, KeyError, TypeError, IndexError, AttributeError) as e:
        raise MatchError(f"cannot read the state file {path}: {e}") from None
    want = config.settings()
    diff = [f"{k}: {saved.get(k)!r} there, {v!r} now" for k, v in want.items() if saved.get(k) != v]
    if diff:
        raise MatchError(
            f"the state file {path} is of another tournament ({'; '.join(diff)}); "
            "use the same players and settings to resume, or another --state file"
        )
    _check_pairs(path, pairs, config)
    return pairs, known


def _check_pairs(path: Path, pairs: list[PairRecord], config: TournamentConfig) -> None:
    """Refuse a state whose pairs this tournament could not have played (edited by hand)."""
    # In the tournament's own order: a pairing saved as (b, a) would be played again as (a, b)
    # and counted twice.
    pairings = set(schedule(config.all_players, config.gauntlet))
    seen: set[tuple[str, str, int]] = set()
    for pair in pairs:
        a, b, index = pair.key
        what = f"the state file {path} holds a pair this tournament cannot have played"
        if (a, b) not in pairings:
            raise MatchError(f"{what}: {a!r} against {b!r}")
        if not 0 <= index < config.pairs_per_pairing:
            raise MatchError(f"{what}: pair index {index}")
        if pair.key in seen:
            raise MatchError(f"{what}: {a!r} against {b!r}, pair {index}, twice")
        seen.add(pair.key)


def save_state(
    config: TournamentConfig, pairs: list[PairRecord], identities: dict[str, str]
) -> None:
    """Write the state file whole or not at all (a temporary file renamed over the old one,
    whose mode it keeps; a symbolic link to the state file stays a link)."""
    path = config.state
    if path is None:
        return
    # One pair a line: readable, and a diff of two states shows the pairs that were added.
    head = {"format": STATE_FORMAT, "settings": config.settings(), "identities": identities}
    text = json.dumps(head)[:-1] + ', "pairs": [\n'
    text += ",\n".join(json.dumps(p.to_json()) for p in pairs) + "\n]}\n"
    write_whole(path, text)


# -- running ---------------------------------------------------------------------------------


def same_player(spec: str) -> tuple[object, ...]:
    """What ``spec`` plays, as far as its spelling tells: specs with the same key are one
    player however written (``random``, ``Random``, `` random:``; ``easy`` and ``level:easy``;
    one command with its words spaced or quoted otherwise; an agent's options in any order)."""
    if spec.startswith("cmd:"):  # (only so: make_player's test)
        try:
            return ("cmd", *shlex.split(spec[4:]))
        except ValueError:  # a command that cannot be split: preflight says so
            return ("cmd:", spec[4:].strip())
    name, _, rest = spec.partition(":")
    name = name.strip().lower()
    if name == "level":
        return ("level", rest.strip().lower())
    options = sorted(
        (key.strip(), value.strip())
        for key, _, value in (item.partition("=") for item in rest.split(","))
        if key.strip() or value.strip()
    )
    if not options and name in LEVELS and name not in AGENTS:
        return ("level", name)
    return ("agent", name, *options)


def preflight(spec: str, config: TournamentConfig) -> tuple[str | None, str | None]:
    """(why ``spec`` cannot play: a bad spec, an engine that does not start, or None; its
    :func:`identity`, None when it cannot play)."""
    try:
        player = make_player(spec, hard_limit_ms=config.hard_limit_ms)
    except (MatchError, ValueError) as e:  # (ValueError: a command that cannot be split)
        return str(e), None
    try:
        return None, identity(player)
    except EngineError as e:
        return f"{e.kind}: {e}", None
    except ValueError as e:
        return str(e), None
    finally:
        player.close()


def identity(player: Player) -> str:
    """What ``player`` is, beyond its spec, as a short digest: a built-in agent's class and
    settings (for a level, the agent it stands for; for the network, its weights too), an
    engine's name and version from its ``hello`` (so it starts the engine). A change of the
    code behind the same settings (or of the network a search reads inside) goes unseen."""
    if isinstance(player, EnginePlayer):
        engine = player._get()
        what: Any = {"engine": engine.name, "version": engine.version}
    elif isinstance(player, AgentPlayer):
        what = _describe(player.agent, 0)
    else:
        what = type(player).__qualname__
    text = json.dumps(what, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _describe(value: Any, depth: int) -> Any:
    """``value`` as JSON-ready data: objects by class and public attributes, arrays by digest."""
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if hasattr(value, "dtype") and hasattr(value, "tobytes"):  # an array (numpy not imported:
        # the command starts as fast as it did, so a Ctrl-C soon after finds it ready)
        return hashlib.sha256(value.tobytes()).hexdigest()[:16]
    if depth > 6:  # deep enough to tell settings apart; a cycle stops here
        return type(value).__qualname__
    if isinstance(value, list | tuple):
        return [_describe(v, depth + 1) for v in value]
    if isinstance(value, dict):
        return {str(k): _describe(v, depth + 1) for k, v in value.items()}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        fields = {f.name: getattr(value, f.name) for f in dataclasses.fields(value)}
    elif hasattr(value, "__dict__"):
        fields = {k: v for k, v in vars(value).items() if not k.startswith("_")}
    else:
        return type(value).__qualname__
    out = {k: _describe(v, depth + 1) for k, v in sorted(fields.items())}
    out["class"] = type(value).__qualname__
    return out


Task = tuple[str, str, int]


def run_tournament(
    config: TournamentConfig,
    *,
    on_pair: Callable[[Tournament], None] | None = None,
) -> Tournament:
    """Play the tournament; Ctrl-C or SIGTERM stop it with the results so far (state saved)."""
    done, known = load_state(config)
    dropped: dict[str, str] = {}
    identities = dict(known)
    stopped = None
    # A stop while engines start (a first numba run takes seconds) ends cleanly.
    with _Stop() as stop:
        try:
            for spec in config.all_players:
                why, ident = preflight(spec, config)
                if why is not None:
                    dropped[spec] = why
                elif ident is not None:
                    identities[spec] = ident
        except KeyboardInterrupt:
            kill_all_engines()
            stopped = "interrupted"
    live = [p for p in config.all_players if p not in dropped]
    changed = [p for p in live if stopped is None and known.get(p, identities[p]) != identities[p]]
    # A player that is not what it was: its finished pairs say nothing about it now.
    done = [pr for pr in done if pr.a not in changed and pr.b not in changed]
    t = Tournament(config, live, dropped, list(done), resumed=len(done), changed=changed)
    if stopped is not None:
        t.stopped, t.signal = stopped, stop.signum
        return t
    if config.gauntlet is not None and config.gauntlet in dropped:
        t.stopped = NO_GAUNTLET
        return t
    if len(live) < 2:
        t.stopped = TOO_FEW
        return t
    if config.anchor is not None and config.anchor in dropped:
        t.stopped = NO_ANCHOR
        return t
    finished = {p.key for p in done}
    pairings = t.pairings
    # Pair by pair across all pairings, so a tournament stopped early is still balanced; drawn
    # as they are played (never a list: a tournament of billions of games is not planned ahead).
    tasks: Iterator[Task] = (
        (a, b, i)
        for i in range(config.pairs_per_pairing)
        for a, b in pairings
        if (a, b, i) not in finished
    )
    scheduled = set(pairings)
    count = len(pairings) * config.pairs_per_pairing
    count -= sum(1 for k in finished if k[:2] in scheduled)
    start = time.monotonic()
    with _Stop() as stop:
        results: Iterator[tuple[str, str, PairResult]] | None = None
        try:
            results = _play(config, tasks, count)
            for a, b, pair in results:
                # A stop that lands here waits until the pair is both counted and saved, so
                # the table shown and the state file always hold the same pairs.
                with stop.shielded():
                    t.pairs.append(PairRecord.from_pair(a, b, pair))
                    try:
                        save_state(config, t.pairs, identities)
                    except OSError as e:  # the games were played: shown, not lost to it
                        t.state_error = (
                            f"cannot save the state file {config.state}: {e.strerror or e}"
                        )
                        t.stopped = STATE_UNSAVED
                t.elapsed = time.monotonic() - start
                if t.state_error is not None:
                    break
                if on_pair is not None:
                    on_pair(t)
        except KeyboardInterrupt:
            t.stopped, t.signal = "interrupted", stop.signum
        finally:
            close = getattr(results, "close", None)
            if close is not None:
                close()
    t.elapsed = time.monotonic() - start
    return t


class _Stop:
    """Ctrl-C and SIGTERM stop the tournament, but never inside a ``shielded`` block."""

    def __init__(self) -> None:
        self.requested = False
        self.critical = False
        self._old: dict[int, Any] = {}
        self.signum: int = signal.SIGINT
        """The signal that stopped it (SIGINT also for a KeyboardInterrupt raised otherwise)."""

    def _handler(self, signum: int, frame: object) -> None:
        first = not self.requested
        if first:
            self.signum = signum
        self.requested = True
        # Once only: a second Ctrl-C (or a SIGTERM after it) must not break off the cleanup of
        # the first, which stops the engines and the workers and then shows the results so far.
        if first and not self.critical:
            raise KeyboardInterrupt

    def __enter__(self) -> _Stop:
        if threading.current_thread() is threading.main_thread():
            for sig in (signal.SIGINT, signal.SIGTERM):
                old = signal.getsignal(sig)
                if sig == signal.SIGINT and old is not signal.default_int_handler:
                    continue  # Ctrl-C ignored (a background job) stays ignored
                self._old[sig] = old
                signal.signal(sig, self._handler)
        return self

    def __exit__(self, *exc: object) -> None:
        for sig, old in self._old.items():
            signal.signal(sig, old)

    @contextlib.contextmanager
    def shielded(self) -> Iterator[None]:
        """Hold a stop back until the block is done."""
        self.critical = True
        try:
            yield
        finally:
            self.critical = False
        if self.requested:
            raise KeyboardInterrupt


def _play(
    config: TournamentConfig, tasks: Iterator[Task], count: int
) -> Iterator[tuple[str, str, PairResult]]:
    if count <= 0:
        return iter(())
    if config.backend == "ray":
        return _ray(config, tasks, count)
    if config.jobs == 1:
        return _serial(config, tasks)
    return _parallel(config, tasks, count)


class _Table:
    """Players by spec, kept from pair to pair (engine processes are started once)."""

    def __init__(self, config: TournamentConfig) -> None:
        self.config = config
        self.players: dict[str, Player] = {}
        self.configs: dict[tuple[str, str], MatchConfig] = {}

    def play(self, task: Task) -> tuple[str, str, PairResult]:
        a, b, index = task
        for spec in (a, b):
            if spec not in self.players:
                self.players[spec] = make_player(spec, hard_limit_ms=self.config.hard_limit_ms)
        if (a, b) not in self.configs:
            self.configs[a, b] = self.config.match_config(a, b)
        pair = play_pair({"A": self.players[a], "B": self.players[b]}, self.configs[a, b], index)
        return a, b, pair

    def close(self) -> None:
        for p in self.players.values():
            p.close()
        self.players.clear()


def _serial(
    config: TournamentConfig, tasks: Iterator[Task]
) -> Iterator[tuple[str, str, PairResult]]:
    table = _Table(config)
    try:
        for task in tasks:
            yield table.play(task)
    finally:
        table.close()


_WORKER: dict[str, _Table] = {}


def _init_worker(config: TournamentConfig) -> None:
    _WORKER["table"] = _Table(config)
    worker_started(_WORKER["table"].close)


def _worker_task(task: Task) -> tuple[str, str, PairResult]:
    return _WORKER["table"].play(task)


def _parallel(
    config: TournamentConfig, tasks: Iterator[Task], count: int
) -> Iterator[tuple[str, str, PairResult]]:
    return in_pool(config.jobs, _init_worker, (config,), _worker_task, tasks, count)


def _ray(
    config: TournamentConfig, tasks: Iterator[Task], count: int
) -> Iterator[tuple[str, str, PairResult]]:
    """The tasks on Ray actors, each keeping its players (as ``match --backend ray`` does)."""
    from hanamikoji.match.ray import ray_map

    return ray_map(_Table, (config,), config.jobs, tasks, count)
