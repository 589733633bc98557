"""examples/selfplay.py: PPO self-play on the batch simulator, numpy only.

A tiny run of its ``main`` writes a well-formed learning curve (JSON and SVG) and weights and
replays bit for bit from its seed; the PPO gradient is the gradient of its loss (finite
differences); the trained network plays as an Agent through :class:`PolicyAgent`.
"""

from __future__ import annotations

import json
import random
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest

from hanamikoji.ai.greedy import GreedyAgent
from hanamikoji.env.actions import NUM_ACTIONS
from hanamikoji.env.observation import OBS_SIZE
from hanamikoji.env.policy import PolicyAgent
from hanamikoji.state import State

# Imported as the top-level module ``selfplay`` (examples/ is not a package), the name mypy
# gives the file when it checks examples/ with the rest of the project.
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "examples"))
from selfplay import Batch, Network, Result, main, ppo_loss, score_vs_greedy

TINY = ["--iterations", "3", "--games", "16", "--hidden", "16", "--eval-every", "1"]
TINY += ["--eval-deals", "20", "--minibatch", "64", "--epochs", "2", "--quiet"]


def run(out: Path, seed: int) -> Result:
    return main([*TINY, "--seed", str(seed), "--out", str(out)])


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Result]:
    out = tmp_path_factory.mktemp("selfplay") / "out"
    return out, run(out, 3)


def test_the_outputs_are_written_and_well_formed(tiny: tuple[Path, Result]) -> None:
    out, result = tiny
    curve = json.loads((out / "learning_curve.json").read_text())
    assert curve["config"]["games"] == 16 and curve["config"]["eval_deals"] == 20
    points = curve["points"]
    assert [p[0] for p in points] == [0, 1, 2, 3]
    assert [p[1] for p in points] == [0, 16, 32, 48]
    assert all(0.0 <= p[3] <= 1.0 for p in points)
    assert points == [list(p) for p in result.points]
    svg = ET.fromstring((out / "learning_curve.svg").read_text())
    assert svg.tag.endswith("svg") and any(e.tag.endswith("polyline") for e in svg.iter())
    net = Network.load(out / "policy.npz")
    assert net.params["W1"].shape == (OBS_SIZE, 16) and net.params["Wp"].shape == (16, NUM_ACTIONS)


def test_a_run_replays_from_its_seed(tiny: tuple[Path, Result], tmp_path: Path) -> None:
    out, result = tiny
    again = run(tmp_path / "again", 3)
    assert [p[3] for p in again.points] == [p[3] for p in result.points]
    a, b = Network.load(out / "policy.npz"), Network.load(tmp_path / "again" / "policy.npz")
    assert all(np.array_equal(a.params[k], b.params[k]) for k in Network.NAMES)


def test_the_gradient_is_the_gradient_of_the_loss() -> None:
    rng = np.random.default_rng(0)
    net = Network.new(8, rng)
    net.params = {
        k: (v + rng.standard_normal(v.shape) * 0.3).astype(np.float64)
        for k, v in net.params.items()
    }
    n = 6
    mask = rng.random((n, NUM_ACTIONS)) < 0.05
    mask[:, 0] = True
    action = np.array([rng.choice(np.flatnonzero(m)) for m in mask])
    batch = Batch(
        (rng.random((n, OBS_SIZE)) * 3).astype(np.float64),
        mask,
        action,
        np.log(np.full(n, 0.1)),
        rng.standard_normal(n),  # type: ignore[arg-type]
        rng.standard_normal(n),  # type: ignore[arg-type]
    )
    _, grads = ppo_loss(net, batch, 0.2, 0.05, 0.5)
    checked = 0
    for name in Network.NAMES:
        p = net.params[name]
        for _ in range(4):
            i = tuple(int(rng.integers(s)) for s in p.shape)
            old = p[i]
            p[i] = old + 1e-6
            up, _ = ppo_loss(net, batch, 0.2, 0.05, 0.5)
            p[i] = old - 1e-6
            down, _ = ppo_loss(net, batch, 0.2, 0.05, 0.5)
            p[i] = old
            assert (up - down) / 2e-6 == pytest.approx(float(grads[name][i]), rel=1e-4, abs=1e-7)
            checked += abs(float(grads[name][i])) > 1e-6
    assert checked >= 8


def test_the_network_plays_as_an_agent(tiny: tuple[Path, Result]) -> None:
    out, _ = tiny
    agent = PolicyAgent(Network.load(out / "policy.npz").logits, name="ppo")
    rng = random.Random(1)
    state = State.new(rng)
    greedy = GreedyAgent()
    while state.to_move is not None:
        player = agent if state.to_move == 0 else greedy
        state = state.apply(player.choose(state.view(state.to_move), state.legal_moves, rng))
    assert state.outcome is not None


def test_the_evaluation_scores_a_known_policy() -> None:
    # A network whose policy head is zero plays the first legal move: its score is a number
    # between 0 and 1, the same on the same deals.
    from selfplay import eval_deals

    net = Network.new(4, np.random.default_rng(0))
    net.params["Wp"][:] = 0.0
    deals = eval_deals(10)
    first = score_vs_greedy(net, deals)
    assert 0.0 <= first <= 1.0 and first == score_vs_greedy(net, deals)
