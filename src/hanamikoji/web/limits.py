"""How much one client may ask of a public server: new games a minute, games open against the AI.

A client is an address (the connecting one, or the proxy's ``X-Forwarded-For`` when the server is
told it is behind one). The counts live in the server's memory: they protect the server from a
flood, they are not an account's quota, and a restart forgets them.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field

__all__ = ["ClientLimits", "Limits", "TooMany", "Window"]


@dataclass(frozen=True)
class Limits:
    """The limits of a server (0 turns one off)."""

    games_per_minute: int = 20
    """New games (against the AI or a friend) one client may create in any 60 seconds."""
    ai_games: int = 10
    """Unfinished games against the AI one client may hold (idle ones stop counting after
    ``idle_after`` seconds)."""
    sockets_per_seat: int = 8
    """Open WebSockets per seat of a game; a ninth closes the oldest."""
    idle_after: float = 3600.0
    guests_per_minute: int = 30
    """New guest identities one client may be given a minute (beyond: pages without one)."""
    signins_per_minute: int = 10
    """Sign-in attempts one client may make a minute, right or wrong."""
    signin_failures: int = 5
    """Wrong passwords one user name may get in any 15 minutes from one address (sign-in) or
    from one of its own sessions (password change, account deletion)."""
    signin_failures_per_name: int = 50
    """Wrong passwords one user name may get in any 15 minutes from everywhere together: a
    guess spread over many addresses is slowed too, while one address alone cannot close the
    name to its owner."""
    accounts_per_hour: int = 10
    """Accounts one client may create an hour."""
    spectators_per_game: int = 500
    """Spectators' WebSockets one game may have on this server (beyond: refused)."""
    spectators_per_client: int = 32
    """Spectators' WebSockets one client may hold open, all games together (beyond: refused)."""
    chat_burst: int = 5
    """Chat messages one author may send in any 10 seconds (beyond: ``too-many``)."""
    chat_per_minute: int = 20
    """Chat messages one author may send in any 60 seconds (beyond: ``too-many``)."""
    chat_per_address: int = 60
    """Spectators' chat messages one client may send in any 60 seconds, all its visitors
    together (beyond: ``too-many``): a new guest is cheap, so a limit per author alone lets one
    address flood a room with many."""


class TooMany(Exception):
    """A client is over a limit: ``message`` says which, ``retry_after`` when to try again."""

    def __init__(self, message: str, retry_after: int) -> None:
        super().__init__(message)
        self.message = message
        self.retry_after = retry_after


@dataclass
class ClientLimits:
    """The counts behind :class:`Limits`, by client."""

    limits: Limits = field(default_factory=Limits)
    clock: Callable[[], float] = time.monotonic
    _created: dict[str, deque[float]] = field(default_factory=dict)
    _ai_games: dict[str, dict[str, float]] = field(default_factory=dict)  # game -> last change
    _swept: float = float("-inf")

    def admit(self, client: str, *, ai: bool) -> None:
        """Raise :class:`TooMany` if ``client`` may not create a game now."""
        now = self.clock()
        per_minute = self.limits.games_per_minute
        if per_minute:
            times = self._created.setdefault(client, deque())
            while times and times[0] <= now - 60:
                times.popleft()
            if len(times) >= per_minute:
                wait = max(1, int(times[0] + 60 - now) + 1)
                raise TooMany(
                    f"too many new games: at most {per_minute} a minute from one address; "
                    f"try again in {wait} s",
                    wait,
                )
        if ai and self.limits.ai_games:
            games = self._ai_games.get(client, {})
            for game_id, last in list(games.items()):
                if last <= now - self.limits.idle_after:
                    del games[game_id]
            if len(games) >= self.limits.ai_games:
                wait = max(1, int(min(games.values()) + self.limits.idle_after - now) + 1)
                raise TooMany(
                    f"too many games against the AI from your address: {len(games)} unfinished "
                    f"(at most {self.limits.ai_games}, whoever plays there); finish or resign "
                    f"one first (one idle for {self.limits.idle_after / 60:.0f} min stops "
                    "counting)",
                    wait,
                )

    def created(self, client: str, game_id: str, *, ai: bool) -> None:
        """Count a game ``client`` created."""
        now = self.clock()
        if self.limits.games_per_minute:
            self._created.setdefault(client, deque()).append(now)
        if ai and self.limits.ai_games:
            self._ai_games.setdefault(client, {})[game_id] = now

    def touched(self, client: str, game_id: str, *, over: bool) -> None:
        """A game of ``client`` changed (or ended: it no longer counts)."""
        games = self._ai_games.get(client)
        if games is None or game_id not in games:
            return
        if over:
            del games[game_id]
            if not games:
                del self._ai_games[client]
        else:
            games[game_id] = self.clock()

    def forget_idle(self) -> None:
        """Drop the counts of clients with nothing recent (keeps memory bounded); at most once
        a minute, however often it is called."""
        now = self.clock()
        if now < self._swept + 60:
            return
        self._swept = now
        for client in [c for c, t in self._created.items() if not t or t[-1] <= now - 60]:
            del self._created[client]
        for client, games in list(self._ai_games.items()):
            if all(last <= now - self.limits.idle_after for last in games.values()):
                del self._ai_games[client]


@dataclass
class Window:
    """At most ``limit`` events per key in any ``seconds`` (0: no limit); ``what`` names them in
    the refusal ("too many sign-in attempts from your address")."""

    limit: int
    seconds: float
    what: str
    clock: Callable[[], float] = time.monotonic
    _times: dict[str, deque[float]] = field(default_factory=dict)
    _swept: float = float("-inf")

    def check(self, key: str) -> None:
        """Raise :class:`TooMany` if ``key`` has had ``limit`` events in the window."""
        if not self.limit:
            return
        now = self.clock()
        self._sweep(now)
        times = self._times.get(key)
        if times is None:
            return
        while times and times[0] <= now - self.seconds:
            times.popleft()
        if len(times) >= self.limit:
            wait = max(1, int(times[0] + self.seconds - now) + 1)
            raise TooMany(f"{self.what}: try again in {wait} s", wait)

    def add(self, key: str) -> None:
        """Count one event of ``key``."""
        if self.limit:
            self._times.setdefault(key, deque()).append(self.clock())

    def clear(self, key: str) -> None:
        """Forget ``key``'s events (a right password ends a run of wrong ones)."""
        self._times.pop(key, None)

    def _sweep(self, now: float) -> None:
        """Drop keys with nothing in the window (keeps memory bounded), at most once a window."""
        if now < self._swept + self.seconds:
            return
        self._swept = now
        for key in [k for k, t in self._times.items() if not t or t[-1] <= now - self.seconds]:
            del self._times[key]
