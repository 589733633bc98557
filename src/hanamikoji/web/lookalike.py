"""What a text looks like: the form in which names that read alike are one, so that nobody
takes a name that passes for another's (``Аnna`` with a Cyrillic А for ``Anna``, ``B1ll`` for
``Bill``, ``ＡＩ (Master)`` for the AI)."""

from __future__ import annotations

import unicodedata

__all__ = ["looks_like", "separators_folded"]

# Characters that look like others, after case folding and without accents: Cyrillic letters
# that look Latin, Latin letters that look like others, and the digits that read as letters.
# i, l and 1 (and I, which folds to i) are one letter, as are o and 0.
_LOOKALIKE = str.maketrans(
    {
        "а": "a",
        "б": "6",
        "в": "b",
        "г": "r",
        "е": "e",
        "з": "3",
        "и": "u",
        "к": "k",
        "м": "m",
        "н": "h",
        "о": "o",
        "п": "n",
        "р": "p",
        "с": "c",
        "т": "t",
        "у": "y",
        "х": "x",
        "ч": "4",
        "ъ": "b",
        "ь": "b",
        "ы": "bl",
        "ђ": "h",
        "є": "e",
        "ѕ": "s",
        "і": "l",
        "ј": "j",
        "ћ": "h",
        "џ": "u",
        "i": "l",
        "ı": "l",
        "ł": "l",
        "1": "l",
        "0": "o",
        "ø": "o",
        "đ": "d",
        "ð": "d",
        "ħ": "h",
        "ŧ": "t",
        "þ": "p",
        "ĸ": "k",
        "ŋ": "n",
        # Greek (capitals fold to these), Latin small capitals, Cherokee capitals, and Cyrillic
        # letters beyond Russian's: never in a user name, but in names that pass for others'
        "α": "a",
        "β": "b",
        "ε": "e",
        "ζ": "z",
        "η": "n",
        "ι": "l",
        "κ": "k",
        "μ": "u",
        "ν": "v",
        "ο": "o",
        "ρ": "p",
        "τ": "t",
        "υ": "u",
        "χ": "x",
        "ϲ": "c",
        "ᴀ": "a",
        "ʙ": "b",
        "ᴄ": "c",
        "ᴅ": "d",
        "ᴇ": "e",
        "ɢ": "g",
        "ʜ": "h",
        "ɪ": "l",
        "ᴊ": "j",
        "ᴋ": "k",
        "ʟ": "l",
        "ᴍ": "m",
        "ɴ": "n",
        "ᴏ": "o",
        "ᴘ": "p",
        "ʀ": "r",
        "ꜱ": "s",
        "ᴛ": "t",
        "ᴜ": "u",
        "ᴠ": "v",
        "ᴡ": "w",
        "ʏ": "y",
        "ᴢ": "z",
        "ɑ": "a",
        "ɡ": "g",
        "Ꭺ": "a",
        "Ᏼ": "b",
        "Ꮯ": "c",
        "Ꭰ": "d",
        "Ꭼ": "e",
        "Ꮐ": "g",
        "Ꮋ": "h",
        "Ꮖ": "l",
        "Ꭻ": "j",
        "Ꮶ": "k",
        "Ꮮ": "l",
        "Ꮇ": "m",
        "Ꮎ": "o",
        "Ꮲ": "p",
        "Ꭱ": "r",
        "Ꮪ": "s",
        "Ꭲ": "t",
        "Ꮩ": "v",
        "Ꮃ": "w",
        "Ꮓ": "z",
        "ԁ": "d",
        "ԛ": "q",
        "ԝ": "w",
        "ӏ": "l",
        "æ": "ae",
        "œ": "oe",
    }
)


def looks_like(text: str) -> str:
    """``text`` folded to what it looks like: case, width and compatibility forms (NFKC),
    accents and look-alike characters folded away.

    >>> looks_like("Аnna") == looks_like("anna")  # Cyrillic А
    True
    >>> looks_like("ＡＩ (Ｍaster)") == looks_like("Al (master)") == "al (master)"
    True
    """
    folded = unicodedata.normalize("NFKD", unicodedata.normalize("NFKC", text).casefold())
    bare = "".join(c for c in folded if not unicodedata.combining(c))
    return bare.translate(_LOOKALIKE)


def separators_folded(key: str) -> str:
    """A folded name (:func:`looks_like`'s) with ``-`` read as ``_``: ``gaston-fr`` passes for
    ``gaston_fr``. Kept out of :func:`looks_like`, whose form is stored as the user names' keys;
    a new user name is checked against this form too.

    >>> separators_folded(looks_like("Gaston_FR")) == separators_folded(looks_like("gaston-fr"))
    True
    """
    return key.replace("-", "_")
