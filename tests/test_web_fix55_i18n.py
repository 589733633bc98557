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
