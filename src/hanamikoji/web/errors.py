"""Errors a request gets, and the checks of what people type (names) that raise them."""

from __future__ import annotations

import json
import re
import unicodedata
from typing import Any

from hanamikoji.web.lookalike import looks_like

__all__ = ["MAX_MARKS", "MAX_NAME", "WebError", "check_marks", "clean_name", "read_json", "show"]

MAX_NAME = 40

MAX_MARKS = 4
"""Combining marks one letter may carry in a name or a chat message: more than a language's
writing puts on one letter (Vietnamese two, Hebrew's points three), far fewer than the stacks
that smear the lines around them."""


# Characters that are letters or symbols to Unicode but draw nothing (the Hangul fillers, the
# blank Braille pattern): a name of them alone shows as no name.
_BLANK = frozenset("\u115f\u1160\u3164\uffa0\u2800")


def _visible(char: str) -> bool:
    """Whether ``char`` draws something of its own (not a space, mark, format or blank filler)."""
    return unicodedata.category(char)[0] in "LNPS" and char not in _BLANK


def check_marks(text: str, what: str) -> None:
    """Refuse ``text`` if a letter carries more than :data:`MAX_MARKS` combining marks, saying
    which (``what`` names the text: "a message", "name")."""
    longest, start, run = 0, 0, 0
    for i, c in enumerate(text):
        # every nonspacing or enclosing mark, of any combining class: an enclosing one (U+0489)
        # is drawn around the letter, and one of class 0 (U+034F) hid the marks' count
        run = run + 1 if unicodedata.category(c) in ("Mn", "Me") else 0
        if run > longest:
            longest, start = run, i - run + 1
    if longest > MAX_MARKS:  # a pile of accents on one letter is drawn over the lines above it
        raise WebError(
            "bad-request",
            f"{what}: a letter may carry at most {MAX_MARKS} marks (accents); the letter at "
            f"character {start} has {longest}",
        )


class WebError(Exception):
    """A request that cannot be done: ``code`` for programs, ``message`` for people.

    ``retry_after`` (seconds) comes with ``too-many`` and ``busy``: when to ask again.
    """

    def __init__(self, code: str, message: str, retry_after: int | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.retry_after = retry_after


def clean_name(name: Any, default: str) -> str:
    """A player's name as typed: trimmed, spaces collapsed; printable text of at most 40 characters.

    Control characters, escape sequences, invisible formatting and broken Unicode are refused:
    names end up in records that other programs print.
    """
    if name is None:
        return default
    if not isinstance(name, str):
        raise WebError("bad-request", f"name must be a string, got {show(name)}")
    text = " ".join(name.split())
    if len(text) > MAX_NAME:
        raise WebError("bad-request", f"name must be at most {MAX_NAME} characters")
    if not text.isprintable():
        raise WebError(
            "bad-request",
            "name must be printable text (letters, digits, spaces, punctuation), without control "
            "characters",
        )
    check_marks(text, "name")
    if text and not any(_visible(c) for c in text):
        raise WebError(
            "bad-request",
            "name must show something: letters, digits or signs, not blank fillers alone",
        )
    if _LOOKS_LIKE_A_MARK.search(text):
        raise WebError(
            "bad-request",
            "name must not contain an @ before a name: @name marks an account's user name, "
            "which only the account shows",
        )
    if _PASSES_FOR.fullmatch(" ".join(looks_like(text).split())):
        raise WebError(
            "bad-request",
            f"name must not be {text!r}: the pages give that name to a deleted account or the AI",
        )
    return text or default


# "@" (or a look-alike) before a name: what the pages show beside a name for an account's user
# name, linked to its profile. A display name with it could pass for that account.
_LOOKS_LIKE_A_MARK = re.compile(r"[@\uff20\ufe6b]\s*\w")
# What the pages call a deleted account's seat and the AI ("AI (Master)"), in each of their
# languages (static/i18n: game.deleted_player, game.ai_name): a name of a living player's that
# reads as one of them would pass for it, in whatever letters it looks so (ＡＩ, Al, Аі).
_DELETED_NAMES = ("deleted player", "удалённый игрок", "smazaný hráč", "joueur supprimé")
_AI_NAMES = ("ai", "ии", "ia", "počítač")
_PASSES_FOR = re.compile(
    "|".join(re.escape(looks_like(n)) for n in _DELETED_NAMES)
    + "|(?:"
    + "|".join(re.escape(looks_like(n)) for n in _AI_NAMES)
    + r") ?\(.*\)"
)


def show(value: Any, limit: int = 40) -> str:
    """``value`` as it appears in an error message, shortened and always printable: a string
    quoted, anything else spelled as JSON (``null``, ``true``, ``[1, 2]``), since it came from
    a JSON request and its sender reads JSON."""
    try:
        if isinstance(value, str):
            text = repr(value)
        else:
            try:
                text = json.dumps(value, ensure_ascii=True)
            except TypeError:  # not JSON (a caller's own value): as Python writes it
                text = repr(value)
    except ValueError:  # an integer too long to print in decimal
        return "a number too large"
    text = text.encode("ascii", "backslashreplace").decode()
    return text if len(text) <= limit else text[: limit - 3] + "..."


def read_json(text: str | bytes) -> Any:
    """Parse a client's JSON; any way it can fail is :class:`WebError` ``bad-request``.

    Beyond malformed text: numbers of thousands of digits, nesting deep enough to exhaust the
    parser, ``NaN`` and ``Infinity`` (not JSON), bytes that are not UTF-8, and a key given twice
    in one object (which of the two was meant is anyone's guess).
    """

    def constant(name: str) -> Any:
        raise ValueError(f"{name} is not a JSON number")

    def unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        found: dict[str, Any] = {}
        for key, value in pairs:
            if key in found:
                raise WebError("bad-request", f"the key {show(key)} is given twice in one object")
            found[key] = value
        return found

    try:
        return json.loads(text, parse_constant=constant, object_pairs_hook=unique)
    except RecursionError:
        raise WebError("bad-request", "the JSON is nested too deeply") from None
    except ValueError as e:  # malformed, a too-long integer, a bad constant, not UTF-8
        raise WebError("bad-request", f"not valid JSON ({_reason(e)})") from None


def _reason(error: ValueError) -> str:
    text = str(error).split(":")[0] if "digits" in str(error) else str(error)
    return text.encode("ascii", "backslashreplace").decode()[:120]
