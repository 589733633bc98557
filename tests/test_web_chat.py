"""Chat over real WebSockets (in-process, both databases): the players' room, the spectators',
what may be said, mutes, chat off, the flood limit, and the rooms kept for the review."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from aiohttp.test_utils import TestClient

from hanamikoji.web.chat import MAX_CHAT, clean_text
from hanamikoji.web.errors import MAX_MARKS, WebError
from hanamikoji.web.server import Settings, create_app
from hanamikoji.web.service import GameService
from hanamikoji.web.store import open_store
from web_support import POSTGRES, Seat, backend_database, claim_invite, postgres_database

Client = TestClient[Any, Any]
MakeClient = Callable[..., Awaitable[Client]]


@pytest.fixture(params=["sqlite", "postgres"])
async def service(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[GameService]:
    """A service on a fresh database, on each backend."""
    with backend_database(request.param, tmp_path) as url:
        store = await open_store(url)
        yield GameService(store, ai_workers=0, hint_iterations=60, seed=5)
        await store.close()


@pytest.fixture
async def client(aiohttp_client: MakeClient, service: GameService) -> Client:
    return await aiohttp_client(create_app(service))


async def next_of(seat: Seat, kind: str, timeout: float = 10.0) -> dict[str, Any]:
    """The next message of type ``kind`` (others are kept in ``seat.messages``)."""
    while True:
        data = await seat.receive(timeout=timeout)
        if data["type"] == kind:
            return data


async def quiet(seat: Seat, kind: str = "chat", wait: float = 0.3) -> None:
    """No message of type ``kind`` arrives within ``wait`` seconds."""
    deadline = time.monotonic() + wait
    while (left := deadline - time.monotonic()) > 0:
        try:
            data = await seat.receive(timeout=left)
        except TimeoutError:
            return
        assert data["type"] != kind, data


def new_browser() -> aiohttp.ClientSession:
    """A browser of its own: its own cookies (kept for 127.0.0.1 too)."""
    return aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True))


def base(client: Client) -> str:
    return str(client.make_url("/")).rstrip("/")


async def friend_game(client: Client) -> tuple[str, list[Seat], aiohttp.ClientSession]:
    """A friend game, both seats connected and their first states read; the guest's browser."""
    data = await (
        await client.post("/api/games", json={"mode": "friend", "seat": 0, "name": "Anna"})
    ).json()
    host = Seat(await client.ws_connect(f"/ws/{data['game']}?t={data['token']}"))
    guest_browser = new_browser()
    token = await claim_invite_in(guest_browser, base(client), data["invite"], "Bob")
    guest = Seat(await guest_browser.ws_connect(f"{base(client)}/ws/{data['game']}?t={token}"))
    for seat in (host, guest):
        await seat.until(lambda s: True)
    return data["game"], [host, guest], guest_browser


async def claim_invite_in(session: aiohttp.ClientSession, url: str, invite: str, name: str) -> str:
    """Take the invitation's seat in ``session`` (a browser: it keeps the guest's cookie)."""
    game, _, code = invite.removeprefix("/join/").partition("?i=")
    async with session.post(
        f"{url}/api/games/{game}/join", json={"invite": code, "name": name}
    ) as r:
        assert r.status == 201, await r.text()
        token: str = (await r.json())["token"]
    return token


async def stranger(client: Client) -> aiohttp.ClientSession:
    """Another browser, with a guest's session of its own."""
    browser = new_browser()
    async with browser.get(f"{base(client)}/api/me") as r:
        assert r.status == 200
    return browser


async def watcher(browser: aiohttp.ClientSession, url: str, game: str) -> Seat:
    spectator = Seat(await browser.ws_connect(f"{url}/ws/{game}/watch"))
    await spectator.until(lambda s: True)
    return spectator


async def spectators_cheer(eve: Seat, ivan: Seat) -> None:
    """Both spectators into their room (its messages come from then on); Eve says "go Bob",
    then Ivan "go Anna", each line read back."""
    for spectator in (eve, ivan):
        await spectator.send(type="chat-history", room="spectators")
        await next_of(spectator, "chat-history")
    await eve.send(type="chat", room="spectators", text="go Bob")
    await next_of(ivan, "chat")
    await ivan.send(type="chat", room="spectators", text="go Anna")
    await next_of(ivan, "chat")


async def test_two_players_talk(client: Client) -> None:
    game, (anna, bob), browser = await friend_game(client)
    async with browser:
        await anna.send(type="chat", text="Hello Bob!")
        for seat in (anna, bob):  # the author's own windows get it too
            said = await next_of(seat, "chat")
            assert said["room"] == "players"
            line = said["line"]
            assert line["seat"] == 0 and line["text"] == "Hello Bob!" and line["id"]
            assert set(line) == {"id", "seat", "at", "text"}  # no player id, no address
        await bob.send(type="chat", phrase="good-luck")
        said = await next_of(anna, "chat")
        assert said["line"]["seat"] == 1 and said["line"]["phrase"] == "good-luck"
        assert "text" not in said["line"]
        await bob.send(type="chat-history")
        history = await next_of(bob, "chat-history")
        assert history["room"] == "players" and history["muted"] is False
        assert history["off"] is False
        assert [(x["seat"], x.get("text"), x.get("phrase")) for x in history["lines"]] == [
            (0, "Hello Bob!", None),
            (1, None, "good-luck"),
        ]
        await anna.ws.close()
        await bob.ws.close()
    assert game


async def test_html_and_control_characters_arrive_as_text_or_are_refused(client: Client) -> None:
    _, (anna, bob), browser = await friend_game(client)
    async with browser:
        await anna.send(type="chat", text="<b>x</b> <script>alert(1)</script> &amp;")
        line = (await next_of(bob, "chat"))["line"]
        assert line["text"] == "<b>x</b> <script>alert(1)</script> &amp;"  # as typed
        await anna.send(type="chat", text="two\nlines\tand   spaces")
        assert (await next_of(bob, "chat"))["line"]["text"] == "two lines and spaces"
        await anna.send(type="chat", text="family 👨\u200d👩\u200d👧")  # an emoji sequence is fine
        assert (await next_of(bob, "chat"))["line"]["text"] == "family 👨\u200d👩\u200d👧"
        refused = [
            ("\x1b[31mred", "bad-request", "U+001B"),
            ("nul\x00", "bad-request", "U+0000"),
            ("evil \u202eoverride", "bad-request", "U+202E RIGHT-TO-LEFT OVERRIDE (character 6)"),
            ("bell\x07", "bad-request", "U+0007"),
            ("half \ud83d", "bad-request", "U+D83D (character 6) is half of a UTF-16 surrogate"),
            ("   ", "bad-request", "empty"),
            ("x" * (MAX_CHAT + 1), "too-long", f"at most {MAX_CHAT} characters"),
            (123, "bad-request", "text must be a string"),
        ]
        for text, code, words in refused:
            await anna.send(type="chat", text=text)
            error = await anna.error()
            assert error["code"] == code and words in error["message"], error
            assert error["about"] == "chat"
        await anna.send(type="chat", phrase="gg-ez")
        error = await anna.error()
        assert error["code"] == "bad-request" and "good-luck" in error["message"]
        await anna.send(type="chat", text="x", colour="red")
        assert "unknown keys" in (await anna.error())["message"]
        await anna.send(type="chat", text="ok", phrase="thanks")
        assert "not both" in (await anna.error())["message"]
        # JSON that is not an object: said so, with what it is (not "unknown message type None")
        for raw, what in (('["chat"]', "a list"), ('"chat"', "a string"), ("null", "null")):
            await anna.ws.send_str(raw)
            error = await anna.error()
            assert error["code"] == "bad-request", error
            assert error["message"].startswith("a message is a JSON object"), error
            assert error["message"].endswith(f"this one is {what}"), error
        await quiet(bob)  # nothing refused was delivered
        await anna.send(type="chat-history")
        lines = (await next_of(anna, "chat-history"))["lines"]
        assert len(lines) == 3
        await anna.ws.close()
        await bob.ws.close()


async def test_direction_marks_arrive_and_a_direction_override_is_refused_by_name(
    client: Client,
) -> None:
    """The direction marks Hebrew and Arabic typists use are text (each is one strong letter: it
    reorders nothing outside itself); an override is refused, the error naming it and where."""
    _, (anna, bob), browser = await friend_game(client)
    async with browser:
        for marked in ("שלום\u200f!", "\u200e(1) ok", "مرحبا\u061c 2"):
            await anna.send(type="chat", text=marked)
            assert (await next_of(bob, "chat"))["line"]["text"] == marked
        await anna.send(type="chat", text="שלום \u202eevil")
        error = await anna.error()
        assert error["code"] == "bad-request" and error["about"] == "chat", error
        assert "U+202E RIGHT-TO-LEFT OVERRIDE (character 6)" in error["message"], error
        await quiet(bob)
        await anna.ws.close()
        await bob.ws.close()


def test_clean_text() -> None:
    assert clean_text("  a  b ") == "a b"
    assert clean_text("x" * MAX_CHAT) == "x" * MAX_CHAT
    assert clean_text("a\u2028b\x85c") == "a b c"  # line separators are spaces too
    for bad in ("\ud800", "\u200b", "\x7f", "\x9b"):  # a lone surrogate, zero-width, DEL, CSI
        with pytest.raises(WebError):
            clean_text(bad)
    # accents: Vietnamese's two on a letter are text; a stack that smears the chat is refused
    assert (
        clean_text("Vi\u00ea\u0323t nam ng\u01b0\u0323\u0301")
        == "Vi\u00ea\u0323t nam ng\u01b0\u0323\u0301"
    )
    assert clean_text("a" + "\u0301" * MAX_MARKS) == "a" + "\u0301" * MAX_MARKS
    with pytest.raises(WebError, match=r"at most 4 marks .* character 3 has 66"):
        clean_text("hi" + "e" + "\u0300\u0301\u0302" * 22 + " there")


def test_direction_marks_are_text_and_direction_controls_are_refused_by_name() -> None:
    # LEFT-TO-RIGHT MARK, RIGHT-TO-LEFT MARK, ARABIC LETTER MARK: each one strong letter
    for mark in ("\u200e", "\u200f", "\u061c"):
        assert clean_text(f"שלום{mark} 12") == f"שלום{mark} 12"
        with pytest.raises(WebError, match="empty"):  # nothing to read
            clean_text(f" {mark}{mark} ")
    # the embeddings, overrides and isolates reorder the text after them: refused, by name
    names = {
        0x202A: "LEFT-TO-RIGHT EMBEDDING",
        0x202B: "RIGHT-TO-LEFT EMBEDDING",
        0x202C: "POP DIRECTIONAL FORMATTING",
        0x202D: "LEFT-TO-RIGHT OVERRIDE",
        0x202E: "RIGHT-TO-LEFT OVERRIDE",
        0x2066: "LEFT-TO-RIGHT ISOLATE",
        0x2067: "RIGHT-TO-LEFT ISOLATE",
        0x2068: "FIRST STRONG ISOLATE",
        0x2069: "POP DIRECTIONAL ISOLATE",
    }
    for code, name in names.items():
        with pytest.raises(WebError) as refused:
            clean_text(f"ab\u200f  c{chr(code)}d")
        assert refused.value.code == "bad-request"
        assert f"U+{code:04X} {name} (character 7) is a direction control" in refused.value.message
    with pytest.raises(WebError) as refused:
        clean_text("x\u200by")
    assert "U+200B ZERO WIDTH SPACE (character 2) is an invisible formatting" in str(refused.value)
    with pytest.raises(WebError) as refused:
        clean_text("\x1b[31m")
    assert "U+001B (character 1) is a control character" in str(refused.value)


async def test_a_muted_opponent_is_not_shown(client: Client) -> None:
    _, (anna, bob), browser = await friend_game(client)
    async with browser:
        await anna.send(type="chat", text="before")
        await next_of(bob, "chat")
        await next_of(anna, "chat")
        await bob.send(type="mute", on=True)
        history = await next_of(bob, "chat-history")
        assert history["muted"] is True and history["lines"] == []  # hidden at once
        await anna.send(type="chat", text="are you there?")
        assert (await next_of(anna, "chat"))["line"]["text"] == "are you there?"
        await quiet(bob)
        await bob.send(type="chat", text="I still talk")  # the mute is one way
        assert (await next_of(anna, "chat"))["line"]["text"] == "I still talk"
        assert (await next_of(bob, "chat"))["line"]["text"] == "I still talk"
        await bob.send(type="chat-history")
        texts = [x["text"] for x in (await next_of(bob, "chat-history"))["lines"]]
        assert texts == ["I still talk"]
        await anna.send(type="chat-history")
        texts = [x["text"] for x in (await next_of(anna, "chat-history"))["lines"]]
        assert texts == ["before", "are you there?", "I still talk"]
        await bob.send(type="mute", on="yes")
        assert (await bob.error())["code"] == "bad-request"
        await bob.send(type="mute")  # no "on": refused, not taken as a mute
        error = await bob.error()
        assert error["code"] == "bad-request" and "got null" in error["message"], error
        await bob.send(type="mute", on=False)
        history = await next_of(bob, "chat-history")
        assert history["muted"] is False and len(history["lines"]) == 3
        await anna.ws.close()
        await bob.ws.close()


async def test_a_flood_is_refused_with_when_to_try_again(client: Client) -> None:
    _, (anna, bob), browser = await friend_game(client)
    async with browser:
        for i in range(5):
            await anna.send(type="chat", text=f"spam {i}")
            await next_of(bob, "chat")
        await anna.send(type="chat", text="spam 5")
        error = await anna.error()
        assert error["code"] == "too-many" and error["about"] == "chat"
        assert error["message"].startswith("too many messages: at most 5 in 10 seconds")
        assert "try again in" in error["message"] and 1 <= error["retry_after"] <= 10
        await quiet(bob)
        await bob.send(type="chat", text="my turn to talk")  # counted per author
        assert (await next_of(anna, "chat"))["line"]["text"] == "my turn to talk"
        await anna.ws.close()
        await bob.ws.close()


async def test_many_guests_of_one_address_cannot_flood_the_spectators_room(
    aiohttp_client: MakeClient, service: GameService
) -> None:
    """A new guest is cheap: counted by author alone, one address could post without end."""
    service.limits.limits = replace(service.limits.limits, chat_per_address=6)
    client = await aiohttp_client(create_app(service, Settings(limits=service.limits.limits)))
    game, (anna, bob), browser = await friend_game(client)
    url = base(client)
    async with browser, await stranger(client) as far_browser:
        far = await watcher(far_browser, url, game)
        await far.send(type="chat-history", room="spectators")
        await next_of(far, "chat-history")
        guests = [await stranger(client) for _ in range(3)]
        try:
            posted = 0
            for i, guest in enumerate(guests):
                spammer = await watcher(guest, url, game)
                for j in range(2):  # each guest within its own limits
                    await spammer.send(type="chat", room="spectators", text=f"spam {i}{j}")
                    await next_of(far, "chat")
                    posted += 1
                if posted == 6:
                    await spammer.send(type="chat", room="spectators", text="one more")
                    error = await spammer.error()
                    assert error["code"] == "too-many" and error["about"] == "chat"
                    assert error["message"].startswith(
                        "too many messages from your address: at most 6 a minute"
                    )
                    assert 1 <= error["retry_after"] <= 60
                await spammer.ws.close()
            await quiet(far)
        finally:
            for guest in guests:
                await guest.close()
        await far.ws.close()
        await anna.ws.close()
        await bob.ws.close()


async def test_spectators_have_a_room_of_their_own(client: Client) -> None:
    game, (anna, bob), browser = await friend_game(client)
    url = base(client)
    async with (
        browser,
        await stranger(client) as eve_browser,
        await stranger(client) as ivan_browser,
    ):
        async with eve_browser.post(
            f"{url}/api/account", json={"username": "eve_w", "password": "correct horse"}
        ) as r:
            assert r.status == 201
        eve = await watcher(eve_browser, url, game)
        ivan = await watcher(ivan_browser, url, game)
        for spectator in (eve, ivan):
            await spectator.send(type="chat-history", room="spectators")
            history = await next_of(spectator, "chat-history")
            assert history["room"] == "spectators" and history["lines"] == []
        await eve.send(type="chat-history")  # the room not named: told to name it
        error = await eve.error()
        assert error["code"] == "bad-request" and '"room": "spectators"' in error["message"]
        await eve.send(type="mute", on=True)
        assert "cannot mute a player" in (await eve.error())["message"]
        await eve.ws.send_str("[1]")
        error = await eve.error()
        assert error["code"] == "bad-request", error
        assert error["message"].startswith("a message is a JSON object"), error
        # Never to the players' room, with or without naming it.
        for message in (
            {"type": "chat", "text": "psst"},
            {"type": "chat", "room": "players", "text": "psst"},
        ):
            await eve.send(**message)
            error = await eve.error()
            assert error["code"] == "spectator" and "cannot talk to the players" in error["message"]
        await eve.send(type="chat", room="spectators", text="what a Gift")
        for spectator in (eve, ivan):
            line = (await next_of(spectator, "chat"))["line"]
            assert line["name"] == "eve_w" and line["text"] == "what a Gift"
            assert set(line) == {"id", "name", "at", "text"}
        await ivan.send(type="chat", room="spectators", phrase="hello")
        line = (await next_of(eve, "chat"))["line"]
        assert line["name"] is None and line["phrase"] == "hello"  # a guest: no name
        # The players hear none of it, and cannot read or write it while the game is on.
        await anna.send(type="chat", text="good luck")
        assert (await next_of(bob, "chat"))["room"] == "players"
        await quiet(eve)
        for seat in (anna, bob):
            await quiet(seat, kind="(anything: read what came)", wait=0.1)
            assert all(m.get("room") != "spectators" for m in seat.messages)
        await anna.send(type="chat", room="spectators", text="hi watchers")
        error = await anna.error()
        assert error["code"] == "not-allowed" and "spectators' room" in error["message"]
        assert f"review, once the game is over (/review/{game})" in error["message"]  # (it is on)
        # A player's own browser opening the spectators' socket is still the player.
        peek = await watcher(browser, url, game)
        await peek.send(type="chat-history", room="spectators")
        assert (await peek.error())["code"] == "not-allowed"
        await peek.ws.close()
        # ... and so is a browser that opens it by the seat's link
        held = {c.key: c.value for c in browser.cookie_jar}[f"hk_{game}"]
        async with new_browser() as elsewhere:
            by_link = Seat(await elsewhere.ws_connect(f"{url}/ws/{game}/watch?t={held}"))
            await by_link.until(lambda s: True)
            await by_link.send(type="chat-history", room="spectators")
            assert (await by_link.error())["code"] == "not-allowed"
            # a message for another game is not this socket's, as on a seat's socket
            await by_link.send(type="ping", game="another")
            assert (await by_link.error())["code"] == "wrong-game"
            await by_link.ws.close()
        # A spectator's socket without any session may read, not talk.
        async with new_browser() as nobody:
            anon = await watcher(nobody, url, game)
            await anon.send(type="chat-history", room="spectators")
            assert len((await next_of(anon, "chat-history"))["lines"]) == 2
            await anon.send(type="chat", room="spectators", text="hi")
            assert (await anon.error())["code"] == "not-allowed"
            await anon.ws.close()
        for ws in (anna, bob, eve, ivan):
            await ws.ws.close()


async def test_a_deleted_accounts_lines_keep_no_user_name(client: Client) -> None:
    """An account deleted after talking to the spectators: its lines stay, without its user
    name (no link to a profile that is gone), marked as a deleted account's, never a guest's."""
    game, (anna, bob), browser = await friend_game(client)
    url = base(client)
    async with browser, await stranger(client) as eve_browser, await stranger(client) as ivan_b:
        async with eve_browser.post(
            f"{url}/api/account", json={"username": "eve_w", "password": "correct horse"}
        ) as r:
            assert r.status == 201
        eve, ivan = await watcher(eve_browser, url, game), await watcher(ivan_b, url, game)
        await spectators_cheer(eve, ivan)
        await eve.ws.close()
        async with eve_browser.post(
            f"{url}/api/account/delete", json={"password": "correct horse"}
        ) as r:
            assert r.status == 200
        await ivan.send(type="chat-history", room="spectators")
        lines = (await next_of(ivan, "chat-history"))["lines"]
        assert [(x["text"], x["name"], x.get("deleted")) for x in lines] == [
            ("go Bob", None, True),
            ("go Anna", None, None),
        ]
        await bob.send(type="resign")
        await anna.until(lambda s: s["result"] is not None)
        async with ivan_b.get(f"{url}/api/games/{game}/chat") as r:  # the review's rooms
            spectators = (await r.json())["spectators"]
        assert [x.get("deleted") for x in spectators] == [True, None]
        assert "eve_w" not in str(spectators)
        for ws in (anna, bob, ivan):
            await ws.ws.close()


async def test_chat_off_in_the_settings(client: Client) -> None:
    _, (anna, bob), browser = await friend_game(client)
    url = base(client)
    async with browser:
        async with browser.get(f"{url}/api/me/chat") as r:
            assert await r.json() == {"chat": True}
        for bad in ({"chat": "no"}, {"chat": False, "x": 1}, {}):
            async with browser.post(f"{url}/api/me/chat", json=bad) as r:
                assert r.status == 400 and (await r.json())["code"] == "bad-request"
        async with browser.post(f"{url}/api/me/chat", json={"chat": False}) as r:
            assert await r.json() == {"chat": False}
        async with browser.get(f"{url}/api/me/chat") as r:
            assert await r.json() == {"chat": False}
        await bob.send(type="chat-history")
        history = await next_of(bob, "chat-history")
        assert history["off"] is True and history["lines"] == []
        await anna.send(type="chat", text="anyone?")
        await next_of(anna, "chat")
        await quiet(bob)  # nothing shown...
        await bob.send(type="chat", text="hi")
        error = await bob.error()  # ...and nothing sent
        assert error["code"] == "chat-off" and "settings" in error["message"]
        await quiet(anna)
        async with browser.post(f"{url}/api/me/chat", json={"chat": True}) as r:
            assert await r.json() == {"chat": True}
        await bob.send(type="chat-history")
        assert [x["text"] for x in (await next_of(bob, "chat-history"))["lines"]] == ["anyone?"]
        await anna.ws.close()
        await bob.ws.close()


async def test_kept_with_the_game_and_shown_in_its_review_to_its_players(client: Client) -> None:
    game, (anna, bob), browser = await friend_game(client)
    url = base(client)
    async with browser, await stranger(client) as eve_browser:
        eve = await watcher(eve_browser, url, game)
        await eve.send(type="chat-history", room="spectators")
        await next_of(eve, "chat-history")
        await eve.send(type="chat", room="spectators", text="go Anna")
        await next_of(eve, "chat")
        await anna.send(type="chat", text="<i>hi</i>")
        await next_of(bob, "chat")
        await bob.send(type="chat", phrase="well-played")
        await next_of(anna, "chat")
        async with eve_browser.get(f"{url}/api/games/{game}/chat") as r:
            assert r.status == 403  # not while the game is on
        await bob.send(type="resign")
        await anna.until(lambda s: s["result"] is not None)
        await bob.send(type="chat", text="gg")  # talking goes on after the end
        await next_of(anna, "chat")
        players = [(0, "<i>hi</i>", None), (1, None, "well-played"), (1, "gg", None)]
        for who in (client.session, browser):
            async with who.get(f"{url}/api/games/{game}/chat") as r:
                rooms = await r.json()
            got = [(x["seat"], x.get("text"), x.get("phrase")) for x in rooms["players"]]
            assert got == players
            assert [x["text"] for x in rooms["spectators"]] == ["go Anna"]
        async with eve_browser.get(f"{url}/api/games/{game}/chat") as r:  # a spectator
            rooms = await r.json()
        assert rooms["players"] is None and [x["text"] for x in rooms["spectators"]] == ["go Anna"]
        async with new_browser() as nobody, nobody.get(f"{url}/api/games/{game}/chat") as r:
            assert (await r.json())["players"] is None
        async with eve_browser.get(f"{url}/api/games/nosuchgame/chat") as r:
            assert r.status == 404
        for ws in (anna, bob, eve):
            await ws.ws.close()


async def test_no_chat_with_the_ai(client: Client) -> None:
    data = await (await client.post("/api/games", json={"mode": "ai", "level": "beginner"})).json()
    seat = Seat(await client.ws_connect(f"/ws/{data['game']}?t={data['token']}"))
    await seat.until(lambda s: True)
    await seat.send(type="chat", text="hello AI")
    error = await seat.error()
    assert error["code"] == "not-allowed" and "the AI does not chat" in error["message"]
    await seat.send(type="mute", on=True)
    assert (await seat.error())["code"] == "not-allowed"
    await seat.send(type="chat", room="lounge", text="hi")
    assert "unknown room" in (await seat.error())["message"]
    await seat.ws.close()


@pytest.mark.skipif(POSTGRES is None, reason="HANAMIKOJI_TEST_POSTGRES is not set")
async def test_two_servers_carry_each_others_messages(aiohttp_client: MakeClient) -> None:
    with postgres_database() as url:
        stores = [await open_store(url), await open_store(url)]
        try:
            services = [GameService(s, ai_workers=0, seed=5) for s in stores]
            one, two = [await aiohttp_client(create_app(s)) for s in services]
            data = await (await one.post("/api/games", json={"mode": "friend", "seat": 0})).json()
            anna = Seat(await one.ws_connect(f"/ws/{data['game']}?t={data['token']}"))
            token = await claim_invite(base(two), data["invite"])
            bob = Seat(await two.ws_connect(f"/ws/{data['game']}?t={token}"))
            for seat in (anna, bob):
                await seat.until(lambda s: True)
            await anna.send(type="chat", text="from server one")
            assert (await next_of(bob, "chat"))["line"]["text"] == "from server one"
            await next_of(anna, "chat")  # (the author's own)
            await bob.send(type="chat", text="and back")
            assert (await next_of(anna, "chat"))["line"]["text"] == "and back"
            await anna.ws.close()
            await bob.ws.close()
            await one.close()
            await two.close()
        finally:
            for store in stores:
                await store.close()
