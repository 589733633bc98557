"""Public ids never begin with a dash, so ``hanamikoji admin remove ID`` always reads one."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest

from hanamikoji.web import ids


def test_an_id_that_would_begin_with_a_dash_is_drawn_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    draws: Iterator[str] = iter(["-AbCdEfGhIjKl", "-_x", "AbCdEfGhIjKl"])
    monkeypatch.setattr("secrets.token_urlsafe", lambda nbytes: next(draws))
    assert ids.new_id(9) == "AbCdEfGhIjKl"


def test_ids_are_url_safe_of_the_length_asked_and_never_begin_with_a_dash() -> None:
    drawn = [ids.new_id(9) for _ in range(4000)]  # some 60 would begin with "-" unchecked
    assert all(re.fullmatch(r"[A-Za-z0-9_][A-Za-z0-9_-]{11}", d) for d in drawn)
    assert len(set(drawn)) == len(drawn)
