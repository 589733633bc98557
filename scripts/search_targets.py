"""Master's self-play, recorded as targets for its own prior (expert iteration).

Run: ``nice -n 10 .venv/bin/python scripts/search_targets.py --out runs/targets --games 2080``
(again with the same ``--out`` to go on: the chunks written are kept, the games they hold are not
played again). Each of ``--workers`` processes plays ``--games`` whole games of master against
itself at ``--iterations`` a decision, from its own ``random.Random(seed + worker)`` (the deals
and the searches): the same arguments give the same games on any machine. Every decision with a
choice is recorded from the decider's VIEW: its features (``hanamikoji.ai.net.features``), each
legal move's action id and the visits the search gave it. The move played is the most visited,
or with probability ``--sample`` one drawn in proportion to the visits, so that the positions
vary. A chunk of 20 games per file, ``w{worker}-{chunk}.npz``: ``x`` (decisions x features),
``offsets`` (where each decision's moves start in ``ids`` and ``visits``), ``ids``, ``visits``
and ``results`` (the decider's game result: 1, 0, -1).

``scripts/train_prior.py`` then fits the search's prior to these visits (docs/ai.md, "The prior
from master's own search").
"""

from __future__ import annotations

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")  # one core a worker

import argparse
import random
import sys
import time
from dataclasses import dataclass, field
from multiprocessing import Pool
from pathlib import Path

import numpy as np
import numpy.typing as npt

from hanamikoji.ai import parse_agent
from hanamikoji.ai.ismcts import IsmctsAgent
from hanamikoji.ai.net import features
from hanamikoji.kernel.actions import IDS
from hanamikoji.state import State

CHUNK = 20
"""Games a file."""


@dataclass
class Chunk:
    """The decisions of some games, as they are written."""

    x: list[npt.NDArray[np.float32]] = field(default_factory=list)
    ids: list[npt.NDArray[np.int16]] = field(default_factory=list)
    visits: list[npt.NDArray[np.float32]] = field(default_factory=list)
    results: list[float] = field(default_factory=list)

    def save(self, path: Path) -> None:
        """Written atomically (a run stopped mid-write leaves no half file)."""
        offsets = np.cumsum([0] + [len(i) for i in self.ids]).astype(np.int64)
        tmp = path.with_suffix(".tmp.npz")
        np.savez_compressed(
            tmp,
            x=np.stack(self.x),
            offsets=offsets,
            ids=np.concatenate(self.ids),
            visits=np.concatenate(self.visits),
            results=np.array(self.results, np.float32),
        )
        tmp.replace(path)


def play(agents: list[IsmctsAgent], rng: random.Random, sample: float) -> Chunk:
    """One game of the agents against each other, its decisions recorded."""
    state = State.new(rng.randrange(10**9))
    for seat, agent in enumerate(agents):
        agent.start(seat, state.rules)
    game = Chunk()
    seats = []
    while state.to_move is not None:
        seat = state.to_move
        view, legal = state.view(seat), state.legal_moves
        if len(legal) == 1:
            state = state.apply(legal[0])
            continue
        found = agents[seat].search(view, legal, rng)
        visits = np.array([m.visits for m in found.moves], np.float32)
        game.x.append(features(view).astype(np.float32))
        game.ids.append(np.array([IDS[m.move] for m in found.moves], np.int16))
        game.visits.append(visits)
        seats.append(seat)
        move = found.moves[0].move
        if rng.random() < sample:  # one in proportion to the visits
            p = visits / visits.sum()
            at = np.searchsorted(np.cumsum(p), rng.random() * p.sum())
            move = found.moves[min(int(at), len(visits) - 1)].move
        state = state.apply(move)
    outcome = state.outcome
    winner = None if outcome is None else outcome.winner
    game.results = [0.0 if winner is None else 1.0 if winner == s else -1.0 for s in seats]
    return game


def worker(job: tuple[int, argparse.Namespace]) -> int:
    """Play one worker's games, skipping the chunks already written; returns the games played."""
    w, args = job
    spec = f"master:iterations={args.iterations}"
    agents = [parse_agent(spec), parse_agent(spec)]
    if not all(isinstance(a, IsmctsAgent) for a in agents):
        raise TypeError(f"{spec} is not a search")
    searchers = [a for a in agents if isinstance(a, IsmctsAgent)]
    rng = random.Random(args.seed + w)
    played = 0
    for chunk in range((args.games + CHUNK - 1) // CHUNK):
        path = args.out / f"w{w}-{chunk}.npz"
        count = min(CHUNK, args.games - chunk * CHUNK)
        if path.exists():  # written by an earlier run: replay the dice only
            rng.setstate(_state_after(path))
            continue
        out = Chunk()
        for _ in range(count):
            game = play(searchers, rng, args.sample)
            out.x += game.x
            out.ids += game.ids
            out.visits += game.visits
            out.results += game.results
        out.save(path)
        path.with_suffix(".rng").write_text(repr(rng.getstate()))
        played += count
        print(f"worker {w}: {chunk * CHUNK + count}/{args.games} games", flush=True)
    return played


def _state_after(path: Path) -> tuple[object, ...]:
    """The worker's random state after a written chunk (kept beside it, so a run goes on)."""
    import ast

    state = ast.literal_eval(path.with_suffix(".rng").read_text())
    if not isinstance(state, tuple):
        raise ValueError(f"{path.with_suffix('.rng')} holds no random state")
    return state


def main(argv: list[str] | None = None) -> int:
    """Parse the arguments and play."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", type=Path, required=True, help="the folder of the chunks")
    ap.add_argument("--games", type=int, default=2080, help="games a worker")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--iterations", type=int, default=3000, help="master's budget a decision")
    ap.add_argument("--sample", type=float, default=0.15, help="share of moves drawn by visits")
    ap.add_argument("--seed", type=int, default=1000)
    args = ap.parse_args(argv)
    if args.games < 1 or args.workers < 1 or args.iterations < 1 or not 0 <= args.sample <= 1:
        ap.error("games, workers and iterations at least 1, sample from 0 to 1")
    args.out.mkdir(parents=True, exist_ok=True)
    started = time.time()
    with Pool(args.workers) as pool:
        played = sum(pool.map(worker, [(w, args) for w in range(args.workers)]))
    print(f"{played} games played in {time.time() - started:.0f} s; the chunks are in {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
