"""The browser tests' shared parts: one server and one headless chromium per test module, and the
readers of the pages' DOM contract (ids, ``data-*`` attributes, roles).

Test modules take the fixtures through ``tests/conftest.py``; screenshots go to
``test-output/screenshots/`` in the repository root.
"""

from __future__ import annotations

import contextlib
import random
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, ViewportSize, sync_playwright
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from hanamikoji.record import Record
from web_support import Server, sqlite_url

CHROMIUM = Path("/usr/bin/chromium")
REPO = Path(__file__).resolve().parents[1]
SHOTS = REPO / "test-output" / "screenshots"
DESKTOP: ViewportSize = {"width": 1280, "height": 900}
PHONE: ViewportSize = {"width": 390, "height": 844}
AI_TIMEOUT_MS = 60_000
"""How long the page may take to show the other side's move (the easy AI's, the friend's)."""

LANG = "code => document.documentElement.lang === code"
STEP = "document.querySelector('#step').textContent.trim()"


# -- fixtures -------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    db = sqlite_url(tmp_path_factory.mktemp("web-browser") / "games.sqlite3")
    # Every test's browser is the same address, and together they start more games than one
    # person would, and each new context is a new guest (over 30 a minute on a fast machine):
    # the per-client limits (tested in test_web_trust.py) are off here.
    srv = Server(
        db, args=["--games-per-minute", "0", "--guests-per-minute", "0", "--ai-games", "0"]
    )
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
    """A fresh browser profile, preferring reduced motion unless ``reduced_motion`` says otherwise:
    the opponent's moves then show at once, as that preference asks (pacing has its own tests)."""
    options.setdefault("reduced_motion", "reduce")
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
    """Lines in the move list (an offer and its pick share one line)."""
    return page.locator("#log li").count()


def history_length(page: Page) -> int:
    """Entries of the seat's history on show (every move and every round's reveal)."""
    return int(page.locator("#game").get_attribute("data-history") or 0)


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


def friend_game(
    browser: Browser,
    server: Server,
    host: str = "Anna",
    guest: str = "Bob",
    init_script: str | None = None,
) -> tuple[str, list[Page]]:
    """A friend game between ``host`` (seat 0) and ``guest``, each in a browser of their own,
    both at the table: the game's id and the two pages (each loaded after ``init_script``)."""
    first = new_context(browser)
    made = first.request.post(
        f"{server.url}/api/games",
        data={"mode": "friend", "seat": 0, "max_rounds": 3, "name": host},
    ).json()
    second = new_context(browser)
    code = made["invite"].split("?i=")[1]
    joined = second.request.post(
        f"{server.url}/api/games/{made['game']}/join", data={"invite": code, "name": guest}
    ).json()
    pages = []
    for context, url in ((first, made["url"]), (second, joined["url"])):
        if init_script:
            context.add_init_script(init_script)
        page = open_page(context)
        page.goto(f"{server.url}{url}")
        wait_for_game(page)
        pages.append(page)
    return made["game"], pages


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
    before = history_length(page)
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
            "n => Number(document.querySelector('#game').dataset.history) > n",
            arg=before,
            timeout=AI_TIMEOUT_MS,
        )
    except PlaywrightTimeout:
        why = f"{move} never reached the history; #error: {error_text(page)!r}"
        raise AssertionError(why) from None


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
