"""Small things a demanding player notices at the table (Playwright, Chromium).

- A spectator's banner names both players with their marks, as the scorebar does: the account
  ``alice`` and a guest who typed "alice" read "alice @alice vs alice guest", not "alice vs alice".
  Two guests who both typed "alice" are told apart by their seats ("alice (Player 1)").
- Where the two players go by the same name, the spectator's sentences (whose turn, the result,
  why) say which one with the mark in words ("alice @alice", "alice, guest"); a player's own table
  says "you", which tells them apart already.
- A finished game leaves no empty box under the hand where the move to confirm was.
"""

from __future__ import annotations

import random
import time

from playwright.sync_api import Browser, Page

from browser_support import (
    friend_game,
    game_over,
    legal,
    make_move,
    my_decision,
    new_context,
    no_page_errors,
    open_page,
    play_by_clicks,
    until,
    wait_for_game,
    wait_for_my_turn,
)
from test_web_marks_browser import NAME, _account, _friend_game
from web_support import Server

ACCOUNT = f"{NAME} @{NAME}"  # the account's name and mark, in words
GUEST = f"{NAME}, guest"


def _text(page: Page, selector: str) -> str:
    return page.locator(selector).inner_text().strip()


def _choices_box(page: Page) -> dict[str, object]:
    box: dict[str, object] = page.evaluate(
        """() => {
          const box = document.querySelector('#choices');
          return {height: box.getBoundingClientRect().height, children: box.childElementCount};
        }"""
    )
    return box


def test_a_spectator_tells_an_account_from_a_guest_of_the_same_name(
    browser: Browser, server: Server
) -> None:
    host = _account(browser, server)
    friend = new_context(browser)
    watcher = new_context(browser)
    try:
        alice, guest = _friend_game(host, friend, server)
        spectator = open_page(watcher)
        spectator.goto(alice.url.split("?")[0])
        until(
            spectator,
            "() => document.querySelector('#watching-names .guest-mark')",
            why="the banner has no marks",
        )
        # The banner: each name with its mark, the account's linked to its profile.
        banner = _text(spectator, "#watching-names")
        assert banner == f"{NAME} @{NAME} vs {NAME} guest", banner
        assert _text(spectator, "#watching-title").startswith("You are watching alice @alice")
        link = spectator.locator("#watching-names a.user-mark")
        assert link.get_attribute("href") == f"/@/{NAME}"
        assert spectator.locator("#watching-names .guest-mark").count() == 1

        # Whose turn: the same name twice, so the one to move is named with the mark.
        now = _text(spectator, "#status .now")
        assert ACCOUNT in now or GUEST in now, now

        # The guest resigns: the result says who won and who resigned, each told apart.
        guest.locator("#resign").click()
        guest.locator("#resign-yes").click()
        until(spectator, "() => !document.querySelector('#result').hidden", why="no result")
        assert _text(spectator, "#result-title") == f"{ACCOUNT} won"
        assert _text(spectator, "#result-reason") == f"{GUEST} resigned."
        # The players' own tables keep "you" and the plain name.
        until(alice, "() => !document.querySelector('#result').hidden", why="no result")
        assert _text(alice, "#result-title") == "You won!"
        assert _text(alice, "#result-reason") == f"{NAME} resigned."

        # In Russian the banner keeps the marks, translated.
        spectator.locator("#lang").select_option("ru")
        until(spectator, "() => document.documentElement.lang === 'ru'", why="not in Russian")
        assert _text(spectator, "#watching-names") == f"{NAME} @{NAME} против {NAME} гость"
        for page in (alice, guest, spectator):
            no_page_errors(page)
    finally:
        for context in (host, friend, watcher):
            context.close()


def test_a_spectator_tells_two_guests_of_the_same_name_by_their_seats(
    browser: Browser, server: Server
) -> None:
    _, (first, second) = friend_game(browser, server, host=NAME, guest=NAME)
    watcher = new_context(browser)
    try:
        spectator = open_page(watcher)
        spectator.goto(first.url.split("?")[0])
        until(
            spectator,
            "() => /Player/.test(document.querySelector('#status .now')?.textContent ?? '')",
            why="whose turn does not say which alice",
        )
        now = _text(spectator, "#status .now")
        assert f"{NAME} (Player 1)" in now or f"{NAME} (Player 2)" in now, now
        second.locator("#resign").click()  # the guest of seat 1
        second.locator("#resign-yes").click()
        until(spectator, "() => !document.querySelector('#result').hidden", why="no result")
        assert _text(spectator, "#result-title") == f"{NAME} (Player 1) won"
        assert _text(spectator, "#result-reason") == f"{NAME} (Player 2) resigned."
        until(first, "() => !document.querySelector('#result').hidden", why="no result")
        assert _text(first, "#result-reason") == f"{NAME} resigned."  # "you" tells them apart
        for page in (first, second, spectator):
            no_page_errors(page)
    finally:
        for page in (first, second):
            page.context.close()
        watcher.close()


def test_a_spectator_of_two_names_reads_them_plain(browser: Browser, server: Server) -> None:
    """Names that differ need no mark in the sentences: the banner alone carries them."""
    player, watcher = new_context(browser), new_context(browser)
    try:
        made = player.request.post(
            f"{server.url}/api/games",
            data={"mode": "ai", "level": "beginner", "seat": 0, "name": "Kiku"},
        ).json()
        page = open_page(watcher)
        page.goto(f"{server.url}{made['url'].split('?')[0]}")  # no seat's token: a spectator
        until(page, "() => document.querySelector('#game').dataset.role === 'spectator'", why="")
        until(page, "() => document.querySelector('#watching-names .guest-mark')", why="no mark")
        banner = _text(page, "#watching-names")
        assert banner.startswith("Kiku guest vs ") and banner.count("guest") == 1, banner
        until(page, "() => /Kiku/.test(document.querySelector('#status .now').textContent)", why="")
        assert "guest" not in _text(page, "#status .now")
        no_page_errors(page)
    finally:
        player.close()
        watcher.close()


def test_a_finished_game_leaves_no_empty_box_under_the_hand(
    browser: Browser, server: Server
) -> None:
    context = new_context(browser)
    try:
        page = open_page(context)
        made = page.request.post(
            f"{server.url}/api/games",
            data={"mode": "ai", "level": "beginner", "seat": 0, "max_rounds": 1},
        ).json()
        page.goto(f"{server.url}{made['url']}")
        wait_for_game(page)
        box = _choices_box(page)
        assert box["height"] and float(str(box["height"])) >= 40, box  # in play: it keeps its room
        play_by_clicks([page], random.Random(3))
        assert game_over(page)
        assert _choices_box(page) == {"height": 0, "children": 0}
        no_page_errors(page)
    finally:
        context.close()


def test_an_opponent_who_left_is_waited_for_not_said_to_be_playing(
    browser: Browser, server: Server
) -> None:
    """A friend who closed the page: the prompt under the hand waits for them ("Waiting for
    Bob, who is offline…", not "Bob is playing…") and the status says they may come back to the
    game at any time (not "with their link": an account signs in)."""
    _, pages = friend_game(browser, server)
    try:
        deadline = time.monotonic() + 20
        while not any(my_decision(p) for p in pages):
            assert time.monotonic() < deadline, "nobody to move"
            pages[0].wait_for_timeout(100)
        mover = next(p for p in pages if my_decision(p))
        other, name = (pages[1], "Bob") if mover is pages[0] else (pages[0], "Anna")
        make_move(mover, next(m for m in legal(mover) if not m.startswith("P")))
        wait_for_my_turn(other)
        other.context.close()
        until(
            mover,
            "() => document.querySelector('#choices .prompt')?.textContent.includes('offline')",
            why="still 'playing'",
        )
        assert _text(mover, "#choices .prompt") == f"Waiting for {name}, who is offline…"
        offline = mover.locator("#status .offline")
        assert "come back to the game at any time" in offline.inner_text()
        assert "link" not in offline.inner_text()
        assert "usual" not in (offline.get_attribute("class") or "")  # real time: in red
        no_page_errors(mover)
    finally:
        for page in pages:
            if not page.is_closed():
                page.context.close()
