"""The bot bridge: an engine playing people on a Hanamikoji server (docs/bots.md).

``hanamikoji bot --server URL --token TOKEN ENGINE`` opens an outgoing WebSocket to the server's
bot socket (``hanamikoji-bot/1``), accepts the challenges the server offers it (the server has
already checked them against the owner's settings) and relays each game to ENGINE over the
engine protocol (docs/protocol.md): ``cmd:./mybot``, a built-in agent, ``level:hard``. Each game
being played at once has an engine of its own; an engine that fails (crash, garbage, an illegal
move, no answer in time) forfeits that game with the failure's name, and is started afresh for
the next one.

The bridge talks through a :class:`Channel` (a WebSocket, or an in-memory :func:`pipe` for the
server's own house bots) and plays through :class:`GameEngine` s, so the same loop serves both.
It never imports the web app.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import signal
import sys
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Protocol
from urllib.parse import urlsplit, urlunsplit

from hanamikoji.engine import Engine, EngineError, kill_all_engines
from hanamikoji.match.players import AgentPlayer, EnginePlayer, MatchError, Player, make_player
from hanamikoji.moves import InvalidMoveError, Move
from hanamikoji.state import Outcome, Rules, Termination, standing
from hanamikoji.terminal import printable
from hanamikoji.view import View

__all__ = [
    "FATAL",
    "PROTOCOL",
    "Bridge",
    "BridgeRefused",
    "Channel",
    "GameEngine",
    "PipeEnd",
    "PlayerEngine",
    "WebSocketChannel",
    "bot_url",
    "main",
    "pipe",
    "serve_bot",
]

PROTOCOL = "hanamikoji-bot/1"
FATAL = frozenset({"bad-token", "revoked", "in-use", "disabled"})
"""Errors after which a bridge stops (exit status 1) instead of connecting again."""
RETRY_MAX_S = 30.0
"""The longest wait between two attempts to reach the server."""


class BridgeRefused(Exception):
    """The server refused the bot (a wrong, revoked or busy token): no use trying again."""


# -- channels ------------------------------------------------------------------------------------


class Channel(Protocol):
    """One connection to the server: JSON objects both ways."""

    async def send(self, message: dict[str, Any]) -> None:
        """Send one message."""
        ...

    async def receive(self) -> dict[str, Any] | None:
        """The next message (a JSON object), or None once the connection is closed."""
        ...

    async def close(self) -> None:
        """Close the connection."""
        ...


def _decode(text: str) -> dict[str, Any] | None:
    """A message as a dict, or None for anything that is not a JSON object (ignored)."""
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        return None
    return data if isinstance(data, dict) else None


def bot_url(server: str) -> str:
    """The bot socket's URL of a server given as ``http(s)://host[:port]`` or ``ws(s)://``.

    >>> bot_url("http://127.0.0.1:8000/")
    'ws://127.0.0.1:8000/ws/bot'
    """
    parts = urlsplit(server.strip())
    scheme = {"http": "ws", "https": "wss", "ws": "ws", "wss": "wss"}.get(parts.scheme.lower())
    if scheme is None or not parts.netloc:
        raise ValueError(f"--server must be a URL like http://127.0.0.1:8000, got {server!r}")
    path = parts.path.rstrip("/")
    if not path.endswith("/ws/bot"):
        path += "/ws/bot"
    return urlunsplit((scheme, parts.netloc, path, "", ""))


class WebSocketChannel:
    """A bot socket over an outgoing WebSocket (aiohttp's client)."""

    def __init__(self, session: Any, ws: Any) -> None:
        self._session = session
        self._ws = ws

    @classmethod
    async def connect(cls, url: str) -> WebSocketChannel:
        """Open ``url`` (raises aiohttp's ClientError or OSError when the server is not there)."""
        import aiohttp  # the client is needed only here (an optional cost for the engine tools)

        session = aiohttp.ClientSession()
        try:
            ws = await session.ws_connect(url, heartbeat=30, max_msg_size=4 * 1024 * 1024)
        except BaseException:
            await session.close()
            raise
        return cls(session, ws)

    async def send(self, message: dict[str, Any]) -> None:
        with contextlib.suppress(ConnectionError, RuntimeError):
            await self._ws.send_str(json.dumps(message))

    async def receive(self) -> dict[str, Any] | None:
        import aiohttp

        while True:
            msg = await self._ws.receive()
            if msg.type == aiohttp.WSMsgType.TEXT:
                data = _decode(msg.data)
                if data is not None:
                    return data
            elif msg.type in (
                aiohttp.WSMsgType.CLOSE,
                aiohttp.WSMsgType.CLOSING,
                aiohttp.WSMsgType.CLOSED,
                aiohttp.WSMsgType.ERROR,
            ):
                return None

    async def close(self) -> None:
        with contextlib.suppress(Exception):
            await self._ws.close()
        await self._session.close()


@dataclass
class PipeEnd:
    """One end of an in-memory connection carrying JSON text (the server's house bots)."""

    inbox: asyncio.Queue[str | None]
    outbox: asyncio.Queue[str | None]
    closed: bool = False

    async def send_text(self, text: str) -> None:
        """Send one message's text (dropped once closed)."""
        if not self.closed:
            self.outbox.put_nowait(text)

    async def receive_text(self) -> str | None:
        """The next message's text, or None once either end closed."""
        if self.closed:
            return None
        text = await self.inbox.get()
        if text is None:
            self.closed = True
        return text

    def close(self) -> None:
        """Close both directions."""
        if not self.closed:
            self.closed = True
            self.outbox.put_nowait(None)
            self.inbox.put_nowait(None)


class PipeChannel:
    """The bridge's side of an in-memory connection."""

    def __init__(self, end: PipeEnd) -> None:
        self.end = end

    async def send(self, message: dict[str, Any]) -> None:
        await self.end.send_text(json.dumps(message))

    async def receive(self) -> dict[str, Any] | None:
        while True:
            text = await self.end.receive_text()
            if text is None:
                return None
            data = _decode(text)
            if data is not None:
                return data

    async def close(self) -> None:
        self.end.close()


def pipe() -> tuple[PipeChannel, PipeEnd]:
    """An in-memory connection: the bridge's channel, and the server's end of it."""
    up: asyncio.Queue[str | None] = asyncio.Queue()
    down: asyncio.Queue[str | None] = asyncio.Queue()
    return PipeChannel(PipeEnd(inbox=down, outbox=up)), PipeEnd(inbox=up, outbox=down)


# -- engines -------------------------------------------------------------------------------------


class GameEngine(Protocol):
    """What plays one game at a time for the bridge; ``act`` raises :class:`EngineError` naming
    a failure (crash, exit, garbage, illegal, timeout)."""

    async def start(self, seat: int, rules: Rules, opponent: str) -> None:
        """A game starts."""
        ...

    async def act(self, view: View, legal: list[Move], clock_ms: int) -> Move:
        """The move for ``view``."""
        ...

    async def finish(self, view: View, winner: int | None, reason: str) -> None:
        """The game ended."""
        ...

    async def close(self) -> None:
        """Stop (a process is ended)."""
        ...


class PlayerEngine:
    """A match runner's player (a built-in agent, or an engine process restarted after each
    failure), its blocking calls run in a thread."""

    def __init__(self, player: Player) -> None:
        self.player = player
        self._games = 0

    async def start(self, seat: int, rules: Rules, opponent: str) -> None:
        self._games += 1
        await asyncio.to_thread(self.player.start, seat, rules, opponent, self._games)

    async def act(self, view: View, legal: list[Move], clock_ms: int) -> Move:
        return await asyncio.to_thread(self.player.act, view, legal, clock_ms)

    async def finish(self, view: View, winner: int | None, reason: str) -> None:
        try:
            termination = Termination(reason)
        except ValueError:
            termination = Termination.FORFEIT
        charm, geisha = standing(view.markers)
        outcome = Outcome(winner, termination, charm, geisha, tuple(view.markers))
        await asyncio.to_thread(self.player.finish, view, outcome)

    async def close(self) -> None:
        await asyncio.to_thread(self.player.close)


# -- the bridge ----------------------------------------------------------------------------------


@dataclass
class _Game:
    id: str
    seat: int
    engine: GameEngine
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    failed: bool = False


class Bridge:
    """Relays a server's games to engines made by ``engines()`` (kept for the next game when
    one ends); ``say`` prints what happens, one line each."""

    def __init__(self, engines: Callable[[], GameEngine], say: Callable[[str], None]) -> None:
        self.engines = engines
        self.say = say
        self.name = ""
        self._free: list[GameEngine] = []
        self._games: dict[str, _Game] = {}
        self._tasks: set[asyncio.Task[Any]] = set()
        self.played = 0  # games finished (for tests and the log)

    async def run(self, channel: Channel, token: str, engine: str = "") -> bool:
        """One connection: hello, then the server's messages until it closes. True if the server
        welcomed the bot; raises :class:`BridgeRefused` for a token it refuses."""
        await channel.send(
            {"type": "hello", "protocol": PROTOCOL, "token": token, "engine": engine}
        )
        welcomed = False
        try:
            while True:
                msg = await channel.receive()
                if msg is None:
                    return welcomed
                kind = msg.get("type")
                if kind == "welcome":
                    welcomed = True
                    self.name = str(msg.get("bot", ""))
                    self.say(f"connected as {printable(self.name)}; waiting for challenges")
                elif kind == "error":
                    code, text = str(msg.get("code")), printable(str(msg.get("message", "")))
                    if code in FATAL:
                        raise BridgeRefused(f"the server refused the bot ({code}): {text}")
                    self.say(f"the server says ({code}): {text}")
                elif kind == "challenge":
                    await self._challenge(channel, msg)
                elif kind in ("game", "act", "result"):
                    self._spawn(self._game_message(channel, msg))
        finally:
            await channel.close()
            for task in list(self._tasks):
                task.cancel()
            await asyncio.gather(*self._tasks, return_exceptions=True)
            for game in list(self._games.values()):  # the server sends them again on reconnecting
                await game.engine.close()
            self._games.clear()

    def _spawn(self, work: Awaitable[None]) -> None:
        async def run() -> None:
            try:
                await work
            except asyncio.CancelledError:
                raise
            except Exception as e:  # a bug here must not end the bridge: say it, go on
                self.say(f"error: {type(e).__name__}: {e}")

        task = asyncio.create_task(run())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _challenge(self, channel: Channel, msg: dict[str, Any]) -> None:
        challenge = msg.get("challenge")
        if not isinstance(challenge, dict) or not isinstance(challenge.get("id"), str):
            return
        who = printable(str(challenge.get("name") or "someone"))
        self.say(f"challenge from {who} ({challenge.get('control')}): accepted")
        await channel.send({"type": "accept", "id": challenge["id"]})

    async def _game_message(self, channel: Channel, msg: dict[str, Any]) -> None:
        game_id = msg.get("game")
        if not isinstance(game_id, str):
            return
        kind = msg["type"]
        if kind == "game":
            if game_id in self._games:
                return  # sent again (a reconnection): the game goes on
            seat = msg.get("seat")
            if seat not in (0, 1):
                return
            engine = self._free.pop() if self._free else self.engines()
            new = self._games[game_id] = _Game(game_id, seat, engine)
            try:
                rules = Rules.from_json(msg.get("rules"))
            except ValueError:
                rules = Rules()  # rules the engine cannot be told: it plays with the defaults
            async with new.lock:
                try:
                    await engine.start(seat, rules, str(msg.get("opponent") or ""))
                except EngineError as e:
                    await self._forfeit(channel, new, e)
            self.say(f"game {game_id}: playing seat {seat} against {msg.get('opponent')}")
            return
        game = self._games.get(game_id)
        if game is None:
            return
        async with game.lock:
            if kind == "act" and not game.failed:
                await self._act(channel, game, msg)
            elif kind == "result":
                del self._games[game_id]
                self.played += 1
                self.say(f"game {game_id}: over ({msg.get('reason')}, winner {msg.get('winner')})")
                if not game.failed:
                    with contextlib.suppress(ValueError, EngineError):
                        view = View.from_json(msg.get("view"))
                        winner = msg.get("winner")
                        await game.engine.finish(
                            view, winner if winner in (0, 1) else None, str(msg.get("reason"))
                        )
                self._free.append(game.engine)

    async def _act(self, channel: Channel, game: _Game, msg: dict[str, Any]) -> None:
        try:
            view = View.from_json(msg.get("view"))
            legal = [Move.parse(m) for m in msg.get("legal") or []]
        except (ValueError, TypeError, InvalidMoveError) as e:
            self.say(f"game {game.id}: the server sent an act the bridge cannot read: {e}")
            return
        clock = msg.get("clock_ms")
        clock_ms = clock if isinstance(clock, int) and not isinstance(clock, bool) else 1000
        try:
            move = await game.engine.act(view, legal, max(1, clock_ms))
        except EngineError as e:
            await self._forfeit(channel, game, e)
            return
        await channel.send(
            {"type": "move", "game": game.id, "move": str(move), "version": msg.get("version")}
        )

    async def _forfeit(self, channel: Channel, game: _Game, error: EngineError) -> None:
        """The engine failed: the game is lost by forfeit, named; the engine starts afresh."""
        game.failed = True
        self.say(f"game {game.id}: the engine failed ({error.kind}): {printable(str(error))}")
        await game.engine.close()
        await channel.send(
            {"type": "forfeit", "game": game.id, "kind": error.kind, "message": str(error)[:500]}
        )


async def serve_bot(
    connect: Callable[[], Awaitable[Channel]],
    token: str,
    bridge: Bridge,
    *,
    engine: str = "",
    retry: bool = True,
) -> int:
    """Serve until stopped, connecting again (1 s, 2 s, ... 30 s apart) when the connection
    drops; 1 when the server refuses the token (the reason said) or has no bot API at that
    address (a 404), 0 when ``retry`` is off and the connection closed."""
    delay = 1.0
    while True:
        try:
            channel = await connect()
        except Exception as e:  # OSError, a timeout, aiohttp's ClientError and its kin
            if getattr(e, "status", None) == 404:  # a server, but no bot API there: no retry
                bridge.say(
                    "the server has no bot API at this address (404): give --server the site's "
                    "own address, e.g. https://example.org, without a path"
                )
                return 1
            why = str(e) or type(e).__name__
            bridge.say(f"cannot reach the server: {why}; trying again in {delay:.0f} s")
        else:
            try:
                if await bridge.run(channel, token, engine):
                    delay = 1.0
            except BridgeRefused as e:
                bridge.say(str(e))
                return 1
            if not retry:
                return 0
            bridge.say(f"the connection closed; connecting again in {delay:.0f} s")
        await asyncio.sleep(delay)
        delay = min(RETRY_MAX_S, delay * 2)


def _check_engine(player: Player, say: Callable[[str], None]) -> None:
    """Start the engine once before connecting, so that a command that cannot run is said at
    once (not as a forfeited game); a built-in search agent gets its kernels ready."""
    if isinstance(player, EnginePlayer):
        Engine.popen(player.command).close()
    elif isinstance(player, AgentPlayer):
        from hanamikoji.ai.prepare import prepare

        prepare(player.agent, say)


def main(server: str, token: str, spec: str) -> int:
    """``hanamikoji bot``: 0 when interrupted, 1 for a token the server refuses, 2 for an
    engine that cannot run."""

    def say(line: str) -> None:
        print(f"hanamikoji bot: {line}", file=sys.stderr, flush=True)

    try:
        url = bot_url(server)
        first = make_player(spec)
        _check_engine(first, say)
    except (ValueError, MatchError) as e:
        say(str(e))
        return 2
    except EngineError as e:
        say(f"the engine {spec!r} cannot run ({e.kind}): {e}")
        return 2
    spare: list[Player] = [first]

    def engines() -> GameEngine:
        return PlayerEngine(spare.pop() if spare else make_player(spec))

    async def connect() -> Channel:
        return await WebSocketChannel.connect(url)

    async def until_stopped() -> int:
        served = asyncio.create_task(serve_bot(connect, token, Bridge(engines, say), engine=spec))
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            with contextlib.suppress(NotImplementedError):
                loop.add_signal_handler(sig, served.cancel)
        try:
            return await served
        except asyncio.CancelledError:
            say("stopped")
            return 0

    try:
        return asyncio.run(until_stopped())
    finally:
        kill_all_engines()  # the engines' process groups, whatever stopped the bridge
