"""Random public ids (games, chat lines, players): URL-safe, and never beginning with ``-``, so
that an operator can pass one to ``hanamikoji admin`` without the command line reading it as an
option, and so that a chat line's id is never read as the ``-ID`` of a removal in the notices
that carry chat between server processes (``ChatRooms._heard``; a new line whose id began with
``-`` was taken for one and never delivered)."""

from __future__ import annotations

import secrets

__all__ = ["new_id"]


def new_id(nbytes: int) -> str:
    """``secrets.token_urlsafe(nbytes)`` drawn again while it begins with ``-`` (1 in 64)."""
    while True:
        text = secrets.token_urlsafe(nbytes)
        if not text.startswith("-"):
            return text
