"""Game records, hanamikoji-record/1 (interfaces.md §3): write, read, validate, replay."""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from conftest import (
    DEAL_A,
    DEAL_D,
    DEAL_D_SWAPPED,
    EXAMPLE_DEAL,
    MARKERS_A,
    MARKERS_D,
    MOVES_A,
    MOVES_D,
    one_round,
    play,
)
from hanamikoji.record import FORMAT, Record, RecordError, RoundRecord
from hanamikoji.state import Outcome, Rules, State, Termination


def random_game(seed: int, rules: Rules | None = None, stop: int | None = None) -> State:
    """Random legal moves from ``seed``; ``stop`` moves at most."""
    rng = random.Random(seed)
    state = State.new(random.Random(seed), rules=rules)
    n = 0
    while not state.is_over and (stop is None or n < stop):
        state = state.apply(rng.choice(state.legal_moves))
        n += 1
    return state


# The record of deal A played to the end under max_rounds 1 (seat 1 wins 8-7 at the round limit).
RECORD_A: dict[str, Any] = {
    "format": "hanamikoji-record/1",
    "rules": {"max_rounds": 1},
    "players": ["alice", "bob"],
    "rounds": [
        {
            "removed": "1",
            "hands": ["122334", "566667"],
            "deck": "47475757",
            "moves": MOVES_A.split(),
        }
    ],
    "result": {
        "winner": 1,
        "reason": "round-limit",
        "charm": [7, 8],
        "geisha": [3, 2],
        "markers": [0, None, 0, 0, 1, None, 1],
    },
}


def record_a() -> dict[str, Any]:
    return copy.deepcopy(RECORD_A)


# --- writing --------------------------------------------------------------------------------------


def test_writer_writes_the_record_of_interfaces_md() -> None:
    state = one_round(DEAL_A, MOVES_A, max_rounds=1)
    record = state.record(("alice", "bob"))
    assert record == Record.of(state, ("alice", "bob"))
    assert record.to_json() == RECORD_A
    assert json.loads(record.dumps()) == RECORD_A
    assert list(record.to_json()) == ["format", "rules", "players", "rounds", "result"]
    assert FORMAT == "hanamikoji-record/1"


def test_default_player_names_and_bad_players() -> None:
    state = State.from_deals([EXAMPLE_DEAL])
    assert state.record().players == ("seat 0", "seat 1")
    with pytest.raises(ValueError):
        Record.of(state, ("alone",))


def test_writer_lists_the_current_round_even_before_its_first_move() -> None:
    start = State.from_deals([EXAMPLE_DEAL])
    assert start.record().to_json()["rounds"] == [
        {"removed": "4", "hands": ["566777", "144677"], "deck": "53221635", "moves": []}
    ]
    assert start.record().to_json()["result"] is None
    after_round_1 = play(State.from_deals([DEAL_A, DEAL_D_SWAPPED]), MOVES_A)
    rounds = after_round_1.record().to_json()["rounds"]
    assert len(rounds) == 2
    assert rounds[1] == {
        "removed": "6",
        "hands": ["245566", "113777"],
        "deck": "74372546",
        "moves": [],
    }


def test_writers_write_canonical_moves_given_liberal_input() -> None:
    start = State.from_deals([EXAMPLE_DEAL])
    state = play(start, "s6 c74-64 p64 g755 p5 d73")
    moves = state.record().to_json()["rounds"][0]["moves"]
    assert moves == ["S6", "C46-47", "P46", "G557", "P5", "D37"]


def test_round_trip_through_text() -> None:
    for seed in range(10):
        state = random_game(seed)
        record = Record.of(state, ("alice", "ismcts"))
        back = Record.loads(record.dumps())
        assert back == record
        replayed = back.replay()
        assert replayed.history == state.history
        assert replayed.outcome == state.outcome
        assert replayed.deals == state.deals
        assert replayed.markers == state.markers
        assert back.dumps() == record.dumps()
    assert Record.loads(record.dumps(indent=None)) == record


def test_round_trip_through_a_file(tmp_path: Path) -> None:
    state = random_game(3, Rules(max_rounds=None))
    record = state.record(("a", "b"))
    path = tmp_path / "game.json"
    record.write(path)
    assert json.loads(path.read_text(encoding="utf-8")) == record.to_json()
    back = Record.read(path)
    assert back == record
    assert back.rules == Rules(max_rounds=None)
    assert back.replay().history == state.history
    assert Record.read(str(path)) == record


def test_unfinished_records_replay_to_their_position() -> None:
    seed = next(s for s in range(100) if random_game(s).round == 3)
    for stop in (0, 1, 2, 7, 12, 13, 25, 30):
        state = random_game(seed, stop=stop)
        assert not state.is_over
        record = Record.loads(state.record().dumps())
        assert record.result is None
        replayed = record.replay()
        assert replayed.history == state.history
        assert (replayed.round, replayed.to_move, replayed.phase) == (
            state.round,
            state.to_move,
            state.phase,
        )
        assert replayed.offer == state.offer
        assert (replayed.hand(0), replayed.hand(1)) == (state.hand(0), state.hand(1))
        assert replayed.view(0) == state.view(0)
        assert replayed.view(1) == state.view(1)


def test_an_unfinished_record_in_the_pick_phase() -> None:
    state = play(State.from_deals([EXAMPLE_DEAL]), "S6 C46-47")
    replayed = Record.loads(state.record().dumps()).replay()
    assert replayed.phase.value == "pick"
    assert replayed.offer is not None and str(replayed.offer) == "C46-47"
    assert replayed.view(0) == state.view(0)


@pytest.mark.parametrize("reason", [Termination.FORFEIT, Termination.RESIGN])
def test_forfeit_and_resign_with_why_round_trip(reason: Termination) -> None:
    state = play(State.from_deals([DEAL_A]), "S1 S5 D22 D66 G334")
    over = state.concede(1, reason, why="seat 1: illegal move G999")
    record = over.record(("x", "y"))
    obj = record.to_json()
    assert obj["result"] == {
        "winner": 0,
        "reason": reason.value,
        "charm": [0, 0],
        "geisha": [0, 0],
        "markers": [None] * 7,
        "why": "seat 1: illegal move G999",
    }
    assert obj["rounds"][0]["moves"] == ["S1", "S5", "D22", "D66", "G334"]
    back = Record.loads(record.dumps())
    assert back == record
    replayed = back.replay()
    assert replayed.outcome == over.outcome
    assert replayed.outcome is not None and replayed.outcome.why == "seat 1: illegal move G999"
    assert replayed.history == over.history


def test_resign_without_why() -> None:
    over = State.from_deals([DEAL_A]).concede(0)
    obj = over.record().to_json()
    assert "why" not in obj["result"]
    replayed = Record.from_json(obj).replay()
    assert replayed.outcome == Outcome(1, Termination.RESIGN, (0, 0), (0, 0), (None,) * 7)


# --- reading liberally ----------------------------------------------------------------------------


def test_readers_accept_any_digit_order_in_hands_and_moves() -> None:
    obj = record_a()
    rnd = obj["rounds"][0]
    rnd["hands"] = ["433221", "766665"]
    rnd["moves"] = [
        " s1",
        "S5 ",
        "d22",
        "D66",
        "g433",
        "p4",
        "G766",
        "P6",
        "c55-44",
        "P55",
        "C77-77",
        "p77",
    ]
    record = Record.from_json(obj)
    state = record.replay()
    assert state.outcome == Outcome(1, Termination.ROUND_LIMIT, (7, 8), (3, 2), MARKERS_A)
    assert state.deal == DEAL_A
    # Replaying and writing again gives the canonical record.
    assert state.record(("alice", "bob")).to_json() == RECORD_A


def test_writers_write_canonical_forms_of_what_they_read() -> None:
    obj = record_a()
    obj["rounds"][0]["hands"] = ["433221", "766665"]
    obj["rounds"][0]["moves"][4] = "g433"
    obj["rounds"][0]["moves"][8] = "c55-44"
    assert Record.from_json(obj).to_json() == RECORD_A


def test_missing_rules_means_the_defaults() -> None:
    # Deal D three times (mirrored in round 2) is a 7-7 draw after round 3 under the default limit.
    rounds = [
        RoundRecord(DEAL_D, tuple(MOVES_D.split())).to_json(),
        RoundRecord(DEAL_D_SWAPPED, tuple(MOVES_D.split())).to_json(),
        RoundRecord(DEAL_D, tuple(MOVES_D.split())).to_json(),
    ]
    variants: list[dict[str, Any]] = [{}, {"rules": None}, {"rules": {}}]
    for rules in variants:
        obj: dict[str, Any] = {"format": FORMAT, "rounds": rounds, **rules}
        record = Record.from_json(obj)
        assert record.rules == Rules(max_rounds=3)
        state = record.replay()
        assert state.outcome == Outcome(None, Termination.DRAW, (7, 7), (2, 3), MARKERS_D)
    # With no limit the same moves leave the game going on into round 4.
    obj = {"format": FORMAT, "rules": {"max_rounds": None}, "rounds": rounds}
    state = Record.from_json(obj).replay()
    assert not state.is_over
    assert state.round == 4


def test_missing_or_null_result_is_computed() -> None:
    for how in ("missing", "null"):
        obj = record_a()
        if how == "missing":
            del obj["result"]
        else:
            obj["result"] = None
        record = Record.from_json(obj)
        assert record.result is None
        state = record.replay()
        assert state.outcome == Outcome(1, Termination.ROUND_LIMIT, (7, 8), (3, 2), MARKERS_A)
        assert state.record(("alice", "bob")).to_json() == RECORD_A


def test_missing_players_and_moves_take_defaults() -> None:
    obj = record_a()
    del obj["players"]
    del obj["result"]
    del obj["rounds"][0]["moves"]
    record = Record.from_json(obj)
    assert record.players == ("seat 0", "seat 1")
    assert record.rounds[0].moves == ()
    assert record.replay().hand(0) == "1223344"


def test_unknown_keys_are_ignored() -> None:
    obj = record_a()
    obj["event"] = "club night"
    obj["rules"]["clock_ms"] = 1000
    obj["rounds"][0]["comment"] = "a quiet round"
    obj["result"]["duration_s"] = 12.5
    state = Record.from_json(obj).replay()
    assert state.outcome is not None and state.outcome.winner == 1


def test_result_without_charm_and_geisha_uses_the_markers() -> None:
    obj = record_a()
    del obj["result"]["charm"]
    del obj["result"]["geisha"]
    assert Record.from_json(obj).replay().outcome == Outcome(
        1, Termination.ROUND_LIMIT, (7, 8), (3, 2), MARKERS_A
    )


def test_a_record_ending_after_a_rounds_last_move_is_unfinished() -> None:
    obj = record_a()
    obj["rules"] = {"max_rounds": 3}
    obj["result"] = None
    state = Record.from_json(obj).replay()
    assert not state.is_over
    assert state.outcome is None
    assert state.round == 2
    assert state.markers == MARKERS_A
    assert (state.first, state.to_move) == (1, 1)
    assert len(state.history) == 12


def test_a_result_on_a_record_ending_between_rounds_is_rejected() -> None:
    obj = record_a()
    obj["rules"] = {"max_rounds": 3}
    with pytest.raises(RecordError, match=r"^round 1, move 11: .*unfinished"):
        Record.from_json(obj).replay()


# --- rejecting ------------------------------------------------------------------------------------


def _set_move(index: int, text: object) -> Callable[[dict[str, Any]], None]:
    def change(obj: dict[str, Any]) -> None:
        obj["rounds"][0]["moves"][index] = text

    return change


def _set_result(key: str, value: object) -> Callable[[dict[str, Any]], None]:
    def change(obj: dict[str, Any]) -> None:
        obj["result"][key] = value

    return change


def _set(key: str, value: object) -> Callable[[dict[str, Any]], None]:
    def change(obj: dict[str, Any]) -> None:
        obj[key] = value

    return change


def _set_round(key: str, value: object) -> Callable[[dict[str, Any]], None]:
    def change(obj: dict[str, Any]) -> None:
        obj["rounds"][0][key] = value

    return change


def _del(*path: str | int) -> Callable[[dict[str, Any]], None]:
    def change(obj: dict[str, Any]) -> None:
        target: Any = obj
        for key in path[:-1]:
            target = target[key]
        del target[path[-1]]

    return change


def _append_move(text: str) -> Callable[[dict[str, Any]], None]:
    def change(obj: dict[str, Any]) -> None:
        obj["rounds"][0]["moves"].append(text)

    return change


def _append_round(obj: dict[str, Any]) -> None:
    obj["rounds"].append(RoundRecord(DEAL_D_SWAPPED, ("S1",)).to_json())


def _drop_last_move(obj: dict[str, Any]) -> None:
    obj["rounds"][0]["moves"].pop()


def _unfinished_round_then_another(obj: dict[str, Any]) -> None:
    obj["rules"] = {"max_rounds": 3}
    obj["result"] = None
    obj["rounds"][0]["moves"] = obj["rounds"][0]["moves"][:5]
    obj["rounds"].append(RoundRecord(DEAL_D_SWAPPED, ()).to_json())


def _extra_move_in_a_going_game(obj: dict[str, Any]) -> None:
    obj["rules"] = {"max_rounds": 3}
    obj["result"] = None
    obj["rounds"][0]["moves"].append("S1")


def _forfeit_after_the_end(obj: dict[str, Any]) -> None:
    obj["result"]["reason"] = "forfeit"


def _forfeit_without_winner(obj: dict[str, Any]) -> None:
    _drop_last_move(obj)
    obj["result"]["reason"] = "resign"
    obj["result"]["winner"] = None


# (mutation of RECORD_A, the start of the expected message)
BAD_RECORDS: dict[str, tuple[Callable[[dict[str, Any]], None], str]] = {
    "wrong-format": (_set("format", "hanamikoji-record/2"), "not a hanamikoji-record/1 record"),
    "format-null": (_set("format", None), "not a hanamikoji-record/1 record: no format tag"),
    "no-format": (_del("format"), "not a hanamikoji-record/1 record: no format tag"),
    "bad-rules": (_set("rules", {"max_rounds": 0}), "bad rules"),
    "rules-not-object": (_set("rules", [3]), "bad rules"),
    "players-one": (_set("players", ["alice"]), "players"),
    "players-not-strings": (_set("players", [1, 2]), "players"),
    "no-rounds": (_del("rounds"), "rounds"),
    "empty-rounds": (_set("rounds", []), "rounds"),
    "round-not-object": (_set("rounds", ["x"]), "round 1: "),
    "round-without-deck": (_del("rounds", 0, "deck"), 'round 1: .*"deck"'),
    "hands-not-two": (_set_round("hands", ["122334"]), "round 1: hands"),
    "not-21-cards": (_set_round("deck", "47475756"), "round 1: bad deal: .*21 cards"),
    "hand-short": (_set_round("hands", ["12233", "566667"]), "round 1: bad deal: hand 0"),
    "deck-long": (_set_round("deck", "474757574"), "round 1: bad deal: the deck"),
    "bad-digit": (_set_round("removed", "9"), "round 1: bad deal"),
    "moves-not-list": (_set_round("moves", "S1 S5"), "round 1: moves"),
    "move-not-string": (_set_move(1, 5), "round 1, move 1: "),
    "garbage-move": (_set_move(1, "X9"), "round 1, move 1: .*not a move"),
    "card-not-in-hand": (_set_move(3, "D22"), "round 1, move 3: .*does not hold"),
    "action-reused": (_set_move(2, "S2"), "round 1, move 2: .*already used its Secret"),
    "wrong-pick": (_set_move(5, "P7"), "round 1, move 5: .*not a choice"),
    "pick-without-offer": (_set_move(2, "P2"), "round 1, move 2: .*no offer"),
    "action-instead-of-pick": (_set_move(5, "S4"), "round 1, move 5: .*pick"),
    "result-not-object": (_set("result", "seat 1"), "result"),
    "result-bad-reason": (_set_result("reason", "knockout"), "result reason"),
    "result-bad-winner": (_set_result("winner", 2), "result winner"),
    "result-bad-markers": (_set_result("markers", [0] * 6), "result markers"),
    "result-bad-charm": (_set_result("charm", [7]), "result charm"),
    "wrong-winner": (_set_result("winner", 0), "round 1, move 11: the result's winner"),
    "wrong-draw": (_set_result("winner", None), "round 1, move 11: the result's winner"),
    "wrong-reason": (_set_result("reason", "charm"), "round 1, move 11: the result's reason"),
    "wrong-charm": (_set_result("charm", [8, 7]), "round 1, move 11: the result's charm"),
    "wrong-geisha": (_set_result("geisha", [2, 3]), "round 1, move 11: the result's geisha"),
    "wrong-markers": (
        _set_result("markers", [0, None, 0, 0, 1, 1, 1]),
        "round 1, move 11: the result's markers",
    ),
    "move-after-end": (_append_move("S1"), "round 1, move 12: .*after the end of the game"),
    "round-after-end": (_append_round, "round 2: the game already ended"),
    "result-but-unfinished": (_drop_last_move, "round 1, move 10: .*unfinished"),
    "forfeit-after-end": (_forfeit_after_the_end, "round 1, move 11: .*already ended"),
    "forfeit-without-winner": (_forfeit_without_winner, "round 1, move 10: .*winner"),
    "round-unfinished-then-next": (
        _unfinished_round_then_another,
        "round 1: round 1 is unfinished",
    ),
    "move-after-round-end": (
        _extra_move_in_a_going_game,
        "round 1, move 12: .*after the end of round 1",
    ),
}


@pytest.mark.parametrize("name", list(BAD_RECORDS))
def test_bad_records_are_rejected_with_round_and_move(name: str) -> None:
    change, message = BAD_RECORDS[name]
    obj = record_a()
    change(obj)
    text = json.dumps(obj)
    with pytest.raises(RecordError, match="^" + message) as info:
        Record.loads(text).replay()
    assert isinstance(info.value, ValueError)


def test_record_error_carries_round_and_index() -> None:
    obj = record_a()
    obj["rounds"][0]["moves"][3] = "D22"
    with pytest.raises(RecordError) as info:
        Record.from_json(obj).replay()
    assert (info.value.round, info.value.index) == (1, 3)
    assert str(info.value).startswith("round 1, move 3: D22 is illegal")
    assert "D22" in info.value.reason


def test_errors_in_a_later_round_name_that_round() -> None:
    state = play(State.from_deals([DEAL_A, DEAL_D_SWAPPED], rules=Rules(max_rounds=2)), MOVES_A)
    state = play(state, "S1 S2")
    obj = state.record().to_json()
    obj["rounds"][1]["moves"].append("S4")  # seat 1 used its Secret already
    with pytest.raises(RecordError, match=r"^round 2, move 2: S4 is illegal"):
        Record.from_json(obj).replay()


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "not valid JSON"),
        ("{", "not valid JSON"),
        ('{"format": "hanamikoji-record/1", "rounds": [', "not valid JSON"),
        ("null", "JSON object"),
        ("[]", "JSON object"),
        ('"record"', "JSON object"),
        ("42", "JSON object"),
    ],
)
def test_not_json_or_not_an_object(text: str, message: str) -> None:
    with pytest.raises(RecordError, match=message):
        Record.loads(text)


def test_binary_garbage_is_rejected() -> None:
    with pytest.raises(RecordError, match="not valid JSON"):
        Record.loads(b"\xff\xfe\x00\x81garbage\x00")
    with pytest.raises(RecordError, match="not valid JSON"):
        Record.loads(bytes(range(256)))


def test_reading_a_missing_file(tmp_path: Path) -> None:
    with pytest.raises(RecordError, match="cannot read"):
        Record.read(tmp_path / "nowhere.json")
    with pytest.raises(RecordError, match="cannot read"):
        Record.read(tmp_path)


def test_a_record_stopping_between_rounds_goes_on_into_an_unknown_deal() -> None:
    """A record that stops after a round's last move says nothing of the next deal: replayed,
    the next round is dealt at random (it was always the same fixed deal, known to anyone who
    read the code), or from the seed given."""
    state = State.new(5)
    while state.round == 1:
        state = state.apply(state.legal_moves[0])
    record = state.record()
    cut = Record(record.rules, record.players, record.rounds[:1], None)
    hands = {cut.replay().hand(0) + cut.replay().hand(1) for _ in range(8)}
    assert len(hands) > 1  # dealt afresh each time
    assert cut.replay(3).hand(0) == cut.replay(3).hand(0)  # a seed gives one deal
    assert cut.replay(random.Random(3)).hand(0) == cut.replay(3).hand(0)
