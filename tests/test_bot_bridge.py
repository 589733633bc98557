"""``hanamikoji bot`` as a process of its own against an in-process server: an engine that
crashes loses that game by a forfeit named in the record and the bridge serves the next game
with the engine started afresh; an engine answering garbage forfeits by that name; a wrong,
revoked or doubly used token makes the bridge say why and exit 1; the JavaScript example speaks
the bot API directly."""

from __future__ import annotations

import asyncio
import json
import random
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from bot_support import ENGINES, bot_process, bridge, new_bot, signed_up
from hanamikoji.record import Record
from lobby_support import Browser, Server, call, challenge, table
from web_support import over, play_out

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "bot.js"


async def online(browser: Browser, name: str, present: bool = True) -> None:
    for _ in range(300):
        listing = await call(browser, "GET", "/api/lobby", 200)
        if (name in {b["username"] for b in listing["bots"]}) == present:
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"bot {name} never {'came' if present else 'left'}")


async def play_against(site: Server, anna: Browser, bot: str, **more: Any) -> Record:
    """A challenge of ``anna`` to ``bot`` (anna seat 0, untimed), played out; its record."""
    made = await challenge(anna, control="none", to=bot, seat=0, **more)
    cid = made["challenge"]["id"]
    for _ in range(300):
        started = (await call(anna, "GET", "/api/lobby", 200))["started"]
        game = next((s["game"] for s in started if s["challenge"] == cid), None)
        if game is not None:
            break
        await asyncio.sleep(0.05)
    else:
        raise AssertionError("the bot did not accept")
    seat = await table(anna, game)
    await play_out([seat], random.Random(11))
    assert seat.state is not None and over(seat.state)
    await seat.ws.close()
    async with anna.get(f"/api/games/{game}/record") as response:
        return Record.from_json(await response.json())


async def test_a_crashing_engine_forfeits_and_the_bridge_serves_the_next_game(
    site: Server, tmp_path: Path
) -> None:
    marker = tmp_path / "crashed"
    engine = f"cmd:{sys.executable} {ENGINES / 'crash_once.py'} {marker}"
    async with site.browser() as owner, site.browser() as anna:
        await signed_up(owner, "owner_x")
        token = await new_bot(owner, "crashy_bot", controls=["none"], games=1)
        await signed_up(anna, "anna_x")
        with bot_process(site.base, token, engine) as proc:
            await online(anna, "crashy_bot")
            first = await play_against(site, anna, "crashy_bot")
            outcome = first.replay().outcome
            assert outcome is not None and outcome.reason.value == "forfeit"
            assert outcome.winner == 0
            assert outcome.why == "seat 1: crash: the bot's engine crashed"
            second = await play_against(site, anna, "crashy_bot")  # the same bridge, a new engine
            again = second.replay().outcome
            assert again is not None and again.reason.value != "forfeit"
            assert proc.poll() is None
        assert "the engine failed (crash)" in proc.said and proc.said.count("over (") == 2


async def test_an_engine_answering_garbage_forfeits_by_that_name(site: Server) -> None:
    engine = f"cmd:{sys.executable} {ENGINES / 'broken_engine.py'} garbage"
    async with site.browser() as owner, site.browser() as anna:
        await signed_up(owner, "owner_y")
        token = await new_bot(owner, "garbage_bot", controls=["none"])
        await signed_up(anna, "anna_y")
        async with bridge(site, token, engine) as bridged:
            record = await play_against(site, anna, "garbage_bot")
            outcome = record.replay().outcome
            assert outcome is not None and outcome.why == (
                "seat 1: garbage: the bot's engine answered garbage"
            )
            assert any("failed (garbage)" in line for line in bridged.lines)


def _bot_run(base: str, token: str, timeout: float = 20) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "hanamikoji.cli", "bot", "--server", base, "--token", token]
    return subprocess.run(
        [*command, "random"], capture_output=True, text=True, timeout=timeout, check=False
    )


async def test_wrong_doubly_used_and_revoked_tokens_stop_the_bridge_with_a_reason(
    site: Server,
) -> None:
    async with site.browser() as owner:
        await signed_up(owner, "owner_z")
        token = await new_bot(owner, "token_bot")
        wrong = await asyncio.to_thread(_bot_run, site.base, "hkbot_wrong")
        assert wrong.returncode == 1
        assert "refused the bot (bad-token)" in wrong.stderr and "opens no bot" in wrong.stderr
        with bot_process(site.base, token, "random") as first:
            await online(owner, "token_bot")
            second = await asyncio.to_thread(_bot_run, site.base, token)
            assert second.returncode == 1 and "(in-use)" in second.stderr
            assert "already connected from another bridge" in second.stderr
            await call(owner, "POST", "/api/bots/token_bot/revoke", 200, json={})
            code = await asyncio.to_thread(first.wait, 20)
            assert code == 1
            assert "(revoked)" in first.said
        # blanks around a token copied from the page are no part of it
        again = await call(owner, "POST", "/api/bots/token_bot/token", 200, json={})
        with bot_process(site.base, f"  {again['token']}\n", "random"):
            await online(owner, "token_bot")
        # a server at the address, but no bot API there: said, and no endless retrying
        lost = await asyncio.to_thread(_bot_run, f"{site.base}/lobby", again["token"])
        assert lost.returncode == 1 and "no bot API at this address (404)" in lost.stderr
        usage = subprocess.run(
            [
                sys.executable,
                "-m",
                "hanamikoji.cli",
                "bot",
                "--server",
                "nope",
                "--token",
                "x",
                "y",
            ],
            capture_output=True,
            text=True,
            check=False,
        )
        assert usage.returncode == 2 and "--server must be a URL" in usage.stderr


@pytest.mark.skipif(shutil.which("node") is None, reason="needs node")
async def test_the_javascript_example_plays_through_the_bot_api(site: Server) -> None:
    async with site.browser() as owner, site.browser() as anna:
        await signed_up(owner, "owner_js")
        token = await new_bot(owner, "js_bot", controls=["none"])
        await signed_up(anna, "anna_js")
        proc = await asyncio.create_subprocess_exec(
            "node",
            "--experimental-websocket",
            str(EXAMPLE),
            site.base,
            token,
            stderr=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.DEVNULL,
        )
        try:
            await online(anna, "js_bot")
            record = await play_against(site, anna, "js_bot")
            outcome = record.replay().outcome
            assert outcome is not None and outcome.reason.value != "forfeit"
        finally:
            proc.terminate()
            await proc.wait()
        assert proc.stderr is not None
        said = (await proc.stderr.read()).decode()
        assert "connected as js_bot" in said, said
        json.dumps(said)
