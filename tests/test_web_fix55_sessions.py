"""A request that set out with a browser's guest cookie just before the browser signed up or in
(a name saved right after "Create account", another tab's poll) must not make that browser a new
guest: the new guest's cookie took the account's place, and the browser was signed out of the
account it had just made. On SQLite and, when a server is given, PostgreSQL."""

from __future__ import annotations

from typing import Any

import aiohttp

from hanamikoji.web.identity import SESSION_COOKIE, session_hash
from hanamikoji.web.server import ACCOUNTS
from test_web_accounts import PASSWORD, Server, db, make, server

__all__ = ["db", "make", "server"]  # the fixtures, used by name


async def _cookie(browser: aiohttp.ClientSession) -> str:
    """The browser's session cookie now."""
    found = [c.value for c in browser.cookie_jar if c.key == SESSION_COOKIE]
    assert len(found) == 1, found
    return found[0]


async def _late(
    server: Server, cookie: str, method: str, path: str, **kw: Any
) -> tuple[int, Any, list[str]]:
    """A request sent with ``cookie`` by a browser that has no other: its status, its JSON and
    the session cookies it sets."""
    jar = aiohttp.DummyCookieJar()
    async with aiohttp.ClientSession(base_url=server.base, cookie_jar=jar) as late:
        headers = {"Cookie": f"{SESSION_COOKIE}={cookie}", "Origin": server.base}
        async with late.request(method, path, headers=headers, **kw) as r:
            body = await r.json() if r.content_type == "application/json" else await r.text()
            sets = [h for h in r.headers.getall("Set-Cookie", []) if h.startswith(SESSION_COOKIE)]
            return r.status, body, sets


async def test_a_late_request_with_the_cookie_a_sign_up_replaced_makes_no_new_guest(
    server: Server,
) -> None:
    async with server.browser() as browser:
        async with browser.get("/api/me") as r:
            assert r.status == 200
        guest = await _cookie(browser)
        body = {"username": "late_anna", "password": PASSWORD}
        async with browser.post("/api/account", json=body, headers={"Origin": server.base}) as r:
            assert r.status == 201, await r.text()
        account = await _cookie(browser)
        assert account != guest
        # the name saved just after "Create account", sent with the guest's cookie
        status, answer, sets = await _late(server, guest, "POST", "/api/me", json={"name": "Anna"})
        assert status == 409, answer
        assert answer["code"] == "session-changed"
        assert "reload" in answer["error"]
        assert sets == []  # no new guest's cookie to take the account's place
        for path in ("/api/me", "/"):  # nor from a read, nor a page
            status, answer, sets = await _late(server, guest, "GET", path)
            assert sets == [], (path, status, answer)
        async with browser.get("/api/me") as r:  # the browser is still in its account
            me = await r.json()
        assert me["account"] is True and me["username"] == "late_anna"
        assert await _cookie(browser) == account


async def test_a_late_request_with_the_cookie_a_sign_in_replaced_makes_no_new_guest(
    server: Server,
) -> None:
    async with server.browser() as maker:
        body = {"username": "late_boris", "password": PASSWORD}
        async with maker.post("/api/account", json=body, headers={"Origin": server.base}) as r:
            assert r.status == 201, await r.text()
    async with server.browser() as browser:
        async with browser.get("/api/me") as r:
            assert r.status == 200
        guest = await _cookie(browser)
        async with browser.post(
            "/api/account/signin", json=body, headers={"Origin": server.base}
        ) as r:
            assert r.status == 200, await r.text()
        status, answer, sets = await _late(
            server, guest, "POST", "/api/games", json={"mode": "ai", "level": "easy"}
        )
        assert status == 409, answer
        assert (answer["code"], sets) == ("session-changed", []), answer
        async with browser.get("/api/me") as r:
            assert (await r.json())["username"] == "late_boris"


async def test_a_replaced_session_opens_nothing_and_a_signed_out_one_makes_a_guest_as_before(
    server: Server,
) -> None:
    store = server.app[ACCOUNTS].store
    async with server.browser() as browser:
        async with browser.get("/api/me") as r:
            assert r.status == 200
        guest = await _cookie(browser)
        body = {"username": "late_clara", "password": PASSWORD}
        async with browser.post("/api/account", json=body, headers={"Origin": server.base}) as r:
            assert r.status == 201
        account = await _cookie(browser)
        # the replaced session is no way in: not a player, not a live socket's session
        assert await store.session_player(session_hash(guest)) is None
        assert await store.live_sessions([session_hash(guest)]) == set()
        assert await store.session_replaced(session_hash(guest))
        assert not await store.session_replaced(session_hash(account))
        async with browser.post(
            "/api/account/signout", json={}, headers={"Origin": server.base}
        ) as r:
            assert r.status == 200
    # signed out (ended, not replaced): a request with the old cookie is a new guest, as always
    assert not await store.session_replaced(session_hash(account))
    status, answer, sets = await _late(server, account, "POST", "/api/me", json={"name": "Clara"})
    assert status == 200, answer
    assert len(sets) == 1 and account not in sets[0]
