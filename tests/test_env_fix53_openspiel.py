"""The OpenSpiel game refuses a round limit whose information-state tensor would be huge: it
grows by a round's block (249 floats in the standard game) with ``max_rounds``, and limits up to
OpenSpiel's 32-bit game length (178,956,970 rounds) were taken, hundreds of GB of tensor."""

from __future__ import annotations

import pytest

pytest.importorskip(
    "pyspiel", reason="the research extra is not installed: pip install 'hanamikoji[research]'"
)
pytest.importorskip(
    "open_spiel", reason="the research extra is not installed: pip install 'hanamikoji[research]'"
)

import numpy as np
import pyspiel

import hanamikoji.env.openspiel as hos

SMALL = "python_hanamikoji(actions=SG,charms=3:6,max_rounds={})"


@pytest.mark.parametrize("max_rounds", [4211, 10**6, 178_956_970, np.int64(50_000)])
def test_load_refuses_a_limit_whose_tensor_is_too_large(max_rounds: int) -> None:
    message = (
        rf"^max_rounds must be at most 4210 here, or None for no limit, got {max_rounds}: the "
        r"information-state tensor holds 249 floats a round, and 4210 rounds keep it within "
        r"1,048,576 floats \(4 MiB as float32"
    )
    with pytest.raises(ValueError, match=message):
        hos.load(max_rounds=max_rounds)
    with pytest.raises(ValueError, match=r"^max_rounds must be at most 4210 here, or 0 for no"):
        pyspiel.load_game("python_hanamikoji", {"max_rounds": int(max_rounds)})


def test_a_variant_is_bounded_by_its_own_tensor() -> None:
    with pytest.raises(ValueError, match=r"at most 20970 here, or 0 .* holds 50 floats a round"):
        pyspiel.load_game(SMALL.format(20971))
    game = pyspiel.load_game(SMALL.format(20970))
    assert game.information_state_tensor_size() <= hos.MAX_TENSOR_FLOATS


def test_the_default_the_documented_and_the_largest_limits_load() -> None:
    assert hos.load().information_state_tensor_size() == 847
    for rounds in (1, 3, None, 0):
        hos.load(max_rounds=rounds)
    pyspiel.load_game(SMALL.format(1))
    largest = hos.load(max_rounds=4210)
    size = largest.information_state_tensor_size()
    assert size == 98 + 2 + 4210 * 249 and size <= hos.MAX_TENSOR_FLOATS
    assert hos.load(max_rounds=None).max_game_length() == 100 * 12  # no limit: no such tensor
