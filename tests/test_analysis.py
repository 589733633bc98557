"""Hints and game review: from each decider's view, deterministic, and on the command line."""

from __future__ import annotations

import io
import json
import random
import re
import subprocess
import sys
from pathlib import Path

from rich.console import Console

from hanamikoji.ai.analysis import (
    ITERATIONS,
    MISTAKE,
    NOISE,
    _searcher,
    review,
    search_root,
    suggest,
    value_of,
)
from hanamikoji.play import play_game
from hanamikoji.record import Record
from hanamikoji.state import Rules, State
from hanamikoji.view import View


def finished_record(seed: int) -> Record:
    state = State.new(seed, rules=Rules(1))
    while not state.is_over:
        state = state.apply(state.legal_moves[len(state.legal_moves) // 2])
    return state.record(("alice", "bob"))


def _positions(state: State) -> list[State]:
    """The position before each move of ``state``'s game, oldest first."""
    found = []
    while state.parent is not None:
        state = state.parent
        found.append(state)
    return found[::-1]


def test_a_hint_is_a_legal_move_with_a_probability_and_is_deterministic() -> None:
    state = State.new(4)
    view = state.view(0)
    a = suggest(view, iterations=200, seed=7)
    b = suggest(view, iterations=200, seed=7)
    assert a == b
    assert a.move in state.legal_moves
    assert 0.0 <= a.win_probability <= 1.0
    assert all(m in state.legal_moves for m, _ in a.alternatives)


def test_a_hints_alternatives_are_as_good_as_its_move_within_the_noise() -> None:
    """No "also good" move that the review would call an inaccuracy, nor one the search barely
    looked at (a few visits' mean can be far too low)."""
    from hanamikoji.ai.analysis import NOISE

    rng = random.Random(3)
    state = State.new(rng)
    shown = 0
    while state.to_move is not None and state.round == 1:
        hint = suggest(state.view(state.to_move), iterations=1000, seed=1)
        for move, value in hint.alternatives:
            assert move in state.legal_moves and move != hint.move
            assert hint.win_probability - value <= NOISE, (state, hint)
        shown += len(hint.alternatives)
        state = state.apply(rng.choice(state.legal_moves))
    assert shown  # some positions do have moves as good as the best


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


def test_a_review_searches_each_decision_as_its_hint_did() -> None:
    """Same budget, same seed: where the hint was followed the review finds the hint's move and
    no loss, whatever the VIEW went through (the web app sends it as JSON to a worker)."""
    record = finished_record(8)
    state = record.replay()
    judged = list(review(record, iterations=300))
    for before, ply, decision in zip(_positions(state), state.history, judged, strict=True):
        view = View.from_json(before.view(ply.seat).to_json())
        hint = suggest(view, iterations=300, rules=record.rules)
        assert (decision.best, decision.win_probability) == (hint.move, hint.win_probability)
        if hint.move is ply.move:
            assert decision.loss == 0.0


def test_a_move_is_valued_by_the_search_that_visited_it_enough_else_alone() -> None:
    """A move visited 1 time in 40 or more keeps the search's own value; one visited less is
    searched alone, with a quarter of the budget."""
    checked = 0
    for position in _positions(finished_record(9).replay()):
        assert position.to_move is not None
        view = position.view(position.to_move)
        if len(view.legal_moves) < 3:
            continue
        result = search_root(view, iterations=2000, seed=2, rules=Rules(1))
        best = result.best
        assert value_of(view, best.move, result, seed=2, rules=Rules(1)) == best.value
        often = [s for s in result.moves[1:] if s.visits * 40 >= result.iterations]
        rarely = [s for s in result.moves if s.visits * 40 < result.iterations]
        if not (often and rarely):
            continue
        assert value_of(view, often[0].move, result, seed=2, rules=Rules(1)) == often[0].value
        alone = _searcher(500, Rules(1)).search(view, [rarely[0].move], random.Random(2))
        assert value_of(view, rarely[0].move, result, seed=2, rules=Rules(1)) == alone.best.value
        checked += 1
    assert checked >= 2, "no position had both a well visited and a rarely visited move"


def test_the_mistake_line_is_above_the_noise_of_the_shared_budget() -> None:
    assert ITERATIONS == 20000
    assert 0 < NOISE <= MISTAKE
    only = State.new(3)
    while len(only.legal_moves) != 1:  # a forced move (a pick from equal pairs, a last card)
        only = only.apply(only.legal_moves[0])
    hint = suggest(only.view(only.to_move or 0), iterations=100)
    assert hint.move == only.legal_moves[0] and hint.alternatives == ()


def test_analyze_on_the_command_line(tmp_path: Path) -> None:
    path = tmp_path / "game.json"
    finished_record(6).write(path)
    cli = [sys.executable, "-m", "hanamikoji.cli", "analyze", str(path), "--iterations", "40"]
    out = subprocess.run([*cli, "--seat", "0"], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    # the decisions, then after one blank line the summary: with --seat 0, alice's line alone
    decisions, summary = out.stdout.split("\n\n")
    lines = decisions.splitlines()
    assert lines and all(line.startswith("round 1 move") and "alice" in line for line in lines)
    assert summary.startswith(f"alice        {len(lines):>2} decisions  ? ")
    assert summary.count("\n") == 1 and "bob" not in summary
    out = subprocess.run([*cli, "--json"], capture_output=True, text=True, timeout=120)
    rows = [json.loads(line) for line in out.stdout.splitlines()]
    for row in rows:  # every line a decision; the last one carries the summary besides
        assert {"round", "index", "seat", "played", "best", "win_probability", "loss"} <= set(row)
    assert "summary" in rows[-1] and not any("summary" in row for row in rows[:-1])
    # the text says the same: "win" is the move played's chance, the best move says its own
    for line, row in zip(lines, [r for r in rows if r["seat"] == 0], strict=True):
        assert f"win {100 * row['played_value']:5.1f}%" in line, (line, row)
        # a "best" worth no more than the move played (a small search's noise) is not shown
        if row["best"] != row["played"] and row["win_probability"] > row["played_value"]:
            assert line.endswith(f"best {row['best']} {100 * row['win_probability']:.1f}%"), line
        else:
            assert "best" not in line, (line, row)
    # so few iterations give noise, and it says so
    assert "40 iterations a decision give noise, not analysis" in out.stderr
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
    # the hint is the review's best move for the position: followed, it loses nothing there
    shown = re.search(r"Hint: (\S+) ", screen.getvalue())
    assert shown is not None
    assert (
        str(search_root(State.new(3).view(0), iterations=ITERATIONS, seed=0).best.move) == shown[1]
    )
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
