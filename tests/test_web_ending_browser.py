"""The end of a game in words, in real browsers (Playwright, Chromium): an ending on charm whose
loser held 4 geisha says why those geisha did not win (rules.md: 11 charm counts first).

The finished game is stored before the server starts (a friend game, its two rounds dealt as the
conformance record game-0003 deals them): Bob (seat 1) reaches 11 charm in round 2 while Anna
(seat 0) holds 4 geisha. Its player pages (loser and winner), a spectator's table and the review
each tell it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page

from browser_support import new_context, no_page_errors, open_page, until, wait_for_game
from conftest import play
from hanamikoji.state import Deal, Rules, State
from hanamikoji.web.store import GameRow, open_store
from web_support import Server, sqlite_url

FSI, PDI = "\u2068", "\u2069"
GAME = "charmovergeisha1"
TOKENS = ("anna-token-0", "bob-token-1")
NAMES = ("Anna", "Bob")
# game-0003 of the conformance records: two rounds, then charm 10-11 and geisha 4-3.
DEALS = (Deal("5", ("134667", "145677"), "42653772"), Deal("4", ("346777", "122456"), "67536571"))
MOVES = (
    "C17-66 P17 C47-57 P57 S4 G256 P2 D36 S1 G347 P3 D27",  # round 1
    "D16 C34-77 P77 C24-55 P55 G377 P7 G266 P2 S6 S7 D15",  # round 2: Bob reaches 11 charm
)
RULE = "but charm counts first: 11 charm wins over 4 geisha."


def final_state() -> State:
    return play(State.from_deals(DEALS, rules=Rules(max_rounds=3)), " ".join(MOVES))


async def store_game(url: str) -> None:
    """The finished game, as the server stores one: its row, then its moves and result."""
    state = final_state()
    outcome = state.outcome
    assert outcome is not None
    row = GameRow(
        id=GAME,
        seed=1,
        max_rounds=3,
        mode="friend",
        level=None,
        ai_seat=None,
        tokens=TOKENS,
        names=NAMES,
        joined=(True, True),
        deals={"seed": 1, "deals": [[d.removed, *d.hands, d.deck] for d in DEALS]},
    )
    store = await open_store(url)
    try:
        await store.create(row)
        entries = [(ply.seat, str(ply.move)) for ply in state.history]
        stored = await store.append(GAME, 0, entries, status="over", result=outcome.to_json())
        assert stored
    finally:
        await store.close()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    db = sqlite_url(tmp_path_factory.mktemp("web-ending") / "games.sqlite3")
    asyncio.run(store_game(db))
    srv = Server(
        db, args=["--games-per-minute", "0", "--guests-per-minute", "0", "--ai-games", "0"]
    )
    try:
        srv.start()
        yield srv
    finally:
        srv.stop()


def plain(text: str) -> str:
    return text.replace(FSI, "").replace(PDI, "").strip()


def result_of(browser: Browser, server: Server, query: str = "") -> Page:
    page = open_page(new_context(browser))
    page.goto(f"{server.url}/g/{GAME}{query}")
    wait_for_game(page)
    until(page, "() => !document.querySelector('#result').hidden", why="the result shows")
    return page


def test_the_game_ends_on_charm_with_four_geisha_for_the_loser() -> None:
    """The premise: the engine ends this game on Bob's charm, Anna holding 4 geisha."""
    outcome = final_state().outcome
    assert outcome is not None
    assert (outcome.winner, outcome.reason.value) == (1, "charm")
    assert outcome.charm == (10, 11) and outcome.geisha == (4, 3)


def test_the_loser_reads_why_her_four_geisha_did_not_win(server: Server, browser: Browser) -> None:
    page = result_of(browser, server, f"?t={TOKENS[0]}")
    try:
        assert page.locator("#result").get_attribute("data-winner") == "opponent"
        assert page.locator("#result").get_attribute("data-reason") == "charm"
        reason = plain(page.locator("#result-reason").inner_text())
        assert reason == f"Bob reached 11 charm. You won the favour of 4 geisha, {RULE}", reason
        # the same in Czech, its numbers and name filled in
        page.locator("#lang").select_option("cs")
        until(page, "code => document.documentElement.lang === code", "cs", why="no Czech")
        until(
            page,
            "() => document.querySelector('#result-reason').textContent.includes('přednost')",
            why="the reason is not in Czech",
        )
        reason = plain(page.locator("#result-reason").inner_text())
        assert reason == (
            "Bob dosáhl(a) 11 šarmu. Získali jste přízeň 4 gejš, "
            "ale šarm má přednost: 11 šarmu vítězí nad 4 gejšami."
        ), reason
        page.locator("#lang").select_option("en")  # the language is kept: back to English
        until(page, "code => document.documentElement.lang === code", "en", why="no English")
        no_page_errors(page)
    finally:
        page.context.close()


def test_the_winner_reads_that_charm_beat_the_four_geisha(server: Server, browser: Browser) -> None:
    page = result_of(browser, server, f"?t={TOKENS[1]}")
    try:
        assert page.locator("#result").get_attribute("data-winner") == "me"
        reason = plain(page.locator("#result-reason").inner_text())
        assert reason == f"You reached 11 charm. Anna won the favour of 4 geisha, {RULE}", reason
        no_page_errors(page)
    finally:
        page.context.close()


def test_a_spectator_reads_why_the_four_geisha_did_not_win(
    server: Server, browser: Browser
) -> None:
    page = result_of(browser, server)
    try:
        assert page.locator("#game").get_attribute("data-role") == "spectator"
        reason = plain(page.locator("#result-reason").inner_text())
        assert reason == f"Bob reached 11 charm. Anna won the favour of 4 geisha, {RULE}", reason
        no_page_errors(page)
    finally:
        page.context.close()


def test_the_review_says_why_the_four_geisha_did_not_win(server: Server, browser: Browser) -> None:
    page = open_page(new_context(browser))
    try:
        page.goto(f"{server.url}/review/{GAME}")
        until(page, "() => document.querySelector('#summary').textContent", why="the summary")
        summary = plain(page.locator("#summary").inner_text())
        want = f"Bob won, reaching 11 charm. Anna won the favour of 4 geisha, {RULE}"
        assert summary.startswith(want), summary
        no_page_errors(page)
    finally:
        page.context.close()
