"""examples/train_policy.py: the numpy REINFORCE example on Hanamikoji-v0.

A tiny run of its ``main`` writes a well-formed learning curve (JSON and SVG) and weights, and
runs again bit for bit from its seed. The policy only ever picks legal moves, even with wild
weights; its gradient is the exact gradient of its loss (finite differences); and descending it
on a fixed small problem improves the objective.
"""

from __future__ import annotations

import json
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest

from hanamikoji.env.actions import NUM_ACTIONS
from hanamikoji.env.observation import OBS_SIZE

# Imported as the top-level module ``train_policy`` (examples/ is not a package): the name
# mypy gives the file when it checks examples/ with the rest of the project.
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "examples"))
from train_policy import (
    EVAL_SEED,
    PARAMS,
    Adam,
    Batch,
    Policy,
    Result,
    _make_env,
    main,
    play_episode,
)

HIDDEN = 8
TINY = ["--episodes", "64", "--eval-every", "32", "--eval-games", "6", "--hidden", str(HIDDEN)]
TINY += ["--batch", "8", "--quiet"]


def run(out: Path, seed: int) -> Result:
    """The script's main with a tiny budget."""
    return main([*TINY, "--seed", str(seed), "--out", str(out)])


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Result]:
    """One tiny run (seed 3) and its output folder."""
    out = tmp_path_factory.mktemp("train") / "out"
    return out, run(out, 3)


def weights(path: Path) -> dict[str, np.ndarray]:
    """The arrays saved in an .npz file."""
    with np.load(path) as data:
        return {k: data[k].copy() for k in data.files}


def test_the_outputs_are_written_and_well_formed(tiny: tuple[Path, Result]) -> None:
    out, result = tiny
    data = json.loads((out / "learning_curve.json").read_text(encoding="utf-8"))
    assert data["config"]["episodes"] == 64 and data["config"]["seed"] == 3
    assert data["config"]["hidden"] == HIDDEN
    assert data["eval_seeds"] == [EVAL_SEED, EVAL_SEED + 5]
    assert data["seconds"] >= 0 and data["cpu_seconds"] >= 0
    points = data["points"]
    assert [p["episodes"] for p in points] == [0, 32, 64]
    for p in points:
        for opponent in ("random", "greedy"):
            assert 0.0 <= p[opponent] <= 1.0
            assert (p[opponent] * 12).is_integer()  # (wins + draws/2) / 6 games
    assert points == result.points
    for name in ("learning_curve.svg", "learning_curve_greedy.svg"):
        root = ET.fromstring((out / name).read_text(encoding="utf-8"))
        assert root.tag.endswith("svg")
        polylines = [e for e in root.iter() if e.tag.endswith("polyline")]
        assert len(polylines) == 1 and len(polylines[0].attrib["points"].split()) == 3
    saved = weights(out / "policy.npz")
    shapes = {
        "w1": (OBS_SIZE, HIDDEN),
        "b1": (HIDDEN,),
        "w2": (HIDDEN, NUM_ACTIONS),
        "b2": (NUM_ACTIONS,),
        "wv": (HIDDEN,),
        "bv": (1,),
        "scale": (OBS_SIZE,),
    }
    assert {k: v.shape for k, v in saved.items()} == shapes
    assert all(np.isfinite(v).all() for v in saved.values())
    loaded = Policy.load(out / "policy.npz")
    for k in PARAMS:
        np.testing.assert_array_equal(loaded.params[k], result.policy.params[k])


def test_training_moves_the_weights(tiny: tuple[Path, Result]) -> None:
    out, _ = tiny
    start = Policy(HIDDEN, np.random.default_rng(3))  # the run's initial weights
    trained = weights(out / "policy.npz")
    for k in PARAMS:
        assert not np.array_equal(start.params[k], trained[k]), k


def test_a_run_is_reproducible_from_its_seed(tiny: tuple[Path, Result], tmp_path: Path) -> None:
    out, result = tiny
    again = run(tmp_path / "again", 3)
    assert again.points == result.points
    first, second = weights(out / "policy.npz"), weights(tmp_path / "again" / "policy.npz")
    for k in first:
        np.testing.assert_array_equal(first[k], second[k])
    run(tmp_path / "other", 4)
    assert not np.array_equal(weights(tmp_path / "other" / "policy.npz")["w2"], first["w2"])


@pytest.mark.parametrize("wild", [1.0, 300.0])
def test_the_policy_only_chooses_legal_moves(wild: float) -> None:
    rng = np.random.default_rng(5)
    policy = Policy(16, rng)
    for k in PARAMS:
        policy.params[k] = rng.normal(0.0, wild, policy.params[k].shape)
    env = _make_env("random")
    env.illegal = "lose"  # an illegal move would end the game with info["illegal"], not raise
    decisions = 0
    for game in range(20):
        obs, info = env.reset(seed=game)
        done = False
        while not done:
            legal = info["legal"]
            assert legal and np.flatnonzero(info["action_mask"]).tolist() == legal
            pr = policy.probs(obs, legal)
            assert pr.shape == (len(legal),) and np.isclose(pr.sum(), 1.0)
            assert policy.act(obs, legal, None) in legal
            action = policy.act(obs, legal, rng if game % 2 else None)
            assert action in legal
            obs, _, done, _, info = env.step(action)
            assert "illegal" not in info
            decisions += 1
    assert decisions > 100
    batch = Batch()
    play_episode(env, policy, rng, batch)
    _, masks, actions, _ = batch.arrays()
    assert masks[np.arange(len(actions)), actions].all()


def small_problem(seed: int) -> tuple[Policy, Batch]:
    """A small policy and the decisions of a few real games."""
    rng = np.random.default_rng(seed)
    policy = Policy(6, rng)
    policy.params["wv"] = rng.normal(0.0, 0.5, 6)
    policy.params["bv"] = np.array([0.1])
    batch = Batch()
    env = _make_env("random")
    for _ in range(3):
        play_episode(env, policy, rng, batch)
    return policy, batch


def test_the_gradient_is_the_gradient_of_the_loss() -> None:
    policy, batch = small_problem(7)
    obs, masks, actions, returns = batch.arrays()
    advantages = np.random.default_rng(8).normal(0.0, 1.0, len(actions))

    def loss() -> float:
        return policy.loss_and_grads(obs, masks, actions, returns, 0.05, 0.5, advantages)[0]

    _, grads = policy.loss_and_grads(obs, masks, actions, returns, 0.05, 0.5, advantages)
    rng = np.random.default_rng(9)
    eps = 1e-6
    for k in PARAMS:
        param = policy.params[k]
        for _ in range(4):
            i = tuple(int(rng.integers(n)) for n in param.shape)
            if k in ("w2", "b2"):  # a column of a move that was legal somewhere
                i = (*i[:-1], int(actions[int(rng.integers(len(actions)))]))
            keep = param[i]
            param[i] = keep + eps
            up = loss()
            param[i] = keep - eps
            down = loss()
            param[i] = keep
            assert grads[k][i] == pytest.approx((up - down) / (2 * eps), rel=1e-4, abs=1e-8), k


def test_descending_the_gradient_improves_the_objective_on_a_fixed_problem() -> None:
    # Reward the lowest-numbered legal move at each of a few real decisions: REINFORCE with
    # advantage +1 on it must make the policy prefer it (and lower the loss).
    policy, batch = small_problem(11)
    obs, masks, _, _ = batch.arrays()
    targets = masks.argmax(axis=1)
    ones = np.ones(len(targets))

    def loss() -> float:
        value, _ = policy.loss_and_grads(obs, masks, targets, ones, 0.0, 0.0, advantages=ones)
        return value

    def agree() -> float:
        picks = [
            policy.act(o, np.flatnonzero(m).tolist(), None) for o, m in zip(obs, masks, strict=True)
        ]
        return float(np.mean(np.array(picks) == targets))

    before, agreed = loss(), agree()
    optimiser = Adam(policy.params, 0.02)
    for _ in range(150):
        _, grads = policy.loss_and_grads(obs, masks, targets, ones, 0.0, 0.0, advantages=ones)
        optimiser.step(policy.params, grads)
    assert loss() < 0.2 * before
    assert agree() == 1.0 > agreed
