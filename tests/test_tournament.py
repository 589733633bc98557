"""Tournaments: the rating fit, the schedule, resuming, players left out, JSON, the CLI."""

from __future__ import annotations

import contextlib
import dataclasses
import doctest
import json
import os
import random
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

import hanamikoji.rating
import hanamikoji.tournament as tournament_module
from conftest import run_cli
from hanamikoji.ai.greedy import GreedyAgent
from hanamikoji.ai.levels import LEVELS
from hanamikoji.match import AgentPlayer, MatchError, make_player, play_pair
from hanamikoji.rating import RatingError, fit_ratings
from hanamikoji.state import Rules
from hanamikoji.stats import score_from_elo
from hanamikoji.tournament import (
    Tournament,
    TournamentConfig,
    _Table,
    identity,
    run_tournament,
    schedule,
)

PY = shlex.quote(sys.executable)
BROKEN = Path(__file__).resolve().parent / "engines" / "broken_engine.py"
HOSTILE = Path(__file__).resolve().parent / "engines" / "hostile_engine.py"


def broken(mode: str) -> str:
    return f"cmd:{PY} {shlex.quote(str(BROKEN))} {mode}"


# -- the fit ---------------------------------------------------------------------------------


def simulate(true: dict[str, float], games: int, seed: int) -> list[tuple[str, str, float, int]]:
    """Every two players play ``games`` games drawn from the model (10% draws)."""
    rng = random.Random(seed)
    names = list(true)
    rows = []
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            p = score_from_elo(true[a] - true[b])
            points = 0.0
            for _ in range(games):
                u = rng.random()
                # a draw (half a point) takes 10% out of the middle, keeping the mean at p
                points += 0.5 if abs(u - p) < 0.05 else 1.0 if u < p else 0.0
            rows.append((a, b, points, games))
    return rows


def test_the_fit_recovers_known_ratings_within_its_intervals() -> None:
    true = {"r": 0.0, "a": 100.0, "b": 250.0, "c": 400.0, "d": 420.0}
    fit = fit_ratings(simulate(true, 400, seed=7), anchor="r")
    for name, elo in true.items():
        lo, hi = fit.intervals[name]
        assert lo <= elo <= hi, (name, elo, fit.intervals[name])
        assert abs(fit.ratings[name] - elo) < 45
    assert fit.ratings["r"] == 0.0 and fit.intervals["r"] == (0.0, 0.0)
    assert fit.unrated == ()


def test_exact_scores_give_exact_differences() -> None:
    # Expected scores in huge numbers: the fit returns the ratings that produced them.
    true = {"x": 0.0, "y": 150.0, "z": -80.0}
    n = 10**6
    rows = [
        (a, b, n * score_from_elo(true[a] - true[b]), n)
        for a, b in (("x", "y"), ("y", "z"), ("x", "z"))
    ]
    fit = fit_ratings(rows, anchor="x", prior_draws=0)
    for name, elo in true.items():
        assert fit.ratings[name] == pytest.approx(elo, abs=0.01)


def test_a_difference_between_two_players_has_its_own_interval() -> None:
    true = {"r": 0.0, "a": 500.0, "b": 520.0}
    fit = fit_ratings(simulate(true, 300, seed=11), anchor="r")
    d, lo, hi = fit.difference("b", "a")
    assert d == pytest.approx(fit.ratings["b"] - fit.ratings["a"])
    assert lo <= 20.0 <= hi
    # Both are far from the anchor, so their own intervals are wider than their difference's.
    assert hi - lo < fit.intervals["a"][1] - fit.intervals["a"][0]
    # Against the anchor, the difference's interval is the player's own.
    _, lo_r, hi_r = fit.difference("a", "r")
    assert (lo_r, hi_r) == pytest.approx(fit.intervals["a"])


def test_the_anchor_only_shifts_the_scale() -> None:
    rows = simulate({"p": 0.0, "q": 200.0, "s": 50.0}, 100, seed=3)
    one = fit_ratings(rows, anchor="p")
    two = fit_ratings(rows, anchor="q", anchor_elo=1500.0)
    assert two.ratings["q"] == 1500.0
    shift = two.ratings["p"] - one.ratings["p"]
    for name in ("p", "q", "s"):
        assert two.ratings[name] - one.ratings[name] == pytest.approx(shift, abs=1e-6)
    with pytest.raises(RatingError, match="the anchor 'nobody' is not among the players"):
        fit_ratings(rows, anchor="nobody")


def test_a_player_who_wins_everything_gets_a_finite_rating() -> None:
    # The prior (one virtual draw per pairing) keeps a perfect score finite and its interval
    # entirely above the players it beat.
    rows = [("top", "a", 20.0, 20), ("top", "b", 20.0, 20), ("a", "b", 10.0, 20)]
    fit = fit_ratings(rows, anchor="a")
    lo = fit.intervals["top"][0]
    assert 300 < fit.ratings["top"] < 1000
    assert lo > max(fit.intervals["b"][1], 0.0)
    rows = [("bottom", "a", 0.0, 20), ("a", "b", 10.0, 20)]
    assert -1000 < fit_ratings(rows, anchor="a").ratings["bottom"] < -300


def test_players_without_games_linking_them_are_unrated() -> None:
    fit = fit_ratings([("a", "b", 3.0, 4), ("c", "d", 1.0, 2)], anchor="a", players=["e"])
    assert set(fit.ratings) == {"a", "b"}
    assert set(fit.unrated) == {"c", "d", "e"}


# -- the schedule ----------------------------------------------------------------------------


def test_round_robin_and_gauntlet_pairings() -> None:
    players = ("a", "b", "c", "d")
    assert schedule(players, None) == [
        ("a", "b"),
        ("a", "c"),
        ("a", "d"),
        ("b", "c"),
        ("b", "d"),
        ("c", "d"),
    ]
    assert schedule(players, "c") == [("c", "a"), ("c", "b"), ("c", "d")]
    config = TournamentConfig(("random", "greedy"), gauntlet="level:easy", games_per_pair=3)
    assert config.all_players == ("level:easy", "random", "greedy")
    assert config.pairs_per_pairing == 2


def test_every_pairing_plays_the_same_deals_for_a_pair_index() -> None:
    config = TournamentConfig(("random", "greedy", "level:beginner"), seed=5)
    table = _Table(config)
    try:
        deals = {}
        for a, b in schedule(config.all_players, None):
            _, _, pair = table.play((a, b, 1))
            deals[a, b] = [g.record["rounds"][0]["hands"] for g in pair.games]
            assert pair.games[0].seat_of_a == 0 and pair.games[1].seat_of_a == 1
    finally:
        table.close()
    first = next(iter(deals.values()))
    assert first[0] == first[1]  # the pair: the same deal twice
    assert all(d == first for d in deals.values())


@pytest.mark.parametrize(
    ("kwargs", "says"),
    [
        ({"players": ("random",)}, "at least two players"),
        ({"players": ("random", "random")}, "named twice"),
        ({"players": ("random", "greedy"), "anchor": "master"}, "--anchor 'master' is not"),
        ({"players": ("random", "greedy"), "games_per_pair": 0}, "--games-per-pair"),
        ({"players": ("random", "greedy"), "jobs": 0}, "--jobs"),
        (
            {"players": ("random", "greedy"), "gauntlet": "foo"},
            r"--gauntlet 'foo' must be one of the players \(random, greedy\) or another player",
        ),
        ({"players": ("random", "greedy"), "state": Path("/nonexistent/x.json")}, "does not"),
    ],
)
def test_config_rejects_bad_values(kwargs: dict[str, Any], says: str) -> None:
    with pytest.raises(MatchError, match=says):
        TournamentConfig(**kwargs)


# -- running, resuming -----------------------------------------------------------------------


def comparable(t: Tournament) -> dict[str, Any]:
    out = t.to_json()
    for key in ("seconds", "resumed_games", "stopped"):
        del out[key]
    return out


def test_a_tournament_counts_every_game() -> None:
    config = TournamentConfig(("greedy", "random", "level:beginner"), games_per_pair=4, seed=2)
    t = run_tournament(config)
    assert t.games == t.planned == 12
    data = t.to_json()
    assert sum(r["games"] for r in data["ratings"]) == 24
    cross = data["cross_table"]
    for a in cross:
        for b, cell in cross[a].items():
            assert cell["games"] == 4
            assert cell["points"] + cross[b][a]["points"] == 4
            assert cell["wins"] == cross[b][a]["losses"]


def test_parallel_gives_exactly_the_serial_results() -> None:
    players = ("greedy", "random", "level:beginner")
    serial = run_tournament(TournamentConfig(players, games_per_pair=4, seed=3))
    parallel = run_tournament(TournamentConfig(players, games_per_pair=4, seed=3, jobs=2))
    assert comparable(serial) == comparable(parallel)


@pytest.fixture
def played(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, str, int]]:
    """The pairs played from here on, as (A, B, pair index), in order."""
    out: list[tuple[str, str, int]] = []
    real = play_pair

    def counting(players: Any, config: Any, index: int) -> Any:
        out.append((config.a, config.b, index))
        return real(players, config, index)

    monkeypatch.setattr(tournament_module, "play_pair", counting)
    return out


def test_resume_plays_only_the_pairs_not_yet_played(
    tmp_path: Path, played: list[tuple[str, str, int]]
) -> None:
    state = tmp_path / "t.json"
    config = TournamentConfig(("greedy", "random", "level:easy"), games_per_pair=6, state=state)

    def stop_after_four(t: Tournament) -> None:
        if len(t.pairs) == 4:
            raise KeyboardInterrupt

    first = run_tournament(config, on_pair=stop_after_four)
    assert first.stopped == "interrupted"
    assert len(played) == 4 and len(set(played)) == 4
    assert len(json.loads(state.read_text())["pairs"]) == 4
    assert list(tmp_path.iterdir()) == [state]  # no temporary file left behind
    if sys.platform != "win32":
        umask = os.umask(0)
        os.umask(umask)
        assert state.stat().st_mode & 0o777 == 0o666 & ~umask
    before = list(played)
    second = run_tournament(config)
    assert second.resumed == 4 and second.stopped is None
    assert len(played) == 9  # 3 pairings x 3 pairs, each once
    assert set(played[4:]).isdisjoint(before)
    assert sorted(played) == sorted({*played})
    again = run_tournament(config)  # all played: nothing more
    assert len(played) == 9 and again.games == 18
    fresh = run_tournament(TournamentConfig(config.players, games_per_pair=6))
    assert comparable(second) == comparable(fresh)


def test_a_player_changed_since_the_state_file_plays_its_pairs_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, played: list[tuple[str, str, int]]
) -> None:
    """The state file remembers what each player was: when ``level:easy`` stands for another
    agent than when its pairs were played, exactly its pairs are played again, and the file
    then holds the new results."""
    state = tmp_path / "t.json"
    config = TournamentConfig(("greedy", "random", "level:easy"), games_per_pair=4, state=state)
    first = run_tournament(config)
    assert len(played) == 6 and first.changed == []
    saved = json.loads(state.read_text())["identities"]
    assert set(saved) == {"greedy", "random", "level:easy"}
    assert saved["greedy"] != saved["level:easy"]  # the level is named: not greedy itself
    monkeypatch.setitem(LEVELS, "easy", lambda: GreedyAgent(hand_weight=0.9))
    second = run_tournament(config)
    assert second.changed == ["level:easy"]
    assert second.resumed == 2  # greedy against random, both pairs
    again = [(a, "level:easy", i) for a in ("greedy", "random") for i in (0, 1)]
    assert sorted(played[6:]) == sorted(again)
    assert "changed since the state file: level:easy" in second.render()
    assert second.to_json()["changed"] == ["level:easy"]
    assert json.loads(state.read_text())["identities"]["level:easy"] != saved["level:easy"]
    third = run_tournament(config)  # the same again: nothing to play
    assert len(played) == 10 and third.changed == [] and third.games == 12


def test_a_state_file_without_identities_resumes_and_records_them(tmp_path: Path) -> None:
    state = tmp_path / "t.json"
    config = TournamentConfig(("greedy", "random"), games_per_pair=4, state=state)
    run_tournament(config)
    data = json.loads(state.read_text())
    del data["identities"]  # as written before identities were kept
    del data["pairs"][1:]
    state.write_text(json.dumps(data))
    again = run_tournament(config)
    assert again.resumed == 1 and again.changed == [] and again.games == 4
    assert set(json.loads(state.read_text())["identities"]) == {"greedy", "random"}
    data["identities"] = {"greedy": 5}
    state.write_text(json.dumps(data))
    with pytest.raises(MatchError, match="identities are not an object of strings"):
        run_tournament(config)


def test_an_identity_tells_settings_apart() -> None:
    def of(spec: str) -> str:
        player = make_player(spec)
        try:
            return identity(player)
        finally:
            player.close()

    assert of("master:iterations=100") == of("master:iterations=100")
    assert of("master:iterations=100") != of("master:iterations=200")
    assert of("master:iterations=100") != of("master:iterations=100,puct=2")
    assert of("master") != of("master-1")
    assert of("level:hard") != of("master:iterations=1000")  # a level is named
    net = make_player("net")
    assert isinstance(net, AgentPlayer)
    shipped = identity(net)
    weights = net.agent.net  # type: ignore[attr-defined]
    net.agent.net = dataclasses.replace(weights, bv=weights.bv + 1)  # type: ignore[attr-defined]
    assert len(shipped) == 16 and identity(net) != shipped  # the network's weights count
    good = broken("good")
    assert of(good) == of(good)  # the engine's hello: its name and version


def test_a_state_file_of_another_tournament_is_refused(tmp_path: Path) -> None:
    state = tmp_path / "t.json"
    run_tournament(TournamentConfig(("greedy", "random"), games_per_pair=2, state=state))
    with pytest.raises(MatchError, match=r"another tournament \(games_per_pair: 2 there, 4 now\)"):
        run_tournament(TournamentConfig(("greedy", "random"), games_per_pair=4, state=state))
    with pytest.raises(MatchError, match="players: "):
        run_tournament(TournamentConfig(("greedy", "level:easy"), games_per_pair=2, state=state))
    state.write_text("{not json")
    with pytest.raises(MatchError, match="cannot read the state file"):
        run_tournament(TournamentConfig(("greedy", "random"), games_per_pair=2, state=state))


def test_an_engine_that_cannot_start_is_left_out_and_reported() -> None:
    config = TournamentConfig(
        ("greedy", "cmd:/nonexistent/engine", "random", broken("nohello"), "nosuchagent"),
        games_per_pair=2,
    )
    t = run_tournament(config)
    assert t.players == ["greedy", "random"]
    assert set(t.dropped) == {"cmd:/nonexistent/engine", broken("nohello"), "nosuchagent"}
    assert "unknown agent" in t.dropped["nosuchagent"]
    assert t.games == t.planned == 2
    data = t.to_json()
    assert [d["player"] for d in data["dropped"]] == list(t.dropped)
    assert "left out: cmd:/nonexistent/engine: " in t.render()


def test_forfeits_are_counted_for_the_engine_that_made_them() -> None:
    crash = broken("crash")
    t = run_tournament(
        TournamentConfig(("greedy", crash, "random"), games_per_pair=2, clock_ms=100)
    )
    forfeits = {r["player"]: r["forfeits"] for r in t.to_json()["ratings"]}
    assert forfeits == {"greedy": 0, "random": 0, crash: 4}


def test_forfeits_are_listed_with_their_reasons() -> None:
    crash, illegal = broken("crash"), broken("illegal")
    t = run_tournament(TournamentConfig(("random", crash, illegal), games_per_pair=8, clock_ms=100))
    listed = t.to_json()["forfeits"]
    assert len(listed) == 3 * 8  # every game of the three pairings ends in a forfeit
    first = listed[0]
    assert first == {"player": crash, "opponent": "random", "game": 1, "why": first["why"]}
    assert first["why"].startswith("seat 1: crash: crashed (exit status 3)")
    assert {(f["player"], f["opponent"]) for f in listed} == {
        (crash, "random"),
        (crash, illegal),
        (illegal, "random"),
        (illegal, crash),
    }
    # Between the two engines, the one asked first forfeits; a pairing's games number 1..8.
    assert all(1 <= f["game"] <= 8 for f in listed)
    assert all(": illegal: illegal move " in f["why"] for f in listed if f["player"] == illegal)
    text = t.render()
    assert "forfeits of " + crash + ": " in text
    assert "  against random, game 1: seat 1: crash: crashed (exit status 3)" in text
    assert "... and " in text and "more (--json lists all)" in text


def test_engines_restarted_between_games_are_listed_as_a_match_lists_them(
    tmp_path: Path,
) -> None:
    # It dies reading each result: found dead before games 2, 3 and 4 of its pairing, and
    # restarted for each (no forfeit). The state file keeps them for a resumed run.
    dies = f"cmd:{PY} {shlex.quote(str(HOSTILE))} die-on-result"
    config = TournamentConfig(
        ("random", dies), games_per_pair=4, clock_ms=100, state=tmp_path / "s.json"
    )
    for played in (4, 0):
        t = run_tournament(config)
        assert t.games == 4 and t.resumed == 2 - played // 2
        assert t.to_json()["forfeits"] == []
        listed = t.to_json()["restarts"]
        assert [(r["player"], r["opponent"], r["game"]) for r in listed] == [
            (dies, "random", n) for n in (2, 3, 4)
        ]
        for r in listed:
            assert r["why"].startswith("its engine ended before its first move in this game")
            assert "died reading result" in r["why"] and r["why"].endswith(": restarted")
        text = t.render()
        assert "engines restarted between games: 3\n" in text
        assert f"  {dies}, against random, before game 2: {listed[0]['why']}\n" in text


def test_json_shape() -> None:
    t = run_tournament(
        TournamentConfig(("random", "greedy"), games_per_pair=2, anchor="random", anchor_elo=100)
    )
    data = json.loads(json.dumps(t.to_json()))
    assert set(data) == {
        "format",
        "kind",
        "players",
        "dropped",
        "anchor",
        "games",
        "planned",
        "resumed_games",
        "changed",
        "ratings",
        "forfeits",
        "restarts",
        "cross_table",
        "stopped",
        "seconds",
    }
    assert data["anchor"] == {"player": "random", "elo": 100.0}
    assert set(data["ratings"][0]) == {
        "player",
        "elo",
        "elo_95",
        "games",
        "score",
        "forfeits",
        "gap_below",
    }
    top, bottom = data["ratings"]
    assert top["gap_below"]["player"] == bottom["player"]
    assert top["gap_below"]["elo"][0] == pytest.approx(top["elo"] - bottom["elo"], abs=0.2)
    assert bottom["gap_below"] is None
    anchor_row = next(r for r in data["ratings"] if r["player"] == "random")
    assert anchor_row["elo"] == 100.0 and anchor_row["elo_95"] == [100.0, 100.0]
    assert set(data["cross_table"]["greedy"]["random"]) == {
        "points",
        "games",
        "wins",
        "draws",
        "losses",
    }


# -- the command -----------------------------------------------------------------------------


def test_cli_tournament_json_and_text(tmp_path: Path) -> None:
    args = ["random", "greedy", "level:beginner", "--games-per-pair", "4", "--seed", "1"]
    out = run_cli("tournament", *args, "--anchor", "random=0", "--json", "--jobs", "2")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["games"] == 12 and data["kind"] == "round robin"
    assert data["anchor"] == {"player": "random", "elo": 0.0}
    state = tmp_path / "s.json"
    text = run_cli("tournament", *args, "--anchor", "random=0", "--state", state)
    assert text.returncode == 0, text.stderr
    assert "ratings (one maximum-likelihood fit, random = 0, 95% intervals)" in text.stdout
    assert "cross table" in text.stdout
    again = run_cli("tournament", *args, "--anchor", "random=0", "--state", state, "--json")
    assert json.loads(again.stdout)["resumed_games"] == 12
    gauntlet = run_cli("tournament", "random", "level:beginner", "--gauntlet", "greedy", "--json")
    assert gauntlet.returncode == 0, gauntlet.stderr
    g = json.loads(gauntlet.stdout)
    assert g["kind"] == "gauntlet" and g["players"][0] == "greedy"
    assert "random" not in g["cross_table"]["level:beginner"]


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["random", "greedy", "--anchor", "random"], "--anchor takes PLAYER=ELO"),
        (["random", "greedy", "--anchor", "random=x"], "--anchor takes PLAYER=ELO"),
        (["random", "greedy", "--anchor", "master=0"], "--anchor 'master' is not"),
        (["random"], "at least two players"),
        (["random", "greedy", "--anchor", "random=nan"], "--anchor takes PLAYER=ELO"),
        (["random", "greedy", "--anchor", "random=inf"], "--anchor takes PLAYER=ELO"),
    ],
)
def test_cli_tournament_rejects_bad_arguments(args: list[str], says: str) -> None:
    out = run_cli("tournament", *args)
    assert out.returncode == 2
    assert says in out.stderr
    assert "Traceback" not in out.stderr


def test_cli_tournament_reports_a_player_left_out() -> None:
    out = run_cli(
        "tournament", "random", "greedy", "cmd:/nonexistent/engine", "--games-per-pair", "2"
    )
    assert out.returncode == 0, out.stderr
    assert "left out cmd:/nonexistent/engine" in out.stderr
    assert "2 players, 2 of 2 games" in out.stdout


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_sigterm_stops_with_the_table_so_far_and_the_state_saved(tmp_path: Path) -> None:
    state = tmp_path / "s.json"
    command = [sys.executable, "-m", "hanamikoji.cli", "tournament", "random", "greedy"]
    proc = subprocess.Popen(
        [*command, "--games-per-pair", "1000000", "--jobs", "2", "--state", str(state)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 20
        while not state.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=10)
    finally:
        if proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(proc.pid, signal.SIGKILL)
            proc.wait()
    assert proc.returncode == 143, err  # 128 + SIGTERM (Ctrl-C's is 130)
    assert "Traceback" not in err
    assert "stopped: interrupted" in out
    saved = len(json.loads(state.read_text())["pairs"])
    assert saved >= 1
    assert f"{2 * saved} of 1000000 games" in out


@pytest.mark.parametrize("module", [hanamikoji.rating, tournament_module])
def test_docstring_examples_run(module: Any) -> None:
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0
    assert result.failed == 0


@pytest.mark.slow
def test_ray_backend_gives_exactly_the_local_results() -> None:
    pytest.importorskip("ray", reason="Ray is not installed (pip install '.[ray]')")
    players = ("random", "greedy", "level:beginner")
    local = run_tournament(TournamentConfig(players, games_per_pair=4, seed=5, jobs=2))
    ray = run_tournament(TournamentConfig(players, games_per_pair=4, seed=5, jobs=2, backend="ray"))
    assert comparable(ray) == comparable(local)


def test_a_command_that_cannot_be_split_is_left_out() -> None:
    out = run_cli("tournament", "random", "greedy", "cmd:'unterminated", "--games-per-pair", "2")
    assert out.returncode == 0, out.stderr
    assert "left out cmd:'unterminated" in out.stderr and "quotation" in out.stderr
    assert "2 players, 2 of 2 games" in out.stdout


def test_the_default_anchor_is_the_first_player_that_plays() -> None:
    t = run_tournament(
        TournamentConfig(("cmd:/nonexistent/engine", "random", "greedy"), games_per_pair=2)
    )
    fit = t.fit()
    assert fit is not None and fit.anchor == "random" and not fit.unrated
    assert all(row["elo"] is not None for row in t.to_json()["ratings"])


def test_one_player_left_is_no_tournament() -> None:
    out = run_cli("tournament", "random", "nosuchagent", "--games-per-pair", "2")
    assert "fewer than two players can play" in out.stdout + out.stderr
    assert "Traceback" not in out.stderr


@pytest.mark.parametrize(
    ("players", "says"),
    [
        (["random", "nosuchagent"], "fewer than two players can play"),
        ([broken("nohello"), "cmd:/nonexistent/engine"], "fewer than two players can play"),
        (
            ["random", "greedy", "--gauntlet", broken("nohello")],
            "the gauntlet's player cannot start",
        ),
        (
            ["random", "greedy", broken("nohello"), "--anchor", broken("nohello") + "=0"],
            "the --anchor player cannot start, and without it nobody could be rated",
        ),
    ],
)
def test_a_tournament_that_can_play_nothing_fails_as_a_match_that_cannot_start(
    players: list[str], says: str
) -> None:
    out = run_cli("tournament", *players, "--games-per-pair", "2", "--max-rounds", "1")
    assert out.returncode == 2  # as `match` exits when a player cannot start
    assert out.stdout == ""
    assert "Traceback" not in out.stderr
    lines = out.stderr.splitlines()
    assert all(line.startswith("hanamikoji tournament: left out ") for line in lines[:-1])
    assert lines[-1] == f"hanamikoji tournament: stopped: {says}; nothing played"


def test_a_gauntlet_that_is_no_player_is_refused_before_anything_starts() -> None:
    out = run_cli("tournament", "random", "greedy", "--gauntlet", "foo", "--games-per-pair", "2")
    assert out.returncode == 2
    assert out.stdout == ""
    lines = out.stderr.splitlines()
    assert len(lines) == 1, out.stderr
    assert lines[0].startswith(
        "hanamikoji tournament: --gauntlet 'foo' must be one of the players (random, greedy) "
        "or another player (NAME[:KEY=VALUE,...], level:NAME or cmd:COMMAND): unknown agent 'foo'"
    )


def test_a_state_file_in_a_missing_folder_is_refused_before_anything_is_played(
    tmp_path: Path,
) -> None:
    state = tmp_path / "missing" / "s.json"
    out = run_cli("tournament", "random", "greedy", "--games-per-pair", "2", "--state", state)
    assert out.returncode == 2
    assert out.stdout == ""
    assert out.stderr.splitlines() == [
        f"hanamikoji tournament: cannot keep the state in {state}: "
        f"the folder {state.parent} does not exist"
    ]
    assert not state.parent.exists()
    folder = run_cli("tournament", "random", "greedy", "--state", tmp_path)
    assert folder.returncode == 2
    assert f"--state {tmp_path} is a folder: give a file" in folder.stderr


def test_cli_tournament_says_once_that_odd_games_per_pair_are_rounded_up() -> None:
    args = ["tournament", "random", "greedy", "--max-rounds", "1", "--json"]
    odd = run_cli(*args, "--games-per-pair", "3")
    assert odd.returncode == 0, odd.stderr
    assert json.loads(odd.stdout)["games"] == 4
    note = "hanamikoji tournament: --games-per-pair 3 plays 4 games: games come in duplicate pairs"
    assert [line for line in odd.stderr.splitlines() if "--games-per-pair" in line] == [
        note + " (each deal twice, with the seats swapped)"
    ]
    assert odd.stderr.startswith(note)  # before any game
    even = run_cli(*args, "--games-per-pair", "2")
    assert even.returncode == 0, even.stderr
    assert "--games-per-pair" not in even.stderr


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("[]", "is not a tournament state file"),
        ('{"format": "x"}', "is not a tournament state file"),
    ],
)
def test_a_state_file_that_is_not_one_is_refused(tmp_path: Path, text: str, says: str) -> None:
    state = tmp_path / "s.json"
    state.write_text(text)
    out = run_cli("tournament", "random", "greedy", "--games-per-pair", "2", "--state", str(state))
    assert out.returncode == 2 and says in out.stderr and "internal error" not in out.stderr


def test_a_state_file_with_pairs_this_tournament_cannot_have_played_is_refused(
    tmp_path: Path,
) -> None:
    state = tmp_path / "s.json"
    args = ["tournament", "random", "greedy", "--games-per-pair", "2", "--state", str(state)]
    assert run_cli(*args).returncode == 0
    data = json.loads(state.read_text())
    data["pairs"].append(data["pairs"][0])  # the same pair twice
    state.write_text(json.dumps(data))
    out = run_cli(*args)
    assert out.returncode == 2 and "twice" in out.stderr


def _damaged(pair: dict[str, Any], how: str) -> None:
    """Damage one saved pair of ``random`` against ``greedy`` as ``how`` says."""
    if how == "stranger":
        pair["winners"] = ["mallory", pair["winners"][1]]
    elif how == "three-games":
        pair["winners"] = ["greedy", "greedy", "greedy"]
    elif how == "swapped":
        pair["a"], pair["b"] = pair["b"], pair["a"]
    elif how == "pair-true":
        pair["pair"] = True
    elif how == "forfeit-won":
        pair["winners"], pair["forfeits"] = ["random", None], ["random", None]
    elif how == "why-number":
        pair["why"] = [5, None]
    elif how == "not-object":
        pair.clear()
    elif how == "restart-stranger":
        pair["restarts"] = [[1, "mallory", "its engine ended: restarted"]]


@pytest.mark.parametrize(
    ("how", "says"),
    [
        ("stranger", "winners names 'mallory', not one of the two"),
        ("three-games", "winners must list its two games"),
        ("swapped", "cannot have played: 'greedy' against 'random'"),
        ("pair-true", "a pair index that is not a whole number"),
        ("forfeit-won", "'random' forfeited a game won by 'random'"),
        ("why-number", "why must be two reasons"),
        ("not-object", "a pair whose players are not two names"),
        ("restart-stranger", "restarts must list [game 0 or 1, player, why]"),
    ],
)
def test_a_damaged_state_file_is_refused_rather_than_miscounted(
    tmp_path: Path, how: str, says: str
) -> None:
    """Each of these was taken: a game lost from both players' scores, a pair of three games,
    a pairing played again and counted twice ("6 of 4 games"), ``true`` read as pair 1."""
    state = tmp_path / "s.json"
    args = ["tournament", "random", "greedy", "--games-per-pair", "2", "--state", str(state)]
    args += ["--max-rounds", "1"]
    assert run_cli(*args).returncode == 0
    data = json.loads(state.read_text())
    _damaged(data["pairs"][0], how)
    state.write_text(json.dumps(data))
    out = run_cli(*args)
    assert out.returncode == 2, out.stdout
    assert says in out.stderr and "internal error" not in out.stderr
    assert out.stdout == ""


def test_one_pair_is_one_pair_and_escaped_names_keep_the_columns() -> None:
    """ "(1 duplicate pairs a pairing)"; and a name with a control character, escaped when
    printed, was measured before escaping: its rows stuck out of the tables."""
    red = broken("good") + " " + shlex.quote("\x1b[31mRED")
    out = run_cli("tournament", "random", red, "--games-per-pair", "2", "--max-rounds", "1")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert "(1 duplicate pair a pairing)" in lines[0]
    assert "\\x1b[31mRED" in out.stdout and "\x1b" not in out.stdout
    cross = lines.index("cross table (points of the row's player / games):")
    table = lines[cross + 1 : cross + 4]  # its header and one row a player
    assert len({len(line) for line in table}) == 1, table
    header, ratings = lines[2], lines[3:5]  # one row a player: the Elo column ends alike
    elo_end = header.index("Elo") + len("Elo")
    assert all(row[elo_end - 1] != " " and row[elo_end] == " " for row in ratings), lines[:5]


def test_a_rating_near_zero_is_never_minus_zero() -> None:
    from hanamikoji.tournament import _elo, _num

    assert [_elo(x) for x in (-0.0, -0.4, 0.4, -315.2, 12.6)] == ["+0", "+0", "+0", "-315", "+13"]
    assert str(_num(-0.0)) == str(_num(-0.04)) == "0.0" and _num(None) is None


def test_a_tournament_of_a_trillion_games_a_pairing_starts_at_once() -> None:
    seen: list[int] = []

    def stop_after_three(t: Tournament) -> None:
        seen.append(t.games)
        if len(seen) == 3:
            raise KeyboardInterrupt

    for jobs in (1, 2):
        seen.clear()
        config = TournamentConfig(
            ("random", "greedy", "level:beginner"),
            games_per_pair=10**12,
            jobs=jobs,
            rules=Rules(1),
        )
        t = run_tournament(config, on_pair=stop_after_three)
        assert t.stopped == "interrupted"
        assert t.games == 6 and t.planned == 3 * 10**12
        if jobs == 1:  # pair by pair across the pairings: the first three, one of each
            assert len({(p.a, p.b) for p in t.pairs}) == 3
