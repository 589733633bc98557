"""The web server: pages, a small JSON API and one WebSocket per seat (docs/web.md).

``create_app(service)`` builds the aiohttp application; ``serve(...)`` runs it until interrupted.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import re
import signal
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from http.cookies import SimpleCookie
from importlib import resources
from pathlib import Path
from typing import Any
from urllib.parse import urlencode, urlsplit

from aiohttp import WSCloseCode, WSMessage, WSMsgType, web
from aiohttp.abc import AbstractStreamWriter
from aiohttp.http_exceptions import HttpProcessingError

from hanamikoji.ai.levels import LEVELS
from hanamikoji.clock import Clock, TimeControl
from hanamikoji.web import profiles
from hanamikoji.web.bots import BotHub
from hanamikoji.web.chat import Author, ChatRooms, room_of
from hanamikoji.web.errors import WebError, read_json, show
from hanamikoji.web.game import DEFAULT_LEVEL, LiveGame, player_seat, token_seat
from hanamikoji.web.identity import (
    DISABLED,
    SESSION_CHANGED,
    SESSION_COOKIE,
    Accounts,
    FieldError,
    Identity,
    username_key,
)
from hanamikoji.web.limits import Limits, TooMany
from hanamikoji.web.lobby import (
    Lobby,
    challenge_json,
    creator_standings,
    creator_usernames,
    rated_flag,
    show_challenge,
    time_control,
    visible,
)
from hanamikoji.web.messages import (
    RatingChanges,
    SeatAccounts,
    add_rating_changes,
    add_usernames,
    lookup_rating_changes,
    lookup_seat_accounts,
    review_frames,
    seat_message,
)
from hanamikoji.web.moderation import Follower, subject
from hanamikoji.web.ratings import Standing
from hanamikoji.web.service import DELETED_SEAT, GameService
from hanamikoji.web.store import (
    ChallengeRow,
    ChatFlags,
    GameRow,
    ModerationRow,
    Store,
    open_store,
    safe_url,
)
from hanamikoji.web.watch import GamesOn, Watchers, spectator_message

__all__ = ["SERVICE", "STATIC", "Settings", "create_app", "read_json", "serve"]

log = logging.getLogger(__name__)

STATIC = Path(str(resources.files("hanamikoji.web") / "static"))
"""The front end: HTML shells, ES modules, CSS, SVG and translations."""
_STATIC_ROOT = STATIC.resolve()  # a file served is one inside it, links resolved

SERVICE = web.AppKey("service", GameService)
MAX_MESSAGE = 16 * 1024
SEND_QUEUE = 64  # messages waiting for one socket; a socket further behind is closed
SEND_TIMEOUT = 10.0  # seconds one message may take to leave; a socket slower is closed

_GAME_ID = re.compile(r"[A-Za-z0-9_-]{1,40}")
_PAGES = {
    "home": "index.html",
    "account": "account.html",
    "game": "game.html",
    "review": "review.html",
    "rules": "rules.html",
    "join": "join.html",
    "lobby": "lobby.html",
    "watch": "watch.html",
    "profile": "profile.html",
    "leaders": "leaders.html",
}
_STATUS = {
    "bad-request": 400,
    "bad-token": 403,
    "not-allowed": 403,
    "bad-origin": 403,
    "not-found": 404,
    "conflict": 409,
    "over": 409,
    "illegal": 400,
    "not-your-turn": 409,
    "used": 410,
    "withdrawn": 410,
    "bad-credentials": 401,
    "not-signed-in": 401,
    "signed-in": 409,
    "session-changed": 409,
    "taken": 409,
    "too-many": 429,
    "busy": 503,
    "own-challenge": 403,
    "to-self": 400,
    "own-bot": 403,
    "not-yours": 403,
    "accepted": 410,
    "cancelled": 410,
    "expired": 410,
    "out-of-time": 409,
    "declined": 403,
    "disabled": 403,
}


@dataclass(frozen=True)
class Settings:
    """How the server meets the world: its public address, the origins it trusts, its limits.

    ``public_url`` is the address people open (``https://...`` when a proxy ends TLS in front of
    the server: cookies are then ``Secure`` and HSTS is sent); ``allowed_origins`` are other
    origins whose pages may open sockets and create games (the server's own always may);
    ``behind_proxy`` takes the client's address from the proxy's ``X-Forwarded-For``.
    """

    public_url: str | None = None
    allowed_origins: tuple[str, ...] = ()
    behind_proxy: bool = False
    limits: Limits = field(default_factory=Limits)
    header_timeout: float = 15.0
    """Seconds a connection may take to send a whole request (slower ones are dropped)."""
    house_bots: bool = True
    """``hanamikoji serve``: the AI levels play in the lobby as bots (``--no-house-bots``)."""

    @property
    def https(self) -> bool:
        """Whether people reach the server over HTTPS."""
        return bool(self.public_url) and self.public_url.lower().startswith("https://")  # type: ignore[union-attr]


SETTINGS = web.AppKey("settings", Settings)


def origin_of(url: str) -> str:
    """``scheme://host[:port]`` of a site's address, lower case (the form of an ``Origin``
    header); a ValueError for anything a browser would never open the site at (another scheme,
    a path, a query: the server is served from its root)."""
    parts = urlsplit(url.strip())
    if not parts.scheme or not parts.netloc:
        raise ValueError(f"expected an origin like https://example.org, got {url!r}")
    if parts.scheme.lower() not in ("http", "https"):
        raise ValueError(f"expected an http:// or https:// address, got {url!r}")
    try:
        port = parts.port  # a port beyond 65535 raises
    except ValueError:
        port = 0
    if port == 0:
        raise ValueError(f"expected a port from 1 to 65535, got {url!r}")
    if parts.username is not None or parts.password is not None:
        raise ValueError(f"expected no user name or password in the address, got {url!r}")
    if parts.path not in ("", "/") or parts.query or parts.fragment:
        raise ValueError(
            f"expected the site's root, like https://example.org (the app is served from /), "
            f"got {url!r}"
        )
    scheme = parts.scheme.lower()
    host = (parts.hostname or "").lower()
    if ":" in host:  # an IPv6 address is bracketed in an origin
        host = f"[{host}]"
    # A browser leaves the scheme's own port out of its Origin: so must the origin kept here.
    default = {"http": 80, "https": 443}[scheme]
    return f"{scheme}://{host}" + (f":{port}" if port is not None and port != default else "")


def cookie_name(game_id: str) -> str:
    """The cookie that holds one seat's token for a game."""
    return f"hk_{game_id}"


def _dumps(message: dict[str, Any]) -> str:
    """A message as the sockets send it (compact JSON)."""
    return json.dumps(message, separators=(",", ":"))


_WRITERS: set[asyncio.Task[None]] = set()


@dataclass(eq=False)
class Connection:
    """One open WebSocket: a seat of a game.

    Messages are queued and written by the connection's own task, so that sending to one
    socket never waits on another; a socket that falls ``SEND_QUEUE`` messages behind, or takes
    over ``SEND_TIMEOUT`` seconds to take one, is closed (its player reconnects and gets the
    current state).
    """

    ws: web.WebSocketResponse
    seat: int
    transport: Any = None
    client: str = ""  # the address it came from (for the limits)
    player: str | None = None  # whose it is (a seat's player, a signed-in spectator): moderation
    session: str | None = None  # the session (its hash) it acts by: closed when that one ends
    sent: list[str] | None = None  # every message sent, when a test asks to keep them
    opened: float = field(default_factory=time.monotonic)
    queue: asyncio.Queue[str | None] = field(default_factory=lambda: asyncio.Queue(SEND_QUEUE))
    writer: asyncio.Task[None] | None = None
    hinting: bool = False  # a hint asked on this socket is being searched
    hint_again: bool = False  # and asked for again meanwhile
    cut: bool = False  # dropped: nothing more is queued (nor logged) for it
    reads: bool = False  # its handler reads it with :meth:`receive` (which then closes it)
    reader: asyncio.Task[Any] | None = None  # the handler, while it waits in :meth:`receive`
    closing: tuple[int, str] | None = None  # the close code and words :meth:`close` asked for
    ended: asyncio.Event = field(default_factory=asyncio.Event)  # the handler's close is done

    def start(self) -> None:
        """Start writing queued messages."""
        self.writer = asyncio.create_task(self._write())
        _WRITERS.add(self.writer)  # held until it ends, never collected while pending
        self.writer.add_done_callback(_WRITERS.discard)

    async def send(self, message: dict[str, Any], *, text: str | None = None) -> None:
        """Queue ``message`` (never waits); ``text``: the message already written as JSON."""
        text = _dumps(message) if text is None else text
        if self.sent is not None:
            self.sent.append(text)
        if self.ws.closed or self.cut:
            return
        try:
            self.queue.put_nowait(text)
        except asyncio.QueueFull:
            log.info("closing a socket that fell %d messages behind", SEND_QUEUE)
            self.drop()

    async def caught_up(self) -> None:
        """Wait, before the client's next request is read, until it has taken the answers
        queued so far (once half the queue waits): a client that asks faster than it reads
        (a burst of pings already in the socket's buffer, all read without a pause) is slowed
        to its own pace, not cut for falling behind. One that stops reading is still cut, after
        ``SEND_TIMEOUT``."""
        if self.queue.qsize() < SEND_QUEUE // 2 or self.ws.closed:
            return
        try:
            async with asyncio.timeout(SEND_TIMEOUT):
                await self.queue.join()
        except TimeoutError:
            log.info("closing a socket that took over %s s to take its answers", SEND_TIMEOUT)
            self.drop()

    async def _write(self) -> None:
        while True:
            text = await self.queue.get()
            if text is None or self.ws.closed:
                return
            try:
                async with asyncio.timeout(SEND_TIMEOUT):  # (wait_for may swallow a cancel)
                    await self.ws.send_str(text)
                self.queue.task_done()
            except TimeoutError:
                log.info("closing a socket that took over %s s to take a message", SEND_TIMEOUT)
                self.drop()
                return
            except (ConnectionError, RuntimeError):
                return

    def drop(self) -> None:
        """Cut the connection at once (no closing handshake: the peer is not reading)."""
        self.cut = True
        if self.transport is not None:
            self.transport.abort()
        self.stop()

    def stop(self) -> None:
        """End the writer: cancelled, and woken by an end mark should the cancel be lost (and
        :meth:`close` no longer waits for the handler)."""
        if self.writer is not None and self.writer is not asyncio.current_task():
            self.writer.cancel()
        with contextlib.suppress(asyncio.QueueFull):
            self.queue.put_nowait(None)
        self.ended.set()

    async def receive(self) -> WSMessage | None:
        """The client's next message, as ``async for msg in ws`` reads them (None once the
        socket closes); when :meth:`close` asks, this reader closes the socket itself.

        (aiohttp's ``close`` called from another task while the handler waits in ``receive``
        sends the closing frame and closes the connection at once, without waiting for the
        client's answering frame: a client that had not read yet then fails to answer, and
        aiohttp's client reports 1006 where the frame said 4409. Closed from the reading task,
        ``close`` waits for that answer.)"""
        self.reads = True
        if self.closing is None:
            task = asyncio.current_task()
            self.reader = task
            try:
                msg = await self.ws.receive()
            except asyncio.CancelledError:
                # :meth:`close`'s cancel (only ever while here) is taken back; any other (the
                # peer gone: aiohttp cancels the handler) goes on
                if self.closing is None or task is None or task.uncancel() > 0:
                    raise
            else:
                if msg.type in (WSMsgType.CLOSE, WSMsgType.CLOSING, WSMsgType.CLOSED):
                    return None
                return msg
            finally:
                self.reader = None
        code, why = self.closing
        try:
            with contextlib.suppress(Exception):  # (aiohttp waits for the answer 10 s at most)
                await self.ws.close(code=code, message=why[:100].encode())
        finally:
            self.ended.set()
        return None

    async def close(self, code: int, why: str, error: str = "replaced") -> None:
        """Close politely: an error message (``error``, saying why), then the closing handshake
        (by the handler's own read, :meth:`receive`, where it reads with it)."""
        await self.send(_error(error, why))
        with contextlib.suppress(Exception):  # the message leaves before the closing frame
            await asyncio.wait_for(self.queue.join(), 2)
        if self.reads and not self.ws.closed:
            self.closing = (code, why)
            if self.reader is not None:
                self.reader.cancel()  # it waits in receive (else it sees ``closing`` there next)
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.ended.wait(), 12)
        else:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.ws.close(code=code, message=why[:100].encode()), 2)
        self.drop()


@dataclass
class Hub:
    """The open connections of this process, by game."""

    service: GameService
    games: dict[str, set[Connection]] = field(default_factory=dict)
    on_connect: Callable[[Connection], None] | None = None  # tests use it to record traffic
    tasks: set[asyncio.Task[Any]] = field(default_factory=set)
    watchers: Watchers[Connection] = field(default_factory=Watchers)  # spectators, by game
    bot_online: Callable[[str, int], bool] | None = None  # a seat played by a bot connected here
    bot_seats: Callable[[LiveGame], list[bool]] | None = None  # which seats bots hold (marked)
    chat: ChatRooms | None = None  # the games' chat rooms (set by create_app)

    def spawn(self, work: Awaitable[Any]) -> None:
        """Run ``work`` in the background (kept referenced until done)."""

        async def run() -> None:
            try:
                await work
            except Exception:
                log.exception("background work failed")

        task = asyncio.create_task(run())
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    def here(self, game_id: str, seat: int) -> bool:
        """Whether ``seat`` is connected to this process (a socket, or its bot's link)."""
        here = any(c.seat == seat for c in self.games.get(game_id, ()))
        return here or (self.bot_online is not None and self.bot_online(game_id, seat))

    def online(self, game_id: str, seat: int) -> bool:
        """Whether ``seat`` is connected to any server process (this one, or another that
        announced it: :mod:`hanamikoji.web.presence`)."""
        return self.here(game_id, seat) or self.service.presence.elsewhere(game_id, seat)

    async def publish(self, game_id: str) -> None:
        """Send every seat of ``game_id`` connected here its new state, and every spectator
        the public one."""
        conns = list(self.games.get(game_id, ()))
        watchers = list(self.watchers.games.get(game_id, ()))
        if not conns and not watchers:
            return
        game = await self.service.get(game_id)
        if game is None:
            return
        store = self.service.store
        accounts = await lookup_seat_accounts(store, game)  # one query for them all
        ratings = await lookup_rating_changes(store, game)  # read once for every message
        cache: dict[int, dict[str, Any]] = {}
        for conn in conns:
            message = cache.get(conn.seat)
            if message is None:
                message = await self.state_for(game, conn.seat, accounts, ratings)
                cache[conn.seat] = message
            await conn.send(message)
        if watchers:  # after the players, and written once for them all
            public = await self.spectator_state(game, accounts, ratings)
            text = _dumps(public)
            for conn in watchers:
                await conn.send(public, text=text)

    async def state_for(
        self,
        game: LiveGame,
        seat: int,
        accounts: SeatAccounts | None = None,
        ratings: RatingChanges | None = None,
    ) -> dict[str, Any]:
        """The ``state`` message of one seat (built from its VIEW), with the seats' user names
        and deleted accounts (:func:`lookup_seat_accounts`) and a finished rated game's rating
        changes (:func:`lookup_rating_changes`), each looked up unless given."""
        message = seat_message(
            game,
            game.state.view(seat),
            online=self.online(game.id, 1 - seat),
            rematch=await self.service.rematch_link(game, seat),
            now=self.service.now_ms(),
        )
        if accounts is None:
            accounts = await lookup_seat_accounts(self.service.store, game)
        add_usernames(message["game"], accounts)
        if ratings is None:
            ratings = await lookup_rating_changes(self.service.store, game)
        add_rating_changes(message["game"], ratings)
        bots = self.bot_seats(game) if self.bot_seats is not None else []
        if any(bots):  # a bot is marked at the table (docs/bots.md): a game with one only
            message["game"]["bots"] = bots
            if game.clock is None:  # untimed: a bot gone long enough may be claimed all the same
                gone = not message["game"]["opponent_online"]
                message["game"]["claim_at"] = (
                    self.service.claim_at(game, 1 - seat) if gone else None
                )
                message["game"]["now"] = self.service.now_ms()
        return message

    async def spectator_state(
        self,
        game: LiveGame,
        accounts: SeatAccounts | None = None,
        ratings: RatingChanges | None = None,
    ) -> dict[str, Any]:
        """The ``state`` message of a spectator (built from the public view), with the seats'
        user names and deleted accounts and the rating changes, as :meth:`state_for`."""
        online = (self.online(game.id, 0), self.online(game.id, 1))
        message = spectator_message(game, online=online, now=self.service.now_ms())
        if accounts is None:
            accounts = await lookup_seat_accounts(self.service.store, game)
        add_usernames(message["game"], accounts)
        if ratings is None:
            ratings = await lookup_rating_changes(self.service.store, game)
        add_rating_changes(message["game"], ratings)
        bots = self.bot_seats(game) if self.bot_seats is not None else []
        if any(bots):  # marked on the spectators' table too (docs/bots.md)
            message["game"]["bots"] = bots
        return message

    def connected(self) -> list[tuple[str, int]]:
        """Every ``(game, seat)`` with a socket here."""
        return sorted({(game_id, c.seat) for game_id, conns in self.games.items() for c in conns})


@dataclass(eq=False)
class LobbyConnection:
    """One open lobby socket, and who it is (None: a visitor without an identity)."""

    conn: Connection
    player: str | None
    key: str | None  # the player's folded user name (challenges addressed to them)
    held: list[dict[str, Any]] | None = field(default_factory=list)
    """What was published while the opening listing was being read: sent right after it, so
    the page never gets a change before the list it changes (None once the listing went)."""

    async def send(self, message: dict[str, Any]) -> None:
        """Send ``message`` now, or after the opening listing if that has not gone yet."""
        if self.held is not None:
            self.held.append(message)
            return
        await self.conn.send(message)

    async def open(self, listing: dict[str, Any]) -> None:
        """Send the opening listing, then whatever was published meanwhile, in order."""
        await self.conn.send(listing)
        held, self.held = self.held or [], None
        for message in held:
            await self.conn.send(message)


@dataclass
class LobbyHub:
    """The open lobby sockets of this process."""

    lobby: Lobby
    conns: set[LobbyConnection] = field(default_factory=set)

    def present(self) -> list[str]:
        """The players with the lobby open here."""
        return [c.player for c in self.conns if c.player is not None]

    async def publish(self, c: ChallengeRow) -> None:
        """Tell every lobby socket here that may see ``c`` what became of it; once accepted,
        its two players are sent to their seats."""
        started: dict[str, str | None] = {}
        # The creator's rating and user name, looked up once, if anyone here sees the challenge.
        standings: dict[str, Standing] | None = None
        usernames: dict[str, str | None] = {}
        for lc in list(self.conns):
            if not visible(c, lc.player, lc.key):
                continue
            if c.status == "open":
                if standings is None:
                    standings = await creator_standings(self.lobby.store, [c])
                    usernames = await creator_usernames(self.lobby.store, [c])
                shown = challenge_json(
                    c,
                    lc.player,
                    lc.key,
                    standing=standings.get(c.id),
                    username=usernames.get(c.player),
                )
                await lc.send({"type": "challenge", "challenge": shown})
                continue
            await lc.send({"type": "gone", "id": c.id, "why": c.status})
            player = lc.player
            if (
                c.status == "accepted"
                and player is not None
                and player in (c.player, c.accepted_by)
            ):
                if player not in started:
                    started[player] = await self.lobby.game_url(c, player)
                url = started[player]
                if url is not None:
                    await lc.send({"type": "start", "challenge": c.id, "game": c.game, "url": url})


HUB = web.AppKey("hub", Hub)
CHAT = web.AppKey("chat", ChatRooms)
LOBBY = web.AppKey("lobby", LobbyHub)


class _Socket(web.WebSocketResponse):
    """A server WebSocket that says why it closes on a message over ``MAX_MESSAGE`` bytes:
    an error message (``too-long``), then the words again as the close frame's reason, where
    aiohttp alone closes with 1009 and nothing more."""

    async def prepare(self, request: web.BaseRequest) -> AbstractStreamWriter:
        # (aiohttp prepares the response again once the handler returns: started, it returns)
        if not self.prepared and not self.can_prepare(request).ok:  # aiohttp's 400: plain text
            raise web.HTTPBadRequest(
                text=json.dumps(
                    {
                        "error": "this address is a WebSocket: open it with a WebSocket client "
                        "(a GET with Upgrade: websocket), not a plain request",
                        "code": "bad-request",
                    }
                ),
                content_type="application/json",
            )
        return await super().prepare(request)

    async def close(
        self, *, code: int = WSCloseCode.OK, message: bytes = b"", drain: bool = True
    ) -> bool:
        if code == WSCloseCode.MESSAGE_TOO_BIG and not self.closed:
            why = f"a message may be at most {MAX_MESSAGE} bytes; send it shorter"
            with contextlib.suppress(Exception):  # the peer may be gone already
                await self.send_json(_error("too-long", why))
            message = message or why.encode()
        return await super().close(code=code, message=message, drain=drain)


def _error(code: str, message: str) -> dict[str, str]:
    return {"type": "error", "code": code, "message": message}


def _json_error(
    code: str,
    message: str,
    status: int | None = None,
    retry_after: int | None = None,
    field: str | None = None,
) -> web.Response:
    answer = {"error": message, "code": code} | ({"field": field} if field else {})
    response = web.json_response(answer, status=status or _STATUS.get(code, 400))
    if retry_after is not None:
        response.headers["Retry-After"] = str(retry_after)
    return response


# -- pages ---------------------------------------------------------------------------------------


def _page(name: str) -> Callable[[web.Request], Awaitable[web.StreamResponse]]:
    async def handler(request: web.Request) -> web.StreamResponse:
        game_id = request.match_info.get("game")
        path = STATIC / _PAGES[name]
        if not path.is_file():
            return web.Response(status=500, text=f"the front end is missing ({path.name})")
        game = None
        if game_id is not None:
            known, game = await _look_up(request, game_id)
            if not known:
                # No such game: the page all the same (it says so), with 404 and nothing else:
                # no guest made, no cookie set.
                return web.FileResponse(path, status=404, headers={"Cache-Control": "no-cache"})
        if name == "profile" and not await _has_profile(request):
            return web.FileResponse(path, status=404, headers={"Cache-Control": "no-cache"})
        response = web.FileResponse(path, headers={"Cache-Control": "no-cache"})
        try:
            await identify(request, create=True)  # a first visit: the visitor is a guest from now
        except Exception:  # the database failed: the page is served all the same, without one
            log.exception("no identity for a visitor of %s", name)
        token = request.query.get("t")
        if name == "game" and game_id is not None and game is not None and token:
            # Only a token that opens a seat of this game is kept: a crafted link must not
            # replace the visitor's own seat cookie.
            held = request.cookies.get(cookie_name(game_id))
            # A browser that holds the other seat keeps it: the link decides alone, as it always
            # has (the page is served at ``?t=``, whose socket opens that seat).
            if token_seat(game.row, token) is not None and (
                token_seat(game.row, held) is None or held == token
            ):
                # The cookie holds this seat now: the address bar loses the token, so that
                # copying the address (to let a friend watch) never gives the seat away.
                return _without_token(request, game_id, token)
        return response

    return handler


async def _static(request: web.Request) -> web.StreamResponse:
    """A file of the front end; one that is not there is answered as any unknown page is
    (aiohttp's own static route found that out only while sending: past the middleware, an
    empty 404 as ``application/octet-stream``)."""
    with contextlib.suppress(OSError, ValueError):  # a NUL byte in the name, a loop of links
        path = (STATIC / request.match_info["path"]).resolve()
        if path.is_relative_to(_STATIC_ROOT) and path.is_file():
            return web.FileResponse(path)
    raise web.HTTPNotFound()


async def _has_profile(request: web.Request) -> bool:
    """Whether ``/@/{name}`` is an account's profile; True when the database cannot say (the
    page then finds out for itself, as it does for a name nobody has)."""
    try:
        name = request.match_info.get("name", "")  # "" at /@/: nobody's
        await profiles.find_account(request.app[SERVICE].store, name)
    except WebError:
        return False
    except Exception:
        log.exception("no profile lookup for %s", request.path)
    return True


async def _without_slash(request: web.Request) -> web.StreamResponse:
    """``/@/NAME/``: the profile is at ``/@/NAME`` (it answered aiohttp's bare text 404)."""
    url = request.rel_url
    raise web.HTTPPermanentRedirect(str(url.with_path(url.path.rstrip("/"))))


async def _look_up(request: web.Request, game_id: str) -> tuple[bool, LiveGame | None]:
    """A game page's game, looked up once: (whether the id may be a game's, the game). Not for
    an id no game can have or one no game has; unknown, (True, None), when the database cannot
    say (the page then finds out for itself)."""
    if not _GAME_ID.fullmatch(game_id):
        return False, None
    try:
        game = await request.app[SERVICE].get(game_id)
    except Exception:
        log.exception("no game looked up for a page of %s", show(game_id))
        return True, None
    return game is not None, game


def _without_token(request: web.Request, game_id: str, token: str) -> web.StreamResponse:
    """``303`` to the seat's page without ``?t=`` (its other parameters kept), setting the
    seat's cookie; never cached, since it carries the token."""
    query = [(key, value) for key, value in request.rel_url.query.items() if key != "t"]
    location = f"/g/{game_id}" + (f"?{urlencode(query)}" if query else "")
    response = web.Response(status=303, headers={"Location": location, "Cache-Control": "no-store"})
    _set_seat_cookie(request, response, game_id, token)
    return response


def _set_seat_cookie(
    request: web.Request, response: web.StreamResponse, game_id: str, token: str
) -> None:
    response.set_cookie(
        cookie_name(game_id),
        token,
        path="/",
        httponly=True,
        samesite="Lax",
        secure=request.app[SETTINGS].https,
        max_age=60 * 60 * 24 * 365,
    )


def client_of(request: web.Request) -> str:
    """The client's address: the peer's, or behind a proxy the one it forwarded."""
    if request.app[SETTINGS].behind_proxy:
        forwarded = request.headers.get("X-Forwarded-For", "")
        last = forwarded.rsplit(",", 1)[-1].strip()
        if last:
            return last[:64]
    return request.remote or ""


# -- API -----------------------------------------------------------------------------------------


async def _body(request: web.Request, example: str) -> dict[str, Any]:
    """The request's JSON object body (a clear ``bad-request`` for anything else)."""
    try:
        # The whole request within the header timeout: a body trickled in holds nothing long.
        raw = await asyncio.wait_for(request.read(), request.app[SETTINGS].header_timeout)
    except web.HTTPRequestEntityTooLarge:
        raise WebError("bad-request", "the body is too large (at most 64 KB)") from None
    except web.RequestPayloadError:
        raise WebError(
            "bad-request", "the body could not be read (its Content-Encoding or length is wrong)"
        ) from None
    except TimeoutError:
        raise WebError("bad-request", "the body came too slowly") from None
    except ConnectionError:  # the client went away mid-body: nobody to answer
        raise WebError("bad-request", "the connection was lost") from None
    expected = f"the body must be a JSON object, e.g. {example}"
    try:
        body = read_json(raw) if raw.strip() else None
    except WebError as e:
        raise WebError("bad-request", f"{expected}: {e.message}") from None
    if not isinstance(body, dict):
        raise WebError("bad-request", expected)
    return body


async def _create(request: web.Request) -> web.Response:
    service = request.app[SERVICE]
    body = await _body(request, '{"mode": "ai"}')
    _only(body, ("mode", "level", "seat", "max_rounds", "name", "control", "rated"))
    control = time_control(body)
    rated = rated_flag(body, control)  # as the lobby reads them
    mode = body.get("mode", "ai")
    seat = body.get("seat", "random")  # 0, 1 or "random" only: never "0" nor true
    identity = await identify(request, create=True)
    await _may_name(request, identity, body)
    game, me = await service.create(
        mode=mode,
        level=body.get("level"),
        seat=seat,
        max_rounds=body.get("max_rounds", 3),
        name=_name_for(identity, body),
        client=client_of(request),
        player=identity.player.id if identity else None,
        control=control,
        rated=rated,
    )
    await _keep_name(request, identity, body)
    token = game.row.tokens[me]
    invite = game.row.invite
    answer = {
        "game": game.id,
        "seat": me,
        "token": token,
        "url": f"/g/{game.id}?t={token}",
        "invite": f"/join/{game.id}?i={invite}" if invite else None,
    }
    response = web.json_response(answer, status=201)
    _set_seat_cookie(request, response, game.id, token)
    return response


async def _invitation(request: web.Request) -> web.Response:
    game_id = request.match_info["game"]
    info = await request.app[SERVICE].invitation(game_id, request.query.get("i"))
    holder = request.cookies.get(cookie_name(game_id))
    game = await request.app[SERVICE].get(game_id)
    identity = await identify(request)
    player = identity.player.id if identity else None
    info["yours"] = game is not None and (
        token_seat(game.row, holder) is not None or player_seat(game.row, player) is not None
    )
    return web.json_response(info)


async def _join(request: web.Request) -> web.Response:
    game_id = request.match_info["game"]
    body = await _body(request, '{"invite": "CODE", "name": "Anna"}')
    _only(body, ("invite", "name"))
    identity = await identify(request)
    if identity is None:  # a guest for whoever takes the seat, not for a refusal
        offered = await request.app[SERVICE].invitation(game_id, body.get("invite"))
        if offered["status"] == "open":
            identity = await identify(request, create=True)
    await _may_name(request, identity, body)
    game, seat, token = await request.app[SERVICE].join(
        game_id,
        body.get("invite"),
        _name_for(identity, body),
        request.cookies.get(cookie_name(game_id)),
        identity.player.id if identity else None,
    )
    await _keep_name(request, identity, body)
    answer = {"game": game.id, "seat": seat, "token": token, "url": f"/g/{game.id}?t={token}"}
    response = web.json_response(answer, status=201)
    _set_seat_cookie(request, response, game.id, token)
    return response


async def _seat_link(request: web.Request) -> web.Response:
    """The private link of the seat this browser holds (its cookie, else the session of the
    seat's player, as the seat's socket opens it): to open the seat on another device.

    The page's address no longer carries the token, so this is how a player gets it again;
    never to a spectator or to the other seat, and never cached.
    """
    game_id = request.match_info["game"]
    game = await request.app[SERVICE].get(game_id)
    if game is None:
        answer = _json_error("not-found", f"there is no game {show(game_id)}")
    else:
        row = game.row
        seat = token_seat(row, request.cookies.get(cookie_name(game_id)))
        if seat is None:
            identity = await identify(request)
            seat = player_seat(row, identity.player.id if identity else None)
        token = row.tokens[seat] if seat is not None and seat != row.ai_seat else None
        if seat is None or not token:
            answer = _json_error(
                "not-allowed",
                "this browser holds no seat of this game: only a player gets a seat's link "
                f"(anyone may watch at /g/{game_id})",
            )
        else:
            answer = web.json_response(
                {"game": row.id, "seat": seat, "url": f"/g/{row.id}?t={token}"}
            )
    answer.headers["Cache-Control"] = "no-store"
    return answer


async def _page_seat(request: web.Request) -> web.Response:
    """The seat a game page's socket would open here (``?t=``, else the cookie, else the
    session, as ``/ws/{game}`` decides), or null: the page then opens the spectator's socket at
    once, instead of a seat's socket the server refuses (``bad-token``)."""
    game_id = request.match_info["game"]
    game = await request.app[SERVICE].get(game_id)
    if game is None:
        raise WebError("not-found", f"there is no game {show(game_id)}")
    linked = request.query.get("t")
    seat = token_seat(game.row, linked or request.cookies.get(cookie_name(game_id)))
    if seat is None and not linked:  # a link decides alone, as at the socket
        identity = await identify(request)
        seat = player_seat(game.row, identity.player.id if identity else None)
    if seat == game.row.ai_seat:
        seat = None
    return web.json_response({"game": game_id, "seat": seat}, headers={"Cache-Control": "no-store"})


async def _finished(request: web.Request, during: str = "its cards are still hidden") -> LiveGame:
    """The finished game the request names; ``during`` says why it is refused while in play."""
    service = request.app[SERVICE]
    game_id = request.match_info["game"]
    game = await service.get(game_id)
    if game is None:
        raise WebError("not-found", f"there is no game {show(game_id)}")
    if not game.state.is_over:
        raise WebError("not-allowed", f"the game is not finished: {during}")
    if game.row.withdrawn:  # as the list of one's games says
        raise WebError(
            "withdrawn",
            "the invitation was withdrawn before anyone took the other seat: "
            "nothing was played, there is nothing to review",
        )
    return game


def _api(
    handler: Callable[[web.Request], Awaitable[web.StreamResponse]],
) -> Callable[[web.Request], Awaitable[web.StreamResponse]]:
    async def wrapped(request: web.Request) -> web.StreamResponse:
        if not _GAME_ID.fullmatch(request.match_info.get("game", "x")):
            return _json_error("not-found", "there is no such game")
        try:
            return await handler(request)
        except WebError as e:
            return _json_error(e.code, e.message, retry_after=e.retry_after)

    return wrapped


async def _record(request: web.Request) -> web.StreamResponse:
    game = await _finished(request)
    text = request.app[SERVICE].record(game).dumps()
    return web.Response(
        text=text,
        content_type="application/json",
        headers={"Content-Disposition": f'attachment; filename="hanamikoji-{game.id}.json"'},
    )


async def _viewer_seat(request: web.Request, row: GameRow) -> int | None:
    """The seat of a finished game the request comes from (cookie, ``?t=``, session), or None;
    never a deleted account's seat: its link, kept by anyone, read the players' private chat."""
    token = request.cookies.get(cookie_name(row.id)) or request.query.get("t")
    seat = token_seat(row, token)
    if seat is None:
        identity = await identify(request)
        seat = player_seat(row, identity.player.id if identity else None)
    player = None if seat is None else row.players[seat]
    if player is not None:
        flags = (await request.app[SERVICE].store.chat_flags([player])).get(player, ChatFlags())
        if flags.deleted:
            return None
    return seat


async def _review(request: web.Request) -> web.StreamResponse:
    game = await _finished(request)
    row = game.row
    seat = await _viewer_seat(request, row)
    meta: dict[str, Any] = {
        "seat": seat,
        "id": row.id,
        "mode": row.mode,
        "level": row.level,
        "names": list(row.names),
        "rules": {"max_rounds": row.max_rounds},
        "result": row.result,
    }
    add_usernames(meta, await lookup_seat_accounts(request.app[SERVICE].store, game))
    bots = request.app[SERVICE].bot_seats(game)
    if any(bots):  # a bot is marked in the review too (docs/bots.md)
        meta["bots"] = bots
    record = request.app[SERVICE].record(game).to_json()
    return web.json_response({"game": meta, "record": record, "frames": review_frames(game.state)})


async def _analysis(request: web.Request) -> web.StreamResponse:
    await _finished(request)
    service = request.app[SERVICE]
    return web.json_response(await service.analysis(request.match_info["game"], client_of(request)))


async def _levels(request: web.Request) -> web.Response:
    return web.json_response({"levels": list(LEVELS), "default": DEFAULT_LEVEL})


# -- the WebSocket ---------------------------------------------------------------------------------


async def _socket(request: web.Request) -> web.StreamResponse:
    service = request.app[SERVICE]
    hub = request.app[HUB]
    game_id = request.match_info["game"]
    token = request.query.get("t") or request.cookies.get(cookie_name(game_id))
    # Without a link, the player's own seat opens (on any device they are signed in on); a link
    # decides alone, as it always has.
    identity = None if request.query.get("t") else await identify(request)
    ws = _Socket(heartbeat=30, max_msg_size=MAX_MESSAGE)
    await ws.prepare(request)
    try:
        if not _GAME_ID.fullmatch(game_id):
            raise WebError("not-found", "there is no such game")
        opened, seat = await service.seat_for(
            game_id, token, identity.player.id if identity else None
        )
        await _not_disabled(service, opened.row.players[seat])
    except WebError as e:
        await ws.send_json(_error(e.code, e.message))
        forbidden = e.code in ("bad-token", "disabled")
        await ws.close(code=4403 if forbidden else 4404, message=e.code.encode())
        return ws
    conn = Connection(ws, seat, transport=request.transport, client=client_of(request))
    conn.player = opened.row.players[seat]
    if identity is not None and token_seat(opened.row, token) is None:  # opened by the session
        conn.session = identity.session
    conn.start()
    if hub.on_connect is not None:
        hub.on_connect(conn)
    conns = hub.games.setdefault(game_id, set())
    was_here = hub.here(game_id, seat)
    was_online = hub.online(game_id, seat)
    same = sorted((c for c in conns if c.seat == seat), key=lambda c: c.opened)
    limit = request.app[SETTINGS].limits.sockets_per_seat
    for old in same[: max(0, len(same) - limit + 1)] if limit else ():
        conns.discard(old)
        hub.spawn(old.close(4409, "this seat was opened in too many windows: this one closed"))
    conns.add(conn)
    try:
        if not was_here:  # an absence (the claim) counts from a last sight; the others told
            await service.came(game_id, seat)
        if was_online:  # only this socket needs a state: nobody's view of the table changed
            game = await service.get(game_id)
            if game is not None:
                await conn.send(await hub.state_for(game, seat))
        else:
            await hub.publish(game_id)  # this seat's state; the opponent learns it is online
        while (msg := await conn.receive()) is not None:
            if msg.type == WSMsgType.TEXT:
                await _handle(hub, game_id, conn, msg.data)
            elif msg.type == WSMsgType.BINARY:
                await conn.send(_error("bad-request", "send JSON text messages, not binary"))
            elif msg.type == WSMsgType.ERROR:
                break
            await conn.caught_up()
    finally:
        conn.stop()
        held = hub.games.get(game_id)
        if held is not None:
            held.discard(conn)
            if not held:
                del hub.games[game_id]
        if not hub.here(game_id, seat):
            # Apart from this handler, which aiohttp cancels once the peer has gone.
            hub.spawn(_left(hub, game_id, seat))
    return ws


async def _left(hub: Hub, game_id: str, seat: int) -> None:
    """A seat's last socket here closed: record when (the abandonment claim counts from it),
    tell the other servers, and the opponent unless the seat is still connected to another."""
    if hub.here(game_id, seat):
        return  # back already (a reload)
    await hub.service.went(game_id, seat)
    if not hub.online(game_id, seat):
        await hub.publish(game_id)


async def _handle(hub: Hub, game_id: str, conn: Connection, text: str) -> None:
    service = hub.service
    try:
        data = read_json(text)
    except WebError as e:
        await conn.send(
            _error("bad-request", f'{e.message}: send a JSON object, e.g. {{"type": "ping"}}')
        )
        return
    if not isinstance(data, dict):
        await conn.send(_error("bad-request", _not_an_object(data)))
        return
    kind = data.get("type")
    if "game" in data and data["game"] != game_id:
        await conn.send(
            _error("wrong-game", f"this connection plays game {game_id}, not {show(data['game'])}")
        )
        return
    arrived = service.now_ms()  # a timed move is charged up to its arrival, not its turn
    try:
        if kind == "move":
            await service.play(game_id, conn.seat, data.get("move"), data.get("version"), arrived)
        elif kind == "undo":
            await service.undo(game_id, conn.seat, data.get("version"))
        elif kind == "resign":
            await service.resign(game_id, conn.seat)
        elif kind == "rematch":
            await service.rematch(game_id, conn.seat, conn.client)
        elif kind == "claim":
            await service.claim(game_id, conn.seat)
        elif kind == "hint":  # searched meanwhile: the socket goes on reading
            if conn.hinting:  # asked again meanwhile: the search running answers both
                conn.hint_again = True
            else:
                conn.hinting = True
                hub.spawn(_hint(service, game_id, conn))
        elif kind == "ping":
            await conn.send({"type": "pong"})
        elif kind in ("chat", "chat-history", "mute"):
            await _seat_chat(hub, game_id, conn, kind, data)
        else:
            await conn.send(
                _error(
                    "bad-request",
                    f"unknown message type {show(kind)}; expected move, undo, hint, resign, "
                    "claim, rematch, chat, chat-history, mute or ping",
                )
            )
    except WebError as e:
        await conn.send(_error(e.code, e.message))
        if e.code == "conflict" or kind == "claim":  # (a refused claim: the clock as it is)
            game = await service.get(game_id)
            if game is not None:
                await conn.send(await hub.state_for(game, conn.seat))


# -- chat (docs/web.md "Chat") --------------------------------------------------------------------


async def _not_disabled(service: GameService, player: str | None) -> None:
    """Refuse a seat whose player a moderator disabled, or whose account was deleted (its links
    kept by anyone would otherwise go on chatting and starting rematches in its place)."""
    if player is not None:
        flags = (await service.store.chat_flags([player])).get(player, ChatFlags())
        if flags.deleted:
            raise WebError("bad-token", DELETED_SEAT)
        if flags.disabled:
            raise WebError("disabled", DISABLED)


async def _moderated(app: web.Application, entry: ModerationRow) -> None:
    """Apply a new act of the moderation log to this process's sockets: a disabled player's
    close saying why (a bot's link is cut off, and its owner's bots'), a removed message leaves
    the pages (a mute refuses the next message by itself)."""
    if entry.action == "remove":
        await app[CHAT].removed(subject(entry))
        return
    if entry.action != "disable":
        return
    player = subject(entry)
    hub = app[HUB]
    # The games end first, and the player's own tables are told how (a loss by forfeit) before
    # their sockets close: closed first, a table kept the position, and never said the game was
    # lost (on another server the forfeit may be this one's news: sent all the same).
    await _forfeit_games(app[SERVICE], player)
    # Their bots are cut off below and refused at their next hello: their games go too (a
    # person playing one would wait on its clock, or for ever untimed).
    for bot in await app[SERVICE].store.bots_of(player):
        await _forfeit_games(app[SERVICE], bot.player_id)
    for game_id, held in list(hub.games.items()):
        if any(c.player == player for c in held):
            await hub.publish(game_id)
    for conn in _people_sockets(app):
        if conn.player == player:
            hub.spawn(conn.close(4403, DISABLED, "disabled"))
    await app[BOTS].disabled(player)


async def _forfeit_games(service: GameService, player: str) -> None:
    """A disabled player's (or their bot's) unfinished games are lost by forfeit: they can no
    longer come back to them, and their opponents would wait for ever (an untimed game between
    people has no claim).
    Every server does it as it applies the act; the first one ends each game."""
    tried: set[str] = set()
    while True:
        left = [r for r, _ in await service.store.player_games(player, "playing", 100)]
        left = [r for r in left if r.id not in tried]
        if not left:
            return
        for row in left:
            tried.add(row.id)
            try:
                await service.forfeit(row.id, row.players.index(player), "disabled")
            except WebError as e:  # over meanwhile (another server was first), or busy
                log.info("game %s not forfeited on disabling its player: %s", row.id, e.message)


def _people_sockets(app: web.Application) -> list[Connection]:
    """Every socket of this process that a browser holds: the seats', the spectators', the
    lobby's (not the bots')."""
    hub = app[HUB]
    conns = [c for held in hub.games.values() for c in held]
    conns += [c for held in hub.watchers.games.values() for c in held]
    conns += [lc.conn for lc in app[LOBBY].conns]
    return conns


SIGNED_OUT = "signed-out: the session this connection was opened by has ended"
SESSION_SWEEP_S = 30.0
"""How often a server asks which of its sockets' sessions have ended on another server."""


def _end_sockets(app: web.Application, ended: Callable[[Connection], bool]) -> int:
    """Close the sockets opened by a session that has ended (signed out, a new password, the
    account deleted): what it could do and see through them ends with it. A page reconnects by
    the browser's cookie as it is now (its new session, else none). How many were closed."""
    hub = app[HUB]
    closing = [c for c in _people_sockets(app) if c.session is not None and ended(c)]
    for conn in closing:
        conn.session = None  # closed once, however many sweeps see it before it is gone
        hub.spawn(conn.close(4401, SIGNED_OUT, "signed-out"))
    return len(closing)


async def _sweep_sessions(app: web.Application) -> int:
    """Close this server's sockets whose session ended elsewhere (another server signed it out);
    how many."""
    opened = {c.session for c in _people_sockets(app) if c.session is not None}
    if not opened:
        return 0
    live = await app[ACCOUNTS].store.live_sessions(sorted(opened))
    return _end_sockets(app, lambda c: c.session not in live)


async def _sweeping(app: web.Application, every: float) -> None:
    while True:
        await asyncio.sleep(every)
        try:
            await _sweep_sessions(app)
        except Exception:  # a database hiccup: the next sweep asks again
            log.exception("checking the sockets' sessions failed")


def _chat_error(e: WebError) -> dict[str, Any]:
    """A refused chat message: the error, marked as the chat's, with when to try again."""
    retry = {"retry_after": e.retry_after} if e.retry_after is not None else {}
    return _error(e.code, e.message) | {"about": "chat"} | retry


async def _seat_chat(
    hub: Hub, game_id: str, conn: Connection, kind: str, data: dict[str, Any]
) -> None:
    """A seat's chat: a message to the players' room, the room again, or a mute of the opponent."""
    try:
        game = await hub.service.get(game_id)
        if hub.chat is None or game is None:
            raise WebError("not-found", "there is no such game")
        if room_of(data) != "players":
            when = "" if game.state.is_over else ", once the game is over"
            raise WebError(
                "not-allowed",
                "the spectators' room is the spectators' own: a player reads it in the game's "
                f"review{when} (/review/{game_id})",
            )
        player = game.row.players[conn.seat]
        if kind == "chat":
            key = player or f"{game_id}:{conn.seat}"
            author = Author(conn.seat, player, game.row.names[conn.seat], key)
            await hub.chat.post(game, "players", author, data)
        elif kind == "chat-history":
            await conn.send(await hub.chat.history(game.row, "players", conn.seat, player))
        else:
            await hub.chat.mute(game, conn.seat, data.get("on"))
    except WebError as e:
        await conn.send(_chat_error(e))


def _holds_seat(request: web.Request, row: GameRow, player: str | None) -> bool:
    """Whether the request comes from a player of the game (by the seat's cookie, its link's
    token in the address, or the session)."""
    held = (request.cookies.get(cookie_name(row.id)), request.query.get("t"))
    return any(token_seat(row, t) is not None for t in held) or player_seat(row, player) is not None


async def _watcher_chat(request: web.Request, game_id: str, conn: Connection, text: str) -> bool:
    """A spectator's message to the spectators' room (``"room": "spectators"``): a message, or
    the room (joining it); False: not one of those (the spectator's other answers apply)."""
    try:
        data = read_json(text)
    except WebError:
        return False
    if not isinstance(data, dict) or data.get("room") != "spectators":
        return False
    kind = data.get("type")
    if kind not in ("chat", "chat-history") or data.get("game", game_id) != game_id:
        return False  # (another game's: the spectator's other answers say so)
    chat = request.app[CHAT]
    try:
        game = await request.app[SERVICE].get(game_id)
        if game is None:
            raise WebError("not-found", "there is no such game")
        identity = await identify(request)
        player = identity.player if identity is not None else None
        pid = player.id if player is not None else None
        if not game.state.is_over and _holds_seat(request, game.row, pid):
            raise WebError(
                "not-allowed",
                "you play this game: its spectators' room is theirs until the game is over",
            )
        if kind == "chat-history":
            chat.join(conn, game_id, pid)
            await conn.send(await chat.history(game.row, "spectators", None, pid))
            return True
        if player is None:
            raise WebError(
                "not-allowed",
                "open the game's page in a browser to talk: a spectator needs a visitor's session",
            )
        author = Author(None, player.id, player.username or "", player.id, client_of(request))
        await chat.post(game, "spectators", author, data)
    except WebError as e:
        await conn.send(_chat_error(e))
    return True


async def _my_chat(request: web.Request) -> web.Response:
    """``GET``/``POST /api/me/chat``: the visitor's chat preference (``{"chat": true}``)."""
    identity = await identify(request, create=True)
    if identity is None:
        raise WebError("too-many", "too many new visitors from your address: try again soon", 60)
    store = request.app[SERVICE].store
    pid = identity.player.id
    if request.method == "POST":
        body = await _body(request, '{"chat": false}')
        _only(body, ("chat",))
        on = body.get("chat")
        if not isinstance(on, bool):
            raise WebError("bad-request", f"chat must be true or false, got {show(on)}")
        await store.set_chat_off(pid, not on)
    flags = (await store.chat_flags([pid])).get(pid, ChatFlags())
    return web.json_response({"chat": not flags.chat_off})


async def _game_chat(request: web.Request) -> web.StreamResponse:
    """A finished game's rooms for its review: the players' to its players only."""
    game = await _finished(
        request,
        "its chat is read here for the review once it is over; during play it comes "
        "with the game, on the seat's or the spectators' socket",
    )
    identity = await identify(request)
    pid = identity.player.id if identity is not None else None
    seat = await _viewer_seat(request, game.row)
    return web.json_response(await request.app[CHAT].review(game.row, seat, pid))


async def _hint(service: GameService, game_id: str, conn: Connection) -> None:
    """Answer a seat's hint; asked again while it was searched, once more unless the game is
    still where the answer was made (a move made meanwhile: the hint for the position now)."""
    try:
        while True:
            conn.hint_again = False
            try:
                answer = await service.hint(game_id, conn.seat)
            except WebError as e:
                answer = _error(e.code, e.message)
            await conn.send(answer)
            if not conn.hint_again:
                return
            game = await service.get(game_id)
            if game is None or answer.get("version") == game.row.version:
                return  # asked again for the position just answered
    finally:
        conn.hinting = False


# -- spectators (docs/web.md "Watching a game") ---------------------------------------------------

GAMES_ON = web.AppKey("games_on", GamesOn)

_NOT_FOR_SPECTATORS = {
    "move": "move",
    "undo": "take a move back",
    "hint": "ask for a hint",
    "resign": "resign",
    "claim": "claim the game",
    "rematch": "ask for a rematch",
    "chat": "talk to the players",
    "mute": "mute a player",
}


async def _watch_socket(request: web.Request) -> web.StreamResponse:
    """A spectator's connection: the public view on connecting and after every change."""
    service = request.app[SERVICE]
    hub = request.app[HUB]
    game_id = request.match_info["game"]
    client = client_of(request)
    ws = _Socket(heartbeat=30, max_msg_size=MAX_MESSAGE)
    await ws.prepare(request)
    try:
        if not _GAME_ID.fullmatch(game_id) or await service.get(game_id) is None:
            raise WebError("not-found", "there is no such game")
        try:
            hub.watchers.admit(game_id, client)
        except TooMany as e:
            log.info("refused a spectator of %s: %s", client, e.message)
            raise WebError("too-many", e.message, e.retry_after) from None
    except WebError as e:
        await ws.send_json(_error(e.code, e.message))
        await ws.close(code=4404 if e.code == "not-found" else 4429, message=e.code.encode())
        return ws
    conn = Connection(ws, -1, transport=request.transport, client=client)  # -1: no seat
    identity = await identify(request)
    conn.player = identity.player.id if identity is not None else None
    conn.session = identity.session if identity is not None else None
    conn.start()
    if hub.on_connect is not None:
        hub.on_connect(conn)
    hub.watchers.add(game_id, client, conn)
    try:
        game = await service.get(game_id)  # read once counted: no change can fall between
        if game is not None:
            await conn.send(await hub.spectator_state(game))
        while (msg := await conn.receive()) is not None:
            if msg.type == WSMsgType.TEXT:
                if not await _watcher_chat(request, game_id, conn, msg.data):
                    await conn.send(_spectator_answer(msg.data, game_id))
            elif msg.type == WSMsgType.BINARY:
                await conn.send(_error("bad-request", "send JSON text messages, not binary"))
            elif msg.type == WSMsgType.ERROR:
                break
            await conn.caught_up()
    finally:
        conn.stop()
        hub.watchers.discard(game_id, client, conn)
    return ws


def _not_an_object(data: Any) -> str:
    """What a socket says of valid JSON that is not an object (a list, a string, null...)."""
    kinds = {list: "a list", str: "a string", bool: "true or false", type(None): "null"}
    what = kinds.get(type(data), "a number")
    return f'a message is a JSON object, e.g. {{"type": "ping"}}; this one is {what}'


def _spectator_answer(text: str, game_id: str) -> dict[str, Any]:
    """A spectator may only ping: anything a player would send is refused, saying why."""
    try:
        data = read_json(text)
    except WebError as e:
        return _error("bad-request", f'{e.message}: send a JSON object, e.g. {{"type": "ping"}}')
    if not isinstance(data, dict):
        return _error("bad-request", _not_an_object(data))
    if "game" in data and data["game"] != game_id:  # as a seat's socket answers
        return _error(
            "wrong-game", f"this connection watches game {game_id}, not {show(data['game'])}"
        )
    kind = data.get("type")
    if kind == "ping":
        return {"type": "pong"}
    if kind == "chat-history":
        return _error(
            "bad-request",
            'a spectator reads the spectators\' room: send {"type": "chat-history", "room": '
            '"spectators"}',
        )
    if isinstance(kind, str) and kind in _NOT_FOR_SPECTATORS:
        what = _NOT_FOR_SPECTATORS[kind]
        return _error(
            "spectator", f"you are watching this game: a spectator cannot {what}; nothing changed"
        )
    return _error(
        "bad-request",
        f"unknown message type {show(kind)}; a spectator may only ping, or chat with "
        '"room": "spectators"',
    )


async def _games_on(request: web.Request) -> web.Response:
    return web.json_response(await request.app[GAMES_ON].listing())


async def _profile(request: web.Request) -> web.Response:
    store = request.app[SERVICE].store
    return web.json_response(await profiles.profile(store, request.match_info["name"]))


async def _leaders(request: web.Request) -> web.Response:
    family = request.query.get("family", "real-time")
    return web.json_response(await profiles.leaderboard(request.app[SERVICE].store, family))


# -- the lobby (docs/web.md "The lobby") ----------------------------------------------------------


def _lobby_player(identity: Identity | None) -> tuple[str | None, str | None]:
    """The visitor's player id and folded user name (for what the lobby shows them)."""
    if identity is None:
        return None, None
    player = identity.player
    return player.id, username_key(player.username) if player.username else None


async def _lobby(request: web.Request) -> web.Response:
    identity = await identify(request)
    return web.json_response(await request.app[LOBBY].lobby.listing(_player_of(identity)))


def _player_of(identity: Identity | None) -> Any:
    return identity.player if identity is not None else None


_CHALLENGE_KEYS = ("control", "max_rounds", "rated", "seat", "to")


async def _new_challenge(request: web.Request) -> web.Response:
    body = await _body(request, '{"control": "3+2", "max_rounds": 3, "rated": false}')
    _only(body, _CHALLENGE_KEYS)
    identity = await identify(request, create=True)
    lobby = request.app[LOBBY].lobby
    made = await lobby.create(_player_of(identity), body)
    pid, key = _lobby_player(identity)
    return web.json_response(
        {"challenge": await show_challenge(lobby.store, made, pid, key)}, status=201
    )


def _challenge_id(request: web.Request) -> str:
    challenge_id = request.match_info["challenge"]
    if not _GAME_ID.fullmatch(challenge_id):
        raise WebError("not-found", "there is no such challenge")
    return challenge_id


async def _accept_challenge(request: web.Request) -> web.Response:
    challenge_id = _challenge_id(request)
    _only(await _body(request, "{}"), ())
    identity = await identify(request, create=True)
    lobby = request.app[LOBBY].lobby
    game, seat = await lobby.accept(_player_of(identity), challenge_id, client_of(request))
    return _seat_answer(request, game, seat)


def _seat_answer(request: web.Request, game: LiveGame, seat: int) -> web.Response:
    """``201`` with a seat of a new game and its cookie, as a created game's answer."""
    token = game.row.tokens[seat]
    answer = {"game": game.id, "seat": seat, "token": token, "url": f"/g/{game.id}?t={token}"}
    response = web.json_response(answer, status=201)
    _set_seat_cookie(request, response, game.id, token)
    return response


async def _cancel_challenge(request: web.Request) -> web.Response:
    challenge_id = _challenge_id(request)
    _only(await _body(request, "{}"), ())
    identity = await identify(request)
    lobby = request.app[LOBBY].lobby
    cancelled = await lobby.cancel(_player_of(identity), challenge_id)
    pid, key = _lobby_player(identity)
    return web.json_response({"challenge": await show_challenge(lobby.store, cancelled, pid, key)})


async def _play_now(request: web.Request) -> web.Response:
    body = await _body(request, '{"control": "3+2", "max_rounds": 3, "rated": false}')
    _only(body, ("control", "max_rounds", "rated"))
    identity = await identify(request, create=True)
    lobby = request.app[LOBBY].lobby
    found = await lobby.play_now(_player_of(identity), body, client_of(request))
    if isinstance(found, ChallengeRow):
        pid, key = _lobby_player(identity)
        return web.json_response(
            {"challenge": await show_challenge(lobby.store, found, pid, key)}, status=202
        )
    game, seat = found
    return _seat_answer(request, game, seat)


async def _lobby_socket(request: web.Request) -> web.StreamResponse:
    """The lobby's live updates (``hanamikoji-lobby/1``): the list on connecting, then each
    challenge as it comes and goes; the players of an accepted one are sent to their game."""
    hub = request.app[LOBBY]
    identity = await identify(request)
    pid, key = _lobby_player(identity)
    ws = _Socket(heartbeat=30, max_msg_size=MAX_MESSAGE)
    await ws.prepare(request)
    conn = Connection(ws, -1, transport=request.transport, client=client_of(request), player=pid)
    conn.session = identity.session if identity is not None else None
    conn.start()
    here = LobbyConnection(conn, pid, key)
    hub.conns.add(here)
    try:
        if pid is not None:  # back in the lobby: their real-time challenges live on
            await hub.lobby.store.touch_challenges([pid], hub.lobby.games.now_ms())
        await here.open(await hub.lobby.listing(_player_of(identity)))
        while (msg := await conn.receive()) is not None:
            if msg.type == WSMsgType.ERROR:
                break
            if msg.type == WSMsgType.BINARY:
                await conn.send(_error("bad-request", "send JSON text messages, not binary"))
            elif msg.type == WSMsgType.TEXT:
                await conn.send(_lobby_answer(msg.data))
            await conn.caught_up()
    finally:
        conn.stop()
        hub.conns.discard(here)
    return ws


def _lobby_answer(text: str) -> dict[str, Any]:
    """The lobby socket's answer to a client's message: it only pings; anything else is refused,
    saying what was wrong with it."""
    only = 'the lobby socket only answers {"type": "ping"}'
    try:
        data = read_json(text)
    except WebError as e:
        return _error("bad-request", f"{e.message}: {only}")
    if not isinstance(data, dict):
        return _error("bad-request", _not_an_object(data))
    if data.get("type") == "ping":
        return {"type": "pong"}
    return _error("bad-request", f"unknown message type {show(data.get('type'))}: {only}")


# -- bots (docs/bots.md) ---------------------------------------------------------------------------

BOTS = web.AppKey("bots", BotHub)


@dataclass(eq=False)
class _BotWire:
    """A bot's WebSocket as the bot hub reads it (hanamikoji.web.bots.Wire)."""

    conn: Connection

    async def send(self, message: dict[str, Any]) -> None:
        await self.conn.send(message)

    async def receive(self) -> str | None:
        while True:
            msg = await self.conn.ws.receive()
            if msg.type == WSMsgType.TEXT:
                return str(msg.data)
            if msg.type != WSMsgType.BINARY:
                return None  # closed, or broken
            await self.conn.send(_error("bad-request", "send JSON text messages, not binary"))

    async def close(self, code: int, why: str) -> None:
        with contextlib.suppress(Exception):  # what was queued leaves before the closing frame
            await asyncio.wait_for(self.conn.queue.join(), 2)
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.conn.ws.close(code=code, message=why.encode()[:100]), 2)
        self.conn.drop()


async def _bot_socket(request: web.Request) -> web.StreamResponse:
    """A bot's bridge (``hanamikoji-bot/1``): its token in the first message, then its games."""
    ws = _Socket(heartbeat=30, max_msg_size=MAX_MESSAGE)
    await ws.prepare(request)
    conn = Connection(ws, -1, transport=request.transport, client=client_of(request))
    conn.start()
    try:
        await request.app[BOTS].serve(_BotWire(conn))
    finally:
        conn.stop()
    return ws


async def _my_bots(request: web.Request) -> web.Response:
    identity = await _signed_in(request)
    return web.json_response(await request.app[BOTS].mine(identity.player))


async def _new_bot(request: web.Request) -> web.Response:
    body = await _body(request, '{"username": "my_bot", "accepts": {"controls": ["3+2"]}}')
    _only(body, ("username", "accepts"))
    identity = await _signed_in(request)
    return web.json_response(await request.app[BOTS].create(identity.player, body), status=201)


async def _bot_token(request: web.Request) -> web.Response:
    await _body(request, "{}")
    identity = await _signed_in(request)
    bots = request.app[BOTS]
    return web.json_response(await bots.new_token(identity.player, request.match_info["name"]))


async def _bot_revoke(request: web.Request) -> web.Response:
    await _body(request, "{}")
    identity = await _signed_in(request)
    bots = request.app[BOTS]
    return web.json_response(await bots.revoke(identity.player, request.match_info["name"]))


async def _bot_settings(request: web.Request) -> web.Response:
    body = await _body(request, '{"accepts": {"controls": ["real-time"], "games": 2}}')
    _only(body, ("accepts",))
    identity = await _signed_in(request)
    bots = request.app[BOTS]
    return web.json_response(await bots.settings(identity.player, request.match_info["name"], body))


# -- identity and accounts (docs/web.md "Identity and your games") --------------------------------

ACCOUNTS = web.AppKey("accounts", Accounts)


def _request_key(name: str, kind: Any) -> Any:
    """A key of a request's storage: typed from aiohttp 3.14 (which warns of plain strings)."""
    typed = getattr(web, "RequestKey", None)
    return typed(name, kind) if typed is not None else name


_IDENTITY = _request_key("identity", object)  # the request's Identity (or None), once looked up
_SESSION = _request_key("session", object)  # the session cookie to send: (id, days), None: end it


async def identify(request: web.Request, *, create: bool = False) -> Identity | None:
    """The player the request comes from (by the session cookie); with ``create``, a visitor
    without one becomes a guest (unless their address had too many new guests this minute)."""
    if _IDENTITY in request:
        known: Identity | None = request[_IDENTITY]
        if known is not None or not create:
            return known
    accounts = request.app[ACCOUNTS]
    identity = None
    cookie = request.cookies.get(SESSION_COOKIE)
    if _IDENTITY not in request:
        identity = await accounts.identify(cookie)
    if identity is None and create:
        if await accounts.replaced(cookie):
            # Sent before this browser signed up or in: a new guest's cookie would take the
            # new session's place. A page or a read is answered as to nobody (the page's own
            # requests carry the new cookie); an act is refused, saying why.
            request[_IDENTITY] = None
            if request.method not in ("GET", "HEAD"):
                raise WebError("session-changed", SESSION_CHANGED)
            return None
        identity = await accounts.guest(client_of(request))
    _remember(request, identity)
    return identity


def _remember(request: web.Request, identity: Identity | None) -> None:
    """This request now comes from ``identity`` (its session cookie is sent, if new or renewed)."""
    request[_IDENTITY] = identity
    if identity is not None and identity.cookie:
        request[_SESSION] = (identity.cookie, identity.days)


def _forget(request: web.Request) -> None:
    """The browser is nobody now: its session cookie and its seats' cookies are cleared."""
    request[_IDENTITY] = None
    request[_SESSION] = None


async def _session_cookie(request: web.Request, response: web.StreamResponse) -> None:
    """Send the session cookie a handler chose (HttpOnly, SameSite=Lax, Secure over HTTPS).

    Written as headers: by the time this runs, aiohttp has turned ``set_cookie`` into them.
    """
    if _SESSION not in request:
        return
    chosen = request[_SESSION]
    if chosen is None:
        names = [SESSION_COOKIE, *(n for n in request.cookies if n.startswith("hk_"))]
        for name in names:  # the seats this browser held too: their links still open them
            response.headers.add("Set-Cookie", _cookie(request, name, "", 0))
        return
    session_id, days = chosen
    response.headers.add("Set-Cookie", _cookie(request, SESSION_COOKIE, session_id, days * 86400))


def _cookie(request: web.Request, name: str, value: str, max_age: int) -> str:
    """A ``Set-Cookie`` value as the seats' cookies are made (``max_age`` 0: delete it)."""
    jar: SimpleCookie = SimpleCookie()
    jar[name] = value
    morsel = jar[name]
    morsel["path"] = "/"
    morsel["httponly"] = True
    morsel["samesite"] = "Lax"
    morsel["max-age"] = max_age
    if max_age == 0:
        morsel["expires"] = "Thu, 01 Jan 1970 00:00:00 GMT"
    if request.app[SETTINGS].https:
        morsel["secure"] = True
    return morsel.OutputString()


def _name_for(identity: Identity | None, body: dict[str, Any]) -> Any:
    """The name a new seat shows: the one typed, else the player's (as sent: the service checks
    it)."""
    if "name" not in body:
        return identity.player.name if identity else None
    return body["name"]


async def _may_name(request: web.Request, identity: Identity | None, body: dict[str, Any]) -> None:
    """Refuse a name typed for a new seat that the player may not take (a muted player's new
    one), before the seat is made with it: checked only after, the game was made all the same,
    the name on its seat for the opponent to read."""
    if "name" in body and identity is not None:
        await request.app[ACCOUNTS].check_rename(identity, body["name"])


async def _keep_name(request: web.Request, identity: Identity | None, body: dict[str, Any]) -> None:
    """Keep the name typed as the player's, once the seat it was typed for is made: a refused
    request renames no one."""
    if "name" in body and identity is not None:
        await request.app[ACCOUNTS].rename(identity, body["name"])


def _only(body: dict[str, Any], keys: tuple[str, ...]) -> None:
    unknown = [k for k in body if k not in keys]
    if unknown:
        expected = ", ".join(keys) or "none: send {}"
        raise WebError(
            "bad-request", f"unknown keys {show(sorted(unknown), 80)}; expected {expected}"
        )


def _me_json(identity: Identity | None) -> dict[str, Any]:
    player = identity.player if identity else None
    return {
        "name": player.name if player else None,
        "username": player.username if player else None,
        "account": bool(player and player.is_account),
    }


async def _me(request: web.Request) -> web.Response:
    return web.json_response(_me_json(await identify(request, create=True)))


async def _set_me(request: web.Request) -> web.Response:
    body = await _body(request, '{"name": "Anna"}')
    _only(body, ("name",))
    identity = await identify(request, create=True)
    if identity is None:
        raise WebError("too-many", "too many new visitors from your address: try again soon", 60)
    return web.json_response(
        {"name": await request.app[ACCOUNTS].rename(identity, body.get("name"))}
    )


async def _my_games(request: web.Request) -> web.Response:
    text = request.query.get("offset", "0")
    if not (text.isascii() and text.isdigit() and len(text) <= 6):
        raise WebError("bad-request", f"offset must be a whole number (e.g. 10), got {show(text)}")
    identity = await identify(request)
    return web.json_response(await request.app[ACCOUNTS].games_of(identity, int(text)))


async def _new_account(request: web.Request) -> web.Response:
    body = await _body(request, '{"username": "anna", "password": "..."}')
    _only(body, ("username", "password"))
    opened = await request.app[ACCOUNTS].create(
        await identify(request), body.get("username"), body.get("password"), client_of(request)
    )
    _remember(request, opened)
    return web.json_response(_me_json(opened), status=201)


async def _sign_in(request: web.Request) -> web.Response:
    body = await _body(request, '{"username": "anna", "password": "..."}')
    _only(body, ("username", "password"))
    opened = await request.app[ACCOUNTS].sign_in(
        await identify(request), body.get("username"), body.get("password"), client_of(request)
    )
    _remember(request, opened)
    return web.json_response(_me_json(opened))


async def _signed_in(request: web.Request) -> Identity:
    identity = await identify(request)
    if identity is None or not identity.player.is_account:
        raise WebError("not-signed-in", "you are not signed in to an account")
    return identity


async def _sign_out(request: web.Request) -> web.Response:
    await _body(request, "{}")
    identity = await _signed_in(request)
    await request.app[ACCOUNTS].sign_out(identity)
    _end_sockets(request.app, lambda c: c.session == identity.session)
    _forget(request)
    return web.json_response(_me_json(None))


async def _new_password(request: web.Request) -> web.Response:
    body = await _body(request, '{"password": "...", "new_password": "..."}')
    _only(body, ("password", "new_password"))
    identity = await _signed_in(request)
    opened = await request.app[ACCOUNTS].change_password(
        identity, body.get("password"), body.get("new_password")
    )
    # Every session of the account ended: their sockets too (the other servers' at their sweep).
    _end_sockets(request.app, lambda c: c.player == identity.player.id)
    _remember(request, opened)
    return web.json_response(_me_json(opened))


async def _delete_account(request: web.Request) -> web.Response:
    body = await _body(request, '{"password": "..."}')
    _only(body, ("password",))
    identity = await _signed_in(request)
    await request.app[ACCOUNTS].delete(identity, body.get("password"))
    player = identity.player.id
    # The seats opened by their links close too, not only the sessions' sockets (another
    # server's stay open until they reconnect, refused all they could do meanwhile).
    by_link = [c for c in _people_sockets(request.app) if c.player == player and not c.session]
    _end_sockets(request.app, lambda c: c.player == player)
    for conn in by_link:
        request.app[HUB].spawn(conn.close(4403, DELETED_SEAT, "bad-token"))
    await request.app[BOTS].deleted(identity.player.id)
    _forget(request)
    return web.json_response(_me_json(None))


# -- the application -------------------------------------------------------------------------------


_SAFE_METHODS = ("GET", "HEAD", "OPTIONS")


@web.middleware
async def _guard(
    request: web.Request, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]
) -> web.StreamResponse:
    """Refuse what another site's page may not do, and answer every error as JSON or text."""
    upgrade = request.headers.get("Upgrade", "").lower() == "websocket"
    if (request.method not in _SAFE_METHODS or upgrade) and not _origin_allowed(request):
        log.info(
            "refused %s %s from origin %s (client %s)",
            request.method,
            show(request.path, 80),
            show(request.headers.get("Origin"), 80),
            client_of(request),
        )
        return _json_error(
            "bad-origin",
            "this request comes from a page of another site; open the game from this server",
        )
    try:
        return await handler(request)
    except WebError as e:
        field = e.field if isinstance(e, FieldError) else None
        return _json_error(e.code, e.message, retry_after=e.retry_after, field=field)
    except web.HTTPNotFound:
        if not request.path.startswith("/api/"):
            raise
        # A program asked: the API's own answer (JSON with a code), not a page's.
        return _json_error("not-found", f"there is no API {_as_sent(request)}")
    except web.HTTPMethodNotAllowed as e:
        if not request.path.startswith("/api/"):
            raise
        allowed = ", ".join(sorted(e.allowed_methods))
        response = _json_error(
            "not-allowed",
            f"{request.method} is not allowed on {_as_sent(request)}; allowed: {allowed}",
            status=405,
        )
        response.headers["Allow"] = allowed
        return response


def _as_sent(request: web.Request) -> str:
    """The request's path as the client sent it (still %-encoded: ``request.path`` is decoded,
    ``/api/players/%2e%2e`` read as ``/api/players/..``), without its query (which may hold a
    seat's token), shortened for a message."""
    return show(request.raw_path.partition("?")[0].partition("#")[0], 60)


def _origin_allowed(request: web.Request) -> bool:
    """Whether the request's ``Origin`` (browsers send it) is this server's or an allowed one.

    A request without ``Origin`` is not a browser's cross-site request (those always carry it).
    """
    origin = request.headers.get("Origin")
    if origin is None:
        return True
    settings = request.app[SETTINGS]
    allowed = set(settings.allowed_origins)
    if settings.public_url:
        allowed.add(origin_of(settings.public_url))
    allowed.add(f"{request.scheme}://{request.host}".lower())
    return origin.strip().lower() in allowed


_CSP = (
    "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; "
    "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"
)


def harden(headers: Any, *, https: bool) -> None:
    """The headers every response carries: no framing, no sniffing, no referrer, no version in
    ``Server``; HSTS when people reach the server over HTTPS."""
    headers["Server"] = "hanamikoji"
    headers.setdefault("Content-Security-Policy", _CSP)
    headers.setdefault("X-Content-Type-Options", "nosniff")
    headers.setdefault("X-Frame-Options", "DENY")
    headers.setdefault("Referrer-Policy", "no-referrer")
    headers.setdefault("Cross-Origin-Opener-Policy", "same-origin")
    if https:
        headers.setdefault("Strict-Transport-Security", "max-age=31536000")


async def _security_headers(request: web.Request, response: web.StreamResponse) -> None:
    """Every response of the application, error pages included; the API's answers, which are
    the visitor's own (their games, their seat, their account), are never kept by a cache; the
    scripts and styles are asked again each time (a 304 while unchanged), so that a returning
    browser never runs last version's script against this version's server."""
    harden(response.headers, https=request.app[SETTINGS].https)
    if "Cache-Control" in response.headers:
        return
    if request.path.startswith("/api/"):
        response.headers["Cache-Control"] = "no-store"
    elif request.path.startswith("/static/"):
        response.headers["Cache-Control"] = "no-cache"


_QUOTED_BYTES = re.compile(r"""b(['"]).*""", re.DOTALL)
"""From where an error of aiohttp's quotes the request's own bytes, to its end."""
MAX_FIELD = 16 * 1024
"""The longest request line or header (aiohttp's default is 8 KB, which some 190 seats' cookies
of one browser fill)."""


class _Handler(web.RequestHandler):
    """aiohttp's connection handler; its own answers to malformed requests (which never reach
    the application) get the same headers."""

    https = False

    def log_exception(self, *args: Any, **kw: Any) -> None:
        """A malformed request is the client's fault: one line at info, not a traceback."""
        error = kw.get("exc_info")
        if isinstance(error, (HttpProcessingError, web.RequestPayloadError, ConnectionError)):
            # aiohttp quotes the offending bytes (a cookie header: a session id, a seat's link):
            # never into the log, which is no place for them
            said = _QUOTED_BYTES.sub("[the request's bytes, not logged]", str(error))
            log.info("malformed request: %s", show(said, 120))
            return
        super().log_exception(*args, **kw)

    def handle_error(
        self,
        request: web.BaseRequest,
        status: int = 500,
        exc: BaseException | None = None,
        message: str | None = None,
    ) -> web.StreamResponse:
        response = super().handle_error(request, status, exc, message)
        if status < 500 and isinstance(response, web.Response):
            response.text = f"{status} Bad Request: this is not a request this server understands"
        harden(response.headers, https=self.https)
        return response


class _Server(web.Server):
    def __call__(self) -> web.RequestHandler:
        return _Handler(self, loop=self._loop, **self._kwargs)


class _Runner(web.AppRunner):
    """The application runner whose connections are :class:`_Handler` s."""

    async def _make_server(self) -> web.Server:
        server = await super()._make_server()
        server.__class__ = _Server  # same state, one method more
        return server


def create_app(
    service: GameService, settings: Settings | None = None, *, house_bots: bool = False
) -> web.Application:
    """The web application over ``service`` (started and closed with the app); ``house_bots``:
    the AI levels play in the lobby as bots (docs/bots.md)."""
    app = web.Application(middlewares=[_guard], client_max_size=64 * 1024)
    hub = Hub(service)
    app[SERVICE] = service
    app[HUB] = hub
    app[SETTINGS] = settings or Settings(limits=service.limits.limits)
    app[ACCOUNTS] = Accounts(service, app[SETTINGS].limits)
    hub.watchers = Watchers(app[SETTINGS].limits)
    app[GAMES_ON] = GamesOn(service, hub.watchers.count)
    app[CHAT] = hub.chat = chat = ChatRooms(
        service,
        seats=lambda game_id: hub.games.get(game_id, ()),
        watchers=lambda game_id: hub.watchers.games.get(game_id, ()),
    )
    lobby = Lobby(service)
    app[LOBBY] = lobby_hub = LobbyHub(lobby)
    app.on_response_prepare.append(_security_headers)
    app.on_response_prepare.append(_session_cookie)
    service.publish = hub.publish
    service.online = hub.online
    service.connected = hub.connected
    lobby.publish = lobby_hub.publish
    lobby.present = lobby_hub.present
    app[BOTS] = bots = BotHub(service, lobby)
    hub.bot_online = bots.online
    hub.bot_seats = service.bot_seats = bots.seats
    service.screen_rematch = bots.screen_rematch
    service.publish = _then(hub.publish, bots.game_changed)
    service.connected = lambda: sorted(set(hub.connected()) | set(bots.connected()))
    lobby.publish = _then(lobby_hub.publish, bots.challenge_changed)
    lobby.screen = bots.screen
    lobby.bots = bots.listing

    async def bots_changed() -> None:
        message = {"type": "bots", "bots": await bots.listing()}
        for lc in list(lobby_hub.conns):
            await lc.send(message)

    bots.on_change = bots_changed

    async def moderated(entry: ModerationRow) -> None:
        await _moderated(app, entry)

    follower = Follower(service.store, moderated)

    async def lifecycle(app: web.Application) -> AsyncIterator[None]:
        await service.start(lobby=lobby.changed_elsewhere)
        await bots.load()
        if house_bots:
            await bots.start_house()
        await chat.start()
        await follower.start()
        sweeper = asyncio.create_task(_sweeping(app, SESSION_SWEEP_S))
        yield
        sweeper.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await sweeper
        await follower.close()
        await chat.close()
        await bots.close()
        await service.close()

    async def going_away(app: web.Application) -> None:
        """Close every socket first, so that browsers reconnect (to this server restarted, or
        another one) at once instead of the shutdown waiting for them."""
        for conns in list(hub.games.values()):
            for conn in list(conns):
                await conn.ws.close(code=1001, message=b"server shutdown")
        for lc in list(lobby_hub.conns):
            await lc.conn.ws.close(code=1001, message=b"server shutdown")
        for watchers in list(hub.watchers.games.values()):
            for conn in list(watchers):
                await conn.ws.close(code=1001, message=b"server shutdown")
        await app[BOTS].going_away()

    app.cleanup_ctx.append(lifecycle)
    app.on_shutdown.append(going_away)
    r = app.router
    r.add_get("/", _page("home"))
    r.add_get("/g/{game}", _page("game"))
    r.add_get("/review/{game}", _page("review"))
    r.add_get("/rules", _page("rules"))
    r.add_get("/join/{game}", _page("join"))
    r.add_get("/account", _page("account"))
    r.add_get("/lobby", _page("lobby"))
    r.add_get("/watch", _page("watch"))
    r.add_get("/@/{name}", _page("profile"))
    r.add_get("/@/", _page("profile"))  # no name: the page that says there is no such player
    r.add_get("/@/{name}/", _without_slash)
    r.add_get("/leaders", _page("leaders"))
    r.add_post("/api/games", _create)
    r.add_get("/api/games/{game}/invitation", _api(_invitation))
    r.add_post("/api/games/{game}/join", _api(_join))
    r.add_get("/api/games/{game}/seat-link", _api(_seat_link))
    r.add_get("/api/games/{game}/seat", _api(_page_seat))
    r.add_get("/api/levels", _levels)
    r.add_get("/api/watch", _games_on)
    r.add_get("/api/players/{name}", _profile)
    r.add_get("/api/leaders", _leaders)
    r.add_get("/api/me", _me)
    r.add_post("/api/me", _set_me)
    r.add_get("/api/me/games", _my_games)
    r.add_get("/api/me/chat", _my_chat)
    r.add_post("/api/me/chat", _my_chat)
    r.add_post("/api/account", _new_account)
    r.add_post("/api/account/signin", _sign_in)
    r.add_post("/api/account/signout", _sign_out)
    r.add_post("/api/account/password", _new_password)
    r.add_post("/api/account/delete", _delete_account)
    r.add_get("/api/games/{game}/record", _api(_record))
    r.add_get("/api/games/{game}/review", _api(_review))
    r.add_get("/api/games/{game}/analysis", _api(_analysis))
    r.add_get("/api/games/{game}/chat", _api(_game_chat))
    r.add_get("/api/lobby", _lobby)
    r.add_post("/api/lobby/challenges", _new_challenge)
    r.add_post("/api/lobby/challenges/{challenge}/accept", _accept_challenge)
    r.add_post("/api/lobby/challenges/{challenge}/cancel", _cancel_challenge)
    r.add_post("/api/lobby/play", _play_now)
    r.add_get("/api/bots", _my_bots)
    r.add_post("/api/bots", _new_bot)
    r.add_post("/api/bots/{name}/token", _bot_token)
    r.add_post("/api/bots/{name}/revoke", _bot_revoke)
    r.add_post("/api/bots/{name}/settings", _bot_settings)
    r.add_get("/ws/lobby", _lobby_socket)
    r.add_get("/ws/bot", _bot_socket)  # before /ws/{game}, which would take it
    r.add_get("/ws/{game}", _socket)
    r.add_get("/ws/{game}/watch", _watch_socket)
    if STATIC.is_dir():
        r.add_get("/static/{path:.+}", _static)
    return app


def _then(
    first: Callable[[Any], Awaitable[None]], then: Callable[[Any], Awaitable[None]]
) -> Callable[[Any], Awaitable[None]]:
    """``first(x)``, then ``then(x)`` (a change told to the sockets, then to the bots)."""

    async def both(x: Any) -> None:
        await first(x)
        await then(x)

    return both


async def _run(
    host: str,
    port: int,
    db: str | None,
    ai_workers: int | None,
    settings: Settings,
    ready: Callable[[str], None],
    clock_for: Callable[[TimeControl], Clock] = Clock.new,
) -> None:
    # A taken port is found out before the database is opened, so that it leaves no new SQLite
    # file behind (and starts no AI workers); the port could still be taken before the site
    # binds it, which fails as before.
    probe = await asyncio.get_running_loop().create_server(asyncio.Protocol, host, port)
    probe.close()
    await probe.wait_closed()
    store: Store = await open_store(db, exclusive=True)
    service = GameService(store, ai_workers=ai_workers, limits=settings.limits, clock_for=clock_for)
    # keepalive_timeout also ends a connection that has not sent a whole request by then.
    _Handler.https = settings.https
    runner = _Runner(
        create_app(service, settings, house_bots=settings.house_bots),
        access_log=None,
        keepalive_timeout=settings.header_timeout,
        max_line_size=MAX_FIELD,
        max_field_size=MAX_FIELD,
    )
    await runner.setup()
    try:
        site = web.TCPSite(runner, host, port)
        await site.start()
        shown = f"[{host}]" if ":" in host else host
        ready(f"http://{shown}:{port}/ (database: {safe_url(store.url)})")
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            with contextlib.suppress(NotImplementedError):
                loop.add_signal_handler(sig, stop.set)
        await stop.wait()
    finally:
        await runner.cleanup()


def serve(
    host: str = "127.0.0.1",
    port: int = 8000,
    db: str | None = None,
    *,
    ai_workers: int | None = None,
    settings: Settings | None = None,
    log_level: str = "warning",
    clock_for: Callable[[TimeControl], Clock] = Clock.new,
) -> None:
    """Run the web app until interrupted; prints the URL to open.

    ``ai_workers`` defaults to the machine's cores; ``log_level`` (``warning``: errors only,
    ``info``: also every refusal and every socket cut) is what reaches standard error.
    ``clock_for`` makes each timed game's clock (tests run short clocks; no option reaches it).
    """

    def ready(where: str) -> None:
        print(f"hanamikoji: serving on {where}", flush=True)
        print("Press Ctrl+C to stop.", flush=True)

    logging.basicConfig(
        level=getattr(logging, log_level.upper()),
        stream=sys.stderr,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    asyncio.run(_run(host, port, db, ai_workers, settings or Settings(), ready, clock_for))
