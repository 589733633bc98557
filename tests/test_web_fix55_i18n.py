"""French's apostrophe is one character throughout: the texts mixed the straight one ("l'IA",
"l'adversaire") with the typographic one ("n’est", "quelqu’un"), sometimes on one screen."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from hanamikoji.web.server import STATIC


def texts(node: Any, where: str = "") -> Iterator[tuple[str, str]]:
    """Every text of a translation, with its key's path."""
    if isinstance(node, dict):
        for key, value in node.items():
            yield from texts(value, f"{where}.{key}" if where else key)
    elif isinstance(node, str):
        yield where, node


def test_french_writes_one_apostrophe() -> None:
    french = json.loads((STATIC / "i18n" / "fr.json").read_text(encoding="utf-8"))
    found = list(texts(french))
    assert sum("'" in text for _, text in found) > 100  # the straight one, as almost all had it
    curly = [key for key, text in found if "\u2019" in text]
    assert curly == [], f"the typographic apostrophe in {curly}"


NOTES = ("note_best", "note_loss", "note_close", "note_mistake")
AI_WORD = {"en": "AI", "fr": "IA", "ru": "ИИ", "cs": "počítač"}
WIN = {
    "en": "{played} to win",
    "fr": "{played} de chances de gagner",
    "ru": "на победу {played}",
    "cs": "na výhru {played}",
}


def test_the_reviews_notes_name_the_analysis_not_the_ai_and_whose_chance() -> None:
    """On an AI opponent's move the note read "AI (Easy) played ...; the AI preferred ...": two
    AIs, the second the analysis; and the mover's chance stood beside the viewer's on the graph
    with nothing to say whose it was."""
    for lang, word in AI_WORD.items():
        review = json.loads((STATIC / "i18n" / f"{lang}.json").read_text(encoding="utf-8"))[
            "review"
        ]
        for key in NOTES:
            assert word not in review[key], (lang, key, review[key])
            # the mover's chance is said to be a chance to win, the mover's (named before it)
            said = review[key]
            if "{played}" in said:
                assert WIN[lang] in said, (lang, key, said)
            else:
                assert said.count("{name}") == 2, (lang, key, said)
