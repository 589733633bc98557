"""Play a whole game in the terminal against a built-in agent (``hanamikoji play``).

Everything shown to the human comes from the VIEW of the human's seat, so the opponent's hand,
Secret and Discard stay hidden until the scoring reveals the Secrets. Input is read line by line
(it works with piped standard input); the human answers with a move in notation (``G147``,
``g741``) or the number of a move in the list shown.
"""

from __future__ import annotations

import contextlib
import enum
import errno
import os
import random
import signal
import sys
import threading
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

from rich.console import Console, RenderableType
from rich.panel import Panel
from rich.rule import Rule
from rich.text import Text

from hanamikoji.ai import Agent, AgentError, parse_agent
from hanamikoji.ai.analysis import suggest
from hanamikoji.ai.base import start_game
from hanamikoji.ai.prepare import prepare, prepare_search
from hanamikoji.files import real_target, temporary_beside, write_whole
from hanamikoji.moves import IllegalMoveError, InvalidMoveError, Move
from hanamikoji.screen import (
    THEM,
    YOU,
    board,
    move_list,
    offer_panel,
    show_scoring,
    turn_number,
    unicode_console,
)
from hanamikoji.state import Phase, Rules, State, Termination
from hanamikoji.terminal import printable, tolerate_unencodable
from hanamikoji.view import Reveal, SeenMove, View, describe_seen

__all__ = ["play_game"]

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130

CLOCK_MS = 1000
"""The time budget handed to the agent for each decision."""


HELP = """\
How to answer:
  a number     the move with that number in the list shown (in a pick, a number
               that is also a card of the offer but not its choice is refused:
               type P5 for the card 5)
  a move       in notation, any case or order: S4 (Secret), D15 (Discard),
               G147 (Gift), C12-47 (Competition: two pairs),
               P4 or P47 (take a card or a pair from an offer)
  ?, help      this help
  b, board     show the position again
  hint         the AI's suggestion and your chance of winning (with --hints)
  resign       give up: the computer wins
  q, quit      stop (the game is abandoned; --record still saves it)
Your turn: draw a card, then use an unused action (each once a round):
  Secret       hide 1 card; it scores for you at the end of the round
  Discard      put 2 cards out of this round
  Gift         offer 3 cards; the opponent takes 1, you keep 2
  Competition  offer 2 pairs; the opponent takes one pair, you keep the other
After 8 turns the Secrets are revealed: more cards of a geisha wins her marker
(on a tie it stays). 11 charm or 4 geisha wins the game."""


class _End(enum.Enum):
    """How the game loop stopped."""

    OVER = "over"
    EOF = "eof"
    QUIT = "quit"


@dataclass
class _Game:
    """One terminal game: the true state, the human's seat and the opponent agent."""

    state: State
    seat: int
    agent: Agent
    agent_rng: random.Random
    names: tuple[str, str]
    console: Console
    input: TextIO
    echo: bool
    shown: int = 0
    """History entries of the human's view already told."""
    drawn: str | None = None
    """The card the human drew this turn, when known."""
    arrows: tuple[str, str] = field(default=("◀", "▶"))
    hints: bool = False
    """Whether the human may ask for the AI's suggestion."""

    @property
    def opp(self) -> int:
        """The computer's seat."""
        return 1 - self.seat

    def style(self, seat: int | None) -> str:
        """The colour of ``seat`` (dim for nobody)."""
        if seat is None:
            return "dim"
        return YOU if seat == self.seat else THEM

    def name(self, seat: int) -> Text:
        """``seat``'s name in its colour."""
        return Text(self.names[seat], style=f"bold {self.style(seat)}")

    def say(self, *parts: RenderableType | str) -> None:
        """Print to the console (no markup in plain strings, no auto-highlighting)."""
        self.console.print(*parts, markup=False, highlight=False)


def play_game(
    opponent: str = "greedy",
    seed: int | None = None,
    seat: int | None = None,
    max_rounds: int | None = 3,
    record: Path | None = None,
    name: str = "player",
    *,
    hints: bool = False,
    force: bool = False,
    input: TextIO | None = None,
    console: Console | None = None,
) -> int:
    """Play one game against the agent ``opponent``; returns the exit status.

    ``seat`` is the human's seat (None: drawn from the seed); ``record`` a file to save the
    game record to at the end (also when the game is abandoned), refused when it exists
    unless ``force``. ``input`` and ``console`` default to standard input and a console on
    standard output.
    """
    if console is None:
        # A terminal that is not UTF-8 (PYTHONIOENCODING=ascii, an old code page) shows what it
        # cannot encode (a name in another script) as escapes instead of ending the game.
        tolerate_unencodable()
    out = console if console is not None else _Console(highlight=False)
    err = console if console is not None else _Console(stderr=True, highlight=False)
    if opponent.strip().lower().startswith("cmd:"):
        # Otherwise read as agent "cmd" with option "COMMAND", and refused for its KEY=VALUE.
        err.print(
            Text(
                f"hanamikoji play: --opponent {opponent!r} is an engine, which play cannot "
                "use: give a built-in agent or level:NAME ('hanamikoji match' plays engines)",
                style="bold red",
            )
        )
        return EXIT_USAGE
    if not opponent.strip():
        err.print(Text("hanamikoji play: --opponent is empty: name an agent", style="bold red"))
        return EXIT_USAGE
    try:
        agent = parse_agent(opponent)
        rules = Rules(max_rounds=max_rounds)
    except (AgentError, ValueError) as e:
        err.print(Text(f"hanamikoji play: {e}", style="bold red"))
        return EXIT_USAGE
    if seat not in (None, 0, 1):
        err.print(Text(f"hanamikoji play: seat must be 0 or 1, got {seat!r}", style="bold red"))
        return EXIT_USAGE
    problem = _record_problem(record, force=force)
    if problem is not None:
        err.print(Text(f"hanamikoji play: {problem}", style="bold red"))
        return EXIT_USAGE
    # A seed the player did not choose is told only when the game is over: every deal of the
    # game follows from it, so knowing it mid-game would show the opponent's hand and the pile.
    chosen = seed is not None
    if seed is None:
        seed = random.SystemRandom().randrange(1 << 32)
    label = _agent_label(opponent, agent)
    human = seat if seat is not None else random.Random(f"hanamikoji-seat-{seed}").randrange(2)
    stream = input if input is not None else sys.stdin
    game = _Game(
        state=State.new(random.Random(seed), rules=rules),
        seat=human,
        agent=agent,
        agent_rng=random.Random(f"hanamikoji-agent-{seed}"),
        names=_display_names(name, label, human),
        console=out,
        input=stream,
        echo=not _isatty(stream),
        arrows=("◀", "▶") if unicode_console(out) else ("<", ">"),
        hints=hints,
    )

    # The searching levels' kernels compile on a first run (some 15 s): say so, then the game
    # starts with an AI that answers at once.
    def notice(text: str) -> None:
        err.print(Text(text, style="dim"))

    prepare(agent, notice)
    if hints:
        prepare_search(notice)
    start_game(agent, 1 - human, rules)
    players = (name, label)
    try:
        with _stop_signals():
            _intro(game, seed if chosen else None, rules)
            end = _run(game)
    except _Stopped as e:
        # The terminal was closed (SIGHUP) or the game was ended (SIGTERM): the record first,
        # as there may be no terminal left to tell.
        status = _save(game, record, players, err, force=force, quiet=True)
        with contextlib.suppress(OSError):
            game.say(Text(f"\nStopped by {signal.Signals(e.signum).name}; game abandoned."))
            _tell_seed(game, seed, chosen)
        return 128 + e.signum if status == EXIT_OK else status
    except KeyboardInterrupt:
        game.say(Text("\nInterrupted; game abandoned.", style="yellow"))
        _tell_seed(game, seed, chosen)
        _save(game, record, players, err, force=force)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        # The reader of the output left (``| head``): the record is still written, quietly,
        # and the command ends as a pipe's writer does.
        _save(game, record, players, err, force=force, quiet=True)
        raise
    if end is _End.OVER:
        _show_result(game)
    else:
        why = "Input ended" if end is _End.EOF else "You quit"
        view = game.state.view(game.seat)
        where = f"round {view.round}, turn {turn_number(view)} of 8"
        game.say(Text(f"{why}; game abandoned in {where}.", style="yellow"))
    _tell_seed(game, seed, chosen)
    return _save(game, record, players, err, force=force)


# -- setting up and finishing ---------------------------------------------------------------


def _display_names(name: str, opponent: str, seat: int) -> tuple[str, str]:
    """The names shown, by seat; told apart when the human chose the agent's name."""
    me, them = name, opponent
    if me == them:
        me, them = f"{me} (you)", f"{them} (computer)"
    return (me, them) if seat == 0 else (them, me)


def _agent_label(spec: str, agent: Agent) -> str:
    """The opponent as shown and recorded: its name, with the options it was given
    (``greedy:hand_weight=0.4``), so that the record says which settings played."""
    kind, _, rest = spec.partition(":")
    options = [part.strip() for part in rest.split(",") if part.strip()]
    if kind.strip().lower() == "level" or not options:
        return agent.name
    return f"{agent.name}:{','.join(options)}"


def _isatty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def _record_problem(path: Path | None, *, force: bool = False) -> str | None:
    """Why the record could not be written to ``path``, found before the game starts (a record
    that fails only after the whole game is a game lost); an existing file, unless ``force``, as
    it may hold a game saved before."""
    if path is None:
        return None
    try:
        if path.is_dir():
            return _cannot_write(path, "it is a directory")
        if path.is_file() and not force:
            return (
                f"the record file {printable(str(path))} already exists: give --force to "
                "overwrite it, or another --record FILE"
            )
        parent = path.parent
        if not parent.is_dir():
            return _cannot_write(path, f"the folder {printable(str(parent))} does not exist")
        _probe(path)
    except OSError as e:
        return _cannot_write(path, e.strerror or str(e))
    return None


def _probe(path: Path) -> None:
    """Write to ``path`` as the record will, leaving what was there: an OSError if it cannot.

    A new file is written, flushed and removed again; for an existing file, a temporary file
    beside it is (the record replaces the file by one), and the file is opened for appending (a
    read-only file is not replaced); a device (``/dev/full``) gets one byte.
    """
    target = real_target(path)
    if not target.exists():
        f = target.open("x", encoding="utf-8")  # never removes a file made meanwhile
        try:
            with f:
                f.write("{}\n")
                f.flush()
                os.fsync(f.fileno())
        finally:
            target.unlink(missing_ok=True)
    elif target.is_file():
        with target.open("a", encoding="utf-8"):
            pass
        temporary_beside(target, b"{}\n").unlink()
    elif target.is_char_device():
        with target.open("w", encoding="utf-8") as f:
            f.write("\n")
            f.flush()


def _cannot_write(path: Path, why: str) -> str:
    return f"cannot write the record to {printable(str(path))}: {why}"


class _Console(Console):
    """A console whose reader leaving (``| head``) is a BrokenPipeError, which saves the record
    (rich's own answer is to exit at once)."""

    def on_broken_pipe(self) -> None:
        self.quiet = True
        raise BrokenPipeError(errno.EPIPE, "the reader of the output left")


class _Stopped(KeyboardInterrupt):
    """The game was stopped by a signal other than Ctrl-C (SIGHUP, SIGTERM)."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


_STOP_SIGNALS = tuple(
    getattr(signal, name) for name in ("SIGHUP", "SIGTERM") if hasattr(signal, name)
)


@contextlib.contextmanager
def _stop_signals() -> Iterator[None]:
    """While the game runs, SIGHUP and SIGTERM raise :class:`_Stopped` (so the record is
    saved) instead of ending the process at once; off the main thread, nothing changes."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def stop(signum: int, frame: object) -> None:
        raise _Stopped(signum)

    before = {s: signal.signal(s, stop) for s in _STOP_SIGNALS}
    try:
        yield
    finally:
        for s, handler in before.items():
            signal.signal(s, handler)


def _save(
    game: _Game,
    path: Path | None,
    players: tuple[str, str],
    err: Console,
    *,
    force: bool = False,
    quiet: bool = False,
) -> int:
    """Write the record (players ordered by seat) if asked; the exit status. ``force``: replace
    a file there; ``quiet``: say nothing of success, and nothing at all where the terminal is
    gone."""
    if path is None:
        return EXIT_OK
    by_seat = players if game.seat == 0 else (players[1], players[0])
    state = game.state
    kind = "finished game" if state.is_over else "unfinished game"
    try:
        # SIGTERM or SIGHUP while the record is written ends the write (its temporary file
        # removed) rather than the process at once, which would leave the temporary file behind.
        with _stop_signals():
            written = _write_record(path, state.record(by_seat).dumps(), force=force)
    except _Stopped as e:
        _complain(
            err,
            f"stopped by {signal.Signals(e.signum).name} while the record was written: the "
            f"record of the {kind} was not saved, and {printable(str(path))} is as it was",
        )
        return 128 + e.signum
    except KeyboardInterrupt:
        # Ctrl-C: said here, as only here is it known what became of the record (its temporary
        # file was removed); "interrupted" alone left the player to guess.
        _complain(
            err,
            f"interrupted while the record was written: the record of the {kind} was not "
            f"saved to {printable(str(path))}, which is as it was",
        )
        return EXIT_INTERRUPTED
    except OSError as e:
        _complain(err, _cannot_write(path, e.strerror or str(e)))
        return EXIT_FAILED
    if written != path:
        # Not a success: whoever reads FILE next would find that other file, not this game.
        _complain(
            err,
            f"the record file {printable(str(path))} was created by another program during the "
            f"game, and is left as it is: the record of the {kind} was saved to "
            f"{printable(str(written))} instead",
        )
        return EXIT_FAILED
    if quiet:
        return EXIT_OK
    game.say(Text(f"Record of the {kind} saved to {printable(str(path))}", style="green"))
    return EXIT_OK


def _complain(err: Console, message: str) -> None:
    """Say ``message`` on the error console, if there is still one to say it on."""
    with contextlib.suppress(OSError):
        err.print(Text(f"hanamikoji play: {message}", style="bold red"))


def _write_record(path: Path, text: str, *, force: bool) -> Path:
    """Write ``text`` to ``path`` whole or not at all; where it was written.

    ``force``: a file at ``path`` is replaced. Otherwise a file made there during the game (the
    check before it found none) is left as it is, and the record goes to a free name beside it
    (``game-2.json``): a finished game is not lost, nor the other file.
    """
    try:
        write_whole(path, text, replace=force)
        return path
    except FileExistsError:
        if force:
            raise
    for candidate in _free_names(path):
        try:
            write_whole(candidate, text, replace=False)
            return candidate
        except FileExistsError:
            continue
    raise FileExistsError(errno.EEXIST, "it and the names tried beside it exist", str(path))


def _free_names(path: Path) -> Iterator[Path]:
    """Names beside ``path`` for a record that cannot take it: ``game-2.json``, ``game-3.json``,
    ... (the stem shortened, so that a long name stays within the system's limit)."""
    name = path.name
    stem, dot, suffix = name.rpartition(".")
    if not stem:  # no suffix, or a name such as ".json"
        stem, dot, suffix = name, "", ""
    for n in range(2, 1000):
        yield path.with_name(f"{stem[:200]}-{n}{dot}{suffix}")


def _tell_seed(game: _Game, seed: int, chosen: bool) -> None:
    """Say the seed drawn at random once the game is over (or abandoned), to play it again."""
    if not chosen:
        game.say(
            Text(f"The deal's seed was {seed}: --seed {seed} plays this game again.", style="dim")
        )


def _intro(game: _Game, seed: int | None, rules: Rules) -> None:
    limit = (
        "no round limit"
        if rules.max_rounds is None
        else f"at most {rules.max_rounds} round{'' if rules.max_rounds == 1 else 's'}"
    )
    players = Text.assemble(game.name(game.seat), " vs ", game.name(game.opp))
    title = Text.assemble("Hanamikoji: ", players)
    # The border holds the title with 6 columns to spare; a longer one was cut ("player vs
    # ran" at 30 columns): the players then head the body, where they wrap.
    head = Text()
    if title.cell_len > game.console.width - 6:
        title, head = Text("Hanamikoji"), Text.assemble(players, "\n")
    body = Text.assemble(
        head,
        f"You sit in seat {game.seat}",
        " and play first in round 1."
        if game.seat == 0
        else "; the computer plays first in round 1.",
        f"\nSeed {seed}, {limit}" if seed is not None else f"\nA random deal, {limit}",
        "; 11 charm or 4 geisha wins.",
        "\nType a move (G147) or its number; ? for help, q to quit.",
    )
    game.say(Panel(body, title=title, title_align="left", border_style="bold"))
    game.say(_round_header(game, game.state.view(game.seat)))


def _show_result(game: _Game) -> None:
    outcome = game.state.outcome
    assert outcome is not None
    view = game.state.view(game.seat)
    ending = None
    if outcome.reason in (Termination.RESIGN, Termination.FORFEIT) and outcome.winner is not None:
        loser = "You" if outcome.winner != game.seat else game.names[1 - outcome.winner]
        how = "resigned" if outcome.reason is Termination.RESIGN else "forfeited"
        ending = f"Final position: {loser} {how} in round {view.round}"
    game.say(board(game, view, ending=ending))
    if outcome.winner is None:
        verdict, style = "It's a draw.", "bold yellow"
    elif outcome.winner == game.seat:
        verdict, style = "You win!", f"bold {YOU}"
    else:
        verdict, style = "You lose.", f"bold {THEM}"
    game.say(
        Panel(Text(outcome.describe(game.names) + "\n" + verdict, style=style), title="Game over")
    )


# -- the game loop -----------------------------------------------------------------------------


def _run(game: _Game) -> _End:
    """Play until the game ends or the human stops; tells every move as it happens."""
    while not game.state.is_over:
        state = game.state
        before = state.view(game.seat)
        if state.to_move == game.seat:
            answer = _human_move(game, before)
            if not isinstance(answer, Move):
                return answer
            new = state.apply(answer)
        else:
            new = _computer_move(game)
        game.state = new
        _tell(game, before)
    return _End.OVER


def _computer_move(game: _Game) -> State:
    """The agent's move applied (a move it may not make forfeits the game for it)."""
    state = game.state
    view = state.view(game.opp)
    legal = state.legal_moves
    move = game.agent.choose(view, legal, game.agent_rng, CLOCK_MS)
    if move not in legal:
        why = f"the computer chose the illegal move {move}"
        return state.concede(game.opp, Termination.FORFEIT, why)
    return state.apply(move)


def _tell(game: _Game, before: View) -> None:
    """Report the new history entries and scorings; note the human's draw."""
    view = game.state.view(game.seat)
    for entry in view.history[game.shown :]:
        if isinstance(entry, Reveal):
            show_scoring(game, game.state.scorings[entry.round - 1])
        else:
            game.say(_summary(game, view, entry))
    game.shown = len(view.history)
    game.drawn = None
    if (
        view.round == before.round
        and view.to_move == game.seat
        and view.phase == Phase.ACTION.value
    ):
        gained = Counter(view.hand) - Counter(before.hand)
        if sum(gained.values()) == 1:
            game.drawn = next(iter(gained))
    if view.round != before.round and not game.state.is_over:
        game.say(_round_header(game, view))


def _summary(game: _Game, view: View, entry: SeenMove) -> Text:
    """One history entry as a line: round, turn and the move in words."""
    mark = "" if entry.move.startswith("P") else f"{_turn_of(view, entry)}."
    words = describe_seen(entry, game.names)
    name = game.names[entry.seat]
    rest = words[len(name) :] if words.startswith(name) else " " + words
    return Text.assemble(f"  R{entry.round} {mark:>3} ", game.name(entry.seat), rest)


def _turn_of(view: View, entry: SeenMove) -> int:
    """The turn (1..8) of ``entry`` in its round."""
    n = 0
    for e in view.history:
        if isinstance(e, SeenMove) and e.round == entry.round and not e.move.startswith("P"):
            n += 1
        if e is entry:
            break
    return n


def _round_header(game: _Game, view: View) -> Rule:
    first = "you play first" if view.first == game.seat else f"{game.names[view.first]} plays first"
    return Rule(Text(f"Round {view.round}: {first}", style="bold"), align="left")


# -- the human's decision ----------------------------------------------------------------------


def _human_move(game: _Game, view: View) -> Move | _End:
    """Show the position and ask until a legal move, a quit or the end of input."""
    legal = view.legal_moves
    numbers = "1" if len(legal) == 1 else f"1-{len(legal)}"
    _show_position(game, view, legal)
    while True:
        game.console.print(
            Text.assemble(("Your move", f"bold {YOU}"), f" [{numbers}, notation, ?, q]: "),
            end="",
            highlight=False,
        )
        line = game.input.readline()
        if not line:
            game.say("")
            return _End.EOF
        # A byte-order mark starts piped input written by some shells (PowerShell).
        text = line.replace("\ufeff", "").strip()
        if game.echo:
            game.say(text)
        command = text.lower()
        if not text:
            continue
        if command in ("q", "quit", "exit"):
            return _End.QUIT
        if command in ("?", "h", "help"):
            game.say(Text(HELP))
            continue
        if command in ("b", "board"):
            _show_position(game, view, legal)
            continue
        if command == "hint":
            _hint(game, view)
            continue
        if command == "resign":
            game.state = game.state.concede(
                game.seat, Termination.RESIGN, f"{game.names[game.seat]} resigned"
            )
            return _End.OVER
        try:
            return _read_move(game.state, text, legal)
        except ValueError as e:
            game.say(Text(f"  {e}", style="red"))


def _hint(game: _Game, view: View) -> None:
    """Show the AI's suggestion for the human's position (with --hints)."""
    if not game.hints:
        game.say(Text("  Hints are off: start the game with --hints to ask for them.", style="red"))
        return
    # The review's own search (its budget and seed): a decision where the hint was followed is
    # judged the hint's move by `hanamikoji analyze` (docs/ai.md, Analysis)
    hint = suggest(view, rules=game.state.rules)
    others = ", ".join(f"{m} {100 * v:.0f}%" for m, v in hint.alternatives)
    game.say(
        Text.assemble(
            ("  Hint: ", "bold"),
            (str(hint.move), f"bold {YOU}"),
            f" ({hint.move.describe()}), your chance of winning about "
            f"{100 * hint.win_probability:.0f}%",
            f"; also good: {others}" if others else "",
        )
    )


def _read_move(state: State, text: str, legal: tuple[Move, ...]) -> Move:
    """The legal move that ``text`` names (a number or notation); a ValueError says why not."""
    other = next((c for c in text if c.isdigit() and not c.isascii()), None)
    if other is not None:
        # int() reads Arabic-Indic and full-width digits, and isdigit() says yes to "²"
        raise ValueError(
            f"{other!r} is not one of the digits 0-9: type numbers and moves with them"
        )
    if text.isascii() and text.isdigit():
        number = int(text)
        if 1 <= number <= len(legal):
            chosen = legal[number - 1]
            if chosen.is_pick and _offers_card(legal, text) and text not in chosen.cards:
                # Offered 2 5 6, "2" is the list's second pick (the 5) or the card 2: ask.
                raise ValueError(
                    f"{text} is both a card of the offer and the number of {chosen}: type "
                    f"P{text} to take the {text}, or {chosen} for the list's choice {number}"
                )
            return chosen
        hint = f" (to take a card of an offer, type P{text})" if legal and legal[0].is_pick else ""
        span = "1" if len(legal) == 1 else f"1 to {len(legal)}"
        raise ValueError(f"there is no move number {number}: choose {span}{hint}")
    move = Move.parse(text)  # InvalidMoveError says what is expected
    if move not in legal:
        try:
            state.apply(move)
        except (IllegalMoveError, InvalidMoveError) as e:
            raise ValueError(str(e)) from None
        raise ValueError(f"{move} is not one of your legal moves")
    return move


def _offers_card(picks: tuple[Move, ...], card: str) -> bool:
    return any(card in pick.cards for pick in picks)


def _show_position(game: _Game, view: View, legal: tuple[Move, ...]) -> None:
    game.say(board(game, view))
    if view.offer is not None:
        game.say(offer_panel(game, view, legal))
    else:
        game.say(move_list(legal, game.console.width))
