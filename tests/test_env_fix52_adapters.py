"""The research adapters' arguments and ends, as docs/research.md states them: OpenSpiel's
``load`` and ``ismcts_bot`` check what the other adapters check, the Gymnasium env's mask is
empty at every end and its ``reset`` takes the options it knows and refuses the rest, PettingZoo
refuses a game never reset and names its agents, and the OpenSpiel example prints the number
the page shows. Each extra's tests skip when it is not installed."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parent.parent

# Gymnasium warns that v0 is "out of date" (v1 is another layout); pytest's own filters come
# before the one the module installs (docs/research.md, Versions).
pytestmark = pytest.mark.filterwarnings("ignore:.*Hanamikoji-v0 is out of date:DeprecationWarning")


def _openspiel() -> Any:
    pytest.importorskip("pyspiel", reason="the research extra is not installed")
    pytest.importorskip("open_spiel", reason="the research extra is not installed")
    import hanamikoji.env.openspiel as hos

    return hos


def _gym() -> Any:
    gymnasium = pytest.importorskip("gymnasium", reason="the research extra is not installed")
    import hanamikoji.env.gym  # noqa: F401  (registers the ids)

    return gymnasium


def _pettingzoo() -> Any:
    pytest.importorskip("pettingzoo", reason="the research extra is not installed")
    from hanamikoji.env import hanamikoji_v0

    return hanamikoji_v0


# -- OpenSpiel -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("max_rounds", "parameter"),
    [(None, 0), (np.int64(2), 2), (np.int32(1), 1), (3, 3), (0, 0)],
)
def test_openspiel_load_takes_what_the_other_adapters_take(max_rounds: Any, parameter: int) -> None:
    # None: SpielError "Expected type: kInt, got kUnset"; np.int64(2): "not iterable".
    hos = _openspiel()
    game = hos.load(max_rounds=max_rounds)
    assert game.get_parameters()["max_rounds"] == parameter
    assert game.variant.max_rounds == parameter


@pytest.mark.parametrize("max_rounds", [-1, 1.5, "3", True, np.float64(2.0)])
def test_openspiel_load_refuses_what_the_other_adapters_refuse(max_rounds: Any) -> None:
    hos = _openspiel()
    with pytest.raises(ValueError, match="max_rounds must be a positive whole number or None"):
        hos.load(max_rounds=max_rounds)


@pytest.mark.parametrize("max_rounds", [2**40, 2**31 - 1, 178_956_971])
def test_openspiel_refuses_a_game_longer_than_its_32_bit_length(max_rounds: int) -> None:
    # 2**40: pybind's "Unable to cast Python instance"; 2**31 - 1: "incompatible constructor
    # arguments" from GameInfo (12 moves a round overflow its int). The bound on the
    # information-state tensor's size (test_env_fix53_openspiel.py) now refuses them first.
    hos = _openspiel()
    import pyspiel

    with pytest.raises(ValueError, match=r"max_rounds must be at most 4210 here, or None"):
        hos.load(max_rounds=max_rounds)
    if max_rounds < 2**31:  # load_game itself: its own "no limit" is 0
        with pytest.raises(ValueError, match=r"max_rounds must be at most 4210 here, or 0"):
            pyspiel.load_game("python_hanamikoji", {"max_rounds": max_rounds})
    assert hos.load(max_rounds=4210).max_game_length() == 4210 * 12


@pytest.mark.parametrize(
    "options",
    [{"simulations": 0}, {"simulations": -3}, {"simulations": 2.0}, {"simulations": True},
     {"rollouts": 0}, {"seed": -1}],
)  # fmt: skip
def test_openspiel_ismcts_bot_refuses_bad_counts_at_construction(options: dict[str, Any]) -> None:
    # simulations=0 was taken, and the bot's first step failed on a bare AssertionError.
    hos = _openspiel()
    game = hos.load(max_rounds=1)
    (name,) = options
    with pytest.raises(ValueError, match=rf"^{name} must be .*, got {options[name]!r}$"):
        hos.ismcts_bot(game, **options)
    assert hos.ismcts_bot(game, simulations=np.int64(3), seed=np.int64(1)) is not None


def test_openspiel_example_prints_the_number_the_page_shows() -> None:
    # Unseeded, the page's 0.059 came out 0.092 or 0.061 from one run to the next.
    _openspiel()
    text = (ROOT / "docs/research.md").read_text()
    section = text.split("## OpenSpiel\n", 1)[1]
    block = section.split("```python\n", 1)[1].split("```", 1)[0]
    shown = re.findall(r"^# (exploitability: .*)$", block, flags=re.MULTILINE)
    assert len(shown) == 1, "the example shows what it prints"
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(block, "docs/research.md", "exec"), {})
    assert out.getvalue().splitlines()[-1] == shown[0]
    number = shown[0].rsplit(" ", 1)[1]
    assert f"{number} after 300 external-sampling iterations" in section


# -- Gymnasium -----------------------------------------------------------------------------


def test_gym_mask_and_legal_are_empty_after_an_illegal_action() -> None:
    # The episode ended, yet info showed the 76 legal moves of the position it ended in.
    gymnasium = _gym()
    env = gymnasium.make("hanamikoji/Hanamikoji-v0", opponent="random")
    _, info = env.reset(seed=0)
    illegal = int(np.flatnonzero(info["action_mask"] == 0)[0])
    _, reward, terminated, _, info = env.step(illegal)
    assert (reward, terminated) == (-1.0, True)
    assert "illegal" in info
    assert not info["action_mask"].any()
    assert info["legal"] == []
    assert not env.unwrapped.action_masks().any()


def test_gym_reset_takes_a_seat_option_for_one_game() -> None:
    gymnasium = _gym()
    env = gymnasium.make("hanamikoji/Hanamikoji-v0", opponent="random", seat=0)
    for seat in (1, 0, np.int64(1)):
        _, info = env.reset(seed=3, options={"seat": seat})
        assert info["seat"] == seat == env.unwrapped.seat
        assert env.unwrapped.game.to_move == seat
    _, info = env.reset(seed=3)  # the env's own seat again
    assert info["seat"] == 0
    seats = {env.reset(seed=s, options={"seat": "random"})[1]["seat"] for s in range(20)}
    assert seats == {0, 1}
    _, info = env.reset(seed=3, options={})
    assert info["seat"] == 0


@pytest.mark.parametrize(
    ("options", "message"),
    [({"bogus": 1}, r"unknown reset option 'bogus'; the options: seat"),
     ({"seat": 1, "opponent": "greedy"}, r"unknown reset option 'opponent'; the options: seat"),
     ("seat", r"options must be a dict \(keys: seat\) or None, got 'seat'"),
     (5, r"options must be a dict \(keys: seat\) or None, got 5"),
     ({"seat": True}, r"options\['seat'\] must be 0, 1 or 'random', got True"),
     ({"seat": 2}, r"options\['seat'\] must be 0, 1 or 'random', got 2"),
     ({"seat": 1.0}, r"options\['seat'\] must be 0, 1 or 'random', got 1.0")],
)  # fmt: skip
def test_gym_reset_refuses_options_it_does_not_know(options: Any, message: str) -> None:
    # They were ignored: {"seat": 1} played seat 0, {"bogus": 1} and 5 passed unnoticed.
    gymnasium = _gym()
    env = gymnasium.make("hanamikoji/Hanamikoji-v0", opponent="random")
    with pytest.raises(ValueError, match=message):
        env.reset(seed=0, options=options)


def test_gym_human_render_prints_on_reset_too(capsys: pytest.CaptureFixture[str]) -> None:
    gymnasium = _gym()
    env = gymnasium.make("hanamikoji/Hanamikoji-v0", opponent="random", render_mode="human")
    capsys.readouterr()
    _, info = env.reset(seed=0)
    first = capsys.readouterr().out
    assert "round 1" in first and "seat 0   hand" in first
    env.step(info["legal"][0])
    assert "round 1" in capsys.readouterr().out


# -- PettingZoo ----------------------------------------------------------------------------


@pytest.mark.parametrize("make", ["env", "raw_env"])
def test_pettingzoo_refuses_play_before_reset(make: str) -> None:
    # raw_env().step(0) played on the game made by the constructor, never seeded.
    hanamikoji_v0 = _pettingzoo()
    e = getattr(hanamikoji_v0, make)()
    with pytest.raises(RuntimeError, match=r"no game yet: call reset\(\) first"):
        e.step(0)
    with pytest.raises(RuntimeError, match=r"no game yet: call reset\(\) first"):
        e.last()
    e.reset(seed=1)
    observation = e.last()[0]
    e.step(int(np.flatnonzero(observation["action_mask"])[0]))


def test_pettingzoo_observe_names_the_agents() -> None:
    # It said "tuple.index(x): x not in tuple".
    hanamikoji_v0 = _pettingzoo()
    for e in (hanamikoji_v0.env(), hanamikoji_v0.raw_env()):
        e.reset(seed=1)
        with pytest.raises(ValueError, match=r"unknown agent 'player_9'; the agents: player_0, "):
            e.observe("player_9")
        assert e.observe("player_1")["action_mask"].sum() == 0


def test_pettingzoo_copy_before_and_after_reset_keeps_whether_a_game_is_on() -> None:
    import copy
    import pickle

    hanamikoji_v0 = _pettingzoo()
    fresh = hanamikoji_v0.raw_env()
    for twin in (copy.deepcopy(fresh), pickle.loads(pickle.dumps(fresh))):
        with pytest.raises(RuntimeError, match="call reset"):
            twin.step(0)
    fresh.reset(seed=2)
    for twin in (copy.deepcopy(fresh), pickle.loads(pickle.dumps(fresh))):
        assert twin.game == fresh.game
        twin.step(int(np.flatnonzero(twin.observe(twin.agent_selection)["action_mask"])[0]))
