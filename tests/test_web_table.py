"""The table in a real browser, as a player sees it: the decision always on screen at laptop and
phone sizes, the opponent's moves followed one at a time and told in words, a board readable at a
glance, a scoring that spoils nothing, an ending that says who and why, keyboard play, settings.

The layout is asserted on the boxes the browser draws (``getBoundingClientRect``), in every phase of
whole games against the AI; what the page tells is checked against the game's record.
"""

from __future__ import annotations

import itertools
import random
import re
from typing import Any

from playwright.sync_api import Browser, Page, ViewportSize

from browser_support import (
    AI_TIMEOUT_MS,
    DESKTOP,
    PHONE,
    dismiss_scoring,
    game_id,
    game_over,
    history_length,
    legal,
    make_move,
    my_decision,
    new_context,
    no_horizontal_scroll,
    no_page_errors,
    open_page,
    record_of,
    shot,
    until,
    wait_for_game,
    wait_for_my_turn,
)
from hanamikoji.record import Record
from web_support import Server

LAPTOP: ViewportSize = {"width": 1366, "height": 768}
WINDOW: ViewportSize = {"width": 1280, "height": 720}
SIZES: dict[str, ViewportSize] = {"1366x768": LAPTOP, "1280x720": WINDOW, "390x844": PHONE}

BOXES = """sels => {
  const out = {};
  for (const sel of sels) {
    out[sel] = [...document.querySelectorAll(sel)]
      .filter((n) => n.getClientRects().length)
      .map((n) => n.getBoundingClientRect())
      .map((r) => [r.left, r.top, r.right, r.bottom]);
  }
  return out;
}"""


def start_game(page: Page, server: Server, *, level: str = "beginner", seat: str = "0") -> None:
    page.goto(f"{server.url}/")
    page.locator("#level").select_option(level)
    page.locator("#seat").select_option(seat)
    page.locator("#rounds").select_option("3")
    page.locator("#start-ai").click()
    page.wait_for_url(re.compile(r"/g/[^/?#]+"))
    wait_for_game(page)


def inside(box: list[float], size: Any) -> bool:
    left, top, right, bottom = box
    return (
        left >= -0.5
        and top >= -0.5
        and right <= size["width"] + 0.5
        and bottom <= size["height"] + 0.5
    )


def overlap(a: list[float], b: list[float]) -> bool:
    return a[0] < b[2] - 0.5 and b[0] < a[2] - 0.5 and a[1] < b[3] - 0.5 and b[1] < a[3] - 0.5


def assert_on_screen(page: Page, selectors: list[str], size: Any, what: str) -> None:
    """Every element of each selector is drawn, and wholly inside the viewport at scroll 0."""
    page.evaluate("() => window.scrollTo(0, 0)")
    boxes = page.evaluate(BOXES, selectors)
    for sel in selectors:
        assert boxes[sel], f"{what}: {sel} is not shown at {size}"
        for box in boxes[sel]:
            assert inside(box, size), f"{what}: {sel} at {box} is outside the {size} viewport"


def assert_board_readable(page: Page) -> None:
    """No card covers a marker; each stack's count is its number of cards; no stack leaves its
    column."""
    boxes = page.evaluate(BOXES, ["#board .marker", "#board .pcard"])
    assert len(boxes["#board .marker"]) == 7
    for marker in boxes["#board .marker"]:
        for card in boxes["#board .pcard"]:
            assert not overlap(marker, card), f"a card {card} covers the marker at {marker}"
    stacks = page.evaluate(
        """() => [...document.querySelectorAll('#board .side')].map((s) => {
          const col = s.closest('.geisha').getBoundingClientRect();
          const cards = [...s.querySelectorAll('.pcard')];
          const out = cards.some((c) => { const r = c.getBoundingClientRect();
            return r.left < col.left - 1 || r.right > col.right + 1; });
          const label = s.querySelector('.count')?.textContent ?? '0';
          return [cards.length, Number(s.dataset.count), label, out];
        })"""
    )
    for cards, count, label, out in stacks:
        assert cards == count == int(label), f"a stack of {cards} cards says {label}"
        assert not out, f"a stack of {cards} cards pokes out of its column"


def decision_layout(page: Page, move: str) -> None:
    """At each size: the hand, the actions, the status, the prompt but on a phone (and the
    offer's picks, or once the cards and the action are chosen, the move to confirm and its
    prompt) inside the viewport."""
    for name, size in SIZES.items():
        page.set_viewport_size(size)
        no_horizontal_scroll(page)
        if move[0] == "P":
            assert_on_screen(page, ["#hand", "#status", "#offer button.pick"], size, name)
        else:
            # the prompt before any card is chosen only says "your turn" again: on a phone,
            # with the status on the same screen, it is left out
            prompt = ["#choices .prompt"] if size["width"] > 600 else []
            assert_on_screen(page, ["#hand", "#my-actions", "#status", *prompt], size, name)
            if not prompt:
                assert page.locator("#choices .prompt.echo").is_hidden()
        assert_board_readable(page)
    page.set_viewport_size(WINDOW)


def choose(page: Page, move: str) -> None:
    """Select the cards and the action of ``move`` (not a pick) and check the confirm shows."""
    for card in move[1:].replace("-", ""):
        page.locator(f'#hand button.card[data-card="{card}"][aria-pressed="false"]').first.click()
    page.locator(f'button[data-action="{move[0]}"]').click()
    for name, size in SIZES.items():
        page.set_viewport_size(size)
        assert_on_screen(
            page, [f'#choices button[data-move="{move}"]', "#choices .prompt"], size, name
        )
    page.set_viewport_size(WINDOW)


def history_entries(record: Record) -> list[tuple[int, int, str] | None]:
    """The seats' history as the page counts it: each move (round, seat, move), then None for
    each scored round's reveal."""
    out: list[tuple[int, int, str] | None] = []
    state = record.replay()
    plies = list(state.history)
    for i, ply in enumerate(plies):
        out.append((ply.round, ply.seat, str(ply.move)))
        last_of_round = i + 1 == len(plies) or plies[i + 1].round != ply.round
        if last_of_round and len(state.scorings) >= ply.round:
            out.append(None)
    return out


def words_for(move: str) -> str:
    """A fragment the status must contain for the opponent's ``move`` (English)."""
    kind, rest = move[0], move[1:]
    if kind == "S":
        return "kept a card as a Secret"
    if kind == "D":
        return "discarded 2 cards"
    if kind == "G":
        return "offered " + ", ".join(rest)
    if kind == "C":
        a, b = rest.split("-")
        return f"pairs {'+'.join(a)} and {'+'.join(b)}"
    return "took " + ("+".join(rest) if len(rest) == 2 else rest)


def test_a_whole_game_keeps_the_decision_on_screen_and_tells_every_move(
    server: Server, browser: Browser
) -> None:
    context = new_context(browser, viewport=WINDOW)
    try:
        page = open_page(context)
        start_game(page, server, seat="1")
        wait_for_my_turn(page)
        # on a phone each side's standing (name, guest mark, who starts, charm, geisha) is one
        # line, as tall as the other's
        page.set_viewport_size(PHONE)
        heights = [page.locator(f"#{w}-standing").bounding_box() for w in ("my", "opp")]
        assert heights[0] and heights[1] and heights[0]["height"] == heights[1]["height"], heights
        assert page.locator("#my-standing .first-tag, #opp-standing .first-tag").count() == 1
        page.set_viewport_size(WINDOW)
        rng = random.Random(16)
        told: list[tuple[int, str]] = []  # (history length, status text) at each decision
        shots = 0
        while True:
            wait_for_my_turn(page)
            if game_over(page):
                break
            # a new decision starts clean: no card selected, no action pressed (a hint's included)
            assert page.locator('#hand [aria-pressed="true"]').count() == 0
            assert page.locator('#my-actions [aria-pressed="true"]').count() == 0
            told.append((history_length(page), page.locator("#status").inner_text()))
            move = rng.choice(legal(page))
            decision_layout(page, move)
            if move[0] != "P":
                choose(page, move)
            if shots < 3 and (move[0] in "GC" or (move[0] == "P" and shots < 2)):
                shots += 1
                for name, size in SIZES.items():
                    page.set_viewport_size(size)
                    shot(page, f"table-{move[0]}-{shots}-{name}.png", full_page=False)
                page.set_viewport_size(WINDOW)
            make_move(page, move)
        for name, size in SIZES.items():
            page.set_viewport_size(size)
            assert_on_screen(page, ["#result", "#status"], size, f"the end at {name}")
            shot(page, f"table-over-{name}.png", full_page=False)
        record = record_of(page, server, game_id(page))
        seat = 1
        entries = history_entries(record)
        assert len(entries) == history_length(page)  # the page's history, entry for entry
        for length, text in told:
            # the status names each of the opponent's moves since the player's own last one
            mine = [i for i, e in enumerate(entries[:length]) if e is not None and e[1] == seat]
            start = mine[-1] + 1 if mine else 0
            for entry in entries[start:length]:
                if entry is not None:
                    assert words_for(entry[2]) in text, (entry, text)
        # the end says who won and how
        outcome = record.replay().outcome
        assert outcome is not None
        title = page.locator("#result-title").inner_text()
        reason = page.locator("#result-reason").inner_text()
        if outcome.winner == seat:
            assert title == "You won!"
        elif outcome.winner is None:
            assert title == "A draw"
        else:
            assert title == "AI (Beginner) won"
        expected = {
            "charm": "charm",
            "geisha": "favour of",
            "round-limit": "After round 3",
            "draw": "After round 3",
        }[outcome.reason.value]
        assert expected in reason, (outcome.reason, reason)
        who = "You" if outcome.winner == seat else "AI (Beginner)"
        if outcome.reason.value in ("charm", "geisha"):
            assert reason.startswith(who), reason
        # each side's meters: a count short of its goal "n/goal", one past it the count ticked
        for which in ("my", "opp"):
            for meter, goal in (("charm", 11), ("geisha", 4)):
                text = page.locator(f"#{which}-standing .meter.{meter} .meter-text").inner_text()
                count = int(re.findall(r"\d+", text)[0])
                expected_text = f"{count} {meter} ✓" if count >= goal else f"{count}/{goal} {meter}"
                assert text == expected_text, (which, text)
        no_page_errors(page)
    finally:
        context.close()


def standing_charm(page: Page, which: str) -> int:
    text = page.locator(f"#{which}-standing .meter.charm .meter-text").inner_text()
    match = re.search(r"(\d+)(/11 charm| charm ✓)", text)  # "12 charm ✓" past the goal
    assert match, text
    return int(match.group(1))


READ_SCORING = """() => {
  const num = (sel) =>
    Number(/(\\d+)(\\/11 charm| charm ✓)/.exec(document.querySelector(sel).textContent)[1]);
  return [Number(document.querySelector('#scoring').dataset.step),
          (document.querySelector('#scoring-totals').textContent.match(/\\d+/g) || []).map(Number),
          num('#my-standing .meter.charm .meter-text'),
          num('#opp-standing .meter.charm .meter-text')];
}"""
CHARM = [2, 2, 2, 3, 3, 4, 5]


def test_the_scoring_shows_its_outcome_step_by_step(server: Server, page: Page) -> None:
    start_game(page, server)
    rng = random.Random(5)
    before = (0, 0)
    scoring_or_decision = (
        "() => document.querySelector('#scoring').open"
        " || document.querySelector('#game').dataset.legal !== ''"
        " || !document.querySelector('#result').hidden"
    )
    while True:
        until(
            page,
            scoring_or_decision,
            why="neither a scoring nor a decision came",
            timeout=AI_TIMEOUT_MS,
        )
        if page.locator("#scoring").is_visible():
            break
        assert not game_over(page), "the game ended before a scoring was seen"
        before = (standing_charm(page, "my"), standing_charm(page, "opp"))
        make_move(page, rng.choice(legal(page)))
    # nothing of the outcome shows before its step: the result waits, the standing starts as before
    assert not page.locator("#result").is_visible()
    assert "being scored" in page.locator("#status").inner_text()
    # behind it the table is the round being scored, its cards on both sides as the dialog's
    # board shows them (the Secrets too), none of the next round's hand, pile or actions
    sides = """(board) => [...document.querySelectorAll(board + ' .side')]
      .map((side) => [...side.querySelectorAll('.pcard')].map((c) => c.dataset.card).join(''))"""
    table, scored = page.evaluate(sides, "#board"), page.evaluate(sides, "#scoring-board")
    assert table == scored and sum(map(len, table)) == 16, (table, scored)
    for hidden in ("#hand", "#opp-hand", "#pile", "#my-actions"):
        assert not page.locator(hidden).is_visible(), hidden
    assert page.locator(".first-tag").count() == 0
    for name, size in SIZES.items():
        page.set_viewport_size(size)
        shot(page, f"table-scoring-{name}.png", full_page=False)
        dialog = ["#scoring-continue", "#scoring-text"]
        assert_on_screen(page, dialog, size, f"the scoring at {name}")
    page.set_viewport_size(DESKTOP)
    seen = []
    for _ in range(9):
        step, totals, mine, theirs = page.evaluate(READ_SCORING)
        # the dialog's totals are the table's standing at every step
        assert totals[:2] == [mine, theirs], (step, totals, mine, theirs)
        seen.append((step, mine, theirs))
        if step >= 8:
            break
        page.locator("#scoring-continue").click()
    assert seen[0][1:] == before, (seen, before)
    for (s0, a0, b0), (s1, a1, b1) in itertools.pairwise(seen):
        if s1 == s0 + 1 and 1 <= s1 <= 7:  # one geisha scored: only her charm moved
            assert abs(a1 - a0) + abs(b1 - b0) <= 2 * CHARM[s1 - 1], seen
    dismiss_scoring(page)
    no_page_errors(page)


def test_the_opponents_moves_are_paced_and_can_be_skipped(server: Server, browser: Browser) -> None:
    context = new_context(browser, reduced_motion="no-preference")
    try:
        page = open_page(context)
        start_game(page, server, seat="0")
        rng = random.Random(2)
        paced = skipped = False
        for _ in range(12):
            wait_for_my_turn(page)
            if game_over(page):
                break
            moves = legal(page)
            offers = [m for m in moves if m[0] in "GC"]
            move = rng.choice(offers or moves)
            before = history_length(page)
            make_move(page, move)
            if move[0] not in "GC":
                continue
            # after the player's offer the AI picks, then plays its own action: two moves
            if not paced:
                until(
                    page,
                    "n => Number(document.querySelector('#game').dataset.history) >= n + 2",
                    before,
                    why="the AI's pick never showed",
                    timeout=AI_TIMEOUT_MS,
                )
                times = page.evaluate(
                    """n => new Promise((done) => {
                      const now = () => Number(document.querySelector('#game').dataset.history);
                      const seen = [[now(), performance.now()]];
                      const look = () => {
                        const h = Number(document.querySelector('#game').dataset.history);
                        if (h !== seen[seen.length - 1][0]) seen.push([h, performance.now()]);
                        if (h >= n + 3 || performance.now() - seen[0][1] > 15000) done(seen);
                        else requestAnimationFrame(look);
                      };
                      look();
                    })""",
                    before,
                )
                when = {h: t for h, t in times}
                if before + 2 in when and before + 3 in when:
                    # the AI's own action came a pace (about a second) after its pick
                    assert when[before + 3] - when[before + 2] >= 600, times
                    paced = True
                continue
            # the next time: a key while the moves are paced shows them all at once
            try:
                page.wait_for_function(
                    "() => document.querySelector('#game').dataset.busy === 'true'", timeout=10_000
                )
            except Exception:  # the AI's moves all came before the page looked: try again
                continue
            page.keyboard.press("x")
            until(
                page,
                "() => document.querySelector('#game').dataset.busy === 'false'",
                why="a key did not show the rest at once",
                timeout=400,
            )
            skipped = True
            break
        assert paced, "no Gift or Competition of the player was answered by two AI moves"
        assert skipped, "the pacing was never skipped"
        no_page_errors(page)
    finally:
        context.close()


def test_keyboard_alone_plays_a_whole_game(server: Server, browser: Browser) -> None:
    context = new_context(browser, viewport=LAPTOP)
    try:
        page = open_page(context)
        start_game(page, server, seat="random")
        rng = random.Random(7)
        decisions = 0
        while True:
            # a scoring's Continue has the focus: Enter until it is gone
            for _ in range(12):
                if not page.locator("#scoring").is_visible():
                    break
                page.keyboard.press("Enter")
                page.wait_for_timeout(50)
            wait_for_my_turn(page)
            if page.locator("#scoring").is_visible():
                continue
            if game_over(page):
                break
            decisions += 1
            where = "#offer .picks" if page.locator("#offer .pick").count() else "#hand"
            presses = 0
            inside_js = "sel => !!document.activeElement?.closest(sel)"
            while not page.evaluate(inside_js, where):
                presses += 1
                assert presses <= 3, f"more than 3 keys to reach {where} (decision {decisions})"
                page.keyboard.press("Tab")
            move = rng.choice(legal(page))
            before = history_length(page)
            if move[0] == "P":
                for _ in range(6):
                    if page.evaluate("() => document.activeElement.dataset.move") == move:
                        break
                    page.keyboard.press("ArrowRight")
                page.keyboard.press("Enter")
            else:
                wanted = list(move[1:].replace("-", ""))
                page.keyboard.press("Home")
                for _ in range(12):
                    card = page.evaluate("() => document.activeElement.dataset.card")
                    pressed = page.evaluate("() => document.activeElement.ariaPressed")
                    if card in wanted and pressed == "false":
                        page.keyboard.press("Space")
                        wanted.remove(card)
                    if not wanted:
                        break
                    page.keyboard.press("ArrowRight")
                assert not wanted, f"could not select {move} by keys"
                # each group is one Tab stop: Tab reaches the actions, the arrows move within
                for _ in range(12):
                    if page.evaluate("() => document.activeElement.dataset.action") == move[0]:
                        break
                    inside = page.evaluate(inside_js, "#my-actions")
                    page.keyboard.press("ArrowRight" if inside else "Tab")
                page.keyboard.press(
                    "Enter"
                )  # the action: the focus goes to the first move to confirm
                for _ in range(40):
                    if page.evaluate("() => document.activeElement.dataset.move") == move:
                        break
                    page.keyboard.press("ArrowRight")
                page.keyboard.press("Enter")
            until(
                page,
                "n => Number(document.querySelector('#game').dataset.history) > n",
                before,
                why=f"{move} played by keys never reached the history",
                timeout=AI_TIMEOUT_MS,
            )
        assert decisions >= 5  # a game may end after its first round
        no_page_errors(page)
    finally:
        context.close()


def test_a_game_opened_without_a_seat_is_watched(server: Server, browser: Browser) -> None:
    """Without a seat the page is the spectator's table (tests/test_web_watch_browser.py), and
    says so; a game that does not exist is a clear page."""
    owner = new_context(browser)
    stranger = new_context(browser)
    try:
        page = open_page(owner)
        start_game(page, server)
        game = game_id(page)
        other = open_page(stranger)
        other.goto(f"{server.url}/g/{game}")
        until(other, "() => !document.querySelector('#watching').hidden", why="not watching")
        assert "no seat" in other.locator("#watching").inner_text()
        for hidden in ["#hand", "#my-actions", "#hint", "#undo", "#resign", "#no-seat"]:
            assert not other.locator(hidden).is_visible(), hidden
        for shown in ["#board", "#status", ".scorebar", "#near-holder"]:
            assert other.locator(shown).is_visible(), shown
        assert other.locator("#error").is_hidden()
        shot(other, "table-no-seat.png")
        other.goto(f"{server.url}/g/nosuchgame1234")
        until(other, "() => !document.querySelector('#no-seat').hidden", why="no not-found page")
        assert "no such game" in other.locator("#no-seat-title").inner_text()
        no_page_errors(other)
    finally:
        owner.close()
        stranger.close()


def test_the_drawn_card_stays_marked_after_a_reload(server: Server, page: Page) -> None:
    start_game(page, server, seat="0")
    wait_for_my_turn(page)
    drawn = page.locator("#hand .card.drawn")
    assert drawn.count() == 1
    card = drawn.get_attribute("data-card")
    assert "just drawn" in (drawn.get_attribute("aria-label") or "")
    page.reload()
    wait_for_game(page)
    wait_for_my_turn(page)
    assert page.locator("#hand .card.drawn").get_attribute("data-card") == card
    # and the title tells a player in another tab that it is their turn
    assert page.title().startswith("● Your turn")


def test_action_names_fit_and_confirm_buttons_read_well_in_every_language(
    server: Server, browser: Browser
) -> None:
    context = new_context(browser, viewport=PHONE)
    try:
        page = open_page(context)
        start_game(page, server, seat="0")
        wait_for_my_turn(page)
        secret = next(m for m in legal(page) if m[0] == "S")
        for lang in ["en", "fr", "cs", "ru"]:
            page.locator("#lang").select_option(lang)
            until(page, "code => document.documentElement.lang === code", lang, why=lang)
            clipped = page.evaluate(
                """() => [...document.querySelectorAll('#my-actions .action-name')]
                  .filter((n) => n.scrollWidth > n.clientWidth + 1
                    || n.getBoundingClientRect().height
                       > parseFloat(getComputedStyle(n).lineHeight) * 1.5)
                  .map((n) => n.textContent)"""
            )
            assert not clipped, f"{lang}: action names cut or broken: {clipped}"
            page.locator(f'#hand button.card[data-card="{secret[1]}"]').first.click()
            page.locator('button[data-action="S"]').click()
            label = page.locator(f'#choices button[data-move="{secret}"]').inner_text()
            assert label.count(":") == 0 and secret[1] in label, (lang, label)
            page.keyboard.press("Escape")
        assert page.locator("#choices button[data-move]").count() == 0
        page.locator("#lang").select_option("en")
    finally:
        context.close()


def test_settings_theme_sound_and_notifications_are_kept(server: Server, browser: Browser) -> None:
    context = new_context(browser, color_scheme="light")
    context.grant_permissions(["notifications"], origin=server.url)
    try:
        page = open_page(context)
        start_game(page, server)
        background = "() => getComputedStyle(document.body).backgroundColor"
        light = page.evaluate(background)
        page.locator("#prefs > summary").click()
        page.locator("#pref-theme").select_option("dark")
        dark = page.evaluate(background)
        assert page.evaluate("() => document.documentElement.dataset.theme") == "dark"
        assert dark != light
        page.locator("#pref-sound").check()
        page.locator("#pref-notify").check()
        until(page, "() => document.querySelector('#pref-notify').checked", why="notify refused")
        page.locator("#pref-pace").select_option("fast")
        shot(page, "table-dark.png", full_page=False)
        page.reload()
        wait_for_game(page)
        assert page.evaluate(background) == dark
        page.locator("#prefs > summary").click()
        assert page.locator("#pref-sound").is_checked()
        assert page.locator("#pref-notify").is_checked()
        assert page.locator("#pref-pace").input_value() == "fast"
        # "as the system" follows the system's dark scheme
        page.locator("#pref-theme").select_option("system")
        page.emulate_media(color_scheme="dark")
        assert page.evaluate(background) == dark
        page.emulate_media(color_scheme="light")
        assert page.evaluate(background) == light
        no_page_errors(page)
    finally:
        context.close()


def test_with_less_motion_the_pace_shown_is_the_pace_used(server: Server, browser: Browser) -> None:
    """The system asking for less motion: the opponent's moves come at once, and the setting says
    so; a pace the player chooses wins (it showed "one at a time" and did nothing)."""
    context = new_context(browser, reduced_motion="reduce")
    try:
        page = open_page(context)
        start_game(page, server)
        pace = "() => import('/static/js/prefs.js').then((m) => m.paceMs())"
        page.locator("#prefs > summary").click()
        assert page.locator("#pref-pace").input_value() == "instant"
        assert page.evaluate(pace) == 0
        for lang in ("en", "fr"):  # each option's words fit the select (it cut "each")
            page.locator("#lang").select_option(lang)
            until(page, "l => document.documentElement.lang === l", lang, why="no words")
            widths = page.evaluate(
                """() => { const s = document.querySelector('#pref-pace');
                  const c = document.createElement('canvas').getContext('2d');
                  c.font = getComputedStyle(s).font;
                  return [s.clientWidth, Math.max(...[...s.options].map(
                    (o) => c.measureText(o.text).width))]; }"""
            )
            assert widths[1] + 30 <= widths[0], (lang, widths)  # (room for the arrow)
            page.locator("#prefs > summary").click()
            page.locator("#prefs > summary").click()
        page.locator("#lang").select_option("en")
        page.locator("#pref-pace").select_option("normal")
        assert page.evaluate(pace) == 1000
        page.reload()
        wait_for_game(page)
        page.locator("#prefs > summary").click()
        assert page.locator("#pref-pace").input_value() == "normal"
        no_page_errors(page)
    finally:
        context.close()


def test_a_hinted_move_leaves_nothing_pressed_for_the_next_decision(
    server: Server, page: Page
) -> None:
    start_game(page, server, seat="0")
    for _ in range(5):
        wait_for_my_turn(page)
        if game_over(page) or not my_decision(page):
            break
        page.locator("#hint").click()
        until(
            page, "() => /\\d/.test(document.querySelector('#hint-text').textContent)", why="hint"
        )
        suggested = page.locator("#choices button.suggested, #offer button.suggested")
        suggested.first.click()
        wait_for_my_turn(page)
        if game_over(page):
            break
        assert page.locator('#my-actions [aria-pressed="true"]').count() == 0
        assert page.locator('#hand [aria-pressed="true"]').count() == 0


def test_the_table_fits_a_desktop_too(server: Server, page: Page) -> None:
    start_game(page, server)
    wait_for_my_turn(page)
    page.set_viewport_size(DESKTOP)
    assert_on_screen(page, ["#hand", "#my-actions", "#status", "#board"], DESKTOP, "1280x900")
