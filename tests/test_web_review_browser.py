"""The review page in a real browser: the story of a finished game, move by move.

The server runs in this process (a thread) with a small search budget for hints and reviews alike,
so that a whole review takes a moment. Its games are played over the WebSocket API, asking for
hints and following most; the page is opened with the player's own seat (seat 1). Screenshots are
``test-output/screenshots/review-*.png``.
"""

from __future__ import annotations

import asyncio
import json
import random
import re
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from aiohttp import web
from playwright.sync_api import Browser, Page, Route, ViewportSize

from browser_support import (
    STEP,
    new_context,
    no_horizontal_scroll,
    no_page_errors,
    open_page,
    record_of,
    shot,
    until,
)
from hanamikoji.record import Record
from hanamikoji.web.limits import Limits
from hanamikoji.web.server import Settings, create_app
from hanamikoji.web.service import GameService
from hanamikoji.web.store import open_store
from web_support import Seat, Server, my_turn, over, sqlite_url

BUDGET = 400  # iterations a hint and a reviewed decision search: the review of a game in a moment
SEAT = 1  # the player's seat: the page must tell the game from this side, not seat 0's
LAPTOPS: dict[str, ViewportSize] = {
    "1366x768": {"width": 1366, "height": 768},
    "1280x720": {"width": 1280, "height": 720},
}
PHONE: ViewportSize = {"width": 390, "height": 844}
ANALYSIS = re.compile(r"/api/games/[^/]+/analysis")
READY = "() => document.querySelector('svg#winprob path.line')"
MARKS = ("line", "mistake-near", "mistake-far", "hint", "hint-ignored", "current", "round")
"""Every kind of mark the graph draws, as the legend lists them."""


class ThreadServer(Server):
    """The web app served from a thread of this process, with a small search budget."""

    def start(self) -> None:
        started = threading.Event()
        self._stop: asyncio.Event | None = None

        async def serve() -> None:
            store = await open_store(self.db)
            service = GameService(
                store, ai_workers=0, hint_iterations=BUDGET, analysis_iterations=BUDGET, seed=5
            )
            # one address plays every test's games: no limits (test_web_trust.py has them)
            app = create_app(service, Settings(limits=Limits(games_per_minute=0, ai_games=0)))
            runner = web.AppRunner(app, access_log=None)
            await runner.setup()
            await web.TCPSite(runner, "127.0.0.1", self.port).start()
            self._stop = asyncio.Event()
            started.set()
            await self._stop.wait()
            await runner.cleanup()

        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(
            target=self._loop.run_until_complete, args=(serve(),), daemon=True
        )
        self._thread.start()
        assert started.wait(60), "the server did not start"

    def stop(self) -> None:
        if self._stop is not None:
            self._loop.call_soon_threadsafe(self._stop.set)
            self._thread.join(30)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    srv = ThreadServer(sqlite_url(tmp_path_factory.mktemp("web-review") / "games.sqlite3"))
    srv.start()
    try:
        yield srv
    finally:
        srv.stop()


# -- a finished game, played over the wire ---------------------------------------------------------


async def _play_with_hints(base: str, rng: random.Random) -> tuple[str, str, set[int]]:
    """A 3-round game against easy from seat 1: many decisions ask for a hint, many follow it.
    Answers the game, the seat's token and the plies where a hint was followed."""
    followed: set[int] = set()
    async with aiohttp.ClientSession() as session:
        response = await session.post(
            f"{base}/api/games", json={"mode": "ai", "level": "easy", "seat": SEAT, "max_rounds": 3}
        )
        data = await response.json()
        async with session.ws_connect(f"{base}/ws/{data['game']}?t={data['token']}") as ws:
            seat = Seat(ws)
            for _ in range(200):
                state = await seat.until(lambda s: my_turn(s) or over(s))
                if over(state):
                    return data["game"], data["token"], followed
                ply = sum(1 for entry in state["view"]["history"] if "move" in entry)
                move = rng.choice(state["legal"])
                if rng.random() < 0.6:
                    await seat.send(type="hint")
                    while (hint := await seat.receive())["type"] != "hint":
                        pass
                    if rng.random() < 0.6:
                        move = hint["move"]
                    if move == hint["move"]:  # (a move chosen at random may be the hint's too)
                        followed.add(ply)
                version = state["game"]["version"]
                await seat.send(type="move", move=move, version=version)
                await seat.until(lambda s, v=version: s["game"]["version"] > v)
    raise AssertionError("the game did not end")


GAMES: dict[str, tuple[str, str, set[int]]] = {}


def finished(server: Server) -> tuple[str, str, set[int]]:
    """This module's finished game (played once): its id, the player's token, followed hints."""
    if server.url not in GAMES:
        # in a thread of its own: Playwright's sync API keeps an event loop running in this one
        with ThreadPoolExecutor(1) as pool:
            play = _play_with_hints(server.url, random.Random(12))  # two rounds
            GAMES[server.url] = pool.submit(asyncio.run, play).result(timeout=180)
    return GAMES[server.url]


def open_review(page: Page, server: Server, *, ready: bool = True) -> str:
    """Open the finished game's review as its player (the seat's cookie); the game's id."""
    game, token, _ = finished(server)
    page.goto(f"{server.url}/g/{game}?t={token}")  # sets the seat's cookie
    page.goto(f"{server.url}/review/{game}")
    until(page, f"() => {STEP} !== ''", why="#step stays empty")
    if ready:
        until(page, READY, why="the graph's line was never drawn", timeout=120_000)
    return game


def analysis_of(page: Page, server: Server, game: str) -> dict[str, Any]:
    response = page.request.get(f"{server.url}/api/games/{game}/analysis")
    data: dict[str, Any] = response.json()
    assert data["status"] == "ready", data
    return data


def line_points(page: Page) -> list[tuple[int, float]]:
    """The graph's one line, as (frame, chance) pairs."""
    lines = page.locator("svg#winprob path.line")
    assert lines.count() == 1, f"the graph has {lines.count()} lines, not one"
    text = lines.get_attribute("data-points") or ""
    return [(int(f), float(p)) for f, p in (pair.split(":") for pair in text.split())]


def frame(page: Page) -> int:
    return int(page.locator("#review-body").get_attribute("data-frame") or "-1")


def go_to(page: Page, target: int) -> None:
    """Step with the buttons to frame ``target``."""
    if frame(page) != 0:
        page.locator("#first").click()
    for _ in range(target):
        page.locator("#next").click()
    until(
        page,
        "f => document.querySelector('#review-body').dataset.frame == f",
        target,
        why=f"the stepper never reached frame {target}",
    )


def in_view(page: Page, selectors: list[str]) -> list[str]:
    """The selectors whose box is not wholly inside the viewport (page scrolled to the top)."""
    outside: list[str] = page.evaluate(
        """selectors => selectors.filter(sel => {
            const r = document.querySelector(sel).getBoundingClientRect();
            return !(r.width > 0 && r.height > 0 && r.top >= 0 && r.left >= 0
                     && r.bottom <= innerHeight && r.right <= innerWidth);
        }).map(sel => {
            const r = document.querySelector(sel).getBoundingClientRect();
            return `${sel}: ${Math.round(r.left)},${Math.round(r.top)} to ${Math.round(r.right)},`
                + `${Math.round(r.bottom)} in ${innerWidth}x${innerHeight}`;
        })""",
        selectors,
    )
    return outside


# -- the tests ------------------------------------------------------------------------------------


def test_the_graph_is_one_line_the_players_chance_ending_at_the_result(
    server: Server, page: Page
) -> None:
    game = open_review(page, server)
    data = analysis_of(page, server, game)
    record = record_of(page, server, game)
    outcome = record.replay().outcome
    assert outcome is not None
    final = 0.5 if outcome.winner is None else float(outcome.winner == SEAT)
    decisions = {d["ply"]: d for d in data["decisions"]}
    plies = len(record.replay().history)

    def mine(d: dict[str, Any], p: float) -> float:
        return p if d["seat"] == SEAT else 1 - p

    expected = [(0, mine(decisions[0], decisions[0]["win_probability"]))]
    expected += [(ply + 1, mine(d, d["played_value"])) for ply, d in sorted(decisions.items())]
    expected[-1] = (plies, final)  # the end: the result itself, 100%, 0% or 50%
    points = line_points(page)
    assert [f for f, _ in points] == [f for f, _ in expected]
    for (f, got), (_, want) in zip(points, expected, strict=True):
        assert got == pytest.approx(want, abs=1e-3), f"frame {f}: {got} != {want}"
    assert points[-1][1] in (0.0, 0.5, 1.0)

    # the marks: every followed hint, and the move shown
    _, _, followed = finished(server)
    hinted = page.locator("svg#winprob .mark.hint").evaluate_all(
        "marks => marks.map(m => Number(m.dataset.frame))"
    )
    assert sorted(hinted) == sorted(ply + 1 for ply in followed)
    assert page.locator("svg#winprob .mark.current").count() == 1

    # the legend names every kind of mark, each with its picture
    legend = page.locator("#legend li")
    kinds = legend.evaluate_all("items => items.map(i => i.dataset.mark)")
    assert kinds == [
        "line",
        "mistake-near",
        "mistake-far",
        "hint",
        "hint-ignored",
        "current",
        "round",
    ]
    for i in range(legend.count()):
        item = legend.nth(i)
        assert item.locator("svg.swatch").count() == 1 and item.inner_text().strip()
    me = record.players[SEAT]
    assert me in legend.first.inner_text()  # whose chance the line is

    # the summary says who won and how, in the table's words
    summary = page.locator("#summary").inner_text()
    if outcome.winner is None:
        assert summary.startswith("After ") and "a draw" in summary, summary
    else:
        winner = record.players[outcome.winner]
        words = {"charm": "won, reaching", "geisha": "won the favour of", "round-limit": "won with"}
        assert winner.lower() in summary.lower(), summary  # "easy" is shown as "AI (Easy)"
        assert words[outcome.reason.value] in summary, summary
    no_page_errors(page)


def test_a_resignation_after_the_last_move_keeps_that_moves_point(
    server: Server, page: Page
) -> None:
    # The graph's points, from its own module: two moves, then the result. Where the rules
    # ended the game with the last move its point is the result; where a player resigned (or
    # forfeited, or ran out of time) after it, the move keeps its own point and the result
    # follows at the same frame.
    page.goto(f"{server.url}/")
    found = page.evaluate(
        """async () => {
          const { storyPoints } = await import("/static/js/graph.js");
          const decisions = [
            { round: 1, index: 0, seat: 0, win_probability: 0.5, played_value: 0.6 },
            { round: 1, index: 1, seat: 1, win_probability: 0.4, played_value: 0.7 },
          ];
          const moves = [null, { round: 1, index: 0 }, { round: 1, index: 1 }];
          const line = (reason) =>
            storyPoints(decisions, moves, 0, { winner: 0, reason }).map((p) => [p.f, p.p]);
          return [line("resign"), line("forfeit"), line("charm"), line("geisha")];
        }"""
    )
    after = [[0, 0.5], [1, 0.6], [2, pytest.approx(0.3)], [2, 1]]
    assert found[:2] == [after, after]
    assert found[2:] == [[[0, 0.5], [1, 0.6], [2, 1]]] * 2


def test_the_comment_shows_the_hint_given_at_a_move(server: Server, page: Page) -> None:
    game = open_review(page, server)
    data = analysis_of(page, server, game)
    _, _, followed = finished(server)
    for d in data["decisions"]:  # each followed hint is the review's own choice: no loss
        if d["ply"] in followed:
            assert d["hint"]["iterations"] == data["iterations"] == BUDGET
            assert d["hint"]["move"] == d["played"] == d["best"]
            assert d["loss"] == 0.0 <= data["noise"]
    ply = min(followed)
    go_to(page, ply + 1)
    hint = page.locator("#hint-note")
    assert hint.is_visible()
    assert "hint" in hint.inner_text() and "followed" in hint.inner_text()
    assert page.locator("#analysis-note").get_attribute("data-mark") == "hint"
    assert "mistake" not in (page.locator("#analysis-note").get_attribute("class") or "")
    no_page_errors(page)


def test_the_biggest_mistakes_are_listed_and_jump_to_their_move(server: Server, page: Page) -> None:
    """With an analysis made to hold known mistakes: each player's three biggest at most, biggest
    first, never a followed hint, each a button to its move."""
    game, _, followed = finished(server)
    real = analysis_of(page, server, game)
    made = json.loads(json.dumps(real))
    decisions = made["decisions"]
    mine = [d for d in decisions if d["seat"] == SEAT and d["ply"] not in followed]
    theirs = [d for d in decisions if d["seat"] != SEAT]
    assert len(mine) >= 4 and len(theirs) >= 6 and followed, (len(mine), len(theirs), followed)
    for d in decisions:
        d["loss"] = 0.0
    losses = {mine[0]["ply"]: 0.15, mine[1]["ply"]: 0.31, mine[2]["ply"]: 0.12}
    losses[mine[3]["ply"]] = 0.22
    losses[theirs[2]["ply"]] = 0.25
    losses[theirs[5]["ply"]] = 0.04  # under the threshold: not a mistake
    hinted = min(followed)
    losses[hinted] = 0.4  # a followed hint of a busy server's shorter search: not a mistake
    for d in decisions:
        if d["ply"] in losses:
            d["loss"] = losses[d["ply"]]
            d["played_value"] = max(0.0, d["win_probability"] - d["loss"])
        if d["ply"] == hinted:
            d["hint"]["iterations"] = 100
    made["status"] = "ready"

    def fulfil(route: Route) -> None:
        route.fulfill(json=made)

    page.route(ANALYSIS, fulfil)
    open_review(page, server)
    lists = page.locator("#mistake-lists .mistake-list")
    assert lists.count() == 2
    near = lists.nth(0).locator("button.mistake-jump")
    far = lists.nth(1).locator("button.mistake-jump")
    frames = [mine[1]["ply"] + 1, mine[3]["ply"] + 1, mine[0]["ply"] + 1]  # 31%, 22%, 15%
    assert near.evaluate_all("b => b.map(x => Number(x.dataset.frame))") == frames
    assert far.evaluate_all("b => b.map(x => Number(x.dataset.frame))") == [theirs[2]["ply"] + 1]
    assert "31" in near.first.inner_text()
    shot(page, "review-mistakes.png")
    for i in range(near.count()):
        target = int(near.nth(i).get_attribute("data-frame") or "0")
        near.nth(i).click()
        until(
            page,
            "f => document.querySelector('#review-body').dataset.frame == f",
            target,
            why=f"the mistake at move {target} did not jump there",
        )
        assert page.locator("#step").inner_text().strip() == f"Move {target} of {len(decisions)}"
        assert page.locator("#analysis-note").get_attribute("data-mark") == "mistake"
        assert near.nth(i).get_attribute("aria-current") == "step"
        current = page.locator("svg#winprob .mark.current")
        marks = page.locator(f'svg#winprob .mark.mistake.near[data-frame="{target}"]')
        assert current.count() == 1 and marks.count() == 1
    far.first.click()
    until(
        page,
        "f => document.querySelector('#review-body').dataset.frame == f",
        theirs[2]["ply"] + 1,
        why="the opponent's mistake did not jump to its move",
    )
    # the followed hint is told as such, not as a mistake
    go_to(page, hinted + 1)
    assert page.locator("#analysis-note").get_attribute("data-mark") == "hint"
    assert "not counted as a mistake" in page.locator("#analysis-note").inner_text()
    no_page_errors(page)


@pytest.mark.parametrize("size", [*LAPTOPS, "390x844"])
def test_the_steps_the_table_and_the_comment_are_on_screen_together(
    server: Server, browser: Browser, size: str
) -> None:
    viewport = LAPTOPS.get(size, PHONE)
    context = new_context(browser, viewport=viewport)
    try:
        page = open_page(context)
        game = open_review(page, server)
        review = page.request.get(f"{server.url}/api/games/{game}/review").json()
        frames = len(review["frames"]) - 1
        scored = [f["index"] for f in review["frames"] if f["scoring"]]  # the longest comments
        together = ["#first", "#prev", "#next", "#last", "#comment", "#review-table"]
        for target in sorted({0, 5, frames // 2, scored[0], frames}):
            go_to(page, target)
            page.evaluate("() => window.scrollTo(0, 0)")
            outside = in_view(page, together)
            assert not outside, f"at move {target} ({size}) off screen: {outside}"
        no_horizontal_scroll(page)
        go_to(page, 5)
        page.evaluate("() => window.scrollTo(0, 0)")
        shot(page, f"review-{size}.png", full_page=False)
        if size == "390x844":
            shot(page, "review-phone-full.png")
        no_page_errors(page)
    finally:
        context.close()


def test_the_review_page_steps_through_a_finished_game(server: Server, page: Page) -> None:
    game = open_review(page, server, ready=False)
    step = page.locator("#step")
    first = step.evaluate("e => e.textContent.trim()")
    seen = [first]
    for _ in range(3):
        page.locator("#next").click()
        until(page, f"old => {STEP} !== old", seen[-1], why="#next does not change #step")
        seen.append(step.evaluate("e => e.textContent.trim()"))
    assert len(set(seen)) == 4, seen
    page.locator("#prev").click()
    until(page, f"old => {STEP} === old", seen[2], why="#prev does not go back one step")
    for _ in range(2):
        page.locator("#prev").click()
    until(page, f"old => {STEP} === old", first, why="#prev does not go back to the start")

    # the AI's analysis arrives and is drawn
    until(page, READY, why="svg#winprob was never drawn", timeout=120_000)
    assert page.locator("svg#winprob").is_visible()

    with page.expect_download() as download_info:
        page.locator("#download").click()
    path = download_info.value.path()
    record = Record.loads(Path(path).read_bytes())
    assert record.replay().outcome is not None
    assert record.to_json() == record_of(page, server, game).to_json()
    shot(page, "review.png")
    no_page_errors(page)


def test_the_review_says_when_the_server_is_too_busy_to_analyse(server: Server, page: Page) -> None:
    asked: list[str] = []

    def busy(route: Route) -> None:
        asked.append(route.request.url)
        route.fulfill(json={"status": "busy", "message": "the server is busy; reload in a minute"})

    page.route(ANALYSIS, busy)
    open_review(page, server, ready=False)
    until(
        page,
        "() => document.querySelector('#analysis-status').textContent.includes('busy')",
        why="#analysis-status does not say the server is busy",
    )
    assert page.locator("svg#winprob").is_hidden()
    page.wait_for_timeout(3_000)  # not asked again at once: the next try is later
    assert len(asked) == 1, asked
    no_page_errors(page)


def test_the_review_asks_again_while_the_server_does_not_answer(server: Server, page: Page) -> None:
    """A server restarting while the analysis runs: the page says so and asks again until the
    server answers, then shows the analysis (it gave up for good at the first failure)."""
    failures: list[str] = []

    def down(route: Route) -> None:
        if len(failures) < 2:
            failures.append(route.request.url)
            route.abort("connectionrefused")
        else:
            route.continue_()

    page.route(ANALYSIS, down)
    open_review(page, server, ready=False)
    until(
        page,
        "() => document.querySelector('#analysis-status').textContent.includes('not answering')",
        why="#analysis-status does not say the server is not answering",
    )
    until(page, READY, why="the analysis never came once the server answered", timeout=60_000)
    assert len(failures) == 2
    no_page_errors(page)


def test_the_focus_stays_on_the_steps_when_a_step_button_is_disabled(
    server: Server, page: Page
) -> None:
    """Enter on Last (or First) disables it: the focus moves to Previous (or Next), not to the
    page's start, so a keyboard user keeps their place."""
    open_review(page, server, ready=False)
    page.locator("#last").focus()
    page.keyboard.press("Enter")
    until(page, "() => document.activeElement?.id === 'prev'", why="the focus left the steps")
    page.locator("#first").focus()
    page.keyboard.press("Enter")
    until(page, "() => document.activeElement?.id === 'next'", why="the focus left the steps")
    page.keyboard.press("Enter")  # and it steps on from there
    until(page, "() => !document.querySelector('#first').disabled", why="Next did not step")
    no_page_errors(page)
