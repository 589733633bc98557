"""Which seats are connected to the other server processes (docs/web.md, "Several servers").

Each server announces the seats connected to it (its players' sockets, its bots' links): at once
when one comes or goes, and all of them again every ``EVERY_S``, so that a seat it has not
announced for ``EXPIRE_S`` (its server died without a word) counts as gone. Nothing is written to
a table for it: the announcements travel on PostgreSQL's NOTIFY (a lone SQLite server has no one
to tell). An announcement is ``+`` (here) or ``-`` (gone from here) and its seats, ``GAME.SEAT``
comma-separated::

    >>> encode("+", [("gAme1", 0), ("gAme2", 1)])
    ['+gAme1.0,gAme2.1']
    >>> decode("-gAme1.0")
    ('-', [('gAme1', 0)])
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

__all__ = ["ASK", "EVERY_S", "EXPIRE_S", "Presence", "decode", "encode"]

Seat = tuple[str, int]

EVERY_S = 5.0
"""How often a server announces every seat connected to it."""
EXPIRE_S = 15.0
"""How long a seat announced by another server counts as there without being announced again:
three rounds, so that one late round never makes a seat look gone."""
ASK = "?"
"""A server that starts asks the others to announce their seats at once."""
MAX_TEXT = 4000
"""The longest announcement (PostgreSQL's NOTIFY takes at most 8000 bytes)."""


def encode(kind: str, seats: Iterable[Seat]) -> list[str]:
    """``seats`` as announcements of ``kind`` (``+`` or ``-``), each under ``MAX_TEXT``."""
    out: list[str] = []
    part: list[str] = []
    size = 0
    for game_id, seat in sorted(seats):
        item = f"{game_id}.{seat}"
        if part and size + len(item) + 1 > MAX_TEXT:
            out.append(kind + ",".join(part))
            part, size = [], 0
        part.append(item)
        size += len(item) + 1
    if part:
        out.append(kind + ",".join(part))
    return out


def decode(text: str) -> tuple[str, list[Seat]]:
    """An announcement's kind and seats (what does not read as a seat is skipped)."""
    kind, body = text[:1], text[1:]
    seats = []
    for item in body.split(","):
        game_id, _, seat = item.rpartition(".")
        if game_id and seat in ("0", "1"):
            seats.append((game_id, int(seat)))
    return kind, seats


@dataclass
class Presence:
    """The seats the other servers announced, and when each was last announced (this
    process's monotonic seconds: the servers' clocks need not agree)."""

    expire_s: float = EXPIRE_S
    every_s: float = EVERY_S
    seats: dict[Seat, dict[str, float]] = field(default_factory=dict)  # seat -> server -> when
    announced: set[Seat] = field(default_factory=set)
    """The seats this process last said it holds (a seat gone without a word is said gone at
    the next round)."""

    def elsewhere(self, game_id: str, seat: int) -> bool:
        """Whether another server holds ``seat`` of ``game_id``."""
        return (game_id, seat) in self.seats

    def heard(self, origin: str, text: str, now: float) -> set[str]:
        """Take in server ``origin``'s announcement; the games where a seat came or went."""
        kind, seats = decode(text)
        changed = set()
        for key in seats:
            servers = self.seats.get(key)
            if kind == "+":
                if servers is None:
                    servers = self.seats[key] = {}
                    changed.add(key[0])
                servers[origin] = now
            elif kind == "-" and servers is not None and origin in servers:
                del servers[origin]
                if not servers:
                    del self.seats[key]
                    changed.add(key[0])
        return changed

    def expire(self, now: float) -> set[str]:
        """Forget what was not announced again within ``expire_s``; the games where a seat
        went so."""
        changed = set()
        for key, servers in list(self.seats.items()):
            for origin, at in list(servers.items()):
                if now - at > self.expire_s:
                    del servers[origin]
            if not servers:
                del self.seats[key]
                changed.add(key[0])
        return changed
