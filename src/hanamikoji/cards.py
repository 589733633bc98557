"""Geisha, charm and the 21 item cards.

A card is the digit of its geisha, ``1``..``7``. A set of cards is written as its digits in
ascending order (``"447"``). Inside the engine a set of cards is also *packed* into one int,
four bits of count per geisha, so that adding and removing cards is integer arithmetic.
"""

from __future__ import annotations

from collections import Counter
from functools import cache

GEISHA: tuple[int, ...] = (1, 2, 3, 4, 5, 6, 7)
"""The geisha, numbered left to right in ascending charm."""

CHARM: tuple[int, ...] = (2, 2, 2, 3, 3, 4, 5)
"""Charm of geisha 1..7 (index 0 is geisha 1); also the number of item cards of her type."""

TOTAL_CHARM = sum(CHARM)
WIN_CHARM = 11
WIN_GEISHA = 4

ALL_CARDS = "".join(str(g) * CHARM[g - 1] for g in GEISHA)
"""The 21 item cards, ascending: ``"112233444555666677777"``."""

ACTIONS = "SDGC"
"""The four actions, in notation order: Secret, Discard, Gift, Competition."""

ACTION_NAMES = {"S": "Secret", "D": "Discard", "G": "Gift", "C": "Competition"}
ACTION_SIZES = {"S": 1, "D": 2, "G": 3, "C": 4}

# Packed card sets: geisha g's count lives in bits 4*(g-1) .. 4*(g-1)+3. Bit 3 of each field is
# never set by a real count (at most 5), so it can serve as a guard that detects borrowing when
# one set is subtracted from another.
FIELD_BITS = 4
GUARD = sum(8 << (FIELD_BITS * i) for i in range(7))
CARD_CODE: tuple[int, ...] = (0, *(1 << (FIELD_BITS * (g - 1)) for g in GEISHA))
"""``CARD_CODE[g]`` is the packed code of one card of geisha ``g``."""


class CardError(ValueError):
    """A card or set of cards that is not well formed."""


def parse_cards(text: str, *, what: str = "cards") -> str:
    """Return the canonical (ascending) form of a string of card digits.

    >>> parse_cards("741")
    '147'
    """
    if not isinstance(text, str):
        raise CardError(f"{what} must be a string of digits 1-7, got {type(text).__name__}")
    digits = text.strip()
    bad = [c for c in digits if c not in "1234567"]
    if bad:
        raise CardError(f"{what} {text!r}: {bad[0]!r} is not a card; cards are the digits 1-7")
    return "".join(sorted(digits))


@cache
def pack(cards: str) -> int:
    """Pack a string of card digits into its count code."""
    code = 0
    for c in cards:
        code += CARD_CODE[ord(c) - 48]
    return code


@cache
def unpack(code: int) -> str:
    """The canonical string of a packed card set."""
    return "".join(str(g) * ((code >> (FIELD_BITS * (g - 1))) & 15) for g in GEISHA)


def count(code: int, geisha: int) -> int:
    """How many cards of ``geisha`` a packed set holds."""
    return (code >> (FIELD_BITS * (geisha - 1))) & 15


def counts(code: int) -> tuple[int, ...]:
    """The seven per-geisha counts of a packed set."""
    return tuple((code >> (FIELD_BITS * i)) & 15 for i in range(7))


def contains(whole: int, part: int) -> bool:
    """Whether packed set ``whole`` holds every card of ``part`` (with multiplicity)."""
    return ((whole | GUARD) - part) & GUARD == GUARD


def is_full_set(cards: str) -> bool:
    """Whether ``cards`` are exactly the 21 item cards."""
    return Counter(cards) == Counter(ALL_CARDS)


def missing_and_extra(cards: str) -> tuple[str, str]:
    """Cards missing from, and cards beyond, the 21 item cards (each canonical)."""
    have, want = Counter(cards), Counter(ALL_CARDS)
    missing = "".join(sorted((want - have).elements()))
    extra = "".join(sorted((have - want).elements()))
    return missing, extra
