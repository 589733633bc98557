"""A stale or future ``version`` of thousands of digits is refused (``conflict``) in a message of
ordinary length: the number is shown shortened, not echoed in full."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from hanamikoji.web.errors import WebError
from hanamikoji.web.service import GameService
from hanamikoji.web.store import open_store


@pytest.fixture
async def service(tmp_path: Path) -> AsyncIterator[GameService]:
    store = await open_store(f"sqlite:///{tmp_path / 'games.sqlite3'}")
    yield GameService(store, ai_workers=0, hint_iterations=60, analysis_iterations=40, seed=5)


async def test_a_huge_version_is_refused_in_a_short_message(service: GameService) -> None:
    game, seat = await service.create(mode="friend", seat=0)
    move = str(game.state.legal_moves[0])
    for version in (10**4000, 5 * 10**80):
        with pytest.raises(WebError) as refused:
            await service.play(game.id, seat, move, version)
        assert refused.value.code == "conflict"
        message = refused.value.message
        assert message.startswith("the game is at version 0, you sent 5") or message.startswith(
            "the game is at version 0, you sent 1"
        )
        assert len(message) < 120, message
        assert message.endswith(": decide on the current state")
    played = await service.play(game.id, seat, move, 0)  # the game is as it was
    assert played.row.version == 1
