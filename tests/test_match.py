"""The match runner: pairs, reproducibility, records, forfeits, SPRT, the CLI, Ctrl-C, Ray.

Broken external engines come from tests/engines/broken_engine.py. Game counts are small: the
point is that every path runs and adds up, not the strength of the agents.
"""

from __future__ import annotations

import contextlib
import json
import multiprocessing
import os
import re
import shlex
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from conftest import run_cli
from hanamikoji.match import (
    MatchConfig,
    MatchError,
    MatchSummary,
    backends,
    make_player,
    play_game,
    run_match,
    worker_started,
)
from hanamikoji.match.backends import STOP_GRACE_S, sends_whole
from hanamikoji.match.config import CLOCK_MS_MAX, local_jobs_max
from hanamikoji.record import Record
from hanamikoji.state import Rules, State, Termination
from hanamikoji.stats import Pentanomial, Sprt

PY = shlex.quote(sys.executable)
BROKEN = Path(__file__).resolve().parent / "engines" / "broken_engine.py"
ENGINE_RANDOM = f"cmd:{PY} -m hanamikoji.cli engine random"


def broken(mode: str) -> str:
    """The player spec of the broken engine in ``mode``."""
    return f"cmd:{PY} {shlex.quote(str(BROKEN))} {mode}"


def same(summary: MatchSummary) -> dict[str, Any]:
    """What a match showed, less its running time (forfeits in game order)."""
    out = summary.to_json()
    del out["seconds"]
    out["forfeits"] = sorted(out["forfeits"], key=lambda f: f["game"])
    return out


def record_files(folder: Path) -> dict[str, str]:
    return {p.name: p.read_text(encoding="utf-8") for p in sorted(folder.glob("*.json"))}


# -- counting --------------------------------------------------------------------------------


def test_counts_add_up() -> None:
    summary = run_match(MatchConfig("greedy", "random", games=10, seed=4))
    assert summary.games == 10
    assert summary.planned == 10
    assert sum(summary.wins) + summary.draws == 10
    assert summary.pentanomial.pairs == 5
    assert sum(summary.reasons.values()) == 10
    assert "forfeit" not in summary.reasons
    assert summary.forfeits == []
    assert summary.stopped is None
    assert summary.score == pytest.approx((summary.wins[0] + summary.draws / 2) / 10)
    data = summary.to_json()
    assert data["a_results"] == {
        "wins": summary.wins[0],
        "draws": summary.draws,
        "losses": summary.wins[1],
    }
    assert data["b_results"]["wins"] == data["a_results"]["losses"]
    assert sum(data["pentanomial"]) == data["pairs"] == 5


def test_odd_games_round_up_to_whole_pairs() -> None:
    config = MatchConfig("random", "random", games=7, seed=1)
    assert config.pairs == 4
    summary = run_match(config)
    assert summary.games == summary.planned == 8
    assert summary.pentanomial.pairs == 4
    assert run_match(MatchConfig("random", "random", games=1)).games == 2


def test_on_pair_sees_each_pair() -> None:
    seen: list[int] = []
    run_match(
        MatchConfig("random", "greedy", games=6, seed=2), on_pair=lambda s: seen.append(s.games)
    )
    assert seen == [2, 4, 6]


@pytest.mark.parametrize(
    "kwargs",
    [
        {"games": 0},
        {"games": -2},
        {"jobs": 0},
        {"jobs": local_jobs_max() + 1},
        {"clock_ms": 0},
        {"clock_ms": CLOCK_MS_MAX + 1},
        {"hard_limit_ms": 0},
        {"hard_limit_ms": 10**13},
        {"hard_limit_ms": 1999},  # under the default clock-ms (1000) + 1000
        {"clock_ms": 100, "hard_limit_ms": 300},
        {"backend": "gpu"},
    ],
)
def test_config_rejects_bad_values(kwargs: dict[str, Any]) -> None:
    with pytest.raises(MatchError):
        MatchConfig("random", "random", **kwargs)


@pytest.mark.parametrize("make", ["match", "tournament"])
def test_a_config_refuses_a_hard_limit_under_the_protocols_promise(make: str) -> None:
    """Built from Python as from the command line: an engine that answers within clock_ms +
    1000 ms is never forfeited for time (docs/protocol.md, Time)."""
    from hanamikoji.tournament import TournamentConfig

    def config(hard_limit_ms: int) -> object:
        if make == "match":
            return MatchConfig("random", "greedy", clock_ms=500, hard_limit_ms=hard_limit_ms)
        return TournamentConfig(("random", "greedy"), clock_ms=500, hard_limit_ms=hard_limit_ms)

    with pytest.raises(MatchError) as refused:
        config(1499)
    assert str(refused.value) == (
        "--hard-limit-ms must be at least --clock-ms + 1000 = 1,500, got 1,499: the engine "
        "protocol promises that an engine answering within clock_ms + 1000 ms is never "
        "forfeited for time"
    )
    config(1500)


def test_a_pool_never_starts_more_workers_than_it_has_work(monkeypatch: pytest.MonkeyPatch) -> None:
    """Sixteen jobs for one pair start one worker (each worker starts its own engines)."""
    started: list[int] = []
    real = backends._Pool

    def counting(processes: int, **kw: Any) -> Any:
        started.append(processes)
        return real(processes, **kw)

    monkeypatch.setattr(backends, "_Pool", counting)
    summary = run_match(MatchConfig("random", "greedy", games=2, jobs=16))
    assert started == [1] and summary.games == 2


@pytest.mark.parametrize(
    ("spec", "says"),
    [
        ("stockfish", "unknown agent"),
        ("greedy:nope=1", "nope"),
        ("greedy:hand_weight", "KEY=VALUE"),
        ("cmd:", "cmd: needs a command"),
        ("cmd:   ", "cmd: needs a command"),
    ],
)
def test_bad_player_specs_fail_before_any_game(spec: str, says: str) -> None:
    with pytest.raises(MatchError, match=says):
        make_player(spec)
    with pytest.raises(MatchError, match=says):
        run_match(MatchConfig("random", spec, games=2))


def test_players_are_labelled_by_their_specs() -> None:
    assert make_player("greedy:hand_weight=0.3").label == "greedy:hand_weight=0.3"
    engine = make_player(ENGINE_RANDOM)
    assert engine.label == ENGINE_RANDOM
    engine.close()  # never started: nothing to stop


def test_an_even_match_shows_zero_elo_without_a_sign_slip() -> None:
    summary = MatchSummary("a", "b", 4, pentanomial=Pentanomial((0, 0, 2, 0, 0)))
    summary.wins = [2, 2]
    assert "Elo of A over B: +0.0 " in summary.render()
    assert "Elo +0.0 " in summary.progress()


@pytest.mark.parametrize(
    ("counts", "shown", "low_high"),
    [
        ((0, 0, 0, 0, 5), "+inf (95% interval +141.7 to +inf;", (141.67, None)),
        ((5, 0, 0, 0, 0), "-inf (95% interval -inf to -141.7;", (None, -141.67)),
        ((0, 0, 5, 0, 0), "+0.0 (95% interval -176.6 to +176.6;", (-176.56, 176.56)),
    ],
    ids=["a-sweep", "swept", "all-pairs-even"],
)
def test_pairs_all_alike_still_leave_an_honest_interval(
    counts: tuple[int, int, int, int, int], shown: str, low_high: tuple[float | None, float | None]
) -> None:
    """Five pairs all won have no spread: the interval was "+inf to +inf" (certainty), and five
    even pairs "+0.0 to +0.0". Now the far end stays open and the near one is finite."""
    summary = MatchSummary("a", "b", 10, pentanomial=Pentanomial(counts))
    a_points = sum(c * k for c, k in zip(counts, range(5), strict=True))  # half-points
    summary.wins = [a_points // 2, (20 - a_points) // 2]
    assert f"Elo of A over B: {shown}" in summary.render()
    assert summary.to_json()["elo_95"] == [
        None if x is None else pytest.approx(x, abs=0.01) for x in low_high
    ]


def test_one_pair_is_one_pair() -> None:
    summary = MatchSummary("a", "b", 2, pentanomial=Pentanomial((0, 0, 1, 0, 0)))
    summary.wins = [1, 1]
    assert "games 2 of 2 (1 pair on shared deals)" in summary.render()  # not "1 pairs"


# -- reproducibility -------------------------------------------------------------------------


def test_same_seed_same_match(tmp_path: Path) -> None:
    one = run_match(MatchConfig("greedy", "random", games=12, seed=9, records=tmp_path / "1"))
    two = run_match(MatchConfig("greedy", "random", games=12, seed=9, records=tmp_path / "2"))
    assert same(one) == same(two)
    assert record_files(tmp_path / "1") == record_files(tmp_path / "2")


def test_different_seeds_different_games(tmp_path: Path) -> None:
    run_match(MatchConfig("random", "random", games=4, seed=1, records=tmp_path / "1"))
    run_match(MatchConfig("random", "random", games=4, seed=2, records=tmp_path / "2"))
    one, two = record_files(tmp_path / "1"), record_files(tmp_path / "2")
    assert one.keys() == two.keys()
    for name in one:
        assert json.loads(one[name])["rounds"][0] != json.loads(two[name])["rounds"][0]


def test_parallel_gives_exactly_the_serial_results(tmp_path: Path) -> None:
    serial = run_match(
        MatchConfig("random", "greedy", games=24, seed=7, jobs=1, records=tmp_path / "serial")
    )
    parallel = run_match(
        MatchConfig("random", "greedy", games=24, seed=7, jobs=2, records=tmp_path / "parallel")
    )
    assert parallel.pentanomial == serial.pentanomial
    assert (parallel.wins, parallel.draws) == (serial.wins, serial.draws)
    assert same(parallel) == same(serial)
    assert record_files(tmp_path / "parallel") == record_files(tmp_path / "serial")


# -- records ---------------------------------------------------------------------------------


def test_records_replay_and_pairs_share_their_deals(tmp_path: Path) -> None:
    summary = run_match(MatchConfig("greedy", "random", games=8, seed=3, records=tmp_path))
    files = sorted(tmp_path.iterdir())
    assert [p.name for p in files] == [f"game-{n:05d}.json" for n in range(1, 9)]
    records = [Record.read(p) for p in files]
    wins_a = 0
    for number, record in enumerate(records, start=1):
        final = record.replay()
        assert final.is_over
        assert final.outcome == record.result
        a_seat = 0 if number % 2 == 1 else 1  # A sits in seat 0, then 1, in each pair
        assert record.players[a_seat] == "greedy"
        assert record.players[1 - a_seat] == "random"
        assert record.result is not None
        assert record.result.reason is not Termination.FORFEIT
        assert record.result.why is None
        wins_a += record.result.winner == a_seat
    assert wins_a == summary.wins[0]
    for first, second in zip(records[::2], records[1::2], strict=True):
        assert first.players == second.players[::-1]
        common = min(len(first.rounds), len(second.rounds))
        assert common >= 1
        for r1, r2 in zip(first.rounds[:common], second.rounds[:common], strict=True):
            assert r1.deal == r2.deal
    # different pairs, different deals
    assert records[0].rounds[0].deal != records[2].rounds[0].deal


def test_records_folder_is_created(tmp_path: Path) -> None:
    target = tmp_path / "a" / "b"
    run_match(MatchConfig("random", "random", games=2, records=target))
    assert len(list(target.iterdir())) == 2


def test_records_folder_that_cannot_be_made(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(MatchError, match="records folder"):
        run_match(MatchConfig("random", "random", games=2, records=blocker / "sub"))


def test_records_path_that_is_a_file_is_said_in_plain_words(tmp_path: Path) -> None:
    afile = tmp_path / "afile"
    afile.write_text("x")
    for records in (afile, afile / "sub"):
        with pytest.raises(MatchError) as caught:
            run_match(MatchConfig("random", "random", games=2, records=records))
        assert str(caught.value) == (
            f"cannot make the records folder {records}: {afile} is a file, not a folder"
        )
    assert afile.read_text() == "x"
    done = run_cli("match", "random", "random", "--games", "2", "--records", "afile", cwd=tmp_path)
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.splitlines() == [
        "hanamikoji match: cannot make the records folder afile: afile is a file, not a folder"
    ]


def test_a_records_folder_holding_another_matchs_records_is_refused(tmp_path: Path) -> None:
    run_match(MatchConfig("greedy", "random", games=4, records=tmp_path / "recs"))
    before = record_files(tmp_path / "recs")
    (tmp_path / "recs" / "notes.txt").write_text("mine")
    with pytest.raises(MatchError, match=r"already holds 4 game records \(game-00001.json, "):
        run_match(MatchConfig("random", "random", games=2, records=tmp_path / "recs"))
    assert record_files(tmp_path / "recs") == before  # nothing overwritten
    done = run_cli("match", "random", "random", "--games", "2", "--records", "recs", cwd=tmp_path)
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.splitlines() == [
        "hanamikoji match: the records folder recs already holds 4 game records (game-00001.json, "
        "game-00002.json, ...), of another match: give a new or empty folder (or move those "
        "records away)"
    ]
    # A folder with other files but no records is fine.
    other = tmp_path / "other"
    other.mkdir()
    (other / "notes.txt").write_text("mine")
    run_match(MatchConfig("random", "random", games=2, records=other))
    assert len(record_files(other)) == 2


def test_greedy_clearly_beats_random() -> None:
    summary = run_match(MatchConfig("greedy", "random", games=100, seed=11))
    assert summary.score > 0.7
    low, _ = summary.pentanomial.elo_interval()
    assert low > 50
    assert summary.wins[0] > 3 * summary.wins[1]


# -- forfeits --------------------------------------------------------------------------------

FORFEITS = [
    ("crash", "crash", "exit status 3"),
    ("exit", "exit", "status 0"),
    ("garbage", "garbage", "not JSON"),
    ("wrongtype", "garbage", "expected a 'move' message"),
    ("illegal", "illegal", "illegal move"),
    ("sleep", "timeout", "no answer within 1001 ms"),
    ("chatty", "garbage", ""),
]


@pytest.mark.parametrize(("mode", "kind", "says"), FORFEITS, ids=[f[0] for f in FORFEITS])
def test_a_broken_engine_forfeits_every_game(
    tmp_path: Path, mode: str, kind: str, says: str
) -> None:
    config = MatchConfig(
        "greedy", broken(mode), games=2, seed=1, clock_ms=1, hard_limit_ms=1001, records=tmp_path
    )
    summary = run_match(config)
    assert summary.games == 2
    assert summary.wins == [2, 0]
    assert summary.reasons == {"forfeit": 2}
    assert [(n, side) for n, side, _ in summary.forfeits] == [(1, "B"), (2, "B")]
    for (number, _, why), b_seat in zip(summary.forfeits, (1, 0), strict=True):
        assert why.startswith(f"seat {b_seat}: {kind}: "), why
        assert says in why
        record = Record.read(tmp_path / f"game-{number:05d}.json")
        assert record.result is not None
        assert record.result.reason is Termination.FORFEIT
        assert record.result.winner == 1 - b_seat
        assert record.result.why == why
        final = record.replay()
        assert final.outcome == record.result
    text = summary.render()
    assert "forfeits: 2" in text
    assert f"game 1: B forfeited: seat 1: {kind}: " in text
    assert summary.to_json()["forfeits"][0] == {
        "game": 1,
        "side": "B",
        "why": summary.forfeits[0][2],
    }


def test_an_engine_that_cannot_start_stops_the_match_before_it_begins() -> None:
    with pytest.raises(MatchError, match=r"player A \(cmd:/nonexistent/engine --fast\): cannot"):
        run_match(MatchConfig("cmd:/nonexistent/engine --fast", "random", games=2))
    with pytest.raises(MatchError, match=r"player B .*no hello"):
        run_match(MatchConfig("random", broken("nohello"), games=2))


def test_a_flaky_engine_is_restarted_after_each_failure() -> None:
    # It crashes at its second act of every third game its process plays: games 3 and 6,
    # if and only if a fresh process takes over after each crash.
    summary = run_match(MatchConfig("greedy", broken("flaky"), games=8, seed=2))
    assert [n for n, _, _ in summary.forfeits] == [3, 6]
    assert all(side == "B" and ": crash: " in why for _, side, why in summary.forfeits)
    assert summary.reasons["forfeit"] == 2
    assert summary.games == 8


def test_real_engine_processes_play_normally(tmp_path: Path) -> None:
    summary = run_match(
        MatchConfig(ENGINE_RANDOM, "greedy", games=4, seed=3, clock_ms=200, records=tmp_path)
    )
    assert summary.forfeits == []
    assert "forfeit" not in summary.reasons
    assert summary.games == 4
    for path in tmp_path.iterdir():
        record = Record.read(path)
        assert ENGINE_RANDOM in record.players
        assert record.replay().outcome == record.result


def test_external_engines_on_both_sides_in_parallel() -> None:
    summary = run_match(
        MatchConfig(ENGINE_RANDOM, broken("good"), games=4, seed=3, clock_ms=200, jobs=2)
    )
    assert summary.forfeits == []
    assert summary.games == 4


def test_play_game_forfeits_a_player_that_fails_to_start() -> None:
    players = (make_player("random"), make_player("cmd:/nonexistent/engine"))
    final = play_game(players, State.new(5), 100, (1, 2))
    outcome = final.outcome
    assert outcome is not None
    assert outcome.reason is Termination.FORFEIT
    assert outcome.winner == 0
    assert outcome.why is not None and outcome.why.startswith("seat 1: start: ")


# -- SPRT ------------------------------------------------------------------------------------


def test_sprt_stops_early_for_the_stronger_player() -> None:
    summary = run_match(
        MatchConfig("greedy", "random", games=1000, seed=1, sprt=Sprt(0, 50, 0.05, 0.05))
    )
    assert summary.verdict == "H1"
    assert summary.stopped == "SPRT accepted H1"
    assert summary.games < 1000
    assert summary.planned == 1000
    data = summary.to_json()
    assert data["sprt"]["verdict"] == "H1"
    assert data["sprt"]["llr"] >= data["sprt"]["bounds"][1]
    assert data["stopped"] == "SPRT accepted H1"
    text = summary.render()
    assert "stopped: SPRT accepted H1" in text
    assert "H1 accepted" in text


def test_sprt_accepts_h0_for_the_weaker_player() -> None:
    summary = run_match(
        MatchConfig("random", "greedy", games=1000, seed=1, sprt=Sprt(0, 50, 0.05, 0.05))
    )
    assert summary.verdict == "H0"
    assert summary.stopped == "SPRT accepted H0"
    assert summary.games < 1000
    assert "H0 accepted" in summary.render()


def test_sprt_in_parallel_also_stops() -> None:
    summary = run_match(
        MatchConfig("greedy", "random", games=1000, seed=1, jobs=2, sprt=Sprt(0, 50))
    )
    assert summary.stopped == "SPRT accepted H1"
    assert summary.games < 1000


# -- the command line ------------------------------------------------------------------------


def test_cli_match_prints_the_summary() -> None:
    done = run_cli("match", "greedy", "random", "--games", "20", "--seed", "3")
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    out = done.stdout
    a = re.search(r"^A: (\d+) wins, (\d+) draws, (\d+) losses$", out, re.M)
    b = re.search(r"^B: (\d+) wins, (\d+) draws, (\d+) losses$", out, re.M)
    assert a is not None and b is not None
    wins, draws, losses = map(int, a.groups())
    assert wins + draws + losses == 20
    assert tuple(map(int, b.groups())) == (losses, draws, wins)
    assert re.search(r"^score of A: \d+\.\d%$", out, re.M)
    assert re.search(r"^Elo of A over B: [+-](\d+\.\d|inf) \(95% interval .+ to .+;", out, re.M)
    assert "forfeits: none" in out
    assert "games 20 of 20 (10 pairs on shared deals)" in out
    # the same match as JSON agrees
    as_json = run_cli("match", "greedy", "random", "--games", "20", "--seed", "3", "--json")
    data = json.loads(as_json.stdout)
    assert data["a_results"] == {"wins": wins, "draws": draws, "losses": losses}


def test_cli_match_json() -> None:
    done = run_cli("match", "greedy", "random", "--games", "6", "--seed", "3", "--json")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert len(lines) == 1
    data = json.loads(lines[0])
    assert isinstance(data, dict)
    for key in (
        "a",
        "b",
        "games",
        "planned",
        "pairs",
        "a_results",
        "b_results",
        "score",
        "elo",
        "elo_95",
        "pentanomial",
        "reasons",
        "forfeits",
        "stopped",
    ):
        assert key in data, key
    assert (data["a"], data["b"], data["games"], data["pairs"]) == ("greedy", "random", 6, 3)
    assert data["forfeits"] == []
    assert len(data["elo_95"]) == 2
    assert data["a_results"]["wins"] + data["a_results"]["draws"] + data["a_results"]["losses"] == 6


def test_cli_match_says_once_that_odd_games_are_rounded_up() -> None:
    args = ["match", "random", "greedy", "--max-rounds", "1", "--json"]
    odd = run_cli(*args, "--games", "3")
    assert odd.returncode == 0, odd.stderr
    assert json.loads(odd.stdout)["games"] == 4
    note = "hanamikoji match: --games 3 plays 4 games: games come in duplicate pairs"
    assert [line for line in odd.stderr.splitlines() if "--games" in line] == [
        note + " (each deal twice, with the seats swapped)"
    ]
    assert odd.stderr.startswith(note)  # before any game
    even = run_cli(*args, "--games", "4")
    assert even.returncode == 0, even.stderr
    assert json.loads(even.stdout)["games"] == 4
    assert "--games" not in even.stderr


def test_cli_match_json_with_sprt() -> None:
    done = run_cli(
        "match", "greedy", "random", "--games", "400", "--sprt", "0", "50", "0.05", "0.05", "--json"
    )
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["sprt"]["verdict"] == "H1"
    assert data["stopped"] == "SPRT accepted H1"
    assert data["sprt"]["elo1"] == 50


def test_cli_match_writes_records(tmp_path: Path) -> None:
    done = run_cli("match", "random", "greedy", "--games", "2", "--records", tmp_path / "recs")
    assert done.returncode == 0, done.stderr
    for path in (tmp_path / "recs").iterdir():
        again = run_cli("replay", path, "--json")
        assert again.returncode == 0, again.stderr


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["greedy", "stockfish"], "unknown agent 'stockfish'"),
        (["greedy", "cmd:"], "cmd: needs a command"),
        (["greedy", "random", "--jobs", "100000"], "--jobs must be at most"),
        (["greedy:nope=1", "random"], "no option 'nope'"),
        (["greedy", "random", "--sprt", "50", "0", "0.05", "0.05"], "ELO0 < ELO1"),
        (["greedy", "random", "--sprt", "0", "0", "0.05", "0.05"], "ELO0 < ELO1"),
        (["greedy", "random", "--sprt", "0", "50", "0.5", "0.05"], "alpha"),
    ],
)
def test_cli_match_rejects_bad_players_and_sprt(args: list[str], says: str) -> None:
    done = run_cli("match", *args)
    assert done.returncode == 2
    assert done.stdout == ""
    assert "Traceback" not in done.stderr
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("hanamikoji match: ")
    assert says in lines[0]


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["greedy", "random", "--games", "0"], "--games"),
        (["greedy", "random", "--jobs", "0"], "--jobs"),
        (["greedy", "random", "--sprt", "0", "50"], "--sprt"),
        (["greedy", "random", "--sprt", "0", "50", "x", "0.05"], "--sprt"),
        (["greedy", "random", "--backend", "gpu"], "--backend"),
        (["greedy", "random", "--hard-limit-ms", "10000000000000"], "86,400,000 or less"),
        (["greedy", "random", "--clock-ms", "99999999999999999999"], "86,400,000 or less"),
        (["greedy"], "B"),
    ],
)
def test_cli_match_rejects_bad_arguments(args: list[str], says: str) -> None:
    done = run_cli("match", *args)
    assert done.returncode == 2
    assert done.stdout == ""
    assert "Traceback" not in done.stderr
    last = done.stderr.splitlines()[-1]
    assert last.startswith("hanamikoji match: error: ")
    assert says in last


@pytest.mark.parametrize("command", ["match", "tournament"])
def test_cli_refuses_a_hard_limit_under_the_protocols_promise(command: str) -> None:
    games = "--games" if command == "match" else "--games-per-pair"
    common = [command, "random", "greedy", games, "2", "--clock-ms", "1000"]
    done = run_cli(*common, "--hard-limit-ms", "1999")
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.splitlines() == [
        f"hanamikoji {command}: --hard-limit-ms must be at least --clock-ms + 1000 = 2,000, got "
        "1,999: the engine protocol promises that an engine answering within clock_ms + 1000 "
        "ms is never forfeited for time"
    ]
    done = run_cli(*common, "--hard-limit-ms", "2000", "--max-rounds", "1")
    assert done.returncode == 0, done.stderr


def test_cli_match_names_the_forfeits() -> None:
    done = run_cli("match", "greedy", broken("crash"), "--games", "2")
    assert done.returncode == 0, done.stderr
    assert "forfeits: 2" in done.stdout
    assert "game 1: B forfeited: seat 1: crash: crashed (exit status 3)" in done.stdout
    assert "game 2: B forfeited: seat 0: crash: crashed (exit status 3)" in done.stdout
    assert "something went terribly wrong" in done.stdout
    assert "endings: forfeit 2" in done.stdout


# -- Ctrl-C ----------------------------------------------------------------------------------


def _children(pid: int) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
            found.append(int(entry))
    return found


def descendants(pid: int) -> list[int]:
    """Every process below ``pid`` (children, their children, ...)."""
    found: list[int] = []
    todo = [pid]
    while todo:
        kids = _children(todo.pop())
        found += kids
        todo += kids
    return found


def alive(pid: int) -> bool:
    """Whether ``pid`` is a running process (a zombie counts as ended)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def _foreground_job() -> None:
    """In the child: a process group of its own, with Ctrl-C's default meaning.

    (A shell starts background jobs with SIGINT ignored, and Python keeps it ignored: without
    this, the test would fail when pytest itself was started in the background.)
    """
    os.setsid()
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc")
@pytest.mark.parametrize(
    ("jobs", "b", "least"),
    [
        (1, "random", 0),
        (2, "random", 2),
        (1, ENGINE_RANDOM, 1),
        (2, ENGINE_RANDOM, 4),
        (2, broken("sleep"), 4),
    ],
    ids=["serial", "parallel", "serial-engine", "parallel-engines", "parallel-sleeping-engines"],
)
def test_ctrl_c_stops_the_match_and_everything_it_started(jobs: int, b: str, least: int) -> None:
    command = [sys.executable, "-m", "hanamikoji.cli", "match", "random", b]
    proc = subprocess.Popen(
        [*command, "--games", "1000000", "--jobs", str(jobs)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=_foreground_job,
    )
    started: list[int] = []
    try:
        # Give the match time to be under way, then as long as a loaded machine needs for
        # its workers and engines to start (CI once saw one process after 1.5 s).
        time.sleep(1.5)
        started = descendants(proc.pid)
        deadline = time.monotonic() + 30.0
        while len(started) < least and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.1)
            started = descendants(proc.pid)
        assert len(started) >= least, started
        os.killpg(proc.pid, signal.SIGINT)  # what Ctrl-C in a terminal does
        start = time.monotonic()
        try:
            out, err = proc.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            pytest.fail(f"still running 10 s after Ctrl-C: {descendants(proc.pid)} below it")
        took = time.monotonic() - start
    finally:
        if proc.poll() is None:  # clean up after a failure: the match, its workers, engines
            for pid in [proc.pid, *started]:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
            proc.wait()
    assert proc.returncode == 130, err
    assert took < 5.0
    assert "Traceback" not in err
    assert "stopped: interrupted" in out
    assert "of 1000000" in out
    deadline = time.monotonic() + 3.0
    while any(alive(p) for p in started) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert [p for p in started if alive(p)] == []


def test_ctrl_c_while_the_engines_are_checked_gives_the_empty_summary(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Ctrl-C as the match checks that its engines start (before any game; on a loaded
    machine it can take a second): the summary comes back, stopped, with no game (the command
    then prints it), not a bare KeyboardInterrupt that printed only "interrupted"."""
    from hanamikoji.match import runner

    def interrupted(spec: str) -> Any:
        raise KeyboardInterrupt

    monkeypatch.setattr(runner, "make_player", interrupted)
    summary = run_match(MatchConfig("random", ENGINE_RANDOM, games=4))
    assert summary.stopped == "interrupted" and summary.games == 0
    assert summary.signal == signal.SIGINT
    assert "of 4" in summary.render() and "stopped: interrupted" in summary.render()


MATCH = [sys.executable, "-m", "hanamikoji.cli", "match"]


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc")
def test_sigterm_while_the_workers_start_leaves_none_behind() -> None:
    """SIGTERM to the match's process group (what `timeout` sends) the moment its first
    worker exists. It was lost inside the fork (the match ran on, hung), or killed workers
    holding the pool's lock (its stop hung), or was printed by a starting worker as a
    traceback: now it stops the match, with no traceback and no process left behind."""
    jobs = str(local_jobs_max())
    proc = subprocess.Popen(
        [*MATCH, "random", "greedy", "--games", "1000000", "--jobs", jobs],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=_foreground_job,
    )
    seen: set[int] = set()
    try:
        deadline = time.monotonic() + 30.0
        while not seen and time.monotonic() < deadline and proc.poll() is None:
            seen.update(descendants(proc.pid))
        assert seen, "no worker started"
        os.killpg(proc.pid, signal.SIGTERM)
        try:  # (a worker that cannot stop is killed after STOP_GRACE_S)
            _, err = proc.communicate(timeout=STOP_GRACE_S + 10)
        except subprocess.TimeoutExpired:
            pytest.fail(f"still running after SIGTERM: {descendants(proc.pid)} below it")
    finally:
        if proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert "Traceback" not in err, err
    deadline = time.monotonic() + 3.0
    while any(alive(p) for p in seen) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert [p for p in seen if alive(p)] == []
    # and none re-parented elsewhere: no process of this match is left anywhere
    left = [
        pid
        for pid in map(int, filter(str.isdigit, os.listdir("/proc")))
        if alive(pid) and f"--jobs\0{jobs}" in _cmdline(pid) and "1000000" in _cmdline(pid)
    ]
    assert left == [], left


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc")
@pytest.mark.parametrize("command", ["match", "tournament"])
def test_a_killed_match_leaves_no_worker_or_engine_behind(command: str) -> None:
    """SIGKILL gives the main process no time to stop its pool: its workers played their pairs
    on (here, waiting a minute on engines that never answer) for nobody. Now they stop, and
    stop their engines, as soon as it is gone."""
    games = "--games" if command == "match" else "--games-per-pair"
    args = [command, "random", broken("sleep"), games, "1000", "--jobs", "2", "--clock-ms", "60000"]
    proc = subprocess.Popen(
        [sys.executable, "-m", "hanamikoji.cli", *args],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        preexec_fn=_foreground_job,
    )
    seen: set[int] = set()
    try:
        # Two workers, each with its engine asleep at its first act (the engine started once
        # to be checked has gone by then).
        deadline = time.monotonic() + 30.0
        while len(seen) < 4 and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.1)
            seen = {p for p in descendants(proc.pid) if alive(p)}
        assert len(seen) >= 4, seen
        time.sleep(0.3)
        seen.update(p for p in descendants(proc.pid) if alive(p))
        proc.kill()  # the main process alone, as the OOM killer would
        proc.wait()
        deadline = time.monotonic() + 5.0
        while any(alive(p) for p in seen) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert [p for p in seen if alive(p)] == []
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        for pid in seen:  # after a failure: workers, and engines in groups of their own
            with contextlib.suppress(ProcessLookupError):
                os.killpg(pid, signal.SIGKILL)


WATCHER = """
import os, sys, time
from hanamikoji.match import backends
if os.fork() == 0:  # the worker, watching as where the kernel cannot be asked
    print(os.getpid(), flush=True)
    backends._watch_parent(os.getppid())
    sys.exit(3)  # (never reached: the watch ends with os._exit)
time.sleep(60)
"""


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc")
def test_a_worker_that_watches_its_parent_stops_when_it_dies() -> None:
    """The fallback where Linux's parent-death signal is not to be had: a thread polling."""
    proc = subprocess.Popen([sys.executable, "-c", WATCHER], stdout=subprocess.PIPE, text=True)
    worker = 0
    try:
        assert proc.stdout is not None
        worker = int(proc.stdout.readline())
        time.sleep(0.3)
        assert alive(worker)
        proc.kill()
        proc.wait()
        deadline = time.monotonic() + 3.0
        while alive(worker) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not alive(worker)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        if worker and alive(worker):
            os.kill(worker, signal.SIGKILL)


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc")
def test_sigterm_before_the_first_game_ends_says_no_games_and_exits_143() -> None:
    """Stopped before any game ended, the summary said "score of A: 50.0%", "Elo +0.0" and an
    empty "endings:", and the status was Ctrl-C's 130: now "no games played", and 143."""
    proc = subprocess.Popen(
        [*MATCH, "random", broken("sleep"), "--games", "2", "--clock-ms", "60000"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=_foreground_job,
    )
    try:
        # The engine is started once to be checked, then again for the game: once a second
        # one runs, the game is under way (and the engine sleeps at its first act).
        engines: set[int] = set()
        deadline = time.monotonic() + 30.0
        while len(engines) < 2 and time.monotonic() < deadline and proc.poll() is None:
            engines.update(descendants(proc.pid))
            time.sleep(0.02)
        if len(engines) < 2:  # (say why: the match's own words if it ended meanwhile)
            ended = proc.poll()
            said = proc.communicate(timeout=5) if ended is not None else ("", "")
            raise AssertionError(
                f"the game's engine never started: engines {sorted(engines)}, the match "
                f"{'ended with ' + str(ended) if ended is not None else 'still running'}; "
                f"stdout {said[0][-500:]!r}; stderr {said[1][-1500:]!r}"
            )
        time.sleep(0.5)
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=STOP_GRACE_S + 10)
    finally:
        if proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert proc.returncode == 143, err
    assert "games 0 of 2 (0 pairs on shared deals), stopped: interrupted\nno games played\n" in out
    assert "score" not in out and "Elo" not in out and "endings" not in out


def test_a_summary_of_no_games_makes_up_no_score() -> None:
    summary = MatchSummary("a", "b", 40, stopped="interrupted")
    text = summary.render()
    assert "no games played" in text
    assert "50.0%" not in text and "Elo" not in text and "endings" not in text
    data = summary.to_json()
    assert data["games"] == 0
    assert data["score"] is None and data["elo"] is None and data["elo_95"] == [None, None]


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_text(errors="replace")
    except OSError:
        return ""


def _send_a_big_result(queue: Any) -> None:
    worker_started(lambda: None)
    # Another thread takes the signal, as an engine's reading thread can: Python still runs
    # the handler in this one, wherever it is.
    threading.Thread(target=time.sleep, args=(30,), daemon=True).start()
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM})
    queue.put(b"r" * 1_000_000)  # more than the pipe holds: the send waits for the reader


def _within(seconds: float, call: Callable[[], Any]) -> tuple[bool, Any]:
    """``call()`` in a thread: whether it returned within ``seconds``, and what it returned."""
    got: list[Any] = []
    thread = threading.Thread(target=lambda: got.append(call()), daemon=True)
    thread.start()
    thread.join(seconds)
    return (not thread.is_alive(), got[0] if got else None)


def test_a_worker_stopped_while_it_sends_a_result_leaves_the_queue_usable() -> None:
    """The pool's queue of results has one write lock for every writer. A worker stopped
    (SIGTERM: the pool terminated) in the middle of a send died holding it, and the pool's own
    last write waited for it for ever: a parallel match's Ctrl-C then took the whole kill
    deadline (about one in sixteen under load). The worker now finishes its send first."""
    ctx = multiprocessing.get_context("fork")
    queue = sends_whole(ctx.SimpleQueue())  # as the pool's results' queue is
    worker = ctx.Process(target=_send_a_big_result, args=(queue,))
    worker.start()
    try:
        deadline = time.monotonic() + 10.0
        while queue.empty() and time.monotonic() < deadline:  # its send is under way
            time.sleep(0.01)
        assert not queue.empty()
        assert worker.pid is not None
        os.kill(worker.pid, signal.SIGTERM)
        time.sleep(0.2)
        whole, result = _within(5.0, queue.get)
        assert whole, "the result was cut off by the worker's stop"
        assert result == b"r" * 1_000_000
        worker.join(5.0)
        assert worker.exitcode == 0  # SIGTERM's handler ran once the send was done
        assert _within(5.0, lambda: queue.put("after"))[0], "the queue's write lock was lost"
        assert queue.get() == "after"
    finally:
        if worker.is_alive():
            worker.kill()
            worker.join()


WORKER_MID_WRITE = """
import json, sys, time
from hanamikoji.match import backends as match
from hanamikoji.state import Rules, State
config = match.MatchConfig("random", sys.argv[1], games=2)
match._init_worker(config)  # what each local worker process runs first
engine = match._WORKER["players"]["B"]._get()
state = State.new(1)
engine.new_game(0, Rules(), None)
act = {"type": "act", "view": state.view(0).to_json(),
       "legal": [str(m) for m in state.legal_moves], "clock_ms": 100}
engine.transport.send(json.dumps(act))  # the engine reads it, then sleeps: its input fills up
print(engine.transport._proc.pid, flush=True)
try:
    while True:
        engine.transport.send("x" * 65536)  # blocks once the pipe is full
except BaseException as e:
    print(f"survived SIGTERM: {type(e).__name__}: {e}", flush=True)
    time.sleep(30)
"""


def test_a_worker_stops_at_sigterm_even_in_the_middle_of_a_write() -> None:
    """pool.terminate() (Ctrl-C, SPRT stop) SIGTERMs the workers and then waits for them.

    A worker interrupted while it writes to its engine must still stop, and stop its engine:
    otherwise the match waits for it for ever.
    """
    proc = subprocess.Popen(
        [sys.executable, "-c", WORKER_MID_WRITE, broken("sleep")],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    engine_pid = 0
    try:
        assert proc.stdout is not None
        engine_pid = int(proc.stdout.readline())
        time.sleep(0.5)  # now blocked in the write
        proc.send_signal(signal.SIGTERM)
        try:
            out, err = proc.communicate(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
            out, err = proc.communicate()
            pytest.fail(f"the worker did not stop at SIGTERM: {out.strip()} {err[-300:]}")
        assert proc.returncode == 0, err
        deadline = time.monotonic() + 3.0
        while alive(engine_pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not alive(engine_pid)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        if engine_pid and alive(engine_pid):
            os.killpg(engine_pid, signal.SIGKILL)


# -- Ray -------------------------------------------------------------------------------------


@pytest.mark.slow
def test_ray_backend_gives_exactly_the_local_results(tmp_path: Path) -> None:
    pytest.importorskip("ray", reason="Ray is not installed (pip install '.[ray]')")
    local = run_match(
        MatchConfig("random", "greedy", games=12, seed=5, jobs=2, records=tmp_path / "local")
    )
    ray = run_match(
        MatchConfig(
            "random", "greedy", games=12, seed=5, jobs=2, backend="ray", records=tmp_path / "ray"
        )
    )
    assert ray.pentanomial == local.pentanomial
    assert same(ray) == same(local)
    assert record_files(tmp_path / "ray") == record_files(tmp_path / "local")


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc")
def test_sigterm_stops_a_ray_match_as_ctrl_c_does() -> None:
    """ray.init put its own SIGTERM handlers in place of the match's: SIGTERM aborted the match
    with a stack dump and no result. Now it prints the result so far and leaves nothing behind."""
    pytest.importorskip("ray", reason="Ray is not installed (pip install '.[ray]')")
    proc = subprocess.Popen(
        [*MATCH, "random", "greedy", "--games", "1000000", "--jobs", "2", "--backend", "ray"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=_foreground_job,
        env={**os.environ, "RAY_ADDRESS": ""},  # a Ray of its own, not one found on the machine
    )
    seen: list[int] = []
    try:
        deadline = time.monotonic() + 120.0
        while time.monotonic() < deadline and proc.poll() is None:
            seen = descendants(proc.pid)
            if any("PairRunner" in _cmdline(pid) for pid in seen):
                break
            time.sleep(0.2)
        assert any("PairRunner" in _cmdline(pid) for pid in seen), "no Ray actor started"
        time.sleep(1.0)  # pairs under way
        seen = descendants(proc.pid)
        proc.send_signal(signal.SIGTERM)
        try:
            out, err = proc.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            pytest.fail(f"still running after SIGTERM: {descendants(proc.pid)} below it")
    finally:
        if proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert "SIGTERM received" not in err and "Traceback" not in err, err
    assert "stopped: interrupted" in out, (proc.returncode, err)
    assert proc.returncode == 143  # 128 + SIGTERM, as a shell reports it (Ctrl-C: 130)
    deadline = time.monotonic() + 10.0
    while any(alive(p) for p in seen) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert [p for p in seen if alive(p)] == []


def test_a_chaotic_engine_never_stops_the_match() -> None:
    summary = run_match(
        MatchConfig(
            "greedy", broken("chaos"), games=24, seed=4, clock_ms=1, hard_limit_ms=1001, jobs=2
        )
    )
    assert summary.games == 24
    assert summary.forfeits, "one act in ten misbehaves: some of 24 games must be forfeits"
    kinds = {why.split(": ")[1] for _, _, why in summary.forfeits}
    assert kinds <= {"crash", "garbage", "illegal", "timeout"}
    assert all(side == "B" for _, side, _ in summary.forfeits)


# -- size ------------------------------------------------------------------------------------


def test_a_pool_draws_its_work_as_it_goes() -> None:
    """The pool is handed a few items ahead of the results, never the whole list."""
    from hanamikoji.match.backends import AHEAD_PER_JOB, in_pool

    drawn = 0

    def items() -> Any:
        nonlocal drawn
        for i in range(10**6):
            drawn += 1
            if drawn > 1000:
                raise AssertionError("the work was drawn all at once")
            yield i

    results = in_pool(2, _nothing, (), abs, items(), count=10**6)
    got = [next(results) for _ in range(10)]
    results.close()
    assert len(got) == 10
    assert drawn <= 10 + AHEAD_PER_JOB * 2 + 1


def _nothing() -> None:
    """A pool worker's initializer with nothing to set up."""


def test_a_match_of_a_trillion_games_starts_at_once_and_stops_cleanly() -> None:
    seen: list[int] = []

    def stop_after_two(summary: MatchSummary) -> None:
        seen.append(summary.games)
        if len(seen) == 2:
            raise KeyboardInterrupt

    config = MatchConfig("random", "random", games=10**12, jobs=2, rules=Rules(1))
    summary = run_match(config, on_pair=stop_after_two)
    assert summary.stopped == "interrupted"
    assert summary.games == 4 and summary.planned == 10**12
