"""A table open in one browser while its account is deleted from another: the table says the
account was deleted (it said "sign in again to play here", to an account that no longer exists)
and offers nothing that needs the seat: no chat, no mute, no link to open it on another device."""

from __future__ import annotations

from playwright.sync_api import Browser

from browser_support import new_context, no_page_errors, open_page, shot, until, wait_for_game
from web_support import Server

PASSWORD = "correct horse 7"


def test_a_table_whose_account_is_deleted_elsewhere_says_so(
    browser: Browser, server: Server
) -> None:
    laptop, guest, phone = new_context(browser), new_context(browser), new_context(browser)
    try:
        made = laptop.request.post(
            f"{server.url}/api/account", data={"username": "gone_soon", "password": PASSWORD}
        )
        assert made.status == 201, made.text()
        game = laptop.request.post(
            f"{server.url}/api/games", data={"mode": "friend", "seat": 0, "max_rounds": 3}
        ).json()
        code = game["invite"].split("?i=")[1]
        joined = guest.request.post(
            f"{server.url}/api/games/{game['game']}/join", data={"invite": code, "name": "Bob"}
        )
        assert joined.ok, joined.text()
        page = open_page(laptop)
        page.goto(f"{server.url}/g/{game['game']}")  # the seat opens by the session
        wait_for_game(page)
        until(page, "() => !document.querySelector('#chat').hidden", why="no chat to begin with")
        assert page.locator("#seat-link-box").is_visible()

        # the same account, signed in on a phone, is deleted there
        signin = phone.request.post(
            f"{server.url}/api/account/signin",
            data={"username": "gone_soon", "password": PASSWORD},
        )
        assert signin.ok, signin.text()
        deleted = phone.request.post(
            f"{server.url}/api/account/delete", data={"password": PASSWORD}
        )
        assert deleted.ok, deleted.text()

        until(
            page,
            "() => /was deleted/.test(document.querySelector('#error').textContent)",
            why=f"said: {page.locator('#error').inner_text()}",
        )
        said = page.locator("#error").inner_text()
        assert "sign in" not in said.lower(), said
        assert page.locator("#chat").is_hidden()  # its phrases and its mute button with it
        assert page.locator("#seat-link-box").is_hidden()
        assert page.locator("#hand button.card").count() == 0
        assert not page.locator("#resign").is_visible()
        shot(page, "people-fix-deleted-table.png", full_page=False)
        no_page_errors(page)
    finally:
        for context in (laptop, guest, phone):
            context.close()
