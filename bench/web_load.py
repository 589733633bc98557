"""Load on the web app: N concurrent games over real WebSockets on loopback.

Run: ``.venv/bin/python bench/web_load.py`` (defaults: 200 games, 1,000 ms mean think time).

A ``hanamikoji serve`` process is started on a temporary SQLite file (``--db`` for another
database, ``--url`` to load a server that is already running). Scripted clients create friend games
(two seats each, so no AI thinking is involved), open one WebSocket per seat, and play random legal
moves after a think time drawn uniformly between 0 and twice ``--think-ms``, until every game is
over. The games start spread over ``--ramp-s`` seconds, as players arrive. For every move it
measures the time from sending it to (a) the mover's acknowledgement and (b) the opponent's
update, and reports moves per second and the p50/p99 of both latencies. The target (issue #5):
200 concurrent games with p99 under 100 ms on this 2-core machine.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp


@dataclass
class Stats:
    ack_ms: list[float] = field(default_factory=list)
    update_ms: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    moves: int = 0
    finished: int = 0


@dataclass
class SeatClient:
    ws: aiohttp.ClientWebSocketResponse
    seat: int
    state: dict[str, Any] | None = None
    changed: asyncio.Event = field(default_factory=asyncio.Event)
    seen_version: dict[int, float] = field(default_factory=dict)  # version -> when it arrived

    async def pump(self) -> None:
        async for msg in self.ws:
            if msg.type != aiohttp.WSMsgType.TEXT:
                break
            data = json.loads(msg.data)
            if data["type"] == "state":
                self.state = data
                self.seen_version.setdefault(data["game"]["version"], time.perf_counter())
                self.changed.set()
            elif data["type"] == "error":
                raise RuntimeError(f"seat {self.seat}: {data['message']}")


def percentile(values: list[float], p: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    k = min(len(ordered) - 1, max(0, round(p / 100 * (len(ordered) - 1))))
    return ordered[k]


async def one_game(
    session: aiohttp.ClientSession,
    base: str,
    rng: random.Random,
    think_ms: float,
    stats: Stats,
    delay: float = 0.0,
) -> None:
    await asyncio.sleep(delay)
    async with session.post(f"{base}/api/games", json={"mode": "friend", "seat": 0}) as r:
        data = await r.json()
    tokens = [data["token"], data["invite"].split("t=")[1]]
    seats = []
    for seat, token in enumerate(tokens):
        ws = await session.ws_connect(f"{base}/ws/{data['game']}?t={token}", heartbeat=None)
        seats.append(SeatClient(ws, seat))
    pumps: list[asyncio.Task[Any]] = [asyncio.create_task(s.pump()) for s in seats]
    try:
        while True:
            states = [s.state for s in seats]
            if any(st is not None and st["result"] is not None for st in states):
                stats.finished += 1
                return
            mover = next((s for s in seats if s.state is not None and s.state["legal"]), None)
            if mover is None:
                waits: list[asyncio.Task[Any]] = [
                    asyncio.create_task(s.changed.wait()) for s in seats
                ]
                await asyncio.wait(waits + pumps, return_when=asyncio.FIRST_COMPLETED)
                for w in waits:
                    w.cancel()
                for s in seats:
                    s.changed.clear()
                for p in pumps:
                    if p.done() and p.exception():
                        raise p.exception()  # type: ignore[misc]
                continue
            assert mover.state is not None
            await asyncio.sleep(rng.uniform(0, 2 * think_ms) / 1000)
            version = mover.state["game"]["version"]
            other = seats[1 - mover.seat]
            sent = time.perf_counter()
            await mover.ws.send_json(
                {"type": "move", "move": rng.choice(mover.state["legal"]), "version": version}
            )
            while version + 1 not in mover.seen_version or version + 1 not in other.seen_version:
                mover.changed.clear()
                other.changed.clear()
                waits = [
                    asyncio.create_task(mover.changed.wait()),
                    asyncio.create_task(other.changed.wait()),
                ]
                done, _ = await asyncio.wait(
                    waits + pumps, timeout=30, return_when=asyncio.FIRST_COMPLETED
                )
                for w in waits:
                    w.cancel()
                if not done:
                    raise RuntimeError("no update within 30 s")
                for p in pumps:
                    if p.done() and p.exception():
                        raise p.exception()  # type: ignore[misc]
            stats.ack_ms.append((mover.seen_version[version + 1] - sent) * 1000)
            stats.update_ms.append((other.seen_version[version + 1] - sent) * 1000)
            stats.moves += 1
    except Exception as e:  # recorded, reported, and the other games go on
        stats.errors.append(f"{type(e).__name__}: {e}")
    finally:
        for p in pumps:
            p.cancel()
        for s in seats:
            await s.ws.close()


async def run(
    base: str, games: int, think_ms: float, seed: int, ramp_s: float = 0.0
) -> dict[str, Any]:
    stats = Stats()
    rng = random.Random(seed)
    connector = aiohttp.TCPConnector(limit=0)
    async with aiohttp.ClientSession(connector=connector) as session:
        start = time.perf_counter()
        await asyncio.gather(
            *(
                one_game(
                    session,
                    base,
                    random.Random(rng.getrandbits(32)),
                    think_ms,
                    stats,
                    delay=ramp_s * i / games,
                )
                for i in range(games)
            )
        )
        elapsed = time.perf_counter() - start
    return {
        "games": games,
        "finished": stats.finished,
        "errors": stats.errors[:5],
        "error_count": len(stats.errors),
        "think_ms_mean": think_ms,
        "ramp_s": ramp_s,
        "moves": stats.moves,
        "seconds": round(elapsed, 2),
        "moves_per_s": round(stats.moves / elapsed, 1),
        "ack_p50_ms": round(percentile(stats.ack_ms, 50), 2),
        "ack_p99_ms": round(percentile(stats.ack_ms, 99), 2),
        "update_p50_ms": round(percentile(stats.update_ms, 50), 2),
        "update_p99_ms": round(percentile(stats.update_ms, 99), 2),
        "update_max_ms": round(max(stats.update_ms, default=float("nan")), 2),
        "mean_ms": round(statistics.fmean(stats.update_ms), 2) if stats.update_ms else None,
    }


def start_server(db: str) -> tuple[subprocess.Popen[str], str]:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    log = Path(tempfile.mkstemp(prefix="hanamikoji-load-", suffix=".log")[1])
    with log.open("w") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "hanamikoji.cli", "serve", "--port", str(port), "--db", db],
            stdout=out,
            stderr=subprocess.STDOUT,
            text=True,
        )
    deadline = time.monotonic() + 60
    while "serving on" not in log.read_text():
        if proc.poll() is not None or time.monotonic() > deadline:
            raise SystemExit(f"the server did not start: {log.read_text()}")
        time.sleep(0.05)
    return proc, f"http://127.0.0.1:{port}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=200, help="concurrent games (200)")
    parser.add_argument("--think-ms", type=float, default=1000, help="mean think time (1000)")
    parser.add_argument(
        "--ramp-s", type=float, default=2.0, help="games start spread over this many seconds (2)"
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--db", default=None, help="database URL for the started server")
    parser.add_argument("--url", default=None, help="load this running server instead")
    parser.add_argument("--json", action="store_true", help="print the result as JSON only")
    args = parser.parse_args()
    proc = None
    with tempfile.TemporaryDirectory() as tmp:
        base = args.url
        if base is None:
            db = args.db or f"sqlite:///{Path(tmp) / 'load.sqlite3'}"
            proc, base = start_server(db)
        try:
            result = asyncio.run(
                run(base.rstrip("/"), args.games, args.think_ms, args.seed, args.ramp_s)
            )
        finally:
            if proc is not None:
                proc.terminate()
                proc.wait(10)
    if args.json:
        print(json.dumps(result))
        return
    print(
        f"{result['games']} concurrent games ({result['finished']} finished, "
        f"{result['error_count']} errors), think time {args.think_ms:.0f} ms mean: "
        f"{result['moves']} moves in {result['seconds']} s = {result['moves_per_s']} moves/s"
    )
    print(
        f"move sent -> mover's ack:       p50 {result['ack_p50_ms']} ms, "
        f"p99 {result['ack_p99_ms']} ms"
    )
    print(
        f"move sent -> opponent's update: p50 {result['update_p50_ms']} ms, "
        f"p99 {result['update_p99_ms']} ms (max {result['update_max_ms']} ms)"
    )
    for error in result["errors"]:
        print("error:", error)


if __name__ == "__main__":
    main()
