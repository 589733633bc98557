"""The web server over real HTTP and WebSockets (in-process): games, errors, undo, hints, review."""

from __future__ import annotations

import json
import random
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from aiohttp.test_utils import TestClient

from hanamikoji.record import Record
from hanamikoji.web.server import HUB, create_app
from hanamikoji.web.service import GameService
from hanamikoji.web.store import open_store
from web_support import Seat, claim_invite, my_turn, over, play_out

Client = TestClient[Any, Any]
MakeClient = Callable[..., Awaitable[Client]]


@pytest.fixture
async def service(tmp_path: Path) -> AsyncIterator[GameService]:
    store = await open_store(f"sqlite:///{tmp_path / 'games.sqlite3'}")
    svc = GameService(store, ai_workers=0, hint_iterations=60, analysis_iterations=40, seed=7)
    yield svc


@pytest.fixture
async def client(aiohttp_client: MakeClient, service: GameService) -> Client:
    return await aiohttp_client(create_app(service))


async def create(client: Client, expect: int = 201, **body: Any) -> dict[str, Any]:
    response = await client.post("/api/games", json=body)
    data: dict[str, Any] = await response.json()
    assert response.status == expect, data
    return data


def base(client: Client) -> str:
    """The test server's address."""
    return str(client.make_url("/")).rstrip("/")


async def connect(client: Client, game: str, token: str | None) -> Seat:
    url = f"/ws/{game}" + (f"?t={token}" if token else "")
    seat = Seat(await client.ws_connect(url))
    return seat


async def joined(client: Client, game: str, token: str | None) -> Seat:
    seat = await connect(client, game, token)
    await seat.until(lambda s: True)
    return seat


# -- creating games --------------------------------------------------------------------------------


async def test_create_an_ai_game(client: Client) -> None:
    data = await create(client, mode="ai", level="easy", seat=1, max_rounds=None, name="  Anna  ")
    assert data["seat"] == 1 and data["invite"] is None
    assert data["url"] == f"/g/{data['game']}?t={data['token']}"
    seat = await joined(client, data["game"], data["token"])
    state = seat.state
    assert state is not None
    assert state["game"]["names"] == ["easy", "Anna"]
    assert state["game"]["rules"] == {"max_rounds": None}
    assert state["game"]["mode"] == "ai" and state["game"]["level"] == "easy"
    assert state["view"]["seat"] == 1
    await seat.ws.close()


async def test_create_sets_the_seat_cookie_that_opens_the_socket(client: Client) -> None:
    data = await create(client, mode="ai", level="easy", seat=0)
    assert client.session.cookie_jar.filter_cookies(client.make_url("/"))[f"hk_{data['game']}"]
    seat = await joined(client, data["game"], None)  # no ?t=: the cookie identifies the seat
    assert seat.state is not None and seat.state["view"]["seat"] == 0
    await seat.ws.close()


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"mode": "chess"}, "mode must be 'ai' or 'friend', got 'chess'"),
        ({"level": "grandmaster"}, "level must be one of beginner, easy, medium, hard, master"),
        ({"seat": 2}, "seat must be 0, 1 or 'random', got 2"),
        ({"max_rounds": 0}, "max_rounds must be a whole number from 1 to 99, or null"),
        ({"max_rounds": "3"}, "max_rounds must be a whole number from 1 to 99, or null"),
        ({"name": "x" * 41}, "name must be at most 40 characters"),
        ({"name": 5}, "name must be a string"),
        ({"name": "Anna @anna_k"}, "name must not contain an @ before a name"),
        ({"name": "Anna \uff20anna_k"}, "@name marks an account's user name"),
        ({"mode": "friend", "level": "easy"}, "a game with a friend has no AI level"),
        ({"colour": "red"}, 'unknown keys ["colour"]'),
    ],
)
async def test_bad_requests_say_what_was_expected(
    client: Client, body: dict[str, Any], message: str
) -> None:
    data = await create(client, expect=400, **body)
    assert message in data["error"]


async def test_a_body_that_is_not_a_json_object(client: Client) -> None:
    for raw in (b"not json", b"[1, 2]", b"\xff\xfe"):
        response = await client.post("/api/games", data=raw)
        assert response.status == 400
        assert "must be a JSON object" in (await response.json())["error"]


async def test_levels(client: Client) -> None:
    response = await client.get("/api/levels")
    assert await response.json() == {
        "levels": ["beginner", "easy", "medium", "hard", "master"],
        "default": "medium",
    }


# -- playing ------------------------------------------------------------------------------------


async def test_a_whole_game_against_the_ai_then_its_record_and_review(client: Client) -> None:
    data = await create(client, mode="ai", level="easy", seat="random")
    game, token = data["game"], data["token"]
    response = await client.get(f"/api/games/{game}/record")
    assert response.status == 403
    assert "not finished" in (await response.json())["error"]
    seat = await joined(client, game, token)
    await play_out([seat], random.Random(3))
    assert seat.state is not None
    result = seat.state["result"]
    assert result["reason"] in ("charm", "geisha", "round-limit", "draw")
    assert seat.state["game"]["status"] == "over" and seat.state["legal"] == []

    response = await client.get(f"/api/games/{game}/record")
    assert response.status == 200
    assert "attachment" in response.headers["Content-Disposition"]
    record = Record.loads(await response.text())
    final = record.replay()  # the record replays and agrees with its own result
    assert final.outcome is not None and final.outcome.to_json() == result
    assert record.players == tuple(seat.state["game"]["names"])

    review = await (await client.get(f"/api/games/{game}/review")).json()
    frames = review["frames"]
    assert len(frames) == len(final.history) + 1
    assert frames[0]["move"] is None and frames[0]["round"] == 1
    assert [f["move"] for f in frames[1:]] == [str(p.move) for p in final.history]
    assert frames[-1]["markers"] == result["markers"]
    scored = [f["scoring"] for f in frames if f["scoring"]]
    assert [s["round"] for s in scored] == [s.round for s in final.scorings]
    # The first frame holds the whole deal of round 1, as the record has it.
    deal = record.rounds[0].deal
    drawn = "".join(sorted(deal.hands[0] + deal.deck[0]))  # seat 0 starts: it drew the top card
    assert frames[0]["hands"] == [drawn, deal.hands[1]] and frames[0]["removed"] == deal.removed
    assert frames[0]["deck"] == deal.deck[1:]
    assert review["game"]["result"] == result
    assert review["game"]["seat"] == data["seat"]  # the creator's cookie came with the request
    client.session.cookie_jar.clear()
    anonymous = await (await client.get(f"/api/games/{game}/review")).json()
    assert anonymous["game"]["seat"] is None


@pytest.mark.parametrize("seed", range(12))
def test_the_frame_that_ends_a_round_shows_that_round_as_scored(seed: int) -> None:
    """Not the next round's hands, pile and removed card beside the scored table: the round's
    own end (empty hands and pile, its removed card, its Secrets and Discards revealed)."""
    from hanamikoji.state import Rules, State
    from hanamikoji.web.messages import review_frames

    rng = random.Random(seed)
    state = State.new(random.Random(seed), rules=Rules(max_rounds=None))
    while not state.is_over:
        state = state.apply(rng.choice(state.legal_moves))
    frames = review_frames(state)
    ends = [i for i, f in enumerate(frames) if f["scoring"] and f["round"] != f["scoring"]["round"]]
    assert len(ends) == len(state.scorings) - 1  # every round but the last, which ends the game
    for i in ends:
        frame, before = frames[i], frames[i - 1]
        assert frame["hands"] == ["", ""] and frame["deck"] == "" and frame["offer"] is None
        assert frame["removed"] == before["removed"]
        assert frame["secrets"] == frame["scoring"]["secrets"]
        assert all(d is not None and len(d) == 2 for d in frame["discards"]), frame["discards"]
        assert frame["to_move"] == frames[i + 1]["seat"]  # who opens the next round
        assert frames[i + 1]["round"] == frame["round"]


async def test_move_errors_change_nothing(client: Client) -> None:
    data = await create(client, mode="friend", seat=0)
    host = await joined(client, data["game"], data["token"])
    guest_token = await claim_invite(base(client), data["invite"])
    guest = await joined(client, data["game"], guest_token)
    await host.until(lambda s: s["game"]["opponent_joined"])
    assert host.state is not None and guest.state is not None
    version = host.state["game"]["version"]

    await guest.send(type="move", move=host.state["legal"][0])
    error = await guest.error()
    assert error["code"] == "not-your-turn"

    await host.send(type="move", move="P1")  # well formed, not legal now
    error = await host.error()
    assert error["code"] == "illegal" and "legal:" in error["message"]

    for bad, code in [
        ({"type": "move", "move": "X12"}, "bad-request"),
        ({"type": "move", "move": 12}, "bad-request"),
        ({"type": "move"}, "bad-request"),
        ({"type": "move", "move": host.state["legal"][0], "version": "x"}, "bad-request"),
        ({"type": "dance"}, "bad-request"),
        ({"no": "type"}, "bad-request"),
        ({"type": "undo"}, "not-allowed"),
        ({"type": "hint"}, "not-allowed"),
        ({"type": "rematch"}, "not-allowed"),
    ]:
        await host.ws.send_json(bad)
        error = await host.error()
        assert error["code"] == code, (bad, error)
        assert error["message"]
    await host.ws.send_str("{not json")
    assert (await host.error())["code"] == "bad-request"
    await host.ws.send_bytes(b"\x00\x01")
    assert (await host.error())["code"] == "bad-request"

    await host.send(type="move", move=host.state["legal"][0], version=version + 5)
    error = await host.error()
    assert error["code"] == "conflict"
    # a version ahead of the game's: not "the game has moved on", which it has not
    assert error["message"].startswith(f"the game is at version {version}, you sent {version + 5}")
    assert (await host.receive())["type"] == "state"  # the current state follows a conflict
    # Nothing changed: the version is the same, and it is still the host's turn.
    await host.send(type="ping")
    assert (await host.receive())["type"] == "pong"
    service_state = host.state
    assert service_state is not None and service_state["game"]["version"] == version
    assert my_turn(service_state)
    await host.ws.close()
    await guest.ws.close()


async def test_a_message_too_long_is_answered_before_the_socket_closes(client: Client) -> None:
    """Over 16 KB a socket is closed (1009), but not in silence: an error that says the limit,
    and the same words as the close frame's reason; the game itself is untouched."""
    data = await create(client, mode="ai", seat=0)
    seat = await joined(client, data["game"], data["token"])
    assert seat.state is not None
    version = seat.state["game"]["version"]
    await seat.ws.send_str(json.dumps({"type": "chat", "text": "x" * 20_000}))
    error = await seat.error()
    assert error["code"] == "too-long" and "at most 16384 bytes" in error["message"]
    closed = await seat.ws.receive(timeout=10)
    assert closed.type == aiohttp.WSMsgType.CLOSE and closed.data == 1009
    assert "at most 16384 bytes" in str(closed.extra)
    again = await joined(client, data["game"], data["token"])
    assert again.state is not None and again.state["game"]["version"] == version
    await again.ws.close()


async def test_a_wrong_token_or_game_is_refused(client: Client) -> None:
    data = await create(client, mode="ai", level="easy")
    for game, token in [(data["game"], "forged"), (data["game"], None), ("nope", data["token"])]:
        client.session.cookie_jar.clear()
        seat = await connect(client, game, token)
        message = await seat.receive()
        assert message["type"] == "error"
        assert message["code"] in ("bad-token", "not-found")
        closing = await seat.ws.receive()
        assert closing.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED)


async def test_a_token_opens_only_its_own_game(client: Client) -> None:
    first = await create(client, mode="friend", seat=0)
    second = await create(client, mode="friend", seat=0)
    client.session.cookie_jar.clear()
    seat = await connect(client, second["game"], first["token"])
    assert (await seat.receive())["code"] == "bad-token"
    mine = await joined(client, first["game"], first["token"])
    assert mine.state is not None
    move = mine.state["legal"][0]
    await mine.send(type="move", move=move, game=second["game"])
    error = await mine.error()
    assert error["code"] == "wrong-game" and second["game"] in error["message"]
    await mine.send(type="move", move=move, game=first["game"])
    moved = await mine.until(lambda s: s["game"]["version"] == 1)
    assert moved["view"]["history"][0]["move"] == move


async def test_the_ai_seat_token_opens_nothing(client: Client, service: GameService) -> None:
    data = await create(client, mode="ai", level="easy", seat=0)
    game = await service.get(data["game"])
    assert game is not None
    client.session.cookie_jar.clear()
    seat = await connect(client, data["game"], game.row.tokens[1])
    assert (await seat.receive())["code"] == "bad-token"


async def test_a_friend_game_through_the_invite_link(client: Client) -> None:
    data = await create(client, mode="friend", seat="random", name="Host")
    assert data["invite"] and data["invite"] != data["url"]
    host = await joined(client, data["game"], data["token"])
    assert host.state is not None and not host.state["game"]["opponent_joined"]
    assert not host.state["game"]["opponent_online"]
    assert host.state["game"]["invite"] == data["invite"]  # to send again, until the friend comes
    client.session.cookie_jar.clear()  # the friend is another browser
    guest = await joined(client, data["game"], await claim_invite(base(client), data["invite"]))
    assert guest.state is not None and guest.state["game"]["invite"] is None
    await host.until(lambda s: s["game"]["opponent_joined"] and s["game"]["opponent_online"])
    assert host.state["game"]["invite"] is None
    assert guest.state is not None and guest.state["view"]["seat"] == 1 - data["seat"]
    assert guest.state["game"]["names"][data["seat"]] == "Host"
    await play_out([host, guest], random.Random(5))
    host_end, guest_end = await host.until(over), await guest.until(over)
    assert host_end["result"] == guest_end["result"]
    await guest.ws.close()
    await host.until(lambda s: not s["game"]["opponent_online"])


async def test_undo_takes_back_my_move_and_the_ai_reply(client: Client) -> None:
    data = await create(client, mode="ai", level="easy", seat=0)
    seat = await joined(client, data["game"], data["token"])
    before = await seat.until(my_turn)
    assert not before["game"]["can_undo"]
    move = before["legal"][-1]
    await seat.send(type="move", move=move)
    after = await seat.until(lambda s: my_turn(s) and s["game"]["version"] > 1)
    assert after["game"]["can_undo"]
    await seat.send(type="undo")
    undone = await seat.until(lambda s: s["game"]["version"] > after["game"]["version"])
    assert undone["view"] == before["view"]  # the deal stays as it was
    assert undone["legal"] == before["legal"]
    await seat.ws.close()


async def test_a_hint_is_a_legal_move_with_a_probability(client: Client) -> None:
    data = await create(client, mode="ai", level="easy", seat=0)
    seat = await joined(client, data["game"], data["token"])
    state = await seat.until(my_turn)
    await seat.send(type="hint")
    while True:
        hint = await seat.receive()
        if hint["type"] == "hint":
            break
    assert hint["move"] in state["legal"] and hint["version"] == state["game"]["version"]
    assert 0.0 <= hint["win_probability"] <= 1.0
    assert all(m in state["legal"] for m, _ in hint["alternatives"])
    await seat.send(type="resign")
    await seat.until(lambda s: s["game"]["status"] == "over")
    await seat.send(type="hint")  # it said "wait for your turn", a turn that never comes
    refused = await seat.error()
    assert refused["code"] == "over" and "the game is over" in refused["message"], refused
    over_at = seat.state["game"]["version"] if seat.state else 0
    await seat.send(type="move", move="S1", version=over_at + 3)  # not "decide on the state"
    assert (await seat.error())["code"] == "over"
    await seat.ws.close()


async def test_resign_and_rematch(client: Client, service: GameService) -> None:
    data = await create(client, mode="friend", seat=0, name="Ann")
    host = await joined(client, data["game"], data["token"])
    client.session.cookie_jar.clear()
    guest = await joined(client, data["game"], await claim_invite(base(client), data["invite"]))
    await guest.send(type="resign")
    end = await host.until(over)
    assert end["result"]["winner"] == 0 and end["result"]["reason"] == "resign"
    await host.send(type="move", move="S1")
    assert (await host.error())["code"] == "over"

    await guest.send(type="rematch")
    host_next = await host.until(lambda s: s["game"]["rematch"] is not None)
    guest_next = await guest.until(lambda s: s["game"]["rematch"] is not None)
    assert host_next["game"]["rematch"] != guest_next["game"]["rematch"]
    new_id = host_next["game"]["rematch"].split("/")[2].split("?")[0]
    new_host = await joined(client, new_id, host_next["game"]["rematch"].split("t=")[1])
    assert new_host.state is not None
    assert new_host.state["view"]["seat"] == 1  # seats swapped
    assert new_host.state["game"]["names"] == ["Player 2", "Ann"]
    await guest.send(type="rematch")  # asking twice gives the same rematch
    again = await guest.until(lambda s: s["game"]["version"] == guest_next["game"]["version"])
    assert again["game"]["rematch"] == guest_next["game"]["rematch"]


async def test_analysis_of_a_finished_game(client: Client, service: GameService) -> None:
    data = await create(client, mode="ai", level="easy", seat=0, max_rounds=1)
    seat = await joined(client, data["game"], data["token"])
    await play_out([seat], random.Random(9))
    url = f"/api/games/{data['game']}/analysis"
    first = await (await client.get(url)).json()
    assert first == {"status": "pending"}
    await service._analysing[data["game"]]
    ready = await (await client.get(url)).json()
    assert ready["status"] == "ready"
    game = await service.get(data["game"])
    assert game is not None
    history = game.state.history
    assert [d["played"] for d in ready["decisions"]] == [str(p.move) for p in history]
    for decision in ready["decisions"]:
        assert 0.0 <= decision["win_probability"] <= 1.0
        assert decision["loss"] >= 0.0


async def test_pages_and_headers(client: Client) -> None:
    data = await create(client, mode="ai", level="easy")
    for path in ("/", f"/g/{data['game']}", "/rules", f"/review/{data['game']}"):
        response = await client.get(path)
        assert response.status == 200, path
        assert "<html" in (await response.text()).lower()
        assert "default-src 'self'" in response.headers["Content-Security-Policy"]
    client.session.cookie_jar.clear()  # the link in another browser sets the seat's cookie
    response = await client.get(f"/g/{data['game']}?t={data['token']}", allow_redirects=False)
    assert response.status == 303 and f"hk_{data['game']}" in response.cookies
    assert "default-src 'self'" in response.headers["Content-Security-Policy"]
    response = await client.get("/api/games/nope/review")
    assert response.status == 404 and "no game 'nope'" in (await response.json())["error"]


async def test_everything_sent_is_recorded_per_connection(
    client: Client, service: GameService
) -> None:
    hub = client.app[HUB]
    recorded: list[list[str]] = []

    def keep(conn: Any) -> None:
        conn.sent = []
        recorded.append(conn.sent)

    hub.on_connect = keep
    data = await create(client, mode="ai", level="easy")
    seat = await joined(client, data["game"], data["token"])
    await play_out([seat], random.Random(1))
    sent = [json.loads(t) for t in recorded[0]]
    states = [m for m in sent if m["type"] == "state"]
    assert len(states) == len([m for m in seat.messages if m["type"] == "state"])


async def test_games_forgotten_from_memory_come_back_from_the_database(
    client: Client, service: GameService
) -> None:
    service.cache_size = 2
    made = [await create(client, mode="friend", seat=0) for _ in range(4)]
    assert len(service._games) == 2
    first = made[0]
    seat = await joined(client, first["game"], first["token"])  # read again from the database
    assert seat.state is not None and seat.state["game"]["id"] == first["game"]
    move = seat.state["legal"][0]
    await seat.send(type="move", move=move)
    moved = await seat.until(lambda s: s["game"]["version"] == 1)
    assert moved["view"]["history"][0]["move"] == move
    await seat.ws.close()


# -- seat links: the address bar never keeps a seat's token ----------------------------------------


def jar_token(jar: aiohttp.abc.AbstractCookieJar, url: Any, game: str) -> str | None:
    """The seat's cookie of ``game`` a browser holds, or None."""
    morsel = jar.filter_cookies(url).get(f"hk_{game}")
    return morsel.value if morsel is not None else None


async def test_a_seat_link_moves_its_token_into_the_cookie_and_out_of_the_address(
    client: Client,
) -> None:
    data = await create(client, mode="friend", seat=0)
    game, token = data["game"], data["token"]
    client.session.cookie_jar.clear()  # the link opened in another browser
    response = await client.get(f"/g/{game}?lang=fr&t={token}&x=a%26b", allow_redirects=False)
    assert response.status == 303
    location = response.headers["Location"]
    assert location == f"/g/{game}?lang=fr&x=a%26b"  # the other parameters kept, only t gone
    assert token not in location and "t=" not in location
    assert response.headers["Cache-Control"] == "no-store"
    cookie = response.headers["Set-Cookie"]
    assert f"hk_{game}={token}" in cookie and "HttpOnly" in cookie and "SameSite=Lax" in cookie
    assert jar_token(client.session.cookie_jar, client.make_url("/"), game) == token
    # followed, as a browser does: the page, and the socket without ?t= opens the seat
    page = await client.get(f"/g/{game}?t={token}")
    assert page.status == 200 and str(page.url).endswith(f"/g/{game}")
    assert "<html" in (await page.text()).lower()
    seat = await joined(client, game, None)
    assert seat.state is not None and seat.state["view"]["seat"] == 0
    await seat.ws.close()


async def test_a_seat_link_the_cookie_already_holds_is_moved_out_of_the_address(
    client: Client,
) -> None:
    data = await create(client, mode="ai", level="easy", seat=1)  # the cookie is set here
    response = await client.get(f"/g/{data['game']}?t={data['token']}", allow_redirects=False)
    assert response.status == 303 and response.headers["Location"] == f"/g/{data['game']}"
    assert response.headers["Cache-Control"] == "no-store"
    jar = client.session.cookie_jar
    assert jar_token(jar, client.make_url("/"), data["game"]) == data["token"]


async def test_a_seat_cookie_of_no_seat_is_replaced_by_a_seat_link(client: Client) -> None:
    data = await create(client, mode="ai", level="easy", seat=0)
    game = data["game"]
    client.session.cookie_jar.clear()
    client.session.cookie_jar.update_cookies({f"hk_{game}": "STALE"}, client.make_url("/"))
    response = await client.get(f"/g/{game}?t={data['token']}", allow_redirects=False)
    assert response.status == 303 and response.headers["Location"] == f"/g/{game}"
    assert jar_token(client.session.cookie_jar, client.make_url("/"), game) == data["token"]


async def test_the_other_seats_link_is_served_at_its_address_and_keeps_the_cookie(
    client: Client,
) -> None:
    data = await create(client, mode="friend", seat=0)
    friend = await claim_invite(base(client), data["invite"], "Bob")
    response = await client.get(f"/g/{data['game']}?t={friend}", allow_redirects=False)
    # the link decides alone, as before: its page, no redirect, the creator's cookie untouched
    assert response.status == 200 and "Location" not in response.headers
    assert (
        "Set-Cookie" not in response.headers
        or f"hk_{data['game']}" not in (response.headers["Set-Cookie"])
    )
    jar = client.session.cookie_jar
    assert jar_token(jar, client.make_url("/"), data["game"]) == data["token"]
    seat = await joined(client, data["game"], friend)  # the page's socket: the link's seat
    assert seat.state is not None and seat.state["view"]["seat"] == 1
    await seat.ws.close()


@pytest.mark.parametrize("token", ["WRONG", "x" * 300, "%00"])
async def test_a_link_of_no_seat_is_served_as_before(client: Client, token: str) -> None:
    data = await create(client, mode="ai", level="easy", seat=0)
    client.session.cookie_jar.clear()
    for game, status in ((data["game"], 200), ("no-such-game", 404)):
        response = await client.get(f"/g/{game}?t={token}", allow_redirects=False)
        assert response.status == status and "Location" not in response.headers
        assert f"hk_{game}" not in response.headers.get("Set-Cookie", "")
    assert jar_token(client.session.cookie_jar, client.make_url("/"), data["game"]) is None


async def seat_link(
    session: aiohttp.ClientSession | Client, url: str, expect: int
) -> dict[str, Any]:
    """``GET /api/games/ID/seat-link``'s JSON answer, its status and ``no-store`` checked."""
    async with session.get(url) as response:
        answer: dict[str, Any] = await response.json()
        assert response.status == expect, answer
        assert response.headers["Cache-Control"] == "no-store"
        return answer


async def test_the_seat_link_answers_each_seats_holder_with_their_own_link(
    client: Client,
) -> None:
    data = await create(client, mode="friend", seat=0)
    game = data["game"]
    path = f"/api/games/{game}/seat-link"
    url = f"{base(client)}{path}"
    mine = await seat_link(client, path, 200)
    assert mine == {"game": game, "seat": 0, "url": f"/g/{game}?t={data['token']}"}
    jars = [aiohttp.CookieJar(unsafe=True) for _ in range(3)]
    async with (
        aiohttp.ClientSession(cookie_jar=jars[0]) as spectator,
        aiohttp.ClientSession(cookie_jar=jars[1]) as nobody,
        aiohttp.ClientSession(cookie_jar=jars[2]) as friend,
    ):
        await spectator.get(f"{base(client)}/g/{game}")  # a visitor of the page: a guest, no seat
        for browser in (spectator, nobody):
            refused = await seat_link(browser, url, 403)
            assert refused["code"] == "not-allowed" and "no seat" in refused["error"]
            assert data["token"] not in json.dumps(refused)
        code = data["invite"].split("?i=")[1]
        async with friend.post(f"{base(client)}/api/games/{game}/join", json={"invite": code}):
            pass
        theirs = await seat_link(friend, url, 200)  # the other seat's holder: only their own
        token = jar_token(jars[2], client.make_url("/"), game)
        assert token is not None and token != data["token"]
        assert theirs == {"game": game, "seat": 1, "url": f"/g/{game}?t={token}"}
        assert data["token"] not in json.dumps(theirs)
        refused = await seat_link(spectator, url, 403)  # still nothing once both seats are taken
        assert token not in json.dumps(refused) and data["token"] not in json.dumps(refused)
    # a cookie of no seat of this game opens nothing
    client.session.cookie_jar.clear()
    client.session.cookie_jar.update_cookies({f"hk_{game}": "WRONG"}, client.make_url("/"))
    await seat_link(client, path, 403)


async def test_the_seat_link_of_no_game_is_404(client: Client) -> None:
    answer = await seat_link(client, "/api/games/nosuchgame/seat-link", 404)
    assert answer == {"error": "there is no game 'nosuchgame'", "code": "not-found"}
    for game in ("bad%20id", "x" * 41):  # no game can have these ids
        response = await client.get(f"/api/games/{game}/seat-link")
        assert response.status == 404 and (await response.json())["code"] == "not-found"


async def test_the_seat_link_opens_the_signed_in_players_seat_without_its_cookie(
    aiohttp_client: MakeClient, service: GameService
) -> None:
    from argon2 import PasswordHasher

    from hanamikoji.web.server import ACCOUNTS

    app = create_app(service)
    app[ACCOUNTS].hasher = PasswordHasher(time_cost=1, memory_cost=1024, parallelism=1)
    client = await aiohttp_client(app)
    await client.get("/api/me")
    body = {"username": "anna_k", "password": "correct horse battery"}
    assert (await client.post("/api/account", json=body)).status == 201
    data = await create(client, mode="ai", level="easy", seat=1)
    game = data["game"]
    client.session.cookie_jar.clear(lambda morsel: morsel.key == f"hk_{game}")
    assert jar_token(client.session.cookie_jar, client.make_url("/"), game) is None
    answer = await seat_link(client, f"/api/games/{game}/seat-link", 200)
    assert answer == {"game": game, "seat": 1, "url": f"/g/{game}?t={data['token']}"}
