"""The engine protocol hanamikoji-engine/1 (interfaces.md §2), from both ends.

- ``serve``: a built-in agent served over text streams, in this process.
- ``hanamikoji engine NAME``: the same as a real subprocess, driven by the ``Engine`` client.
- ``Engine`` against a scripted fake transport (every message it sends, every failure it names).
- ``Engine.popen`` against tests/engines/broken_engine.py, which breaks the protocol on purpose.
"""

from __future__ import annotations

import io
import json
import os
import random
import subprocess
import sys
import time
from collections import deque
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import pytest

from hanamikoji import __version__
from hanamikoji.ai import make_agent
from hanamikoji.engine import (
    GRACE_MS,
    PROTOCOL,
    Engine,
    EngineError,
    FailureKind,
    ProcessTransport,
    serve,
)
from hanamikoji.moves import Move
from hanamikoji.state import Rules, State

BROKEN = Path(__file__).resolve().parent / "engines" / "broken_engine.py"
HELLO = json.dumps({"type": "hello", "protocol": PROTOCOL})
GAME = json.dumps({"type": "game", "seat": 0, "rules": {"max_rounds": 3}, "opponent": None})
QUIT = json.dumps({"type": "quit"})


def broken(mode: str) -> list[str]:
    """The command line of the broken engine in ``mode``."""
    return [sys.executable, str(BROKEN), mode]


def engine_cli(*args: str) -> list[str]:
    """The command line of ``hanamikoji engine ARGS``."""
    return [sys.executable, "-m", "hanamikoji.cli", "engine", *args]


def act_line(state: State, clock_ms: int = 100) -> str:
    """The ``act`` message a referee sends for ``state``'s decision."""
    seat = state.to_move
    assert seat is not None
    return json.dumps(
        {
            "type": "act",
            "view": state.view(seat).to_json(),
            "legal": [str(m) for m in state.legal_moves],
            "clock_ms": clock_ms,
        }
    )


def positions(seed: int, count: int) -> list[State]:
    """``count`` successive decisions of one random game (several games if needed)."""
    rng = random.Random(seed)
    out: list[State] = []
    state = State.new(rng)
    while len(out) < count:
        if state.to_move is None:
            state = State.new(rng)
        out.append(state)
        state = state.apply(rng.choice(state.legal_moves))
    return out


def run_serve(
    lines: Iterable[str], agent: str = "random", seed: int | None = 1, name: str | None = None
) -> tuple[int, list[str], list[str]]:
    """Serve ``agent`` on ``lines``: the exit status, the output lines and the stderr lines."""
    out, err = io.StringIO(), io.StringIO()
    rc = serve(
        make_agent(agent),
        seed=seed,
        name=name,
        stdin=io.StringIO("".join(line + "\n" for line in lines)),
        stdout=out,
        stderr=err,
    )
    return rc, out.getvalue().splitlines(), err.getvalue().splitlines()


# -- serve, in this process ------------------------------------------------------------------


def test_serve_answers_hello_with_name_and_version() -> None:
    rc, out, err = run_serve([HELLO])
    assert rc == 0
    assert err == []
    assert [json.loads(line) for line in out] == [
        {"type": "hello", "name": "random", "version": __version__}
    ]


def test_serve_hello_with_another_name() -> None:
    _, out, _ = run_serve([HELLO], agent="greedy", name="my-greedy")
    assert json.loads(out[0])["name"] == "my-greedy"


def test_serve_says_nothing_to_game_and_result() -> None:
    state = positions(3, 1)[0]
    result = json.dumps(
        {"type": "result", "view": state.view(0).to_json(), "winner": None, "reason": "draw"}
    )
    rc, out, err = run_serve([GAME, result, GAME])
    assert (rc, out, err) == (0, [], [])


@pytest.mark.parametrize("agent", ["random", "greedy"])
def test_serve_answers_act_with_a_legal_move(agent: str) -> None:
    states = positions(11, 30)
    rc, out, err = run_serve([GAME, *(act_line(s) for s in states)], agent=agent)
    assert rc == 0
    assert err == []
    assert len(out) == len(states)
    for state, line in zip(states, out, strict=True):
        msg = json.loads(line)
        assert set(msg) == {"type", "move"}
        assert msg["type"] == "move"
        assert Move.parse(msg["move"]) in state.legal_moves
        assert msg["move"] == str(Move.parse(msg["move"]))  # canonical


def test_serve_ignores_blank_lines() -> None:
    rc, out, err = run_serve(["", "   ", HELLO, "\t", ""])
    assert rc == 0
    assert err == []
    assert len(out) == 1


def _bad_lines() -> Iterator[tuple[str, str]]:
    state = positions(5, 1)[0]
    view = state.view(0).to_json()
    legal = [str(m) for m in state.legal_moves]
    yield "not JSON", "hello there"
    yield "truncated JSON", '{"type": "hello"'
    yield "a list", "[1, 2, 3]"
    yield "a string", '"hello"'
    yield "a number", "42"
    yield "unknown type", '{"type": "bogus"}'
    yield "no type", '{"protocol": "hanamikoji-engine/1"}'
    yield "act without a view", json.dumps({"type": "act", "legal": legal})
    yield (
        "act with a view that is not an object",
        json.dumps({"type": "act", "view": [1], "legal": legal}),
    )
    yield (
        "act with a view missing fields",
        json.dumps({"type": "act", "view": {"seat": 0}, "legal": legal}),
    )
    yield (
        "act with a bad hand",
        json.dumps({"type": "act", "view": {**view, "hand": "89x"}, "legal": legal}),
    )
    yield "act without legal", json.dumps({"type": "act", "view": view})
    yield "act with an empty legal list", json.dumps({"type": "act", "view": view, "legal": []})
    yield "act with legal not a list", json.dumps({"type": "act", "view": view, "legal": "S1"})
    yield "act with a number in legal", json.dumps({"type": "act", "view": view, "legal": [1]})
    yield (
        "act with bad notation in legal",
        json.dumps({"type": "act", "view": view, "legal": ["X9"]}),
    )
    # Past what Python reads: none may end the engine with an internal error.
    big = "9" * 5000  # over the 4,300 digits int() converts
    yield "a huge integer", big
    yield (
        "a huge integer as the clock",
        json.dumps({"type": "act", "view": view, "legal": legal})[:-1] + f', "clock_ms": {big}}}',
    )
    yield "a huge integer as the seat", '{"type": "game", "seat": ' + big + "}"
    yield "NaN", '{"type": "game", "seat": NaN}'
    yield (
        "Infinity in an act",
        json.dumps({"type": "act", "view": view, "legal": legal})[:-1] + ', "clock_ms": -Infinity}',
    )
    yield "deep nesting", "[" * 100_000 + "]" * 100_000
    yield "deep nesting in an act", '{"type": "act", "legal": ' + "[" * 900 + "]" * 900 + "}"
    yield "bytes that are not UTF-8", '{"type": "hello\udcff"}'  # as read by serve


BAD_LINES = list(_bad_lines())


@pytest.mark.parametrize("agent", ["random", "greedy"])
@pytest.mark.parametrize(("what", "line"), BAD_LINES, ids=[w for w, _ in BAD_LINES])
def test_serve_complains_once_about_a_malformed_line_and_goes_on(
    agent: str, what: str, line: str
) -> None:
    rc, out, err = run_serve([HELLO, line, HELLO], agent=agent)
    assert rc == 0
    assert len(err) == 1, err
    assert "line 2" in err[0]
    assert err[0].startswith(f"{agent}: ")
    assert [json.loads(o)["type"] for o in out] == ["hello", "hello"]


def _inconsistent_acts() -> Iterator[tuple[str, str]]:
    state = positions(1, 1)[0]  # an action decision: no pick is legal
    assert state.offer is None
    view = state.view(state.actor).to_json()
    yield "a pick while acting", json.dumps({"type": "act", "view": view, "legal": ["P1"]})
    missing = next(c for c in "1234567" if c not in view["hand"])
    yield (
        "a Secret of a card not in hand",
        json.dumps({"type": "act", "view": view, "legal": [f"S{missing}"]}),
    )


INCONSISTENT = list(_inconsistent_acts())


@pytest.mark.parametrize("agent", ["random", "greedy"])
@pytest.mark.parametrize(("what", "line"), INCONSISTENT, ids=[w for w, _ in INCONSISTENT])
def test_serve_survives_legal_moves_the_view_does_not_allow(
    agent: str, what: str, line: str
) -> None:
    """A legal list that doesn't fit the view: one complaint naming the referee's mistake (not
    the agent's exception), never a crash, and the engine goes on."""
    rc, out, err = run_serve([HELLO, line, HELLO], agent=agent)
    assert rc == 0
    legal = json.loads(line)["legal"]
    assert [json.loads(o)["type"] for o in out] == ["hello", "hello"]
    assert len(err) == 1, err
    assert f"'legal' does not fit the view: {legal[0]} cannot be played with hand" in err[0]
    assert "Error" not in err[0]  # no exception's name: the referee's mistake, said plainly


@pytest.mark.parametrize("agent", ["random", "greedy"])
def test_an_act_in_a_finished_game_is_named_and_ignored(agent: str) -> None:
    """A view whose phase is "over" but whose hand and offer still allow moves was answered
    (the tester's greedy played P6): now one line names it, as for other inconsistent acts."""
    state = positions(1, 1)[0]
    view = {**state.view(state.actor).to_json(), "phase": "over"}
    line = json.dumps({"type": "act", "view": view, "legal": [str(state.legal_moves[0])]})
    rc, out, err = run_serve([HELLO, line, HELLO], agent=agent)
    assert rc == 0 and [json.loads(o)["type"] for o in out] == ["hello", "hello"]
    assert len(err) == 1, err
    assert "line 2" in err[0] and "the view says the game is over (phase 'over')" in err[0]


def test_a_view_of_another_seats_decision_is_named() -> None:
    state = positions(1, 1)[0]
    view = state.view(1 - state.actor).to_json()  # the other seat's view: not its decision
    line = json.dumps({"type": "act", "view": view, "legal": [str(state.legal_moves[0])]})
    rc, out, err = run_serve([HELLO, line, HELLO])
    assert rc == 0 and [json.loads(o)["type"] for o in out] == ["hello", "hello"]
    assert len(err) == 1, err
    assert f"the view says it is not seat {view['seat']}'s decision" in err[0]


def test_serve_stops_at_quit() -> None:
    rc, out, err = run_serve([HELLO, QUIT, HELLO, "garbage"])
    assert rc == 0
    assert len(out) == 1
    assert err == []


def test_serve_stops_at_end_of_input() -> None:
    assert run_serve([]) == (0, [], [])
    assert run_serve([HELLO])[0] == 0


def test_serve_same_seed_same_moves() -> None:
    states = positions(21, 40)
    lines = [GAME, *(act_line(s) for s in states)]
    for agent in ("random", "greedy"):
        first = run_serve(lines, agent=agent, seed=7)
        assert run_serve(lines, agent=agent, seed=7) == first
    assert run_serve(lines, seed=7) != run_serve(lines, seed=8)


def test_serve_each_game_has_its_own_random_numbers() -> None:
    """A game's moves depend on the seed and the game's number, not on what came before."""
    states = positions(4, 15)
    acts = [act_line(s) for s in states]
    _, after_other, _ = run_serve([GAME, *acts[:5], GAME, *acts], seed=3)
    _, second_game, _ = run_serve([GAME, GAME, *acts], seed=3)
    assert after_other[5:] == second_game


def test_serve_writes_only_answers() -> None:
    states = positions(8, 20)
    lines: list[str] = [HELLO, GAME]
    for state in states:
        lines += ["", act_line(state), "noise", '{"type": "bogus"}']
    lines += [QUIT]
    _, out, err = run_serve(lines, agent="greedy")
    assert len(out) == 1 + len(states)
    for line in out:
        msg = json.loads(line)
        assert isinstance(msg, dict)
        assert msg["type"] in ("hello", "move")
    assert len(err) == 2 * len(states)


# -- hanamikoji engine NAME, a real subprocess ----------------------------------------------


def play_against(engine: Engine, engine_seat: int, seed: int) -> State:
    """One game: ``engine`` in ``engine_seat``, the random agent in the other seat."""
    rng = random.Random(seed)
    agent = make_agent("random")
    state = State.new(random.Random(seed))
    engine.new_game(engine_seat, state.rules, "random")
    while state.to_move is not None:
        seat = state.to_move
        if seat == engine_seat:
            answer = engine.act(state.view(seat), state.legal_moves, clock_ms=200)
            assert answer.move in state.legal_moves
            assert answer.elapsed_ms >= 0
            move = answer.move
        else:
            move = agent.choose(state.view(seat), state.legal_moves, rng, 200)
        state = state.apply(move)
    outcome = state.outcome
    assert outcome is not None
    engine.result(state.view(engine_seat), outcome.winner, outcome.reason.value)
    return state


def test_engine_subcommand_plays_whole_games() -> None:
    engine = Engine.popen(engine_cli("greedy", "--seed", "1"))
    transport = engine.transport
    assert isinstance(transport, ProcessTransport)
    proc = transport._proc
    try:
        assert engine.name == "greedy"
        assert engine.version == __version__
        for game, seat in enumerate((0, 1, 0)):
            final = play_against(engine, seat, seed=game)
            assert final.is_over
        engine.quit()
        assert proc.wait(timeout=10) == 0
    finally:
        engine.close()
    assert proc.poll() == 0
    assert transport.stderr_tail == []


def test_engine_subcommand_is_reproducible_with_a_seed() -> None:
    def moves() -> list[str]:
        with Engine.popen(engine_cli("random", "--seed", "9")) as engine:
            final = play_against(engine, 1, seed=4)
        return [str(p.move) for p in final.history]

    assert moves() == moves()


def test_engine_subcommand_accepts_an_agent_option() -> None:
    with Engine.popen(engine_cli("greedy", "--option", "hand_weight=0.3")) as engine:
        assert engine.name == "greedy"
        assert play_against(engine, 0, seed=2).is_over


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["greedy", "--option", "nope=1"], "nope"),
        (["greedy", "--option", "hand_weight=heavy"], "hand_weight"),
        (["greedy", "--option", "novalue"], "KEY=VALUE"),
        (["greedy:hand_weight=0.3", "--option", "nope=1"], "nope"),
        (["level:hard", "--option", "iterations=5"], "no options"),
        (["level:grandmaster"], "grandmaster"),
        (["stockfish"], "stockfish"),
    ],
)
def test_engine_subcommand_rejects_bad_arguments(args: list[str], says: str) -> None:
    done = subprocess.run(
        engine_cli(*args), input=HELLO + "\n", capture_output=True, text=True, timeout=30
    )
    assert done.returncode == 2
    assert done.stdout == ""
    lines = done.stderr.splitlines()
    assert 1 <= len(lines) <= 2, done.stderr
    assert all(line.startswith("hanamikoji engine: ") for line in lines)
    assert says in lines[0]
    assert "Traceback" not in done.stderr


def test_engine_subcommand_names_an_unknown_agent_then_what_name_may_be() -> None:
    """The error on one line and the help on the next, not run together on one line."""
    done = subprocess.run(engine_cli("stockfish"), capture_output=True, text=True, timeout=30)
    assert done.returncode == 2
    error, names = done.stderr.splitlines()
    assert error == "hanamikoji engine: unknown agent 'stockfish'"
    assert names.startswith(
        "hanamikoji engine: NAME is an agent (greedy, ismcts, master, master-1, net, random)"
    )
    assert "level:NAME (beginner, easy, medium, hard, master)" in names


@pytest.mark.parametrize(
    ("spec", "name"),
    [("level:hard", "hard"), ("level:Beginner", "beginner"), ("greedy:hand_weight=0.3", "greedy")],
)
def test_engine_subcommand_takes_players_as_match_does(spec: str, name: str) -> None:
    with Engine.popen(engine_cli(spec, "--seed", "1"), handshake_timeout=120) as engine:
        assert engine.name == name
        assert play_against(engine, 1, seed=3).is_over


def test_engine_subcommand_survives_hostile_input() -> None:
    """Bytes that are not UTF-8, a huge integer, NaN, deep nesting: a complaint each, no crash."""
    state = positions(2, 1)[0]
    bad = [
        b"\xff\xfe{not utf-8}",
        b'{"type": "hello", "x": "\xc3\x28"}',
        b"1" * 5000,
        b'{"type": "act", "clock_ms": ' + b"7" * 4400 + b"}",
        b'{"type": "game", "seat": NaN}',
        b"[" * 50_000,
    ]
    lines = [HELLO.encode(), *bad, act_line(state).encode(), QUIT.encode()]
    done = subprocess.run(
        engine_cli("greedy"), input=b"\n".join(lines) + b"\n", capture_output=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    answers = [json.loads(line) for line in done.stdout.splitlines()]
    assert [a["type"] for a in answers] == ["hello", "move"]
    complaints = done.stderr.decode("ascii").splitlines()  # escaped: plain ASCII
    assert len(complaints) == len(bad), complaints
    for number, complaint in enumerate(complaints, start=2):
        assert complaint.startswith(f"greedy: line {number}: ")
    assert "internal error" not in done.stderr.decode()


# -- Engine, against a scripted transport ----------------------------------------------------

Reply = str | None
"""A line the fake engine writes; None ends its output."""


class FakeTransport:
    """A scripted engine: each message sent is checked and answered with the scripted lines.

    ``script`` holds, for each message the client sends, its expected ``type`` and the lines the
    engine writes in answer (None: the output ends there). Lines are available from the moment
    their message is sent; with none available, ``receive`` times out at once.
    """

    def __init__(
        self,
        script: Iterable[tuple[str, list[Reply]]],
        *,
        failure: EngineError | None = None,
        dead: bool = False,
    ) -> None:
        self.script = deque(script)
        self.sent: list[dict[str, Any]] = []
        self.raw: list[str] = []
        self.pending: deque[Reply] = deque()
        self.timeouts: list[float | None] = []
        self.closed = False
        self.dead = dead
        self._failure = failure or EngineError(FailureKind.EXIT, "exited (status 0)")

    def send(self, line: str) -> None:
        if self.dead:
            raise self.failure()
        assert "\n" not in line
        self.raw.append(line)
        msg = json.loads(line)
        self.sent.append(msg)
        if self.script:
            expected, replies = self.script.popleft()
            assert msg["type"] == expected, (msg, expected)
            self.pending.extend(replies)

    def receive(self, timeout: float | None) -> str | None:
        self.timeouts.append(timeout)
        if not self.pending:
            raise TimeoutError
        if self.pending[0] is None:
            return None  # the end of output stays the end
        return self.pending.popleft()

    def failure(self) -> EngineError:
        return self._failure

    def close(self) -> None:
        self.closed = True


def hello_reply(name: str = "fake", version: str = "1.2") -> str:
    return json.dumps({"type": "hello", "name": name, "version": version})


def move_reply(move: str, **extra: Any) -> str:
    return json.dumps({"type": "move", "move": move, **extra})


START = positions(13, 1)[0]
VIEW = START.view(START.actor)
LEGAL = START.legal_moves
NOT_LEGAL = "P1"  # a well-formed move, but no pick is legal in an action decision
assert START.offer is None and Move.parse(NOT_LEGAL) not in LEGAL


def fake_engine(*script: tuple[str, list[Reply]], **kwargs: Any) -> tuple[Engine, FakeTransport]:
    transport = FakeTransport([("hello", [hello_reply()]), *script], **kwargs)
    return Engine(transport), transport


def test_handshake_reads_name_and_version() -> None:
    engine, transport = fake_engine()
    assert (engine.name, engine.version) == ("fake", "1.2")
    assert transport.raw[0] == HELLO
    assert transport.sent == [{"type": "hello", "protocol": "hanamikoji-engine/1"}]


@pytest.mark.parametrize(
    ("reply", "name", "version"),
    [
        ('{"type": "hello"}', "?", "?"),
        ('{"type": "hello", "name": "", "version": 3}', "?", "?"),
        ('{"type": "hello", "name": "x", "version": "2", "author": "me", "options": {}}', "x", "2"),
    ],
)
def test_handshake_tolerates_missing_and_unknown_keys(reply: str, name: str, version: str) -> None:
    engine = Engine(FakeTransport([("hello", ["", reply])]))
    assert (engine.name, engine.version) == (name, version)


@pytest.mark.parametrize(
    "replies",
    [[], ["not json"], ['{"type": "move", "move": "S1"}'], ["[1]"], [None]],
    ids=["silence", "garbage", "wrong type", "not an object", "exit"],
)
def test_a_failed_handshake_is_a_start_failure(replies: list[Reply]) -> None:
    with pytest.raises(EngineError) as info:
        Engine(FakeTransport([("hello", replies)]), handshake_timeout=0.05)
    assert info.value.kind == FailureKind.START
    assert "no hello" in str(info.value)


def test_an_engine_gone_before_the_handshake_is_a_start_failure() -> None:
    """Sending hello to an engine that already died is a failure to start, like no answer."""
    gone = EngineError(FailureKind.CRASH, "crashed (exit status 1)")
    with pytest.raises(EngineError) as info:
        Engine(FakeTransport([], failure=gone, dead=True))
    assert info.value.kind == FailureKind.START


def test_messages_sent_are_exactly_the_protocol() -> None:
    final = positions(2, 1)[0]
    while final.to_move is not None:
        final = final.apply(final.legal_moves[0])
    outcome = final.outcome
    assert outcome is not None
    engine, transport = fake_engine(
        ("game", []),
        ("act", [move_reply(str(LEGAL[0]))]),
        ("result", []),
        ("game", []),
        ("quit", []),
    )
    engine.new_game(1, Rules(), "bob")
    engine.act(VIEW, LEGAL, clock_ms=250)
    engine.result(final.view(1), outcome.winner, outcome.reason.value)
    engine.new_game(0, Rules(max_rounds=None), None)
    engine.quit()
    assert transport.sent == [
        {"type": "hello", "protocol": "hanamikoji-engine/1"},
        {"type": "game", "seat": 1, "rules": {"max_rounds": 3}, "opponent": "bob"},
        {
            "type": "act",
            "view": VIEW.to_json(),
            "legal": [str(m) for m in LEGAL],
            "clock_ms": 250,
        },
        {
            "type": "result",
            "view": final.view(1).to_json(),
            "winner": outcome.winner,
            "reason": outcome.reason.value,
        },
        {"type": "game", "seat": 0, "rules": {"max_rounds": None}, "opponent": None},
        {"type": "quit"},
    ]
    assert json.loads(transport.raw[1]) == json.loads(
        '{"type": "game", "seat": 1, "rules": {"max_rounds": 3}, "opponent": "bob"}'
    )
    act = transport.sent[2]
    assert list(act["view"]) == [
        "seat", "round", "first", "to_move", "phase", "markers", "charm", "hand", "secret",
        "discard", "played", "actions_left", "offer", "opponent_hand", "deck", "history",
    ]  # fmt: skip
    assert transport.sent[3]["view"]["phase"] == "over"
    assert not transport.closed
    engine.close()
    assert transport.closed


def test_result_of_a_draw_sends_winner_null() -> None:
    engine, transport = fake_engine(("result", []))
    engine.result(VIEW, None, "draw")
    assert '"winner": null' in transport.raw[-1]


def test_act_returns_the_move_and_its_info() -> None:
    move = LEGAL[-1]
    engine, _ = fake_engine(("act", [move_reply(str(move), info={"eval": 0.25, "pv": ["P1"]})]))
    answer = engine.act(VIEW, LEGAL, clock_ms=100)
    assert answer.move == move
    assert answer.info == {"eval": 0.25, "pv": ["P1"]}
    assert answer.elapsed_ms >= 0


def test_act_reads_moves_liberally() -> None:
    gift = next(m for m in LEGAL if str(m).startswith("G"))
    liberal = " g" + str(gift)[1:][::-1] + "\t"  # spaces around it, lower case, any order
    engine, _ = fake_engine(("act", [move_reply(liberal)]))
    assert engine.act(VIEW, LEGAL, clock_ms=100).move == gift


def test_act_ignores_info_that_is_not_an_object_and_unknown_keys() -> None:
    engine, _ = fake_engine(("act", [move_reply(str(LEGAL[0]), info="fast", depth=3)]))
    answer = engine.act(VIEW, LEGAL, clock_ms=100)
    assert answer.move == LEGAL[0]
    assert answer.info == {}


def test_act_skips_blank_lines() -> None:
    engine, _ = fake_engine(("act", ["", "   ", move_reply(str(LEGAL[1]))]))
    assert engine.act(VIEW, LEGAL, clock_ms=100).move == LEGAL[1]


def test_blank_lines_after_game_are_not_a_protocol_error() -> None:
    engine, _ = fake_engine(("game", ["", " "]), ("act", [move_reply(str(LEGAL[0]))]))
    engine.new_game(0, Rules(), None)
    assert engine.act(VIEW, LEGAL, clock_ms=100).move == LEGAL[0]


def test_act_waits_clock_plus_grace_or_the_hard_limit() -> None:
    engine, transport = fake_engine(("act", [move_reply(str(LEGAL[0]))]))
    engine.act(VIEW, LEGAL, clock_ms=500)
    waited = transport.timeouts[-1]
    assert waited is not None
    assert (500 + GRACE_MS) / 1000 - 0.1 < waited <= (500 + GRACE_MS) / 1000
    engine, transport = fake_engine(("act", [move_reply(str(LEGAL[0]))]))
    engine.act(VIEW, LEGAL, clock_ms=500, hard_limit_ms=300)
    waited = transport.timeouts[-1]
    assert waited is not None
    assert 0.2 < waited <= 0.3


@pytest.mark.parametrize(
    ("reply", "says"),
    [
        ("this is not JSON", "not JSON"),
        ("[1, 2]", "not a JSON object"),
        ('"S1"', "not a JSON object"),
        ('{"type": "hello", "name": "x"}', "expected a 'move' message"),
        ('{"move": "S1"}', "expected a 'move' message"),
        ('{"type": "move"}', "without a move"),
        ('{"type": "move", "move": 17}', "without a move"),
        ('{"type": "move", "move": "X9"}', "not a move"),
        ('{"type": "move", "move": "G12"}', "not a move"),
        ('{"type": "move", "move": ""}', "not a move"),
        # interfaces.md §1 allows spaces around a move, not inside it
        ('{"type": "move", "move": "s 1"}', "not a move: 's 1' (no spaces inside a move)"),
        ('{"type": "move", "move": " S1 D"}', "(no spaces inside a move)"),
        # .NET's Console writes one first by default: say so, not just "not JSON"
        ('\ufeff{"type": "move", "move": "S1"}', "starts with a byte order mark (U+FEFF)"),
    ],
)
def test_act_names_garbage(reply: str, says: str) -> None:
    engine, _ = fake_engine(("act", [reply]))
    with pytest.raises(EngineError) as info:
        engine.act(VIEW, LEGAL, clock_ms=100)
    assert info.value.kind == FailureKind.GARBAGE
    assert says in str(info.value)


def test_act_names_an_illegal_move() -> None:
    engine, _ = fake_engine(("act", [move_reply(NOT_LEGAL.lower())]))
    with pytest.raises(EngineError) as info:
        engine.act(VIEW, LEGAL, clock_ms=100)
    assert info.value.kind == FailureKind.ILLEGAL
    assert str(info.value) == f"illegal move {NOT_LEGAL}"


def test_act_names_a_timeout() -> None:
    engine, _ = fake_engine(("act", []))
    with pytest.raises(EngineError) as info:
        engine.act(VIEW, LEGAL, clock_ms=100, hard_limit_ms=300)
    assert info.value.kind == FailureKind.TIMEOUT
    assert "300 ms" in str(info.value)


@pytest.mark.parametrize("kind", [FailureKind.EXIT, FailureKind.CRASH])
def test_act_reports_the_transports_failure_at_end_of_output(kind: str) -> None:
    gone = EngineError(kind, "it went away")
    engine, _ = fake_engine(("act", [None]), failure=gone)
    with pytest.raises(EngineError) as info:
        engine.act(VIEW, LEGAL, clock_ms=100)
    assert info.value is gone


def test_a_line_after_game_is_garbage_at_the_next_act() -> None:
    engine, _ = fake_engine(
        ("game", ['{"type": "note", "text": "hi"}']), ("act", [move_reply(str(LEGAL[0]))])
    )
    engine.new_game(0, Rules(), None)
    with pytest.raises(EngineError) as info:
        engine.act(VIEW, LEGAL, clock_ms=100)
    assert info.value.kind == FailureKind.GARBAGE
    assert "when no answer was due" in str(info.value)


def test_a_line_after_result_is_garbage_at_the_next_act() -> None:
    engine, _ = fake_engine(
        ("result", [move_reply("S1")]), ("game", []), ("act", [move_reply(str(LEGAL[0]))])
    )
    engine.result(VIEW, 0, "charm")
    engine.new_game(1, Rules(), None)
    with pytest.raises(EngineError) as info:
        engine.act(VIEW, LEGAL, clock_ms=100)
    assert info.value.kind == FailureKind.GARBAGE


def test_an_engine_that_ended_between_games_fails_at_the_next_act() -> None:
    engine, _ = fake_engine(("game", [None]))
    engine.new_game(0, Rules(), None)
    with pytest.raises(EngineError) as info:
        engine.act(VIEW, LEGAL, clock_ms=100)
    assert info.value.kind == FailureKind.EXIT


def test_quit_tolerates_an_engine_that_is_gone() -> None:
    engine, transport = fake_engine()
    transport.dead = True
    engine.quit()  # no error
    with pytest.raises(EngineError):
        engine.new_game(0, Rules(), None)


def test_engine_as_context_manager_closes() -> None:
    transport = FakeTransport([("hello", [hello_reply()])])
    with Engine(transport) as engine:
        assert engine.name == "fake"
    assert transport.closed


# -- Engine.popen against broken engines -----------------------------------------------------


def first_act(mode: str, *, hard_limit_ms: int | None = None, settle: float = 0.0) -> EngineError:
    """Start the broken engine in ``mode``, ask for a move; the error, once the process is gone."""
    engine = Engine.popen(broken(mode))
    transport = engine.transport
    assert isinstance(transport, ProcessTransport)
    proc = transport._proc
    try:
        assert engine.name == f"broken-{mode}"
        engine.new_game(0, Rules(), "referee")
        time.sleep(settle)
        with pytest.raises(EngineError) as info:
            engine.act(VIEW, LEGAL, clock_ms=100, hard_limit_ms=hard_limit_ms)
    finally:
        engine.close()
    assert_gone(proc)
    return info.value


def assert_gone(proc: subprocess.Popen[bytes]) -> None:
    """The process has ended and been reaped: no zombie, nothing left in its process group."""
    assert proc.poll() is not None
    with pytest.raises(ProcessLookupError):
        os.kill(proc.pid, 0)
    with pytest.raises(ProcessLookupError):
        os.killpg(proc.pid, 0)


def test_a_crash_names_the_status_and_the_stderr_tail() -> None:
    error = first_act("crash")
    assert error.kind == FailureKind.CRASH
    assert "exit status 3" in str(error)
    assert "something went terribly wrong" in str(error)


def test_an_exit_is_named() -> None:
    error = first_act("exit")
    assert error.kind == FailureKind.EXIT
    assert "status 0" in str(error)


@pytest.mark.parametrize(
    ("mode", "kind", "says"),
    [
        ("garbage", FailureKind.GARBAGE, "not JSON: 'this is not JSON'"),
        ("wrongtype", FailureKind.GARBAGE, "expected a 'move' message"),
        ("illegal", FailureKind.ILLEGAL, "illegal move"),
    ],
)
def test_bad_answers_are_named(mode: str, kind: str, says: str) -> None:
    error = first_act(mode)
    assert error.kind == kind
    assert says in str(error)


def test_a_line_after_game_is_named() -> None:
    error = first_act("chatty", settle=0.3)
    assert error.kind == FailureKind.GARBAGE
    assert "when no answer was due" in str(error)


def test_a_silent_engine_times_out_at_the_hard_limit() -> None:
    start = time.monotonic()
    error = first_act("sleep", hard_limit_ms=300)
    took = time.monotonic() - start
    assert error.kind == FailureKind.TIMEOUT
    assert "300 ms" in str(error)
    assert took < 3.0  # startup, the 300 ms, and close's short wait for quit


def test_the_timeout_comes_at_the_hard_limit() -> None:
    with Engine.popen(broken("sleep")) as engine:
        start = time.monotonic()
        with pytest.raises(EngineError):
            engine.act(VIEW, LEGAL, clock_ms=100, hard_limit_ms=300)
        took = time.monotonic() - start
    assert 0.29 <= took < 1.0


def test_a_good_engine_plays_a_game_and_quits() -> None:
    engine = Engine.popen(broken("good"))
    transport = engine.transport
    assert isinstance(transport, ProcessTransport)
    try:
        assert play_against(engine, 1, seed=6).is_over
        engine.quit()
        assert transport._proc.wait(timeout=5) == 0
    finally:
        engine.close()
    assert_gone(transport._proc)


def test_stderr_is_free_for_logs() -> None:
    engine = Engine.popen(broken("noisy-stderr"))
    transport = engine.transport
    assert isinstance(transport, ProcessTransport)
    try:
        assert play_against(engine, 0, seed=1).is_over
        tail = transport.stderr_tail
        assert 0 < len(tail) <= 20
        assert all(line.startswith("broken_engine: thinking hard") for line in tail)
    finally:
        engine.close()
    assert_gone(transport._proc)


def test_a_command_that_does_not_exist_fails_to_start() -> None:
    with pytest.raises(EngineError) as info:
        Engine.popen(["/nonexistent/engine-binary", "--fast"])
    assert info.value.kind == FailureKind.START
    assert "/nonexistent/engine-binary" in str(info.value)


def test_an_empty_command_fails_to_start() -> None:
    with pytest.raises(EngineError) as info:
        Engine.popen("   ")
    assert info.value.kind == FailureKind.START


def test_a_string_command_is_split_like_a_shell() -> None:
    command = f"'{sys.executable}' '{BROKEN}' good"
    with Engine.popen(command) as engine:
        assert engine.name == "broken-good"


def test_an_engine_that_never_says_hello_fails_to_start() -> None:
    with pytest.raises(EngineError) as info:
        Engine.popen(broken("nohello"), handshake_timeout=5)
    assert info.value.kind == FailureKind.START
    assert "no hello" in str(info.value)


def test_a_silent_handshake_times_out_as_a_start_failure() -> None:
    start = time.monotonic()
    with pytest.raises(EngineError) as info:
        Engine.popen([sys.executable, "-c", "import time; time.sleep(60)"], handshake_timeout=0.3)
    assert info.value.kind == FailureKind.START
    assert time.monotonic() - start < 3.0


def test_close_stops_an_engine_that_ignores_quit() -> None:
    engine = Engine.popen(broken("sleep"))
    transport = engine.transport
    assert isinstance(transport, ProcessTransport)
    engine.new_game(0, Rules(), None)
    engine.transport.send(act_line(START))  # now it sleeps and reads nothing
    start = time.monotonic()
    engine.close()
    assert time.monotonic() - start < 2.0
    assert_gone(transport._proc)
    engine.close()  # twice is fine


def test_the_engine_drops_a_line_over_the_limit_without_holding_it() -> None:
    from hanamikoji.engine import LINE_LIMIT

    huge = "a" * (3 * LINE_LIMIT + 5)
    err = io.StringIO()
    out = io.StringIO()
    serve(
        make_agent("random"),
        stdin=io.StringIO(huge + '\n{"type": "hello"}\n'),
        stdout=out,
        stderr=err,
    )
    assert f"a line over {LINE_LIMIT} characters, ignored" in err.getvalue()
    assert '"type": "hello"' in out.getvalue()  # and the engine reads on


def test_a_referee_message_out_of_range_is_named_and_play_goes_on() -> None:
    """Another protocol's hello is answered with a complaint; a seat that is none is named."""
    other = json.dumps({"type": "hello", "protocol": "hanamikoji-engine/99"})
    bad_seat = json.dumps({"type": "game", "seat": 5, "rules": {"max_rounds": 3}})
    rc, out, err = run_serve([other, bad_seat, HELLO])
    assert rc == 0 and [json.loads(o)["type"] for o in out] == ["hello", "hello"]
    assert len(err) == 2, err
    assert "hello for protocol 'hanamikoji-engine/99'; this is hanamikoji-engine/1" in err[0]
    assert "line 2" in err[1] and "game seat must be 0 or 1, got 5" in err[1]


def _odd_clocks() -> Iterator[tuple[str, str, str]]:
    """(what, the clock_ms as JSON, what the complaint says)."""
    bad = "clock_ms must be a number of milliseconds, 0 or more, got"
    yield "negative", "-5", f"{bad} -5; the agent's default is used"
    yield "a string", '"500"', f'{bad} "500";'
    yield "true", "true", f"{bad} true;"
    yield "a list", "[500]", f"{bad} a JSON array;"
    long = "is over an hour; the agent aims at 3,600,000 ms"
    yield "days", "100000000000", f"clock_ms 100000000000 {long}"
    yield "1e400 (inf)", "1e400", f"clock_ms Infinity {long}"
    yield "400 digits", "9" * 400, f"clock_ms {'9' * 40} {long}"


ODD_CLOCKS = list(_odd_clocks())


@pytest.mark.parametrize(("what", "clock", "said"), ODD_CLOCKS, ids=[w for w, _, _ in ODD_CLOCKS])
def test_an_odd_clock_is_named_and_the_act_still_answered(what: str, clock: str, said: str) -> None:
    """A referee's odd clock_ms (negative, not a number, days long) gets one complaint that says
    what was expected, and a move all the same: ignoring the act would forfeit the engine."""
    state = positions(5, 1)[0]
    act = {"type": "act", "view": state.view(state.actor).to_json()}
    act["legal"] = [str(m) for m in state.legal_moves]
    line = json.dumps(act)[:-1] + f', "clock_ms": {clock}}}'
    rc, out, err = run_serve([HELLO, line])
    assert rc == 0
    assert len(err) == 1 and said in err[0], err
    assert "line 2" in err[0] and "Error" not in err[0]
    assert [json.loads(o)["type"] for o in out] == ["hello", "move"]


def test_a_served_agent_is_given_the_clock_it_was_sent_or_the_cap(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A number of milliseconds reaches the agent whole (a float rounded); past an hour, an hour
    (a master told 10**11 ms would search for days); none, or a bad one, the agent's default."""
    from hanamikoji.ai.random_agent import RandomAgent

    seen: list[int | None] = []
    real = RandomAgent.choose

    def spy(self: RandomAgent, view: Any, legal: Any, rng: Any, clock_ms: Any = None) -> Any:
        seen.append(clock_ms)
        return real(self, view, legal, rng, clock_ms)

    monkeypatch.setattr(RandomAgent, "choose", spy)
    state = positions(5, 1)[0]
    act = {"type": "act", "view": state.view(state.actor).to_json()}
    act["legal"] = [str(m) for m in state.legal_moves]
    lines = [HELLO]
    for clock in ("250", "499.6", "0", "100000000000", "-1", None):
        text = json.dumps(act)
        lines.append(text if clock is None else text[:-1] + f', "clock_ms": {clock}}}')
    rc, out, _ = run_serve(lines)
    assert rc == 0 and len(out) == 7
    assert seen == [250, 500, 0, 3_600_000, None, None]
