"""Every text names the four actions as the action buttons do (``actions.X.name``), and charm by
the one word of its language.

A player learns "Обмен" from the button and then reads it in the offer's title, the move list and
the rules: a second word for the same action ("Соперничество") reads as another thing. The texts
that describe an action are those whose English names it ("Your Gift", "No Discard yet"); in each
language the same text carries that language's name, in any case form where nouns decline
(Russian "Подарка", Czech "Soutěže"). Words that once stood for an action stay out of every text.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import pytest

from hanamikoji.web.server import STATIC

LANGS = ("en", "fr", "cs", "ru")
ACTIONS = "SDGC"
DECLINING = {"ru", "cs"}
"""Languages whose nouns change their ending with the case: a name is found by its stem."""

FORMER = {
    "ru": ("Соперничеств", "Соревновани", "Сброса пока"),
    "fr": ("Compétition", "Défausse"),
    "cs": ("Odhození", "Odhodit"),
}
"""Other words that stood for an action in these texts once (Competition, Discard): never again."""


def flat(node: Any, path: str = "") -> Iterator[tuple[str, str]]:
    """Every text of an i18n tree, with its dotted key ("rules.sections[5].title")."""
    if isinstance(node, dict):
        for key, value in node.items():
            yield from flat(value, f"{path}.{key}" if path else key)
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from flat(value, f"{path}[{i}]")
    elif isinstance(node, str):
        yield path, node


def texts(lang: str) -> dict[str, str]:
    tree = json.loads((STATIC / "i18n" / f"{lang}.json").read_text(encoding="utf-8"))
    return dict(flat(tree))


def names(lang: str) -> dict[str, str]:
    """The actions' names, as on the buttons."""
    found = texts(lang)
    return {a: found[f"actions.{a}.name"] for a in ACTIONS}


def named(lang: str, name: str) -> re.Pattern[str]:
    """A word that is the action's name, in any case form where the language declines it."""
    stem = name[:-2] if lang in DECLINING and len(name) >= 6 else name
    return re.compile(rf"(?<!\w){re.escape(stem)}")


def describing(action: str) -> list[str]:
    """The keys whose English text names the action (capitalised, as on its button)."""
    word = re.compile(rf"\b{names('en')[action]}s?\b")
    return [key for key, text in texts("en").items() if word.search(text)]


def test_the_texts_describing_an_action_are_found() -> None:
    assert "offer.theirs_C_of" in describing("C")
    assert {"game.no_discard", "confirm.D"} <= set(describing("D"))
    for action in ACTIONS:  # its button, its tip, the log, the review, the rules...
        assert len(describing(action)) >= 8, action


@pytest.mark.parametrize("lang", LANGS)
def test_texts_describing_an_action_use_its_name(lang: str) -> None:
    found, name = texts(lang), names(lang)
    wrong = []
    for action in ACTIONS:
        pattern = named(lang, name[action])
        for key in describing(action):
            text = found.get(key)
            if text is None or not pattern.search(text):
                wrong.append(f"{key} should name {name[action]!r}: {text!r}")
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize("lang", sorted(FORMER))
def test_no_other_word_stands_for_an_action(lang: str) -> None:
    wrong = [
        f"{key}: {text!r} has {word!r}"
        for key, text in texts(lang).items()
        for word in FORMER[lang]
        if word in text
    ]
    assert not wrong, "\n".join(wrong)


CHARM = {"fr": r"\bArt\b", "ru": r"обаяни", "cs": r"šarm"}
"""Each language's one word for charm (French "points Art", as its rules say)."""


@pytest.mark.parametrize("lang", sorted(CHARM))
def test_every_text_about_charm_uses_the_languages_one_word(lang: str) -> None:
    """A French result read "… 14 points Art" and right under it "Charme : vous 5": two words
    for one thing, in one box."""
    bare = re.compile(r"\{\w+\}")  # the parameters ({charm}) are no words
    about = [k for k, v in texts("en").items() if re.search(r"\bcharm\b", bare.sub("", v), re.I)]
    assert len(about) >= 20
    word = re.compile(CHARM[lang], re.I)
    found = texts(lang)
    wrong = [
        f"{k}: {found.get(k)!r}" for k in about if not word.search(bare.sub("", found.get(k, "")))
    ]
    assert not wrong, "\n".join(wrong)
