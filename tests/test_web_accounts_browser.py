"""Identity in the browser: a guest plays, creates an account, signs in from another browser profile
and goes on with the game there; the home page's list of the player's games; the account page.

Short games only (the beginner AI, a few moves): the rules and whole games have their own tests.
"""

from __future__ import annotations

import random
import re

from playwright.sync_api import Browser, Page

from browser_support import (
    DESKTOP,
    PHONE,
    game_id,
    legal,
    make_move,
    new_context,
    no_horizontal_scroll,
    no_page_errors,
    open_page,
    shot,
    until,
    wait_for_game,
    wait_for_my_turn,
)
from test_web_a11y import Findings
from web_support import Server

PASSWORD = "cherry blossom 7"


def start_beginner_game(page: Page, server: Server, name: str = "") -> str:
    """A game against the beginner from the home page's form, the player first; its id."""
    page.goto(f"{server.url}/")
    page.locator("#level").select_option("beginner")
    page.locator("#seat").select_option("0")
    if name:
        page.locator("#name").fill(name)
    page.locator("#start-ai").click()
    page.wait_for_url(re.compile(r"/g/[^/?#]+"))
    wait_for_game(page)
    return game_id(page)


def play_moves(page: Page, n: int, rng: random.Random) -> None:
    for _ in range(n):
        wait_for_my_turn(page)
        make_move(page, rng.choice(legal(page)))
    wait_for_my_turn(page)


def account_form(page: Page, form: str, username: str, password: str = PASSWORD) -> None:
    """Fill and send the account page's create or sign-in form; wait for its answer."""
    page.locator(f"#{form}-username").fill(username)
    page.locator(f"#{form}-password").fill(password)
    page.locator(f"#{form}-form button[type=submit]").click()


def account_state(page: Page, state: str) -> None:
    """Wait until the account page shows the browser as `state` (guest or account)."""
    until(page, f"() => document.querySelector('#account').dataset.state === '{state}'", why="")


def signed_in(page: Page, server: Server, form: str, username: str) -> None:
    """Open the account page as a guest and create the account or sign in to it."""
    page.goto(f"{server.url}/account")
    account_state(page, "guest")
    account_form(page, form, username)
    account_state(page, "account")


def change_password_elsewhere(other: Page, server: Server, username: str, new: str) -> None:
    """Sign in to the account on another device and change its password there, which ends
    every other session of the account."""
    signed_in(other, server, "signin", username)
    other.locator("#current-password").fill(PASSWORD)
    other.locator("#new-password").fill(new)
    other.locator("#password-form button[type=submit]").click()


def test_a_guest_keeps_the_game_on_another_device_after_creating_an_account(
    browser: Browser, server: Server
) -> None:
    rng = random.Random(17)
    laptop = new_context(browser)
    phone = new_context(browser, viewport=PHONE, is_mobile=True, has_touch=True)
    try:
        page = open_page(laptop)
        game = start_beginner_game(page, server, name="Sakura")
        play_moves(page, 2, rng)
        # The tab closed, the game is on the home page.
        page.goto(f"{server.url}/")
        row = page.locator(f'#mine-on li[data-game="{game}"]')
        until(page, "() => !document.querySelector('#mine').hidden", why="no list of games")
        assert row.get_attribute("data-turn") == "you"
        assert "Your turn" in row.inner_text() and "AI (Beginner)" in row.inner_text()
        assert page.locator("#mine-guest").is_visible()
        assert page.locator("#name").input_value() == "Sakura"
        assert page.locator("#account-link").inner_text() == "Sign in"
        shot(page, "accounts-home-guest.png")

        page.locator("#account-link").click()
        page.wait_for_url(re.compile(r"/account$"))
        until(
            page,
            "() => document.querySelector('#account').dataset.state === 'guest'",
            why="no guest state",
        )
        shot(page, "accounts-guest.png")
        account_form(page, "create", "sakura_ok")
        until(
            page,
            "() => document.querySelector('#account').dataset.state === 'account'",
            why="no account",
        )
        assert "Account created" in page.locator("#account-status").inner_text()
        assert page.locator("#account-title").inner_text() == "Signed in as sakura_ok"
        # the bots' section follows the page's account, with no reload: an account owns bots
        until(page, "() => !document.querySelector('#bots-form').hidden", why="no bots section")
        page.locator("#signout").click()
        until(page, "() => document.querySelector('#bots-form').hidden", why="bots still shown")
        account_form(page, "signin", "sakura_ok")
        until(page, "() => !document.querySelector('#bots-form').hidden", why="no bots section")
        shot(page, "accounts-signed-in.png")

        there = open_page(phone)
        there.goto(f"{server.url}/account")
        until(
            there,
            "() => document.querySelector('#account').dataset.state === 'guest'",
            why="no guest state",
        )
        assert not there.locator("#profile-link").is_visible()  # a guest has no profile
        account_form(there, "signin", "SAKURA_0K", "wrong password")  # 0 for O: the same name
        until(
            there,
            "() => !document.querySelector('#signin-form .form-error').hidden",
            why="no error",
        )
        assert "wrong" in there.locator("#signin-form .form-error").inner_text()
        assert there.locator("#signin-password").get_attribute("aria-invalid") is None
        account_form(there, "signin", "SAKURA_0K")
        until(
            there,
            "() => document.querySelector('#account').dataset.state === 'account'",
            why="not signed in",
        )
        assert "Welcome back, sakura_ok" in there.locator("#account-status").inner_text()
        assert there.locator("#bots-form").is_visible()
        assert there.locator("#profile-link").is_visible()
        assert there.locator("#profile-link").get_attribute("href") == "/@/sakura_ok"
        no_horizontal_scroll(there)
        shot(there, "accounts-signed-in-phone.png")
        there.locator("#games-link").click()
        until(there, "() => document.querySelectorAll('#mine-on li').length > 0", why="no games")
        assert there.locator("#account-link").inner_text() == "sakura_ok"
        assert there.locator("#name").input_value() == "Sakura"
        no_horizontal_scroll(there)
        shot(there, "accounts-home-phone.png")
        there.locator(f'#mine-on li[data-game="{game}"] a').click()
        there.wait_for_url(re.compile(rf"/g/{game}$"))  # no token in the link: the account opens it
        wait_for_game(there)
        play_moves(there, 1, rng)
        # The laptop sees the move made on the phone.
        page.goto(f"{server.url}/g/{game}")
        wait_for_game(page)
        wait_for_my_turn(page)
        assert page.locator("#log li").count() >= 3
        for p in (page, there):
            no_page_errors(p)
    finally:
        laptop.close()
        phone.close()


def test_the_home_page_lists_games_on_and_finished(browser: Browser, server: Server) -> None:
    context = new_context(browser)
    try:
        page = open_page(context)
        # A game resigned at once, then one still on, then an invitation not taken yet.
        resigned = start_beginner_game(page, server)
        page.locator("#resign").click()
        page.locator("#resign-yes").click()
        until(page, "() => !document.querySelector('#result').hidden", why="no result")
        on = start_beginner_game(page, server)
        page.goto(f"{server.url}/")
        page.locator("#invite").click()
        until(page, "() => !document.querySelector('#invite-result').hidden", why="no invitation")
        page.goto(f"{server.url}/")
        until(page, "() => document.querySelectorAll('#mine-on li').length === 2", why="no games")
        turns = page.locator("#mine-on li").evaluate_all("items => items.map(i => i.dataset.turn)")
        assert turns == ["you", "invite"]  # your turn first
        assert page.locator("#mine-on li").first.get_attribute("data-game") == on
        assert "Waiting for your friend" in page.locator("#mine-on li").nth(1).inner_text()
        done = page.locator(f'#mine-finished li[data-game="{resigned}"]')
        assert done.get_attribute("data-result") == "lost" and "Lost" in done.inner_text()
        assert page.locator("#mine-more").is_hidden()
        shot(page, "accounts-home-games.png")
        page.locator("#lang").select_option("cs")
        until(
            page,
            "() => document.querySelector('#mine-title').textContent === 'Vaše hry'",
            why="no cs",
        )
        assert (
            "Prohra" in done.inner_text()
            and "Jste na tahu" in page.locator("#mine-on").inner_text()
        )
        page.locator("#lang").select_option("en")
        done.locator("a").click()
        page.wait_for_url(re.compile(rf"/review/{resigned}$"))
        page.set_viewport_size(DESKTOP)
        no_page_errors(page)
    finally:
        context.close()


def test_the_account_page_and_the_games_list_are_accessible(
    browser: Browser, server: Server
) -> None:
    """axe-core and the a11y module's own checks, at a laptop, a window and a phone, and dark."""
    findings = Findings()
    context = new_context(browser)
    try:
        page = open_page(context)
        page.goto(f"{server.url}/account")
        until(
            page, "() => document.querySelector('#account').dataset.state === 'guest'", why="guest"
        )
        account_form(page, "create", "ab")  # too short: the rule, at the field
        until(page, "() => !document.querySelector('#create-form .form-error').hidden", why="error")
        assert "3 to 20 letters" in page.locator("#create-form .form-error").inner_text()
        assert page.locator("#create-username").get_attribute("aria-invalid") == "true"
        findings.check(page, "account: a guest, a user name refused")
        account_form(page, "create", "Tsubaki")
        until(
            page,
            "() => document.querySelector('#account').dataset.state === 'account'",
            why="account",
        )
        # Chat, on by default, turned off here for every game, kept by the server.
        chat = page.locator("#chat-pref")
        until(page, "() => !document.querySelector('#chat-pref').disabled", why="no chat box")
        assert chat.is_checked()
        chat.click()
        until(
            page,
            "() => /Chat is off/.test(document.querySelector('#account-status').textContent)",
            why="not saved",
        )
        kept = page.evaluate("fetch('/api/me/chat').then((r) => r.json())")
        assert kept == {"chat": False}
        page.reload()
        until(page, "() => !document.querySelector('#chat-pref').disabled", why="no chat box")
        assert not page.locator("#chat-pref").is_checked()
        findings.check(page, "account: chat off")
        page.locator("#chat-pref").click()
        until(
            page,
            "() => /Chat is on/.test(document.querySelector('#account-status').textContent)",
            why="not saved",
        )
        assert page.evaluate("fetch('/api/me/chat').then((r) => r.json())") == {"chat": True}
        # A wrong current password: the form has no user name, so only the password is named;
        # the fifth locks the name out for a quarter of an hour, said in minutes.
        error = page.locator("#password-form .form-error")
        for attempt in range(5):
            page.locator("#current-password").fill(f"not the password {attempt}")
            page.locator("#new-password").fill("a new password 7")
            page.locator("#password-form button[type=submit]").click()
            until(
                page, "() => !document.querySelector('#password-form .form-error').hidden", why=""
            )
            expected = "The password is wrong." if attempt < 4 else None
            if expected is not None:
                assert error.inner_text() == expected, error.inner_text()
            page.evaluate("document.querySelector('#password-form .form-error').hidden = true")
        page.locator("#password-form button[type=submit]").click()
        until(
            page,
            "() => /min\\./.test(document.querySelector('#password-form .form-error').textContent)",
            why="",
        )
        assert re.fullmatch(r"Too many attempts: try again in 1[45] min\.", error.inner_text())
        page.locator("#delete-form button[type=submit]").click()  # not confirmed
        until(
            page, "() => !document.querySelector('#delete-form .form-error').hidden", why="confirm"
        )
        findings.check(page, "account: signed in, a deletion not confirmed")
        start_beginner_game(page, server)
        page.locator("#resign").click()
        page.locator("#resign-yes").click()
        until(page, "() => !document.querySelector('#result').hidden", why="no result")
        start_beginner_game(page, server)
        page.goto(f"{server.url}/")
        until(page, "() => document.querySelectorAll('#mine li').length === 2", why="no games")
        findings.check(page, "home: your games")
        no_page_errors(page)
    finally:
        context.close()
    findings.assert_clean()


def test_a_table_opened_by_a_session_that_ends_says_so(browser: Browser, server: Server) -> None:
    """The account's password changed on another device: a table this browser opened by the
    session (not by the seat's link) is cut off, and says why, in its own words."""
    phone, laptop = new_context(browser), new_context(browser)
    try:
        page = open_page(phone)
        signed_in(page, server, "create", "miko_s")
        game = start_beginner_game(page, server)
        phone.clear_cookies(name=f"hk_{game}")  # the seat opens by the session alone now
        page.reload()
        wait_for_game(page)
        other = open_page(laptop)
        change_password_elsewhere(other, server, "miko_s", "a brand new one 8")
        until(
            other,
            "() => /signed out/i.test(document.querySelector('#account-status').textContent)",
            why="",
        )
        until(page, "() => !document.querySelector('#error').hidden", why="the table says nothing")
        until(
            page,
            "() => /no longer signed in/.test(document.querySelector('#error').textContent)",
            why=f"said: {page.locator('#error').inner_text()}",
        )
        # the table stays to be read, but offers nothing it could no longer send, nor shows the
        # seat's own cards (this may be a shared computer its owner left signed in)
        assert page.locator("#game").get_attribute("data-legal") == ""
        assert page.locator("#hand button.card").count() == 0
        assert not page.locator("#resign").is_visible() and not page.locator("#hint").is_visible()
        assert "Nothing more can be played" in page.locator("#status").inner_text()
        assert page.locator("#choices").inner_text() == ""  # neither "Your turn" nor a prompt
        shot(page, "accounts-signed-out-table.png", full_page=False)
        no_page_errors(page)
    finally:
        phone.close()
        laptop.close()


def test_a_lobby_whose_session_ends_elsewhere_shows_the_browser_as_it_is(
    browser: Browser, server: Server
) -> None:
    """Signed out on another device (the password changed there): the lobby's top bar still
    named the account while the lobby was a guest's. The page reloads as the browser now is."""
    phone, laptop = new_context(browser), new_context(browser)
    try:
        page = open_page(phone)
        signed_in(page, server, "create", "lobby_s")
        page.goto(f"{server.url}/lobby")
        until(
            page,
            "() => /lobby_s/.test(document.querySelector('#account-link').textContent)",
            why="",
        )
        other = open_page(laptop)
        change_password_elsewhere(other, server, "lobby_s", "a brand new one 9")
        until(
            page,
            "() => document.querySelector('#account-link').textContent === 'Sign in'",
            why=f"the lobby still says {page.locator('#account-link').inner_text()!r}",
        )
        no_page_errors(page)
    finally:
        phone.close()
        laptop.close()
