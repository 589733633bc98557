"""The ``hanamikoji`` command. Thin: it parses arguments and calls the library."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from hanamikoji import __version__
from hanamikoji.ai import AGENTS
from hanamikoji.record import Record, RecordError
from hanamikoji.replay import render_replay

EXIT_USAGE = 2


def _max_rounds(text: str) -> int | None:
    if text.strip().lower() in ("none", "0", "unlimited", "no-limit"):
        return None
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a round limit: give a positive whole number, or 'none' for no limit"
        ) from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r}: the round limit must be 1 or more, or 'none'")
    return value


def _seat(text: str) -> int:
    if text not in ("0", "1"):
        raise argparse.ArgumentTypeError(f"{text!r} is not a seat: give 0 (first in round 1) or 1")
    return int(text)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``hanamikoji`` command."""
    parser = argparse.ArgumentParser(
        prog="hanamikoji",
        description="Hanamikoji: play, replay and analyse games of the two-player card game.",
    )
    parser.add_argument("--version", action="version", version=f"hanamikoji {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    play = sub.add_parser("play", help="play a game against the computer in the terminal")
    play.add_argument(
        "--opponent",
        default="greedy",
        choices=sorted(AGENTS),
        help="the built-in agent to play against (default: greedy)",
    )
    play.add_argument("--seed", type=int, default=None, help="seed of the deal (default: random)")
    play.add_argument(
        "--seat",
        type=_seat,
        default=None,
        help="your seat: 0 starts round 1 (default: drawn at random)",
    )
    play.add_argument(
        "--max-rounds",
        type=_max_rounds,
        default=3,
        metavar="N",
        help="round limit, or 'none' for no limit (default: 3)",
    )
    play.add_argument(
        "--record", type=Path, default=None, metavar="FILE", help="save the game record here"
    )
    play.add_argument("--name", default="you", help="your name in the record (default: you)")

    replay = sub.add_parser("replay", help="replay a game record, checking every move")
    replay.add_argument("file", type=Path, metavar="FILE", help="a hanamikoji-record/1 JSON file")
    replay.add_argument("--json", action="store_true", help="print only the result object as JSON")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command; returns the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        if args.command == "replay":
            return _replay(args.file, as_json=args.json)
        if args.command == "play":
            from hanamikoji.play import play_game

            return play_game(
                opponent=args.opponent,
                seed=args.seed,
                seat=args.seat,
                max_rounds=args.max_rounds,
                record=args.record,
                name=args.name,
            )
    except KeyboardInterrupt:
        print("\ninterrupted", file=sys.stderr)
        return 130
    except Exception as e:  # a bug: still one line for the user, never a traceback
        what = f"{type(e).__name__}: {e}"
        print(f"hanamikoji: internal error: {what} (please report it)", file=sys.stderr)
        return 1
    parser.print_help()
    return EXIT_USAGE


def _replay(path: Path, *, as_json: bool) -> int:
    try:
        record = Record.read(path)
        state = record.replay()
    except RecordError as e:
        print(f"hanamikoji replay: {path}: {e}", file=sys.stderr)
        return EXIT_USAGE
    if as_json:
        outcome = state.outcome
        print(json.dumps(outcome.to_json() if outcome is not None else None))
    else:
        print(render_replay(record, state), end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
