"""Hints and game review: from each decider's view, deterministic, and on the command line."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

from rich.console import Console

from hanamikoji.ai.analysis import review, suggest
from hanamikoji.play import play_game
from hanamikoji.record import Record
from hanamikoji.state import Rules, State


def finished_record(seed: int) -> Record:
    state = State.new(seed, rules=Rules(1))
    while not state.is_over:
        state = state.apply(state.legal_moves[len(state.legal_moves) // 2])
    return state.record(("alice", "bob"))


def test_a_hint_is_a_legal_move_with_a_probability_and_is_deterministic() -> None:
    state = State.new(4)
    view = state.view(0)
    a = suggest(view, iterations=200, seed=7)
    b = suggest(view, iterations=200, seed=7)
    assert a == b
    assert a.move in state.legal_moves
    assert 0.0 <= a.win_probability <= 1.0
    assert all(m in state.legal_moves for m, _ in a.alternatives)


def test_a_review_judges_every_decision_of_the_seat_asked() -> None:
    record = finished_record(5)
    reviews = list(review(record, seat=1, iterations=60))
    plies = record.replay().history
    assert len(reviews) == sum(1 for p in plies if p.seat == 1)
    assert [r.played for r in reviews] == [p.move for p in plies if p.seat == 1]
    for r in reviews:
        assert r.seat == 1
        assert 0.0 <= r.loss <= 1.0
        assert r.loss == 0.0 or r.best is not r.played
    everyone = list(review(record, iterations=40))
    assert len(everyone) == len(plies)


def test_analyze_on_the_command_line(tmp_path: Path) -> None:
    path = tmp_path / "game.json"
    finished_record(6).write(path)
    cli = [sys.executable, "-m", "hanamikoji.cli", "analyze", str(path), "--iterations", "40"]
    out = subprocess.run([*cli, "--seat", "0"], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines and all(line.startswith("round 1 move") and "alice" in line for line in lines)
    out = subprocess.run([*cli, "--json"], capture_output=True, text=True, timeout=120)
    rows = [json.loads(line) for line in out.stdout.splitlines()]
    assert {"round", "index", "seat", "played", "best", "win_probability", "loss"} <= set(rows[0])
    bad = tmp_path / "bad.json"
    bad.write_text("{")
    out = subprocess.run(
        [sys.executable, "-m", "hanamikoji.cli", "analyze", str(bad)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 2
    assert "Traceback" not in out.stderr and len(out.stderr.splitlines()) == 1


def test_hints_in_the_terminal_game() -> None:
    screen = io.StringIO()
    console = Console(file=screen, force_terminal=False, width=120)
    code = play_game(
        opponent="random",
        seed=3,
        seat=0,
        hints=True,
        input=io.StringIO("hint\nq\n"),
        console=console,
    )
    assert code == 0
    assert "Hint: " in screen.getvalue()
    assert "chance of winning about" in screen.getvalue()
    screen = io.StringIO()
    console = Console(file=screen, force_terminal=False, width=120)
    play_game(opponent="random", seed=3, seat=0, input=io.StringIO("hint\nq\n"), console=console)
    assert "Hints are off" in screen.getvalue()


def test_play_accepts_every_level_and_refuses_an_unknown_one() -> None:
    for level in ("beginner", "master"):
        out = subprocess.run(
            [
                sys.executable,
                "-m",
                "hanamikoji.cli",
                "play",
                "--level",
                level,
                "--seed",
                "1",
                "--seat",
                "1",
            ],
            input="q\n",
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert out.returncode == 0, out.stderr
        assert level in out.stdout
    out = subprocess.run(
        [sys.executable, "-m", "hanamikoji.cli", "play", "--level", "grandmaster"],
        input="",
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 2
    assert "invalid choice" in out.stderr and "Traceback" not in out.stderr
