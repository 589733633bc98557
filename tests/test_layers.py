"""The layering is a test: import-linter's contracts (pyproject.toml) hold. ``make lint`` runs
``lint-imports`` too; this keeps the check in a plain pytest run."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_the_import_contracts_hold() -> None:
    pytest.importorskip("importlinter", reason="import-linter is not installed (the dev extra)")
    lint = Path(sys.executable).parent / "lint-imports"
    done = subprocess.run(
        [str(lint), "--config", str(ROOT / "pyproject.toml")],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "0 broken" in done.stdout
