"""The web server: pages, a small JSON API and one WebSocket per seat (docs/web.md).

``create_app(service)`` builds the aiohttp application; ``serve(...)`` runs it until interrupted.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import signal
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from aiohttp import WSMsgType, web

from hanamikoji.ai.levels import LEVELS
from hanamikoji.web.service import (
    DEFAULT_LEVEL,
    GameService,
    LiveGame,
    WebError,
    review_frames,
    seat_message,
    token_seat,
)
from hanamikoji.web.store import Store, open_store, safe_url

__all__ = ["SERVICE", "STATIC", "create_app", "serve"]

log = logging.getLogger(__name__)

STATIC = Path(str(resources.files("hanamikoji.web") / "static"))
"""The front end: HTML shells, ES modules, CSS, SVG and translations."""

SERVICE = web.AppKey("service", GameService)
MAX_MESSAGE = 16 * 1024

_PAGES = {"home": "index.html", "game": "game.html", "review": "review.html", "rules": "rules.html"}
_STATUS = {
    "bad-request": 400,
    "bad-token": 403,
    "not-allowed": 403,
    "not-found": 404,
    "conflict": 409,
    "over": 409,
    "illegal": 400,
    "not-your-turn": 409,
}


def cookie_name(game_id: str) -> str:
    """The cookie that holds one seat's token for a game."""
    return f"hk_{game_id}"


@dataclass(eq=False)
class Connection:
    """One open WebSocket: a seat of a game."""

    ws: web.WebSocketResponse
    seat: int
    sent: list[str] | None = None  # every message sent, when a test asks to keep them

    async def send(self, message: dict[str, Any]) -> None:
        text = json.dumps(message, separators=(",", ":"))
        if self.sent is not None:
            self.sent.append(text)
        if not self.ws.closed:
            with contextlib.suppress(ConnectionError, RuntimeError):
                await self.ws.send_str(text)


@dataclass
class Hub:
    """The open connections of this process, by game."""

    service: GameService
    games: dict[str, set[Connection]] = field(default_factory=dict)
    on_connect: Callable[[Connection], None] | None = None  # tests use it to record traffic

    def online(self, game_id: str, seat: int) -> bool:
        return any(c.seat == seat for c in self.games.get(game_id, ()))

    async def publish(self, game_id: str) -> None:
        """Send every seat of ``game_id`` connected here its new state."""
        conns = list(self.games.get(game_id, ()))
        if not conns:
            return
        game = await self.service.get(game_id)
        if game is None:
            return
        cache: dict[int, dict[str, Any]] = {}
        for conn in conns:
            message = cache.get(conn.seat)
            if message is None:
                message = cache[conn.seat] = await self.state_for(game, conn.seat)
            await conn.send(message)

    async def state_for(self, game: LiveGame, seat: int) -> dict[str, Any]:
        """The ``state`` message of one seat (built from its VIEW)."""
        return seat_message(
            game,
            game.state.view(seat),
            online=self.online(game.id, 1 - seat),
            rematch=await self.service.rematch_link(game, seat),
        )


HUB = web.AppKey("hub", Hub)


def _error(code: str, message: str) -> dict[str, str]:
    return {"type": "error", "code": code, "message": message}


def _json_error(code: str, message: str, status: int | None = None) -> web.Response:
    return web.json_response(
        {"error": message, "code": code}, status=status or _STATUS.get(code, 400)
    )


# -- pages ---------------------------------------------------------------------------------------


def _page(name: str) -> Callable[[web.Request], Awaitable[web.StreamResponse]]:
    async def handler(request: web.Request) -> web.StreamResponse:
        path = STATIC / _PAGES[name]
        if not path.is_file():
            return web.Response(status=500, text=f"the front end is missing ({path.name})")
        response = web.FileResponse(path, headers={"Cache-Control": "no-cache"})
        if name == "game":
            token = request.query.get("t")
            game_id = request.match_info["game"]
            if token and len(token) < 100:
                response.set_cookie(
                    cookie_name(game_id),
                    token,
                    path="/",
                    httponly=True,
                    samesite="Lax",
                    max_age=60 * 60 * 24 * 365,
                )
        return response

    return handler


# -- API -----------------------------------------------------------------------------------------


async def _create(request: web.Request) -> web.Response:
    service = request.app[SERVICE]
    try:
        body = await request.json()
    except (json.JSONDecodeError, UnicodeDecodeError):
        return _json_error("bad-request", 'the body must be a JSON object, e.g. {"mode": "ai"}')
    if not isinstance(body, dict):
        return _json_error("bad-request", 'the body must be a JSON object, e.g. {"mode": "ai"}')
    unknown = set(body) - {"mode", "level", "seat", "max_rounds", "name"}
    if unknown:
        return _json_error(
            "bad-request",
            f"unknown keys {sorted(unknown)}; expected mode, level, seat, max_rounds, name",
        )
    mode = body.get("mode", "ai")
    seat = body.get("seat", "random")
    if isinstance(seat, str) and seat.strip() in ("0", "1"):
        seat = int(seat)
    try:
        game, me = await service.create(
            mode=mode,
            level=body.get("level"),
            seat=seat,
            max_rounds=body.get("max_rounds", 3),
            name=body.get("name"),
        )
    except WebError as e:
        return _json_error(e.code, e.message)
    token = game.row.tokens[me]
    friend = game.row.tokens[1 - me] if game.row.mode == "friend" else None
    answer = {
        "game": game.id,
        "seat": me,
        "token": token,
        "url": f"/g/{game.id}?t={token}",
        "invite": f"/g/{game.id}?t={friend}" if friend else None,
    }
    response = web.json_response(answer, status=201)
    response.set_cookie(
        cookie_name(game.id), token, path="/", httponly=True, samesite="Lax", max_age=31536000
    )
    return response


async def _finished(request: web.Request) -> LiveGame:
    service = request.app[SERVICE]
    game_id = request.match_info["game"]
    game = await service.get(game_id)
    if game is None:
        raise WebError("not-found", f"there is no game {game_id!r}")
    if not game.state.is_over:
        raise WebError("not-allowed", "the game is not finished: its cards are still hidden")
    return game


def _api(
    handler: Callable[[web.Request], Awaitable[web.StreamResponse]],
) -> Callable[[web.Request], Awaitable[web.StreamResponse]]:
    async def wrapped(request: web.Request) -> web.StreamResponse:
        try:
            return await handler(request)
        except WebError as e:
            return _json_error(e.code, e.message)

    return wrapped


async def _record(request: web.Request) -> web.StreamResponse:
    game = await _finished(request)
    text = request.app[SERVICE].record(game).dumps()
    return web.Response(
        text=text,
        content_type="application/json",
        headers={"Content-Disposition": f'attachment; filename="hanamikoji-{game.id}.json"'},
    )


async def _review(request: web.Request) -> web.StreamResponse:
    game = await _finished(request)
    row = game.row
    token = request.cookies.get(cookie_name(row.id)) or request.query.get("t")
    meta = {
        "seat": token_seat(row, token),
        "id": row.id,
        "mode": row.mode,
        "level": row.level,
        "names": list(row.names),
        "rules": {"max_rounds": row.max_rounds},
        "result": row.result,
    }
    record = request.app[SERVICE].record(game).to_json()
    return web.json_response({"game": meta, "record": record, "frames": review_frames(game.state)})


async def _analysis(request: web.Request) -> web.StreamResponse:
    await _finished(request)
    return web.json_response(await request.app[SERVICE].analysis(request.match_info["game"]))


async def _levels(request: web.Request) -> web.Response:
    return web.json_response({"levels": list(LEVELS), "default": DEFAULT_LEVEL})


# -- the WebSocket ---------------------------------------------------------------------------------


async def _socket(request: web.Request) -> web.StreamResponse:
    service = request.app[SERVICE]
    hub = request.app[HUB]
    game_id = request.match_info["game"]
    token = request.query.get("t") or request.cookies.get(cookie_name(game_id))
    ws = web.WebSocketResponse(heartbeat=30, max_msg_size=MAX_MESSAGE)
    await ws.prepare(request)
    try:
        _, seat = await service.seat_for(game_id, token)
    except WebError as e:
        await ws.send_json(_error(e.code, e.message))
        await ws.close(code=4403 if e.code == "bad-token" else 4404, message=e.code.encode())
        return ws
    conn = Connection(ws, seat)
    if hub.on_connect is not None:
        hub.on_connect(conn)
    hub.games.setdefault(game_id, set()).add(conn)
    try:
        await hub.publish(game_id)  # this seat's state, and the opponent learns it is online
        async for msg in ws:
            if msg.type == WSMsgType.TEXT:
                await _handle(hub, game_id, conn, msg.data)
            elif msg.type == WSMsgType.BINARY:
                await conn.send(_error("bad-request", "send JSON text messages, not binary"))
            elif msg.type == WSMsgType.ERROR:
                break
    finally:
        conns = hub.games.get(game_id)
        if conns is not None:
            conns.discard(conn)
            if not conns:
                del hub.games[game_id]
        with contextlib.suppress(Exception):
            await hub.publish(game_id)  # the opponent learns this seat left
    return ws


async def _handle(hub: Hub, game_id: str, conn: Connection, text: str) -> None:
    service = hub.service
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        await conn.send(_error("bad-request", 'messages are JSON objects, e.g. {"type": "ping"}'))
        return
    kind = data.get("type") if isinstance(data, dict) else None
    if isinstance(data, dict) and "game" in data and data["game"] != game_id:
        await conn.send(
            _error("wrong-game", f"this connection plays game {game_id}, not {data['game']!r}")
        )
        return
    try:
        if kind == "move":
            await service.play(game_id, conn.seat, data.get("move"), data.get("version"))
        elif kind == "undo":
            await service.undo(game_id, conn.seat)
        elif kind == "resign":
            await service.resign(game_id, conn.seat)
        elif kind == "rematch":
            await service.rematch(game_id, conn.seat)
        elif kind == "hint":
            await conn.send(await service.hint(game_id, conn.seat))
        elif kind == "ping":
            await conn.send({"type": "pong"})
        else:
            await conn.send(
                _error(
                    "bad-request",
                    f"unknown message type {kind!r}; expected move, undo, hint, resign, "
                    "rematch or ping",
                )
            )
    except WebError as e:
        await conn.send(_error(e.code, e.message))
        if e.code == "conflict":
            game = await service.get(game_id)
            if game is not None:
                await conn.send(await hub.state_for(game, conn.seat))


# -- the application -------------------------------------------------------------------------------


@web.middleware
async def _headers(
    request: web.Request, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]
) -> web.StreamResponse:
    response = await handler(request)
    response.headers.setdefault(
        "Content-Security-Policy",
        "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; "
        "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'",
    )
    response.headers.setdefault("X-Content-Type-Options", "nosniff")
    response.headers.setdefault("Referrer-Policy", "no-referrer")
    return response


def create_app(service: GameService) -> web.Application:
    """The web application over ``service`` (started and closed with the app)."""
    app = web.Application(middlewares=[_headers], client_max_size=64 * 1024)
    hub = Hub(service)
    app[SERVICE] = service
    app[HUB] = hub
    service.publish = hub.publish

    async def lifecycle(app: web.Application) -> AsyncIterator[None]:
        await service.start()
        yield
        await service.close()

    async def going_away(app: web.Application) -> None:
        """Close every socket first, so that browsers reconnect (to this server restarted, or
        another one) at once instead of the shutdown waiting for them."""
        for conns in list(hub.games.values()):
            for conn in list(conns):
                await conn.ws.close(code=1001, message=b"server shutdown")

    app.cleanup_ctx.append(lifecycle)
    app.on_shutdown.append(going_away)
    r = app.router
    r.add_get("/", _page("home"))
    r.add_get("/g/{game}", _page("game"))
    r.add_get("/review/{game}", _page("review"))
    r.add_get("/rules", _page("rules"))
    r.add_post("/api/games", _create)
    r.add_get("/api/levels", _levels)
    r.add_get("/api/games/{game}/record", _api(_record))
    r.add_get("/api/games/{game}/review", _api(_review))
    r.add_get("/api/games/{game}/analysis", _api(_analysis))
    r.add_get("/ws/{game}", _socket)
    if STATIC.is_dir():
        r.add_static("/static", STATIC, append_version=False)
    return app


async def _run(
    host: str, port: int, db: str | None, ai_workers: int, ready: Callable[[str], None]
) -> None:
    store: Store = await open_store(db)
    service = GameService(store, ai_workers=ai_workers)
    runner = web.AppRunner(create_app(service), access_log=None)
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
    ai_workers: int = 1,
) -> None:
    """Run the web app until interrupted; prints the URL to open."""

    def ready(where: str) -> None:
        print(f"hanamikoji: serving on {where}", flush=True)
        print("Press Ctrl+C to stop.", flush=True)

    logging.basicConfig(level=logging.WARNING, stream=sys.stderr)
    asyncio.run(_run(host, port, db, ai_workers, ready))
