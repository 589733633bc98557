"""Load on the web app: friend games, games against the AI and floods, over real WebSockets.

Run: ``.venv/bin/python bench/web_load.py`` (defaults: 200 friend games, 1,000 ms mean think time).

A ``hanamikoji serve --behind-proxy`` process is started on a temporary SQLite file (``--db`` for
another database, ``--url`` to load a server that is already running) and everything talks to it
over loopback. Every simulated person sends its own ``X-Forwarded-For`` address (10.x.y.z), as a
proxy in front of a public server would, so the server's per-client limits (games a minute,
unfinished AI games, the AI queue's fairness) treat them as different people. Scripted players
choose random legal moves after a think time drawn uniformly between 0 and twice ``--think-ms``.

- **Friend games** (``--games``): two people per game, one creates it, the other claims the
  invitation; both play until the game is over. The games start spread over ``--ramp-s``. For
  every move: the time from sending it to (a) the mover's acknowledgement (the state with the new
  version) and (b) the opponent's update.
- **Spectators** (``--spectators N``): each friend game is watched by N spectators, each its own
  address, connected (``/ws/{game}/watch``) once both seats are. For every move, the time from
  sending it to each spectator's update (the public state with the new version); an update that
  never came within 10 s of the game's end is counted apart, as missed.
- **Games against the AI** (``--ai-games N``): N people at once, each playing whole games against
  ``--ai-level`` (master) one after another, seat chosen at random, until ``--ai-seconds`` have
  passed (and the floods are over). The AI's reply time is measured for every move the AI makes:
  from the moment the AI's decision became due as the player sees it (the player's own move sent;
  for the AI's second decision in a row, the arrival of the state with its first one; for the
  opening move of a game the AI starts, the creation request sent) to the arrival of the state
  that contains the AI's move. The player's wait (from its move sent to the next state in which
  it has a decision, or the game is over, when the AI moved in between) is reported beside it. A
  decision the AI never answers (no state for 60 s: the player gives that game up and starts
  another) is not in the reply times: it is counted apart, as never answered.
- **The lobby** (``--lobby N``): N guests (each its own cookie jar and address: a guest made by
  ``GET /api/me``) arrive spread over ``--lobby-ramp-s``, open the lobby's socket and ask "Play
  someone now" for a 3+2 game, rated unless ``--lobby-casual`` (a waiting rated seek asks again
  every 5 s, as the page does); paired, each closes the lobby, opens its seat and plays random
  legal moves to the end, ``--lobby-games`` games one after another. Pairing time: from the
  request sent to the seat (the ``201`` of the one who pairs, the ``start`` message of the one who
  waited; the waiter's wait is mostly the next arrival's); beside it, the pairer's request to the
  waiter's ``start``. Move-to-update: a move sent to the opponent's state with its version.
  Clock accuracy, for each decision: the time the server charged the seat (its stored time in the
  state of the turn, the running seat's elapsed added back, less its time in the next state, plus
  the increment) less the time the client measured, from the state of its turn arriving (or, after
  a round's scoring, the clock's ``since``: the player waits for it, as a page does) to its move
  sent; each seat's first decision of a game (its clock started at the pairing, before the page
  was open) is reported apart. A seek nobody answers within 60 s of the last arrival is given up.
- **Floods** (``--flood N``): after ``--flood-at`` seconds, two floods one after the other. The
  first: one person (one address) runs N flooders that try to create ``master`` games as fast as
  they can (a first burst of N requests, all at once unless ``--flood-in-flight``; the AI takes
  seat 0, so each game accepted queues an AI move at once). The second: the same from N
  different addresses, one flooder each (which the per-client limits do not stop: only the fair
  queue, the refusal of new AI games when the queue is long, and the shrinking search protect
  the others). Each flooder keeps at it: it plays its game without thinking, and when the game
  ends or its request is refused it tries again (after 2 s when refused, ignoring Retry-After),
  so the flood lasts as long as the measurement. The burst's answers and the later ones are
  counted by status and code. Once the burst is answered, a separate person creates ``beginner``
  games (waiting out refusals, at most 2 s a try) and times their AI's first ``--probe-replies``
  replies in all, as above. A flood ends when those are timed (at most ``--flood-seconds``); the
  flooders then resign their games, and those still waiting for the AI say since when (a game
  the AI never answers shows there).

Targets of the project on this 2-core machine: 200 friend games with move p99 under 100 ms; 50
friend games watched by 20 spectators each (1,000 spectators' sockets) with the players' p99 under
100 ms; 50 master games with the AI's reply p99 under 2 s beside them; during a 300-game flood, a
beginner game's AI answers in under 2 s; 400 lobby players with move-to-update p99 under 100 ms
and clocks within 100 ms. Figures are printed on one line (then details); ``--out
FILE`` writes them as JSON. The run is bounded: ``--max-seconds`` (900) ends it, reporting what it
has. Before the clock starts (with AI games or floods), four master games get their AI's first move
and are resigned, so that the AI's workers have loaded the search and the server knows how long a
master move takes. The server's log is scanned for tracebacks and errors, which are reported.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import random
import re
import shlex
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import aiohttp

STATE_TIMEOUT = 60.0  # seconds without the expected state: the game is reported as stuck
FLOOD_RETRY_S = 2.0  # a flooder refused tries again this soon; one whose game ended, at once


# -- addresses -------------------------------------------------------------------------------------

FRIEND_HOST, FRIEND_GUEST, AI_PLAYER, FLOOD_ONE, FLOOD_MANY, PROBE, WARM = 1, 2, 3, 4, 5, 6, 7
SPECTATOR, LOBBY = 8, 9


def address(group: int, i: int) -> str:
    """The simulated person's address: ``10.GROUP.x.y``, distinct for each ``i`` (< 62,500)."""
    return f"10.{group}.{i // 250}.{i % 250 + 1}"


# -- figures ---------------------------------------------------------------------------------------


def percentile(values: list[float], p: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    k = min(len(ordered) - 1, max(0, round(p / 100 * (len(ordered) - 1))))
    return ordered[k]


def summary(values: list[float], scale: float = 1.0, digits: int = 2) -> dict[str, Any]:
    """count, p50, p99, max and mean of ``values`` times ``scale`` (None when empty)."""
    if not values:
        return {"count": 0, "p50": None, "p99": None, "max": None, "mean": None}
    return {
        "count": len(values),
        "p50": round(percentile(values, 50) * scale, digits),
        "p99": round(percentile(values, 99) * scale, digits),
        "max": round(max(values) * scale, digits),
        "mean": round(statistics.fmean(values) * scale, digits),
    }


@dataclass
class FriendStats:
    ack_ms: list[float] = field(default_factory=list)
    update_ms: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    moves: int = 0
    finished: int = 0
    refused: dict[str, int] = field(default_factory=dict)
    spectator_ms: list[float] = field(default_factory=list)  # move sent -> a spectator's update
    spectators_missed: int = 0  # updates a spectator never received
    spectator_errors: list[str] = field(default_factory=list)


@dataclass
class AiStats:
    replies: list[tuple[float, float]] = field(default_factory=list)  # (due at, seconds)
    waits: list[float] = field(default_factory=list)  # seconds
    errors: list[str] = field(default_factory=list)
    games: int = 0
    finished: int = 0
    moves: int = 0  # the players' own
    refused: dict[str, int] = field(default_factory=dict)
    unanswered: list[float] = field(default_factory=list)  # AI decisions awaited when stopped


def count(where: dict[str, int], key: str) -> None:
    where[key] = where.get(key, 0) + 1


# -- the protocol ----------------------------------------------------------------------------------


class Refused(Exception):
    """The server answered a request with an error status."""

    def __init__(self, status: int, code: str, retry_after: float | None) -> None:
        super().__init__(f"{status} {code}")
        self.status = status
        self.code = code
        self.retry_after = retry_after


async def post(
    session: aiohttp.ClientSession, url: str, body: dict[str, Any], addr: str
) -> dict[str, Any]:
    """POST ``body`` as the person at ``addr``; the JSON answer, or :class:`Refused`."""
    async with session.post(url, json=body, headers={"X-Forwarded-For": addr}) as r:
        try:
            data = await r.json(content_type=None)
        except (json.JSONDecodeError, aiohttp.ContentTypeError):
            data = {}
        if r.status >= 400:
            after = r.headers.get("Retry-After")
            code = data.get("code") if isinstance(data, dict) else None
            raise Refused(r.status, str(code or "?"), float(after) if after else None)
        assert isinstance(data, dict)
        return data


@dataclass
class Seat:
    """One seat's WebSocket: the latest state and when each version (and turn) first arrived."""

    ws: aiohttp.ClientWebSocketResponse
    changed: asyncio.Event
    state: dict[str, Any] | None = None
    arrived: dict[int, float] = field(default_factory=dict)  # version -> when first seen
    turn_at: dict[int, float] = field(default_factory=dict)  # version with a decision or over
    clocks: dict[int, dict[str, Any]] = field(default_factory=dict)  # version -> its first clock
    error: str | None = None
    closed: bool = False
    task: asyncio.Task[None] | None = None

    @classmethod
    async def open(
        cls,
        session: aiohttp.ClientSession,
        base: str,
        game: str,
        token: str,
        addr: str,
        changed: asyncio.Event | None = None,
        *,
        watch: bool = False,
    ) -> Seat:
        """A seat's socket (``token``), or with ``watch`` a spectator's."""
        url = f"{base}/ws/{game}/watch" if watch else f"{base}/ws/{game}?t={token}"
        ws = await session.ws_connect(url, heartbeat=None, headers={"X-Forwarded-For": addr})
        seat = cls(ws, changed or asyncio.Event())
        seat.task = asyncio.create_task(seat._pump())
        return seat

    @property
    def version(self) -> int:
        return -1 if self.state is None else int(self.state["game"]["version"])

    async def _pump(self) -> None:
        try:
            async for msg in self.ws:
                if msg.type != aiohttp.WSMsgType.TEXT:
                    break
                data = json.loads(msg.data)
                now = time.perf_counter()
                if data["type"] == "state":
                    version = int(data["game"]["version"])
                    for v in range(max(self.arrived, default=-1) + 1, version + 1):
                        self.arrived.setdefault(v, now)
                    if data.get("legal") or data["result"] is not None:  # (spectators: none)
                        self.turn_at.setdefault(version, now)
                    if data.get("clock"):
                        self.clocks.setdefault(version, data["clock"])
                    self.state = data
                elif data["type"] == "error":
                    self.error = f"{data.get('code')}: {data.get('message')}"
                    break
                self.changed.set()
        except Exception as e:  # the connection broke
            self.error = f"{type(e).__name__}: {e}"
        finally:
            self.closed = True
            self.changed.set()

    async def close(self) -> None:
        if self.task is not None:
            self.task.cancel()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.ws.close(), 5)


async def wait(seats: list[Seat], ready: Any, timeout: float = STATE_TIMEOUT) -> None:
    """Wait until ``ready()`` (the seats share one ``changed`` event); raises if a socket ends
    first or nothing comes within ``timeout``."""
    deadline = time.perf_counter() + timeout
    while not ready():
        for s in seats:
            if s.closed:
                raise RuntimeError(f"the socket ended: {s.error or 'closed by the server'}")
        left = deadline - time.perf_counter()
        if left <= 0:
            raise RuntimeError(f"no expected state within {timeout:.0f} s")
        seats[0].changed.clear()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(seats[0].changed.wait(), left)


# -- friend games ----------------------------------------------------------------------------------


async def friend_game(
    session: aiohttp.ClientSession,
    base: str,
    i: int,
    rng: random.Random,
    think_ms: float,
    stats: FriendStats,
    delay: float,
    spectators: int = 0,
) -> None:
    await asyncio.sleep(delay)
    host, guest = address(FRIEND_HOST, i), address(FRIEND_GUEST, i)
    seats: list[Seat] = []
    watching: list[Seat] = []
    sent_at: dict[int, float] = {}  # the version each move made -> when it was sent
    try:
        try:
            data = await post(session, f"{base}/api/games", {"mode": "friend", "seat": 0}, host)
            code = parse_qs(urlsplit(data["invite"]).query)["i"][0]
            joined = await post(
                session,
                f"{base}/api/games/{data['game']}/join",
                {"invite": code, "name": "Friend"},
                guest,
            )
        except Refused as e:
            count(stats.refused, e.code)
            raise
        changed = asyncio.Event()
        for token, addr in ((data["token"], host), (joined["token"], guest)):
            seats.append(await Seat.open(session, base, data["game"], token, addr, changed))
        if spectators:
            watching = await open_spectators(session, base, data["game"], i, spectators, stats)
        while True:
            await wait(seats, lambda: all(s.state is not None for s in seats))
            if any(s.state is not None and s.state["result"] is not None for s in seats):
                stats.finished += 1
                await measure_spectators(watching, sent_at, stats)
                return
            mover = next((s for s in seats if s.state is not None and s.state["legal"]), None)
            if mover is None:
                versions = [s.version for s in seats]
                await wait(seats, lambda old=versions: [s.version for s in seats] != old)
                continue
            assert mover.state is not None
            await asyncio.sleep(rng.uniform(0, 2 * think_ms) / 1000)
            version = mover.version
            other = seats[1 - seats.index(mover)]
            sent = time.perf_counter()
            sent_at[version + 1] = sent
            move = rng.choice(mover.state["legal"])
            await mover.ws.send_json({"type": "move", "move": move, "version": version})
            both = (mover, other)
            await wait(seats, lambda v=version + 1, b=both: all(v in s.arrived for s in b))
            stats.ack_ms.append((mover.arrived[version + 1] - sent) * 1000)
            stats.update_ms.append((other.arrived[version + 1] - sent) * 1000)
            stats.moves += 1
    except Exception as e:  # recorded, reported, and the other games go on
        stats.errors.append(f"friend game: {type(e).__name__}: {e}")
    finally:
        for s in seats + watching:
            await s.close()


async def open_spectators(
    session: aiohttp.ClientSession, base: str, game: str, i: int, n: int, stats: FriendStats
) -> list[Seat]:
    """``n`` spectators of ``game``, each its own address, each with its first state."""
    opened = await asyncio.gather(
        *(
            Seat.open(session, base, game, "", address(SPECTATOR, i * n + j), watch=True)
            for j in range(n)
        ),
        return_exceptions=True,
    )
    watching = []
    for s in opened:
        if isinstance(s, BaseException):
            stats.spectator_errors.append(f"spectator: {type(s).__name__}: {s}")
        else:
            watching.append(s)
    for s in watching:
        await wait([s], lambda s=s: s.state is not None)
    return watching


async def measure_spectators(
    watching: list[Seat], sent_at: dict[int, float], stats: FriendStats
) -> None:
    """Each spectator's update time for every move, once the last one has reached them all."""
    last = max(sent_at, default=0)
    for s in watching:
        with contextlib.suppress(RuntimeError):
            await wait([s], lambda s=s: last in s.arrived, timeout=10)
        for version, sent in sent_at.items():
            if version in s.arrived:
                stats.spectator_ms.append((s.arrived[version] - sent) * 1000)
            else:
                stats.spectators_missed += 1
        if s.error is not None and not s.closed:
            stats.spectator_errors.append(f"spectator: {s.error}")


# -- the lobby -------------------------------------------------------------------------------------

LOBBY_CONTROL = "3+2"
LOBBY_WAIT_S = 60.0  # a seek not paired this long after the last seeks began is given up
REPOLL_S = 5.0  # a rated seek asks again this often, as the waiting page does


@dataclass
class LobbySide:
    """One player's side of one lobby game, measured once both sides are over."""

    seat: int
    sock: Seat
    sent: dict[int, float] = field(default_factory=dict)  # version a move made -> sent at
    decisions: list[tuple[int, float, float]] = field(default_factory=list)  # (v, turn, sent)


@dataclass
class LobbyStats:
    pair_s: list[float] = field(default_factory=list)  # Play someone now sent -> a seat
    waiter_pair_s: list[float] = field(default_factory=list)  # those who waited: -> `start`
    start_ms: list[float] = field(default_factory=list)  # the pairer's request -> waiter's start
    ack_ms: list[float] = field(default_factory=list)
    update_ms: list[float] = field(default_factory=list)
    clock_ms: list[float] = field(default_factory=list)  # charged - measured, each decision
    first_clock_ms: list[float] = field(default_factory=list)  # the same, a game's first one
    clock_unmeasured: int = 0  # decisions whose two clocks were not both received
    seeks: int = 0
    unpaired: int = 0
    games: dict[str, dict[int, LobbySide]] = field(default_factory=dict)
    paired_by: dict[str, float] = field(default_factory=dict)  # game -> pairer's request sent
    started_at: dict[str, float] = field(default_factory=dict)  # game -> waiter's start
    finished: int = 0
    results: dict[str, int] = field(default_factory=dict)  # how the games ended
    moves: int = 0
    errors: list[str] = field(default_factory=list)


def stored_ms(clock: dict[str, Any], seat: int) -> float:
    """A seat's time left as the server stores it (the running seat's, before its elapsed)."""
    left = float(clock["remaining"][seat])
    if clock["turn"] == seat and clock["since"] is not None and clock["running"]:
        left += max(0, clock["now"] - clock["since"])
    return left


async def lobby_socket(
    session: aiohttp.ClientSession, base: str, addr: str
) -> aiohttp.ClientWebSocketResponse:
    """The player's lobby socket, once its first ``lobby`` message has come."""
    ws = await session.ws_connect(
        f"{base}/ws/lobby", heartbeat=None, headers={"X-Forwarded-For": addr}
    )
    while True:  # (a challenge's news may come before the listing)
        msg = await ws.receive(STATE_TIMEOUT)
        if msg.type != aiohttp.WSMsgType.TEXT:
            await ws.close()
            raise RuntimeError(f"the lobby socket sent {msg.type.name} before its listing")
        if json.loads(msg.data).get("type") == "lobby":
            return ws


async def seek(
    session: aiohttp.ClientSession,
    base: str,
    addr: str,
    rated: bool,
    stats: LobbyStats,
    give_up: float,
) -> tuple[str, str] | None:
    """Play someone now from the lobby: the game and the seat's token, or None (nobody came
    before ``give_up``: the seek is cancelled)."""
    ws = await lobby_socket(session, base, addr)
    body = {"control": LOBBY_CONTROL, "max_rounds": 3, "rated": rated}
    try:
        asked = time.perf_counter()
        stats.seeks += 1
        answer = await post(session, f"{base}/api/lobby/play", body, addr)
        if "token" in answer:  # paired at once
            stats.pair_s.append(time.perf_counter() - asked)
            stats.paired_by[answer["game"]] = asked
            return answer["game"], answer["token"]
        challenge = answer["challenge"]["id"]
        again = asked + REPOLL_S
        while True:
            now = time.perf_counter()
            wait_s = min(again if rated else give_up, give_up) - now
            msg = await ws.receive(max(0.01, wait_s))
            if msg.type == aiohttp.WSMsgType.TEXT:
                data = json.loads(msg.data)
                if data.get("type") == "start" and data.get("challenge") == challenge:
                    arrived = time.perf_counter()
                    stats.pair_s.append(arrived - asked)
                    stats.waiter_pair_s.append(arrived - asked)
                    stats.started_at[data["game"]] = arrived
                    token = parse_qs(urlsplit(data["url"]).query)["t"][0]
                    return str(data["game"]), token
                continue
            if msg.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED):
                raise RuntimeError("the lobby socket closed while waiting")
            if time.perf_counter() >= give_up:
                stats.unpaired += 1
                with contextlib.suppress(Refused):
                    await post(session, f"{base}/api/lobby/challenges/{challenge}/cancel", {}, addr)
                return None
            if rated and time.perf_counter() >= again:  # the page asks again: a wider window
                repolled = time.perf_counter()
                again = repolled + REPOLL_S
                answer = await post(session, f"{base}/api/lobby/play", body, addr)
                if "token" in answer:
                    stats.pair_s.append(time.perf_counter() - asked)
                    stats.paired_by[answer["game"]] = repolled
                    return answer["game"], answer["token"]
    finally:
        await ws.close()


async def lobby_game(
    session: aiohttp.ClientSession,
    base: str,
    game: str,
    token: str,
    addr: str,
    rng: random.Random,
    think_ms: float,
    stats: LobbyStats,
) -> None:
    """Play one lobby game to its end: wait for the scoring as a page does, think, move."""
    sock = await Seat.open(session, base, game, token, addr)
    side: LobbySide | None = None
    try:
        await wait([sock], lambda: sock.state is not None)
        assert sock.state is not None
        side = LobbySide(int(sock.state["game"]["seat"]), sock)
        stats.games.setdefault(game, {})[side.seat] = side
        while True:
            await wait([sock], lambda: sock.state is not None)
            state = sock.state
            assert state is not None
            if state["result"] is not None:
                stats.finished += 1
                if side.seat == 0:  # each game once
                    count(stats.results, str(state["result"].get("reason", "?")))
                return
            if not state["legal"]:
                version = sock.version
                await wait([sock], lambda v=version: sock.version != v)
                continue
            version = sock.version
            turn = sock.arrived[version]
            clock = sock.clocks.get(version)
            if clock is not None and clock["turn"] == side.seat and clock["since"] is not None:
                turn += max(0, clock["since"] - clock["now"]) / 1000  # the scoring is shown
            pause = turn - time.perf_counter() + rng.uniform(0, 2 * think_ms) / 1000
            await asyncio.sleep(max(0.0, pause))
            sent = time.perf_counter()
            side.sent[version + 1] = sent
            side.decisions.append((version, turn, sent))
            move = rng.choice(state["legal"])
            await sock.ws.send_json({"type": "move", "move": move, "version": version})
            stats.moves += 1
            await wait([sock], lambda v=version: sock.version > v)
    finally:
        await sock.close()


async def lobby_player(
    connector: aiohttp.BaseConnector,
    base: str,
    i: int,
    rng: random.Random,
    think_ms: float,
    rated: bool,
    games: int,
    stats: LobbyStats,
    delay: float,
    give_up: float,
) -> None:
    """One person in the lobby: a guest (its own cookies), ``games`` games by Play someone now."""
    await asyncio.sleep(delay)
    addr = address(LOBBY, i)
    jar = aiohttp.CookieJar(unsafe=True)  # the server is 127.0.0.1
    async with aiohttp.ClientSession(
        connector=connector, connector_owner=False, cookie_jar=jar
    ) as session:
        try:
            async with session.get(f"{base}/api/me", headers={"X-Forwarded-For": addr}) as r:
                r.raise_for_status()
            await post(session, f"{base}/api/me", {"name": f"Lobby {i}"}, addr)
            for _ in range(games):
                found = await seek(
                    session, base, addr, rated, stats, max(give_up, time.perf_counter() + 10)
                )
                if found is None:
                    return
                await lobby_game(session, base, *found, addr, rng, think_ms, stats)
        except Exception as e:  # recorded, reported, and the others go on
            stats.errors.append(f"lobby player {i}: {type(e).__name__}: {e}")


def measure_lobby(stats: LobbyStats, increment_ms: float) -> None:
    """Update times and clock accuracy of every lobby game both of whose sides were seen."""
    for game, sides in stats.games.items():
        if game in stats.paired_by and game in stats.started_at:
            stats.start_ms.append((stats.started_at[game] - stats.paired_by[game]) * 1000)
        for side in sides.values():
            other = sides.get(1 - side.seat)
            for v, sent in side.sent.items():
                if v in side.sock.arrived:
                    stats.ack_ms.append((side.sock.arrived[v] - sent) * 1000)
                if other is not None and v in other.sock.arrived:
                    stats.update_ms.append((other.sock.arrived[v] - sent) * 1000)
            for k, (v, turn, sent) in enumerate(side.decisions):
                before, after = side.sock.clocks.get(v), side.sock.clocks.get(v + 1)
                if before is None or after is None:
                    stats.clock_unmeasured += 1
                    continue
                charged = stored_ms(before, side.seat) - stored_ms(after, side.seat)
                excess = charged + increment_ms - (sent - turn) * 1000
                (stats.first_clock_ms if k == 0 else stats.clock_ms).append(excess)


# -- games against the AI ------------------------------------------------------------------------


async def create_ai_game(
    session: aiohttp.ClientSession,
    base: str,
    body: dict[str, Any],
    addr: str,
    refused: dict[str, int],
    deadline: float,
) -> tuple[dict[str, Any], float, float]:
    """Create a game, waiting out refusals (each counted) until ``deadline``.

    Returns the answer, when the accepted request was sent, and the seconds since the first try.
    """
    first = time.perf_counter()
    while True:
        sent = time.perf_counter()
        try:
            data = await post(session, f"{base}/api/games", body, addr)
            return data, sent, sent - first
        except Refused as e:
            count(refused, e.code)
            pause = min(e.retry_after or 1.0, 2.0)
            if time.perf_counter() + pause > deadline:
                raise
            await asyncio.sleep(pause)


async def ai_game(
    session: aiohttp.ClientSession,
    base: str,
    game: dict[str, Any],
    created: float,
    addr: str,
    rng: random.Random,
    think_ms: float,
    stats: AiStats,
    *,
    stop: asyncio.Event | None = None,
    replies: int | None = None,
) -> None:
    """Play one game against the AI to its end (or ``replies`` AI moves, or ``stop``)."""
    seat = await Seat.open(session, base, game["game"], game["token"], addr)
    sent: dict[int, float] = {}  # the version a move of ours made -> when we sent it
    waker = asyncio.create_task(wake(stop, seat.changed)) if stop is not None else None
    try:
        while True:
            if stop is not None and stop.is_set():
                break
            await wait([seat], lambda: seat.state is not None)
            state = seat.state
            assert state is not None
            if state["result"] is not None:
                stats.finished += 1
                break
            if replies is not None and seat.version - len(sent) >= replies:
                break
            if not state["legal"]:
                version = seat.version
                if stop is None:
                    await wait([seat], lambda v=version: seat.version != v)
                else:
                    await wait([seat], lambda v=version: seat.version != v or stop.is_set())
                continue
            if think_ms:
                await asyncio.sleep(rng.uniform(0, 2 * think_ms) / 1000)
            version = seat.version
            sent[version + 1] = time.perf_counter()
            move = rng.choice(state["legal"])
            await seat.ws.send_json({"type": "move", "move": move, "version": version})
            stats.moves += 1
            await wait([seat], lambda v=version: seat.version > v)
        upto = seat.version
        if stop is not None and stop.is_set():
            unanswered(seat, sent, created, stats)
        if stop is not None and stop.is_set() and seat.state and seat.state["result"] is None:
            with contextlib.suppress(Exception):  # the flood is over: end the game
                await seat.ws.send_json({"type": "resign"})
                await wait([seat], lambda: seat.version > upto, 5)
    except Exception as e:
        stats.errors.append(f"AI game {game['game']}: {type(e).__name__}: {e}")
        upto = seat.version
        unanswered(seat, sent, created, stats)
    finally:
        if waker is not None:
            waker.cancel()
        await seat.close()
    measure_ai(seat, sent, created, stats, replies, upto)


def unanswered(seat: Seat, sent: dict[int, float], created: float, stats: AiStats) -> None:
    """If the game is waiting for the AI, count the decision and how long it has been due."""
    state, version = seat.state, seat.version
    if state is None or state["legal"] or state["result"] is not None:
        return
    due = sent.get(version) or (created if version == 0 else seat.arrived.get(version))
    if due is not None:
        stats.unanswered.append(time.perf_counter() - due)


async def wake(stop: asyncio.Event, changed: asyncio.Event) -> None:
    """Wake whoever waits on ``changed`` when ``stop`` is set."""
    await stop.wait()
    changed.set()


def measure_ai(
    seat: Seat,
    sent: dict[int, float],
    created: float,
    stats: AiStats,
    limit: int | None,
    upto: int,
) -> None:
    """The AI's reply times and the player's waits of one game (see the module's docstring).

    Versions up to ``upto`` count (beyond it: our resignation).
    """
    measured = 0
    for w in range(1, upto + 1):
        if w in sent or w not in seat.arrived:
            continue  # our move, or never seen
        if limit is not None and measured >= limit:
            break
        if w - 1 == 0:
            due = created
        elif w - 1 in sent:
            due = sent[w - 1]
        elif w - 1 in seat.arrived:
            due = seat.arrived[w - 1]
        else:
            continue
        stats.replies.append((due, seat.arrived[w] - due))
        measured += 1
    turns = sorted(seat.turn_at)
    for u, at in sent.items():
        if u + 1 in sent or u + 1 not in seat.arrived or u + 1 > upto:
            continue  # our decision again at once (we answered a Gift), or nothing came
        nxt = next((v for v in turns if v > u), None)
        if nxt is not None:
            stats.waits.append(seat.turn_at[nxt] - at)


async def ai_player(
    session: aiohttp.ClientSession,
    base: str,
    i: int,
    rng: random.Random,
    level: str,
    think_ms: float,
    stats: AiStats,
    until: float,
    floods_done: asyncio.Event,
    delay: float,
) -> None:
    """One person playing whole games against the AI, one after another, until ``until``."""
    await asyncio.sleep(delay)
    addr = address(AI_PLAYER, i)
    while time.perf_counter() < until or not floods_done.is_set():
        body = {"mode": "ai", "level": level, "seat": "random"}
        try:
            data, sent, _ = await create_ai_game(
                session, base, body, addr, stats.refused, until + 120
            )
        except Refused as e:
            stats.errors.append(f"AI player {i}: creation refused: {e}")
            return
        stats.games += 1
        try:
            await ai_game(session, base, data, sent, addr, rng, think_ms, stats)
        except aiohttp.ClientError as e:  # the socket could not be opened
            stats.errors.append(f"AI player {i}: {type(e).__name__}: {e}")
            return


# -- floods ----------------------------------------------------------------------------------------


async def flood(
    session: aiohttp.ClientSession,
    base: str,
    name: str,
    n: int,
    many: bool,
    rng: random.Random,
    think_ms: float,
    probe_replies: int,
    max_seconds: float,
    probe_index: int,
    in_flight: int,
) -> dict[str, Any]:
    """One flood of ``n`` master games and a beginner game timed meanwhile (module docstring)."""
    t0 = time.perf_counter()
    first: dict[str, int] = {}  # the burst's answers
    later: dict[str, int] = {}  # the answers to the flooders' later tries
    answered = 0
    burst_done = asyncio.Event()
    stop = asyncio.Event()
    gate = asyncio.Semaphore(in_flight or n)
    flood_stats = AiStats()
    body = {"mode": "ai", "level": "master", "seat": 1}

    async def flooder(j: int) -> None:
        nonlocal answered
        addr = address(FLOOD_MANY, j) if many else address(FLOOD_ONE, 0)
        answers = first
        while not stop.is_set():
            async with gate if answers is first else contextlib.nullcontext():
                sent = time.perf_counter()
                try:
                    data: dict[str, Any] | None = await post(
                        session, f"{base}/api/games", body, addr
                    )
                    count(answers, "201 accepted")
                except Refused as e:
                    count(answers, f"{e.status} {e.code}")
                    data = None
                except aiohttp.ClientError as e:
                    count(answers, type(e).__name__)
                    data = None
            if answers is first:
                answered += 1
                if answered == n:
                    burst_done.set()
                answers = later
            if data is None:
                with contextlib.suppress(TimeoutError):  # a flooder ignores Retry-After
                    await asyncio.wait_for(stop.wait(), FLOOD_RETRY_S)
                continue
            flood_stats.games += 1
            await ai_game(session, base, data, sent, addr, rng, 0.0, flood_stats, stop=stop)

    flooders = [asyncio.create_task(flooder(j)) for j in range(n)]
    await burst_done.wait()
    burst = time.perf_counter() - t0
    probe = AiStats()
    probe_addr = address(PROBE, probe_index)
    probe_body = {"mode": "ai", "level": "beginner", "seat": 1}
    probe_waits: list[float] = []
    probe_stop = asyncio.Event()
    timer = asyncio.get_running_loop().call_later(max_seconds, probe_stop.set)
    try:
        while len(probe.replies) < probe_replies and not probe_stop.is_set():
            data, sent, waited = await create_ai_game(
                session, base, probe_body, probe_addr, probe.refused, t0 + max_seconds
            )
            probe_waits.append(waited)
            probe.games += 1
            await ai_game(
                session,
                base,
                data,
                sent,
                probe_addr,
                rng,
                think_ms,
                probe,
                stop=probe_stop,
                replies=probe_replies - len(probe.replies),
            )
            if probe.errors:
                break
        if len(probe.replies) < probe_replies:
            probe.errors.append(
                f"the beginner games got {len(probe.replies)} of {probe_replies} AI replies "
                f"in {max_seconds:.0f} s"
            )
    except Refused as e:
        probe.errors.append(f"the beginner game was refused until the end: {e}")
    finally:
        timer.cancel()
    stop.set()
    await asyncio.gather(*flooders)
    seconds = [s for _, s in probe.replies]
    accepted = first.get("201 accepted", 0)
    return {
        "name": name,
        "games_tried": n,
        "addresses": n if many else 1,
        "answers": dict(sorted(first.items())),
        "accepted": accepted,
        "refused": n - accepted,
        "burst_s": round(burst, 2),
        "later_answers": dict(sorted(later.items())),
        "seconds": round(time.perf_counter() - t0, 2),
        "flood_games": flood_stats.games,
        "flood_ai_replies_s": summary([s for _, s in flood_stats.replies], digits=3),
        "flood_unanswered_at_end_s": summary(flood_stats.unanswered, digits=1),
        "flood_errors": flood_stats.errors[:5],
        "flood_error_count": len(flood_stats.errors),
        "probe_games": probe.games,
        "probe_refusals": probe.refused,
        "probe_wait_to_create_s": [round(w, 2) for w in probe_waits],
        "probe_replies_s": summary(seconds, digits=3),
        "probe_replies_each_s": [round(s, 3) for s in seconds],
        "probe_errors": probe.errors,
        "window": (t0, time.perf_counter()),
    }


async def warm_up(session: aiohttp.ClientSession, base: str, games: int = 4) -> float:
    """Wait until the AI's workers have made a master move each (not measured); the seconds.

    A started server loads the search in its workers in the background and learns how long a
    level's move takes from the first ones; the run measures the server after that.
    """
    t0 = time.perf_counter()

    async def one(i: int) -> None:
        body = {"mode": "ai", "level": "master", "seat": 1}
        addr = address(WARM, i)
        data = await post(session, f"{base}/api/games", body, addr)
        seat = await Seat.open(session, base, data["game"], data["token"], addr)
        try:
            await wait([seat], lambda: seat.version >= 1, 120)
            await seat.ws.send_json({"type": "resign"})
            await wait([seat], lambda: seat.version >= 2, 10)
        finally:
            await seat.close()

    await asyncio.gather(*(one(i) for i in range(games)))
    return time.perf_counter() - t0


# -- the run ---------------------------------------------------------------------------------------


@dataclass
class Config:
    games: int = 200
    spectators: int = 0
    think_ms: float = 1000
    ramp_s: float = 2.0
    ai_games: int = 0
    ai_level: str = "master"
    ai_seconds: float = 60.0
    flood: int = 0
    flood_at: float | None = None
    flood_seconds: float = 60.0
    flood_in_flight: int = 0
    probe_replies: int = 8
    seed: int = 1
    max_seconds: float = 900.0
    lobby: int = 0
    lobby_games: int = 1
    lobby_ramp_s: float = 20.0
    lobby_rated: bool = True


async def run(base: str, cfg: Config) -> dict[str, Any]:
    friends = FriendStats()
    ai = AiStats()
    lobby = LobbyStats()
    rng = random.Random(cfg.seed)
    floods: list[dict[str, Any]] = []
    floods_done = asyncio.Event()
    connector = aiohttp.TCPConnector(limit=0)
    # No cookies: each person's seat is opened by its token, and the friend who claims an
    # invitation must not carry the creator's cookie (that would be "your own invitation").
    async with aiohttp.ClientSession(
        connector=connector, cookie_jar=aiohttp.DummyCookieJar()
    ) as session:
        warm = await warm_up(session, base) if cfg.ai_games or cfg.flood else None
        start = time.perf_counter()

        async def floods_task() -> None:
            try:
                if not cfg.flood:
                    return
                at = cfg.flood_at
                if at is None:
                    at = 10.0 if cfg.games or cfg.ai_games else 0.0
                await asyncio.sleep(at)
                for k, (name, many) in enumerate(
                    (("one address", False), (f"{cfg.flood} addresses", True))
                ):
                    floods.append(
                        await flood(
                            session,
                            base,
                            name,
                            cfg.flood,
                            many,
                            random.Random(rng.getrandbits(32)),
                            cfg.think_ms,
                            cfg.probe_replies,
                            cfg.flood_seconds,
                            k,
                            cfg.flood_in_flight,
                        )
                    )
                    await asyncio.sleep(3)  # what the flood left queued is worked off
            finally:
                floods_done.set()

        tasks = [
            asyncio.create_task(
                friend_game(
                    session,
                    base,
                    i,
                    random.Random(rng.getrandbits(32)),
                    cfg.think_ms,
                    friends,
                    cfg.ramp_s * i / max(1, cfg.games),
                    cfg.spectators,
                )
            )
            for i in range(cfg.games)
        ]
        tasks += [
            asyncio.create_task(
                ai_player(
                    session,
                    base,
                    i,
                    random.Random(rng.getrandbits(32)),
                    cfg.ai_level,
                    cfg.think_ms,
                    ai,
                    start + cfg.ai_seconds,
                    floods_done,
                    cfg.ramp_s * i / max(1, cfg.ai_games),
                )
            )
            for i in range(cfg.ai_games)
        ]
        tasks += [
            asyncio.create_task(
                lobby_player(
                    connector,
                    base,
                    i,
                    random.Random(rng.getrandbits(32)),
                    cfg.think_ms,
                    cfg.lobby_rated,
                    cfg.lobby_games,
                    lobby,
                    cfg.lobby_ramp_s * i / max(1, cfg.lobby),
                    start + cfg.lobby_ramp_s + LOBBY_WAIT_S,
                )
            )
            for i in range(cfg.lobby)
        ]
        tasks.append(asyncio.create_task(floods_task()))
        _, pending = await asyncio.wait(tasks, timeout=cfg.max_seconds)
        for t in pending:
            t.cancel()
        await asyncio.gather(*pending, return_exceptions=True)
        elapsed = time.perf_counter() - start
    windows = [f.pop("window") for f in floods]
    measure_lobby(lobby, float(LOBBY_CONTROL.split("+")[1]) * 1000)
    during = [s for due, s in ai.replies if any(a <= due <= b for a, b in windows)]
    return {
        "seconds": round(elapsed, 1),
        "warm_up_s": None if warm is None else round(warm, 2),
        "timed_out": bool(pending),
        "think_ms_mean": cfg.think_ms,
        "friend": {
            "games": cfg.games,
            "finished": friends.finished,
            "moves": friends.moves,
            "moves_per_s": round(friends.moves / elapsed, 1),
            "ack_ms": summary(friends.ack_ms),
            "update_ms": summary(friends.update_ms),
            "spectators_per_game": cfg.spectators,
            "spectator_update_ms": summary(friends.spectator_ms),
            "spectator_updates_missed": friends.spectators_missed,
            "spectator_errors": friends.spectator_errors[:5],
            "refused": friends.refused,
            "error_count": len(friends.errors),
            "errors": friends.errors[:5],
        },
        "ai": {
            "players": cfg.ai_games,
            "level": cfg.ai_level,
            "games": ai.games,
            "finished": ai.finished,
            "player_moves": ai.moves,
            "reply_s": summary([s for _, s in ai.replies], digits=3),
            "reply_during_floods_s": summary(during, digits=3),
            "wait_s": summary(ai.waits, digits=3),
            "unanswered_s": summary(ai.unanswered, digits=1),
            "refused": ai.refused,
            "error_count": len(ai.errors),
            "errors": ai.errors[:5],
        },
        "floods": floods,
        "lobby": {
            "players": cfg.lobby,
            "games_each": cfg.lobby_games,
            "control": LOBBY_CONTROL,
            "rated": cfg.lobby_rated,
            "ramp_s": cfg.lobby_ramp_s,
            "seeks": lobby.seeks,
            "unpaired": lobby.unpaired,
            "games": len(lobby.games),
            "finished_sides": lobby.finished,
            "results": dict(sorted(lobby.results.items())),
            "moves": lobby.moves,
            "moves_per_s": round(lobby.moves / elapsed, 1),
            "pairing_s": summary(lobby.pair_s, digits=3),
            "waiters_pairing_s": summary(lobby.waiter_pair_s, digits=3),
            "start_sent_ms": summary(lobby.start_ms),
            "ack_ms": summary(lobby.ack_ms),
            "update_ms": summary(lobby.update_ms),
            "clock_excess_ms": summary(lobby.clock_ms)
            | {"min": round(min(lobby.clock_ms), 2) if lobby.clock_ms else None},
            "first_decision_clock_excess_ms": summary(lobby.first_clock_ms),
            "clock_unmeasured": lobby.clock_unmeasured,
            "error_count": len(lobby.errors),
            "errors": lobby.errors[:5],
        },
    }


# -- the server ------------------------------------------------------------------------------------


def start_server(
    db: str, log: Path, ai_workers: int | None
) -> tuple[subprocess.Popen[str], str, list[str]]:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    command = [sys.executable, "-m", "hanamikoji.cli", "serve", "--host", "127.0.0.1"]
    command += ["--port", str(port), "--db", db, "--behind-proxy"]
    if ai_workers is not None:
        command += ["--ai-workers", str(ai_workers)]
    with log.open("w") as out:
        proc = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, text=True)
    deadline = time.monotonic() + 60
    while "serving on" not in log.read_text():
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            raise SystemExit(f"the server did not start: {log.read_text()}")
        time.sleep(0.05)
    return proc, f"http://127.0.0.1:{port}", command


def log_problems(log: Path) -> list[str]:
    """The server log's lines that are not its normal start (tracebacks, errors, warnings)."""
    lines = log.read_text(errors="replace").splitlines()
    normal = ("hanamikoji: serving on", "Press Ctrl+C to stop.")
    return [line for line in lines if line.strip() and not line.startswith(normal)]


def log_kinds(lines: list[str]) -> dict[str, int]:
    """The log's lines counted by kind (times, game ids and task numbers left out)."""
    kinds: dict[str, int] = {}
    for line in lines:
        what = re.sub(r"^\d{4}-\d\d-\d\d \S+ |(?<=Task-)\d+", "", line)
        count(kinds, re.sub(r"(?<=in game )\S+", "ID", what)[:200])
    return kinds


def source_version() -> str:
    """The commit the server ran from, and whether its source had changes not committed."""
    root = Path(__file__).resolve().parent.parent
    try:
        head = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=root, capture_output=True, text=True
        ).stdout.strip()
        changed = subprocess.run(
            ["git", "status", "--porcelain", "--", "src"], cwd=root, capture_output=True, text=True
        ).stdout.strip()
    except OSError:
        return "unknown"
    return f"{head or 'unknown'}{' with changes in src/' if changed else ''}"


# -- the command -----------------------------------------------------------------------------------


def ms(part: dict[str, Any], key: str) -> str:
    return f"{part[key]} ms" if part[key] is not None else "-"


def seconds(part: dict[str, Any], key: str) -> str:
    return f"{part[key]:.2f} s" if part[key] is not None else "-"


def report(result: dict[str, Any]) -> None:
    f, a = result["friend"], result["ai"]
    line = [f"{result['seconds']} s"]
    if f["games"]:
        line.append(
            f"friend {f['finished']}/{f['games']} games: move update p99 "
            f"{ms(f['update_ms'], 'p99')} (ack p99 {ms(f['ack_ms'], 'p99')})"
        )
        if f["spectators_per_game"]:
            line.append(
                f"{f['spectators_per_game']} spectators a game: update p99 "
                f"{ms(f['spectator_update_ms'], 'p99')}"
            )
    if a["players"]:
        r = a["reply_s"]
        line.append(
            f"{a['level']} x{a['players']} ({a['games']} games): AI reply p50 {seconds(r, 'p50')} "
            f"p99 {seconds(r, 'p99')} max {seconds(r, 'max')} n={r['count']}"
            + (
                f", {a['unanswered_s']['count']} never answered"
                if a["unanswered_s"]["count"]
                else ""
            )
        )
    lo = result["lobby"]
    if lo["players"]:
        line.append(
            f"lobby {lo['players']} players ({lo['games']} games): pairing p50 "
            f"{seconds(lo['pairing_s'], 'p50')} p99 {seconds(lo['pairing_s'], 'p99')}, update p99 "
            f"{ms(lo['update_ms'], 'p99')}, clock p99 {ms(lo['clock_excess_ms'], 'p99')}"
        )
    for fl in result["floods"]:
        p = fl["probe_replies_s"]
        probe = (
            f"beginner reply p50 {seconds(p, 'p50')} max {seconds(p, 'max')}"
            if p["count"]
            else f"no beginner game (refused {fl['probe_refusals']})"
        )
        line.append(f"flood {fl['name']}: {fl['accepted']}/{fl['games_tried']} accepted; {probe}")
    print(" | ".join(line))
    print()
    print(f"server: {result['server']} (source {result['source']})")
    if result["warm_up_s"] is not None:
        print(f"warm-up (not measured): 4 master moves in {result['warm_up_s']} s")
    if f["games"]:
        print(
            f"friend games: {f['games']} ({f['finished']} finished, {f['error_count']} errors, "
            f"refused {f['refused'] or 'none'}), {f['moves']} moves = {f['moves_per_s']} moves/s"
        )
        watched = [("spectator_update_ms", "spectators' update")] * bool(f["spectators_per_game"])
        for key, what in (
            ("ack_ms", "mover's ack"),
            ("update_ms", "opponent's update"),
            *watched,
        ):
            s = f[key]
            print(
                f"  move sent -> {what}: p50 {ms(s, 'p50')}, p99 {ms(s, 'p99')}, max {ms(s, 'max')}"
            )
    if a["players"]:
        print(
            f"games against {a['level']}: {a['players']} players, {a['games']} games "
            f"({a['finished']} finished, {a['error_count']} errors, refused "
            f"{a['refused'] or 'none'}), {a['player_moves']} player moves"
        )
        for key, what in (
            ("reply_s", "AI reply (decision due -> AI's move received)"),
            *(
                [("reply_during_floods_s", "AI reply, decisions due during a flood")]
                if result["floods"]
                else []
            ),
            ("wait_s", "player's wait (move sent -> own decision again or game over)"),
        ):
            s = a[key]
            print(
                f"  {what}: n={s['count']} p50 {seconds(s, 'p50')}, p99 {seconds(s, 'p99')}, "
                f"max {seconds(s, 'max')}"
            )
        un = a["unanswered_s"]
        if un["count"]:
            print(
                f"  AI decisions never answered (the game given up after {STATE_TIMEOUT:.0f} s "
                f"without a state): {un['count']}, due for up to {un['max']} s"
            )
    for fl in result["floods"]:
        answers = ", ".join(f"{k}: {v}" for k, v in fl["answers"].items())
        later = ", ".join(f"{k}: {v}" for k, v in fl["later_answers"].items()) or "none"
        print(
            f"flood from {fl['name']}: {fl['games_tried']} master games tried in "
            f"{fl['burst_s']} s ({answers}); later tries ({later}); lasted {fl['seconds']} s"
        )
        fr = fl["flood_ai_replies_s"]
        print(
            f"  the flood's {fl['flood_games']} games: AI reply n={fr['count']} "
            f"p50 {seconds(fr, 'p50')}, p99 {seconds(fr, 'p99')}, max {seconds(fr, 'max')}; "
            f"errors {fl['flood_error_count']}"
        )
        un = fl["flood_unanswered_at_end_s"]
        if un["count"]:
            print(
                f"  the flood's games still waiting for the AI when it ended: {un['count']}, "
                f"waiting for p50 {un['p50']} s, max {un['max']} s"
            )
        p = fl["probe_replies_s"]
        print(
            f"  beginner games ({fl['probe_games']}): refused {fl['probe_refusals'] or 'never'}, "
            f"created after {fl['probe_wait_to_create_s']} s; AI replies n={p['count']} p50 "
            f"{seconds(p, 'p50')}, max {seconds(p, 'max')}: {fl['probe_replies_each_s']}"
        )
        for error in fl["probe_errors"] + fl["flood_errors"]:
            print("  error:", error)
    if f["spectators_per_game"]:
        print(
            f"  spectators: {f['spectators_per_game']} a game, "
            f"{f['spectator_update_ms']['count']} updates timed, "
            f"{f['spectator_updates_missed']} missed"
        )
    if lo["players"]:
        print(
            f"lobby: {lo['players']} guests, {lo['control']} {'rated' if lo['rated'] else 'casual'}"
            f", {lo['seeks']} seeks ({lo['unpaired']} unpaired), {lo['games']} games (ends: "
            f"{lo['results'] or 'none'}), {lo['moves']} moves = {lo['moves_per_s']} moves/s, "
            f"{lo['error_count']} errors"
        )
        for key, what, fmt in (
            ("pairing_s", "Play someone now sent -> a seat (201 or `start`)", seconds),
            ("waiters_pairing_s", "the same, those who waited", seconds),
            ("start_sent_ms", "the pairer's request -> the waiter's `start`", ms),
            ("ack_ms", "move sent -> mover's ack", ms),
            ("update_ms", "move sent -> opponent's update", ms),
            ("clock_excess_ms", "clock: charged - client-measured", ms),
            ("first_decision_clock_excess_ms", "the same, each seat's first decision", ms),
        ):
            s = lo[key]
            print(
                f"  {what}: n={s['count']} p50 {fmt(s, 'p50')}, p99 {fmt(s, 'p99')}, "
                f"max {fmt(s, 'max')}"
            )
        if lo["clock_unmeasured"]:
            print(f"  decisions without both clocks: {lo['clock_unmeasured']}")
    for error in f["errors"] + a["errors"] + f["spectator_errors"] + lo["errors"]:
        print("error:", error)
    if result.get("server_log_lines"):
        print(f"server log: {result['server_log_lines']} lines beyond the start:")
        for what, n in list(result["server_log"].items())[:20]:
            print(f"  {n} x {what}")
    if result["timed_out"]:
        print("the run was ended by --max-seconds: the figures are partial")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=(__doc__ or "").split("\n\n")[0],
        epilog="Definitions and targets: see the top of bench/web_load.py and docs/web.md (Load).",
    )
    parser.add_argument(
        "--games",
        type=int,
        default=200,
        metavar="N",
        help="concurrent friend games, two people each (200)",
    )
    parser.add_argument(
        "--spectators",
        type=int,
        default=0,
        metavar="N",
        help="spectators watching each friend game, each its own address (0)",
    )
    parser.add_argument(
        "--think-ms",
        type=float,
        default=1000,
        metavar="MS",
        help="mean think time of every person but the flooders: uniform on 0..2x (1000)",
    )
    parser.add_argument(
        "--ramp-s",
        type=float,
        default=2.0,
        metavar="S",
        help="friend games, and AI players, start spread over this many seconds (2)",
    )
    parser.add_argument(
        "--ai-games",
        type=int,
        default=0,
        metavar="N",
        help="people playing against the AI at once, each its own address, whole games one "
        "after another (0)",
    )
    parser.add_argument(
        "--ai-level", default="master", metavar="LEVEL", help="their AI's level (master)"
    )
    parser.add_argument(
        "--ai-seconds",
        type=float,
        default=60.0,
        metavar="S",
        help="AI players start new games until this many seconds have passed and the floods "
        "are over, then finish the game they are in (60)",
    )
    parser.add_argument(
        "--flood",
        type=int,
        default=0,
        metavar="N",
        help="two floods of N master games each: from one address, then from N addresses; a "
        "beginner game is timed during each (0: none)",
    )
    parser.add_argument(
        "--flood-at",
        type=float,
        default=None,
        metavar="S",
        help="seconds after the start the first flood begins (10 with other games, else 0)",
    )
    parser.add_argument(
        "--flood-seconds",
        type=float,
        default=60.0,
        metavar="S",
        help="at most this long per flood: the beginner game's replies are awaited so long (60)",
    )
    parser.add_argument(
        "--flood-in-flight",
        type=int,
        default=0,
        metavar="K",
        help="creation requests of a flood's first burst in flight at once (0: all N)",
    )
    parser.add_argument(
        "--probe-replies",
        type=int,
        default=8,
        metavar="N",
        help="AI replies of the beginner game timed during each flood (8)",
    )
    parser.add_argument(
        "--lobby",
        type=int,
        default=0,
        metavar="N",
        help=f"guests pairing themselves by Play someone now ({LOBBY_CONTROL}) and playing (0)",
    )
    parser.add_argument(
        "--lobby-games",
        type=int,
        default=1,
        metavar="K",
        help="games each lobby player plays, one after another (1)",
    )
    parser.add_argument(
        "--lobby-ramp-s",
        type=float,
        default=20.0,
        metavar="S",
        help="lobby players arrive spread over this many seconds (20)",
    )
    parser.add_argument(
        "--lobby-casual",
        action="store_true",
        help="casual seeks (default: rated, each game's end moving both ratings)",
    )
    parser.add_argument(
        "--seed", type=int, default=1, metavar="N", help="seed of the players' choices (1)"
    )
    parser.add_argument(
        "--max-seconds",
        type=float,
        default=900.0,
        metavar="S",
        help="the whole run ends after this long, reporting what it has (900)",
    )
    parser.add_argument(
        "--db", default=None, metavar="URL", help="database URL for the started server"
    )
    parser.add_argument(
        "--ai-workers",
        type=int,
        default=None,
        metavar="N",
        help="passed to the started server (its default)",
    )
    parser.add_argument(
        "--url",
        default=None,
        metavar="URL",
        help="load this running server instead (it must run with --behind-proxy for the "
        "per-person addresses to count)",
    )
    parser.add_argument("--json", action="store_true", help="print the result as JSON only")
    parser.add_argument(
        "--out", type=Path, default=None, metavar="FILE", help="also write the result as JSON"
    )
    args = parser.parse_args()
    for name in ("games", "spectators", "ai_games", "flood", "probe_replies", "lobby"):
        if getattr(args, name) < 0:
            parser.error(f"--{name.replace('_', '-')} must be 0 or more")
    cfg = Config(
        games=args.games,
        spectators=args.spectators,
        think_ms=args.think_ms,
        ramp_s=args.ramp_s,
        ai_games=args.ai_games,
        ai_level=args.ai_level,
        ai_seconds=args.ai_seconds,
        flood=args.flood,
        flood_at=args.flood_at,
        flood_seconds=args.flood_seconds,
        flood_in_flight=args.flood_in_flight,
        probe_replies=args.probe_replies,
        seed=args.seed,
        max_seconds=args.max_seconds,
        lobby=args.lobby,
        lobby_games=args.lobby_games,
        lobby_ramp_s=args.lobby_ramp_s,
        lobby_rated=not args.lobby_casual,
    )
    proc = None
    command: list[str] = []
    with tempfile.TemporaryDirectory() as tmp:
        log = Path(tmp) / "server.log"
        base = args.url
        version = source_version()
        if base is None:
            db = args.db or f"sqlite:///{Path(tmp) / 'load.sqlite3'}"
            proc, base, command = start_server(db, log, args.ai_workers)
        failed = None
        try:
            result = asyncio.run(run(base.rstrip("/"), cfg))
        except (RuntimeError, OSError, aiohttp.ClientError, Refused) as e:  # e.g. the warm-up
            failed = f"{type(e).__name__}: {e}"
        finally:
            if proc is not None:
                proc.terminate()
                try:
                    proc.wait(15)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait(5)
        problems = log_problems(log) if proc is not None else []
        if failed is not None:
            print(f"web_load: the run failed: {failed}", file=sys.stderr)
            for what, n in list(log_kinds(problems).items())[:20]:
                print(f"  server log: {n} x {what}", file=sys.stderr)
            raise SystemExit(1)
        result["bench"] = shlex.join([Path(sys.argv[0]).as_posix(), *sys.argv[1:]])
        result["server"] = shlex.join(command) if command else base
        result["source"] = version
        result["server_log_lines"] = len(problems)
        result["server_log"] = log_kinds(problems)
    if args.out is not None:
        args.out.write_text(json.dumps(result, indent=1) + "\n")
    if args.json:
        print(json.dumps(result))
        return
    report(result)


if __name__ == "__main__":
    main()
