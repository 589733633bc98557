"""The ``hanamikoji`` command. Thin: it parses arguments and calls the library."""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import shutil
import signal
import sys
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from hanamikoji import __version__
from hanamikoji.ai import AGENTS, LEVELS, agent_options
from hanamikoji.ai.analysis import (
    DEFAULT_ITERATIONS,
    DecisionReview,
    SeatSummary,
    mark,
    summarize,
)
from hanamikoji.ai.config import ITERATIONS_MAX
from hanamikoji.match.config import CLOCK_MS_MAX
from hanamikoji.match.runner import Terminated
from hanamikoji.match.summary import MatchSummary
from hanamikoji.record import Record, RecordError
from hanamikoji.replay import render_replay, seat_names
from hanamikoji.state import State
from hanamikoji.terminal import printable, printable_lines, tolerate_unencodable
from hanamikoji.web.limits import Limits

EXIT_USAGE = 2
EXIT_BROKEN_PIPE = 141  # as a shell reports a command ended by SIGPIPE


def _max_rounds(text: str) -> int | None:
    # Not "0": Rules, records and the environments all refuse a limit of 0, so here it is
    # refused too rather than quietly meaning "no limit".
    if text.strip().lower() in ("none", "unlimited", "no-limit"):
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


MAX_AI_WORKERS = 256
"""The most AI worker processes ``serve`` starts (each a process with its own compiled search)."""


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r}: must be 1 or more")
    return value


def _up_to(high: int) -> Callable[[str], int]:
    """A whole number from 1 to ``high``, as an argument's type."""

    def parse(text: str) -> int:
        value = _positive(text)
        if value > high:
            raise argparse.ArgumentTypeError(f"{text!r}: must be {high:,} or less")
        return value

    return parse


def _name(text: str) -> str:
    """A player's name: some printable text (an empty one left the record's player nameless)."""
    if not text.strip():
        raise argparse.ArgumentTypeError("a name cannot be empty: give one, e.g. --name Anna")
    if not text.isprintable():  # an escape sequence would reach the terminal on every line
        raise argparse.ArgumentTypeError(
            f"a name is printable text: '{printable(text)}' holds control or formatting "
            "characters (shown escaped)"
        )
    if len(text) > 40:
        raise argparse.ArgumentTypeError(
            f"a name is at most 40 characters; this one has {len(text)}"
        )
    return text


def _count(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text!r}: must be 0 or more")
    return value


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not 0.1 <= value <= 3600:
        raise argparse.ArgumentTypeError(f"{text!r}: must be from 0.1 to 3600 seconds")
    return value


def _port(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number") from None
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"{text!r}: a port is 0 to 65535")
    return value


def _seat(text: str) -> int:
    if text not in ("0", "1"):
        raise argparse.ArgumentTypeError(f"{text!r} is not a seat: give 0 (first in round 1) or 1")
    return int(text)


_ENGINE_NAMES = (
    f"an agent ({', '.join(sorted(AGENTS))}), with options as NAME:KEY=VALUE,... or --option, "
    f"or a level as level:NAME ({', '.join(LEVELS)})"
)
"""What ``hanamikoji engine NAME`` takes, for its help and its usage errors."""


def _options_help() -> str:
    """The search agents' options, for ``hanamikoji engine --help`` (from their declaration)."""
    lines = []
    for name, factory in sorted(AGENTS.items()):
        options = agent_options(factory)
        if not options:
            continue
        lines.append(f"{name} options (KEY=VALUE; default, range):")
        for key, option in options.items():
            lines.append(f"  {key}={option.default} ({option.range_text()}): {option.help}")
    return "\n".join(lines)


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
        "--level",
        default=None,
        choices=list(LEVELS),
        help="the computer's strength (default: medium); not with --opponent",
    )
    play.add_argument(
        "--opponent",
        default=None,
        metavar="AGENT",
        help=f"a built-in agent instead of a level ({', '.join(sorted(AGENTS))}, with options "
        "as NAME:KEY=VALUE, or level:NAME); not an engine (cmd:): 'hanamikoji match' plays those",
    )
    play.add_argument(
        "--hints", action="store_true", help="allow 'hint': the AI's suggestion and win chance"
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
        "--record",
        type=Path,
        default=None,
        metavar="FILE",
        help="save the game record here (an existing FILE is refused; see --force)",
    )
    play.add_argument(
        "--force", action="store_true", help="let --record overwrite an existing FILE"
    )
    play.add_argument(
        "--name", type=_name, default="player", help="your name in the record (default: player)"
    )

    engine = sub.add_parser(
        "engine",
        help="serve a built-in agent over the engine protocol on stdin/stdout",
        epilog=_options_help(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    engine.add_argument("name", metavar="NAME", help=_ENGINE_NAMES)
    engine.add_argument("--seed", type=int, default=None, help="seed for the agent's choices")
    engine.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="an agent option (repeatable), e.g. --option hand_weight=0.4",
    )

    match = sub.add_parser(
        "match", help="play two players against each other in duplicate pairs and rate them"
    )
    match.add_argument(
        "a",
        metavar="A",
        help="built-in agent (NAME[:KEY=VALUE,...]), level (level:NAME) or cmd:COMMAND",
    )
    match.add_argument("b", metavar="B", help="the other player, in the same form")
    match.add_argument(
        "--games",
        type=_positive,
        default=100,
        help="games (default 100; in duplicate pairs, so an odd number is rounded up)",
    )
    match.add_argument("--jobs", type=_positive, default=1, help="pairs at once (default 1)")
    match.add_argument(
        "--clock-ms",
        type=_up_to(CLOCK_MS_MAX),
        default=1000,
        help="time per move to aim for (default 1000)",
    )
    match.add_argument(
        "--hard-limit-ms",
        type=_up_to(CLOCK_MS_MAX),
        default=None,
        help="forfeit an engine silent this long (default and least: clock-ms + 1000)",
    )
    match.add_argument("--seed", type=int, default=0, help="match seed: deals and agents (0)")
    match.add_argument("--records", type=Path, default=None, metavar="DIR", help="write records")
    match.add_argument(
        "--max-rounds", type=_max_rounds, default=3, metavar="R", help="round limit or 'none'"
    )
    match.add_argument(
        "--sprt",
        nargs=4,
        type=float,
        default=None,
        metavar=("ELO0", "ELO1", "ALPHA", "BETA"),
        help="stop when the SPRT decides between ELO0 and ELO1",
    )
    match.add_argument("--backend", choices=("local", "ray"), default="local")
    match.add_argument("--json", action="store_true", help="print the summary as JSON")

    tour = sub.add_parser(
        "tournament",
        help="play many players in a round robin or a gauntlet and rate them all in one fit",
    )
    tour.add_argument(
        "players",
        nargs="+",
        metavar="PLAYER",
        help="built-in agents (NAME[:KEY=VALUE,...]), levels (level:NAME) or cmd:COMMAND",
    )
    tour.add_argument(
        "--gauntlet", default=None, metavar="PLAYER", help="play only PLAYER against the others"
    )
    tour.add_argument(
        "--games-per-pair",
        type=_positive,
        default=10,
        metavar="N",
        help="games each two players play (default 10; in duplicate pairs, so an odd number "
        "is rounded up)",
    )
    tour.add_argument("--jobs", type=_positive, default=1, help="pairs at once (default 1)")
    tour.add_argument(
        "--clock-ms",
        type=_up_to(CLOCK_MS_MAX),
        default=1000,
        help="time per move to aim for (default 1000)",
    )
    tour.add_argument(
        "--hard-limit-ms",
        type=_up_to(CLOCK_MS_MAX),
        default=None,
        help="forfeit an engine silent this long (default and least: clock-ms + 1000)",
    )
    tour.add_argument("--seed", type=int, default=0, help="tournament seed: deals and agents (0)")
    tour.add_argument(
        "--max-rounds", type=_max_rounds, default=3, metavar="R", help="round limit or 'none'"
    )
    tour.add_argument(
        "--anchor",
        default=None,
        metavar="PLAYER=ELO",
        help="the player whose rating is fixed, e.g. random=0 (default: the first player that "
        "plays, at 0; with --gauntlet, its player)",
    )
    tour.add_argument(
        "--state",
        type=Path,
        default=None,
        metavar="FILE",
        help="save results here after each pair and resume from them",
    )
    tour.add_argument("--backend", choices=("local", "ray"), default="local")
    tour.add_argument("--json", action="store_true", help="print the results as JSON")

    analyze = sub.add_parser(
        "analyze",
        help="review a game: for each decision the best move and what the move lost",
        description="Review a game: each decision searched from the decider's view (its own\n"
        "hand, never the cards it could not see), moves numbered as in 'hanamikoji replay'.",
        epilog=ANALYZE_COLUMNS,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    analyze.add_argument(
        "file", metavar="RECORD", help="a hanamikoji-record/1 file, or - for standard input"
    )
    analyze.add_argument("--seat", type=_seat, default=None, help="only this seat's decisions")
    analyze.add_argument(
        "--iterations",
        type=_up_to(ITERATIONS_MAX),
        default=DEFAULT_ITERATIONS,
        help=f"search per decision (default {DEFAULT_ITERATIONS})",
    )
    analyze.add_argument("--json", action="store_true", help="one JSON object per decision")

    serve = sub.add_parser("serve", help="start the web app (play in the browser)")
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on (127.0.0.1)")
    serve.add_argument("--port", type=_port, default=8000, help="port to listen on (8000)")
    serve.add_argument(
        "--db",
        default=None,
        metavar="URL",
        help="sqlite:///FILE or postgresql://USER@HOST:PORT/DB "
        "(default: an SQLite file in your data directory)",
    )
    serve.add_argument(
        "--ai-workers",
        type=_up_to(MAX_AI_WORKERS),
        default=None,
        help="processes that run the AI's moves and hints, 1 to "
        f"{MAX_AI_WORKERS} (default: the machine's cores)",
    )
    serve.add_argument(
        "--public-url",
        default=None,
        metavar="URL",
        help="the address people open, e.g. https://hanamikoji.example.org behind a proxy "
        "(https: Secure cookies and HSTS)",
    )
    serve.add_argument(
        "--allow-origin",
        action="append",
        default=[],
        metavar="ORIGIN",
        help="another origin whose pages may use this server (repeatable)",
    )
    serve.add_argument(
        "--behind-proxy",
        action="store_true",
        help="take each client's address from the proxy's X-Forwarded-For (for the limits)",
    )
    serve.add_argument(
        "--games-per-minute",
        type=_count,
        default=Limits.games_per_minute,
        metavar="N",
        help=f"new games one client may create a minute (default {Limits.games_per_minute}; "
        "0: no limit)",
    )
    serve.add_argument(
        "--guests-per-minute",
        type=_count,
        default=Limits.guests_per_minute,
        metavar="N",
        help=f"new guest identities one client may be given a minute (default "
        f"{Limits.guests_per_minute}; 0: no limit)",
    )
    serve.add_argument(
        "--ai-games",
        type=_count,
        default=Limits.ai_games,
        metavar="N",
        help=f"unfinished games one client may hold against the AI (default {Limits.ai_games}; "
        "0: no limit)",
    )
    serve.add_argument(
        "--log-level",
        choices=("warning", "info", "debug"),
        default="warning",
        help="warning: errors only (default); info: also each refusal and each socket cut",
    )
    serve.add_argument(
        "--header-timeout",
        type=_seconds,
        default=15.0,
        metavar="SECONDS",
        help="time a connection has to send a whole request (default 15)",
    )
    serve.add_argument(
        "--sockets-per-seat",
        type=_count,
        default=Limits.sockets_per_seat,
        metavar="N",
        help=f"open connections per seat, the oldest closed beyond (default "
        f"{Limits.sockets_per_seat}; 0: no limit)",
    )
    serve.add_argument(
        "--spectators-per-game",
        type=_count,
        default=Limits.spectators_per_game,
        metavar="N",
        help=f"spectators' connections one game may have (default {Limits.spectators_per_game}; "
        "0: no limit)",
    )
    serve.add_argument(
        "--spectators-per-client",
        type=_count,
        default=Limits.spectators_per_client,
        metavar="N",
        help="spectators' connections one client may hold, all games together (default "
        f"{Limits.spectators_per_client}; 0: no limit)",
    )
    serve.add_argument(
        "--no-house-bots",
        action="store_true",
        help="the AI levels do not play in the lobby as bots (docs/bots.md)",
    )

    bot = sub.add_parser(
        "bot",
        help="play people on a server's lobby with an engine, as a bot (docs/bots.md)",
        description="Connect ENGINE to a Hanamikoji server as the bot whose token is given: "
        "it accepts the challenges its owner's settings allow and plays each game over the "
        "engine protocol.",
    )
    bot.add_argument("--server", required=True, metavar="URL", help="e.g. https://example.org")
    bot.add_argument(
        "--token",
        default=None,
        metavar="TOKEN",
        help="the bot's token (from the account page); default: $HANAMIKOJI_BOT_TOKEN",
    )
    bot.add_argument(
        "engine", metavar="ENGINE", help="cmd:COMMAND, a built-in agent, or level:NAME"
    )

    from hanamikoji.web.moderation import configure as configure_admin

    configure_admin(
        sub.add_parser("admin", help="moderate the web app: mute or disable players, remove chat"),
        _positive,
    )

    replay = sub.add_parser("replay", help="replay a game record, checking every move")
    replay.add_argument(
        "file", metavar="FILE", help="a hanamikoji-record/1 JSON file, or - for standard input"
    )
    replay.add_argument("--json", action="store_true", help="print only the result object as JSON")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command; returns the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command in ("replay", "analyze", "match", "tournament"):
        # These print names and messages from records and engines; a name in a script the
        # terminal's encoding lacks is shown escaped rather than ending the command.
        tolerate_unencodable()
    try:
        if args.command == "replay":
            return _replay(args.file, as_json=args.json)
        if args.command == "engine":
            return _engine(args.name, args.seed, args.option)
        if args.command == "match":
            return _match(args)
        if args.command == "tournament":
            return _tournament(args)
        if args.command == "analyze":
            return _analyze(args.file, args.seat, args.iterations, as_json=args.json)
        if args.command == "serve":
            return _serve(args)
        if args.command == "bot":
            return _bot(args)
        if args.command == "admin":
            from hanamikoji.web.moderation import run as admin

            return admin(args)
        if args.command == "play":
            from hanamikoji.play import play_game

            if args.opponent is not None and args.level is not None:
                print(
                    "hanamikoji play: give --level or --opponent, not both "
                    "(--opponent level:NAME is a level too)",
                    file=sys.stderr,
                )
                return EXIT_USAGE
            return play_game(
                opponent=args.opponent
                if args.opponent is not None
                else f"level:{args.level or 'medium'}",
                hints=args.hints,
                seed=args.seed,
                seat=args.seat,
                max_rounds=args.max_rounds,
                record=args.record,
                force=args.force,
                name=args.name,
            )
    except KeyboardInterrupt as e:
        print("\ninterrupted", file=sys.stderr)
        return _stopped_status(signal.SIGTERM if isinstance(e, Terminated) else signal.SIGINT)
    except BrokenPipeError:  # the reader stopped reading (``| head``): nothing more to say
        _silence_stdout()
        return EXIT_BROKEN_PIPE
    except Exception as e:  # a bug: still one line for the user, never a traceback
        what = printable(f"{type(e).__name__}: {e}")
        print(f"hanamikoji: internal error: {what} (please report it)", file=sys.stderr)
        return 1
    parser.print_help()
    return EXIT_USAGE


def _silence_stdout() -> None:
    """Point standard output at the null device, so that the interpreter's last flush of what
    is still buffered for a reader that left does not fail again at exit."""
    try:
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):  # not a real file: nothing is flushed to it
        pass


def _bot(args: argparse.Namespace) -> int:
    from hanamikoji.bot import main as bot

    # (blanks around it, as a copy from the account page may bring, are no part of a token)
    token = (args.token or os.environ.get("HANAMIKOJI_BOT_TOKEN", "")).strip()
    if not token:
        print("hanamikoji bot: give --token, or set HANAMIKOJI_BOT_TOKEN", file=sys.stderr)
        return EXIT_USAGE
    return bot(args.server, token, args.engine)


def _serve(args: argparse.Namespace) -> int:
    from hanamikoji.web.server import Settings, origin_of, serve
    from hanamikoji.web.store import StoreError

    host, port = args.host, args.port
    cores = os.cpu_count() or 1
    if args.ai_workers is not None and args.ai_workers > cores:
        # Allowed (a machine shared with other work may want it), but not what it may seem.
        print(
            f"hanamikoji serve: note: {args.ai_workers} AI workers on {cores} cores: they take "
            "turns on the cores (no reply comes sooner), and each holds its own memory",
            file=sys.stderr,
        )
    try:
        urls = ([args.public_url] if args.public_url else []) + list(args.allow_origin)
        origins = tuple(origin_of(url) for url in urls)
    except ValueError as e:
        print(f"hanamikoji serve: {e}", file=sys.stderr)
        return EXIT_USAGE
    settings = Settings(
        public_url=args.public_url,
        allowed_origins=origins,
        behind_proxy=args.behind_proxy,
        header_timeout=args.header_timeout,
        house_bots=not args.no_house_bots,
        limits=Limits(
            games_per_minute=args.games_per_minute,
            guests_per_minute=args.guests_per_minute,
            ai_games=args.ai_games,
            sockets_per_seat=args.sockets_per_seat,
            spectators_per_game=args.spectators_per_game,
            spectators_per_client=args.spectators_per_client,
        ),
    )
    try:
        serve(
            host,
            port,
            args.db,
            ai_workers=args.ai_workers,
            settings=settings,
            log_level=args.log_level,
        )
    except StoreError as e:
        print(f"hanamikoji serve: {e}", file=sys.stderr)
        return 1
    except OSError as e:  # the port is taken, or the address is not this machine's
        print(
            f"hanamikoji serve: cannot listen on {host}:{port}: {e.strerror or e}", file=sys.stderr
        )
        return 1
    return 0


def _engine(name: str, seed: int | None, options: list[str]) -> int:
    """Serve NAME (``NAME[:KEY=VALUE,...]`` or ``level:NAME``, as ``match`` reads a player)."""
    from hanamikoji.ai import AgentError, parse_agent
    from hanamikoji.engine import serve

    pairs: list[str] = []
    for item in options:
        key, eq, _ = item.partition("=")
        if not eq or not key:
            print(f"hanamikoji engine: --option {item!r} must look like KEY=VALUE", file=sys.stderr)
            return EXIT_USAGE
        pairs.append(item)
    kind, colon, _ = name.partition(":")
    kind = kind.strip().lower()
    if kind == "cmd":  # an engine already: it speaks the protocol itself, nothing to serve
        print(
            f"hanamikoji engine: {printable(name)!r} is an engine of its own; `engine` serves a "
            "built-in agent (run the command itself where an engine is wanted)",
            file=sys.stderr,
        )
        return EXIT_USAGE
    if kind != "level" and kind not in AGENTS and kind not in LEVELS:
        # The error on its line, then what NAME may be on its own (not one run-on line).
        print(f"hanamikoji engine: unknown agent {printable(name)!r}", file=sys.stderr)
        print(f"hanamikoji engine: NAME is {_ENGINE_NAMES}", file=sys.stderr)
        return EXIT_USAGE
    if kind == "level" and pairs:
        print("hanamikoji engine: a level takes no options; name an agent", file=sys.stderr)
        return EXIT_USAGE
    spec = name + ("," if colon else ":") + ",".join(pairs) if pairs else name
    try:
        agent = parse_agent(spec)
    except AgentError as e:
        print(f"hanamikoji engine: {printable(str(e))}", file=sys.stderr)
        return EXIT_USAGE
    if sys.stdout is None:  # started with its standard output closed: nowhere to answer
        _complain(
            "hanamikoji engine: standard output is closed: an engine answers the referee there "
            "(start it with its standard output a pipe to the referee)"
        )
        return EXIT_USAGE
    try:
        return serve(agent, seed=seed)
    except BrokenPipeError:  # the referee left: main says so as for any reader that left
        raise
    except OSError as e:  # a full disk or device behind standard output: not a bug of ours
        _complain(
            f"hanamikoji engine: cannot write an answer to standard output: {e.strerror or e}"
        )
        return 1


def _complain(message: str) -> None:
    """``message`` on standard error, if there is one to write to (it may be closed or full:
    then the exit status alone says it)."""
    if sys.stderr is None:
        return
    with contextlib.suppress(OSError, ValueError):
        print(message, file=sys.stderr, flush=True)


class _ReportHeld:
    """Ctrl-C and SIGTERM held back from when a match or tournament has ended (stopped by one
    of them, say) until its report is printed: a second Ctrl-C, pressed as the first one's
    cleanup ends, lost the whole table for a bare "interrupted". One that comes while the report
    is printed, after a run that ran to its end, takes effect once it is out (130 or 143); after a
    run that a signal already stopped, it is dropped: the status says that stop."""

    def __init__(self) -> None:
        self._old: dict[int, Any] = {}
        self._came: list[int] = []
        self._drop = False

    def hold(self, *, interrupted: bool) -> None:
        """Hold the stops (only the main thread can; an ignored Ctrl-C stays ignored)."""
        self._drop = interrupted
        if self._old or threading.current_thread() is not threading.main_thread():
            return
        for signum in (signal.SIGINT, signal.SIGTERM):
            if signal.getsignal(signum) is not signal.SIG_IGN:
                self._old[signum] = signal.signal(signum, self._note)

    def _note(self, signum: int, frame: object) -> None:
        self._came.append(signum)

    def __enter__(self) -> _ReportHeld:
        return self

    def __exit__(self, kind: type[BaseException] | None, *rest: object) -> None:
        for signum, handler in self._old.items():
            signal.signal(signum, handler)
        self._old.clear()
        if self._came and not self._drop and kind is None:
            raise Terminated if self._came[0] == signal.SIGTERM else KeyboardInterrupt


def _match(args: argparse.Namespace) -> int:
    with _ReportHeld() as held:
        return _play_match(args, held)


def _play_match(args: argparse.Namespace, held: _ReportHeld) -> int:
    from hanamikoji.match import MatchConfig, MatchError, RecordsError, run_match
    from hanamikoji.state import Rules
    from hanamikoji.stats import Sprt

    _closed_stderr_to_null()
    try:
        sprt = Sprt(*args.sprt) if args.sprt else None
        config = MatchConfig(
            a=args.a,
            b=args.b,
            games=args.games,
            jobs=args.jobs,
            clock_ms=args.clock_ms,
            hard_limit_ms=args.hard_limit_ms,
            seed=args.seed,
            rules=Rules(args.max_rounds),
            records=args.records,
            sprt=sprt,
            backend=args.backend,
        )
        _say_rounded_up("match", "--games", args.games)
        live = sys.stderr.isatty()

        def progress(summary: Any) -> None:
            line = summary.progress()
            if live:
                print(
                    "\r" + line[: shutil.get_terminal_size().columns - 1], end="", file=sys.stderr
                )
            elif summary.pentanomial.pairs % max(1, config.pairs // 10) == 0:
                print(line, file=sys.stderr)

        summary = run_match(config, on_pair=progress)
        held.hold(interrupted=summary.stopped == "interrupted")
    except RecordsError as e:
        held.hold(interrupted=False)
        # The games played before the record failed are shown, as after Ctrl-C, then the error.
        if live:
            print(file=sys.stderr)
        written = _print_match_summary(e.summary, as_json=args.json)
        print(f"hanamikoji match: {printable(str(e))}", file=sys.stderr)
        return EXIT_USAGE if written else 1
    except (MatchError, ValueError) as e:  # may quote an engine's output
        print(f"hanamikoji match: {printable(str(e))}", file=sys.stderr)
        return EXIT_USAGE
    if live:
        print(file=sys.stderr)
    if not _print_match_summary(summary, as_json=args.json):
        return 1
    return _stopped_status(summary.signal) if summary.stopped == "interrupted" else 0


def _print_match_summary(summary: MatchSummary, *, as_json: bool) -> bool:
    """The match's summary on standard output: as JSON, or as readable text; False (said on
    standard error) where it cannot be written."""
    if as_json:
        text = json.dumps(summary.to_json(), ensure_ascii=True) + "\n"
    else:
        # Forfeit reasons quote engines (their stderr, their lines): escaped, line by line.
        text = printable_lines(summary.render())
    return _write_report("match", "summary", text)


def _write_report(command: str, what: str, text: str) -> bool:
    """Write a match's or tournament's report on standard output, now (flushed): a full disk
    or a device that refuses it is said in a line on standard error, not as a bug."""
    if sys.stdout is None:  # started with standard output closed
        _complain(f"hanamikoji {command}: standard output is closed: the {what} is not shown")
        return False
    try:
        sys.stdout.write(text)
        sys.stdout.flush()
    except BrokenPipeError:  # the reader left: main says nothing more, as for any command
        raise
    except OSError as e:
        _silence_stdout()  # what is still buffered must not fail again at exit
        _complain(
            f"hanamikoji {command}: cannot write the {what} to standard output: {e.strerror or e}"
        )
        return False
    return True


def _closed_stderr_to_null() -> None:
    """A command started with standard error closed writes its progress and messages to the
    null device (its exit status still says how it ended) rather than failing on them."""
    if sys.stderr is None:
        sys.stderr = open(os.devnull, "w")  # noqa: SIM115 (for the rest of the process)


def _tournament(args: argparse.Namespace) -> int:
    with _ReportHeld() as held:
        return _play_tournament(args, held)


def _play_tournament(args: argparse.Namespace, held: _ReportHeld) -> int:
    from hanamikoji.match import MatchError
    from hanamikoji.state import Rules
    from hanamikoji.tournament import TournamentConfig, run_tournament

    _closed_stderr_to_null()
    try:
        anchor, anchor_elo = None, 0.0
        if args.anchor is not None:
            name, eq, value = args.anchor.rpartition("=")
            try:
                anchor, anchor_elo = name, float(value)
            except ValueError:
                eq = ""
            if not math.isfinite(anchor_elo):  # nan or inf: no rating, and not JSON
                eq = ""
            if not eq or not name:
                raise MatchError(f"--anchor takes PLAYER=ELO, e.g. random=0, got {args.anchor!r}")
        # A gauntlet from outside the players joins them (TournamentConfig.all_players), once
        # TournamentConfig has checked that it names a player at all.
        config = TournamentConfig(
            players=tuple(args.players),
            gauntlet=args.gauntlet,
            games_per_pair=args.games_per_pair,
            jobs=args.jobs,
            clock_ms=args.clock_ms,
            hard_limit_ms=args.hard_limit_ms,
            seed=args.seed,
            rules=Rules(args.max_rounds),
            anchor=anchor,
            anchor_elo=anchor_elo,
            state=args.state,
            backend=args.backend,
        )
        _say_rounded_up("tournament", "--games-per-pair", args.games_per_pair)
        live = sys.stderr.isatty()
        every = max(1, len(config.all_players) ** 2 * config.pairs_per_pairing // 40)

        def progress(t: Any) -> None:
            line = t.progress()
            if live:
                print(
                    "\r" + line[: shutil.get_terminal_size().columns - 1], end="", file=sys.stderr
                )
            elif (len(t.pairs) - t.resumed) % every == 0:
                print(line, file=sys.stderr, flush=True)

        result = run_tournament(config, on_pair=progress)
        held.hold(interrupted=result.stopped == "interrupted")
    except (MatchError, ValueError) as e:  # may quote an engine's output
        print(f"hanamikoji tournament: {printable(str(e))}", file=sys.stderr)
        return EXIT_USAGE
    if live:
        print(file=sys.stderr)
    for player, why in result.dropped.items():
        print(
            f"hanamikoji tournament: left out {printable(player)}: {printable(why)}",
            file=sys.stderr,
        )
    if result.unplayable:
        # As a match whose player cannot start: no table (there is nothing to rate), status 2.
        print(
            f"hanamikoji tournament: stopped: {printable(result.stopped or '')}; nothing played",
            file=sys.stderr,
        )
        return EXIT_USAGE
    if args.json:
        text = json.dumps(result.to_json(), ensure_ascii=True) + "\n"
    else:
        text = printable_lines(result.render())
    if not _write_report("tournament", "results", text):
        return 1
    if result.state_error is not None:
        # As a match whose game record cannot be written: the results so far, then why, status 2.
        print(
            f"hanamikoji tournament: {printable(result.state_error)} (the last pair played is "
            "in the results above but not in the file: a resumed run plays it again)",
            file=sys.stderr,
        )
        return EXIT_USAGE
    return _stopped_status(result.signal) if result.stopped == "interrupted" else 0


def _stopped_status(signum: int | None) -> int:
    """A shell's status for a command a signal ended: 130 after Ctrl-C, 143 after SIGTERM."""
    return 128 + (signum or signal.SIGINT)


def _say_rounded_up(command: str, option: str, games: int) -> None:
    """Say, once and before any game, that an odd number of games is played as the next even
    one (the library rounds up silently)."""
    if games % 2:
        print(
            f"hanamikoji {command}: {option} {games} plays {games + 1} games: games come in "
            "duplicate pairs (each deal twice, with the seats swapped)",
            file=sys.stderr,
        )


FEW_ITERATIONS = 1000
"""Below this many iterations a decision, analyze says its figures are noise."""

ANALYZE_COLUMNS = """\
each line:
  round 1 move  4  Anna  C15-26 ?   win  33.8%  lost 12.8%  best C15-66 46.6%
  the move played (in the notation: S Secret, D Discard, G Gift, C Competition, P Pick);
  ? it lost 5% or more, ?? 15% or more;
  win   the player's chance of winning after it, as the AI judges it from that player's view;
  lost  how much chance it gave away against the AI's best move (0.0%: the best);
  best  the better move and its chance, where there is one.
Then, after a blank line, a line for each player reviewed:
  Anna  12 decisions  ? 2  ?? 1  lost 31.2% (2.6% a decision)  worst round 1 move  4 C15-26 12.8%
  how many of their moves bore each mark; the chance they lost in all, and per decision;
  worst  the move that lost most, and what it lost.
Two searches of one position differ by up to 3% (docs/ai.md): a loss under that is noise.
--json gives win_probability (the best move's chance), played_value and loss as fractions;
the last line's "summary" is the players' lines (seat, name, decisions, marked, loss,
average_loss, worst)."""


def _analyze(path: str, seat: int | None, iterations: int, *, as_json: bool) -> int:
    from hanamikoji.ai.analysis import ITERATIONS, review
    from hanamikoji.ai.prepare import prepare_search

    read = _read_record("analyze", path)
    if read is None:
        return EXIT_USAGE
    record, end = read
    if sys.stdout is None:  # started with standard output closed: nothing to search for
        _complain("hanamikoji analyze: standard output is closed: the review is not shown")
        return 1
    # Two players shown alike are told apart by their seats, as in a replay.
    names = seat_names(record)
    if iterations < FEW_ITERATIONS:
        its = "iteration a decision gives" if iterations == 1 else "iterations a decision give"
        print(
            f"hanamikoji analyze: {iterations:,} {its} noise, not analysis "
            f"(a hint searches {ITERATIONS:,}; below {FEW_ITERATIONS:,} the figures mean little)",
            file=sys.stderr,
        )
    prepare_search(lambda text: print(f"hanamikoji analyze: {text}", file=sys.stderr, flush=True))
    seats = (0, 1) if seat is None else (seat,)
    # The JSON's summary rides on the last decision's line (every line stays a decision), so
    # that line is known by count: review yields one decision per ply of those seats.
    total = sum(1 for ply in end.history if ply.seat in seats)
    reviewed: list[DecisionReview] = []
    for r in review(record, seat=seat, iterations=iterations):
        reviewed.append(r)
        if as_json:
            row: dict[str, Any] = {
                "round": r.round,
                "index": r.index,
                "seat": r.seat,
                "played": str(r.played),
                "best": str(r.best),
                "win_probability": round(r.win_probability, 4),
                "played_value": round(r.played_value, 4),
                "loss": round(r.loss, 4),
            }
            if len(reviewed) == total:
                row["summary"] = [
                    _summary_json(s, record.players[s.seat]) for s in summarize(reviewed, seats)
                ]
            if not _write_report("analyze", "review", json.dumps(row) + "\n"):
                return 1
            continue
        marked = mark(r.loss)
        # "win" is the chance after the move played; a better move says its own beside it (the
        # JSON's win_probability is the best move's, played_value the move played's)
        # (a "best" not worth more than the move played, as a search of a few iterations may
        # find, is no better move)
        shown_best = r.best is not r.played and r.win_probability > r.played_value
        better = f"  best {r.best} {100 * r.win_probability:.1f}%" if shown_best else ""
        line = (
            f"round {r.round} move {r.index:>2}  {names[r.seat]:<12} {r.played!s:<7}{marked:<3}"
            f" win {100 * r.played_value:5.1f}%  lost {100 * r.loss:4.1f}%{better}\n"
        )
        if not _write_report("analyze", "review", line):  # a full disk: said, status 1
            return 1
    if reviewed and not as_json:
        lines = [_summary_line(s, names[s.seat]) for s in summarize(reviewed, seats)]
        if not _write_report("analyze", "review", "\n" + "".join(lines)):
            return 1
    if not reviewed:  # said on stderr: the JSON lines on stdout stay the decisions alone
        whose = "" if seat is None else f" of {names[seat]} (seat {seat})"
        # An unfinished record was abandoned, or cut short: it stops, the game did not end.
        stop = "the game ended" if end.is_over else "the record stops"
        print(
            f"hanamikoji analyze: {_source(path)}: no decision{whose} to review: "
            f"{stop} before one was made",
            file=sys.stderr,
        )
    return 0


def _summary_line(summary: SeatSummary, name: str) -> str:
    """A player's line at the end of the review, its columns beside the decision lines'."""
    if not summary.decisions:  # a game that ended (or a record that stops) before their turn
        return f"{name:<12} no decision\n"
    count = f"{summary.decisions:>2} decision{'' if summary.decisions == 1 else 's'}"
    marks = "  ".join(f"{symbol} {n}" for symbol, n in summary.marked.items())
    loss = f"lost {100 * summary.loss:.1f}% ({100 * summary.average_loss:.1f}% a decision)"
    w = summary.worst
    worst = (
        "no move lost anything"
        if w is None
        else f"worst round {w.round} move {w.index:>2} {w.played} {100 * w.loss:.1f}%"
    )
    return f"{name:<12} {count}  {marks}  {loss}  {worst}\n"


def _summary_json(summary: SeatSummary, name: str) -> dict[str, Any]:
    """A player's summary for the JSON's ``summary`` (losses as fractions, as the lines')."""
    w = summary.worst
    return {
        "seat": summary.seat,
        "name": name,
        "decisions": summary.decisions,
        "marked": summary.marked,
        "loss": round(summary.loss, 4),
        "average_loss": round(summary.average_loss, 4),
        "worst": None
        if w is None
        else {
            "round": w.round,
            "index": w.index,
            "played": str(w.played),
            "loss": round(w.loss, 4),
        },
    }


STDIN = "-"
"""The record file argument that means standard input."""


def _source(path: str) -> str:
    """Where a record was read from, for messages."""
    return "standard input" if path == STDIN else printable(path)


def _read_record(command: str, path: str) -> tuple[Record, State] | None:
    """The record at ``path`` (``-``: standard input) and its replayed end, or None once the
    reason it is broken is said on stderr; its unknown rules keys are noted there too."""
    if path == STDIN and sys.stdin is None:  # started with standard input closed
        _complain(
            f"hanamikoji {command}: standard input is closed: give a record file, or - with "
            "the record piped in"
        )
        return None
    try:
        record = Record.read(sys.stdin.buffer if path == STDIN else path)
        state = record.replay()
    except RecordError as e:
        print(f"hanamikoji {command}: {_source(path)}: {printable(str(e))}", file=sys.stderr)
        return None
    _note_unknown_rules(command, path, record)
    return record, state


def _note_unknown_rules(command: str, path: str, record: Record) -> None:
    """One note on stderr naming the record's rules keys that are ignored here."""
    if record.unknown_rules:
        keys = ", ".join(json.dumps(k) for k in record.unknown_rules)
        print(
            f"hanamikoji {command}: note: {_source(path)}: rules this program does not "
            f"know are ignored ({printable(keys)}): the game is read under the standard rules",
            file=sys.stderr,
        )


def _replay(path: str, *, as_json: bool) -> int:
    read = _read_record("replay", path)
    if read is None:
        return EXIT_USAGE
    record, state = read
    if as_json:
        outcome = state.outcome
        # ensure_ascii: the record's text (the result's why) arrives as escapes, never raw.
        text = json.dumps(outcome.to_json() if outcome is not None else None, ensure_ascii=True)
        text += "\n"
    else:
        text = render_replay(record, state)
    # A full disk or closed standard output is said in a line, status 1 (not an internal error)
    return 0 if _write_report("replay", "replay", text) else 1


if __name__ == "__main__":
    sys.exit(main())
