"""French shortens "de" and "que" before a player's name that starts with a vowel, as it does
before the AI's ("de l'IA"): "une erreur d'alice_p", "Connecté en tant qu'Émile"; "de bob_p" and
"de Hélène" stay (an h is not counted). The other languages are untouched."""

from __future__ import annotations

from playwright.sync_api import Browser

from browser_support import LANG, new_context, no_page_errors, open_page, until
from test_web_review_fix_phone_browser import open_review, server  # noqa: F401 (a fixture)
from web_support import Server

CASES = [
    ("review.key_mistake", {"name": "alice_p"}, "une erreur d'alice_p", "a mistake by alice_p"),
    ("review.key_mistake", {"name": "bob_p"}, "une erreur de bob_p", "a mistake by bob_p"),
    ("review.key_mistake", {"name": "Émile"}, "une erreur d'Émile", "a mistake by Émile"),
    ("review.key_mistake", {"name": "Yves"}, "une erreur d'Yves", "a mistake by Yves"),
    ("review.key_mistake", {"name": "Hélène"}, "une erreur de Hélène", "a mistake by Hélène"),
    ("review.key_mistake", {"name": "8ball"}, "une erreur de 8ball", "a mistake by 8ball"),
    ("review.key_line", {"name": "Oscar"}, "chances de gagner d'Oscar", "Oscar's chance to win"),
    (
        "account.signed_in_title",
        {"username": "alice_p"},
        "Connecté en tant qu'alice_p",
        "Signed in as alice_p",
    ),
    ("review.winner", {"name": "Anna", "reason": "x"}, "Anna gagne : x", "Anna won: x"),
]


AI = "une erreur de l'IA (Facile)"


def words(browser: Browser, base: str, language: str) -> list[str]:
    """Each case's sentence as the page's own t() writes it in ``language``, then the AI's."""
    context = new_context(browser)
    context.add_init_script(f"localStorage.setItem('hanamikoji.lang', '{language}')")
    try:
        page = open_page(context)
        page.goto(f"{base}/")
        until(page, LANG, language, why=f"the page never switched to {language}")
        found: list[str] = page.evaluate(
            """async (cases) => {
              const { t } = await import("/static/js/i18n.js");
              const ai = t("game.ai_name", { level: t("levels.easy") });
              return [...cases.map(([key, params]) => t(key, params)),
                      t("review.key_mistake", { name: ai })];
            }""",
            [[key, params] for key, params, _, _ in CASES],
        )
        no_page_errors(page)
        return found
    finally:
        context.close()


def test_french_elides_de_and_que_before_a_name_starting_with_a_vowel(
    server: Server,  # noqa: F811
    browser: Browser,
) -> None:
    assert words(browser, server.url, "fr") == [fr for _, _, fr, _ in CASES] + [AI]
    assert words(browser, server.url, "en") == [en for _, _, _, en in CASES] + [
        "a mistake by AI (Easy)"
    ]


def test_the_french_review_legend_says_d_alice(
    server: Server,  # noqa: F811
    browser: Browser,
) -> None:
    page = open_review(browser, server, "alice_p", "fr")
    try:
        legend = page.locator("#legend").inner_text()
        assert "chances de gagner d'alice_p" in legend, legend
        assert "une erreur d'alice_p" in legend, legend
        assert "une erreur de l'IA (Facile)" in legend, legend
        no_page_errors(page)
    finally:
        page.context.close()
