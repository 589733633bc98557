"""The provisional rating's explanation on the profile and the leaderboard says what the rule is:
the deviation under 110, reached after some ten games against opponents near one's rating. It
promised "about ten rated games" (against established players), which eleven one-sided losses to
an AI level's fixed rating did not keep: lopsided results tell little."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

I18N = Path(__file__).resolve().parents[1] / "src" / "hanamikoji" / "web" / "static" / "i18n"
NEAR = {"en": "near", "fr": "de votre niveau", "ru": "близкого рейтинга", "cs": "blízkým"}
NEAR_BOARD = {"en": "near it", "fr": "de son niveau", "ru": "близкого рейтинга", "cs": "blízkým"}


@pytest.mark.parametrize("language", sorted(NEAR))
def test_the_provisional_explanation_names_the_deviation_and_the_opponents(language: str) -> None:
    words = json.loads((I18N / f"{language}.json").read_text(encoding="utf-8"))
    help_text = words["profile"]["provisional_help"]
    empty = words["leaders"]["empty"]
    assert "110" in help_text and "110" in empty, language
    assert NEAR[language] in help_text, help_text
    assert NEAR_BOARD[language] in empty, empty
