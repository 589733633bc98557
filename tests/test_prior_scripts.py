"""scripts/search_targets.py and scripts/train_prior.py: master's visits recorded, the prior
fitted to them (docs/ai.md, "The prior from master's own search")."""

from __future__ import annotations

import json
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

from hanamikoji.ai.net import WEIGHTS, Net
from hanamikoji.kernel.actions import NUM_ACTIONS
from script_support import load_script


@pytest.fixture(scope="module")
def targets() -> ModuleType:
    return load_script("search_targets")


@pytest.fixture(scope="module")
def prior() -> ModuleType:
    return load_script("train_prior")


def _record(targets: ModuleType, out: Path, games: int = 2, iterations: int = 40) -> None:
    assert targets.main(["--out", str(out), "--games", str(games), "--workers", "1",
                         "--iterations", str(iterations)]) == 0  # fmt: skip


def test_each_decision_holds_its_legal_moves_and_their_visits(
    targets: ModuleType, tmp_path: Path
) -> None:
    _record(targets, tmp_path)
    with np.load(tmp_path / "w0-0.npz") as d:
        x, offsets, ids, visits, results = (
            d["x"], d["offsets"], d["ids"], d["visits"], d["results"]
        )  # fmt: skip
    n = len(x)
    assert n > 20 and len(offsets) == n + 1 and len(results) == n
    assert offsets[0] == 0 and offsets[-1] == len(ids) == len(visits)
    for i in range(n):
        legal = ids[offsets[i] : offsets[i + 1]]
        assert len(legal) >= 2  # only decisions with a choice
        assert len(set(legal.tolist())) == len(legal)
        assert ((legal >= 0) & (legal < NUM_ACTIONS)).all()
        assert visits[offsets[i] : offsets[i + 1]].sum() == pytest.approx(40, abs=1)
    assert set(results.tolist()) <= {-1.0, 0.0, 1.0}


def test_the_same_arguments_give_the_same_games_and_a_run_goes_on(
    targets: ModuleType, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(targets, "CHUNK", 1)  # a file a game (the workers are forked)
    _record(targets, tmp_path / "a", games=2)
    _record(targets, tmp_path / "b", games=1)  # stopped after one game...
    _record(targets, tmp_path / "b", games=2)  # ...and run again: the second game only
    assert sorted(p.name for p in (tmp_path / "b").glob("*.npz")) == ["w0-0.npz", "w0-1.npz"]
    for chunk in ("w0-0.npz", "w0-1.npz"):
        with np.load(tmp_path / "a" / chunk) as a, np.load(tmp_path / "b" / chunk) as b:
            for key in ("x", "offsets", "ids", "visits", "results"):
                assert np.array_equal(a[key], b[key]), (chunk, key)


def test_the_prior_learns_the_visits_and_is_written_in_the_shipped_format(
    targets: ModuleType, prior: ModuleType, tmp_path: Path
) -> None:
    _record(targets, tmp_path / "t", games=3, iterations=300)
    x, mask, target = prior.load_targets(tmp_path / "t", 0.1)
    assert x.shape[0] == mask.shape[0] == target.shape[0]
    assert np.allclose(target.sum(axis=1), 1.0)
    assert not (target[~mask] > 0).any()  # no weight on an illegal move
    both = prior.load_targets([tmp_path / "t", tmp_path / "t"], 0.1)[0]
    assert np.array_equal(both, np.concatenate([x, x]))  # several folders, one after another
    out = tmp_path / "prior"
    # from the player's network (the shipped prior was fitted to such visits already)
    args = ["--targets", str(tmp_path / "t"), "--out", str(out), "--init", str(WEIGHTS),
            "--epochs", "3", "--lr", "1e-3"]  # fmt: skip
    assert prior.main(args) == 0
    fitted, start = Net.load(out / "net.npz"), Net.load(WEIGHTS)
    assert fitted.w1.shape == start.w1.shape and not np.array_equal(fitted.w1, start.w1)
    history = json.loads((out / "history.json").read_text())
    assert [h["epoch"] for h in history] == [0, 1, 2, 3]
    kls = [h["kl"] for h in history]
    assert min(kls[1:]) < kls[0]  # it learned, on the held-out decisions too


def test_no_targets_is_a_clear_error(prior: ModuleType, tmp_path: Path) -> None:
    with pytest.raises(SystemExit, match="no chunks"):
        prior.main(["--targets", str(tmp_path), "--out", str(tmp_path / "o")])
