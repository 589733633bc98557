"""A connection that stalls, after a move or while waiting, in Chromium (Playwright).

A network can go silent without the WebSocket closing (a laptop going offline, a dead Wi-Fi): no
close comes for minutes. The table must not say "Sending your move…" for ever: once the move's
answer is late (``ANSWER_TIMEOUT_MS`` in js/game.js) it says that the server does not answer,
drops the socket and connects again; the server's state then shows the move played, or the
decision still open to play again (a move carries its version: the server never plays it twice).

Both players of a friend game stall in turn, each in one way:

- ``context.set_offline(True)``: this Chromium keeps an open WebSocket open while offline, and
  what is sent waits, a true stall (what waited leaves once online again: the move is played);
  going online fires the browser's ``online`` event;
- ``page.route_web_socket``: the socket passes through the test, which stops forwarding anything
  either way (the move never reaches the server: it is to be played again) and refuses new
  connections until "the network is back".

A player waiting for the opponent sends nothing that awaits an answer: the socket's heartbeat
(js/api.js: a ping, then some message within a deadline) notices the silence instead, and the
page reconnects to show the move it missed. The test shortens the heartbeat with
``window.__hanamikojiTimings``.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page, WebSocketRoute

from browser_support import (
    friend_game,
    history_length,
    legal,
    make_move,
    my_decision,
    no_page_errors,
    to_move,
    until,
)
from web_support import Server

ANSWER_TIMEOUT_MS = 2_500
"""How long a move's answer may take before the page gives up: js/game.js's ANSWER_TIMEOUT_MS
(8 s), shortened here (``answerMs``) so the test need not wait as long."""
MARGIN_MS = 5_000
PING_MS = 500
PONG_MS = 1_500
"""The heartbeat of js/api.js, shortened (25 s and 10 s by default): ping, then await a message."""
ANSWER = f"window.__hanamikojiTimings = {{answerMs: {ANSWER_TIMEOUT_MS}}};"
TIMINGS = (
    "window.__hanamikojiTimings = "
    f"{{pingMs: {PING_MS}, pongMs: {PONG_MS}, answerMs: {ANSWER_TIMEOUT_MS}}};"
)
STALLED = "No answer from the server: reconnecting…"
SENDING = "Sending your move…"
OFFLINE = "This device is offline – the game goes on when it is back online…"


@pytest.fixture
def pages(server: Server, browser: Browser) -> Iterator[list[Page]]:
    """A friend game, both players at the table: their pages, the first to move first."""
    _, pages = friend_game(browser, server, init_script=ANSWER)
    try:
        until(
            pages[0],
            "() => document.querySelector('#game').dataset.toMove !== 'none'",
            why="nobody has the first move",
        )
        pages.sort(key=lambda page: not my_decision(page))
        assert my_decision(pages[0]) and not my_decision(pages[1])
        yield pages
    finally:
        for page in pages:
            page.context.close()


def click_move(page: Page, move: str) -> None:
    """An action's move by clicks (cards, action, the move's button), without waiting for it."""
    assert move in legal(page), (move, legal(page))
    for card in move[1:].replace("-", ""):
        page.locator(f'#hand button.card[data-card="{card}"][aria-pressed="false"]').first.click()
    page.locator(f'button[data-action="{move[0]}"]').click()
    page.locator(f'#choices button[data-move="{move}"]').click()


def prompt(page: Page) -> str:
    return page.locator("#choices .prompt").inner_text()


def says_stalled(page: Page) -> None:
    """The table says "Sending your move…", and once the answer is late, that the server does not
    answer (the notice and the prompt), the move's buttons off."""
    assert prompt(page) == SENDING
    sent = time.monotonic()
    until(
        page,
        "text => document.querySelector('#conn')?.textContent === text",
        STALLED,
        why="the page never said that the server does not answer",
        timeout=ANSWER_TIMEOUT_MS + MARGIN_MS,
    )
    waited = time.monotonic() - sent
    assert waited > ANSWER_TIMEOUT_MS / 1000 - 1.5, f"said after {waited:.1f} s only"
    assert page.locator("#conn").is_visible()
    assert prompt(page) == STALLED


def says_offline(page: Page) -> None:
    """The device's network is down: the notice says so at once ("The server does not answer"
    blamed the server), and the late move's prompt the same, the move's buttons off."""
    assert page.locator("#conn").inner_text() == OFFLINE
    until(
        page,
        "text => document.querySelector('#choices .prompt')?.textContent === text",
        OFFLINE,
        why=f"the prompt says {prompt(page)!r}",
        timeout=ANSWER_TIMEOUT_MS + MARGIN_MS,
    )
    assert not page.locator("#game").get_attribute("data-legal")
    assert not page.locator("#game").get_attribute("data-legal")  # nothing to click meanwhile


def back_at_the_table(page: Page) -> None:
    """The server's state came on a new connection: no notice, the table the server's."""
    until(
        page,
        "() => document.querySelector('#conn').hidden",
        why="the page never came back from the stalled connection",
        timeout=20_000,
    )


def history_is(page: Page, n: int, why: str) -> None:
    """The seat's history on show has ``n`` entries (the opponent's page: the server's word)."""
    until(page, "n => Number(document.querySelector('#game').dataset.history) === n", n, why=why)


class Network:
    """A page's WebSockets, routed through the test: forwarded both ways until ``cut``; then the
    sockets open so far carry nothing more either way, and new ones are refused until
    ``restore``."""

    def __init__(self, page: Page) -> None:
        self.down = False
        self.links: list[dict[str, bool]] = []
        page.route_web_socket(re.compile(r"/ws/"), self.route)

    def route(self, ws: WebSocketRoute) -> None:
        if self.down:
            ws.close()
            return
        server = ws.connect_to_server()
        link = {"alive": True}
        self.links.append(link)

        def to_server(message: str | bytes) -> None:
            if link["alive"]:
                server.send(message)

        def to_page(message: str | bytes) -> None:
            if link["alive"]:
                ws.send(message)

        ws.on_message(to_server)
        server.on_message(to_page)

    def cut(self) -> None:
        self.down = True
        for link in self.links:
            link["alive"] = False

    def restore(self) -> None:
        self.down = False


def decision_again(page: Page, history: int) -> None:
    """The page has its decision again, on the history it had."""
    until(
        page,
        "() => document.querySelector('#game').dataset.legal !== ''",
        why="the decision never came back",
    )
    assert history_length(page) == history


def test_a_move_on_a_stalled_connection_is_not_waited_for_ever(pages: list[Page]) -> None:
    first, second = pages
    before = history_length(first)
    assert history_length(second) == before

    # The first player goes offline: the socket stays open, and the move waits in it.
    move = next(m for m in legal(first) if m[0] == "S")
    first.context.set_offline(True)
    click_move(first, move)
    says_offline(first)
    first.context.set_offline(False)  # the online event: it connects again at once
    back_at_the_table(first)
    # What waited left once online (the page had given up on that socket): the move is played,
    # once; should it not have arrived, the decision is open again, to play once more.
    if to_move(second) == "me":
        history_is(first, before + 1, "the move the server played never showed")
        assert to_move(first) == "opponent"
    else:
        decision_again(first, before)
        make_move(first, move)
    until(
        second,
        "() => document.querySelector('#game').dataset.toMove === 'me'",
        why="the second player never got the turn",
    )
    before += 1
    history_is(second, before, "the second player does not see the move once")
    history_is(first, before, "the first player does not see the move once")

    # The second player's socket goes silent both ways: the move never reaches the server.
    net = Network(second)
    second.reload()  # its socket now goes through the route
    decision_again(second, before)
    move = next(m for m in legal(second) if m[0] == "S")
    net.cut()
    click_move(second, move)
    says_stalled(second)
    net.restore()
    back_at_the_table(second)
    decision_again(second, before)  # the server's state: the move is not played
    assert len(net.links) >= 2  # on a new connection
    assert history_length(first) == before and to_move(first) == "opponent"
    make_move(second, move)  # played again: it goes through
    history_is(first, before + 1, "the first player does not see the move once")
    assert to_move(first) == "me"
    no_page_errors(first)
    no_page_errors(second)


def test_a_silent_connection_is_noticed_while_waiting_for_the_opponent(pages: list[Page]) -> None:
    first, second = pages
    before = history_length(first)
    second.context.add_init_script(TIMINGS)
    net = Network(second)
    second.reload()  # the shortened heartbeat, and its socket through the route
    history_is(second, before, "the waiting player's table never came back")
    assert to_move(second) == "opponent"
    second.evaluate("() => { window.__sameDocument = true; }")

    # Waiting quietly on a healthy connection: the pongs keep it, however long the wait.
    second.wait_for_timeout(PING_MS + 2 * PONG_MS)
    assert second.locator("#conn").is_hidden()
    assert len(net.links) == 1

    # The connection goes silent without closing; the opponent moves meanwhile.
    net.cut()
    cut = time.monotonic()
    make_move(first, next(m for m in legal(first) if m[0] == "S"))
    until(
        second,
        "text => document.querySelector('#conn')?.textContent === text",
        STALLED,
        why="the waiting page never noticed that the server went silent",
        timeout=PING_MS + PONG_MS + MARGIN_MS,
    )
    waited = time.monotonic() - cut
    assert waited > PONG_MS / 1000 - 0.5, f"said after {waited:.1f} s only"
    assert history_length(second) == before  # the move never came on the silent socket
    net.restore()
    back_at_the_table(second)
    history_is(second, before + 1, "the opponent's move never showed after reconnecting")
    until(
        second,
        "() => document.querySelector('#game').dataset.toMove === 'me'",
        why="the waiting player never got the turn",
    )
    assert len(net.links) >= 2  # on a new connection
    assert second.evaluate("() => window.__sameDocument === true")  # not reloaded
    assert to_move(first) == "opponent"
    no_page_errors(first)
    no_page_errors(second)


def test_a_device_gone_offline_is_told_so(server: Server, browser: Browser) -> None:
    """A phone whose own network was down read "The server is not responding": the notice says
    the device is offline, and goes once it is back."""
    _, pages = friend_game(browser, server)
    host = pages[0]
    try:
        host.context.set_offline(True)
        until(
            host,
            "() => /offline/.test(document.querySelector('#conn').textContent)"
            " && !document.querySelector('#conn').hidden",
            why=f"the notice says {host.locator('#conn').inner_text()!r}",
        )
        host.context.set_offline(False)
        back_at_the_table(host)
        no_page_errors(host)
    finally:
        for page in pages:
            page.context.close()
