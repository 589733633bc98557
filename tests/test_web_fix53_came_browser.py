"""The mark that a friend came to the table (``hanamikoji.came.<game>`` in localStorage) is
cleaned up (Playwright, Chromium).

- Made when the friend is seen at a game where they have not moved yet (js/game.js notYetCome),
  it holds the time it was made, and goes once they have moved (their moves then say it).
- Opening a table takes away other games' marks older than a day, and the old marks without a
  time; a recent one of another game (a rematch still waited for) stays.

Screenshots: ``test-output/screenshots/fix53-came-*.png``.
"""

from __future__ import annotations

import time

from playwright.sync_api import Browser

from browser_support import (
    friend_game,
    legal,
    make_move,
    no_page_errors,
    shot,
    until,
    wait_for_my_turn,
)
from web_support import Server

DAY_MS = 24 * 3600 * 1000

MARKS = (
    "() => Object.fromEntries(Object.keys(localStorage)"
    ".filter((k) => k.startsWith('hanamikoji.came.')).map((k) => [k, localStorage.getItem(k)]))"
)


def test_the_came_marks_are_cleaned_up(server: Server, browser: Browser) -> None:
    now = int(time.time() * 1000)
    seed = f"""
    if (!sessionStorage.getItem('seeded')) {{
      sessionStorage.setItem('seeded', '1');
      localStorage.setItem('hanamikoji.lang', 'en');
      localStorage.setItem('hanamikoji.came.oldgame', '{now - 2 * DAY_MS}');
      localStorage.setItem('hanamikoji.came.legacy', '1');
      localStorage.setItem('hanamikoji.came.recent', '{now - 3600 * 1000}');
    }}
    """
    game, (anna, bob) = friend_game(browser, server, "Anna", "Bob", init_script=seed)
    key = f"hanamikoji.came.{game}"
    try:
        until(
            anna,
            "k => localStorage.getItem(k) !== null",
            key,
            why="Anna's table never noted that Bob came",
        )
        marks = anna.evaluate(MARKS)
        assert set(marks) == {key, "hanamikoji.came.recent"}, (
            f"the stale marks were not taken away (or the recent one was): {marks}"
        )
        assert abs(int(marks[key]) - now) < 10 * 60 * 1000, f"the mark has no time: {marks}"
        # Anna moves, then Bob: his move says he came; the mark goes
        wait_for_my_turn(anna)
        make_move(anna, next(m for m in legal(anna) if m[0] in "SD"))
        wait_for_my_turn(bob)
        make_move(bob, next(m for m in legal(bob) if m[0] in "SD"))
        until(
            anna,
            "k => localStorage.getItem(k) === null",
            key,
            why="the mark stays after Bob moved",
        )
        shot(anna, "fix53-came-after-move.png", full_page=False)
        assert anna.evaluate(MARKS) == {"hanamikoji.came.recent": marks["hanamikoji.came.recent"]}
        for page in (anna, bob):
            no_page_errors(page)
    finally:
        anna.context.close()
        bob.context.close()
