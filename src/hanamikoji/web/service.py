"""The games a web server holds: creating, joining, moves, undo, hints, rematches, the AI's turns.

The service is the authority: every move is checked by the rules engine and stored before anyone is
told. Messages for a seat are built from that seat's VIEW only (:mod:`hanamikoji.web.messages`); a
game's row and the rules the service applies to it are in :mod:`hanamikoji.web.game`.
"""

from __future__ import annotations

import asyncio
import hmac
import logging
import os
import random
import secrets
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import Any

from hanamikoji.ai.analysis import ITERATIONS, MISTAKE, NOISE
from hanamikoji.ai.levels import LEVELS
from hanamikoji.clock import (
    DOWN_AFTER_MS,
    HEARTBEAT_MS,
    RECONNECT_MS,
    Clock,
    ClockError,
    Kind,
    TimeControl,
    claim_allowed_at,
)
from hanamikoji.moves import InvalidMoveError, Move
from hanamikoji.record import Record
from hanamikoji.redeal import RedealError, redeal
from hanamikoji.state import State
from hanamikoji.web import ai_worker
from hanamikoji.web.errors import WebError, clean_name, show
from hanamikoji.web.game import (
    DEFAULT_LEVEL,
    FORFEIT,
    RESIGN,
    LiveGame,
    ai_due,
    apply_entries,
    charge_clock,
    concede,
    invitation_open,
    now_ms,
    player_seat,
    rated_end,
    replay,
    token_seat,
    undo_point,
)
from hanamikoji.web.ids import new_id
from hanamikoji.web.limits import ClientLimits, Limits, TooMany
from hanamikoji.web.presence import ASK, Presence, encode
from hanamikoji.web.scheduler import AiScheduler, Busy
from hanamikoji.web.stopping import stop_tasks
from hanamikoji.web.store import ChatFlags, GameRow, HintRow, Store, stamp

__all__ = ["GameService"]


async def _no_screen(game: LiveGame, seat: int) -> None:
    """No bot to ask about a rematch."""


log = logging.getLogger(__name__)

MAX_ROUNDS = 99  # the most rounds a game may be limited to (or no limit at all)
TICK_S = 0.25
"""How often a server looks for games whose deadline passed (a flag falls within this)."""
PRESENCE_MS = 5_000
"""How often a server records the seats of real-time games connected to it (for the
abandonment claim: far below its 30 s minimum, so a seat connected elsewhere is never gone)."""


BOT_GONE_MS = 60_000
"""How long a bot's bridge must have been gone before its opponent may claim an untimed game
(docs/bots.md, "A bot that leaves")."""
REVIEWS_PER_CLIENT = 2
"""Reviews one client may have waiting for the AI at once: one visitor asking for many filled
the queue, and everyone else's review answered "busy"."""


_INVITATION_OVER = "this game is over: its invitation can no longer be taken"


def seat_name(seat: int, other: str | None) -> str:
    """A person's name in a game when they give none: by their seat, "Player 1" for the seat
    that starts (a friend who starts was told "you will play as 'Player 2'"), the other number
    if the opponent took that one."""
    name = f"Player {seat + 1}"
    return f"Player {2 - seat}" if name == other else name


DELETED_SEAT = "this seat's account was deleted: its links no longer open it"
"""Why a deleted account's seat does not open (its links, kept by anyone, open nothing)."""

_NO_SEARCH = ("beginner", "easy")  # levels whose moves take a millisecond: never refused as busy


Publisher = Callable[[str], Awaitable[None]]


def _check_version(version: Any) -> None:
    """Refuse a ``version`` that is not a whole number of 0 or more (None: not given)."""
    whole = isinstance(version, int) and not isinstance(version, bool)
    if version is not None and (not whole or version < 0):
        raise WebError(
            "bad-request",
            f"version must be a whole number, 0 or more (the state's), got {show(version)}",
        )


class GameService:
    """Games by id, kept in memory over a :class:`Store`; ``publish(game_id)`` tells the seats.

    Hints and reviews search ``hint_iterations`` and ``analysis_iterations`` a decision: with
    both the same (the default), a review judges a followed hint with the hint's own search.
    ``clock_for`` makes a timed game's clock from its time control (tests give short clocks
    with ``dataclasses.replace``; nothing outside Python reaches it); ``tick`` is how often, in
    seconds, the server enforces deadlines (None: never, for tests of a late move).
    """

    def __init__(
        self,
        store: Store,
        *,
        ai_workers: int | None = None,
        hint_iterations: int = ITERATIONS,
        analysis_iterations: int = ITERATIONS,
        seed: int | None = None,
        cache_size: int = 5000,
        limits: Limits | None = None,
        queue_limits: dict[str, int] | None = None,
        clock_for: Callable[[TimeControl], Clock] = Clock.new,
        tick: float | None = TICK_S,
    ) -> None:
        self.store = store
        self.clock_for = clock_for
        self.tick = tick
        self.now_ms: Callable[[], int] = now_ms  # the wall clock (a test may move it)
        self.hint_iterations = hint_iterations
        self.analysis_iterations = analysis_iterations
        self._games: OrderedDict[str, LiveGame] = OrderedDict()  # least recently used first
        self.cache_size = cache_size
        self._locks: dict[str, asyncio.Lock] = {}
        self._rng = random.Random(seed) if seed is not None else random.SystemRandom()
        # Moves and hints share the workers (moves first); a game review (seconds of search) has
        # a worker of its own, so that it never delays anyone's game.
        workers = (os.cpu_count() or 1) if ai_workers is None else ai_workers
        self.ai = AiScheduler(workers, limits=queue_limits)
        self.limits = ClientLimits(limits or Limits())
        self._owners: dict[str, str] = {}  # game -> the client that created it (this process)
        self._tasks: set[asyncio.Task[Any]] = set()
        self._ai_pending: set[tuple[str, int]] = set()
        self._analysing: dict[str, asyncio.Task[Any]] = {}
        self._reviewer: dict[str, str] = {}  # game -> the client whose request started its review
        self.publish: Publisher = _nobody
        self.online: Callable[[str, int], bool] = lambda game_id, seat: False  # the server's
        self.connected: Callable[[], list[tuple[str, int]]] = list  # (game, seat) held here
        self.bot_seats: Callable[[LiveGame], list[bool]] = lambda game: [False, False]
        # Whether a bot would take a rematch now (the bots' hub says; by default, no bot here)
        self.screen_rematch: Callable[[LiveGame, int], Awaitable[None]] = _no_screen
        self._started_ms = 0  # an absence counts from this server's start at the earliest
        self.on_beat: list[Callable[[int], Awaitable[None]]] = []  # each heartbeat (the lobby)
        self._ticker: asyncio.Task[None] | None = None
        self._presence_at = 0
        # The seats connected to the other servers (PostgreSQL), and when this one last said
        # its own and looked for the others' gone silent (monotonic seconds).
        self.presence = Presence()
        self._said_at = 0.0
        self._expired_at = 0.0

    # -- lifecycle ---------------------------------------------------------------------------

    async def start(self, lobby: Callable[[str], Awaitable[None]] | None = None) -> None:
        """Resume after a (re)start: give the clocks back the time no server ran, then keep the
        heartbeat and the deadlines; make every AI move that is due; follow other processes
        (``lobby(challenge_id)``: another process changed a challenge)."""
        self._started_ms = self.now_ms()
        # Start the workers now, so the first AI move does not wait for the search to load.
        self.ai.warm_up()
        await self.resume_clocks()
        await self.store.listen(self._changed_elsewhere, lobby, self._presence_elsewhere)
        await self._tell_presence(ASK)  # the others say their seats at once
        if self.tick is not None:
            self._ticker = asyncio.create_task(self._keep_time())
        for game_id in await self.store.ai_due():
            game = await self.get(game_id)
            if game is not None:
                self._schedule_ai(game)

    async def close(self) -> None:
        """Stop the AI's work and release the database."""
        if self._ticker is not None:
            await stop_tasks([self._ticker], "the clock's ticker")
            self._ticker = None
        await stop_tasks([*self._tasks, *self._analysing.values()], "the AI's moves and reviews")
        await self.ai.close()
        await self.store.close()

    # -- time ----------------------------------------------------------------------------------

    async def resume_clocks(self) -> int | None:
        """The downtime rule (docs/ratings-and-clocks.md), before any deadline is enforced: if
        no server has beaten the heartbeat for ``DOWN_AFTER_MS``, none ran since its last beat,
        and every running clock is paused over that time. How many clocks moved (None: none
        needed to, or another server starting at once did it)."""
        now = self.now_ms()
        alive_at = await self.store.alive_at()
        moved = None
        if now - alive_at > DOWN_AFTER_MS:

            def rewrite(text: str) -> tuple[str, int | None]:
                try:
                    # paused over the downtime, and as long again as a page takes to come back
                    clock = Clock.from_json(text).skip_downtime(alive_at, now + RECONNECT_MS)
                except ClockError:  # never written by this program: left as it was
                    log.exception("a stored clock cannot be read: %.80s", text)
                    return text, None
                return clock.to_json(), clock.deadline

            games = await self.store.skip_downtime(alive_at, now, rewrite, RECONNECT_MS)
            if games is not None:
                moved = len(games)
                if alive_at > 0:  # 0: no heartbeat yet, a database no server has run on
                    log.info("no server ran for %d ms: %d clocks paused", now - alive_at, moved)
                for game_id in games:
                    if game_id in self._games:
                        await self._reload(game_id)
        await self.store.beat(now)
        return moved

    async def _keep_time(self) -> None:
        """The heartbeat every ``HEARTBEAT_MS``, the seats' presence every ``PRESENCE_MS``, and
        the deadlines every ``tick`` (every server does it: the version check ends a game once)."""
        assert self.tick is not None
        beat = 0
        while True:
            try:
                now = self.now_ms()
                if now - beat >= HEARTBEAT_MS:
                    beat = now
                    await self.store.beat(now)
                    if now - self._presence_at >= PRESENCE_MS:
                        self._presence_at = now
                        await self.store.touch_seats(self._timed_seats(), now)
                    for hook in self.on_beat:
                        await hook(now)
                for game_id in await self.store.overdue(now):
                    await self.flag(game_id)
                await self._keep_presence()
            except asyncio.CancelledError:
                raise
            except Exception:  # a database hiccup: the next tick tries again
                log.exception("keeping time failed")
            await asyncio.sleep(self.tick)

    def _timed_seats(self) -> list[tuple[str, int]]:
        """The connected seats whose absence could be claimed, of games held here (their
        presence is recorded)."""
        out = []
        for game_id, seat in self.connected():
            game = self._games.get(game_id)
            if game is not None and self._claimable(game, seat):
                out.append((game_id, seat))
        return out

    def _claimable(self, game: LiveGame, seat: int) -> bool:
        """Whether ``seat``'s absence can be claimed: a real-time game's seat, or a bot's seat
        in an untimed game (its opponent would otherwise wait for ever)."""
        clock = game.clock
        if clock is None:
            return self.bot_seats(game)[seat]
        return clock.control.kind is Kind.REAL_TIME and clock.running

    def claim_at(self, game: LiveGame, absent: int) -> int | None:
        """When ``absent``'s opponent may claim the game, should ``absent`` be gone (None:
        never): :func:`hanamikoji.clock.claim_allowed_at` in a real-time game; in an untimed
        game against a bot, ``BOT_GONE_MS`` after the bot was last seen (or this server
        started)."""
        if game.state.is_over or not self._claimable(game, absent):
            return None
        clock = game.clock
        if clock is not None:
            return claim_allowed_at(clock, absent, game.row.seen[absent] or 0)
        return max(game.row.seen[absent] or 0, self._started_ms) + BOT_GONE_MS

    async def seen(self, game_id: str, seat: int) -> None:
        """``seat`` connected or left now, in a game whose absences can be claimed: record it,
        so that an absence counts from here (the other processes read it when the seat's
        presence changes: :meth:`came`, :meth:`went`)."""
        game = self._games.get(game_id)
        if game is None or game.state.is_over or not self._claimable(game, seat):
            return
        now = self.now_ms()
        async with self._lock(game_id):
            await self.store.touch_seats([(game_id, seat)], now)
            held = self._games.get(game_id, game)
            seen = list(held.row.seen)
            seen[seat] = now
            held.row = replace(held.row, seen=(seen[0], seen[1]))

    # -- presence across servers (docs/web.md, "Several servers") ---------------------------------

    async def came(self, game_id: str, seat: int) -> None:
        """``seat``'s first connection to this process (a socket, a bot's link): its last sight
        recorded, then the other processes told."""
        await self.seen(game_id, seat)
        self.presence.announced.add((game_id, seat))
        await self._tell_presence(*encode("+", [(game_id, seat)]))

    async def went(self, game_id: str, seat: int) -> None:
        """``seat``'s last connection to this process closed: its last sight recorded (the
        abandonment claim counts from it), then the other processes told."""
        try:
            await self.seen(game_id, seat)
        except Exception:  # the database failed: the absence counts from an earlier sight
            log.exception("the departure of a seat of game %s was not recorded", game_id)
        if (game_id, seat) in self.connected():
            return  # back meanwhile: its arrival was told
        self.presence.announced.discard((game_id, seat))
        await self._tell_presence(*encode("-", [(game_id, seat)]))

    async def _tell_presence(self, *texts: str) -> None:
        for text in texts:
            try:
                await self.store.announce_presence(text)
            except Exception:  # the next round says it again
                log.exception("the seats here were not announced")

    async def _keep_presence(self) -> None:
        """Every ``presence.every_s``, announce every seat connected here (and, gone without a
        word, the seats no longer here); forget the other servers' seats not announced again
        (their server died)."""
        now = time.monotonic()
        if now - self._said_at >= self.presence.every_s:
            self._said_at = now
            await self._say_seats()
        if now - self._expired_at >= 1.0:
            self._expired_at = now
            for game_id in sorted(self.presence.expire(now)):
                await self._presence_changed(game_id)

    async def _say_seats(self) -> None:
        here = set(self.connected())
        gone, self.presence.announced = self.presence.announced - here, here
        await self._tell_presence(*encode("-", gone), *encode("+", here))

    async def _presence_elsewhere(self, origin: str, text: str) -> None:
        """Another process's announcement: a seat that came or went there is told to this
        process's seats."""
        if text == ASK:
            await self._say_seats()
            return
        for game_id in sorted(self.presence.heard(origin, text, time.monotonic())):
            await self._presence_changed(game_id)

    async def _presence_changed(self, game_id: str) -> None:
        """A seat of ``game_id`` came to, or left, every other process: its state is sent again,
        read again first (a seat gone elsewhere recorded its last sight there: the claim)."""
        if game_id in self._games:
            async with self._lock(game_id):
                await self._reload(game_id)
        await self.publish(game_id)

    async def flag(self, game_id: str) -> bool:
        """End ``game_id`` if the seat to decide is out of time; whether it did."""
        async with self._lock(game_id):
            for _ in range(3):
                game = await self._reload(game_id)  # the database's deadline is the truth
                clock = game.clock if game is not None else None
                if game is None or clock is None or game.state.is_over:
                    return False
                now = self.now_ms()
                late = clock.flag(now)
                if late is None:
                    return False
                if await self._end_by_clock(game, late, "time", now):
                    break
            else:
                return False
        await self._after_change(game)
        return True

    async def claim(self, game_id: str, seat: int) -> LiveGame:
        """``seat`` claims the win of a real-time game its opponent left, or of an untimed game
        whose bot has been gone ``BOT_GONE_MS`` (the server checks the absence: :meth:`claim_at`,
        as ``hanamikoji.clock.may_claim_abandoned``)."""
        other = 1 - seat
        async with self._lock(game_id):
            game = await self._reload(game_id)  # the other servers' record of the absence
            if game is None:
                raise WebError("not-found", f"there is no game {show(game_id)}")
            if game.state.is_over:
                raise WebError("over", "the game is over")
            clock = game.clock
            if not self._claimable(game, other):
                raise WebError(
                    "not-allowed",
                    "only a real-time game, or an untimed game against a bot, can be claimed",
                )
            now = self.now_ms()
            late = clock.flag(now) if clock is not None else None
            if late is not None:  # out of time: lost that way, whoever claims
                stored = await self._end_by_clock(game, late, "time", now)
            else:
                allowed = self.claim_at(game, other)
                if clock is not None and clock.running and clock.turn != other:
                    raise WebError(
                        "not-allowed",
                        "it is your decision: an absent opponent can be claimed against only "
                        "while their own clock runs",
                    )
                if self.online(game_id, other) or allowed is None or now < allowed:
                    wait = "" if allowed is None else f" (in {max(1, (allowed - now) // 1000)} s)"
                    raise WebError(
                        "not-allowed",
                        "your opponent is still here or has not been gone long enough to claim "
                        f"the game{wait}",
                    )
                stored = await self._end_by_clock(game, other, "abandoned", now)
            if not stored:
                raise WebError("conflict", "the game changed meanwhile; try again")
        await self._after_change(game)
        return game

    async def _end_by_clock(self, game: LiveGame, seat: int, how: str, now: int) -> bool:
        """Store ``seat``'s loss by the clock (``how``: time or abandoned: an untimed game's
        bot has no clock); False if the game moved on meanwhile (another process wrote first)."""
        clock = game.clock
        entry = f"{FORFEIT}{seat}:{how}"
        state = concede(game.state, entry, game.row.control)
        stopped = clock.stop(now) if clock is not None else None
        return await self._store(game, [(seat, entry)], state, stopped)

    async def _store(
        self, game: LiveGame, entries: list[tuple[int, str]], state: State, clock: Clock | None
    ) -> bool:
        """Append ``entries`` leading to ``state`` and ``clock`` if the game is still at its
        version; then hold them. False if another process wrote first."""
        outcome = state.outcome
        status = "over" if outcome else "playing"
        result = outcome.to_json() if outcome else None
        due = ai_due(game.row, state)
        text = clock.to_json() if clock is not None else None
        deadline = clock.deadline if clock is not None else None
        stored = await self.store.append(
            game.id,
            game.row.version,
            entries,
            status=status,
            result=result,
            ai_due=due,
            clock=text,
            deadline=deadline,
            rated=rated_end(game.row, result, self.now_ms()),
        )
        if stored:
            game.row = replace(
                game.row,
                version=game.row.version + 1,
                moves=game.row.moves + tuple(e for _, e in entries),
                status=status,
                result=result,
                ai_due=due,
                clock=text,
                deadline=deadline,
            )
            game.state = state
        return stored

    async def _changed_elsewhere(self, game_id: str) -> None:
        """Another process changed ``game_id``: reload it and tell this process's seats."""
        if game_id in self._games:
            async with self._lock(game_id):  # never between a change's write and its publish
                await self._reload(game_id)
            await self.publish(game_id)

    # -- games ---------------------------------------------------------------------------------

    async def create(
        self,
        *,
        mode: str = "ai",
        level: str | None = None,
        seat: int | str = "random",
        max_rounds: int | None = 3,
        name: str | None = None,
        opponent_name: str | None = None,
        client: str = "",
        player: str | None = None,
        control: TimeControl | None = None,
        rated: bool = False,
    ) -> tuple[LiveGame, int]:
        """A new game; returns it and the creator's seat (``player``'s, when given).

        A friend game's other seat has no token yet: its invitation (``row.invite``) is claimed
        once, by :meth:`join`, and only the friend receives the token made then. A game against
        the AI may have a time control (its clock starts now) and be rated (timed only).
        """
        control = control if control is not None and control.timed else None
        if control is not None and mode != "ai":
            raise WebError(
                "bad-request",
                "a game with a friend has no clock: challenge your friend by user name in the "
                "lobby for a timed game",
            )
        if rated and control is None:
            raise WebError(
                "bad-request",
                "a rated game needs a time control (real-time or correspondence): untimed games "
                "are never rated",
            )
        if mode not in ("ai", "friend"):
            raise WebError("bad-request", f"mode must be 'ai' or 'friend', got {show(mode)}")
        if mode == "ai":
            level = DEFAULT_LEVEL if level is None else level
            if not isinstance(level, str) or level not in LEVELS:
                raise WebError(
                    "bad-request", f"level must be one of {', '.join(LEVELS)}, got {show(level)}"
                )
        elif level is not None:
            raise WebError("bad-request", "a game with a friend has no AI level")
        if seat == "random":
            seat = self._rng.randrange(2)
        if type(seat) is not int or seat not in (0, 1):
            raise WebError("bad-request", f"seat must be 0, 1 or 'random', got {show(seat)}")
        if max_rounds is not None and (
            type(max_rounds) is not int or not 1 <= max_rounds <= MAX_ROUNDS
        ):
            raise WebError(
                "bad-request",
                f"max_rounds must be a whole number from 1 to {MAX_ROUNDS}, or null for no "
                f"limit (e.g. 3), got {show(max_rounds)}",
            )
        me = clean_name(name, "Player 1" if mode == "ai" else seat_name(seat, None))
        other = str(level) if mode == "ai" else clean_name(opponent_name, seat_name(1 - seat, me))
        names = (me, other) if seat == 0 else (other, me)
        self._admit(client, ai=mode == "ai", level=level)
        mine = secrets.token_urlsafe(18)
        if mode == "ai":
            tokens = (mine, secrets.token_urlsafe(18))
        else:
            tokens = (mine, "") if seat == 0 else ("", mine)
        row = GameRow(
            id=new_id(9),
            seed=self._rng.getrandbits(62),
            created_at=stamp(),
            max_rounds=max_rounds,
            mode=mode,
            level=level,
            ai_seat=(1 - seat) if mode == "ai" else None,
            tokens=tokens,
            names=names,
            joined=(seat == 0 or mode == "ai", seat == 1 or mode == "ai"),
            invite=secrets.token_urlsafe(18) if mode == "friend" else None,
            players=(player, None) if seat == 0 else (None, player),
            rated=rated,
        )
        if control is not None:
            row = self._timed(row, control)
        self.limits.created(client, row.id, ai=mode == "ai")
        self._own(row.id, client)
        game = await self._new(row)
        return game, seat

    def _admit(self, client: str, *, ai: bool, level: str | None = None) -> None:
        """Refuse a new game (or rematch) of ``client`` over its limits, or one against a
        searching level while the AI owes many moves (beginner and easy search nothing)."""
        self.limits.forget_idle()
        try:
            self.limits.admit(client, ai=ai)
        except TooMany as e:
            log.info("refused a new game of %s: %s", client, e.message)
            raise WebError("too-many", e.message, e.retry_after) from None
        searching = level not in _NO_SEARCH
        if ai and searching and self.ai.crowded(len(self._ai_pending)):
            log.info("refused a new game against the AI of %s: the queue is long", client)
            raise WebError(
                "busy",
                "the server is busy: too many games are waiting for the AI; try again in a minute",
                60,
            )

    async def _new(self, row: GameRow) -> LiveGame:
        """Store a new game and hold it (its AI, if to move, starts thinking)."""
        state = replay(row)
        row = replace(row, ai_due=ai_due(row, state))
        await self.store.create(row)
        game = LiveGame(row, state)
        self._keep(game)
        self._schedule_ai(game)
        return game

    async def get(self, game_id: str) -> LiveGame | None:
        """The game ``game_id``, from memory or the database."""
        game = self._games.get(game_id)
        if game is None:
            return await self._reload(game_id)
        self._games.move_to_end(game_id)
        return game

    async def _reload(self, game_id: str) -> LiveGame | None:
        row = await self.store.load(game_id)
        if row is None:
            self._games.pop(game_id, None)
            return None
        old = self._games.get(game_id)
        if old is not None and old.row.version > row.version:
            return old  # what was read is older than what this process already holds
        game = LiveGame(row, replay(row), thinking=old.thinking if old else False)
        self._keep(game)
        return game

    async def refresh(self, game_ids: list[str]) -> None:
        """Games changed in the database outside this service (their players, names): read
        again those held here, and tell their seats."""
        for game_id in game_ids:
            if game_id in self._games:
                async with self._lock(game_id):
                    await self._reload(game_id)
                await self.publish(game_id)

    def _own(self, game_id: str, client: str) -> None:
        """Remember who created ``game_id`` (for fairness and limits), the newest ``cache_size``."""
        self._owners[game_id] = client
        while len(self._owners) > self.cache_size:
            del self._owners[next(iter(self._owners))]

    def _keep(self, game: LiveGame) -> None:
        """Hold ``game`` in memory, forgetting the least recently used beyond ``cache_size``.

        The database stays the authority: a forgotten game is read again when next needed.
        """
        self._games[game.id] = game
        self._games.move_to_end(game.id)
        while len(self._games) > self.cache_size:
            old_id, _ = self._games.popitem(last=False)
            lock = self._locks.get(old_id)
            if lock is not None and not lock.locked():
                del self._locks[old_id]

    async def seat_for(
        self, game_id: str, token: str | None, player: str | None = None
    ) -> tuple[LiveGame, int]:
        """The game and the seat that ``token`` opens, else ``player``'s seat (marks the seat as
        joined)."""
        game = await self.get(game_id)
        if game is None:
            raise WebError("not-found", f"there is no game {show(game_id)}")
        seat = token_seat(game.row, token)
        if seat is None:
            seat = player_seat(game.row, player)
        if seat is not None and seat != game.row.ai_seat:
            if not game.row.joined[seat]:
                async with self._lock(game_id):
                    await self.store.update(game_id, **{f"joined{seat}": True})
                    game = self._games.get(game_id, game)
                    joined = list(game.row.joined)
                    joined[seat] = True
                    game.row = replace(game.row, joined=(joined[0], joined[1]))
                    await self._start_clock(game)
                await self._announce(game_id)
            return game, seat
        raise WebError("bad-token", "this link or cookie does not open a seat of this game")

    async def _start_clock(self, game: LiveGame) -> None:
        """Start a timed game's clock once both players have come (a rematch: when the second
        opens it), for the seat to decide."""
        clock = game.clock
        to_move = game.state.to_move
        if clock is None or clock.turn is not None or not all(game.row.joined) or to_move is None:
            return
        started = clock.start(to_move, self.now_ms())
        text, deadline = started.to_json(), started.deadline
        await self.store.update(game.id, clock=text, deadline=deadline)
        game.row = replace(game.row, clock=text, deadline=deadline)

    def lobby_game(
        self,
        *,
        control: TimeControl,
        rated: bool,
        max_rounds: int | None,
        names: tuple[str, str],
        players: tuple[str, str],
    ) -> GameRow:
        """A game between two people who met in the lobby (not stored yet: the challenge's
        acceptance stores it); a timed game's clock starts now, both players being there."""
        row = GameRow(
            id=new_id(9),
            seed=self._rng.getrandbits(62),
            created_at=stamp(),
            max_rounds=max_rounds,
            mode="lobby",
            level=None,
            ai_seat=None,
            tokens=(secrets.token_urlsafe(18), secrets.token_urlsafe(18)),
            names=names,
            joined=(True, True),
            players=players,
            rated=rated,
        )
        return self._timed(row, control) if control.timed else row

    def _timed(self, row: GameRow, control: TimeControl) -> GameRow:
        """``row`` with time control ``control``, its clock started now for the seat to decide
        (both players are there: a lobby game, or a person and the AI)."""
        state = replay(row)
        assert state.to_move is not None
        clock = self.clock_for(control).start(state.to_move, self.now_ms())
        return replace(row, control=str(control), clock=clock.to_json(), deadline=clock.deadline)

    def random_seat(self) -> int:
        """A seat drawn by lot."""
        return self._rng.randrange(2)

    def hold(self, row: GameRow) -> LiveGame:
        """Hold a game stored elsewhere (a challenge accepted) in memory."""
        game = LiveGame(row, replay(row))
        self._keep(game)
        return game

    async def invitation(self, game_id: str, code: Any) -> dict[str, Any]:
        """What a friend game's invitation offers: the host, the rules, whether it is open,
        used (the seat taken) or over (the game ended before anyone took it)."""
        game = await self._invited(game_id, code)
        row = game.row
        seat = invitation_open(row)
        host = 0 if row.tokens[0] else 1
        status = "open" if seat is not None else "used" if all(row.tokens) else "over"
        return {
            "game": row.id,
            "status": status,
            "host": row.names[host],
            "seat": 1 - host,
            "rules": {"max_rounds": row.max_rounds},
        }

    async def join(
        self,
        game_id: str,
        code: Any,
        name: Any,
        holder: str | None = None,
        player: str | None = None,
    ) -> tuple[LiveGame, int, str]:
        """Claim a friend game's invitation: the game, the seat and its new token (once only);
        the seat becomes ``player``'s.

        ``holder`` is the token the visitor already holds for this game, if any: the game's
        creator (by that token, or signed in as its player) cannot take the seat they invited
        someone else to.
        """
        game = await self._invited(game_id, code)
        seat = invitation_open(game.row)
        if token_seat(game.row, holder) is not None or player_seat(game.row, player) is not None:
            if seat is None and all(game.row.tokens):  # the friend again (a second tab), or so
                raise WebError(
                    "used",
                    f"this invitation has been used, and you play in this game: your table is "
                    f"/g/{game_id}",
                )
            raise WebError(
                "not-allowed",
                "this is your own invitation: send the link to the friend you want to play",
            )
        if seat is None and not all(game.row.tokens):
            raise WebError("over", _INVITATION_OVER)
        if seat is None:
            raise WebError("used", "this invitation has been used: ask your friend for a new one")
        chosen = clean_name(name, seat_name(seat, game.row.names[1 - seat]))
        token = secrets.token_urlsafe(18)
        async with self._lock(game_id):
            if not await self.store.claim(game_id, seat, token, chosen, player):
                reloaded = await self._reload(game_id)
                if reloaded is not None and reloaded.row.status != "playing":
                    raise WebError("over", _INVITATION_OVER)
                raise WebError(
                    "used", "this invitation has been used: ask your friend for a new one"
                )
            game = self._games.get(game_id, game)
            tokens = list(game.row.tokens)
            names = list(game.row.names)
            joined = list(game.row.joined)
            players = list(game.row.players)
            tokens[seat], names[seat], joined[seat], players[seat] = token, chosen, True, player
            game.row = replace(
                game.row,
                tokens=(tokens[0], tokens[1]),
                names=(names[0], names[1]),
                joined=(joined[0], joined[1]),
                players=(players[0], players[1]),
            )
        await self._announce(game_id)
        return game, seat, token

    async def _invited(self, game_id: str, code: Any) -> LiveGame:
        """The friend game whose invitation ``code`` is (compared in constant time)."""
        game = await self.get(game_id)
        if game is None:
            raise WebError("not-found", f"there is no game {show(game_id)}")
        invite = game.row.invite
        if (
            invite is None
            or not isinstance(code, str)
            or not hmac.compare_digest(invite.encode(), code.encode("utf-8", "replace"))
        ):
            raise WebError(
                "bad-token", "this invitation link is not valid: check it was copied whole"
            )
        return game

    async def play(
        self, game_id: str, seat: int, text: Any, version: Any = None, at: int | None = None
    ) -> LiveGame:
        """Play ``text`` for ``seat``; checked, stored, then announced. ``at`` is when the move
        arrived (ms since the epoch; default now): a timed game charges the clock up to then,
        and a move after the deadline loses the game on time."""
        if not isinstance(text, str):
            raise WebError("bad-request", 'a move must be a string in move notation, e.g. "G147"')
        if len(text) > 16:
            raise WebError(
                "bad-request", f"{show(text)} is not a move: moves are short, e.g. S4, G147, C12-47"
            )
        try:
            move = Move.parse(text)
        except InvalidMoveError as e:
            raise WebError("bad-request", str(e)) from None
        _check_version(version)
        return await self._change(game_id, seat, [str(move)], version, at)

    async def resign(self, game_id: str, seat: int) -> LiveGame:
        """``seat`` resigns: the other seat wins."""
        return await self._change(game_id, seat, [f"{RESIGN}{seat}"], None)

    async def forfeit(
        self, game_id: str, seat: int, cause: str, version: int | None = None
    ) -> LiveGame:
        """``seat`` loses by forfeit for ``cause`` (a bot's engine that failed: ``engine-crash``),
        named in the record's ``why``; at ``version`` only, when given (else ``conflict``)."""
        return await self._change(game_id, seat, [f"{FORFEIT}{seat}:{cause}"], version)

    async def _change(
        self,
        game_id: str,
        seat: int,
        entries: list[str],
        version: int | None,
        at: int | None = None,
    ) -> LiveGame:
        late = None
        async with self._lock(game_id):
            for attempt in range(3):
                game = await self.get(game_id)
                if game is None:
                    raise WebError("not-found", f"there is no game {show(game_id)}")
                if game.state.is_over:  # whatever version was sent: nothing is decided any more
                    raise WebError("over", "the game is over")
                if version is not None and version != game.row.version and attempt == 0:
                    ahead = version > game.row.version  # a version no state has had yet
                    raise WebError(
                        "conflict",
                        f"the game is at version {game.row.version}, you sent {show(version)}: "
                        "decide on the current state"
                        if ahead
                        else f"the game has moved on (version {game.row.version}, you sent "
                        f"{show(version)}): decide again on the current state",
                    )
                now = self.now_ms() if at is None else at
                clock = game.clock
                late = None if clock is None or game.state.is_over else clock.flag(now)
                if late is not None:  # whatever was asked, the seat to decide has lost on time
                    stored = await self._end_by_clock(game, late, "time", now)
                else:
                    state = apply_entries(game, seat, entries)
                    after = charge_clock(clock, seat, entries, state, now, game.state.round)
                    stored = await self._store(game, [(seat, e) for e in entries], state, after)
                if stored:
                    break
                await self._reload(game_id)  # another process wrote first: check again
            else:
                raise WebError("conflict", "the game is busy; try again")
        await self._after_change(game)
        if late == seat and not entries[0].startswith(RESIGN):
            raise WebError("out-of-time", "your time ran out before this move arrived: you lost")
        return game

    async def undo(self, game_id: str, seat: int, version: Any = None) -> LiveGame:
        """Take back ``seat``'s last move and the AI's replies (AI games only); at ``version``
        only, when given (else ``conflict``): the same undo sent twice takes back one move."""
        _check_version(version)
        async with self._lock(game_id):
            game = await self.get(game_id)
            if game is None:
                raise WebError("not-found", f"there is no game {show(game_id)}")
            if game.row.mode != "ai":
                raise WebError("not-allowed", "undo is only for games against the AI")
            if game.state.is_over:
                raise WebError("over", "the game is over")
            if version is not None and version != game.row.version:
                raise WebError(
                    "conflict",
                    f"the game is at version {game.row.version}, you sent {show(version)}: "
                    "undo on the current state",
                )
            if game.row.rated or game.row.control is not None:
                raise WebError(
                    "not-allowed",
                    "undo is only for untimed games: a rated game has none, and a clock cannot "
                    "be taken back",
                )
            keep = undo_point(game, seat)
            if keep is None:
                raise WebError(
                    "not-allowed",
                    "you have no move to take back this round (undo stops at the round's start)",
                )
            # What the player could not see is dealt afresh, so that an undo never shows a card.
            back = replay(replace(game.row, moves=game.row.moves[:keep]))
            try:
                fresh = redeal(back, seat, self._rng)
            except RedealError as e:  # pragma: no cover - every reached position has a redeal
                raise WebError("not-allowed", f"this move cannot be taken back: {e}") from None
            plies = back.history
            start = next((i for i, p in enumerate(plies) if p.round == back.round), len(plies))
            rewritten = [(p.seat, str(p.move)) for p in fresh.state.history[start:]]
            deals = {
                "seed": fresh.seed,
                "deals": [[d.removed, d.hands[0], d.hands[1], d.deck] for d in fresh.deals],
            }
            row = replace(game.row, moves=fresh.moves, status="playing", result=None, deals=deals)
            state = fresh.state
            due = ai_due(row, state)
            stored = await self.store.truncate(
                game_id, game.row.version, start, ai_due=due, moves=rewritten, deals=deals
            )
            if not stored:
                await self._reload(game_id)
                raise WebError("conflict", "the game changed meanwhile; try again")
            game.row = replace(row, version=row.version + 1, ai_due=due)
            game.state = state
        await self._after_change(game)
        return game

    async def hint(self, game_id: str, seat: int) -> dict[str, Any]:
        """The AI's suggestion for ``seat``'s decision (AI games only), kept for the review."""
        game = await self.get(game_id)
        if game is None:
            raise WebError("not-found", f"there is no game {show(game_id)}")
        if game.row.mode != "ai":
            raise WebError("not-allowed", "hints are only for games against the AI")
        if game.row.rated:
            raise WebError("not-allowed", "a rated game has no hints: play it on your own")
        if game.state.is_over:
            raise WebError("over", "the game is over: there is nothing left to hint")
        if game.state.to_move != seat:
            raise WebError("not-your-turn", "a hint is for your own decision: wait for your turn")
        view = game.state.view(seat).to_json()
        version = game.row.version
        ply = len(game.row.moves)
        try:
            found: dict[str, Any] = await self.ai.run(
                "hint",
                (game_id, "hint", version),  # asked again meanwhile: the same search answers
                ai_worker.hint,
                view,
                game.row.max_rounds,
                self.hint_iterations,
                client=self._owners.get(game_id, ""),
                cost="hint",
            )
        except Busy:
            raise WebError(
                "busy", "the server is busy: ask for the hint again in a moment", 10
            ) from None
        found = dict(found)  # the scheduler gives one answer to everyone who asked
        iterations = int(found.pop("iterations"))
        kept = HintRow(ply, seat, found["move"], float(found["win_probability"]), iterations)
        await self.store.save_hint(game_id, version, kept)  # not if an undo came meanwhile
        return {"type": "hint", "version": version, **found}

    async def rematch(self, game_id: str, seat: int, client: str = "") -> LiveGame:
        """A new game with the same players and settings, seats swapped (once per game).

        It counts as a new game of ``client`` (who asked) for the limits.
        """
        async with self._lock(game_id):
            game = await self.get(game_id)
            if game is None:
                raise WebError("not-found", f"there is no game {show(game_id)}")
            if not game.state.is_over:
                raise WebError("not-allowed", "a rematch is offered when the game is over")
            if game.row.rematch is None:
                await self._rematch_possible(game, seat)
                await self.screen_rematch(game, seat)
                ai = game.row.mode == "ai"
                self._admit(client, ai=ai, level=game.row.level)
                old = game.row
                row = GameRow(
                    id=new_id(9),
                    seed=self._rng.getrandbits(62),
                    created_at=stamp(),
                    max_rounds=old.max_rounds,
                    mode=old.mode,
                    level=old.level,
                    ai_seat=None if old.ai_seat is None else 1 - old.ai_seat,
                    tokens=(secrets.token_urlsafe(18), secrets.token_urlsafe(18)),
                    names=(old.names[1], old.names[0]),
                    joined=(old.joined[1], old.joined[0]),
                    players=(old.players[1], old.players[0]),
                    control=old.control,
                    rated=old.rated,
                )
                if old.control is not None and ai:
                    # The same time control, its clock started now (the AI is always there).
                    row = self._timed(row, TimeControl.parse(old.control))
                elif old.control is not None:
                    # The same time control, its clock started when the other player comes.
                    clock = self.clock_for(TimeControl.parse(old.control))
                    joined = [False, False]
                    joined[1 - seat] = True
                    row = replace(row, clock=clock.to_json(), joined=(joined[0], joined[1]))
                self.limits.created(client, row.id, ai=ai)
                self._own(row.id, client)
                await self._new(row)
                await self.store.update(game_id, rematch=row.id)
                game.row = replace(old, rematch=row.id)
        await self._announce(game_id)
        return game

    async def _rematch_possible(self, game: LiveGame, seat: int) -> None:
        """Refuse a rematch with an opponent who can no longer play one: an account deleted or
        disabled since (its game would wait for ever); and one asked by a seat whose own account
        was deleted (its link kept by someone else)."""
        mine = game.row.players[seat]
        if (
            mine is not None
            and (await self.store.chat_flags([mine])).get(mine, ChatFlags()).deleted
        ):
            raise WebError("bad-token", DELETED_SEAT)
        if game.row.mode == "friend" and not game.row.joined[1 - seat]:
            # its invitation is spent with the game: a rematch would wait for nobody, for ever
            raise WebError(
                "not-allowed",
                "your friend never joined this game: no rematch (create a new invitation)",
            )
        other = game.row.players[1 - seat]
        if other is None or game.row.mode == "ai":
            return
        player = await self.store.player(other)
        if player is not None and player.deleted:
            raise WebError("not-allowed", "your opponent's account was deleted: no rematch")
        flags = (await self.store.chat_flags([other])).get(other)
        if flags is not None and flags.disabled:
            raise WebError(
                "not-allowed", "your opponent's account was disabled by the moderators: no rematch"
            )

    async def rematch_link(self, game: LiveGame, seat: int) -> str | None:
        """The link for ``seat`` of ``game`` to its rematch (its seat there is the other one)."""
        if game.row.rematch is None:
            return None
        new = await self.get(game.row.rematch)
        if new is None:
            return None
        return f"/g/{new.id}?t={new.row.tokens[1 - seat]}"

    # -- after a change -------------------------------------------------------------------------

    async def _after_change(self, game: LiveGame) -> None:
        owner = self._owners.get(game.id)
        if owner is not None:
            self.limits.touched(owner, game.id, over=game.state.is_over)
            if game.state.is_over:
                del self._owners[game.id]
        self._schedule_ai(game)
        await self._announce(game.id)

    async def _announce(self, game_id: str) -> None:
        await self.publish(game_id)  # the store told the other processes, if any

    def _lock(self, game_id: str) -> asyncio.Lock:
        lock = self._locks.get(game_id)
        if lock is None:
            lock = self._locks[game_id] = asyncio.Lock()
        return lock

    def _schedule_ai(self, game: LiveGame) -> None:
        ai = game.row.ai_seat
        if ai is None or game.state.to_move != ai:
            return
        key = (game.id, game.row.version)
        if key in self._ai_pending:
            return
        self._ai_pending.add(key)
        task = asyncio.create_task(self._ai_turn(game.id, game.row.version))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _ai_turn(self, game_id: str, version: int) -> None:
        """Think in a worker process, then play, unless the game moved on meanwhile (an undo)."""
        try:
            game = await self.get(game_id)
            if game is None or game.row.version != version or game.row.ai_seat is None:
                return
            seat = game.row.ai_seat
            level = game.row.level or DEFAULT_LEVEL
            view = game.state.view(seat).to_json()
            seed = (game.row.seed * 1_000_003 + len(game.row.moves)) % (1 << 62)
            game.thinking = True
            await self.publish(game_id)
            try:
                # A game's move is never refused: the queue's bound is kept by refusing new games.
                move = await self.ai.run(
                    "move",
                    (game_id, "move", version),
                    ai_worker.choose,
                    level,
                    view,
                    game.row.max_rounds,
                    seed,
                    client=self._owners.get(game_id, ""),
                    cost=level,
                )
            finally:
                game.thinking = False
                held = self._games.get(game_id)
                if held is not None:  # the game may have been read again meanwhile
                    held.thinking = False
            current = await self.get(game_id)
            if current is None or current.row.version != version:
                await self.publish(game_id)
                return
            await self._change(game_id, seat, [move], version)
        except WebError as e:  # the game moved on between the check and the move
            log.info("AI move in game %s not played: %s", game_id, e.message)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("AI move in game %s failed", game_id)
        finally:
            self._ai_pending.discard((game_id, version))

    # -- review ------------------------------------------------------------------------------

    def record(self, game: LiveGame) -> Record:
        """The game's record (hanamikoji-record/1)."""
        return game.state.record(game.row.names)

    async def analysis(self, game_id: str, client: str = "") -> dict[str, Any]:
        """The AI's review of a finished game: pending at first, then ready; ``client`` (who
        asks) may start at most :data:`REVIEWS_PER_CLIENT` at once."""
        game = await self.get(game_id)
        if game is None:
            raise WebError("not-found", f"there is no game {show(game_id)}")
        if not game.state.is_over:
            raise WebError("not-allowed", "the analysis is for finished games")
        stored = await self.store.analysis(game_id)
        if stored is not None:
            return {"status": "ready", **stored}
        task = self._analysing.get(game_id)
        if task is None:
            if self.ai.waiting("review") >= self.ai.limit("review"):
                return {"status": "busy", "message": "the server is busy; reload in a minute"}
            mine = [g for g, c in self._reviewer.items() if c == client and client]
            if len(mine) >= REVIEWS_PER_CLIENT:
                return {
                    "status": "busy",
                    "message": f"{len(mine)} reviews asked from your address are being made; "
                    "reload this one when they are ready",
                }
            task = asyncio.create_task(self._analyse(game, client))
            self._analysing[game_id] = task
            self._reviewer[game_id] = client
            task.add_done_callback(lambda _: self._reviewer.pop(game_id, None))
        elif task.done():
            self._analysing.pop(game_id, None)
            error = task.exception()
            if isinstance(error, Busy):
                return {"status": "busy", "message": "the server is busy; reload in a minute"}
            if error is not None:
                return {"status": "failed", "message": "the analysis failed; reload to try again"}
        return {"status": "pending"}

    async def _analyse(self, game: LiveGame, client: str = "") -> None:
        """Review every decision; a decision where a hint was given shows it (``hint``).

        ``noise`` is how far two searches of one position may differ, ``mistake`` the loss
        from which the page calls a move a mistake (``hanamikoji.ai.analysis``).
        """
        record = self.record(game).to_json()
        decisions: list[dict[str, Any]] = await self.ai.run(
            "review",
            (game.id, "review"),
            ai_worker.analyse,
            record,
            self.analysis_iterations,
            client=client or self._owners.get(game.id, ""),  # shared fairly among who asks
        )
        hints = {h.ply: h for h in await self.store.hints(game.id)}
        for decision in decisions:
            given = hints.get(decision["ply"])
            if given is not None and given.seat == decision["seat"]:
                decision["hint"] = {
                    "move": given.move,
                    "win_probability": round(given.win_probability, 4),
                    "iterations": given.iterations,
                }
        await self.store.save_analysis(
            game.id,
            {
                "iterations": self.analysis_iterations,
                "noise": NOISE,
                "mistake": max(MISTAKE, NOISE),
                "decisions": decisions,
            },
        )

    async def settle(self) -> None:
        """Wait until no AI move is being made (for tests and orderly shutdown)."""
        while self._tasks:
            await asyncio.gather(*list(self._tasks), return_exceptions=True)


async def _nobody(game_id: str) -> None:
    return None
