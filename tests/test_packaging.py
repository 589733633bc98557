"""The package ships every data file it reads: each file of the source tree that is not Python is
matched by a ``package-data`` pattern of ``pyproject.toml`` (else an installed copy, not an
editable one, lacks it: the network's weights were once left out)."""

from __future__ import annotations

import tomllib
from fnmatch import fnmatch
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "src" / "hanamikoji"


def patterns() -> list[str]:
    with open(ROOT / "pyproject.toml", "rb") as f:
        data = tomllib.load(f)
    found: list[str] = data["tool"]["setuptools"]["package-data"]["hanamikoji"]
    return found


def test_every_data_file_is_shipped() -> None:
    shipped = patterns()
    data = [
        p.relative_to(PACKAGE).as_posix()
        for p in PACKAGE.rglob("*")
        if p.is_file() and p.suffix not in (".py", ".pyc") and "__pycache__" not in p.parts
    ]
    assert "ai/data/net.npz" in data and "web/static/game.html" in data
    missing = [name for name in data if not any(fnmatch(name, pat) for pat in shipped)]
    assert missing == [], f"add a package-data pattern for {missing}"


def test_a_pattern_left_out_is_found() -> None:
    shipped = [p for p in patterns() if not p.endswith(".npz")]
    assert not any(fnmatch("ai/data/net.npz", pat) for pat in shipped)
