"""What a match plays: the two players, the games, the clock, the rules, the backend."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from hanamikoji.engine import GRACE_MS
from hanamikoji.match.players import MatchError
from hanamikoji.state import Rules
from hanamikoji.stats import Sprt

__all__ = ["CLOCK_MS_MAX", "JOBS_PER_CORE", "MatchConfig", "local_jobs_max"]

CLOCK_MS_MAX = 86_400_000
"""The longest clock a move may be given, and the longest an engine may stay silent: a day."""

JOBS_PER_CORE = 8
"""Worker processes a local match may start per core (engines that mostly wait may want more
than one each; thousands would only fill the machine with processes)."""


def local_jobs_max() -> int:
    """The most pairs a local match or tournament plays at once on this machine."""
    return JOBS_PER_CORE * (os.cpu_count() or 1)


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
        if self.backend == "local" and self.jobs > local_jobs_max():
            raise MatchError(
                f"--jobs must be at most {local_jobs_max()} on this machine ({JOBS_PER_CORE} "
                f"worker processes for each of its {os.cpu_count() or 1} cores), got {self.jobs}"
            )
        if not 1 <= self.clock_ms <= CLOCK_MS_MAX:
            raise MatchError(f"--clock-ms must be 1 to {CLOCK_MS_MAX:,}, got {self.clock_ms}")
        limit = self.hard_limit_ms
        if limit is not None and not 1 <= limit <= CLOCK_MS_MAX:
            raise MatchError(f"--hard-limit-ms must be 1 to {CLOCK_MS_MAX:,}, got {limit}")
        least = self.clock_ms + GRACE_MS
        if limit is not None and limit < least:
            # The referee's promise (docs/protocol.md, Time), kept however the match is made.
            raise MatchError(
                f"--hard-limit-ms must be at least --clock-ms + {GRACE_MS} = {least:,}, got "
                f"{limit:,}: the engine protocol promises that an engine answering within "
                f"clock_ms + {GRACE_MS} ms is never forfeited for time"
            )
        if self.backend not in ("local", "ray"):
            raise MatchError(f"--backend must be local or ray, got {self.backend!r}")

    @property
    def pairs(self) -> int:
        """Pairs to play (games are rounded up to an even number)."""
        return (self.games + 1) // 2
