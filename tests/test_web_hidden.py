"""Nothing hidden reaches a browser: every byte sent to a seat in whole games is checked.

Whole games are played over real WebSockets while the server keeps every message it sends each
connection. For each seat, a twin game is built that differs only in what that seat cannot see: the
opponent's round-1 Discard holds the removed card instead of one of its own, so the opponent's hand,
its Discard and the removed card all differ. Every message the seat received must be exactly what
the twin game would have sent it: so none of those cards can be told from what was sent.
"""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from aiohttp.test_utils import TestClient

from hanamikoji.state import Deal, State
from hanamikoji.web.game import LiveGame
from hanamikoji.web.messages import seat_message
from hanamikoji.web.server import HUB, Connection, create_app
from hanamikoji.web.service import GameService
from hanamikoji.web.store import GameRow, open_store
from hanamikoji.web.watch import spectator_message
from twins import public_twins
from web_support import Seat, claim_invite, my_turn, over, play_out

Client = TestClient[Any, Any]


@pytest.fixture
async def service(tmp_path: Path) -> AsyncIterator[GameService]:
    store = await open_store(f"sqlite:///{tmp_path / 'games.sqlite3'}")
    yield GameService(store, ai_workers=0, seed=11)


def twin(state: State, seat: int) -> tuple[list[Deal], list[str]] | None:
    """Deals and moves of a game that ``seat`` cannot tell from ``state``'s (None if none)."""
    other = 1 - seat
    deals = list(state.deals)
    moves = [str(p.move) for p in state.history]
    deal = deals[0]
    index = next(
        i
        for i, p in enumerate(state.history)
        if p.round == 1 and p.seat == other and str(p.move).startswith("D")
    )
    cards = moves[index][1:]
    removed = deal.removed
    swap = next((c for c in cards if c != removed), None)
    if swap is None:
        return None
    rest = cards.replace(swap, "", 1)
    moves[index] = "D" + "".join(sorted(rest + removed))
    # The copy of the card to replace: the dealt one or one the other seat drew (it draws every
    # second card, the first player from the top); the first whose game still replays.
    first_draw = 0 if other == 0 else 1
    places = [-1] + [j for j in range(first_draw, 8, 2) if deal.deck[j] == swap]
    for j in places:
        hands = list(deal.hands)
        deck = list(deal.deck)
        if j < 0:
            if swap not in hands[other]:
                continue
            hands[other] = "".join(sorted(hands[other].replace(swap, removed, 1)))
        else:
            deck[j] = removed
        deals[0] = Deal(swap, (hands[0], hands[1]), "".join(deck))
        try:
            states_of(deals, moves, state.rules)
        except ValueError:
            continue
        return deals, moves
    raise AssertionError("no twin replays")  # pragma: no cover - one copy always works


def states_of(deals: list[Deal], moves: list[str], rules: Any) -> list[State]:
    """The state after each number of moves (index = moves made)."""
    state = State.from_deals(deals, rules=rules)
    out = [state]
    for move in moves:
        state = state.apply(move)
        out.append(state)
    return out


def check_frames(frames: list[dict[str, Any]], row: GameRow, seat: int, states: list[State]) -> int:
    """Assert each frame is what ``states`` would have sent ``seat``; how many were checked."""
    checked = 0
    for frame in frames:
        if frame["type"] != "state":
            assert frame["type"] in ("pong", "error", "hint"), frame
            continue
        info = frame["game"]
        version = info["version"]
        joined = list(row.joined)
        joined[1 - seat] = info["opponent_joined"]
        tokens = list(row.tokens)
        if info["invite"]:  # sent before the friend claimed the invitation
            tokens[1 - seat] = ""
        at = replace(
            row,
            version=version,
            moves=row.moves[:version],
            joined=tuple(joined),  # type: ignore[arg-type]
            tokens=tuple(tokens),  # type: ignore[arg-type]
            status="over" if states[version].is_over else "playing",  # the row as it was then
        )
        game = LiveGame(at, states[version], thinking=info["thinking"])
        expected = seat_message(
            game,
            states[version].view(seat),
            online=info["opponent_online"],
            rematch=info["rematch"],
        )
        assert frame == expected
        checked += 1
    return checked


async def _record_games(
    client: Client, service: GameService, mode: str, seeds: list[int], *, watch: bool = False
) -> list[tuple[str, dict[int, list[str]]]]:
    """Whole games and every message sent to each seat (and, with ``watch``, to a spectator
    from the start: key -1), as JSON text."""
    hub = client.app[HUB]
    sent: dict[int, list[str]] = {}

    def keep(conn: Connection) -> None:
        conn.sent = sent.setdefault(conn.seat, [])

    hub.on_connect = keep
    out = []
    for seed in seeds:
        sent.clear()
        body = {"mode": mode, "seat": seed % 2}
        if mode == "ai":
            body["level"] = "easy"
        data = await (await client.post("/api/games", json=body)).json()
        seats = [Seat(await client.ws_connect(f"/ws/{data['game']}?t={data['token']}"))]
        spectator = Seat(await client.ws_connect(f"/ws/{data['game']}/watch")) if watch else None
        if data["invite"]:
            token = await claim_invite(str(client.make_url("/")).rstrip("/"), data["invite"])
            seats.append(Seat(await client.ws_connect(f"/ws/{data['game']}?t={token}")))
        for s in seats:
            await s.until(lambda st: True)
        await play_out(seats, random.Random(seed))
        for s in seats:
            await s.until(over)
            await s.ws.close()
        if spectator is not None:
            await spectator.until(over)
            await spectator.ws.close()
        out.append((data["game"], {seat: list(texts) for seat, texts in sent.items()}))
    return out


@pytest.mark.parametrize("mode", ["friend", "ai"])
async def test_no_hidden_card_reaches_a_seat(
    aiohttp_client: Callable[..., Awaitable[Client]], service: GameService, mode: str
) -> None:
    client = await aiohttp_client(create_app(service))
    games = await _record_games(client, service, mode, [1, 2, 3, 4])
    twins_checked = 0
    for game_id, texts in games:
        frames = {seat: [json.loads(t) for t in sent] for seat, sent in texts.items()}
        game = await service.get(game_id)
        assert game is not None
        real = states_of(
            list(game.state.deals), [str(p.move) for p in game.state.history], game.rules
        )
        for seat, received in frames.items():
            assert check_frames(received, game.row, seat, real) > 5
            built = twin(game.state, seat)
            if built is None:
                continue
            deals, moves = built
            assert deals[0] != game.state.deals[0]
            twin_states = states_of(deals, moves, game.rules)
            assert twin_states[-1].outcome == game.state.outcome
            check_frames(received, game.row, seat, twin_states)
            twins_checked += 1
    assert twins_checked >= 3


def test_the_twin_differs_only_in_what_the_seat_cannot_see() -> None:
    state = State.new(5)
    rng = random.Random(5)
    while not state.is_over:
        state = state.apply(rng.choice(state.legal_moves))
    built = twin(state, 0)
    assert built is not None
    deals, moves = built
    other = states_of(deals, moves, state.rules)[-1]
    assert deals[0].removed != state.deals[0].removed
    assert other.view(0) == state.view(0)
    assert other.view(1) != state.view(1)


async def test_undo_shows_nothing_a_twin_game_would_not(
    aiohttp_client: Callable[..., Awaitable[Client]], tmp_path: Path
) -> None:
    """Two games the player cannot tell apart (they differ in a card of the pile the player has
    not drawn yet) stay byte for byte the same through an undo and the rest of the game: undo
    deals the unseen cards afresh, so the pile that was there before tells nothing."""
    services = []
    clients = []
    for name in ("one", "two"):
        store = await open_store(f"sqlite:///{tmp_path / name}.sqlite3")
        services.append(GameService(store, ai_workers=0, seed=3))
        clients.append(await aiohttp_client(create_app(services[-1])))
    data = await (
        await clients[0].post("/api/games", json={"mode": "ai", "level": "easy", "seat": 0})
    ).json()
    seat = Seat(await clients[0].ws_connect(f"/ws/{data['game']}?t={data['token']}"))
    rng = random.Random(6)
    await seat.until(lambda s: s["legal"] != [])
    for _ in range(3):  # three moves of the player this round, the AI's replies between
        version = seat.state["game"]["version"]  # type: ignore[index]
        await seat.send(type="move", move=rng.choice(seat.state["legal"]), version=version)  # type: ignore[index]
        await seat.until(lambda s, v=version: s["legal"] != [] and s["game"]["version"] > v + 1)
    await seat.ws.close()
    game = await services[0].get(data["game"])
    assert game is not None and game.state.round == 1 and game.state.to_move == 0
    state = game.state
    deal = state.deal
    # A card of the pile the player will draw later, swapped with the removed card.
    future = next(
        j
        for j in range(state.turn + 1, 8)
        if state.first ^ (j & 1) == 0 and deal.deck[j] != deal.removed
    )
    deck = list(deal.deck)
    removed = deck[future]
    deck[future] = deal.removed
    twin_deal = Deal(removed, deal.hands, "".join(deck))
    twin_row = replace(
        game.row,
        id="twin" + game.row.id[4:],
        deals={"seed": 99, "deals": [[removed, deal.hands[0], deal.hands[1], "".join(deck)]]},
    )
    await services[1]._new(twin_row)
    twin_game = await services[1].get(twin_row.id)
    assert twin_game is not None
    assert twin_game.state.view(0) == state.view(0) and twin_game.state.deal == twin_deal

    received = []
    before = game.row.version
    for service, client, game_id in zip(services, clients, (game.row.id, twin_row.id), strict=True):
        service._rng = random.Random(17)  # the same fresh deal for the same view
        seat = Seat(await client.ws_connect(f"/ws/{game_id}?t={game.row.tokens[0]}"))
        await seat.until(lambda s: s["legal"] != [])
        await seat.send(type="undo")
        await seat.until(lambda s: s["game"]["version"] > before and s["legal"] != [])
        await play_out([seat], random.Random(8))
        await seat.ws.close()
        for message in seat.messages:
            message.get("game", {}).pop("id", None)
        received.append(seat.messages)
    assert len(received[0]) > 5
    assert received[0] == received[1]


async def test_no_endpoint_tells_a_card_while_the_game_is_on(
    aiohttp_client: Callable[..., Awaitable[Client]], service: GameService
) -> None:
    client = await aiohttp_client(create_app(service))
    for mode in ("ai", "friend"):
        body: dict[str, Any] = {"mode": mode, "seat": 0} | (
            {"level": "easy"} if mode == "ai" else {}
        )
        data = await (await client.post("/api/games", json=body)).json()
        assert set(data) == {"game", "seat", "token", "url", "invite"}
        game = data["game"]
        for path in ("record", "review", "analysis"):
            response = await client.get(f"/api/games/{game}/{path}")
            assert response.status == 403, (mode, path)
            assert set(await response.json()) == {"error", "code"}
        if data["invite"]:
            code = data["invite"].split("i=")[1]
            info = await (await client.get(f"/api/games/{game}/invitation?i={code}")).json()
            assert set(info) == {"game", "status", "host", "seat", "rules", "yours"}
            assert info["rules"] == {"max_rounds": 3} and isinstance(info["host"], str)


def test_the_drawn_card_is_told_only_to_its_seat_during_its_action() -> None:
    from hanamikoji.web.messages import drawn_card

    rng = random.Random(8)
    for _ in range(20):
        state = State.new(rng)
        while not state.is_over:
            for seat in (0, 1):
                drawn = drawn_card(state, seat)
                acting = state.to_move == seat and state.phase.value == "action"
                if not acting:
                    assert drawn is None
                    continue
                assert drawn is not None
                # the hand is what it was before this turn's draw, and the drawn card
                if state.turn < 2:
                    before = state.deal.hands[seat]
                else:
                    parent = state.parent
                    assert parent is not None
                    before = parent.hand(seat)
                assert "".join(sorted(before + drawn)) == state.hand(seat), (state, drawn)
            state = state.apply(rng.choice(state.legal_moves))


def check_public_frames(texts: list[str], row: GameRow, states: list[State]) -> int:
    """Assert each message a spectator received is, byte for byte, what ``states`` would have
    sent it, for the versions ``states`` reaches; how many were checked."""
    checked = 0
    for text in texts:
        frame = json.loads(text)
        if frame["type"] != "state":
            assert frame["type"] in ("pong", "error"), frame
            continue
        info = frame["game"]
        version = info["version"]
        if version >= len(states):
            continue
        joined = (info["joined"][0], info["joined"][1])
        at = replace(row, version=version, moves=row.moves[:version], joined=joined)
        game = LiveGame(at, states[version], thinking=info["thinking"])
        online = (info["online"][0], info["online"][1])
        expected = spectator_message(game, online=online)
        assert text == json.dumps(expected, separators=(",", ":"))
        checked += 1
    return checked


@pytest.mark.parametrize("mode", ["friend", "ai"])
async def test_no_hidden_card_reaches_a_spectator(
    aiohttp_client: Callable[..., Awaitable[Client]], service: GameService, mode: str
) -> None:
    """Every byte a spectator receives is the same in twin games that differ only in cards
    nobody has seen revealed: the removed card; a Discard (never shown); a Secret, until its
    round is scored; a card in a hand or the pile, until it is offered."""
    client = await aiohttp_client(create_app(service))
    games = await _record_games(client, service, mode, [5, 6, 7], watch=True)
    kinds: set[str] = set()
    twin_frames = 0
    for game_id, texts in games:
        game = await service.get(game_id)
        assert game is not None
        state = game.state
        real = states_of(list(state.deals), [str(p.move) for p in state.history], game.rules)
        watched = texts[-1]
        assert check_public_frames(watched, game.row, real) > 10
        for frame in map(json.loads, watched):
            assert "view" not in frame and "legal" not in frame and "drawn" not in frame
        for twin in public_twins(state):
            assert twin.deals[0] != state.deals[0]
            others = states_of(twin.deals, twin.moves, game.rules)
            upto = len(others) if twin.upto is None else twin.upto
            twin_frames += check_public_frames(watched, game.row, others[:upto])
            kinds.add(twin.what.split("'s ")[1].split(" ")[0])
    assert kinds == {"Discard", "Secret", "offer"}
    assert twin_frames > 100


def opponent_hand_twin(at: State, seat: int, moves: list[str]) -> list[Deal] | None:
    """Deals of a game with the same moves that ``seat`` cannot tell from ``at``'s (mid-round 1):
    its opponent holds the removed card instead of one it holds at ``at`` (None if none)."""
    other = 1 - seat
    deal = at.deals[0]
    removed = deal.removed
    for card in sorted(set(at.hand(other)) - {removed}):
        places = [-1] + [j for j in range(8) if deal.deck[j] == card]
        for j in places:
            hands, deck = list(deal.hands), list(deal.deck)
            if j < 0:
                if card not in hands[other]:
                    continue
                hands[other] = "".join(sorted(hands[other].replace(card, removed, 1)))
            else:
                deck[j] = removed
            deals = [Deal(card, (hands[0], hands[1]), "".join(deck)), *at.deals[1:]]
            try:
                twin_at = states_of(deals, moves, at.rules)[-1]
            except ValueError:
                continue
            if twin_at.view(seat) == at.view(seat) and twin_at.hand(other) != at.hand(other):
                return deals
    return None


async def _play_some(seats: list[Seat], rng: random.Random, moves: int) -> None:
    """Random legal moves, by whichever seat is to decide, until ``moves`` were made."""
    for _ in range(moves):
        mover = None
        while mover is None:
            mover = next((s for s in seats if s.state is not None and my_turn(s.state)), None)
            if mover is None:
                await asyncio.wait_for(seats[0].receive(), 20)
                await asyncio.sleep(0)
        assert mover.state is not None
        version = mover.state["game"]["version"]
        await mover.send(type="move", move=rng.choice(mover.state["legal"]), version=version)
        for s in seats:
            await s.until(lambda st, v=version: st["game"]["version"] > v)


@pytest.mark.parametrize(("seed", "moves", "resigner"), [(1, 4, 0), (2, 5, 1), (3, 3, 1)])
async def test_a_resignation_mid_round_shows_each_table_as_it_was_given_up(
    aiohttp_client: Callable[..., Awaitable[Client]],
    service: GameService,
    seed: int,
    moves: int,
    resigner: int,
) -> None:
    """A game resigned mid-round (its ended state keeps no hands: ``State.concede``): each seat
    still sees its own hand, the opponent's hand size and the pile as they were when the game
    was given up, a spectator the hand sizes and the pile; with nobody to move and no legal move.
    And nothing more: every message is what a twin game would have sent, where the opponent
    holds the removed card instead of one of its own."""
    client = await aiohttp_client(create_app(service))
    hub = client.app[HUB]
    sent: dict[int, list[str]] = {}

    def keep(conn: Connection) -> None:
        conn.sent = sent.setdefault(conn.seat, [])

    hub.on_connect = keep
    data = await (await client.post("/api/games", json={"mode": "friend", "seat": 0})).json()
    game_id = data["game"]
    seats = [Seat(await client.ws_connect(f"/ws/{game_id}?t={data['token']}"))]
    spectator = Seat(await client.ws_connect(f"/ws/{game_id}/watch"))
    token = await claim_invite(str(client.make_url("/")).rstrip("/"), data["invite"])
    seats.append(Seat(await client.ws_connect(f"/ws/{game_id}?t={token}")))
    for s in (*seats, spectator):
        await s.until(lambda st: True)
    await _play_some(seats, random.Random(seed), moves)
    await seats[resigner].send(type="resign")
    for s in (*seats, spectator):
        await s.until(over)
        await s.ws.close()

    game = await service.get(game_id)
    assert game is not None and game.state.outcome is not None
    assert game.state.outcome.reason.value == "resign" and game.state.hand(0) == ""
    played = [str(p.move) for p in game.state.history]
    real = states_of(list(game.state.deals), played, game.rules)
    at = real[-1]  # the position it was given up at
    assert at.round == 1 and at.deck_left > 0 and at.hand(0) and at.hand(1)
    real.append(at.concede(resigner))
    for seat in (0, 1):
        last = json.loads(sent[seat][-1])
        view = last["view"]
        assert last["result"] is not None and last["game"]["status"] == "over"
        assert view["hand"] == at.hand(seat) != ""
        assert view["opponent_hand"] == len(at.hand(1 - seat)) > 0
        assert view["deck"] == at.deck_left and view["secret"] == at.secret(seat)
        assert view["discard"] == at.discard(seat)
        assert view["played"] == [at.played(0), at.played(1)]
        assert view["to_move"] is None and last["legal"] == [] and last["drawn"] is None
        assert check_frames([json.loads(t) for t in sent[seat]], game.row, seat, real) > moves
        deals = opponent_hand_twin(at, seat, played)
        assert deals is not None
        assert deals[0] != at.deals[0]
        others = states_of(deals, played, game.rules)
        others.append(others[-1].concede(resigner))
        check_frames([json.loads(t) for t in sent[seat]], game.row, seat, others)
        # the spectator could not tell either twin from the game
        check_public_frames(sent[-1], game.row, others)
    public = json.loads(sent[-1][-1])["public"]
    assert public["hand_sizes"] == [len(at.hand(0)), len(at.hand(1))]
    assert public["deck"] == at.deck_left and public["to_move"] is None
    assert public["played"] == [at.played(0), at.played(1)]
    assert check_public_frames(sent[-1], game.row, real) > moves
