"""Time controls and the game clock: pure values over timestamps the caller passes.

Nothing here reads the system clock. Every ``now`` is whole milliseconds since the Unix epoch
(``round(time.time() * 1000)``), the wall clock shared by every server on one database; a monotonic
clock would not survive a restart. A ``now`` a little before the clock's own start (two servers'
clocks differing by milliseconds) charges nothing rather than failing.

**Time controls.** ``none`` (friends, the AI: no clock); real-time ``M+S``: M minutes (1 to 60) for
the whole game and S seconds (0 to 60) added after each decision, e.g. 3+2, 5+3, 10+5; and
correspondence ``Nd``: N days (1, 3 or 7) for each decision. A decision is every move a seat makes,
the pick after a Gift or Competition included; after a pick the picker may act again, so the
caller says which seat decides next.

**The deadline.** The seat to decide has until ``deadline`` (the moment its clock started plus
its remaining time). A move arriving at or before the deadline counts, with 0 ms left; one arriving
a millisecond after it is refused (:class:`OutOfTimeError`) and the seat has lost on time
(:meth:`Clock.flag`). Real-time seats keep what they do not use and gain the increment; a
correspondence seat gets the whole allowance afresh for each decision.

**Downtime.** Time during which no server ran is nobody's. Each running server writes a shared
``alive_at = max(alive_at, now)`` every ``HEARTBEAT_MS``. A starting server reads ``alive_at``
before its first heartbeat and before it enforces any deadline. If ``now - alive_at`` exceeds
``DOWN_AFTER_MS``, no server was running since ``alive_at``: in one transaction that moves
``alive_at`` to ``now`` only if it still holds the value read (so one starting server of several
does it), it replaces every running clock ``c`` by ``c.skip_downtime(alive_at, now)`` and
rewrites the stored deadline. The time between a crash and
the last heartbeat before it is free (at most a heartbeat); an outage shorter than
``DOWN_AFTER_MS`` cannot be told from a live server and is charged (at most two heartbeats).
:meth:`Clock.pause` and :meth:`Clock.resume` do the same for a planned stop.

**Abandonment.** In a real-time game, once a seat has been gone (no connection) for
``ABANDON_MIN_MS`` (30 s) or a third of the time its clock showed when it left, whichever is
longer, the other seat may claim the win (:func:`claim_allowed_at`). Absence counts from the later
of the seat's last sight and the clock's last resumption: a seat is not gone while no server ran.

>>> control = TimeControl.parse("3+2")
>>> clock = Clock.new(control).start(0, now=1_000)
>>> clock.deadline
181000
>>> clock = clock.decision(0, now=11_000, next_seat=1)  # seat 0 thought 10 s, gains 2 s
>>> clock.remaining, clock.turn, clock.deadline
((172000, 180000), 1, 191000)
>>> clock.flag(now=191_000), clock.flag(now=191_001)
(None, 1)
>>> Clock.from_json(clock.to_json()) == clock
True
"""

from __future__ import annotations

import enum
import json
import re
import reprlib
from dataclasses import dataclass, replace
from typing import Any

__all__ = [
    "ABANDON_MIN_MS",
    "CONTROL_NOTATION",
    "CORRESPONDENCE_DAYS",
    "DOWN_AFTER_MS",
    "HEARTBEAT_MS",
    "INCREMENT_SECONDS",
    "MINUTES",
    "RECONNECT_MS",
    "Clock",
    "ClockError",
    "Kind",
    "OutOfTimeError",
    "TimeControl",
    "claim_allowed_at",
    "may_claim_abandoned",
]

MINUTES = range(1, 61)
"""Real-time: whole minutes for the whole game, per seat."""
INCREMENT_SECONDS = range(0, 61)
"""Real-time: whole seconds added after each decision."""
CORRESPONDENCE_DAYS = (1, 3, 7)
"""Correspondence: days for each decision."""

HEARTBEAT_MS = 1_000
"""How often a running server records that it is alive (the downtime rule, above)."""
DOWN_AFTER_MS = 2 * HEARTBEAT_MS
"""No heartbeat for this long means no server was running."""
RECONNECT_MS = 5_000
"""After an outage, how long the running clock waits for the pages to reconnect before it runs
on (the web page tries again at least every 5 s): nobody loses time to a server coming back."""
ABANDON_MIN_MS = 30_000
"""The shortest absence after which the other seat may claim a real-time game."""

_MS_PER_DAY = 86_400_000
_MAX_MS = 2**53 - 1  # timestamps and times stay integers a browser's JSON reads exactly
_MAX_JSON_CHARS = 1_000  # a stored clock is about 100 characters
_SEATS = (0, 1)
_NOTATION = re.compile(r"(?:(none)|([0-9]{1,2})\+([0-9]{1,2})|([0-9])d)")  # ASCII digits only

CONTROL_NOTATION = "a time control is 'none', minutes+seconds such as '3+2', or days such as '3d'"
"""What a time control's notation is, for the errors that refuse another."""

_quote = reprlib.Repr()
_quote.maxstring = 40
_quote.maxother = 40
_quote.maxlong = 40


class ClockError(ValueError):
    """A time control or clock that cannot be, or an operation the clock's state does not allow."""


class OutOfTimeError(ClockError):
    """A decision that arrived after its seat's deadline: the seat has lost on time."""


class Kind(enum.Enum):
    """The family of a time control (ratings are kept per family)."""

    NONE = "none"
    REAL_TIME = "real-time"
    CORRESPONDENCE = "correspondence"


def _whole(name: str, value: object) -> int:
    """``value`` as an int (never a bool or a float), or a ClockError naming ``name``."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise ClockError(f"{name} must be a whole number, got {_quote.repr(value)}")
    return value


def _timestamp(name: str, value: object) -> int:
    """A time in whole milliseconds, 0 to 2**53 - 1."""
    ms = _whole(name, value)
    if not 0 <= ms <= _MAX_MS:
        raise ClockError(f"{name} must be milliseconds from 0 to 2**53 - 1, got {ms}")
    return ms


def _seat(name: str, value: object) -> int:
    seat = _whole(name, value)
    if seat not in _SEATS:
        raise ClockError(f"{name} must be seat 0 or 1, got {seat}")
    return seat


@dataclass(frozen=True)
class TimeControl:
    """How much time the players get: ``none``, real-time ``3+2`` or correspondence ``3d``.

    >>> TimeControl.real_time(5, 3), TimeControl.correspondence(3), TimeControl.none()
    (TimeControl.parse('5+3'), TimeControl.parse('3d'), TimeControl.parse('none'))
    >>> str(TimeControl.parse("10+5")), TimeControl.parse("10+5").kind.value
    ('10+5', 'real-time')
    """

    kind: Kind
    minutes: int = 0
    increment: int = 0
    days: int = 0

    def __post_init__(self) -> None:
        if not isinstance(self.kind, Kind):
            raise ClockError(f"kind must be a Kind, got {_quote.repr(self.kind)}")
        minutes = _whole("minutes", self.minutes)
        increment = _whole("increment", self.increment)
        days = _whole("days", self.days)
        if self.kind is Kind.REAL_TIME:
            if minutes not in MINUTES:
                raise ClockError(f"a real-time game has 1 to 60 minutes, not {minutes}")
            if increment not in INCREMENT_SECONDS:
                raise ClockError(f"the increment is 0 to 60 seconds a decision, not {increment}")
        elif minutes or increment:
            raise ClockError(f"a {self.kind.value} time control has no minutes or increment")
        if self.kind is Kind.CORRESPONDENCE:
            if days not in CORRESPONDENCE_DAYS:
                raise ClockError(f"a correspondence game has 1, 3 or 7 days a decision, not {days}")
        elif days:
            raise ClockError(f"a {self.kind.value} time control has no days")

    @classmethod
    def none(cls) -> TimeControl:
        """No clock."""
        return cls(Kind.NONE)

    @classmethod
    def real_time(cls, minutes: int, increment: int) -> TimeControl:
        """``minutes`` for the whole game per seat, ``increment`` seconds added per decision."""
        return cls(Kind.REAL_TIME, minutes=minutes, increment=increment)

    @classmethod
    def correspondence(cls, days: int) -> TimeControl:
        """``days`` (1, 3 or 7) for each decision."""
        return cls(Kind.CORRESPONDENCE, days=days)

    @classmethod
    def parse(cls, text: str) -> TimeControl:
        """A time control from its notation: ``none``, ``3+2`` or ``3d``."""
        match = _NOTATION.fullmatch(text) if isinstance(text, str) else None
        if match is None:
            raise ClockError(f"{CONTROL_NOTATION}; got {_quote.repr(text)}")
        if match[1]:
            return cls.none()
        if match[4]:
            return cls.correspondence(int(match[4]))
        return cls.real_time(int(match[2]), int(match[3]))

    def __str__(self) -> str:
        if self.kind is Kind.REAL_TIME:
            return f"{self.minutes}+{self.increment}"
        if self.kind is Kind.CORRESPONDENCE:
            return f"{self.days}d"
        return "none"

    def __repr__(self) -> str:
        return f"TimeControl.parse({str(self)!r})"

    @property
    def timed(self) -> bool:
        """Whether there is a clock at all."""
        return self.kind is not Kind.NONE

    @property
    def initial_ms(self) -> int:
        """Each seat's time at the start: the game's minutes, or a decision's days."""
        if self.kind is Kind.REAL_TIME:
            return self.minutes * 60_000
        return self.days * _MS_PER_DAY

    @property
    def increment_ms(self) -> int:
        """Time added after each real-time decision."""
        return self.increment * 1_000


@dataclass(frozen=True)
class Clock:
    """Both seats' clocks: time left, whose turn, and since when that seat's clock has run.

    ``remaining`` is each seat's time as of ``since`` for the seat to decide, as of its last
    decision for the other; it is below 0 only for a seat that ran out while paused or stopped.
    ``turn`` is the seat to decide (None before the start and after the end); ``since`` is None
    while the clock is paused. ``resumed`` is the last resumption (absence counts from there).
    """

    control: TimeControl
    remaining: tuple[int, int]
    turn: int | None = None
    since: int | None = None
    resumed: int | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.control, TimeControl):
            raise ClockError(f"control must be a TimeControl, got {_quote.repr(self.control)}")
        if not isinstance(self.remaining, tuple) or len(self.remaining) != 2:
            raise ClockError(f"remaining must be two times, got {_quote.repr(self.remaining)}")
        for seat, ms in enumerate(self.remaining):
            ms = _whole(f"seat {seat}'s remaining time", ms)
            if abs(ms) > _MAX_MS:
                raise ClockError(f"seat {seat}'s remaining time is out of range: {ms}")
            if not self.control.timed and ms != 0:
                raise ClockError("a game without a clock has no remaining time")
            if self.control.kind is Kind.CORRESPONDENCE and ms > self.control.initial_ms:
                raise ClockError(f"seat {seat} has more than {self.control} for a decision")
        if self.turn is not None:
            _seat("turn", self.turn)
        elif self.since is not None:
            raise ClockError("a clock runs only for a seat whose turn it is")
        if self.since is not None:
            _timestamp("since", self.since)
        if self.resumed is not None:
            _timestamp("resumed", self.resumed)

    @classmethod
    def new(cls, control: TimeControl) -> Clock:
        """A clock before the game starts: each seat with its initial time, nothing running."""
        initial = control.initial_ms if control.timed else 0
        return cls(control, (initial, initial))

    # -- state ---------------------------------------------------------------------------

    @property
    def running(self) -> bool:
        """Whether a seat's clock is running now (started, not paused, not stopped)."""
        return self.turn is not None and self.since is not None

    @property
    def paused(self) -> bool:
        """Whether the clock is paused in the middle of a seat's turn."""
        return self.turn is not None and self.since is None

    @property
    def deadline(self) -> int | None:
        """The last millisecond at which the seat to decide may still move (None if none)."""
        if not self.control.timed or self.turn is None or self.since is None:
            return None
        return self.since + self.remaining[self.turn]

    def flag(self, now: int) -> int | None:
        """The seat out of time at ``now``, if any: ``now`` after its deadline."""
        now = _timestamp("now", now)
        if not self.control.timed or self.turn is None:
            return None
        if self.since is None:
            return self.turn if self.remaining[self.turn] < 0 else None
        return self.turn if now > self.since + self.remaining[self.turn] else None

    def remaining_at(self, now: int) -> tuple[int, int] | None:
        """Each seat's time left at ``now`` as a player should see it (never below 0).

        None for a game without a clock.
        """
        now = _timestamp("now", now)
        if not self.control.timed:
            return None
        left = list(self.remaining)
        if self.turn is not None:
            left[self.turn] -= self._elapsed(now)
        return max(0, left[0]), max(0, left[1])

    def for_client(self, now: int) -> dict[str, Any]:
        """What a client needs to show the clocks: JSON-ready, as seen at the server's ``now``.

        The client counts the running seat's time down from the moment it received this, so
        the difference between its clock and the server's does not matter.
        """
        return {
            "control": str(self.control),
            "remaining": list(left) if (left := self.remaining_at(now)) is not None else None,
            "turn": self.turn,
            "running": self.running and self.control.timed,
            "deadline": self.deadline,
            "since": self.since,
            "now": now,
        }

    # -- changes -------------------------------------------------------------------------

    def start(self, seat: int, now: int) -> Clock:
        """The game begins: ``seat`` decides first and its clock starts at ``now``."""
        seat = _seat("seat", seat)
        now = _timestamp("now", now)
        if self.turn is not None:
            raise ClockError("the clock has already started")
        return replace(self, turn=seat, since=now, resumed=now)

    def decision(self, seat: int, now: int, next_seat: int | None) -> Clock:
        """``seat`` decided at ``now``; ``next_seat`` decides next (None: the game is over).

        The seat is charged the time since its clock started and gains the increment (real
        time) or a fresh allowance (correspondence). Raises :class:`OutOfTimeError` if ``now``
        is after the deadline.
        """
        seat = _seat("seat", seat)
        now = _timestamp("now", now)
        if next_seat is not None:
            next_seat = _seat("next_seat", next_seat)
        if self.turn is None:
            raise ClockError("the clock is not running: the game has not started or is over")
        if seat != self.turn:
            raise ClockError(f"seat {seat} decided, but it is seat {self.turn}'s turn")
        if self.since is None:
            raise ClockError("the clock is paused: resume it before a decision")
        if self.flag(now) is not None:
            late = now - (self.deadline or 0)
            raise OutOfTimeError(f"seat {seat} decided {late} ms after its deadline")
        remaining = list(self.remaining)
        if self.control.kind is Kind.REAL_TIME:
            remaining[seat] += self.control.increment_ms - self._elapsed(now)
        elif self.control.kind is Kind.CORRESPONDENCE:
            remaining = [self.control.initial_ms] * 2
        return replace(
            self,
            remaining=(remaining[0], remaining[1]),
            turn=next_seat,
            since=None if next_seat is None else now,
        )

    def stop(self, now: int) -> Clock:
        """The game ended otherwise (resignation, flag, abandonment): charge the seat to decide."""
        paused = self.pause(now)
        return replace(paused, turn=None, since=None)

    def pause(self, now: int) -> Clock:
        """Stop the running seat's clock at ``now``, charged up to then (no-op if not running)."""
        now = _timestamp("now", now)
        if self.turn is None or self.since is None:
            return self
        remaining = list(self.remaining)
        if self.control.timed:
            remaining[self.turn] -= self._elapsed(now)
        return replace(self, remaining=(remaining[0], remaining[1]), since=None)

    def resume(self, now: int) -> Clock:
        """Start a paused seat's clock again at ``now`` (no-op if not paused)."""
        now = _timestamp("now", now)
        if not self.paused:
            return self
        return replace(self, since=now, resumed=now)

    def skip_downtime(self, alive_at: int, now: int) -> Clock:
        """The clock as if paused from ``alive_at`` (the last heartbeat) to ``now``.

        Time before ``alive_at`` is charged as usual; none of the downtime is. A start that was
        still ahead at ``alive_at`` (the grace of a round's scoring) stays as far ahead of ``now``:
        the part of the grace the downtime took is not lost to the seat that decides next.

        >>> clock = Clock.new(TimeControl.parse("3+2")).start(1, now=10_000)  # a grace to 10 s
        >>> clock.skip_downtime(1_000, 27_000).since  # down from 1 s to 27 s: 9 s still ahead
        36000
        """
        if not self.running:
            return self
        if self.since is not None and self.since > alive_at:
            ahead = self.since - alive_at
            return replace(self, since=now + ahead, resumed=now)
        return self.pause(alive_at).resume(now)

    def _elapsed(self, now: int) -> int:
        """Time the seat to decide has used since its clock started (0 for a ``now`` before it)."""
        return 0 if self.since is None else max(0, now - self.since)

    # -- storage -------------------------------------------------------------------------

    def as_dict(self) -> dict[str, Any]:
        """The clock as JSON-ready data (:meth:`from_dict` reads it back)."""
        return {
            "control": str(self.control),
            "remaining": list(self.remaining),
            "turn": self.turn,
            "since": self.since,
            "resumed": self.resumed,
        }

    @classmethod
    def from_dict(cls, data: object) -> Clock:
        """A clock from :meth:`as_dict`'s data, checked: a ClockError says what is wrong."""
        if not isinstance(data, dict):
            raise ClockError(f"a clock is a JSON object, got {_quote.repr(data)}")
        keys = {"control", "remaining", "turn", "since", "resumed"}
        if set(data) != keys:
            unknown = sorted(map(str, set(data) - keys))
            missing = sorted(keys - set(data))
            raise ClockError(f"a clock's fields: unknown {unknown}, missing {missing}")
        remaining = data["remaining"]
        if not isinstance(remaining, list) or len(remaining) != 2:
            raise ClockError(f"remaining must be a list of two times, got {_quote.repr(remaining)}")
        return cls(
            TimeControl.parse(data["control"]),
            (remaining[0], remaining[1]),
            data["turn"],
            data["since"],
            data["resumed"],
        )

    def to_json(self) -> str:
        """The clock as compact JSON text, for storing with the game."""
        return json.dumps(self.as_dict(), separators=(",", ":"))

    @classmethod
    def from_json(cls, text: str | bytes) -> Clock:
        """A clock from :meth:`to_json`'s text; anything else raises ClockError."""
        if not isinstance(text, str | bytes):
            raise ClockError(f"a stored clock is JSON text, got {_quote.repr(text)}")
        if len(text) > _MAX_JSON_CHARS:
            raise ClockError(f"a stored clock is at most {_MAX_JSON_CHARS} characters")
        try:
            data = json.loads(text)
        except (ValueError, RecursionError) as error:  # bad UTF-8, bad JSON, huge numbers
            raise ClockError(f"a stored clock is not JSON: {error}") from None
        return cls.from_dict(data)


# -- abandonment ---------------------------------------------------------------------------


def claim_allowed_at(clock: Clock, absent_seat: int, last_seen: int) -> int | None:
    """When the other seat may claim a real-time game ``absent_seat`` left at ``last_seen``.

    None when no claim can be made: not real-time, the clock not running (paused, over), or
    the absent seat not the one to decide (its absence costs the other nothing; else a player
    could sit on their own clock through the opponent's short absence and claim the game).
    The absence counts from the later of ``last_seen`` and the start of the absent seat's
    turn, and its limit is ``ABANDON_MIN_MS`` or a third of the time the absent seat's clock
    showed when it was gone, whichever is longer. Check :meth:`Clock.flag` first: a seat out
    of time has lost anyway.

    >>> clock = Clock.new(TimeControl.parse("3+2")).start(1, now=0)
    >>> claim_allowed_at(clock, 1, last_seen=0)  # 3 minutes on its clock: a minute's absence
    60000
    >>> claim_allowed_at(clock, 0, last_seen=0) is None  # seat 0 has nothing to do now
    True
    """
    absent_seat = _seat("absent_seat", absent_seat)
    last_seen = _timestamp("last_seen", last_seen)
    if clock.control.kind is not Kind.REAL_TIME or not clock.running:
        return None
    if absent_seat != clock.turn:
        return None
    # gone since its turn began (or the clock resumed) at the earliest: its own time, not the
    # opponent's, is what an absence is measured in
    left_at = max(last_seen, clock.since or 0, clock.resumed or 0)
    shown = clock.remaining[absent_seat] - clock._elapsed(left_at)
    return left_at + max(ABANDON_MIN_MS, shown // 3)


def may_claim_abandoned(clock: Clock, absent_seat: int, last_seen: int, now: int) -> bool:
    """Whether the other seat may claim the win at ``now`` (see :func:`claim_allowed_at`)."""
    now = _timestamp("now", now)
    allowed = claim_allowed_at(clock, absent_seat, last_seen)
    return allowed is not None and now >= allowed
