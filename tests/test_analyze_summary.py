"""The summary at the end of `hanamikoji analyze`: each player's marked moves, the chance they
lost and their worst move, counted as the decision lines above it mark them."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

import hanamikoji.ai.prepare as prepare_module
from hanamikoji.ai.analysis import MARKS, DecisionReview, mark, summarize
from hanamikoji.cli import main
from hanamikoji.moves import Move
from hanamikoji.state import Rules, State

ITERATIONS = "40"  # noise, not analysis, but it marks moves, and fast
DECISION = re.compile(
    r"round (\d+) move +(\d+)  (\S+) +(\S+) +(\?*) *win +[\d.]+%  lost +([\d.]+)%(  best .*)?"
)
SUMMARY = re.compile(
    r"(.+?) +(\d+) decisions?  \? (\d+)  \?\? (\d+)  lost ([\d.]+)% \(([\d.]+)% a decision\)  "
    r"(?:worst round (\d+) move +(\d+) (\S+) ([\d.]+)%|no move lost anything)"
)


@pytest.fixture(autouse=True)
def _no_compiling(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(prepare_module, "prepare_search", lambda say=None: None)


def _write(state: State, tmp_path: Path, players: tuple[str, str] = ("alice", "bob")) -> Path:
    path = tmp_path / "game.json"
    state.record(players).write(path)
    return path


def _middling_game(seed: int = 6) -> State:
    """A one-round game of always the middle legal move: some moves good, some poor."""
    state = State.new(seed, rules=Rules(1))
    while not state.is_over:
        state = state.apply(state.legal_moves[len(state.legal_moves) // 2])
    return state


def _analyze(capsys: pytest.CaptureFixture[str], *args: str | Path) -> tuple[str, str]:
    assert main(["analyze", *(str(a) for a in args), "--iterations", ITERATIONS]) == 0
    out, err = capsys.readouterr()
    return out, err


def _decision(review_loss: float, seat: int = 0, index: int = 0) -> DecisionReview:
    # the best move's chance is the loss itself and the move played's 0: loss is exact
    return DecisionReview(1, index, seat, Move.parse("S1"), Move.parse("S2"), review_loss, 0.0)


def test_summarize_counts_each_mark_as_a_line_shows_it() -> None:
    losses = [0.0, 0.0499, 0.05, 0.1499, 0.15, 0.3, 0.3]
    decisions = [_decision(loss, index=i) for i, loss in enumerate(losses)]
    decisions.append(_decision(0.0, seat=1, index=len(losses)))
    alice, bob = summarize(decisions)
    assert [mark(loss) for loss in losses] == ["", "", "?", "?", "??", "??", "??"]
    assert alice.decisions == len(losses) and alice.marked == {"?": 2, "??": 3}
    assert alice.loss == pytest.approx(sum(losses))
    assert alice.average_loss == pytest.approx(sum(losses) / len(losses))
    assert alice.worst is decisions[5]  # of equal losses, the earlier
    # a player whose every move was the best has no worst; one with no decision, nothing at all
    assert bob.decisions == 1 and bob.marked == {"?": 0, "??": 0} and bob.worst is None
    (nobody,) = summarize([], seats=(1,))
    assert (nobody.seat, nobody.decisions, nobody.loss, nobody.average_loss) == (1, 0, 0.0, 0.0)
    assert {symbol for symbol, _ in MARKS} == {"?", "??"}


def test_the_summary_counts_what_the_decision_lines_mark(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _write(_middling_game(), tmp_path)
    out, _ = _analyze(capsys, path)
    decisions, summary = out.split("\n\n")
    lines = [DECISION.fullmatch(line) for line in decisions.splitlines()]
    assert all(lines), decisions
    players = [SUMMARY.fullmatch(line) for line in summary.splitlines()]
    assert all(players) and len(players) == 2, summary
    marked = 0
    for m in players:
        assert m is not None
        mine = [d for d in lines if d is not None and d[3] == m[1]]
        assert int(m[2]) == len(mine) > 0
        assert int(m[3]) == sum(d[5] == "?" for d in mine)
        assert int(m[4]) == sum(d[5] == "??" for d in mine)
        marked += int(m[3]) + int(m[4])
        shown = [float(d[6]) for d in mine]  # each rounded to 0.1: so is their sum, at most
        assert float(m[5]) == pytest.approx(sum(shown), abs=0.05 * (len(shown) + 1))
        assert float(m[6]) == pytest.approx(float(m[5]) / len(mine), abs=0.1)
        # the worst is a decision line of that player, and none of theirs lost more
        worst = next(d for d in mine if (d[1], d[2]) == (m[7], m[8]))
        assert worst[4] == m[9] and worst[6] == m[10] == f"{max(shown):.1f}"
    assert marked, "no move of the game was marked: the counts checked nothing"

    # --json: the last line carries the same summary, with the record's names and fractions
    assert main(["analyze", str(path), "--json", "--iterations", ITERATIONS]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert len(rows) == len(lines)
    given = rows[-1]["summary"]
    assert [(p["seat"], p["name"]) for p in given] == [(0, "alice"), (1, "bob")]
    for p, m in zip(given, players, strict=True):
        assert m is not None
        assert p["decisions"] == int(m[2]) == sum(row["seat"] == p["seat"] for row in rows)
        assert p["marked"] == {"?": int(m[3]), "??": int(m[4])}
        assert 100 * p["loss"] == pytest.approx(float(m[5]), abs=0.06)
        assert (p["worst"]["round"], p["worst"]["index"]) == (int(m[7]), int(m[8]))
        assert p["worst"]["played"] == m[9]


def test_one_seat_reviewed_is_the_one_summarized(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out, _ = _analyze(capsys, _write(_middling_game(), tmp_path), "--seat", "1")
    _, summary = out.split("\n\n")
    assert summary.startswith("bob ") and summary.count("\n") == 1


def test_players_of_one_name_are_told_apart_in_the_summary(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out, _ = _analyze(capsys, _write(_middling_game(), tmp_path, ("Anna", "Anna")))
    decisions, summary = out.split("\n\n")
    players = summary.splitlines()
    assert [SUMMARY.fullmatch(line) is not None for line in players] == [True, True], summary
    assert players[0].startswith("Anna [seat 0] ") and players[1].startswith("Anna [seat 1] ")
    # each line counts that seat's decisions, as the decision lines name it
    for seat, line in enumerate(players):
        count = decisions.count(f"  Anna [seat {seat}] ")
        assert count > 0 and re.match(rf"Anna \[seat {seat}\] +{count} decisions? ", line)


def test_a_game_resigned_early_is_summed_up_or_left_out(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The player who never decided is said to have no decision, in words and in JSON; with
    no decision at all there is nothing to sum up, and nothing is printed."""
    state = State.new(3)
    state = state.apply(state.legal_moves[0]).concede(1)
    path = _write(state, tmp_path)
    out, _ = _analyze(capsys, path)
    decisions, summary = out.split("\n\n")
    assert len(decisions.splitlines()) == 1
    alice, bob = summary.splitlines()
    assert SUMMARY.fullmatch(alice) and alice.startswith("alice         1 decision  ")
    assert bob == "bob          no decision"
    out, _ = _analyze(capsys, path, "--json")
    (row,) = [json.loads(line) for line in out.splitlines()]
    nobody = row["summary"][1]
    assert (nobody["name"], nobody["decisions"], nobody["worst"]) == ("bob", 0, None)
    assert nobody["loss"] == nobody["average_loss"] == 0.0
    # only the player without a decision: nothing to sum up, as nothing to review
    out, err = _analyze(capsys, path, "--seat", "1")
    assert out == "" and "no decision of bob (seat 1) to review" in err
    path = _write(State.new(3).concede(0), tmp_path)  # resigned before the first move
    for mode in ([], ["--json"]):
        out, err = _analyze(capsys, path, *mode)
        assert out == ""
        assert "no decision to review: the game ended before one was made" in err


def test_a_record_that_stops_mid_game_is_summed_up_as_far_as_it_goes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    state = State.new(3)
    for _ in range(3):
        state = state.apply(state.legal_moves[0])
    path = _write(state, tmp_path)  # unfinished: its result is null
    out, _ = _analyze(capsys, path)
    _, summary = out.split("\n\n")
    players = [SUMMARY.fullmatch(line) for line in summary.splitlines()]
    made = [str(sum(ply.seat == seat for ply in state.history)) for seat in (0, 1)]
    assert [m[2] if m else None for m in players] == made, summary
    # a file cut short is no record: one line on stderr, nothing on stdout
    cut = tmp_path / "cut.json"
    cut.write_bytes(path.read_bytes()[:-20])
    assert main(["analyze", str(cut), "--iterations", ITERATIONS]) == 2
    out, err = capsys.readouterr()
    assert out == "" and len(err.splitlines()) == 1
