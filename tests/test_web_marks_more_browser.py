"""The marks beside a typed name, in the places the first round left unmarked: the chat (the
players' room and the spectators'), the games on now (/watch) and a profile's games.

The server side: a players' chat line carries its seat (whose ``usernames`` the state gives), a
spectators' line the author's user name (null for a guest), GET /api/watch each game's
``usernames`` and GET /api/players/{name} each game's ``opponent_username``, each list read in one
query, never a player id or token. Then browsers: the account ``alice`` and a guest who typed
"alice" play and talk, an account and a guest watch and talk, and the lists show who is who.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from aiohttp.test_utils import TestClient
from playwright.sync_api import Browser, BrowserContext, Page, ViewportSize

from browser_support import (
    PHONE,
    new_context,
    no_horizontal_scroll,
    no_page_errors,
    open_page,
    until,
)
from hanamikoji.web.server import ACCOUNTS
from test_web_a11y import Findings
from test_web_accounts import call, sign_up
from test_web_chat_browser import chat_violations, lines, say, shows
from test_web_marks_browser import (
    GUEST_TITLE,
    NAME,
    PASSWORD,
    _account,
    _friend_game,
    _marks,
    cookie_session,
    marks_app,
)
from web_support import Seat

Client = TestClient[Any, Any]
SHOTS = Path("/tmp")
WIDE: ViewportSize = {"width": 1280, "height": 900}


# -- the server: what the chat, the list and the profile send --------------------------------------


@pytest.fixture
async def client(aiohttp_client: Callable[..., Awaitable[Client]], tmp_path: Path) -> Client:
    return await marks_app(aiohttp_client, tmp_path)


async def _heard(seat: Seat, text: str) -> dict[str, Any]:
    """The chat line ``text`` as ``seat``'s socket receives it."""
    for _ in range(50):
        try:
            msg = await seat.receive(timeout=5)
        except TimeoutError:
            break
        if msg["type"] == "chat" and msg["line"].get("text") == text:
            line: dict[str, Any] = msg["line"]
            return line
    raise AssertionError(f"the line {text!r} never came: {seat.messages[-5:]}")


class _Counted:
    """``store.accounts``, counting its calls (each is one query; ``usernames`` reads it too)."""

    def __init__(self, store: Any) -> None:
        self.store = store
        self.real = store.accounts
        self.calls = 0

    async def __call__(self, ids: Any) -> dict[str, str | None]:
        self.calls += 1
        found: dict[str, str | None] = await self.real(ids)
        return found

    def __enter__(self) -> _Counted:
        self.store.accounts = self
        return self

    def __exit__(self, *_: object) -> None:
        del self.store.accounts


async def test_the_chat_the_list_and_the_profile_tell_who_is_who(client: Client) -> None:
    store = client.app[ACCOUNTS].store
    async with (
        cookie_session(client) as alice,
        cookie_session(client) as guest,
        cookie_session(client) as bob,
        cookie_session(client) as stranger,
    ):
        await sign_up(alice, NAME)
        await sign_up(bob, "bob_q")
        await call(stranger, "GET", "/api/me", 200)  # a guest, as any page makes one
        made = await call(
            alice, "POST", "/api/games", 201, json={"mode": "friend", "seat": 0, "name": NAME}
        )
        game = made["game"]
        code = made["invite"].split("?i=")[1]
        joined = await call(
            guest, "POST", f"/api/games/{game}/join", 201, json={"invite": code, "name": NAME}
        )
        seats = [
            Seat(await alice.ws_connect(f"/ws/{game}?t={made['token']}")),
            Seat(await guest.ws_connect(f"/ws/{game}?t={joined['token']}")),
        ]
        for seat in seats:
            state = await seat.until(lambda s: True)
            # the page marks a players' line by its seat: the account's user name, none for a guest
            assert state["game"]["names"] == [NAME, NAME]
            assert state["game"]["usernames"] == [NAME, None]

        # The players' room: each line names its seat, and nothing of the player.
        await seats[0].send(type="chat", room="players", text="I am the real alice")
        line = await _heard(seats[1], "I am the real alice")
        assert line["seat"] == 0 and set(line) == {"id", "seat", "at", "text"}
        await seats[1].send(type="chat", room="players", text="so am I")
        line = await _heard(seats[0], "so am I")
        assert line["seat"] == 1 and set(line) == {"id", "seat", "at", "text"}

        # The spectators' room: an account by its user name, a guest by null.
        watchers = [
            Seat(await bob.ws_connect(f"/ws/{game}/watch")),
            Seat(await stranger.ws_connect(f"/ws/{game}/watch")),
        ]
        for w in watchers:
            await w.until(lambda s: True)
            await w.send(type="chat-history", room="spectators")
            while (await w.receive())["type"] != "chat-history":
                pass
        await watchers[0].send(type="chat", room="spectators", text="go alice")
        await watchers[1].send(type="chat", room="spectators", text="go other alice")
        lines_seen = [
            await _heard(watchers[1], "go alice"),
            await _heard(watchers[0], "go other alice"),
        ]
        assert [(x["name"], set(x)) for x in lines_seen] == [
            ("bob_q", {"id", "name", "at", "text"}),
            (None, {"id", "name", "at", "text"}),
        ]

        # The games on now: the seats' user names, one query for the list.
        with _Counted(store) as counted:
            listing = await call(stranger, "GET", "/api/watch", 200)
        assert counted.calls == 1
        (shown,) = [g for g in listing["games"] if g["game"] == game]
        assert shown["names"] == [NAME, NAME] and shown["usernames"] == [NAME, None]

        await seats[1].send(type="resign")
        await seats[1].until(lambda s: s["result"] is not None)
        for seat in seats:
            await seat.ws.close()
        for w in watchers:
            await w.ws.close()

        # The profile's games: the guest's name as typed, and no user name (one query for all).
        with _Counted(store) as counted:
            profile = await call(stranger, "GET", f"/api/players/{NAME}", 200)
        assert counted.calls == 1
        assert [(g["opponent"], g["opponent_username"]) for g in profile["games"]] == [(NAME, None)]
        # The spectators' room kept with the game: the same names.
        rooms = await call(stranger, "GET", f"/api/games/{game}/chat", 200)
        assert [x["name"] for x in rooms["spectators"]] == ["bob_q", None]
        # The guest becomes an account: their games now name them by it.
        await call(
            guest, "POST", "/api/account", 201, json={"username": "carol_g", "password": PASSWORD}
        )
        profile = await call(stranger, "GET", f"/api/players/{NAME}", 200)
        assert [g["opponent_username"] for g in profile["games"]] == ["carol_g"]

        row = await store.load(game)
        assert row is not None
        text = json.dumps([listing, profile, rooms, lines_seen])
        for secret in (*row.players, *row.tokens):
            assert secret is None or secret not in text


# -- the browsers ---------------------------------------------------------------------------------


def _shot(page: Page, name: str, locator: str | None = None) -> None:
    path = str(SHOTS / f"marks2-{name}.png")
    if locator is None:
        page.screenshot(path=path)
    else:
        page.locator(locator).scroll_into_view_if_needed()
        page.locator(locator).screenshot(path=path)


def _fits(page: Page, where: str) -> None:
    """Nothing in ``where`` is wider than its box (a long name and its mark wrap, not overflow)."""
    wide = page.evaluate(
        """where => [...document.querySelectorAll(where)]
             .filter((el) => el.scrollWidth > el.clientWidth + 1)
             .map((el) => el.outerHTML.slice(0, 120))""",
        where,
    )
    assert wide == [], wide


def _chat_shown(page: Page) -> None:
    until(page, "() => !document.querySelector('#chat').hidden", why="the chat box shows")


def test_chat_watch_and_profile_show_the_marks(browser: Browser, server: Any) -> None:
    findings = Findings()
    host = _account(browser, server)
    friend = new_context(browser, viewport=PHONE, is_mobile=True)
    watching_guest = new_context(browser, viewport=PHONE, is_mobile=True)
    watching_account = new_context(browser)
    contexts: list[BrowserContext] = [host, friend, watching_guest, watching_account]
    try:
        made = watching_account.request.post(
            f"{server.url}/api/account", data={"username": "bob_q", "password": PASSWORD}
        )
        assert made.status == 201, made.text()
        alice, guest = _friend_game(host, friend, server)
        game = alice.url.split("/g/")[1].split("?")[0]
        alice.set_viewport_size(WIDE)
        for page in (alice, guest):
            _chat_shown(page)

        # The players' room: each sees the other's mark, their own lines are "You".
        say(alice, "I am the real alice")
        shows(guest, "I am the real alice", "the guest hears the account")
        say(guest, "so am I")
        shows(alice, "so am I", "the account hears the guest")
        until(
            guest, "() => document.querySelectorAll('#chat-lines li').length === 2", why="2 lines"
        )
        assert lines(alice) == ["You: I am the real alice", f"{NAME} guest: so am I"]
        assert lines(guest) == [f"{NAME} @alice: I am the real alice", "You: so am I"]
        assert _marks(alice, "#chat-lines") == {"guests": [["guest", GUEST_TITLE]], "links": []}
        assert _marks(guest, "#chat-lines") == {"guests": [], "links": [["@alice", "/@/alice"]]}
        for page, who in ((alice, "account"), (guest, "guest")):
            for size, viewport in (("1280", WIDE), ("390", PHONE)):
                page.set_viewport_size(viewport)
                _fits(page, "#chat-lines, .chat-line")
                _shot(page, f"chat-{who}-{size}", "#chat")
                _shot(page, f"chat-{who}-{size}-page")
            assert chat_violations(page) == []
        alice.set_viewport_size(WIDE)
        guest.set_viewport_size(PHONE)

        # The spectators' room: an account by its @user name, linked; a guest as "Guest", marked.
        spectators = []
        for context in (watching_account, watching_guest):
            page = open_page(context)
            page.goto(f"{server.url}/g/{game}")
            until(
                page,
                "() => document.querySelector('#game').dataset.role === 'spectator'",
                why="not the spectator's table",
            )
            _chat_shown(page)
            spectators.append(page)
        bob, stranger = spectators
        say(bob, "go alice")
        shows(stranger, "go alice", "the guest spectator hears the account")
        say(stranger, "go other alice")
        shows(bob, "go other alice", "the account spectator hears the guest")
        for page in spectators:
            assert lines(page) == ["@bob_q: go alice", "Guest: go other alice"]
            assert _marks(page, "#chat-lines") == {
                "guests": [["Guest", GUEST_TITLE]],
                "links": [["@bob_q", "/@/bob_q"]],
            }
            assert chat_violations(page) == []
        for page, size in ((bob, "1280"), (stranger, "390")):
            _fits(page, "#chat-lines, .chat-line")
            _shot(page, f"chat-spectators-{size}", "#chat")
            _shot(page, f"chat-spectators-{size}-page")
        assert lines(alice) == ["You: I am the real alice", f"{NAME} guest: so am I"]  # not theirs

        # The games on now: both names as typed, each with its mark.
        for page in spectators:
            page.goto(f"{server.url}/watch")
            until(
                page,
                "g => document.querySelector(`#games-on li[data-game='${g}']`)",
                game,
                why="no game",
            )
        row = f"#games-on li[data-game='{game}']"
        for page in spectators:
            assert _marks(page, row) == {
                "guests": [["guest", GUEST_TITLE]],
                "links": [["@alice", "/@/alice"]],
            }
            assert (
                page.locator(f"{row} .mine-status").inner_text() == f"{NAME} @alice vs {NAME} guest"
            )
            label = page.locator(f"{row} a.btn").get_attribute("aria-label") or ""
            assert label.startswith(f"Watch: {NAME} @alice vs {NAME}, guest"), label
        _shot(bob, "watch-1280")
        _shot(stranger, "watch-390")
        no_horizontal_scroll(stranger)
        _fits(stranger, f"{row}, {row} span")
        findings.check(bob, "watch: the players' marks", ("1280x720", "390x844"))

        # Resigned, the game is on alice's profile: the guest's name with the guest mark.
        guest.locator("#resign").click()
        guest.locator("#resign-yes").click()
        until(guest, "() => document.querySelector('#game').dataset.status === 'over'", why="over")
        for page in spectators:
            page.goto(f"{server.url}/@/{NAME}")
            until(page, "() => document.querySelector('#profile-games li')", why="no games listed")
            assert _marks(page, "#profile-games") == {
                "guests": [["guest", GUEST_TITLE]],
                "links": [],
            }
            what = page.locator("#profile-games .mine-what").inner_text()
            assert what.startswith(f"against {NAME} guest · "), what
            label = page.locator("#profile-games a.btn").get_attribute("aria-label") or ""
            assert f"against {NAME}, guest · " in label, label
        _shot(bob, "profile-1280")
        _shot(stranger, "profile-390")
        no_horizontal_scroll(stranger)
        findings.check(bob, "profile: the opponent's guest mark", ("1280x720", "390x844"))

        # The review keeps the spectators' room, its authors marked as they were.
        stranger.goto(f"{server.url}/review/{game}")
        until(stranger, "() => !document.querySelector('#review-chat').hidden", why="no chat")
        marks = _marks(stranger, "#review-chat")
        assert ["@bob_q", "/@/bob_q"] in marks["links"] and ["Guest", GUEST_TITLE] in marks[
            "guests"
        ]
        _shot(stranger, "review-chat-390", "#review-chat")

        # bob_q deletes the account: the line stays, marked as a deleted account's, unlinked.
        gone = watching_account.request.post(
            f"{server.url}/api/account/delete", data={"password": PASSWORD}
        )
        assert gone.ok, gone.text()
        stranger.reload()
        until(stranger, "() => document.querySelector('#review-chat .deleted-mark')", why="mark")
        marks = _marks(stranger, "#review-chat")
        assert ["@bob_q", "/@/bob_q"] not in marks["links"]
        assert ["Guest", GUEST_TITLE] in marks["guests"]
        deleted = stranger.evaluate(
            """() => [...document.querySelectorAll('#review-chat .deleted-mark')]
                .map((m) => [m.textContent, m.closest('a') === null])"""
        )
        assert deleted == [["deleted account", True]]
        assert "bob_q" not in stranger.locator("#review-chat").inner_text()
        _shot(stranger, "review-chat-deleted-390", "#review-chat")
        for page in (alice, guest, *spectators):
            no_page_errors(page)
        findings.assert_clean()
    finally:
        for context in contexts:
            context.close()
