"""What a match plays: the two players, the games, the clock, the rules, the backend."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from hanamikoji.match.players import MatchError
from hanamikoji.state import Rules
from hanamikoji.stats import Sprt

__all__ = ["MatchConfig"]


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
