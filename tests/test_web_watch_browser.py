"""A spectator in a third browser watches two people play a whole game (Playwright, Chromium).

The spectator finds the game on the "games on now" page and opens it: the game page of a visitor
without a seat is the spectator's table. It sees each move, never a card the players keep hidden
(neither in what its socket received nor in the page), no hand and no control of a player, the
scorings and the end as the players see them.
"""

from __future__ import annotations

import json
import random
import time
from typing import Any

import pytest
from playwright.sync_api import Browser, Page

from browser_support import (
    PHONE,
    dismiss_scoring,
    friend_game,
    game_over,
    history_length,
    legal,
    make_move,
    my_decision,
    new_context,
    no_horizontal_scroll,
    no_page_errors,
    open_page,
    play_by_clicks,
    shot,
    until,
    wait_for_game,
)
from hanamikoji.web.server import STATIC
from web_support import Server

PLAYER_CONTROLS = ["#hand", "#my-actions", "#choices", "#hint", "#undo", "#resign", "#rematch"]


def seat_page(browser: Browser, server: Server, url: str) -> Page:
    page = open_page(new_context(browser))
    page.goto(f"{server.url}{url}")
    wait_for_game(page)
    return page


def received(frames: list[str]) -> list[dict[str, Any]]:
    return [json.loads(f) for f in frames if f.startswith("{")]


def board_cards(page: Page) -> list[str]:
    """Every card face on the page, by where it is (card backs have no ``data-card``)."""
    cards: list[str] = page.locator("[data-card]").evaluate_all(
        "nodes => nodes.filter(n => n.getClientRects().length)"
        ".map(n => (n.closest('[id]')?.id || '?') + ':' + n.dataset.card)"
    )
    return cards


def test_a_spectator_watches_a_whole_game(server: Server, browser: Browser) -> None:
    game, players = friend_game(browser, server)
    watcher = new_context(browser)
    spectator = open_page(watcher)
    frames: list[str] = []

    def keep(payload: str | bytes) -> None:
        frames.append(payload if isinstance(payload, str) else "")

    spectator.on("websocket", lambda ws: ws.on("framereceived", keep))
    try:
        spectator.goto(f"{server.url}/watch")
        row = spectator.locator(f'#games-on li[data-game="{game}"]')
        row.wait_for()
        text = row.inner_text()
        assert "Anna guest vs Bob guest" in text and "Between friends" in text
        shot(spectator, "watch-list.png")
        row.locator("a").click()
        spectator.wait_for_url(f"{server.url}/g/{game}")
        until(
            spectator,
            "() => document.querySelector('#game').dataset.role === 'spectator'",
            why="the page of a visitor without a seat is not the spectator's table",
        )
        assert spectator.locator("#watching").is_visible()
        banner = spectator.locator("#watching-title").inner_text()  # the names with their marks
        assert banner == "You are watching Anna guest vs Bob guest", banner
        assert spectator.locator("#my-name").inner_text() == "Anna"
        assert spectator.locator("#opp-name").inner_text() == "Bob"
        assert spectator.locator("#no-seat").is_hidden()

        checked = [0]
        scored: list[str] = []

        def caught_up(mover: Page, n: int) -> None:
            """Before each move: the spectator shows every move so far, and nothing hidden."""
            if not scored and spectator.locator("#scoring").is_visible():
                # The steps go on by themselves, so the dialog may be past its Secrets by now:
                # Continue takes it one step further from wherever it is (the totals are last).
                at = int(spectator.locator("#scoring").get_attribute("data-step") or "0")
                if at < 8:
                    spectator.locator("#scoring-continue").click()
                    step = "at => Number(document.querySelector('#scoring').dataset.step) > at"
                    until(spectator, step, at, why="Continue does not take the scoring further")
                scored.append(spectator.locator("#scoring").inner_text())
                shot(spectator, "watch-scoring.png", full_page=False)
            dismiss_scoring(spectator)
            until(
                spectator,
                "n => Number(document.querySelector('#game').dataset.history) === n",
                history_length(mover),
                why="the spectator does not show the players' latest move",
            )
            for hidden in PLAYER_CONTROLS:
                assert not spectator.locator(hidden).is_visible(), hidden
            assert spectator.locator("#near-holder").is_visible()
            cards = board_cards(spectator)
            # faces only on the board, the offer and the move list's words: no hand, no own
            # Secret or Discard (the seats' places for them hold backs)
            assert all(c.split(":")[0] in ("board", "offer") for c in cards), cards
            if n == 8:
                shot(spectator, "watch-table.png")
            checked[0] += 1

        play_by_clicks(players, random.Random(12), before_move=caught_up)
        for _ in range(40):  # the last scoring, then the end
            dismiss_scoring(spectator)
            if game_over(spectator):
                break
            spectator.wait_for_timeout(250)
        assert game_over(spectator)
        assert checked[0] >= 12
        if scored:  # the players' names, never "you"
            assert "Anna" in scored[0] and "Bob" in scored[0], scored
            assert "you" not in scored[0].lower().replace("your", ""), scored
        title = spectator.locator("#result-title").inner_text()
        winner = players[0].locator("#result-title").inner_text()
        assert title in ("Anna won", "Bob won", "A draw"), title
        assert (title == "Anna won") == (winner == "You won!")
        assert spectator.locator("#review-link").is_visible()
        assert spectator.locator("#rematch").is_hidden()
        shot(spectator, "watch-end.png")

        messages = received(frames)
        states = [m for m in messages if m.get("type") == "state"]
        assert len(states) > 12 and all(m["spectator"] is True for m in states)
        assert all(not {"view", "legal", "drawn"} & set(m) for m in states)
        errors = [m["code"] for m in messages if m.get("type") == "error"]
        assert errors == []  # the page asked first, and opened no seat's socket to be refused
        for page in (*players, spectator):
            no_page_errors(page)
    finally:
        for page in players:
            page.context.close()
        watcher.close()


def test_a_spectator_who_never_clicks_keeps_up_with_the_game(
    server: Server, browser: Browser
) -> None:
    # The spectator's table paces the moves (a second each) and plays each scoring step by
    # step; the players, their moves at once, race ahead. Without a click it must still reach
    # the game's end soon after the players: the totals of a scoring close by themselves for a
    # spectator, and moves waiting are shown for a share of the pace.
    game, players = friend_game(browser, server)
    watcher = new_context(browser, reduced_motion="no-preference")
    spectator = open_page(watcher)
    try:
        spectator.goto(f"{server.url}/g/{game}")
        until(
            spectator,
            "() => document.querySelector('#game').dataset.role === 'spectator'",
            why="the page of a visitor without a seat is not the spectator's table",
        )
        assert play_by_clicks(players, random.Random(3))[0] >= 1  # a scoring at least
        done = history_length(players[0])
        until(
            spectator,
            "() => !document.querySelector('#result').hidden",
            why="the spectator's table, never clicked, does not reach the game's end",
            timeout=40_000,
        )
        assert history_length(spectator) == done
        no_page_errors(spectator)
    finally:
        for page in players:
            page.context.close()
        watcher.close()


def test_a_spectator_on_a_phone_and_a_game_that_does_not_exist(
    server: Server, browser: Browser
) -> None:
    game, players = friend_game(browser, server)
    phone = new_context(browser, viewport=PHONE)
    try:
        page = open_page(phone)
        page.goto(f"{server.url}/g/{game}")
        until(
            page,
            "() => document.querySelector('#game').dataset.role === 'spectator'",
            why="no spectator's table on the phone",
        )
        no_horizontal_scroll(page)
        assert page.locator("#watching").is_visible() and page.locator("#hand").is_hidden()
        shot(page, "watch-phone.png")
        page.goto(f"{server.url}/g/nosuchgame1234")
        until(page, "() => !document.querySelector('#no-seat').hidden", why="no not-found page")
        assert "no such game" in page.locator("#no-seat-title").inner_text()
        assert page.locator("#watching").is_hidden()
        no_page_errors(page)
    finally:
        phone.close()
        for page in players:
            page.context.close()


SAMPLE = """() => {
  const g = document.querySelector('#game');
  const near = document.querySelector('#my-standing .clock');
  const far = document.querySelector('#opp-standing .clock');
  if (!near || !far) return null;
  return { busy: g.dataset.busy, scoring: g.dataset.scoring, status: g.dataset.status,
           toMove: g.dataset.toMove, near: near.classList.contains('running'),
           far: far.classList.contains('running') };
}"""


def test_a_spectators_clocks_go_with_the_board_it_shows(server: Server, browser: Browser) -> None:
    """A spectator catching up (the moves shown one by one) sees the clocks of the position on
    show: the running clock is the side to move there (they showed the newest state's, the
    opponent's clock running beside a board where it was not its turn)."""
    player = open_page(new_context(browser))
    made = player.request.post(
        f"{server.url}/api/games",
        data={"mode": "ai", "level": "beginner", "seat": 0, "control": "3+2", "max_rounds": 1},
    ).json()
    player.goto(f"{server.url}{made['url']}")
    wait_for_game(player)
    watcher = new_context(browser, reduced_motion="no-preference")  # paced: it falls behind
    spectator = open_page(watcher)
    try:
        spectator.goto(f"{server.url}/g/{made['game']}")
        until(
            spectator, "() => document.querySelector('#game').dataset.role === 'spectator'", why=""
        )
        seen: list[dict[str, Any]] = []
        rng = random.Random(5)
        deadline = time.monotonic() + 120
        while not game_over(player):
            assert time.monotonic() < deadline, "the game did not end"
            dismiss_scoring(player)
            if my_decision(player):
                make_move(player, rng.choice(legal(player)))
            sample = spectator.evaluate(SAMPLE)
            if sample and sample["busy"] == "true" and sample["scoring"] == "false":
                seen.append(sample)
            player.wait_for_timeout(30)
        assert len(seen) >= 5, seen  # it did fall behind, and was looked at meanwhile
        for s in seen:
            if s["status"] == "playing" and (s["near"] or s["far"]):
                assert s["near"] == (s["toMove"] == "me"), s
        no_page_errors(spectator)
    finally:
        player.context.close()
        watcher.close()


@pytest.mark.parametrize("lang", ["en", "ru", "cs", "fr"])
def test_spectators_and_the_review_say_how_a_game_was_forfeited(
    server: Server, browser: Browser, lang: str
) -> None:
    """A loss on time read "bob lost by forfeit" to spectators and in the review, while the
    players read "bob ran out of time" (and a timed game's claimed win was a plain forfeit)."""
    context = new_context(browser)
    try:
        context.add_init_script(f"localStorage.setItem('hanamikoji.lang', '{lang}')")
        page = open_page(context)
        page.goto(f"{server.url}/watch")
        until(page, "l => document.documentElement.lang === l", lang, why="not translated")
        words = json.loads((STATIC / "i18n" / f"{lang}.json").read_text("utf-8"))["review"]["why"]
        words_of = (
            "async (w) => (await import('/static/js/spectate.js')).forfeitWords(w, 'ann', 'bob')"
        )
        said = {
            why: page.evaluate(words_of, why)
            for why in (
                "seat 1 ran out of time (3+2 clock)",
                "seat 1 left the game and the win was claimed (1d clock)",
                "seat 1 left the game and the win was claimed (no clock)",
                "",
            )
        }
        expected = {
            "seat 1 ran out of time (3+2 clock)": words["forfeit_time"],
            "seat 1 left the game and the win was claimed (1d clock)": words["forfeit_claimed"],
            "seat 1 left the game and the win was claimed (no clock)": words["forfeit_claimed"],
            "": words["forfeit"],
        }
        for why, text in expected.items():
            assert said[why] == text.replace("{name}", "ann").replace("{loser}", "bob"), said[why]
        no_page_errors(page)
    finally:
        context.close()


def test_the_watch_list_says_which_games_are_rated(server: Server, browser: Browser) -> None:
    """The list is ordered by rating, but did not say which games count for one (the table
    does: "rated")."""
    context = new_context(browser)
    try:
        page = open_page(context)
        made = {}
        for rated in (True, False):
            made[rated] = page.request.post(
                f"{server.url}/api/games",
                data={"mode": "ai", "level": "beginner", "seat": 0, "control": "5+3"}
                | {"rated": rated},
            ).json()["game"]
        page.goto(f"{server.url}/watch")
        for rated, game in made.items():
            row = page.locator(f'#games-on li[data-game="{game}"]')
            row.wait_for()
            assert ("rated" in row.locator(".mine-what").inner_text().split(" · ")) == rated
        no_page_errors(page)
    finally:
        context.close()
