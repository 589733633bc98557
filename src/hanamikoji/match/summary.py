"""A match's running result: W/D/L, the score, Elo with its interval from the pairs, SPRT."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from hanamikoji.match.games import PairResult
from hanamikoji.match.players import SIDES
from hanamikoji.stats import Z95, Pentanomial, Sprt

__all__ = ["MatchSummary", "elo_interval", "json_elo", "plural"]


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
    restarts: list[tuple[int, str, str]] = field(default_factory=list)
    """(game, side, what happened): engines found dead before a game and restarted for it."""
    reasons: dict[str, int] = field(default_factory=dict)
    sprt: Sprt | None = None
    stopped: str | None = None
    signal: int | None = None
    """The signal that stopped it (``stopped`` is then ``"interrupted"``): SIGINT, as Ctrl-C
    (or a KeyboardInterrupt) stops it, or SIGTERM."""
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
            for side, note in g.restarts:
                self.restarts.append((g.number, side, note))
                self.restarts.sort()
        self.pentanomial = self.pentanomial.add(pair.points_a)

    @property
    def verdict(self) -> str | None:
        """The SPRT's verdict so far (``H0``/``H1``), if a test was asked for."""
        return self.sprt.verdict(self.pentanomial) if self.sprt is not None else None

    def progress(self) -> str:
        """One line: games done, the score, Elo so far."""
        elo = _fmt_elo(self.pentanomial.elo)
        low, high = elo_interval(self.pentanomial)
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
        low, high = elo_interval(self.pentanomial)
        out: dict[str, Any] = {
            "a": self.a,
            "b": self.b,
            "games": self.games,
            "planned": self.planned,
            "pairs": self.pentanomial.pairs,
            "a_results": {"wins": self.wins[0], "draws": self.draws, "losses": self.wins[1]},
            "b_results": {"wins": self.wins[1], "draws": self.draws, "losses": self.wins[0]},
            "score": self.score if self.games else None,
            "elo": json_elo(self.pentanomial.elo) if self.games else None,
            "elo_95": [json_elo(low), json_elo(high)],
            "pentanomial": list(self.pentanomial.counts),
            "reasons": dict(sorted(self.reasons.items())),
            "forfeits": [{"game": n, "side": side, "why": why} for n, side, why in self.forfeits],
            "restarts": [{"game": n, "side": side, "why": why} for n, side, why in self.restarts],
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
        low, high = elo_interval(self.pentanomial)
        lines = [
            f"A = {self.a}",
            f"B = {self.b}",
            f"games {self.games} of {self.planned} ({plural(self.pentanomial.pairs, 'pair')} on "
            "shared deals)" + (f", stopped: {self.stopped}" if self.stopped else ""),
        ]
        if not self.games:
            # No score, no Elo, no endings: a 50% or an Elo of +0.0 would be made up.
            lines += ["no games played", f"time {self.elapsed:.1f} s"]
            return "\n".join(lines) + "\n"
        lines += [
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
        if self.restarts:
            lines.append(f"engines restarted between games: {len(self.restarts)}")
            lines.extend(f"  before game {n}: {side}: {why}" for n, side, why in self.restarts)
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


def elo_interval(p: Pentanomial, z: float = Z95) -> tuple[float, float]:
    """The 95% interval of A's Elo over B from the pairs (:meth:`Pentanomial.elo_interval`:
    one pseudo-pair at each extreme, so that a sweep is "at least +142", not "+inf to +inf");
    fewer than two pairs say nothing: -inf to +inf."""
    return p.elo_interval(z)


def plural(n: int, noun: str) -> str:
    """``n`` and ``noun``, with an s unless ``n`` is 1: "1 pair", "2 pairs", "0 pairs"."""
    return f"{n} {noun}" + ("" if n == 1 else "s")


def _fmt_elo(x: float) -> str:
    if x == float("inf"):
        return "+inf"
    if x == float("-inf"):
        return "-inf"
    return f"{x:+.1f}"


def json_elo(x: float) -> float | None:
    """An Elo figure as JSON has it: rounded, and null for an unbounded end (JSON has no inf)."""
    return None if x in (float("inf"), float("-inf")) else round(x, 2)
