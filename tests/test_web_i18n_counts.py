"""Counted words in Russian and Czech agree with their number, whatever the number.

A noun after a number changes with it there ("1 очко", "2 очка", "5 очков"; "1 bod", "2 body",
"5 bodů"), so a text that puts a fixed form after a {placeholder} is wrong for some counts. Such
texts either name the count without agreement ("обаяние: {charm}", "Po {rounds}. kole") or are
plural entries ({one, few, many, other}, picked by ``params.n`` in js/i18n.js): each of those has
the form that the language's plural rule picks for every whole number.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator

import pytest

from hanamikoji.web.server import STATIC

PLURALS = {"zero", "one", "two", "few", "many", "other"}

NUMBER = {"ru": r"\{\w+\} (?:\w+[ыи]х )?", "cs": r"\{\w+\} (?:\w+[ýí]ch )?"}
"""A placeholder, maybe then an adjective ("{n} рейтинговых партий"): a noun after it agrees."""
FIXED_FORMS = {
    "ru": [
        *(NUMBER["ru"] + noun for noun in ("очк", "раунд", "карт", "парти", "итерац")),
        # "the favour OF n geisha" is a genitive, right from 2 up (a geisha win has 4 or more)
        r"(?<!благосклонность )" + NUMBER["ru"] + "гейш",
    ],
    "cs": [
        *(NUMBER["cs"] + noun for noun in ("bod", "kol", "kar[te]", "parti", "iterac")),
        r"(?<!přízeň )(?<!přízní )" + NUMBER["cs"] + "gejš",  # a genitive, as above
    ],
}
"""A {placeholder} then a counted noun in one fixed form: wrong for some counts."""


def ru_form(n: int) -> str:
    """CLDR's Russian plural category of a whole number (what Intl.PluralRules("ru") picks)."""
    if n % 10 == 1 and n % 100 != 11:
        return "one"
    if 2 <= n % 10 <= 4 and not 12 <= n % 100 <= 14:
        return "few"
    return "many"


def cs_form(n: int) -> str:
    """CLDR's Czech plural category of a whole number."""
    return "one" if n == 1 else "few" if 2 <= n <= 4 else "other"


FORM = {"ru": ru_form, "cs": cs_form}


def messages(node: object, key: str = "") -> Iterator[tuple[str, object]]:
    """Every message of a translation by key: a string, or a plural entry (a dict of forms)."""
    if isinstance(node, dict) and node and set(node) <= PLURALS:
        yield key, node
    elif isinstance(node, dict):
        for name, value in node.items():
            yield from messages(value, f"{key}.{name}" if key else name)
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from messages(value, f"{key}[{i}]")
    else:
        yield key, node


def translation(language: str) -> dict[str, object]:
    path = STATIC / "i18n" / f"{language}.json"
    return dict(messages(json.loads(path.read_text("utf-8"))))


@pytest.mark.parametrize("language", sorted(FIXED_FORMS))
def test_no_fixed_form_follows_a_number(language: str) -> None:
    wrong = [
        f"{key}: {text}"
        for key, text in translation(language).items()
        if isinstance(text, str) and any(re.search(p, text) for p in FIXED_FORMS[language])
    ]
    assert not wrong, "a counted word that cannot agree with every count:\n" + "\n".join(wrong)


@pytest.mark.parametrize("language", sorted(FORM))
def test_plural_entries_have_every_whole_numbers_form(language: str) -> None:
    entries = {k: v for k, v in translation(language).items() if isinstance(v, dict)}
    assert entries  # the plural entries are found (card counts, rounds, spectators…)
    missing = [
        f"{key} (n = {n}: {FORM[language](n)})"
        for key, forms in entries.items()
        for n in range(22)
        if FORM[language](n) not in forms
    ]
    assert not missing, missing


@pytest.mark.parametrize("language", sorted(FIXED_FORMS))
def test_the_check_catches_a_fixed_form(language: str) -> None:
    """The patterns find what they are for (the texts this test was written against)."""
    bad = {
        "ru": ["{charm} очков обаяния", "после {rounds} раундов", "из {n} рейтинговых партий"],
        "cs": ["Máte {n} bodů šarmu", "Po {rounds} kolech", "{geisha} gejš ze {max}"],
    }[language]
    good = {
        "ru": ["обаяние: {charm}", "После {rounds}-го раунда", "благосклонность {geisha} гейш"],
        "cs": ["šarm: {charm}", "Po {rounds}. kole", "Získali jste přízeň {geisha} gejš."],
    }[language]
    patterns = FIXED_FORMS[language]
    assert all(any(re.search(p, text) for p in patterns) for text in bad)
    assert not any(re.search(p, text) for p in patterns for text in good)
