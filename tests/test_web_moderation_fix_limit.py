"""``hanamikoji admin``'s ``--limit`` is bounded: a number past ``MOST_LISTED`` is a usage error
naming the bound, never a database's own error (PostgreSQL's "bigint out of range")."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from hanamikoji.cli import main
from hanamikoji.web.store import open_store


@pytest.mark.parametrize("limit", ["10001", "99999999999999999999"])
@pytest.mark.parametrize("action", ["log", "messages"])
def test_a_limit_past_the_most_listed_is_a_usage_error(
    action: str, limit: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["admin", action, "--limit", limit, "--db", str(tmp_path / "x.sqlite3")])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert f"argument --limit: '{limit}': must be at most 10000" in err, err


def test_the_most_listed_is_accepted(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = str(tmp_path / "x.sqlite3")

    async def made() -> None:
        await (await open_store(db)).close()

    asyncio.run(made())
    for action in ("log", "messages"):
        assert main(["admin", action, "--limit", "10000", "--db", db]) == 0
    assert capsys.readouterr().out.splitlines() == ["nothing logged yet", "no messages"]
