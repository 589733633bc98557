"""``hanamikoji play``: a whole game in the terminal, driven in-process and as a subprocess."""

from __future__ import annotations

import io
import os
import random
import re
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest
from rich.console import Console

from hanamikoji.ai import AGENTS
from hanamikoji.moves import Action, Move
from hanamikoji.play import play_game
from hanamikoji.record import Record
from hanamikoji.state import State, Termination
from hanamikoji.view import View

ONES = "1\n" * 1000
"""Answer every question with the first move of the list (enough for any game)."""


def run(
    answers: str,
    *,
    opponent: str = "greedy",
    seed: int | None = 3,
    seat: int | None = 0,
    max_rounds: int | None = 3,
    record: Path | None = None,
    name: str = "player",
) -> tuple[int, str]:
    """Play in-process with ``answers`` as standard input; the exit status and the output."""
    out = io.StringIO()
    console = Console(file=out, force_terminal=False, width=120)
    status = play_game(
        opponent=opponent,
        seed=seed,
        seat=seat,
        max_rounds=max_rounds,
        record=record,
        name=name,
        input=io.StringIO(answers),
        console=console,
    )
    return status, out.getvalue()


def move_lines(output: str) -> list[str]:
    """The one-line summaries of the moves, in order (``R1  3. greedy: Gift: ...``)."""
    return [line.strip() for line in output.splitlines() if re.match(r"\s+R\d+\s", line)]


def human_moves(record: Record, seat: int) -> list[str]:
    """The moves of ``seat`` in a record, in order over all rounds."""
    state = record.replay()
    return [str(ply.move) for ply in state.history if ply.seat == seat]


def liberal(move: str) -> str:
    """The notation as a human might type it: lower case, digits and pairs reversed."""
    head, body = move[0].lower(), move[1:]
    if "-" in body:
        a, b = body.split("-")
        return f" {head}{b[::-1]}-{a[::-1]} "
    return head + body[::-1]


# -- whole games ------------------------------------------------------------------------------


@pytest.mark.parametrize("seat", [0, 1])
def test_answering_1_plays_a_whole_game_and_records_it(tmp_path: Path, seat: int) -> None:
    path = tmp_path / "game.json"
    status, out = run(ONES, seed=4, seat=seat, record=path)
    assert status == 0
    assert "Traceback" not in out
    record = Record.read(path)
    assert record.players[seat] == "player"  # not "you": "you wins", "you holds"
    assert record.players[1 - seat] == "greedy"
    final = record.replay()
    assert final.is_over and final.outcome is not None
    assert record.result == final.outcome
    assert "Game over" in out
    assert final.outcome.describe(record.players) in out
    assert f"Record of the finished game saved to {path}" in out
    # every round's scoring was shown, with both Secrets revealed
    for score in final.scorings:
        assert f"Round {score.round} scoring" in out
        mine, theirs = score.secrets[seat], score.secrets[1 - seat]
        assert f"Secrets revealed: player {mine}, greedy {theirs}" in out


def test_a_game_answered_in_notation_is_the_same_game(tmp_path: Path) -> None:
    first, second = tmp_path / "first.json", tmp_path / "second.json"
    assert run(ONES, seed=8, seat=1, record=first)[0] == 0
    moves = human_moves(Record.read(first), seat=1)
    answers = "".join(liberal(m) + "\n" for m in moves)
    status, out = run(answers, seed=8, seat=1, record=second)
    assert status == 0
    assert "Game over" in out
    assert "is not a move" not in out and "is illegal" not in out
    assert Record.read(second).to_json() == Record.read(first).to_json()


def test_the_human_picks_from_a_numbered_offer() -> None:
    status, out = run(ONES, seed=5, seat=1)
    assert status == 0
    assert "Your pick" in out
    assert re.search(r"greedy offers a (Gift: \d \d \d|Competition: \d\d or \d\d)\.", out)
    assert re.search(r"1\) P\d+ +you take the", out)
    assert re.search(r"player: Pick: takes", out)


def test_the_same_seed_gives_the_same_game() -> None:
    a = run(ONES, seed=21, seat=None)
    b = run(ONES, seed=21, seat=None)
    assert a == b
    c = run(ONES, seed=22, seat=None)
    assert c[1] != a[1]


def test_seat_1_lets_the_computer_move_first() -> None:
    status, out = run(ONES, seed=6, seat=1)
    assert status == 0
    assert "the computer plays first in round 1" in out
    first_move = move_lines(out)[0]
    assert first_move.startswith("R1  1. greedy")
    assert out.index(first_move) < out.index("Your move")


def test_seat_0_moves_first() -> None:
    _, out = run(ONES, seed=6, seat=0)
    assert move_lines(out)[0].startswith("R1  1. player")


def test_no_round_limit_is_accepted(tmp_path: Path) -> None:
    path = tmp_path / "g.json"
    status, out = run(ONES, seed=2, max_rounds=None, record=path)
    assert status == 0
    assert "no round limit" in out
    record = Record.read(path)
    assert record.rules.max_rounds is None
    outcome = record.replay().outcome
    assert outcome is not None
    assert outcome.reason in (Termination.CHARM, Termination.GEISHA)


# -- answers --------------------------------------------------------------------------------


def test_bad_answers_are_asked_again_with_the_reason() -> None:
    hand = State.new(random.Random(3)).view(0).hand
    absent = next(c for c in "1234567" if c not in hand)
    answers = f"garbage\nG999\n0\n1000\nS{absent}\n\n" + ONES
    status, out = run(answers, seed=3, seat=0)
    assert status == 0
    assert "'garbage' is not a move: expected" in out
    assert "'G999' is not a move" in out
    assert "there is no move number 0: choose 1 to" in out
    assert "there is no move number 1000: choose 1 to" in out
    assert f"S{absent} is illegal" in out and f"does not hold {absent}" in out
    # the first move is made only after the bad answers, and the game goes on to its end
    before_first_move = out[: out.index(move_lines(out)[0])]
    assert before_first_move.count("Your move") == 7
    assert "Game over" in out


def test_a_used_action_is_refused() -> None:
    state = State.new(random.Random(3))
    secret = next(m for m in state.legal_moves if m.action is Action.SECRET)
    second = f"S{next(c for c in state.view(0).hand if c != secret.cards)}"
    status, out = run(f"{secret}\n{second}\n", seed=3, seat=0)
    assert status == 0
    assert f"{second} is illegal" in out and "already used its Secret" in out


def test_a_number_out_of_range_in_a_pick_hints_at_the_notation() -> None:
    # seed 5, seat 1: after our first move the computer offers a Gift of 6 6 6: one pick, P6
    status, out = run("1\n7\n1\n", seed=5, seat=1)
    assert status == 0
    assert "greedy offers a Gift: 6 6 6." in out
    assert "1) P6  you take the 6, greedy gets 6 6" in out
    assert "there is no move number 7: choose 1 (to take a card of an offer, type P7)" in out
    assert "R1     player: Pick: takes 6" in out


def test_help_and_board_commands() -> None:
    status, out = run("?\nb\nq\n", seed=3)
    assert status == 0
    assert "How to answer:" in out
    assert out.count("Round 1 · turn 1 of 8 · your turn") == 2
    assert "You quit; game abandoned in round 1, turn 1 of 8." in out


def test_resign_ends_the_game_for_the_computer(tmp_path: Path) -> None:
    path = tmp_path / "r.json"
    status, out = run("1\nresign\n", seed=3, record=path)
    assert status == 0
    assert "greedy wins by resignation" in out
    final = Record.read(path).replay()
    assert final.outcome is not None
    assert final.outcome.reason is Termination.RESIGN and final.outcome.winner == 1


def test_end_of_input_abandons_the_game_cleanly(tmp_path: Path) -> None:
    path, whole = tmp_path / "unfinished.json", tmp_path / "whole.json"
    status, out = run("1\n1\n", seed=3, seat=0, record=path)
    assert status == 0
    assert "Traceback" not in out
    assert "Input ended; game abandoned in round 1" in out
    assert f"Record of the unfinished game saved to {path}" in out
    record = Record.read(path)
    assert record.result is None
    assert record.to_json()["result"] is None
    assert not record.replay().is_over
    # it is the start of the game that answering 1 throughout plays
    run(ONES, seed=3, seat=0, record=whole)
    moves = record.rounds[0].moves
    assert len(human_moves(record, seat=0)) == 2
    assert Record.read(whole).rounds[0].moves[: len(moves)] == moves


def test_end_of_input_at_the_very_start() -> None:
    status, out = run("", seed=3)
    assert status == 0
    assert "Input ended; game abandoned in round 1, turn 1 of 8." in out


# -- hidden information -------------------------------------------------------------------------


class Hider:
    """A test agent: a given Secret first, then a given Discard, then the first legal move."""

    name = "hider"

    def __init__(self, secret: str, discard: str) -> None:
        self.secret = Move.parse("S" + secret)
        self.discard = Move.parse("D" + discard)

    def choose(
        self, view: View, legal: Sequence[Move], rng: random.Random, clock_ms: int | None = None
    ) -> Move:
        """The planned hidden moves while legal, else the first legal move."""
        for move in (self.secret, self.discard):
            if move in legal:
                return move
        return legal[0]


def test_the_opponents_hidden_cards_change_nothing_shown(monkeypatch: pytest.MonkeyPatch) -> None:
    # Two games alike but for which cards the computer hides: what the human sees is identical.
    seed = 2
    hand = State.new(random.Random(seed)).hand(0)  # the computer's first hand (it sits in seat 0)
    a, b, c, d = sorted(set(hand))[:4]
    monkeypatch.setitem(AGENTS, "hider-a", lambda: Hider(secret=a, discard=b + c))
    monkeypatch.setitem(AGENTS, "hider-b", lambda: Hider(secret=b, discard=a + d))
    # turn 1 the computer's Secret, turn 2 ours, turn 3 its Discard, then input ends at turn 4
    _, seen_a = run("1\n", opponent="hider-a", seed=seed, seat=1)
    _, seen_b = run("1\n", opponent="hider-b", seed=seed, seat=1)
    lines = move_lines(seen_a)
    assert lines[0] == "R1  1. hider plays a Secret (hidden)"
    assert lines[2] == "R1  3. hider discards 2 cards (hidden)"
    assert "Round 1 · turn 4 of 8 · your turn" in seen_a
    assert seen_a == seen_b


def test_the_opponents_secret_and_discard_never_appear_before_scoring(tmp_path: Path) -> None:
    path = tmp_path / "g.json"
    _, out = run(ONES, seed=7, seat=0, record=path)
    before, after = out.split("Round 1 scoring", 1)
    state = Record.read(path).replay()
    theirs = [p.move for p in state.history if p.round == 1 and p.seat == 1]
    hidden = [m for m in theirs if m.action in (Action.SECRET, Action.DISCARD)]
    assert len(hidden) == 2
    said = [line for line in move_lines(before) if re.match(r"R1 +(\d\. )?greedy", line)]
    assert len(said) == len(theirs)
    assert "R1  {}. greedy plays a Secret (hidden)".format(2 + 2 * _turn_index(theirs, "S")) in said
    assert (
        "R1  {}. greedy discards 2 cards (hidden)".format(2 + 2 * _turn_index(theirs, "D")) in said
    )
    for move in hidden:
        assert f"greedy: {move.describe()}" not in out  # e.g. "greedy: Secret: hides a 7"
    secret = state.scorings[0].secrets[1]
    assert f"Secrets revealed: player {state.scorings[0].secrets[0]}, greedy {secret}" in after


def _turn_index(moves: list[Move], action: str) -> int:
    """How many turns (picks not counted) come before the first ``action`` in ``moves``."""
    turns = [m for m in moves if not m.is_pick]
    return next(i for i, m in enumerate(turns) if m.action.value == action)


# -- errors -----------------------------------------------------------------------------------


def test_an_unknown_opponent_is_an_error() -> None:
    status, out = run(ONES, opponent="nobody")
    assert status == 2
    assert "unknown agent 'nobody'" in out


def test_a_record_in_a_missing_folder_is_refused_before_playing(tmp_path: Path) -> None:
    status, out = run(ONES, record=tmp_path / "missing" / "g.json")
    assert status == 2
    assert "does not exist" in out
    assert "Your move" not in out


def test_a_record_that_cannot_be_written_is_reported(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def fail(source: object, target: object) -> None:
        raise PermissionError(13, "Permission denied")

    # the record's last step, after the probe: the temporary file takes the record's name (a
    # link made only where no file is; where links fail, a rename over an empty file made so)
    monkeypatch.setattr(os, "replace", fail)
    monkeypatch.setattr(os, "link", fail)
    status, out = run("1\n", record=tmp_path / "g.json")
    assert status == 1
    assert "cannot write the record to" in out and "Permission denied" in out
    assert list(tmp_path.iterdir()) == []  # no record, and no temporary file left behind


# -- the command -----------------------------------------------------------------------------


def test_the_command_plays_with_piped_input(tmp_path: Path) -> None:
    path = tmp_path / "cli.json"
    args = [
        "--opponent",
        "greedy",
        "--seed",
        "4",
        "--seat",
        "1",
        "--max-rounds",
        "none",
        "--record",
        str(path),
    ]
    done = subprocess.run(
        [sys.executable, "-m", "hanamikoji.cli", "play", *args],
        input=ONES,
        env={**os.environ, "COLUMNS": "120", "PYTHONIOENCODING": "utf-8"},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    assert "no round limit" in done.stdout
    assert move_lines(done.stdout)[0].startswith("R1  1. greedy")
    record = Record.read(path)
    final = record.replay()
    assert record.rules.max_rounds is None
    assert final.outcome is not None and final.outcome.describe(record.players) in done.stdout
    # the same game in-process prints the same text
    assert run(ONES, seed=4, seat=1, max_rounds=None, record=tmp_path / "again.json")[1] == (
        done.stdout.replace(str(path), str(tmp_path / "again.json"))
    )


def test_the_command_ends_cleanly_at_end_of_input() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "hanamikoji.cli", "play", "--seed", "1"],
        input="",
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0
    assert "Input ended; game abandoned" in done.stdout
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize("width", [100, 76, 72, 60, 44])
def test_the_board_keeps_each_geisha_on_one_line_at_any_width(width: int) -> None:
    """Narrow, rich wrapped the table's cells: a hand of 6 6 showed one 6 on the geisha's line
    and the other on a line of its own. Each geisha keeps one line, with every card of the hand
    (side by side below 76 columns), or a cell cut short ends in "…"."""
    out = io.StringIO()
    console = Console(file=out, force_terminal=False, width=width)
    play_game(opponent="greedy", seed=4, seat=0, input=io.StringIO("q\n"), console=console)
    text = out.getvalue()
    rows = [line for line in text.splitlines() if re.match(r"^[│|]\s+[1-7]\s", line)]
    first = rows[:7]
    assert [int(r.strip("│| ").split()[0]) for r in first] == [1, 2, 3, 4, 5, 6, 7], text
    hand = State.new(4).hand(0)
    for g, row in zip("1234567", first, strict=True):
        rest = "".join(row.strip("│| ").split()[2:])  # turn 1: only the hand has cards
        assert rest.count(g) == hand.count(g) or "…" in rest, (row, hand)
    assert all(len(line) <= width for line in text.splitlines())
