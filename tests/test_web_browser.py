"""The web app in a real browser (Debian's chromium through Playwright): games played by clicks.

One ``hanamikoji serve`` process (SQLite in a temporary folder) and one headless chromium serve the
whole module. The tests rely only on the pages' DOM contract (ids, ``data-*`` attributes, roles);
screenshots go to ``test-output/screenshots/`` in the repository root.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import re
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from playwright.sync_api import Browser, BrowserContext, Page, ViewportSize, sync_playwright
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from hanamikoji.record import Record
from web_support import Server, claim_invite, play_out, seat_socket, sqlite_url

CHROMIUM = Path("/usr/bin/chromium")
REPO = Path(__file__).resolve().parents[1]
SHOTS = REPO / "test-output" / "screenshots"
DESKTOP: ViewportSize = {"width": 1280, "height": 900}
PHONE: ViewportSize = {"width": 390, "height": 844}
AI_TIMEOUT_MS = 60_000
"""How long the page may take to show the other side's move (the easy AI's, the friend's)."""

LANG = "code => document.documentElement.lang === code"
STEP = "document.querySelector('#step').textContent.trim()"

FINISHED: list[str] = []
"""Games finished by clicks in this module's tests (the review test reuses one)."""


# -- fixtures -------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    db = sqlite_url(tmp_path_factory.mktemp("web-browser") / "games.sqlite3")
    srv = Server(db)
    try:
        srv.start()
        yield srv
    finally:
        srv.stop()


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    if not CHROMIUM.exists():
        pytest.fail(
            f"{CHROMIUM} not found: the browser tests need Debian's chromium "
            "(`sudo apt-get install chromium`; CI installs it)",
            pytrace=False,
        )
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(
            executable_path=str(CHROMIUM),
            headless=True,
            args=[
                "--no-sandbox",
                "--disable-background-networking",
                "--disable-gpu",
                "--disable-dev-shm-usage",
            ],
        )
        try:
            yield chromium
        finally:
            chromium.close()


def new_context(browser: Browser, **options: Any) -> BrowserContext:
    context = browser.new_context(
        viewport=options.pop("viewport", DESKTOP), locale="en-US", accept_downloads=True, **options
    )
    context.set_default_timeout(20_000)
    return context


@pytest.fixture
def context(browser: Browser) -> Iterator[BrowserContext]:
    ctx = new_context(browser)
    try:
        yield ctx
    finally:
        ctx.close()


PAGE_ERRORS: dict[Page, list[str]] = {}
"""The uncaught JavaScript errors of each page opened with ``open_page``."""


def open_page(context: BrowserContext) -> Page:
    page = context.new_page()
    errors = PAGE_ERRORS.setdefault(page, [])
    page.on("pageerror", lambda error: errors.append(str(error)))
    return page


@pytest.fixture
def page(context: BrowserContext) -> Page:
    return open_page(context)


def no_page_errors(page: Page) -> None:
    errors = PAGE_ERRORS.get(page, [])
    assert not errors, f"JavaScript errors on {page.url}: {errors}"


def shot(page: Page, name: str, *, full_page: bool = True) -> Path:
    SHOTS.mkdir(parents=True, exist_ok=True)
    path = SHOTS / name
    page.screenshot(path=str(path), full_page=full_page)
    assert path.stat().st_size > 1000
    return path


def until(page: Page, js: str, arg: Any = None, *, why: str, timeout: int = 20_000) -> None:
    """Wait until the JavaScript function ``js`` (given ``arg``) is truthy on the page."""
    try:
        page.wait_for_function(js, arg=arg, timeout=timeout)
    except PlaywrightTimeout:
        raise AssertionError(f"{why} (not within {timeout} ms on {page.url})") from None


# -- reading the game page ------------------------------------------------------------------------


def legal(page: Page) -> list[str]:
    return (page.locator("#game").get_attribute("data-legal") or "").split()


def to_move(page: Page) -> str | None:
    return page.locator("#game").get_attribute("data-to-move")


def status(page: Page) -> str | None:
    return page.locator("#game").get_attribute("data-status")


def hand(page: Page) -> list[str]:
    return [
        c or ""
        for c in page.locator("#hand button.card").evaluate_all(
            "cards => cards.map(c => c.dataset.card)"
        )
    ]


def log_length(page: Page) -> int:
    return page.locator("#log li").count()


def error_text(page: Page) -> str:
    box = page.locator("#error")
    return box.inner_text() if box.count() and box.is_visible() else ""


def my_decision(page: Page) -> bool:
    return status(page) == "playing" and to_move(page) == "me" and bool(legal(page))


def game_over(page: Page) -> bool:
    return page.locator("#result").is_visible()


def wait_for_game(page: Page) -> None:
    """The page has its first state from the server."""
    until(
        page,
        "() => ['playing', 'over'].includes(document.querySelector('#game')?.dataset.status)",
        why="#game[data-status] never became playing or over",
        timeout=AI_TIMEOUT_MS,
    )


def dismiss_scoring(page: Page) -> bool:
    """Click through a round's scoring while it is shown; whether there was one."""
    shown = False
    button = page.locator("#scoring-continue")
    for _ in range(40):
        if not button.is_visible():
            return shown
        shown = True
        # gone between the check and the click: the loop looks again
        with contextlib.suppress(Exception):
            button.click(timeout=2_000)
    raise AssertionError("the scoring does not close after 40 clicks on #scoring-continue")


def wait_for_my_turn(page: Page, timeout_ms: int = AI_TIMEOUT_MS) -> None:
    """Wait (dismissing scorings) until this seat has a decision or the result shows."""
    deadline = time.monotonic() + timeout_ms / 1000
    while time.monotonic() < deadline:
        dismiss_scoring(page)
        if game_over(page) or my_decision(page):
            return
        page.wait_for_timeout(100)
    raise AssertionError(
        f"no decision for this seat within {timeout_ms} ms: status={status(page)} "
        f"to-move={to_move(page)} legal={legal(page)} error={error_text(page)!r}"
    )


def cards_of(move: str) -> str:
    return move[1:].replace("-", "")


def make_move(page: Page, move: str) -> None:
    """Play ``move`` by clicks: cards, action, then the move's button (an offer's pick directly)."""
    assert move in legal(page), (move, legal(page))
    before = log_length(page)
    if move[0] == "P":
        page.locator(f'#offer button[data-move="{move}"]').click()
    else:
        pressed = page.locator('#hand button.card[aria-pressed="true"]')
        for _ in range(10):  # start from an empty selection (a hint may have made one)
            if not pressed.count():
                break
            pressed.first.click()
        for card in cards_of(move):
            page.locator(
                f'#hand button.card[data-card="{card}"][aria-pressed="false"]'
            ).first.click()
        page.locator(f'button[data-action="{move[0]}"]').click()
        page.locator(f'#choices button[data-move="{move}"]').click()
    try:
        page.wait_for_function(
            "n => document.querySelectorAll('#log li').length > n",
            arg=before,
            timeout=AI_TIMEOUT_MS,
        )
    except PlaywrightTimeout:
        raise AssertionError(f"{move} never reached #log; #error: {error_text(page)!r}") from None


def play_by_clicks(
    pages: list[Page], rng: random.Random, *, max_moves: int = 300, before_move: Any = None
) -> list[int]:
    """Play random legal moves by clicks on whichever page has a decision until all show a result.

    ``before_move(page, n)`` is called when ``page`` is about to make the game's ``n``-th move by
    clicks (the page shows its decision). Answers how many round scorings each page showed.
    """
    moves = 0
    scorings = [0] * len(pages)
    idle_since = time.monotonic()
    while moves < max_moves:
        for i, page in enumerate(pages):
            scorings[i] += dismiss_scoring(page)
        if all(game_over(page) for page in pages):
            return scorings
        mover = next((page for page in pages if my_decision(page)), None)
        if mover is None:
            if time.monotonic() - idle_since > AI_TIMEOUT_MS / 1000:
                states = [(status(p), to_move(p), legal(p), error_text(p)) for p in pages]
                raise AssertionError(f"nobody has a decision and the game goes on: {states}")
            pages[0].wait_for_timeout(100)
            continue
        moves += 1
        if before_move is not None:
            before_move(mover, moves)
        make_move(mover, rng.choice(legal(mover)))
        idle_since = time.monotonic()
    raise AssertionError(f"the game did not end in {max_moves} moves")


def record_of(page: Page, server: Server, game: str) -> Record:
    response = page.request.get(f"{server.url}/api/games/{game}/record")
    assert response.ok, (response.status, response.text())
    return Record.loads(response.body())


def winner_for(record: Record, seat: int) -> str:
    outcome = record.replay().outcome
    assert outcome is not None
    if outcome.winner is None:
        return "draw"
    return "me" if outcome.winner == seat else "opponent"


def game_id(page: Page) -> str:
    match = re.search(r"/g/([^/?#]+)", page.url)
    assert match, page.url
    return match.group(1)


def start_ai_game(page: Page, server: Server, *, seat: str = "0", name: str = "") -> None:
    """Create an AI game (easy, 3 rounds) from the home page's form."""
    page.goto(f"{server.url}/")
    page.locator("#level").select_option("easy")
    page.locator("#seat").select_option(seat)
    page.locator("#rounds").select_option("3")
    if name:
        page.locator("#name").fill(name)
    page.locator("#start-ai").click()
    page.wait_for_url(re.compile(r"/g/[^/?#]+"))
    wait_for_game(page)


def no_horizontal_scroll(page: Page) -> None:
    widths = page.evaluate("() => [document.documentElement.scrollWidth, window.innerWidth]")
    assert widths[0] <= widths[1], (
        f"the page scrolls sideways: scrollWidth {widths[0]} > {widths[1]}"
    )


# -- the tests ------------------------------------------------------------------------------------


def test_a_whole_game_against_the_ai_by_clicks(server: Server, page: Page) -> None:
    page.goto(f"{server.url}/")
    page.locator("#start-ai").wait_for()
    shot(page, "home.png")
    start_ai_game(page, server, seat="random", name="Clicker")
    game = game_id(page)
    assert status(page) == "playing"

    def screenshots(page: Page, moves: int) -> None:
        if moves != 5:
            return
        shot(page, "game-desktop.png")
        page.set_viewport_size(PHONE)
        try:
            page.wait_for_timeout(300)
            no_horizontal_scroll(page)
            shot(page, "game-phone.png", full_page=False)
        finally:
            page.set_viewport_size(DESKTOP)

    scorings = play_by_clicks([page], random.Random(1), before_move=screenshots)
    assert status(page) == "over" and to_move(page) == "none" and legal(page) == []
    shot(page, "game-over.png")
    shown = page.locator("#result").get_attribute("data-winner")

    record = record_of(page, server, game)
    seat = record.players.index("Clicker")
    assert record.players[1 - seat] == "easy"
    assert shown == winner_for(record, seat)
    # each round's scoring was shown, and the log has every move and each round's reveal
    rounds = len(record.rounds)
    assert scorings == [rounds]
    assert log_length(page) == sum(len(r.moves) for r in record.rounds) + rounds
    no_page_errors(page)
    FINISHED.append(game)  # the review test looks at this game (and screenshots it)

    page.locator("#review-link").click()
    page.wait_for_url(f"**/review/{game}")
    page.locator("#step").wait_for()

    # back at the finished game: the result at once (no scoring to click through again)
    page.go_back()
    wait_for_game(page)
    page.locator("#result").wait_for()
    assert page.locator("#result").get_attribute("data-winner") == shown
    assert not page.locator("#scoring-continue").is_visible()
    # a rematch: a new game at the same level, seats swapped
    page.locator("#rematch").click()
    page.wait_for_url(lambda url: "/g/" in url and f"/g/{game}" not in url)
    wait_for_game(page)
    assert status(page) == "playing"
    rematch = game_id(page)
    response = page.request.get(f"{server.url}/api/games/{rematch}/record")
    assert response.status == 403  # it is on


def test_a_friend_game_through_the_invite_link(server: Server, browser: Browser) -> None:
    host_context, guest_context = new_context(browser), new_context(browser)
    try:
        host, guest = open_page(host_context), open_page(guest_context)
        host.goto(f"{server.url}/")
        host.locator("#seat").select_option("0")
        host.locator("#rounds").select_option("3")
        host.locator("#name").fill("Hostess")
        host.locator("#invite").click()
        link = host.locator("#invite-link")
        link.wait_for()
        invite = link.input_value()
        assert re.fullmatch(re.escape(server.url) + r"/g/[^/?#]+\?t=\S+", invite), invite
        host.locator("#go").click()
        host.wait_for_url(re.compile(r"/g/[^/?#]+"))
        game = game_id(host)
        assert invite.startswith(f"{server.url}/g/{game}?")
        wait_for_game(host)

        guest.goto(invite)
        wait_for_game(guest)
        assert game_id(guest) == game
        # seat 0 starts: the host has a decision, the guest waits
        until(
            host,
            "() => document.querySelector('#game').dataset.toMove === 'me'",
            why="the host (seat 0) never gets the first decision",
        )
        assert to_move(guest) == "opponent" and legal(guest) == []

        scorings = play_by_clicks([host, guest], random.Random(2))
        winners = (
            host.locator("#result").get_attribute("data-winner"),
            guest.locator("#result").get_attribute("data-winner"),
        )
        expected = {("me", "opponent"), ("opponent", "me"), ("draw", "draw")}
        assert winners in expected, winners
        record = record_of(host, server, game)
        assert record.players[0] == "Hostess"
        assert winners[0] == winner_for(record, 0)
        assert winners[1] == winner_for(record, 1)
        assert scorings == [len(record.rounds)] * 2
        no_page_errors(host)
        no_page_errors(guest)
        FINISHED.append(game)
    finally:
        host_context.close()
        guest_context.close()


def test_a_reload_mid_game_brings_the_same_table_back(server: Server, page: Page) -> None:
    start_ai_game(page, server, seat="0")
    rng = random.Random(3)
    for _ in range(4):
        wait_for_my_turn(page)
        assert not game_over(page)
        make_move(page, rng.choice(legal(page)))
    wait_for_my_turn(page)
    before = (legal(page), hand(page), log_length(page))
    assert before[0] and before[2] >= 4

    page.reload()
    wait_for_game(page)
    until(
        page,
        "n => document.querySelectorAll('#log li').length >= n",
        before[2],
        why=f"after the reload, #log never had the {before[2]} moves again",
    )
    wait_for_my_turn(page)
    assert (legal(page), hand(page), log_length(page)) == before

    # and the game goes on (the round ends after 6 decisions of each side: it may end the game)
    make_move(page, rng.choice(legal(page)))
    assert log_length(page) > before[2]
    wait_for_my_turn(page)
    if not game_over(page):
        make_move(page, rng.choice(legal(page)))
    no_page_errors(page)


ENGLISH_MOVE = re.compile(
    r"(Secret|Discard|Gift): (\d(?:, \d)*)|Competition: (\d)\+(\d) \| (\d)\+(\d)|Take (\d(?:\+\d)?)"
)


def test_a_scoring_interrupted_by_a_reload_is_shown_again(server: Server, page: Page) -> None:
    start_ai_game(page, server, seat="0")
    rng = random.Random(21)
    scoring = page.locator("#scoring-continue")
    for _ in range(40):  # round 1 has at most 12 decisions of this seat
        deadline = time.monotonic() + AI_TIMEOUT_MS / 1000
        while not (scoring.is_visible() or my_decision(page) or game_over(page)):
            assert time.monotonic() < deadline, "neither a decision nor a scoring came"
            page.wait_for_timeout(50)
        if scoring.is_visible():
            break
        make_move(page, rng.choice(legal(page)))
    assert scoring.is_visible(), "round 1 ended without its scoring being shown"
    page.reload()
    wait_for_game(page)
    page.locator("#scoring-continue").wait_for(state="visible", timeout=10_000)
    assert dismiss_scoring(page)
    page.reload()  # now it was watched to the end: not shown a third time
    wait_for_game(page)
    page.wait_for_timeout(1_500)
    assert not page.locator("#scoring-continue").is_visible()


def moves_named(text: str) -> list[str]:
    """The moves an English text names ("Gift: 1, 4, 7" is G147, "Take 4+7" is P47)."""
    found = []
    for m in ENGLISH_MOVE.finditer(text):
        if m.group(1):
            found.append(m.group(1)[0] + "".join(sorted(m.group(2).replace(", ", ""))))
        elif m.group(3):
            pairs = sorted(["".join(sorted(m.group(3, 4))), "".join(sorted(m.group(5, 6)))])
            found.append(f"C{pairs[0]}-{pairs[1]}")
        else:
            found.append("P" + "".join(sorted(m.group(7).replace("+", ""))))
    return found


def test_hint_and_undo_against_the_ai(server: Server, page: Page) -> None:
    start_ai_game(page, server, seat="0")
    wait_for_my_turn(page)
    moves = legal(page)
    page.locator("#hint").click()
    hint = page.locator("#hint-text")
    hint.wait_for()
    until(
        page,
        "() => /\\d/.test(document.querySelector('#hint-text').textContent)",
        why="#hint-text never showed a suggestion",
        timeout=AI_TIMEOUT_MS,
    )
    named = moves_named(hint.inner_text())
    assert named, f"the hint names no move: {hint.inner_text()!r}"
    assert set(named) <= set(moves), (named, moves)

    before = (legal(page), hand(page))
    secrets = [m for m in before[0] if m[0] == "S"]
    make_move(page, random.Random(4).choice(secrets))  # the AI answers with its own action
    wait_for_my_turn(page)
    assert not game_over(page)
    assert (legal(page), hand(page)) != before
    undo = page.locator("#undo")
    until(page, "() => !document.querySelector('#undo').disabled", why="#undo stays disabled")
    undo.click()
    until(
        page,
        "([legal, hand]) => document.querySelector('#game').dataset.legal === legal &&"
        " [...document.querySelectorAll('#hand button.card')].map(c => c.dataset.card).join('')"
        " === hand",
        [" ".join(before[0]), "".join(before[1])],
        why=f"after #undo the table is not as before the move: {before}",
    )
    assert (legal(page), hand(page)) == before
    assert to_move(page) == "me"
    no_page_errors(page)


def test_keyboard_reaches_cards_and_actions_and_toggles_cards(server: Server, page: Page) -> None:
    start_ai_game(page, server, seat="0")
    wait_for_my_turn(page)
    describe = (
        "() => { const e = document.activeElement;"
        " if (e.matches('#hand button.card')) return 'card';"
        " if (e.matches('button[data-action]')) return 'action:' + e.dataset.action;"
        " return e.tagName + (e.id ? '#' + e.id : ''); }"
    )
    page.locator("body").click(position={"x": 2, "y": 2})
    reached: list[str] = []
    for _ in range(60):
        page.keyboard.press("Tab")
        reached.append(page.evaluate(describe))
        if "card" in reached and any(r.startswith("action:") for r in reached):
            break
    assert "card" in reached, f"Tab never reached a card of #hand: {reached}"
    assert any(r.startswith("action:") for r in reached), f"Tab never reached an action: {reached}"

    # back to the first card, by keyboard only
    for _ in range(60):
        if page.evaluate(describe) == "card":
            break
        page.keyboard.press("Shift+Tab")
    assert page.evaluate(describe) == "card"
    pressed = "want => document.activeElement.getAttribute('aria-pressed') === want"
    assert page.evaluate(pressed, "false")
    page.keyboard.press("Enter")
    until(
        page,
        pressed,
        "true",
        why="Enter on a focused card did not select it (or the focus left it)",
    )
    assert page.evaluate(describe) == "card", "the focus left the card after Enter"
    page.keyboard.press("Space")
    until(page, pressed, "false", why="Space on a selected card did not deselect it")
    assert page.evaluate(describe) == "card", "the focus left the card after Space"
    page.keyboard.press("Space")
    until(page, pressed, "true", why="Space on a focused card did not select it")
    assert page.locator('#hand button.card[aria-pressed="true"]').count() == 1
    no_page_errors(page)


def test_the_language_can_be_switched_and_is_kept(server: Server, page: Page) -> None:
    languages = "() => document.querySelector('select#lang')?.options.length >= 4"
    page.goto(f"{server.url}/rules")
    until(page, languages, why="the rules page has no select#lang with 4 languages")
    shot(page, "rules.png")
    page.goto(f"{server.url}/")
    until(page, languages, why="the home page has no select#lang with 4 languages")
    start = page.locator("#start-ai")
    assert page.locator("html").get_attribute("lang") == "en"
    text = "e => e.textContent.trim()"
    texts = {"en": start.evaluate(text)}
    for code in ("ru", "cs", "fr"):
        page.locator("#lang").select_option(code)
        until(page, LANG, code, why=f"choosing {code} does not set <html lang>")
        until(
            page,
            "old => !old.includes(document.querySelector('#start-ai').textContent.trim())",
            list(texts.values()),
            why=f"choosing {code} does not translate #start-ai",
        )
        texts[code] = start.evaluate(text)
    assert len(set(texts.values())) == 4, texts

    page.reload()
    until(page, LANG, "fr", why="after a reload the language is no longer fr")
    until(
        page,
        "fr => document.querySelector('#start-ai').textContent.trim() === fr",
        texts["fr"],
        why="after a reload #start-ai is no longer in French",
    )
    assert page.locator("#lang").input_value() == "fr"
    page.goto(f"{server.url}/rules")  # and on the other pages
    until(page, LANG, "fr", why="the rules page does not keep the chosen language")
    assert page.locator("#lang").input_value() == "fr"
    no_page_errors(page)


def finished_by_websockets(server: Server) -> str:
    """A friend game played out with random moves over the WebSocket API."""

    async def play() -> str:
        async with aiohttp.ClientSession() as session:
            response = await session.post(
                f"{server.url}/api/games", json={"mode": "friend", "seat": 0, "max_rounds": 3}
            )
            data = await response.json()
            invite = await claim_invite(server.url, data["invite"])
            async with (
                seat_socket(session, server.url, data["game"], data["token"]) as host,
                seat_socket(session, server.url, data["game"], invite) as guest,
            ):
                await play_out([host, guest], random.Random(7))
            return str(data["game"])

    # in a thread of its own: Playwright's sync API keeps an event loop running in this one
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, play()).result(timeout=120)


def test_the_review_page_steps_through_a_finished_game(server: Server, page: Page) -> None:
    game = FINISHED[0] if FINISHED else finished_by_websockets(server)
    page.goto(f"{server.url}/review/{game}")
    step = page.locator("#step")
    step.wait_for()
    until(page, f"() => {STEP} !== ''", why="#step stays empty")
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
    until(
        page,
        "() => document.querySelector('svg#winprob')?.querySelector('path, circle, line')",
        why="svg#winprob was never drawn",
        timeout=120_000,
    )
    assert page.locator("svg#winprob").is_visible()

    with page.expect_download() as download_info:
        page.locator("#download").click()
    path = download_info.value.path()
    record = Record.loads(Path(path).read_bytes())
    assert record.replay().outcome is not None
    assert record.to_json() == record_of(page, server, game).to_json()
    shot(page, "review.png")
    no_page_errors(page)
