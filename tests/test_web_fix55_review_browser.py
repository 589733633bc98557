"""The review of a game given up before any move: no decision was made, so the page shows no
empty graph, no legend of marks that are not there and no "No move lost 10% or more" for each
player, and its comment does not ask to step through moves that do not exist. A game with moves
keeps its graph. English and French, desktop and phone."""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor

import aiohttp
import pytest
from playwright.sync_api import Browser

from browser_support import (
    PHONE,
    STEP,
    browser,  # noqa: F401 (a fixture)
    new_context,
    no_horizontal_scroll,
    no_page_errors,
    open_page,
    server,  # noqa: F401 (a fixture)
    shot,
    until,
)
from web_support import Seat, Server, my_turn, over

NOTE_NONE = {
    "en": "No decision to judge here (a forced move or a deal).",
    "fr": None,  # the French words are the translation's; only that it is not the start's
}
NOTE_START = {
    "en": "Step through the moves to see the AI's opinion of each decision.",
}


async def _resign(base: str, moves: int) -> tuple[str, str]:
    """A game against easy where Tester (seat 0, first to move) resigns after ``moves`` moves."""
    async with aiohttp.ClientSession() as session:
        response = await session.post(
            f"{base}/api/games",
            json={"mode": "ai", "level": "easy", "seat": 0, "max_rounds": 3, "name": "Tester"},
        )
        data = await response.json()
        async with session.ws_connect(f"{base}/ws/{data['game']}?t={data['token']}") as ws:
            seat = Seat(ws)
            for _ in range(moves):
                state = await seat.until(my_turn)
                version = state["game"]["version"]
                await seat.send(type="move", move=state["legal"][0], version=version)
                await seat.until(lambda s, v=version: s["game"]["version"] > v)
            await seat.until(lambda s: True)
            await seat.send(type="resign")
            await seat.until(over)
    return str(data["game"]), str(data["token"])


def _review(
    browser: Browser,  # noqa: F811
    base: str,
    game: str,
    token: str,
    language: str,
    name: str,
    *,
    phone: bool = False,
) -> dict[str, object]:
    options = {"viewport": PHONE} if phone else {}
    context = new_context(browser, **options)
    context.add_init_script(f"localStorage.setItem('hanamikoji.lang', '{language}')")
    try:
        page = open_page(context)
        page.goto(f"{base}/g/{game}?t={token}")
        page.goto(f"{base}/review/{game}")
        until(page, f"() => {STEP} !== ''", why="#step stays empty")
        until(
            page,
            "() => document.querySelector('#analysis-status').hidden",
            why="the analysis is never ready",
            timeout=120_000,
        )
        shot(page, f"review-fix55-{name}-{language}{'-phone' if phone else ''}.png")
        if phone:
            no_horizontal_scroll(page)
        no_page_errors(page)
        seen: dict[str, object] = page.evaluate(
            """() => {
              const shown = (el) => !!el && el.getClientRects().length > 0;
              return {
                graph: shown(document.querySelector('#winprob')),
                legend: shown(document.querySelector('#legend')),
                mistakes: shown(document.querySelector('#mistakes')),
                analysis: shown(document.querySelector('section.analysis')),
                note: document.querySelector('#analysis-note').textContent.trim(),
              };
            }"""
        )
        return seen
    finally:
        context.close()


@pytest.mark.parametrize("language", ["en", "fr"])
@pytest.mark.parametrize("phone", [False, True], ids=["desktop", "phone"])
def test_a_game_given_up_before_any_move_shows_no_empty_analysis(
    server: Server,  # noqa: F811
    browser: Browser,  # noqa: F811
    language: str,
    phone: bool,
) -> None:
    with ThreadPoolExecutor(1) as pool:  # Playwright's sync API runs a loop in this thread
        game, token = pool.submit(asyncio.run, _resign(server.url, 0)).result(60)
    seen = _review(browser, server.url, game, token, language, "no-move", phone=phone)
    assert not seen["graph"], seen
    assert not seen["legend"], seen
    assert not seen["mistakes"], seen
    assert not seen["analysis"], seen
    if language in NOTE_START:
        assert seen["note"] != NOTE_START[language], seen
        assert seen["note"] == NOTE_NONE[language], seen


def test_a_game_with_moves_keeps_its_graph(
    server: Server,  # noqa: F811
    browser: Browser,  # noqa: F811
) -> None:
    with ThreadPoolExecutor(1) as pool:
        game, token = pool.submit(asyncio.run, _resign(server.url, 2)).result(60)
    seen = _review(browser, server.url, game, token, "en", "two-moves")
    assert seen["graph"] and seen["legend"] and seen["mistakes"] and seen["analysis"], seen
    assert seen["note"] == NOTE_START["en"], seen


GRAPH_OF_A_HINT_IGNORED = """async () => {
  const graph = await import('/static/js/graph.js');
  const svg = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
  document.body.append(svg);
  const hint = { move: 'S1', win_probability: 0.6, iterations: 20000 };
  const decision = (index, seat, played, loss, given) => ({
    round: 1, index, seat, played, best: 'S1', win_probability: 0.6,
    played_value: 0.6 - loss, loss, ...(given ? { hint: given } : {}),
  });
  graph.drawGraph(svg, {
    decisions: [
      decision(0, 0, 'S2', 0.3, hint),   // a mistake against the hint
      decision(1, 1, 'S3', 0.3, null),   // a mistake with no hint
      decision(2, 0, 'S4', 0.01, hint),  // a hint not followed, no mistake
    ],
    moves: [null, { round: 1, index: 0 }, { round: 1, index: 1 }, { round: 1, index: 2 }],
    frame: 0, near: 0, names: ['Anna', 'Bob'], result: null, mistake: 0.1, onPick: () => {},
  });
  const at = (el) => Math.round(Number(el.getAttribute('cx')));
  return {
    titles: [...svg.querySelectorAll('[data-frame] title')].map((el) => el.textContent),
    rings: [...svg.querySelectorAll('circle.mark.hint-ignored')].map(at),
    diamonds: svg.querySelectorAll('path.mark.mistake').length,
    frames: [...svg.querySelectorAll('[data-frame]')].map((el) => el.getAttribute('data-frame')),
  };
}"""


def test_a_mistake_against_a_hint_keeps_the_hints_ring(
    server: Server,  # noqa: F811
    browser: Browser,  # noqa: F811
) -> None:
    """The graph's legend has a ring for "a hint not followed"; a move that ignored the hint and
    was a mistake showed only the mistake's diamond, so the graph hid that the player was told.
    Both marks now, the ring round the diamond; one element a frame still carries data-frame."""
    with ThreadPoolExecutor(1) as pool:
        game, _token = pool.submit(asyncio.run, _resign(server.url, 0)).result(60)
    context = new_context(browser)
    try:
        page = open_page(context)
        page.goto(f"{server.url}/review/{game}")
        until(page, f"() => {STEP} !== ''", why="#step stays empty")
        seen = page.evaluate(GRAPH_OF_A_HINT_IGNORED)
        no_page_errors(page)
    finally:
        context.close()
    assert seen["diamonds"] == 2, seen
    assert len(seen["rings"]) == 2, seen  # frame 1 (round its diamond) and frame 3
    assert seen["frames"] == ["0", "1", "2", "3"], seen
    # the deal's point is the start, not "Move 0"; the others are moves
    assert seen["titles"][0] == "Start: Anna's chance: 60%", seen
    assert seen["titles"][1].startswith("Move 1: Anna played"), seen
