"""Foreign text made safe to print: names and messages from records and engines.

A record or an engine may carry any string, including terminal escape sequences (``"\\x1b[2J"``
clears the screen), carriage returns that overwrite a line, bidi overrides that reverse it, and
lone surrogates that cannot even be encoded. :func:`printable` shows every such character as a
visible escape and leaves all printable text, in any script, as it was.

>>> printable("\\x1b]0;pwned\\x07 Алиса")
'\\\\x1b]0;pwned\\\\x07 Алиса'
>>> printable("\\u202eevil \\ud800")
'\\\\u202eevil \\\\ud800'
"""

from __future__ import annotations

import contextlib
import sys

__all__ = ["NAME_SHOWN", "printable", "printable_lines", "shown_name", "tolerate_unencodable"]


def _escape(char: str) -> str:
    code = ord(char)
    if code < 0x100:
        return f"\\x{code:02x}"
    if code < 0x10000:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def printable(text: str) -> str:
    """``text`` with each character that is not printable (``str.isprintable``) as an escape.

    Controls (C0, C1, ESC, DEL), line and paragraph separators, format characters (bidi
    overrides, zero-width joiners), surrogates and unassigned code points become ``\\xHH``,
    ``\\uHHHH`` or ``\\UHHHHHHHH``, as Python writes them; the result is one printable line.
    Backslashes are kept as they are, so printable text (and text already escaped) is unchanged:
    ``printable(printable(s)) == printable(s)``.
    """
    if text.isprintable():  # the common case, in one C call
        return text
    return "".join(c if c.isprintable() else _escape(c) for c in text)


NAME_SHOWN = 60
"""The most of a player's name the text reports print (a name is printed on many lines)."""


def shown_name(name: str) -> str:
    """A player's name as text reports print it: :func:`printable`, and a name longer than
    ``NAME_SHOWN`` characters cut short, saying so (a record may hold a name of megabytes, which
    every line of a replay would otherwise repeat)."""
    shown = printable(name)
    if len(shown) <= NAME_SHOWN:
        return shown
    return f"{shown[: NAME_SHOWN - 20]}... ({len(name):,} characters)"


def printable_lines(text: str) -> str:
    """Each line of ``text`` made :func:`printable`; the ``\\n`` between lines are kept."""
    return "\n".join(printable(line) for line in text.split("\n"))


def tolerate_unencodable() -> None:
    """Let stdout and stderr write what their encoding lacks as escapes instead of failing.

    On a terminal that is not UTF-8, a printable name in another script cannot be encoded;
    ``backslashreplace`` shows it as ``\\u0410``... rather than ending the command.
    """
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            with contextlib.suppress(ValueError, OSError):  # closed or not a text file
                reconfigure(errors="backslashreplace")
