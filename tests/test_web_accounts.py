"""Identity: guests from the first page, accounts (Argon2, sessions in the database), the player's
games on any device, and every way in that must stay shut. On SQLite and, when a server is given,
PostgreSQL; each "browser" is a cookie jar of its own."""

from __future__ import annotations

import asyncio
import json
import sqlite3
import time
import unicodedata
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, Literal

import aiohttp
import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient
from argon2 import PasswordHasher
from yarl import URL

from hanamikoji.web.errors import WebError
from hanamikoji.web.identity import SESSION_COOKIE, session_hash, username_key
from hanamikoji.web.limits import Limits
from hanamikoji.web.server import ACCOUNTS, STATIC, Settings, _sweep_sessions, create_app
from hanamikoji.web.service import GameService
from hanamikoji.web.store import MIGRATIONS, open_store
from web_support import Seat, backend_database, invite_parts, my_turn

Client = TestClient[Any, Any]
MakeClient = Callable[..., Awaitable[Client]]
Browser = aiohttp.ClientSession

CHEAP = PasswordHasher(time_cost=1, memory_cost=1024, parallelism=1)
"""Argon2 at a test's pace (the server's own takes 64 MiB and 0.1 s a hash)."""
PASSWORD = "correct horse battery"


@pytest.fixture(params=["sqlite", "postgres"])
async def db(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[str]:
    """A fresh database's URL, on each backend."""
    with backend_database(request.param, tmp_path) as url:
        yield url


class Server:
    """The app under test, with a way to open browsers (cookie jars) on it."""

    def __init__(self, client: Client, app: web.Application) -> None:
        self.client = client
        self.app = app
        self.base = str(client.make_url("/")).rstrip("/")
        self.service: GameService = app[ACCOUNTS].games

    @asynccontextmanager
    async def browser(self) -> AsyncIterator[Browser]:
        jar = aiohttp.CookieJar(unsafe=True)
        async with aiohttp.ClientSession(base_url=self.base, cookie_jar=jar) as session:
            yield session


@pytest.fixture
async def make(aiohttp_client: MakeClient, db: str) -> Callable[..., Awaitable[Server]]:
    async def start(limits: Limits | None = None, settings: Settings | None = None) -> Server:
        store = await open_store(db)
        service = GameService(store, ai_workers=0, seed=11, limits=limits)
        app = create_app(service, settings)
        app[ACCOUNTS].hasher = CHEAP
        return Server(await aiohttp_client(app), app)

    return start


@pytest.fixture
async def server(make: Callable[..., Awaitable[Server]]) -> Server:
    return await make()


async def call(
    browser: Browser, method: str, path: str, expect: int | None = None, **kw: Any
) -> dict[str, Any]:
    """A request's JSON answer (its status checked when ``expect`` is given)."""
    async with browser.request(method, path, **kw) as response:
        data: dict[str, Any] = await response.json()
        assert expect is None or response.status == expect, (response.status, data)
        data["_status"] = response.status
        data["_retry"] = response.headers.get("Retry-After")
        return data


def give_session(browser: Browser, session_id: str | None) -> None:
    """Put a session cookie in the browser, as if the server had sent it."""
    url = URL(str(browser._base_url))
    browser.cookie_jar.update_cookies({SESSION_COOKIE: session_id or ""}, url)


def session_of(browser: Browser) -> str | None:
    cookie = browser.cookie_jar.filter_cookies(URL(str(browser._base_url)))
    morsel = cookie.get(SESSION_COOKIE)
    return morsel.value if morsel else None


async def visit(browser: Browser, path: str = "/") -> None:
    """Open a page, as the browser would (a first visit makes a guest)."""
    async with browser.get(path) as page:
        assert page.status == 200


async def sign_up(browser: Browser, username: str, password: str = PASSWORD) -> dict[str, Any]:
    await call(browser, "GET", "/api/me", 200)  # a guest first, as a page would make them
    body = {"username": username, "password": password}
    return await call(browser, "POST", "/api/account", 201, json=body)


async def sign_in(browser: Browser, username: str, password: str = PASSWORD) -> dict[str, Any]:
    body = {"username": username, "password": password}
    return await call(browser, "POST", "/api/account/signin", 200, json=body)


async def seat_of(browser: Browser, game: str, token: str | None = None) -> dict[str, Any]:
    """The first message the game's socket sends this browser (a state, or an error)."""
    url = f"/ws/{game}" + (f"?t={token}" if token else "")
    async with browser.ws_connect(url) as ws:
        msg = await ws.receive(timeout=10)
        data: dict[str, Any] = json.loads(msg.data)
        return data


async def new_game(browser: Browser, **body: Any) -> dict[str, Any]:
    return await call(browser, "POST", "/api/games", 201, json=body)


# -- the guest -------------------------------------------------------------------------------------


async def test_a_guest_cookie_is_given_once_and_kept(server: Server) -> None:
    async with server.browser() as browser:
        async with browser.get("/") as page:
            assert page.status == 200
            cookie = page.cookies[SESSION_COOKIE]
            assert cookie["httponly"] and cookie["samesite"] == "Lax" and not cookie["secure"]
            assert int(cookie["max-age"]) == 365 * 24 * 3600
        first = session_of(browser)
        assert first is not None and len(first) == 43
        for path in ("/", "/rules", "/api/me"):
            async with browser.get(path) as again:
                assert SESSION_COOKIE not in again.cookies  # kept: nothing sent again
        assert session_of(browser) == first
        me = await call(browser, "GET", "/api/me", 200)
        assert me["account"] is False and me["username"] is None and me["name"] is None
        # The name typed for a game is the player's from now on; their next game shows it.
        await new_game(browser, mode="ai", level="beginner", name="Zoe")
        assert (await call(browser, "GET", "/api/me", 200))["name"] == "Zoe"
        game = await new_game(browser, mode="ai", level="beginner", seat=0)
        state = await seat_of(browser, game["game"])
        assert state["game"]["names"][0] == "Zoe"
    # Only the hash of the session id is stored.
    store = server.service.store
    assert await store.session_player(session_hash(first)) is not None
    assert await store.session_player(first) is None


async def test_cookies_are_secure_behind_https(make: Callable[..., Awaitable[Server]]) -> None:
    server = await make(settings=Settings(public_url="https://hanamikoji.example.org"))
    async with server.browser() as browser, browser.get("/") as page:
        assert page.cookies[SESSION_COOKIE]["secure"]


async def test_a_forged_or_expired_session_is_a_new_guest(server: Server) -> None:
    async with server.browser() as browser:
        await call(browser, "GET", "/api/me", 200)
        real = session_of(browser)
        give_session(browser, "x" * 43)
        await call(browser, "GET", "/api/me", 200)
        assert session_of(browser) not in (real, "x" * 43)  # a new guest
        # The guest of a session that expired is nobody now.
        store = server.service.store
        await store._tx([("UPDATE sessions SET expires_at = '2000-01-01'", ())])  # type: ignore[attr-defined]
        again = session_of(browser)
        await call(browser, "GET", "/api/me", 200)
        assert session_of(browser) != again


async def test_idle_guests_without_games_are_forgotten(server: Server) -> None:
    store = server.service.store
    now = datetime.now(UTC)

    def stamp(days: int) -> str:
        return (now + timedelta(days=days)).isoformat(timespec="milliseconds")

    async with server.browser() as idle, server.browser() as player, server.browser() as fresh:
        for browser in (idle, player, fresh):
            await visit(browser)
        game = await new_game(player, mode="ai", level="beginner", seat=0)
        stale = [session_hash(session_of(b) or "") for b in (idle, player)]
        for hashed in stale:  # last seen 40 days ago: the session expires in 325 days
            update = "UPDATE sessions SET expires_at = ? WHERE id = ?"
            await store._tx([(update, (stamp(325), hashed))])  # type: ignore[attr-defined]
        await store.forget_guests(stamp(0), stamp(365 - 30))
        assert await store.session_player(stale[0]) is None
        assert (await call(idle, "GET", "/api/me", 200))["account"] is False  # a new guest
        # A guest with a game keeps it and their session; a guest seen lately keeps theirs.
        assert await store.session_player(stale[1]) is not None
        assert await store.session_player(session_hash(session_of(fresh) or "")) is not None
        row = await server.service.get(game["game"])
        assert row is not None and row.row.players[0] is not None
        assert await store.player(row.row.players[0]) is not None


# -- accounts --------------------------------------------------------------------------------------


async def test_a_guest_who_creates_an_account_keeps_their_games(server: Server) -> None:
    async with server.browser() as laptop, server.browser() as phone:
        await visit(laptop)
        guest = session_of(laptop)
        played = await new_game(laptop, mode="ai", level="beginner", seat=0, name="Anna")
        invited = await new_game(laptop, mode="friend", seat=1)
        me = await sign_up(laptop, "Anna_K")
        assert me == me | {"account": True, "username": "Anna_K", "name": "Anna"}
        assert session_of(laptop) not in (None, guest)  # a new session: the guest's one ended
        async with server.browser() as thief:
            give_session(thief, guest)
            assert (await call(thief, "GET", "/api/me", 200))["account"] is False
            assert (await call(thief, "GET", "/api/me/games", 200))["on"] == []
        mine = await call(laptop, "GET", "/api/me/games", 200)
        assert {g["game"] for g in mine["on"]} == {played["game"], invited["game"]}
        # The other device: signed in, the same games, and the table opens without a link.
        await visit(phone)
        await sign_in(phone, "anna_k")  # the user name is case-insensitive
        there = await call(phone, "GET", "/api/me/games", 200)
        assert {g["game"] for g in there["on"]} == {played["game"], invited["game"]}
        first = there["on"][0]
        assert first["game"] == played["game"] and first["turn"] == "you"  # your turn first
        assert first | {"opponent": "beginner", "mode": "ai", "seat": 0} == first
        assert first["url"] == f"/g/{played['game']}" and first["review"] is None
        assert there["on"][1]["turn"] == "invite"
        state = await seat_of(phone, played["game"])
        assert state["type"] == "state" and state["view"]["seat"] == 0


async def test_sign_in_from_a_guest_brings_the_guests_games(server: Server) -> None:
    async with server.browser() as home, server.browser() as cafe:
        await sign_up(home, "Bob")
        await visit(cafe)
        game = await new_game(cafe, mode="ai", level="beginner", seat=1)
        await sign_in(cafe, "bob")
        listed = await call(home, "GET", "/api/me/games", 200)
        assert [g["game"] for g in listed["on"]] == [game["game"]]
        assert (await seat_of(home, game["game"]))["view"]["seat"] == 1


async def test_sign_out_ends_the_session_and_forgets_the_seats(server: Server) -> None:
    async with server.browser() as browser:
        await sign_up(browser, "Carla")
        game = await new_game(browser, mode="ai", level="beginner")
        session = session_of(browser)
        async with browser.post("/api/account/signout", json={}) as out:
            assert out.status == 200
            assert out.cookies[SESSION_COOKIE].value == ""
            assert out.cookies[f"hk_{game['game']}"].value == ""  # the seat's cookie cleared
        assert session_of(browser) is None
        assert (await seat_of(browser, game["game"]))["code"] == "bad-token"
        # The session is over in the database, not only in this browser.
        async with server.browser() as copy:
            give_session(copy, session)
            assert (await call(copy, "GET", "/api/me", 200))["account"] is False
        # Its link still opens the seat, as before.
        assert (await seat_of(browser, game["game"], game["token"]))["type"] == "state"
        again = await call(browser, "POST", "/api/account/signout", 401, json={})
        assert again["code"] == "not-signed-in"
        await sign_in(browser, "Carla")
        assert (await seat_of(browser, game["game"]))["type"] == "state"


async def test_a_password_change_ends_every_session(server: Server) -> None:
    async with server.browser() as one, server.browser() as two:
        await sign_up(one, "Dana")
        await sign_in(two, "Dana")
        wrong = {"password": "not the password", "new_password": "a new password"}
        answer = await call(one, "POST", "/api/account/password", 401, json=wrong)
        assert answer["code"] == "bad-credentials"
        short = {"password": PASSWORD, "new_password": "short"}
        answer = await call(one, "POST", "/api/account/password", 400, json=short)
        assert answer["field"] == "new_password" and "8 to 1024" in answer["error"]
        before = session_of(one)
        body = {"password": PASSWORD, "new_password": "a new password"}
        assert (await call(one, "POST", "/api/account/password", 200, json=body))["account"]
        assert session_of(one) != before
        assert (await call(one, "GET", "/api/me", 200))["username"] == "Dana"
        assert (await call(two, "GET", "/api/me", 200))["account"] is False  # signed out there
        answer = await call(
            two, "POST", "/api/account/signin", 401, json={"username": "Dana", "password": PASSWORD}
        )
        assert answer["code"] == "bad-credentials"
        await sign_in(two, "Dana", "a new password")


async def closed_by(ws: aiohttp.ClientWebSocketResponse) -> tuple[str, int | None]:
    """The error a socket is sent before its close, and the close's code."""
    code = ""
    while True:
        msg = await ws.receive(timeout=10)
        if msg.type == aiohttp.WSMsgType.TEXT:
            data = json.loads(msg.data)
            code = data["code"] if data["type"] == "error" else code
        elif msg.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED):
            return code, ws.close_code


@pytest.mark.parametrize("how", ["sign-out", "password", "delete", "elsewhere"])
async def test_an_ended_session_closes_the_sockets_it_opened(server: Server, how: str) -> None:
    """Someone holding a copy of the session (a stolen cookie) keeps nothing it opened once the
    session ends: not the seat (its moves and chat, the account's own cards), not the lobby, not
    the spectators' room. A seat's link still opens it, as the link decides alone."""
    async with server.browser() as anna, server.browser() as bob, server.browser() as thief:
        await sign_up(anna, "Olga")
        await sign_up(bob, "Petr")
        created = await new_game(anna, mode="friend", seat=0, name="Olga")
        game, code = invite_parts(created["invite"])
        await call(bob, "POST", f"/api/games/{game}/join", 201, json={"invite": code})
        give_session(thief, session_of(anna))
        async with (
            thief.ws_connect(f"/ws/{game}") as seat_ws,
            thief.ws_connect("/ws/lobby") as lobby_ws,
            thief.ws_connect(f"/ws/{game}/watch") as watch_ws,
            thief.ws_connect(f"/ws/{game}?t={created['token']}") as link_ws,
        ):
            seat = Seat(seat_ws)
            await seat.until(lambda s: s["view"]["seat"] == 0)
            await lobby_ws.receive(timeout=10)
            await watch_ws.receive(timeout=10)
            await Seat(link_ws).until(lambda s: s["view"]["seat"] == 0)
            if how == "sign-out":
                await call(anna, "POST", "/api/account/signout", 200, json={})
            elif how == "password":
                body = {"password": PASSWORD, "new_password": "a new password"}
                await call(anna, "POST", "/api/account/password", 200, json=body)
            elif how == "delete":
                await call(anna, "POST", "/api/account/delete", 200, json={"password": PASSWORD})
            else:  # another server signed it out: this one finds out at its sweep
                await server.service.store.end_session(session_hash(session_of(anna) or ""))
                assert await _sweep_sessions(server.app) == 3
            for ws in (seat_ws, lobby_ws, watch_ws):
                assert await closed_by(ws) == ("signed-out", 4401)
            if how == "delete":  # a deleted account's seat no longer opens, link or not
                assert await closed_by(link_ws) == ("bad-token", 4403)
            else:
                await link_ws.send_json({"type": "ping"})
                assert json.loads((await link_ws.receive(timeout=10)).data)["type"] == "pong"
        assert await _sweep_sessions(server.app) == 0  # nothing left to close
        async with thief.ws_connect(f"/ws/{game}") as again:
            assert json.loads((await again.receive(timeout=10)).data)["code"] == "bad-token"


async def test_a_deleted_account_leaves_its_games_under_deleted_player(server: Server) -> None:
    async with server.browser() as anna, server.browser() as bob:
        await sign_up(anna, "Erika")
        friend = await new_game(anna, mode="friend", seat=0, name="Erika")
        game, code = invite_parts(friend["invite"])
        await call(
            bob, "POST", f"/api/games/{game}/join", 201, json={"invite": code, "name": "Bob"}
        )
        over = await new_game(anna, mode="ai", level="beginner", seat=0)
        await server.service.resign(over["game"], 0)
        answer = await call(
            anna, "POST", "/api/account/delete", 401, json={"password": "wrong one!"}
        )
        assert answer["code"] == "bad-credentials"
        async with anna.post("/api/account/delete", json={"password": PASSWORD}) as done:
            assert done.status == 200 and done.cookies[SESSION_COOKIE].value == ""
        state = await seat_of(bob, game)
        assert state["game"]["names"] == ["deleted player", "Bob"]
        assert state["result"]["winner"] == 1 and state["result"]["reason"] == "resign"
        record = await call(bob, "GET", f"/api/games/{game}/review", 200)
        assert record["game"]["names"] == ["deleted player", "Bob"]
        # No rematch with nobody: it would wait for ever for a player who cannot come.
        async with bob.ws_connect(f"/ws/{game}") as ws:
            seat = Seat(ws)
            await seat.until(lambda s: True)
            await seat.send(type="rematch")
            refused = await seat.error()
            assert refused["code"] == "not-allowed" and "deleted" in refused["message"]
        assert (await server.service.get(game)).row.rematch is None  # type: ignore[union-attr]
        finished = await server.service.get(over["game"])
        assert finished is not None and finished.row.names[0] == "deleted player"
        # Its seats' links, kept by anyone, open nothing: they went on chatting in the deleted
        # seat's place and starting rematches (new games) under "deleted player".
        async with bob.ws_connect(f"/ws/{game}?t={friend['token']}") as ws:
            refused = json.loads((await ws.receive(timeout=10)).data)
            assert refused["code"] == "bad-token" and "deleted" in refused["message"]
        # ... nor the players' private chat of the review, nor the review as that seat
        async with server.browser() as stranger:
            url = f"/api/games/{game}/chat?t={friend['token']}"
            assert (await call(stranger, "GET", url, 200))["players"] is None
            url = f"/api/games/{game}/review?t={friend['token']}"
            assert (await call(stranger, "GET", url, 200))["game"]["seat"] is None
        assert (await call(bob, "GET", f"/api/games/{game}/chat", 200))["players"] is not None
        with pytest.raises(WebError) as no_rematch:  # asked on a socket of another server
            await server.service.rematch(over["game"], 0)
        assert no_rematch.value.code == "bad-token"
        assert (await server.service.get(over["game"])).row.rematch is None  # type: ignore[union-attr]
        # The name is gone with the account, and never given to anyone else.
        player = await server.service.store.account(username_key("Erika"))
        assert player is not None and player.deleted and player.username is None
        assert player.password is None and player.name is None
        answer = await call(
            anna,
            "POST",
            "/api/account/signin",
            401,
            json={"username": "Erika", "password": PASSWORD},
        )
        assert answer["code"] == "bad-credentials"
        await call(anna, "GET", "/api/me", 200)
        body = {"username": "erika", "password": PASSWORD}
        assert (await call(anna, "POST", "/api/account", 409, json=body))["code"] == "taken"


# -- names and passwords ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "copy",
    ["anna", "ANNA", "Аnna", "АNNА", "Ánna", "ａｎｎａ", "Anna\u0301"],
    ids=["lower", "upper", "cyrillic-a", "cyrillic-caps", "accent", "fullwidth", "combining"],
)
async def test_a_name_that_copies_another_is_refused(server: Server, copy: str) -> None:
    async with server.browser() as first, server.browser() as second:
        await sign_up(first, "Anna")
        await call(second, "GET", "/api/me", 200)
        body = {"username": copy, "password": PASSWORD}
        answer = await call(second, "POST", "/api/account", 409, json=body)
        assert answer["code"] == "taken" and answer["field"] == "username"
        assert "taken" in answer["error"]
        assert (await call(second, "GET", "/api/me", 200))["account"] is False


async def test_a_password_is_the_same_however_its_accents_were_typed(server: Server) -> None:
    """A password ("pässwörd") typed precomposed (NFC) or as letters and combining accents
    (NFD, as some keyboards and systems send it) is one password; one set before passwords were
    normalised, hashed as typed, still opens the account."""
    composed = unicodedata.normalize("NFC", "pässwörd über 🎴")
    decomposed = unicodedata.normalize("NFD", composed)
    assert composed != decomposed
    async with server.browser() as one, server.browser() as two:
        await sign_up(one, "Ursula", decomposed)
        await sign_in(two, "ursula", composed)
        await sign_in(two, "ursula", decomposed)
        body = {"username": "ursula", "password": "passwörd über 🎴"}
        assert (await call(two, "POST", "/api/account/signin", 401, json=body))["code"]
        # as before: the hash of the text as it was typed
        account = await server.service.store.account(username_key("Ursula"))
        assert account is not None
        legacy = CHEAP.hash(decomposed)
        await server.service.store.set_password(account.id, legacy, "x" * 64, "2999-01-01")
        await sign_in(two, "ursula", decomposed)


def test_look_alike_letters_and_digits_fold_together() -> None:
    assert len({username_key(n) for n in ("Bill", "B1ll", "BiII", "bilI", "ВiII", "Bıll")}) == 1
    assert username_key("Olga_0") == username_key("0lga_O") == username_key("Оlgа_о")
    assert username_key("Jiří") == username_key("jiri")
    assert username_key("Anna") != username_key("Anne")
    assert username_key("anna-b") != username_key("anna_b")


@pytest.mark.parametrize(
    ("name", "why"),
    [
        ("ab", "got 2 characters"),
        ("a" * 21, "got 21 characters"),
        ("an na", "' ' is not one of them"),
        ("anna!", "'!' is not one of them"),
        ("ann\u200ba", "'\\u200b' is not one of them"),
        ("Ωmega", "'\\u03a9' is not one of them"),
        ("x" * 5000, "got 5000 characters"),
        (42, "got 42"),
        (None, "got null"),
        ("___", "with at least one letter or digit"),
    ],
)
async def test_a_bad_user_name_says_what_is_allowed(server: Server, name: Any, why: str) -> None:
    async with server.browser() as browser:
        await call(browser, "GET", "/api/me", 200)
        answer = await call(
            browser, "POST", "/api/account", 400, json={"username": name, "password": PASSWORD}
        )
        assert answer["code"] == "bad-request" and answer["field"] == "username"
        assert "3 to 20 characters: letters (Latin or Cyrillic), digits, _ and -" in answer["error"]
        assert why in answer["error"]


@pytest.mark.parametrize("name", ["admin", "Moderator", "AI-grandmaster", "ai_master", "r00t"])
async def test_names_that_pass_for_the_server_are_kept(server: Server, name: str) -> None:
    """The house AI levels' ("AI-...") and the moderators' names, in any spelling that folds
    to them, are not for accounts (nor bots); an AI level's profile still opens."""
    async with server.browser() as browser:
        await call(browser, "GET", "/api/me", 200)
        body = {"username": name, "password": PASSWORD}
        answer = await call(browser, "POST", "/api/account", 409, json=body)
        assert answer["code"] == "taken" and "kept for the server" in answer["error"]


def _passes_for() -> list[str]:
    """What every language's pages call a deleted account's seat and the AI."""
    out = []
    for lang in ("en", "ru", "cs", "fr"):
        words = json.loads((STATIC / "i18n" / f"{lang}.json").read_text("utf-8"))["game"]
        out += [words["deleted_player"], words["ai_name"].replace("{level}", "Master")]
    return out


@pytest.mark.parametrize(
    "name",
    [
        "Deleted  Player",
        "ai(easy)",
        "ＡＩ (Master)",  # fullwidth letters
        "Al (Master)",  # a lower-case L, drawn as the I in many fonts
        "Аі (Мастер)",  # Cyrillic and Ukrainian letters
        "ΑΙ (Master)",  # Greek capitals
        "ᴀɪ (Master)",  # Latin small capitals
        "ᎪᏆ (Master)",  # Cherokee
        "ԁeleted player",  # a Komi letter
        "удаленный игрок",
        *_passes_for(),
    ],
)
async def test_a_display_name_that_passes_for_the_ai_or_a_deleted_account_is_refused(
    server: Server, name: str
) -> None:
    async with server.browser() as browser:
        await call(browser, "GET", "/api/me", 200)
        answer = await call(browser, "POST", "/api/me", 400, json={"name": name})
        assert answer["code"] == "bad-request" and "deleted account or the AI" in answer["error"]
        fine = await call(browser, "POST", "/api/me", 200, json={"name": "Deleted Playeress"})
        assert fine["name"] == "Deleted Playeress"


async def test_good_names_in_every_language(server: Server) -> None:
    for name in ("Jiří_N", "Аня-2", "Zoë", "kotě", "Ёжик"):
        async with server.browser() as browser:
            assert (await sign_up(browser, name))["username"] == name


async def test_a_huge_password_is_refused_before_any_hashing(server: Server) -> None:
    hashed = []
    accounts = server.app[ACCOUNTS]
    real = accounts.hasher

    class Counting(PasswordHasher):
        def hash(self, password: str | bytes, *, salt: bytes | None = None) -> str:
            hashed.append(len(password))
            return real.hash(password)

    accounts.hasher = Counting()
    async with server.browser() as browser:
        await call(browser, "GET", "/api/me", 200)
        start = time.monotonic()
        body: dict[str, Any] = {"username": "Frank", "password": "x" * 1024 * 1024}
        answer = await call(browser, "POST", "/api/account", 400, json=body)
        assert time.monotonic() - start < 1.0
        assert answer["code"] == "bad-request" and "too large" in answer["error"]
        for password, field_error in [
            ("x" * 1025, "a password is 8 to 1024 characters; got 1025"),
            ("1234567", "a password is 8 to 1024 characters; got 7"),
            (12345678, "password must be a string"),
        ]:
            body = {"username": "Frank", "password": password}
            answer = await call(browser, "POST", "/api/account", 400, json=body)
            assert answer["field"] == "password" and field_error in answer["error"]
            answer = await call(browser, "POST", "/api/account/signin", 400, json=body)
            assert answer["field"] == "password"
        assert hashed == []
        assert (await call(browser, "GET", "/api/me", 200))["account"] is False
        await sign_up(browser, "Frank", "x" * 1024)  # the longest allowed
        assert hashed == [1024]


async def test_an_unknown_name_is_checked_as_long_as_a_wrong_password(server: Server) -> None:
    """The same answer after the same work: a sign-in never tells whether a name has an account."""
    checked = []

    class Counting(PasswordHasher):
        def verify(self, hash: str | bytes, password: str | bytes) -> Literal[True]:
            checked.append(hash)
            return CHEAP.verify(hash, password)

    server.app[ACCOUNTS].hasher = Counting(time_cost=1, memory_cost=1024, parallelism=1)
    async with server.browser() as owner, server.browser() as other:
        await sign_up(owner, "Rita")
        answers = []
        for name in ("Rita", "Nobody"):
            body = {"username": name, "password": "not the password"}
            answers.append(await call(other, "POST", "/api/account/signin", 401, json=body))
        assert (
            answers[0]["error"] == answers[1]["error"] == "the user name or the password is wrong"
        )
        assert len(checked) == 2 and checked[0] != checked[1]  # the account's hash, then a decoy


async def test_the_real_hash_is_argon2id(make: Callable[..., Awaitable[Server]]) -> None:
    server = await make()
    server.app[ACCOUNTS].hasher = PasswordHasher()
    async with server.browser() as browser:
        await sign_up(browser, "Gina")
    player = await server.service.store.account(username_key("Gina"))
    assert player is not None and player.password is not None
    assert player.password.startswith("$argon2id$") and PASSWORD not in player.password


@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("/api/account", []),
        ("/api/account", {"username": "Hugo", "password": PASSWORD, "admin": True}),
        ("/api/account/signin", "Hugo"),
        ("/api/account/password", {"old": PASSWORD}),
        ("/api/me", {"name": "x\u001b[31m"}),
        ("/api/me", {"name": ["Hugo"]}),
    ],
)
async def test_bad_bodies_are_clear_json_errors(server: Server, path: str, body: Any) -> None:
    async with server.browser() as browser:
        await sign_up(browser, "Ivo")
        answer = await call(browser, "POST", path, 400, json=body)
        assert answer["code"] == "bad-request" and answer["error"]
    async with server.browser() as browser, browser.get("/api/me/games?offset=-1") as response:
        assert response.status == 400
        assert "offset must be a whole number" in (await response.json())["error"]


# -- limits and other sites ------------------------------------------------------------------------


async def test_sign_in_attempts_are_limited(make: Callable[..., Awaitable[Server]]) -> None:
    limits = Limits(signin_failures=3, signin_failures_per_name=5, signins_per_minute=6)
    server = await make(limits=limits, settings=Settings(limits=limits, behind_proxy=True))

    def at(address: str) -> dict[str, str]:
        return {"X-Forwarded-For": address}

    right = {"username": "jana", "password": PASSWORD}
    async with server.browser() as owner, server.browser() as attacker:
        await sign_up(owner, "Jana")
        wrong = {"username": "JANA", "password": "guess guess"}
        for _ in range(3):
            await call(
                attacker, "POST", "/api/account/signin", 401, json=wrong, headers=at("6.6.6.6")
            )
        # The name is closed for a while to that address, the right password included ...
        answer = await call(
            attacker, "POST", "/api/account/signin", 429, json=right, headers=at("6.6.6.6")
        )
        assert answer["code"] == "too-many"
        assert "wrong passwords for this user name from your address" in answer["error"]
        assert 1 <= int(answer["_retry"]) <= 900
        # ... but not to its owner elsewhere: one address cannot lock a player out.
        async with server.browser() as phone:
            await call(
                phone, "POST", "/api/account/signin", 200, json=right, headers=at("10.0.0.2")
            )
        # Wrong guesses from many addresses together close the name to everyone for a while.
        await call(attacker, "POST", "/api/account/signin", 401, json=wrong, headers=at("7.7.7.7"))
        await call(attacker, "POST", "/api/account/signin", 401, json=wrong, headers=at("8.8.8.8"))
        async with server.browser() as laptop:
            answer = await call(
                laptop, "POST", "/api/account/signin", 429, json=right, headers=at("10.0.0.3")
            )
        assert "from many addresses" in answer["error"]
        # Too many attempts from one address, whatever the names: the seventh in a minute.
        for name, expect in (("kim", 401), ("lea", 401), ("max", 429)):
            guess = {"username": name, "password": "guess guess"}
            answer = await call(
                attacker, "POST", "/api/account/signin", expect, json=guess, headers=at("6.6.6.6")
            )
        assert "sign-in attempts from your address (at most 6 a minute)" in answer["error"]
        assert 1 <= int(answer["_retry"]) <= 60
        # The owner, signed in already, is not signed out by any of it.
        me = await call(owner, "GET", "/api/me", 200)
        assert me["username"] == "Jana"


async def test_account_creation_is_limited(make: Callable[..., Awaitable[Server]]) -> None:
    server = await make(limits=Limits(accounts_per_hour=2))
    for i, expect in enumerate((201, 201, 429)):
        async with server.browser() as browser:
            await call(browser, "GET", "/api/me", 200)
            body = {"username": f"user{i}", "password": PASSWORD}
            answer = await call(browser, "POST", "/api/account", expect, json=body)
    assert "new accounts from your address" in answer["error"] and answer["_retry"]


async def test_another_sites_page_can_do_nothing(server: Server) -> None:
    evil = {"Origin": "https://evil.example.org"}
    async with server.browser() as browser:
        await sign_up(browser, "Karel")
        for path, body in [
            ("/api/account", {"username": "Mallory", "password": PASSWORD}),
            ("/api/account/signin", {"username": "Karel", "password": PASSWORD}),
            ("/api/account/signout", {}),
            ("/api/account/password", {"password": PASSWORD, "new_password": "hijacked!!"}),
            ("/api/account/delete", {"password": PASSWORD}),
            ("/api/me", {"name": "pwned"}),
        ]:
            answer = await call(browser, "POST", path, 403, json=body, headers=evil)
            assert answer["code"] == "bad-origin"
        me = await call(browser, "GET", "/api/me", 200)
        assert me["username"] == "Karel" and me["name"] == "Karel"
        await sign_in(browser, "Karel")  # the password did not change
        assert await server.service.store.account(username_key("Mallory")) is None


async def test_a_visitor_over_the_guest_limit_still_plays(
    make: Callable[..., Awaitable[Server]],
) -> None:
    """A guest limit reached serves the page all the same, only without an identity."""
    server = await make(limits=Limits(guests_per_minute=1))
    async with server.browser() as one, server.browser() as two:
        await call(one, "GET", "/api/me", 200)
        assert session_of(one) is not None
        async with two.get("/") as page:
            assert page.status == 200 and SESSION_COOKIE not in page.cookies
        answer = await call(
            two, "POST", "/api/account", 429, json={"username": "Lena", "password": PASSWORD}
        )
        assert answer["code"] == "too-many"
        game = await new_game(two, mode="ai", level="beginner")  # playing needs no identity
        assert (await seat_of(two, game["game"]))["type"] == "state"


# -- seats -----------------------------------------------------------------------------------------


async def test_a_signed_in_player_opens_their_seat_anywhere_never_the_other(server: Server) -> None:
    async with (
        server.browser() as anna,
        server.browser() as bob,
        server.browser() as annas_phone,
        server.browser() as stranger,
    ):
        await sign_up(anna, "Marta")
        await sign_up(bob, "Nils")
        created = await new_game(anna, mode="friend", seat=0, name="Marta")
        game, code = invite_parts(created["invite"])
        body = {"invite": code, "name": "Nils"}
        await call(bob, "POST", f"/api/games/{game}/join", 201, json=body)
        await sign_in(annas_phone, "marta")
        await visit(stranger)
        mine = await seat_of(annas_phone, game)
        assert mine["type"] == "state" and mine["view"]["seat"] == 0 and mine["game"]["seat"] == 0
        assert (await seat_of(bob, game))["view"]["seat"] == 1
        theirs = await seat_of(stranger, game)
        assert theirs["type"] == "error" and theirs["code"] == "bad-token"
        # A link decides alone, as before: a wrong one opens nothing, even for the seat's player.
        assert (await seat_of(annas_phone, game, "WRONG"))["code"] == "bad-token"
        # Bob signed in on Marta's phone too: each identity opens its own seat only.
        async with server.browser() as shared:
            await sign_in(shared, "Nils")
            assert (await seat_of(shared, game))["view"]["seat"] == 1
        # The invitation, signed in as its creator elsewhere: yours, and not to be taken.
        invitation = await call(annas_phone, "GET", f"/api/games/{game}/invitation?i={code}", 200)
        assert invitation["yours"] is True
        # Moves from the phone count for Marta's seat.
        async with annas_phone.ws_connect(f"/ws/{game}") as ws:
            seat = Seat(ws)
            state = await seat.until(my_turn)
            await seat.send(type="move", move=state["legal"][0], version=state["game"]["version"])
            await seat.until(lambda s: s["game"]["version"] > state["game"]["version"])


async def test_the_creator_signed_in_elsewhere_cannot_take_their_own_invitation(
    server: Server,
) -> None:
    async with server.browser() as laptop, server.browser() as phone:
        await sign_up(laptop, "Olga")
        created = await new_game(laptop, mode="friend")
        game, code = invite_parts(created["invite"])
        await sign_in(phone, "olga")
        body = {"invite": code, "name": "Olga again"}
        answer = await call(phone, "POST", f"/api/games/{game}/join", 403, json=body)
        assert answer["code"] == "not-allowed"
        row = await server.service.get(game)
        other = 1 - created["seat"]
        assert row is not None and row.row.players[other] is None and not row.row.tokens[other]


async def test_your_games_on_and_finished_with_pages(server: Server) -> None:
    async with server.browser() as browser:
        await sign_up(browser, "Petr")
        games = []
        for i in range(13):  # one unfinished at a time (the limit on games against the AI)
            games.append(await new_game(browser, mode="ai", level="beginner", seat=0))
            if i < 12:
                await server.service.resign(games[-1]["game"], 0)
                await asyncio.sleep(0.002)  # one a millisecond: the order is the resignations'
        waiting = await new_game(browser, mode="ai", level="beginner", seat=1)
        await server.service.settle()  # the beginner's first move: Petr's turn then
        mine = await call(browser, "GET", "/api/me/games", 200)
        assert [g["game"] for g in mine["on"]] == [waiting["game"], games[12]["game"]]
        assert [g["turn"] for g in mine["on"]] == ["you", "you"]
        # a game on has its ISO time of creation, as a finished one (it was "" until reloaded)
        assert all(datetime.fromisoformat(g["created"]) for g in mine["on"])
        assert len(mine["finished"]) == 10 and mine["more"] is True
        last = mine["finished"][0]
        assert last["game"] == games[11]["game"]  # the most recent first
        assert last["result"] == "lost" and last["reason"] == "resign" and last["turn"] is None
        assert last["review"] == f"/review/{last['game']}" and last["updated"] >= last["created"]
        rest = await call(browser, "GET", "/api/me/games?offset=10", 200)
        assert rest["on"] == [] and rest["more"] is False
        assert [g["game"] for g in rest["finished"]] == [games[1]["game"], games[0]["game"]]
    async with server.browser() as nobody:
        assert await call(nobody, "GET", "/api/me/games", 200) == {
            "on": [],
            "finished": [],
            "more": False,
            "_status": 200,
            "_retry": None,
        }


# -- the migration ---------------------------------------------------------------------------------


async def test_games_of_schema_4_belong_to_nobody_and_play_on(
    db: str, aiohttp_client: MakeClient
) -> None:
    old = (
        "INSERT INTO games (id, created_at, updated_at, seed, max_rounds, mode, level, ai_seat, "
        "token0, token1, name0, name1, joined0, joined1, version, status, ai_due) VALUES "
        "('old', 'then', 'then', 7, 3, 'ai', 'beginner', 1, 'tok0', 'tok1', 'Anna', 'beginner', "
        "1, 1, 0, 'playing', 0)"
    )
    statements = [s for step in MIGRATIONS[:4] for s in step]
    if db.startswith("sqlite"):
        conn = sqlite3.connect(db[len("sqlite:///") :])
        conn.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT)")
        for sql in [*statements, old]:
            conn.execute(sql)
        conn.execute("INSERT INTO meta VALUES ('schema_version', '4')")
        conn.commit()
        conn.close()
    else:
        import psycopg

        with psycopg.connect(db, autocommit=True) as pg:
            pg.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT)")
            for sql in [*statements, old]:
                pg.execute(sql)
            pg.execute("INSERT INTO meta VALUES ('schema_version', '4')")
    store = await open_store(db)
    row = await store.load("old")
    assert row is not None and row.players == (None, None) and row.tokens == ("tok0", "tok1")
    service = GameService(store, ai_workers=0, seed=3)
    app = create_app(service)
    app[ACCOUNTS].hasher = CHEAP
    server = Server(await aiohttp_client(app), app)
    async with server.browser() as browser:
        await sign_up(browser, "Quinn")
        assert (await call(browser, "GET", "/api/me/games", 200))["on"] == []
        assert (await seat_of(browser, "old"))[
            "code"
        ] == "bad-token"  # nobody's: no identity opens it
        async with browser.ws_connect("/ws/old?t=tok0") as ws:  # its link, as before
            seat = Seat(ws)
            state = await seat.until(my_turn)
            await seat.send(type="move", move=state["legal"][0], version=0)
            await seat.until(lambda s: s["game"]["version"] > 0)
