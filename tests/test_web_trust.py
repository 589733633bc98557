"""Trust: no seat can be taken or peeked at, no visitor can stall the others, hostile input is
answered clearly. Each test here reproduces an attack on the web app (in-process, real sockets)."""

from __future__ import annotations

import asyncio
import base64
import json
import os
import random
import socket
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from aiohttp.test_utils import TestClient

from hanamikoji.web import server as server_module
from hanamikoji.web.errors import MAX_MARKS, WebError, clean_name
from hanamikoji.web.limits import Limits
from hanamikoji.web.server import SEND_QUEUE, Connection, Hub, Settings, create_app
from hanamikoji.web.service import GameService
from hanamikoji.web.store import open_store
from web_support import Seat, invite_parts, my_turn

Client = TestClient[Any, Any]
MakeClient = Callable[..., Awaitable[Client]]


@pytest.fixture
async def service(tmp_path: Path) -> AsyncIterator[GameService]:
    store = await open_store(f"sqlite:///{tmp_path / 'games.sqlite3'}")
    yield GameService(store, ai_workers=0, hint_iterations=60, analysis_iterations=40, seed=5)


@pytest.fixture
async def client(aiohttp_client: MakeClient, service: GameService) -> Client:
    return await aiohttp_client(create_app(service))


def base(client: Client) -> str:
    return str(client.make_url("/")).rstrip("/")


async def create(client: Client, expect: int = 201, **body: Any) -> dict[str, Any]:
    response = await client.post("/api/games", json=body)
    data: dict[str, Any] = await response.json()
    assert response.status == expect, data
    return data


async def joined(client: Client, game: str, token: str) -> Seat:
    seat = Seat(await client.ws_connect(f"/ws/{game}?t={token}"))
    await seat.until(lambda s: True)
    return seat


async def join(
    url: str, invite: str, name: str | None = None, cookies: dict[str, str] | None = None
) -> tuple[int, dict[str, Any], aiohttp.CookieJar]:
    """Claim ``invite`` from a browser of its own: (status, answer, that browser's cookies)."""
    game, code = invite_parts(invite)
    body: dict[str, Any] = {"invite": code} | ({"name": name} if name is not None else {})
    jar = aiohttp.CookieJar(unsafe=True)
    async with (
        aiohttp.ClientSession(cookie_jar=jar, cookies=cookies) as browser,
        browser.post(f"{url}/api/games/{game}/join", json=body) as response,
    ):
        return response.status, await response.json(), jar


async def game_count(service: GameService) -> int:
    db = service.store._db  # type: ignore[attr-defined]
    return int(db.execute("SELECT COUNT(*) FROM games").fetchone()[0])


# -- 1. invitations are claimed once ---------------------------------------------------------


async def test_an_invitation_is_claimed_once_and_only_the_friend_gets_the_seat(
    client: Client,
) -> None:
    data = await create(client, mode="friend", seat=0, name="Anna")
    assert data["invite"].startswith(f"/join/{data['game']}?i=")
    host = await joined(client, data["game"], data["token"])
    assert host.state is not None and host.state["game"]["invite"] == data["invite"]
    _, code = invite_parts(data["invite"])

    # The invitation code is not a seat: it opens nothing on the socket.
    refused = Seat(await client.ws_connect(f"/ws/{data['game']}?t={code}"))
    assert (await refused.receive())["code"] == "bad-token"

    info = await (await client.get(f"/api/games/{data['game']}/invitation?i={code}")).json()
    assert info["status"] == "open" and info["host"] == "Anna" and info["seat"] == 1
    assert info["yours"]  # this browser created the game

    status, friend, jar = await join(base(client), data["invite"], name="Bob")
    assert status == 201 and friend["seat"] == 1
    assert {c.key: c.value for c in jar}[f"hk_{data['game']}"] == friend["token"]
    state = await host.until(lambda s: s["game"]["opponent_joined"])
    assert state["game"]["names"] == ["Anna", "Bob"] and state["game"]["invite"] is None

    # Spent: a third person (or the friend again) gets no seat, and is told so.
    status, third, jar = await join(base(client), data["invite"], name="Eve")
    assert status == 410 and third["code"] == "used"
    assert "has been used" in third["error"] and len(jar) == 0
    info = await (await client.get(f"/api/games/{data['game']}/invitation?i={code}")).json()
    assert info["status"] == "used"

    # Nothing the creator ever received holds the friend's token.
    everything = json.dumps(host.messages) + json.dumps(data) + json.dumps(info)
    assert friend["token"] not in everything
    guest = await joined(client, data["game"], friend["token"])
    assert guest.state is not None and guest.state["view"]["seat"] == 1
    for seat in (host, guest, refused):
        await seat.ws.close()


async def test_simultaneous_claims_give_the_seat_to_exactly_one(client: Client) -> None:
    data = await create(client, mode="friend", seat=1)
    answers = await asyncio.gather(*(join(base(client), data["invite"]) for _ in range(12)))
    assert sorted(status for status, _, _ in answers) == [201] + [410] * 11


async def test_the_creator_cannot_take_the_seat_they_invited_to(client: Client) -> None:
    data = await create(client, mode="friend", seat=0)
    mine = {f"hk_{data['game']}": data["token"]}
    status, answer, _ = await join(base(client), data["invite"], cookies=mine)
    assert status == 403 and "your own invitation" in answer["error"]
    status, _, _ = await join(base(client), data["invite"])  # the friend still can
    assert status == 201


async def test_the_friend_sending_the_invitation_again_is_told_it_is_theirs(client: Client) -> None:
    """A second tab or a double click of the friend's was told "this is your own invitation:
    send the link to the friend you want to play"."""
    data = await create(client, mode="friend", seat=0)
    status, _, jar = await join(base(client), data["invite"], name="Bob")
    assert status == 201
    friend = {cookie.key: cookie.value for cookie in jar}
    status, answer, _ = await join(base(client), data["invite"], name="Bob", cookies=friend)
    assert status == 410 and answer["code"] == "used", answer
    assert f"you play in this game: your table is /g/{data['game']}" in answer["error"]


async def test_no_rematch_of_a_friend_game_nobody_joined(client: Client) -> None:
    """Its invitation is spent with the game: the rematch waited for ever for nobody, listed
    among the creator's games and counted against its limits."""
    data = await create(client, mode="friend", seat=0, name="Anna")
    host = await joined(client, data["game"], data["token"])
    await host.send(type="resign")
    await host.until(lambda s: s["game"]["status"] == "over")
    await host.send(type="rematch")
    refused = await host.error()
    assert refused["code"] == "not-allowed" and "never joined" in refused["message"], refused
    await host.send(type="chat", text="anyone?")  # nor a chat with nobody
    refused = await host.error()
    assert refused["code"] == "not-allowed" and "nobody to talk to" in refused["message"], refused
    listed = await (await client.get("/api/me/games")).json()
    withdrawn = [g for g in listed["finished"] if g["game"] == data["game"]]
    assert withdrawn and withdrawn[0]["withdrawn"] is True and withdrawn[0]["review"] is None
    await host.ws.close()


@pytest.mark.parametrize(
    "name",
    [
        "\x1b]0;owned\x07",
        "Bob\x1b[2J",
        "a\u202eb",
        "tab\there\x00",
        "x" * 41,
        "Zoe" + "\u0301" * 8,  # a stack of accents, drawn over the lines above (as in chat)
        "Bob" + "\u0489" * 12,  # enclosing marks, drawn around the letter
        "Bo" + "\u0301\u034f" * 7,  # marks counted apart by an invisible joiner
        "\u3164",  # a Hangul filler: a blank name
        "\u2800\u2800",  # blank Braille
    ],
)
async def test_a_bad_name_claims_nothing(client: Client, name: str) -> None:
    data = await create(client, mode="friend", seat=0)
    status, answer, _ = await join(base(client), data["invite"], name=name)
    assert status == 400 and answer["code"] == "bad-request" and "name" in answer["error"]
    status, _, _ = await join(base(client), data["invite"], name="  Bob  ")
    assert status == 201


def test_a_name_may_carry_a_languages_accents() -> None:
    assert (
        clean_name("Nguy\u00ea\u0303n \u01b0\u0323\u0301", "x")
        == "Nguy\u00ea\u0303n \u01b0\u0323\u0301"
    )
    assert clean_name("e" + "\u0301" * MAX_MARKS, "x") == "e" + "\u0301" * MAX_MARKS
    with pytest.raises(WebError, match="name: a letter may carry at most 4 marks"):
        clean_name("e" + "\u0301" * (MAX_MARKS + 1), "x")


async def test_a_wrong_invitation_code_is_not_valid(client: Client) -> None:
    data = await create(client, mode="friend", seat=0)
    game, _ = invite_parts(data["invite"])
    status, answer, _ = await join(base(client), f"/join/{game}?i=guess")
    assert status == 403 and "not valid" in answer["error"]
    ai = await create(client, mode="ai", level="easy", seat=0)
    status, _, _ = await join(base(client), f"/join/{ai['game']}?i={ai['token']}")
    assert status == 403  # a game against the AI has no invitation, and a seat token is none


async def test_an_invitation_to_a_game_that_ended_gives_no_seat(client: Client) -> None:
    """The creator resigned before anyone came: the link says the game is over, and a stranger
    cannot take the seat that won."""
    data = await create(client, mode="friend", seat=0, name="Anna")
    host = await joined(client, data["game"], data["token"])
    await host.ws.send_json({"type": "resign"})
    await host.until(lambda s: s["game"]["status"] == "over")
    _, code = invite_parts(data["invite"])
    info = await (await client.get(f"/api/games/{data['game']}/invitation?i={code}")).json()
    assert info["status"] == "over"
    status, answer, jar = await join(base(client), data["invite"], name="Eve")
    assert status == 409 and answer["code"] == "over", answer
    assert "is over" in answer["error"] and len(jar) == 0
    assert host.state is not None and host.state["game"]["invite"] is None
    await host.ws.close()


async def test_a_refused_request_renames_no_one(client: Client) -> None:
    """A name typed with a request that is refused is not kept as the player's."""
    await create(client, mode="ai", level="easy", seat=0, name="Anna")
    answer = await create(client, expect=400, mode="ai", level="bogus", name="Renamed")
    assert "level" in answer["error"]
    assert (await (await client.get("/api/me")).json())["name"] == "Anna"
    friend = await create(client, mode="friend", seat=0)
    await join(base(client), friend["invite"])  # someone else takes it first
    game, code = invite_parts(friend["invite"])
    refused = await client.post(f"/api/games/{game}/join", json={"invite": code, "name": "Eve"})
    assert refused.status == 410  # (the creator's own invitation, and spent)
    assert (await (await client.get("/api/me")).json())["name"] == "Anna"
    await create(client, mode="ai", level="easy", seat=0, name="Bea")
    assert (await (await client.get("/api/me")).json())["name"] == "Bea"


# -- 2. a crafted link sets no cookie --------------------------------------------------------


async def test_a_link_with_a_token_of_no_seat_sets_no_cookie(client: Client) -> None:
    data = await create(client, mode="ai", level="easy", seat=0)
    game = data["game"]
    for token in ("ANY", "x" * 99):
        response = await client.get(f"/g/{game}?t={token}", allow_redirects=False)
        assert response.status == 200 and "Set-Cookie" not in response.headers
    jar = client.session.cookie_jar.filter_cookies(client.make_url("/"))
    assert jar[f"hk_{game}"].value == data["token"]  # the visitor's own seat still opens
    client.session.cookie_jar.clear()  # another browser of the same player: the link sets it
    response = await client.get(f"/g/{game}?t={data['token']}", allow_redirects=False)
    assert f"hk_{game}={data['token']}" in response.headers["Set-Cookie"]
    assert response.status == 303 and response.headers["Location"] == f"/g/{game}"
    for path in (
        *("/g/a(b)?t=x", "/g/a%20b?t=x", "/review/a;b", "/join/%00?i=1", "/g/%2e%2e%2fx"),
        # ids a game could have, none has
        *("/g/nosuchgame1234", "/g/nosuchgame1234?t=x", "/review/nosuchgame1234"),
        "/join/nosuchgame1234?i=x",
    ):
        response = await client.get(path)
        assert response.status == 404, path
        assert "Set-Cookie" not in response.headers
        # the page itself, which says there is no such game as for any unknown one
        assert response.content_type == "text/html" and "<html" in await response.text()


async def test_a_link_with_the_other_seats_token_does_not_replace_a_seat_held(
    client: Client,
) -> None:
    data = await create(client, mode="friend", seat=0)
    _, friend, _ = await join(base(client), data["invite"])
    # The opponent sends the creator a link with the opponent's own (valid) token.
    response = await client.get(f"/g/{data['game']}?t={friend['token']}", allow_redirects=False)
    assert response.status == 200 and "Set-Cookie" not in response.headers
    jar = client.session.cookie_jar.filter_cookies(client.make_url("/"))
    assert jar[f"hk_{data['game']}"].value == data["token"]


# -- 3. undo never shows a card ----------------------------------------------------------------


async def _play_until(
    seat: Seat, rng: random.Random, done: Callable[[dict[str, Any]], bool]
) -> None:
    while True:
        state = await seat.until(lambda s: my_turn(s) or s["result"] is not None)
        if done(state) or state["result"] is not None:
            return
        version = state["game"]["version"]
        await seat.send(type="move", move=rng.choice(state["legal"]), version=version)
        await seat.until(lambda s, v=version: s["game"]["version"] > v)


async def test_undo_deals_afresh_what_the_player_could_not_see(
    client: Client, service: GameService
) -> None:
    data = await create(client, mode="ai", level="easy", seat=0)
    seat = await joined(client, data["game"], data["token"])
    before = await seat.until(my_turn)
    move = next(m for m in before["legal"] if m.startswith("S"))
    hidden = set()
    draws = set()
    for _ in range(12):
        sent = seat.state["game"]["version"] if seat.state else 0
        await seat.send(type="move", move=move)
        after = await seat.until(lambda s, v=sent: my_turn(s) and s["game"]["version"] > v + 1)
        draws.add(after["view"]["hand"])  # the hand after the next draw
        game = await service.get(data["game"])
        assert game is not None
        hidden.add((game.state.hand(1), game.state.deal.removed, game.state.deal.deck))
        await seat.send(type="undo")
        undone = await seat.until(lambda s, v=after["game"]["version"]: s["game"]["version"] > v)
        assert undone["view"] == before["view"] and undone["legal"] == before["legal"]
    # The opponent's cards and the pile are new each time: what came once foretells nothing.
    assert len(hidden) > 6 and len(draws) > 3
    await seat.ws.close()


async def test_undo_stops_at_the_start_of_the_round(client: Client, service: GameService) -> None:
    data = await create(client, mode="ai", level="easy", seat=0, max_rounds=None)
    seat = await joined(client, data["game"], data["token"])
    rng = random.Random(2)
    await _play_until(seat, rng, lambda s: s["view"]["round"] == 2)
    state = seat.state
    assert state is not None
    if state["result"] is not None:
        pytest.fail("the game ended in round 1; pick another seed")
    game = await service.get(data["game"])
    assert game is not None
    mine_this_round = [p for p in game.state.history if p.round == 2 and p.seat == 0]
    if not mine_this_round:
        assert not state["game"]["can_undo"]
        await seat.send(type="undo")
        error = await seat.error()
        assert error["code"] == "not-allowed" and "round" in error["message"]
    await seat.ws.close()


async def test_undo_survives_a_restart_with_the_new_deal(
    client: Client, service: GameService, tmp_path: Path
) -> None:
    data = await create(client, mode="ai", level="easy", seat=0)
    seat = await joined(client, data["game"], data["token"])
    before = await seat.until(my_turn)
    await seat.send(type="move", move=before["legal"][0])
    after = await seat.until(lambda s: my_turn(s) and s["game"]["version"] > 1)
    await seat.send(type="undo")
    await seat.until(lambda s: s["game"]["version"] > after["game"]["version"])
    game = await service.get(data["game"])
    assert game is not None
    again = await open_store(service.store.url)  # another process's reading of the same file
    row = await again.load(data["game"])
    assert row is not None and row.deals is not None and row.moves == game.row.moves
    from hanamikoji.web.game import replay

    assert replay(row).view(0) == game.state.view(0)
    assert replay(row).hand(1) == game.state.hand(1)
    await again.close()
    await seat.ws.close()


# -- 4. other sites' pages ---------------------------------------------------------------------


async def test_another_sites_page_cannot_open_a_seat_or_create_a_game(
    client: Client, service: GameService
) -> None:
    data = await create(client, mode="ai", level="easy", seat=0)
    games = await game_count(service)
    for origin in ("http://evil.example", "http://127.0.0.1:1", "null"):
        response = await client.post("/api/games", json={"mode": "ai"}, headers={"Origin": origin})
        assert response.status == 403 and (await response.json())["code"] == "bad-origin"
        with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
            await client.ws_connect(f"/ws/{data['game']}", headers={"Origin": origin})
        assert refused.value.status == 403
    assert await game_count(service) == games
    own = f"http://{client.host}:{client.port}"
    response = await client.post("/api/games", json={"mode": "ai"}, headers={"Origin": own})
    assert response.status == 201
    ws = await client.ws_connect(f"/ws/{data['game']}", headers={"Origin": own})
    await ws.close()


async def test_allowed_origins_and_https(aiohttp_client: MakeClient, service: GameService) -> None:
    settings = Settings(
        public_url="https://play.example.org",
        allowed_origins=("https://friends.example.org",),
    )
    client = await aiohttp_client(create_app(service, settings))
    for origin in ("https://play.example.org", "https://friends.example.org"):
        response = await client.post("/api/games", json={"mode": "ai"}, headers={"Origin": origin})
        assert response.status == 201
        assert "Secure" in response.headers["Set-Cookie"]
        assert response.headers["Strict-Transport-Security"].startswith("max-age=")
    response = await client.post(
        "/api/games", json={"mode": "ai"}, headers={"Origin": "https://evil.example.org"}
    )
    assert response.status == 403


# -- 5. limits per client ----------------------------------------------------------------------


async def test_a_client_creating_too_many_games_gets_429(
    aiohttp_client: MakeClient, service: GameService
) -> None:
    limits = Limits(games_per_minute=5, ai_games=3)
    service.limits.limits = limits
    client = await aiohttp_client(create_app(service, Settings(limits=limits)))
    for _ in range(3):
        await create(client, mode="ai", level="beginner")
    answer = await client.post("/api/games", json={"mode": "ai"})
    assert answer.status == 429 and "unfinished" in (await answer.json())["error"]
    assert int(answer.headers["Retry-After"]) > 0
    await create(client, mode="friend")  # friend games do not count against the AI's
    await create(client, mode="friend")
    answer = await client.post("/api/games", json={"mode": "friend"})
    assert answer.status == 429
    assert "at most 5 a minute" in (await answer.json())["error"]


async def test_clients_behind_a_proxy_are_told_apart(
    aiohttp_client: MakeClient, service: GameService
) -> None:
    limits = Limits(games_per_minute=2)
    service.limits.limits = limits
    client = await aiohttp_client(create_app(service, Settings(limits=limits, behind_proxy=True)))
    for address in ("10.0.0.1", "10.0.0.2"):
        for _ in range(2):
            response = await client.post(
                "/api/games", json={"mode": "friend"}, headers={"X-Forwarded-For": address}
            )
            assert response.status == 201
    response = await client.post(
        "/api/games", json={"mode": "friend"}, headers={"X-Forwarded-For": "1.2.3.4, 10.0.0.1"}
    )
    assert response.status == 429  # the proxy's own entry (the last) names the client


async def test_a_crowded_ai_queue_refuses_new_ai_games(
    aiohttp_client: MakeClient, tmp_path: Path
) -> None:
    store = await open_store(f"sqlite:///{tmp_path / 'busy.sqlite3'}")
    service = GameService(store, ai_workers=0, seed=1, queue_limits={"move": 2})
    client = await aiohttp_client(create_app(service))
    service._ai_pending.update({("other", 1), ("another", 1)})  # two moves owed: the limit
    answer = await client.post("/api/games", json={"mode": "ai", "level": "master"})
    assert answer.status == 503 and "busy" in (await answer.json())["error"]
    assert answer.headers["Retry-After"]
    await create(client, mode="ai", level="beginner")  # no search: always open
    service._ai_pending.clear()
    await create(client, mode="ai", level="master")


# -- 6. a client that never reads ----------------------------------------------------------------


async def _raw_socket(host: str, port: int, path: str) -> socket.socket:
    """A WebSocket opened by hand with a tiny receive buffer, never read from again."""
    loop = asyncio.get_running_loop()
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 2048)
    sock.setblocking(False)
    await loop.sock_connect(sock, (host, port))
    key = base64.b64encode(os.urandom(16)).decode()
    await loop.sock_sendall(
        sock,
        (
            f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\n"
            f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n"
        ).encode(),
    )
    head = b""
    while b"\r\n\r\n" not in head:
        head += await loop.sock_recv(sock, 1)
    assert b" 101 " in head.split(b"\r\n")[0], head
    return sock


def _frame(text: str) -> bytes:
    data = text.encode()
    mask = os.urandom(4)
    assert len(data) < 126
    masked = bytes(b ^ mask[i % 4] for i, b in enumerate(data))
    return bytes([0x81, 0x80 | len(data)]) + mask + masked


async def test_a_socket_that_never_reads_stalls_nobody(client: Client) -> None:
    data = await create(client, mode="friend", seat=0)
    host = await joined(client, data["game"], data["token"])
    _, friend, _ = await join(base(client), data["invite"])
    guest = await joined(client, data["game"], friend["token"])
    assert client.port is not None
    stalled = await _raw_socket(client.host, client.port, f"/ws/{data['game']}?t={data['token']}")
    ping = _frame('{"type":"ping"}') * 200
    loop = asyncio.get_running_loop()
    # Pongs pile up on the stalled socket until its buffers are full.
    deadline = time.monotonic() + 5
    sent = 0
    while time.monotonic() < deadline and sent < 40_000:
        try:
            stalled.send(ping)
            sent += 200
        except BlockingIOError:
            await asyncio.sleep(0.01)
        except OSError:
            break  # the server dropped it: also fine
        await asyncio.sleep(0)
    rng = random.Random(4)
    # The players' moves (a whole game: some 100 KB for the stalled socket) reach both at once.
    while host.state is not None and host.state["result"] is None:
        mover = host if host.state and my_turn(host.state) else guest
        assert mover.state is not None and my_turn(mover.state)
        version = mover.state["game"]["version"]
        started = loop.time()
        await mover.send(type="move", move=rng.choice(mover.state["legal"]), version=version)
        for seat in (host, guest):
            await seat.until(lambda s, v=version: s["game"]["version"] > v, timeout=5)
        assert loop.time() - started < 2
    stalled.close()
    for seat in (host, guest):
        await seat.ws.close()


class _Transport:
    aborted = False

    def abort(self) -> None:
        self.aborted = True


class _Ws:
    """A socket's sending side: takes every message, or (``stuck``) never finishes one."""

    def __init__(self, stuck: bool = False) -> None:
        self.stuck = stuck
        self.closed = False
        self.sent: list[str] = []

    async def send_str(self, text: str) -> None:
        if self.stuck:
            await asyncio.Event().wait()
        self.sent.append(text)


async def _stuck_and_fine(service: GameService) -> tuple[Hub, str, Connection, Connection]:
    game, _ = await service.create(mode="friend", seat=0)
    hub = Hub(service)
    stuck = Connection(_Ws(stuck=True), 0, transport=_Transport())  # type: ignore[arg-type]
    fine = Connection(_Ws(), 1, transport=_Transport())  # type: ignore[arg-type]
    for conn in (stuck, fine):
        conn.start()
    hub.games[game.id] = {stuck, fine}
    return hub, game.id, stuck, fine


async def test_publishing_never_waits_on_a_socket_that_does_not_take_its_messages(
    service: GameService,
) -> None:
    hub, game_id, stuck, fine = await _stuck_and_fine(service)
    for _ in range(SEND_QUEUE + 5):
        await asyncio.wait_for(hub.publish(game_id), 1)  # never blocked by the stuck one
    await asyncio.sleep(0.05)
    assert len(fine.ws.sent) == SEND_QUEUE + 5  # type: ignore[attr-defined]
    assert stuck.transport.aborted and not fine.transport.aborted  # fell too far behind: cut


async def test_a_socket_too_slow_to_take_one_message_is_cut(
    service: GameService, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(server_module, "SEND_TIMEOUT", 0.1)
    hub, game_id, stuck, fine = await _stuck_and_fine(service)
    await hub.publish(game_id)
    await asyncio.sleep(0.3)
    assert stuck.transport.aborted and not fine.transport.aborted


async def test_a_ninth_window_closes_the_oldest(client: Client) -> None:
    data = await create(client, mode="ai", level="easy", seat=0)
    seats = [await joined(client, data["game"], data["token"]) for _ in range(9)]
    first = seats[0]
    while True:
        msg = await first.ws.receive(timeout=5)
        if msg.type != aiohttp.WSMsgType.TEXT:
            break
        data_in = json.loads(msg.data)
        if data_in["type"] == "error":
            assert data_in["code"] == "replaced"
    assert first.ws.closed
    for seat in seats[1:]:
        await seat.send(type="ping")
        assert (await seat.receive())["type"] in ("pong", "state")
        await seat.ws.close()


async def test_reconnecting_again_and_again_does_not_flood_the_opponent(client: Client) -> None:
    data = await create(client, mode="friend", seat=0)
    _, friend, _ = await join(base(client), data["invite"])
    host = await joined(client, data["game"], data["token"])
    guest = await joined(client, data["game"], friend["token"])
    await host.until(lambda s: s["game"]["opponent_online"])
    heard = len(host.messages)
    for _ in range(20):  # the guest's second window opens and closes, twenty times
        extra = await joined(client, data["game"], friend["token"])
        await extra.ws.close()
    await guest.send(type="ping")
    while (await guest.receive())["type"] != "pong":
        pass
    await host.send(type="ping")
    while (await host.receive())["type"] != "pong":
        pass
    assert len(host.messages) - heard == 1  # only the pong: the guest never left
    await guest.ws.close()
    state = await host.until(lambda s: not s["game"]["opponent_online"])
    assert state["game"]["opponent_joined"]
    await host.ws.close()


async def test_a_hint_being_searched_does_not_hold_up_the_socket(client: Client) -> None:
    data = await create(client, mode="ai", level="easy", seat=0)
    seat = await joined(client, data["game"], data["token"])
    await seat.until(my_turn)
    await seat.send(type="hint")
    await seat.send(type="ping")
    kinds = []
    while "hint" not in kinds:
        kinds.append((await seat.receive())["type"])
    assert kinds.index("pong") < kinds.index("hint")
    await seat.ws.close()


# -- 9. hostile input ------------------------------------------------------------------------------

_HOSTILE_BODIES: list[tuple[bytes, str]] = [
    (b'{"seat": 1.0}', "seat must be 0, 1 or 'random'"),
    (b'{"seat": true}', "seat must be 0, 1 or 'random'"),
    (b'{"level": ["x"]}', "level must be one of"),
    (b'{"level": {"a": 1}}', "level must be one of"),
    (b'{"max_rounds": 1000000000000000000000000000000}', "max_rounds must be a whole number"),
    (b'{"max_rounds": 3.0}', "max_rounds must be a whole number"),
    (b'{"max_rounds": ' + b"9" * 5000 + b"}", "not valid JSON"),
    (b'{"max_rounds": NaN}', "not valid JSON"),
    (b'{"seat": Infinity}', "not valid JSON"),
    (b"[" * 32_000 + b"]" * 32_000, "nested too deeply"),
    (b"[" * 64_000 + b"]" * 64_000, "the body is too large"),
    (b'{"name": "\\ud800"}', "name must be printable text"),
    (b'{"name": "\\u001b[31mred"}', "name must be printable text"),
    (b'{"name": 10000000000000000000000000000000000000000}', "name must be a string"),
    (b'{"mode": "friend", "name": "a\\u0000b"}', "name must be printable text"),
    (b'{"mode": "ai", "mode": "friend"}', "the key 'mode' is given twice"),
    (b'{"mode": "ai", "rules": {"max_rounds": 2, "max_rounds": 3}}', "given twice"),
    (b"\xff\xfe\x00", "JSON object"),
    (b"", "JSON object"),
]


@pytest.mark.parametrize(("raw", "message"), _HOSTILE_BODIES)
async def test_hostile_bodies_get_400_and_change_nothing(
    client: Client, service: GameService, raw: bytes, message: str
) -> None:
    response = await client.post(
        "/api/games", data=raw, headers={"Content-Type": "application/json"}
    )
    assert response.status == 400
    answer = await response.json()
    assert answer["code"] == "bad-request" and message in answer["error"], answer
    assert len(answer["error"]) < 300
    assert await game_count(service) == 0


async def test_hostile_socket_messages_get_bad_request_and_the_socket_stays(
    client: Client,
) -> None:
    data = await create(client, mode="ai", level="easy", seat=0)
    seat = await joined(client, data["game"], data["token"])
    for text in (
        "[" * 8000 + "]" * 8000,
        '{"type": "move", "move": "G147", "version": ' + "9" * 5000 + "}",
        '{"type": "move", "move": "S1", "version": 1e999}',
        '{"type": NaN}',
        '{"type": ["move"]}',
        '{"type": "move", "move": "\\ud800"}',
        '{"type": "move", "move": ["S1"]}',
        '{"type": "move", "move": "' + "S" * 10_000 + '"}',
        '{"type": "ping", "game": {"x": ' + "[" * 50 + "]" * 50 + "}}",
        "\u0000",
        '{"type": "move", "move": "S1", "version": -1}',
        '{"type": "move", "type": "resign"}',
    ):
        await seat.ws.send_str(text)
        error = await seat.error()
        assert error["code"] in ("bad-request", "wrong-game"), (text[:40], error)
        assert len(error["message"]) < 400
    await seat.send(type="ping")
    while (await seat.receive())["type"] != "pong":
        pass
    await seat.ws.close()


async def test_an_api_path_or_method_that_does_not_exist_is_answered_in_json(
    client: Client,
) -> None:
    for method, path in (
        ("GET", "/api/nothing"),
        ("DELETE", "/api/games/nope"),
        ("GET", "/api/games/nope/nothing"),
    ):
        response = await client.request(method, path)
        assert response.status == 404, path
        answer = await response.json()
        assert answer["code"] == "not-found" and "there is no API" in answer["error"], answer
    response = await client.put("/api/games", json={})
    assert response.status == 405
    answer = await response.json()
    assert answer["code"] == "not-allowed" and "PUT is not allowed" in answer["error"], answer
    assert "POST" in response.headers["Allow"] and "POST" in answer["error"]
    # A page that does not exist is still a page's 404, not JSON.
    page = await client.get("/no/such/page")
    assert page.status == 404 and page.content_type != "application/json"


# -- 7. headers on every response ------------------------------------------------------------------


async def test_security_headers_on_every_response_and_no_version(client: Client) -> None:
    for method, path in (
        ("GET", "/"),
        ("GET", "/no/such/page"),
        ("GET", "/api/games/nope/record"),
        ("DELETE", "/api/games"),
        ("GET", "/static/nothing.js"),
    ):
        response = await client.request(method, path)
        headers = response.headers
        assert headers["Server"] == "hanamikoji", (path, headers.get("Server"))
        assert headers["X-Content-Type-Options"] == "nosniff", path
        assert "frame-ancestors 'none'" in headers["Content-Security-Policy"], path
        assert headers["Referrer-Policy"] == "no-referrer", path


async def test_a_flood_of_master_games_does_not_delay_another_visitors_ai(
    aiohttp_client: MakeClient, tmp_path: Path
) -> None:
    store = await open_store(f"sqlite:///{tmp_path / 'flood.sqlite3'}")
    unlimited = Limits(games_per_minute=0, ai_games=0)  # many addresses would get as far
    service = GameService(store, ai_workers=0, seed=2, limits=unlimited)
    client = await aiohttp_client(
        create_app(service, Settings(limits=unlimited, behind_proxy=True))
    )

    async def master() -> str:
        response = await client.post(
            "/api/games",
            json={"mode": "ai", "level": "master", "seat": 1},
            headers={"X-Forwarded-For": "10.0.0.1"},
        )
        return str((await response.json())["game"])

    # The AI moves first in each: twelve master searches queued at once.
    flood = await asyncio.gather(*(master() for _ in range(12)))
    response = await client.post(
        "/api/games",
        json={"mode": "ai", "level": "beginner", "seat": 1},
        headers={"X-Forwarded-For": "10.0.0.2"},
    )
    data = await response.json()
    seat = await joined(client, data["game"], data["token"])
    await seat.until(lambda s: s["game"]["version"] >= 1, timeout=60)
    await service.settle()
    db = store._db  # type: ignore[attr-defined]
    first = dict(db.execute("SELECT game_id, created_at FROM moves WHERE ply = 0").fetchall())
    (arrived,) = db.execute("SELECT created_at FROM games WHERE id = ?", (data["game"],)).fetchone()
    # Of the flood's moves still to make when the other visitor's game arrived, at most two (the
    # one being searched, and the flood's next) went before that visitor's.
    waiting = [g for g in flood if first[g] >= arrived]
    ahead = [g for g in waiting if first[g] < first[data["game"]]]
    assert len(waiting) >= 4, "the flood was searched before the other visitor came: no test"
    assert len(ahead) <= 2
    await seat.ws.close()
    await service.close()


@pytest.mark.parametrize(
    ("seat", "host", "friend", "names"),
    [
        (1, None, None, ["Player 1", "Player 2"]),
        (0, None, None, ["Player 1", "Player 2"]),
        (1, "Player 1", None, ["Player 2", "Player 1"]),  # the number the host took: the other
    ],
)
async def test_a_friend_games_unnamed_players_are_named_by_their_seats(
    client: Client, seat: int, host: str | None, friend: str | None, names: list[str]
) -> None:
    """The host was "Player 1" and the friend "Player 2" whatever their seats, so a friend who
    starts was told "you will play as 'Player 2'" and the table said "Player 2 starts"."""
    body: dict[str, Any] = {"mode": "friend", "seat": seat} | ({"name": host} if host else {})
    data = await create(client, **body)
    status, _, _ = await join(base(client), data["invite"], name=friend)
    assert status == 201
    game = await joined(client, data["game"], data["token"])
    assert game.state is not None and game.state["game"]["names"] == names
    await game.ws.close()
