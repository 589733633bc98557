"""A refusal in the page's language: the server speaks English, so a page in another language
says its own words for the refusal's code where it has them (English in the middle of a Russian
page read as a fault), and a page in English the server's reason, which says more."""

from __future__ import annotations

import json

import pytest
from playwright.sync_api import Browser, Page

from browser_support import new_context, no_page_errors, open_page, until
from hanamikoji.web.server import STATIC
from web_support import Server

REFUSED = {
    "status": 429,
    "code": "too-many",
    "error": "too many games against the AI: resign one of your unfinished games first",
}


def refused_challenge(page: Page, server: Server, status: int, body: dict[str, str]) -> str:
    """Open the lobby with its challenge request answered by `status` and `body`, create a
    challenge and return what the lobby then says."""
    text = json.dumps(body)
    page.route(
        "**/api/lobby/challenges",
        lambda route: route.fulfill(status=status, body=text, content_type="application/json"),
    )
    page.goto(f"{server.url}/lobby")
    until(page, "() => document.querySelector('#lobby').dataset.conn === 'open'", why="")
    page.locator("#lobby-more > summary").click()
    page.locator("#create").click()
    until(page, "() => !document.querySelector('#lobby-error').hidden", why="no error")
    return page.locator("#lobby-error").inner_text()


@pytest.mark.parametrize("lang", ["en", "ru", "cs", "fr"])
def test_a_refusal_is_said_in_the_pages_language(
    browser: Browser, server: Server, lang: str
) -> None:
    context = new_context(browser)
    try:
        context.add_init_script(f"localStorage.setItem('hanamikoji.lang', '{lang}')")
        page = open_page(context)
        page.goto(f"{server.url}/")
        until(page, "l => document.documentElement.lang === l", lang, why="not translated")
        said = page.evaluate(
            "async (e) => (await import('/static/js/errors.js')).reasonOf(e)", REFUSED
        )
        words = json.loads((STATIC / "i18n" / f"{lang}.json").read_text("utf-8"))["errors"]
        if lang == "en":
            assert (
                said == "Too many games against the AI: resign one of your unfinished games first."
            )
        else:
            assert said == words["too-many"], said
        taken = {"status": 409, "code": "taken", "error": "the user name admin is kept"}
        said = page.evaluate(
            "async (e) => (await import('/static/js/errors.js')).reasonOf(e)", taken
        )
        assert said == ("The user name admin is kept." if lang == "en" else words["taken"]), said
        # a code the pages have no words for: the server's reason, whatever the language
        other = {"status": 400, "code": "odd-one", "error": "something odd"}
        said = page.evaluate(
            "async (e) => (await import('/static/js/errors.js')).reasonOf(e)", other
        )
        assert said == "Something odd."
        no_page_errors(page)
    finally:
        context.close()


@pytest.mark.parametrize(
    ("said", "shown"),
    [
        (
            "you have 3 open challenges: cancel one, or wait for a player",
            "You have too many open challenges: cancel one first.",
        ),
        (
            "too many new games from your address: try again in 30 s",
            "That did not work. Too many new games from your address: try again in 30 s.",
        ),
    ],
    ids=["open-challenges", "new-games"],
)
def test_the_lobby_names_the_limit_a_refusal_is_about(
    browser: Browser, server: Server, said: str, shown: str
) -> None:
    """Every 429 in the lobby said "too many open challenges", even to a new visitor with none:
    that sentence is for that limit alone."""
    context = new_context(browser)
    try:
        page = open_page(context)
        body = {"error": said, "code": "too-many"}
        assert refused_challenge(page, server, 429, body) == shown
        no_page_errors(page)
    finally:
        context.close()


@pytest.mark.parametrize("lang", ["en", "ru"])
def test_a_bots_refusal_is_said_in_the_pages_language(
    browser: Browser, server: Server, lang: str
) -> None:
    """ "Бот не может принять этот вызов: pybot does not play 5+3 games": the server's reason is
    English, so a page in another language says its own words."""
    context = new_context(browser)
    try:
        context.add_init_script(f"localStorage.setItem('hanamikoji.lang', '{lang}')")
        page = open_page(context)
        said = "picky_bot does not play 5+3 games: it accepts 3+2"
        body = {"error": said, "code": "declined", "field": "to"}
        shown = refused_challenge(page, server, 403, body)
        words = json.loads((STATIC / "i18n" / f"{lang}.json").read_text("utf-8"))["bots"]
        if lang == "en":
            assert shown == words["declined"].replace("{reason}", said), shown
        else:
            assert shown == words["declined_here"] and "does not play" not in shown, shown
        no_page_errors(page)
    finally:
        context.close()
