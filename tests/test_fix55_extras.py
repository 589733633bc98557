"""What a stranger meets without an extra: the research adapters' import and the ray backend
name the extra and how to install it from the project's folder (the package is not on a
registry: "pip install 'hanamikoji[research]'" found nothing)."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Iterator

import pytest

ADAPTERS = {
    "hanamikoji.env.gym": "gymnasium",
    "hanamikoji.env.vector": "gymnasium",
    "hanamikoji.env.pettingzoo": "pettingzoo",
    "hanamikoji.env.openspiel": "pyspiel",
}


@pytest.fixture
def missing() -> Iterator[Callable[[str], None]]:
    """Make packages missing (``missing("gymnasium")``), with the research adapters gone from
    ``sys.modules`` to be imported afresh; afterwards the adapters and those packages are as they
    were (only what this test stubbed or re-imported is touched: a compiled module another
    import loaded meanwhile stays, as it cannot be loaded twice)."""
    saved = dict(sys.modules)
    gone = [name for name in sys.modules if name.startswith("hanamikoji.env")]
    for name in gone:
        del sys.modules[name]
    stubbed: list[str] = []

    def stub(package: str) -> None:
        stubbed.append(package)  # as if not installed: its import fails
        sys.modules[package] = None  # type: ignore[assignment]

    try:
        yield stub
    finally:
        for name in [n for n in sys.modules if n.startswith("hanamikoji.env")] + stubbed:
            sys.modules.pop(name, None)
        for name in [*gone, *stubbed]:
            if name in saved:
                sys.modules[name] = saved[name]
        for name in gone:  # a package's attribute too ("hanamikoji.env" was the fresh one)
            parent, _, child = name.rpartition(".")
            if saved.get(parent) is not None:
                setattr(saved[parent], child, saved[name])


@pytest.mark.parametrize(("module", "package"), sorted(ADAPTERS.items()))
def test_an_adapter_without_its_extra_says_how_to_install_it(
    missing: Callable[[str], None], module: str, package: str
) -> None:
    missing(package)
    with pytest.raises(ModuleNotFoundError) as caught:
        importlib.import_module(module)
    message = str(caught.value)
    assert repr(package) in message and "research extra" in message, message
    assert "pip install '.[research]'" in message
    assert caught.value.name == package


def test_the_batch_simulator_needs_no_extra(missing: Callable[[str], None]) -> None:
    for package in ("gymnasium", "pettingzoo", "pyspiel"):
        missing(package)
    batch = importlib.import_module("hanamikoji.env.batch")
    assert hasattr(batch, "__all__")
