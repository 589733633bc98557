"""A name anyone may type is never taken for an account: beside each player's name, an account's
``@username`` (linked to its profile) or a guest's *guest* mark, at the table, for spectators, on
the home page's list of games, in the review and in the lobby (docs/web.md, "The lobby").

The server side: a seat's ``state`` carries ``game.usernames`` (an account seat's user name, none
for a guest), and nothing else changes: every frame is still what the game's VIEW (and a twin
game's, with other hidden cards) gives. Then two browsers: the account ``alice`` and a guest who
typed "alice" play a friend game.
"""

from __future__ import annotations

import json
import random
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from aiohttp.test_utils import TestClient
from playwright.sync_api import Browser, BrowserContext, Page

from browser_support import (
    LANG,
    PHONE,
    new_context,
    no_horizontal_scroll,
    no_page_errors,
    open_page,
    until,
    wait_for_game,
)
from hanamikoji.web.identity import Accounts
from hanamikoji.web.server import ACCOUNTS, HUB, Connection, create_app
from hanamikoji.web.service import GameService
from hanamikoji.web.store import open_store
from test_web_a11y import Findings
from test_web_accounts import CHEAP, call, sign_up
from test_web_accounts import PASSWORD as SIGN_UP_PASSWORD
from test_web_hidden import check_frames, states_of, twin
from web_support import Seat, Server, play_out

Client = TestClient[Any, Any]
NAME = "alice"  # the account's user name, and the name the guest types
PASSWORD = "cherry blossom 7"
SHOTS = Path("/tmp")


# -- the server: what a seat, a spectator and the lists are sent -----------------------------------


@asynccontextmanager
async def cookie_session(client: Client) -> AsyncIterator[aiohttp.ClientSession]:
    """A browser's session with ``client``'s server: its own cookies, its own guest or account."""
    jar = aiohttp.CookieJar(unsafe=True)
    base = str(client.make_url("/")).rstrip("/")
    async with aiohttp.ClientSession(base_url=base, cookie_jar=jar) as session:
        yield session


async def marks_app(aiohttp_client: Callable[..., Awaitable[Client]], tmp_path: Path) -> Client:
    """The app on a fresh SQLite store, with no AI workers and a cheap password hash."""
    store = await open_store(f"sqlite:///{tmp_path / 'games.sqlite3'}")
    app = create_app(GameService(store, ai_workers=0, seed=11))
    accounts: Accounts = app[ACCOUNTS]
    accounts.hasher = CHEAP
    return await aiohttp_client(app)


@pytest.fixture
async def client(aiohttp_client: Callable[..., Awaitable[Client]], tmp_path: Path) -> Client:
    return await marks_app(aiohttp_client, tmp_path)


async def test_a_seat_is_told_the_account_beside_the_name_and_nothing_hidden(
    client: Client,
) -> None:
    hub = client.app[HUB]
    sent: dict[int, list[str]] = {}

    def keep(conn: Connection) -> None:
        conn.sent = sent.setdefault(conn.seat, [])

    hub.on_connect = keep
    async with cookie_session(client) as alice, cookie_session(client) as guest:
        await sign_up(alice, NAME)
        made = await call(
            alice, "POST", "/api/games", 201, json={"mode": "friend", "seat": 0, "name": NAME}
        )
        code = made["invite"].split("?i=")[1]
        joined = await call(
            guest,
            "POST",
            f"/api/games/{made['game']}/join",
            201,
            json={"invite": code, "name": NAME},
        )
        game_id = made["game"]
        seats = [
            Seat(await alice.ws_connect(f"/ws/{game_id}?t={made['token']}")),
            Seat(await guest.ws_connect(f"/ws/{game_id}?t={joined['token']}")),
        ]
        spectator = Seat(await guest.ws_connect(f"/ws/{game_id}/watch"))
        for s in (*seats, spectator):
            await s.until(lambda st: True)
        await play_out(seats, random.Random(5))
        for s in seats:
            await s.ws.close()
        await spectator.ws.close()

        # The home page's lists: the opponent's user name for an account, none for a guest.
        theirs = (await call(guest, "GET", "/api/me/games", 200))["finished"]
        mine = (await call(alice, "GET", "/api/me/games", 200))["finished"]
        assert [(g["opponent"], g["opponent_username"]) for g in theirs] == [(NAME, NAME)]
        assert [(g["opponent"], g["opponent_username"]) for g in mine] == [(NAME, None)]
        review = await call(guest, "GET", f"/api/games/{game_id}/review", 200)
        assert review["game"]["usernames"] == [NAME, None]

    game = await client.app[HUB].service.get(game_id)
    assert game is not None
    real = states_of(list(game.state.deals), [str(p.move) for p in game.state.history], game.rules)
    tokens = [made["token"], joined["token"]]
    twins = 0
    for seat, texts in sent.items():
        for other, token in enumerate(tokens):  # no other seat's token, a spectator's none
            assert seat == other or not any(token in t for t in texts)
        frames = [json.loads(t) for t in texts]
        states = [f for f in frames if f["type"] == "state"]
        assert len(states) > 5
        for frame in states:  # the account's user name, none for the guest: to both seats
            assert frame["game"].pop("usernames") == [NAME, None]
        if seat < 0:
            continue
        # Without it, each frame is exactly what the seat's VIEW gives, in a twin game too.
        assert check_frames(frames, game.row, seat, real) == len(states)
        built = twin(game.state, seat)
        if built is not None:
            check_frames(frames, game.row, seat, states_of(*built, game.rules))
            twins += 1
    assert -1 in sent and twins >= 1


async def test_only_account_seats_add_the_field(client: Client) -> None:
    """A game of guests (or a guest and the AI) is sent as before: no ``usernames``."""
    async with cookie_session(client) as guest:
        made = await call(guest, "POST", "/api/games", 201, json={"mode": "ai", "level": "easy"})
        async with guest.ws_connect(f"/ws/{made['game']}?t={made['token']}") as ws:
            state = json.loads((await ws.receive(timeout=10)).data)
        assert state["type"] == "state" and "usernames" not in state["game"]
        async with guest.ws_connect(f"/ws/{made['game']}/watch") as ws:
            state = json.loads((await ws.receive(timeout=10)).data)
        assert state["spectator"] and "usernames" not in state["game"]
        await sign_up(guest, "bob_q")  # the same player, now an account
        async with guest.ws_connect(f"/ws/{made['game']}?t={made['token']}") as ws:
            state = json.loads((await ws.receive(timeout=10)).data)
        seat = state["game"]["seat"]
        expected: list[str | None] = [None, None]
        expected[seat] = "bob_q"
        assert state["game"]["usernames"] == expected  # the AI's seat: none
        games = (await call(guest, "GET", "/api/me/games", 200))["on"]
        assert [g["opponent_username"] for g in games] == [None]


async def test_a_deleted_account_is_marked_deleted_not_a_guest(client: Client) -> None:
    """After an account is deleted, its games say so (``deleted``, ``opponent_deleted``) at the
    table, to a spectator, in the review, on the home page's list and a profile's games; the
    guest beside it is still a guest, and a game without a deleted account has no such field."""
    async with (
        cookie_session(client) as alice,
        cookie_session(client) as guest,
        cookie_session(client) as bob,
    ):
        await sign_up(alice, NAME)
        await sign_up(bob, "bob_q")
        made = await call(
            alice, "POST", "/api/games", 201, json={"mode": "friend", "seat": 0, "name": NAME}
        )
        game = made["game"]
        code = made["invite"].split("?i=")[1]
        joined = await call(
            guest, "POST", f"/api/games/{game}/join", 201, json={"invite": code, "name": NAME}
        )
        # bob_q's game against alice, for bob's profile
        theirs = await call(
            bob, "POST", "/api/games", 201, json={"mode": "friend", "seat": 0, "name": "Bob"}
        )
        code = theirs["invite"].split("?i=")[1]
        await call(
            alice,
            "POST",
            f"/api/games/{theirs['game']}/join",
            201,
            json={"invite": code, "name": NAME},
        )
        async with guest.ws_connect(f"/ws/{game}?t={joined['token']}") as ws:
            before = json.loads((await ws.receive(timeout=10)).data)
        assert before["game"]["usernames"] == [NAME, None] and "deleted" not in before["game"]

        body = {"password": SIGN_UP_PASSWORD}  # the one sign_up gave
        await call(alice, "POST", "/api/account/delete", 200, json=body)

        async with guest.ws_connect(f"/ws/{game}?t={joined['token']}") as ws:
            state = json.loads((await ws.receive(timeout=10)).data)
        assert state["result"] is not None  # resigned with the account
        assert state["game"]["deleted"] == [True, False]  # the guest's seat: still a guest
        assert "usernames" not in state["game"]  # no account holds a seat now
        async with bob.ws_connect(f"/ws/{game}/watch") as ws:
            watched = json.loads((await ws.receive(timeout=10)).data)
        assert watched["spectator"] and watched["game"]["deleted"] == [True, False]
        review = await call(guest, "GET", f"/api/games/{game}/review", 200)
        assert review["game"]["deleted"] == [True, False]
        assert "usernames" not in review["game"]
        listed = (await call(guest, "GET", "/api/me/games", 200))["finished"]
        assert [(g["opponent_username"], g.get("opponent_deleted")) for g in listed] == [
            (None, True)
        ]
        profile = await call(guest, "GET", "/api/players/bob_q", 200)
        assert [(g["opponent_username"], g.get("opponent_deleted")) for g in profile["games"]] == [
            (None, True)
        ]
        # The other side of the account, bob's list: bob himself is an account, not deleted.
        bobs = await call(bob, "GET", f"/api/games/{theirs['game']}/review", 200)
        assert bobs["game"]["usernames"] == ["bob_q", None]
        assert bobs["game"]["deleted"] == [False, True]

        # A game of guests only names nobody deleted.
        other = await call(guest, "POST", "/api/games", 201, json={"mode": "ai", "level": "easy"})
        async with guest.ws_connect(f"/ws/{other['game']}?t={other['token']}") as ws:
            fresh = json.loads((await ws.receive(timeout=10)).data)
        assert "deleted" not in fresh["game"] and "usernames" not in fresh["game"]
        mine = (await call(guest, "GET", "/api/me/games", 200))["on"]
        assert [("opponent_deleted" in g, g["opponent_username"]) for g in mine] == [(False, None)]


# -- the browsers ---------------------------------------------------------------------------------


def _account(browser: Browser, server: Server) -> BrowserContext:
    context = new_context(browser)
    assert context.request.get(f"{server.url}/api/me").ok  # a guest first, as a page makes one
    made = context.request.post(
        f"{server.url}/api/account", data={"username": NAME, "password": PASSWORD}
    )
    assert made.status == 201, made.text()
    return context


def _friend_game(host: BrowserContext, friend: BrowserContext, server: Server) -> list[Page]:
    made = host.request.post(
        f"{server.url}/api/games",
        data={"mode": "friend", "seat": 0, "max_rounds": 3, "name": NAME},
    ).json()
    code = made["invite"].split("?i=")[1]
    joined = friend.request.post(
        f"{server.url}/api/games/{made['game']}/join", data={"invite": code, "name": NAME}
    ).json()
    pages = []
    for context, url in ((host, made["url"]), (friend, joined["url"])):
        page = open_page(context)
        page.goto(f"{server.url}{url}")
        wait_for_game(page)
        pages.append(page)
    return pages


def _marks(page: Page, where: str) -> dict[str, Any]:
    """The marks shown in ``where``: the guest marks' texts and titles, the profile links."""
    marks: dict[str, Any] = page.evaluate(
        """where => {
          const box = document.querySelector(where);
          return {
            guests: [...box.querySelectorAll('.guest-mark')].map(m => [m.textContent, m.title]),
            links: [...box.querySelectorAll('a.user-mark')].map(a => [a.textContent,
                                                                    a.getAttribute('href')]),
          };
        }""",
        where,
    )
    return marks


def _no_overlap(page: Page, name: str, mark: str) -> None:
    """The name and its mark are both on show, side by side or one under the other, not over."""
    boxes = [page.locator(s).bounding_box() for s in (name, mark)]
    a, b = boxes
    assert a and b and a["width"] > 0 and b["width"] > 0, boxes
    apart_x = a["x"] + a["width"] <= b["x"] + 0.5 or b["x"] + b["width"] <= a["x"] + 0.5
    apart_y = a["y"] + a["height"] <= b["y"] + 0.5 or b["y"] + b["height"] <= a["y"] + 0.5
    assert apart_x or apart_y, boxes


GUEST_TITLE = "A guest: no account, and a name anyone may type"


def test_an_account_and_a_guest_of_the_same_name_are_told_apart(
    browser: Browser, server: Server
) -> None:
    findings = Findings()
    host = _account(browser, server)
    friend = new_context(browser)
    watcher = new_context(browser, viewport=PHONE, is_mobile=True)
    try:
        alice, guest = _friend_game(host, friend, server)
        until(
            alice,
            "() => document.querySelector('#opp-standing .guest-mark')",
            why="the account's table shows no guest mark for the guest",
        )
        # The account sees the guest: the name typed, and the guest mark with its title.
        assert alice.locator("#opp-name").inner_text() == NAME
        assert _marks(alice, "#opp-standing") == {"guests": [["guest", GUEST_TITLE]], "links": []}
        # and their own, as the other sees it
        assert _marks(alice, "#my-standing") == {"guests": [], "links": [["@alice", "/@/alice"]]}
        label = alice.locator("#opp-standing").get_attribute("aria-label") or ""
        assert label.startswith(f"{NAME}, guest"), label
        # The guest sees the account: the same name, and @alice linked to the profile.
        until(guest, "() => document.querySelector('#opp-standing a.user-mark')", why="no @")
        assert guest.locator("#opp-name").inner_text() == NAME
        assert _marks(guest, "#opp-standing") == {"guests": [], "links": [["@alice", "/@/alice"]]}
        assert _marks(guest, "#my-standing") == {"guests": [["guest", GUEST_TITLE]], "links": []}
        _no_overlap(guest, "#opp-name", "#opp-standing a.user-mark")
        alice.screenshot(path=str(SHOTS / "marks-table-account.png"))
        guest.screenshot(path=str(SHOTS / "marks-table-guest.png"))
        findings.check(guest, "table: the opponent's @user name", ("1280x720", "390x844"))
        findings.check(alice, "table: the opponent's guest mark", ("1280x720", "390x844"))

        # A phone, in Russian (long words): the mark stays legible beside the name.
        for page, which in ((alice, "account"), (guest, "guest")):
            page.set_viewport_size(PHONE)
            page.screenshot(path=str(SHOTS / f"marks-table-{which}-phone-en.png"))
            page.locator("#lang").select_option("ru")
            until(page, LANG, "ru", why="the page is not in Russian")
            no_horizontal_scroll(page)
            page.screenshot(path=str(SHOTS / f"marks-table-{which}-phone-ru.png"))
        assert _marks(alice, "#opp-standing")["guests"][0][0] == "гость"
        mark = "#opp-standing .guest-mark"
        _no_overlap(alice, "#opp-name", mark)

        # A spectator sees both seats' marks.
        spectator = open_page(watcher)
        spectator.goto(alice.url.split("?")[0])
        until(
            spectator,
            "() => document.querySelector('#game').dataset.role === 'spectator'",
            why="not the spectator's table",
        )
        until(spectator, "() => document.querySelector('#my-standing a.user-mark')", why="no @")
        assert _marks(spectator, "#my-standing") == {
            "guests": [],
            "links": [["@alice", "/@/alice"]],
        }
        assert _marks(spectator, "#opp-standing")["guests"] == [["guest", GUEST_TITLE]]
        spectator.screenshot(path=str(SHOTS / "marks-spectator-phone.png"))

        # The home page's lists: each sees the other's mark.
        for page in (alice, guest):
            page.set_viewport_size({"width": 1280, "height": 900})
            page.locator("#lang").select_option("en")
            until(page, LANG, "en", why="the page is not in English")
            page.goto(f"{server.url}/")
            until(page, "() => !document.querySelector('#mine').hidden", why="no list of games")
        assert _marks(alice, "#mine-on") == {"guests": [["guest", GUEST_TITLE]], "links": []}
        assert _marks(guest, "#mine-on") == {"guests": [], "links": [["@alice", "/@/alice"]]}
        what = guest.locator("#mine-on .mine-what").inner_text()
        assert what.startswith(f"against {NAME} @alice"), what
        link = guest.locator("#mine-on a.btn").get_attribute("aria-label") or ""
        assert f"against {NAME} @alice" in link, link
        guest.locator("#mine").screenshot(path=str(SHOTS / "marks-home-guest.png"))
        alice.locator("#mine").screenshot(path=str(SHOTS / "marks-home-account.png"))
        findings.check(guest, "home: the games with the opponent's mark", ("1280x720",))

        # Resigned, the review names both, each with its mark.
        game = alice.locator("#mine-on li").get_attribute("data-game")
        guest.goto(f"{server.url}/g/{game}")
        wait_for_game(guest)
        guest.locator("#resign").click()
        guest.locator("#resign-yes").click()
        until(
            guest,
            "() => document.querySelector('#game').dataset.status === 'over'",
            why="the game did not end",
        )
        guest.goto(f"{server.url}/review/{game}")
        until(guest, "() => document.querySelector('#players a.user-mark')", why="no @ in review")
        assert _marks(guest, "#players") == {
            "guests": [["guest", GUEST_TITLE]],
            "links": [["@alice", "/@/alice"]],
        }
        players = guest.locator("#players").inner_text()
        assert f"{NAME} @alice" in players and f"{NAME} guest" in players, players
        guest.screenshot(path=str(SHOTS / "marks-review.png"))
        for page in (alice, guest, spectator):
            no_page_errors(page)
        findings.assert_clean()
    finally:
        for context in (host, friend, watcher):
            context.close()


def test_a_guest_without_a_name_is_named_by_the_seat_in_the_lobby_too(
    browser: Browser, server: Server
) -> None:
    """At the table a guest who typed no name is "Player 1" or "Player 2" (as the name field's
    help says): the lobby calls them so too, with the guest mark, and "Player 1 or 2" while
    the seats are still to be drawn."""
    maker, visitor = new_context(browser), new_context(browser)
    try:
        assert maker.request.get(f"{server.url}/api/me").ok  # a guest, who typed no name
        for seat in (0, 1, "random"):
            made = maker.request.post(
                f"{server.url}/api/lobby/challenges", data={"control": "3d", "seat": seat}
            )
            assert made.status == 201, made.text()
        page = open_page(visitor)
        page.goto(f"{server.url}/lobby")
        until(page, "() => document.querySelectorAll('#challenges li').length === 3", why="rows")
        who = page.locator("#challenges .challenge-who").all_inner_texts()
        names = ["Player 1", "Player 2", "Player 1 or 2"]
        assert sorted(who) == sorted(f"{n} guest (1500?)" for n in names), who
        what = page.locator("#challenges .challenge-what").all_inner_texts()
        assert any("Player 1 starts" in w for w in what), what
        no_page_errors(page)
    finally:
        maker.close()
        visitor.close()


DELETED_TITLE = "This account was deleted: the player it was is no longer here"


def test_a_deleted_account_is_shown_as_deleted_not_as_a_guest(
    browser: Browser, server: Server
) -> None:
    """The account dora_d plays a guest who typed "dora_d", then deletes the account: the
    guest's table, review and list of games mark that seat "deleted account" (muted, never
    linked, its title saying why), and the guest's own seat still "guest"."""
    name = "dora_d"  # not alice: the server is shared, and a deleted account's name stays taken
    host, friend = new_context(browser), new_context(browser)
    try:
        assert host.request.get(f"{server.url}/api/me").ok  # a guest first, as a page makes one
        body = {"username": name, "password": PASSWORD}
        assert host.request.post(f"{server.url}/api/account", data=body).status == 201
        made = host.request.post(
            f"{server.url}/api/games", data={"mode": "friend", "seat": 0, "name": name}
        ).json()
        code = made["invite"].split("?i=")[1]
        joined = friend.request.post(
            f"{server.url}/api/games/{made['game']}/join", data={"invite": code, "name": name}
        ).json()
        gone = host.request.post(f"{server.url}/api/account/delete", data={"password": PASSWORD})
        assert gone.ok, gone.text()
        page = open_page(friend)
        shown = """where => [...document.querySelectorAll(where + ' .deleted-mark')]
            .map(m => [m.tagName, m.textContent, m.title, m.closest('a') === null])"""
        deleted = [["SPAN", "deleted account", DELETED_TITLE, True]]

        page.goto(f"{server.url}{joined['url']}")
        wait_for_game(page)
        until(page, "() => document.querySelector('#opp-standing .deleted-mark')", why="table")
        assert page.evaluate(shown, "#opp-standing") == deleted
        assert _marks(page, "#my-standing") == {"guests": [["guest", GUEST_TITLE]], "links": []}
        page.screenshot(path=str(SHOTS / "marks-table-deleted.png"))

        page.goto(f"{server.url}/review/{made['game']}")
        until(page, "() => document.querySelector('#players .deleted-mark')", why="review")
        assert page.evaluate(shown, "#players") == deleted
        assert _marks(page, "#players") == {"guests": [["guest", GUEST_TITLE]], "links": []}
        assert page.locator("#players [data-deleted=true]").count() == 1
        page.screenshot(path=str(SHOTS / "marks-review-deleted.png"))

        page.goto(f"{server.url}/")
        until(page, "() => document.querySelector('#mine-finished .deleted-mark')", why="home")
        assert page.evaluate(shown, "#mine-finished") == deleted
        assert _marks(page, "#mine-finished") == {"guests": [], "links": []}
        no_page_errors(page)
    finally:
        host.close()
        friend.close()
