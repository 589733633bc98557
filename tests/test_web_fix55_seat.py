"""A seat is the number 0 or 1, or "random" (docs/web.md): the string "0", a bool or any other
look-alike of a number is refused with the usual ``bad-request``, when a game is created and when
a challenge is (numbers elsewhere, such as max_rounds, refuse strings and bools alike)."""

from __future__ import annotations

from typing import Any

import pytest
from aiohttp.test_utils import TestClient

from lobby_support import Server, challenge, make_site, site, site_db  # noqa: F401 (fixtures)
from test_web_server import client, create, service  # noqa: F401 (fixtures)

Client = TestClient[Any, Any]

NOT_SEATS: list[Any] = ["0", "1", " 1", "01", True, False, 0.0, 1.0, 2, -1, None, [0], "Random"]


@pytest.mark.parametrize("seat", NOT_SEATS)
async def test_a_game_refuses_a_seat_that_only_looks_like_one(client: Client, seat: Any) -> None:  # noqa: F811
    answer = await create(client, 400, mode="ai", level="easy", seat=seat)
    assert answer["code"] == "bad-request", answer
    assert answer["error"].startswith("seat must be 0, 1 or 'random', got "), answer


@pytest.mark.parametrize("seat", [0, 1, "random"])
async def test_a_game_takes_the_seats_the_docs_list(client: Client, seat: Any) -> None:  # noqa: F811
    answer = await create(client, mode="friend", seat=seat)
    assert answer["seat"] in ((0, 1) if seat == "random" else (seat,))


@pytest.mark.parametrize("rounds", ["3", True, 3.0])
async def test_a_game_refuses_rounds_that_only_look_like_a_number(
    client: Client,  # noqa: F811
    rounds: Any,
) -> None:
    answer = await create(client, 400, mode="ai", level="easy", seat=0, max_rounds=rounds)
    assert answer["code"] == "bad-request" and "max_rounds" in answer["error"], answer


async def test_a_challenge_refuses_a_seat_that_only_looks_like_one(site: Server) -> None:  # noqa: F811
    async with site.browser() as anna:
        for seat in NOT_SEATS:
            answer = await challenge(anna, 400, seat=seat)
            assert answer["code"] == "bad-request", (seat, answer)
            assert "seat must be 0, 1 or 'random', got " in answer["error"], (seat, answer)
        for rounds in ("3", True, 3.0):
            answer = await challenge(anna, 400, max_rounds=rounds)
            assert answer["code"] == "bad-request" and answer["field"] == "max_rounds", answer
        made = await challenge(anna, seat=1)
        assert made["challenge"]["seat"] == 1
