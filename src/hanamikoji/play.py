"""Play a whole game in the terminal against a built-in agent (``hanamikoji play``).

Everything shown to the human comes from the VIEW of the human's seat, so the opponent's hand,
Secret and Discard stay hidden until the scoring reveals the Secrets. Input is read line by line
(it works with piped standard input); the human answers with a move in notation (``G147``,
``g741``) or the number of a move in the list shown.
"""

from __future__ import annotations

import enum
import random
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

from rich.console import Console, Group, RenderableType
from rich.panel import Panel
from rich.rule import Rule
from rich.table import Table
from rich.text import Text

from hanamikoji.ai import Agent, AgentError, parse_agent
from hanamikoji.ai.analysis import suggest
from hanamikoji.ai.base import start_game
from hanamikoji.ai.prepare import prepare, prepare_search
from hanamikoji.cards import ACTION_NAMES, CHARM, GEISHA
from hanamikoji.moves import Action, IllegalMoveError, InvalidMoveError, Move
from hanamikoji.state import Phase, RoundScore, Rules, State, Termination
from hanamikoji.view import Reveal, SeenMove, View, describe_seen

__all__ = ["play_game"]

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130

CLOCK_MS = 1000
"""The time budget handed to the agent for each decision."""

YOU = "cyan"
THEM = "magenta"

HELP = """\
How to answer:
  a number     the move with that number in the list shown
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
    name: str = "you",
    *,
    hints: bool = False,
    input: TextIO | None = None,
    console: Console | None = None,
) -> int:
    """Play one game against the agent ``opponent``; returns the exit status.

    ``seat`` is the human's seat (None: drawn from the seed); ``record`` a file to save the
    game record to at the end (also when the game is abandoned). ``input`` and ``console``
    default to standard input and a console on standard output.
    """
    out = console if console is not None else Console(highlight=False)
    err = console if console is not None else Console(stderr=True, highlight=False)
    try:
        agent = parse_agent(opponent)
        rules = Rules(max_rounds=max_rounds)
    except (AgentError, ValueError) as e:
        err.print(Text(f"hanamikoji play: {e}", style="bold red"))
        return EXIT_USAGE
    if seat not in (None, 0, 1):
        err.print(Text(f"hanamikoji play: seat must be 0 or 1, got {seat!r}", style="bold red"))
        return EXIT_USAGE
    problem = _record_problem(record)
    if problem is not None:
        err.print(Text(f"hanamikoji play: {problem}", style="bold red"))
        return EXIT_USAGE
    if seed is None:
        seed = random.SystemRandom().randrange(1 << 32)
    human = seat if seat is not None else random.Random(f"hanamikoji-seat-{seed}").randrange(2)
    stream = input if input is not None else sys.stdin
    game = _Game(
        state=State.new(random.Random(seed), rules=rules),
        seat=human,
        agent=agent,
        agent_rng=random.Random(f"hanamikoji-agent-{seed}"),
        names=_display_names(name, agent.name, human),
        console=out,
        input=stream,
        echo=not _isatty(stream),
        arrows=("◀", "▶") if (out.encoding or "").lower().startswith("utf") else ("<", ">"),
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
    _intro(game, seed, rules)
    try:
        end = _run(game)
    except KeyboardInterrupt:
        game.say(Text("\nInterrupted; game abandoned.", style="yellow"))
        _save(game, record, (name, agent.name), err)
        return EXIT_INTERRUPTED
    if end is _End.OVER:
        _show_result(game)
    else:
        why = "Input ended" if end is _End.EOF else "You quit"
        view = game.state.view(game.seat)
        where = f"round {view.round}, turn {_turn(view)} of 8"
        game.say(Text(f"{why}; game abandoned in {where}.", style="yellow"))
    return _save(game, record, (name, agent.name), err)


# -- setting up and finishing ---------------------------------------------------------------


def _display_names(name: str, opponent: str, seat: int) -> tuple[str, str]:
    """The names shown, by seat; told apart when the human chose the agent's name."""
    me, them = name, opponent
    if me == them:
        me, them = f"{me} (you)", f"{them} (computer)"
    return (me, them) if seat == 0 else (them, me)


def _isatty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def _record_problem(path: Path | None) -> str | None:
    """Why the record could not be written to ``path`` (checked before the game starts)."""
    if path is None:
        return None
    if path.is_dir():
        return f"cannot write the record to {path}: it is a directory"
    parent = path.parent
    if not parent.is_dir():
        return f"cannot write the record to {path}: the folder {parent} does not exist"
    return None


def _save(game: _Game, path: Path | None, players: tuple[str, str], err: Console) -> int:
    """Write the record (players ordered by seat) if asked; the exit status."""
    if path is None:
        return EXIT_OK
    by_seat = players if game.seat == 0 else (players[1], players[0])
    state = game.state
    try:
        state.record(by_seat).write(path)
    except OSError as e:
        err.print(
            Text(
                f"hanamikoji play: cannot write the record to {path}: {e.strerror or e}",
                style="bold red",
            )
        )
        return EXIT_FAILED
    kind = "finished game" if state.is_over else "unfinished game"
    game.say(Text(f"Record of the {kind} saved to {path}", style="green"))
    return EXIT_OK


def _intro(game: _Game, seed: int, rules: Rules) -> None:
    limit = "no round limit" if rules.max_rounds is None else f"at most {rules.max_rounds} rounds"
    title = Text.assemble("Hanamikoji: ", game.name(game.seat), " vs ", game.name(game.opp))

    body = Text.assemble(
        f"You sit in seat {game.seat}",
        " and play first in round 1."
        if game.seat == 0
        else "; the computer plays first in round 1.",
        f"\nSeed {seed}, {limit}; 11 charm or 4 geisha wins.",
        "\nType a move (G147) or its number; ? for help, q to quit.",
    )
    game.say(Panel(body, title=title, title_align="left", border_style="bold"))
    game.say(_round_header(game, game.state.view(game.seat)))


def _show_result(game: _Game) -> None:
    outcome = game.state.outcome
    assert outcome is not None
    game.say(_board(game, game.state.view(game.seat)))
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
            _show_scoring(game, game.state.scorings[entry.round - 1])
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


def _turn(view: View) -> int:
    """The turn (1..8) in progress, from the cards left in the pile."""
    return max(1, min(8, 8 - view.deck))


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
        text = line.strip()
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
    hint = suggest(view, rules=game.state.rules, seed=game.state.round * 100 + _turn(view))
    others = ", ".join(f"{m} {100 * v:.0f}%" for m, v in hint.alternatives)
    game.say(
        Text.assemble(
            ("  Hint: ", "bold"),
            (str(hint.move), f"bold {YOU}"),
            f" ({hint.move.describe()}), your chance of winning about "
            f"{100 * hint.win_probability:.0f}%",
            f"; next best: {others}" if others else "",
        )
    )


def _read_move(state: State, text: str, legal: tuple[Move, ...]) -> Move:
    """The legal move that ``text`` names (a number or notation); a ValueError says why not."""
    if text.isdigit():
        number = int(text)
        if 1 <= number <= len(legal):
            return legal[number - 1]
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


def _show_position(game: _Game, view: View, legal: tuple[Move, ...]) -> None:
    game.say(_board(game, view))
    if view.offer is not None:
        game.say(_offer_panel(game, view, legal))
    else:
        game.say(_move_list(legal, game.console.width))


# -- rendering ---------------------------------------------------------------------------------


def _cards(cards: str, geisha: int) -> str:
    return " ".join(c for c in cards if c == str(geisha))


def _board(game: _Game, view: View) -> Panel:
    """The position as the human sees it: geisha table and status lines."""
    me, opp = game.seat, game.opp
    table = Table(expand=False, pad_edge=False, box=None, padding=(0, 2))
    table.add_column("Geisha", justify="center")
    table.add_column("Charm", justify="center")
    table.add_column(Text(f"{game.names[opp]}'s side", style=THEM), justify="center", min_width=10)
    table.add_column("Marker", justify="center", min_width=12)
    table.add_column(Text("Your side", style=YOU), justify="center", min_width=10)
    over = view.phase == Phase.OVER.value
    if not over:
        table.add_column("Your hand", justify="center")
    left, right = game.arrows
    for g in GEISHA:
        owner = view.markers[g - 1]
        if owner is None:
            marker = Text("neutral", style="dim")
        elif owner == me:
            marker = Text(f"you {right}", style=f"bold {YOU}")
        else:
            marker = Text(f"{left} {game.names[opp]}", style=f"bold {THEM}")
        mine = Text(_cards(view.played[me], g), style=YOU)
        if view.secret and str(g) in view.secret and not over:
            mine.append(" +secret" if mine else "secret", style="dim")
        row: list[RenderableType] = [
            Text(str(g), style="bold"),
            str(CHARM[g - 1]),
            Text(_cards(view.played[opp], g), style=THEM),
            marker,
            mine,
        ]
        if not over:
            row.append(_cards(view.hand, g))
        table.add_row(*row)
    parts: list[RenderableType] = [table, Text(""), _status(game, view)]
    if over:
        title = Text(f"Final position after round {view.round}", style="bold")
    else:
        doing = "pick from an offer" if view.phase == Phase.PICK.value else "your turn"
        title = Text(f"Round {view.round} · turn {_turn(view)} of 8 · {doing}", style="bold")
    return Panel(Group(*parts), title=title, title_align="left", border_style=YOU)


def _status(game: _Game, view: View) -> Table:
    """The human's hand, hidden cards and actions, the opponent's hand size, pile and standing."""
    me, opp = game.seat, game.opp
    grid = Table.grid(padding=(0, 2))
    grid.add_column(style="bold", no_wrap=True)
    grid.add_column()
    if view.phase != Phase.OVER.value:
        _add_status_rows(game, view, grid)
    geisha = [sum(1 for m in view.markers if m == s) for s in (0, 1)]
    standing = Text.assemble(
        game.name(me),
        f" {view.charm[me]} charm, {geisha[me]} geisha  |  ",
        game.name(opp),
        f" {view.charm[opp]} charm, {geisha[opp]} geisha",
    )
    grid.add_row("Standing", standing)
    return grid


def _add_status_rows(game: _Game, view: View, grid: Table) -> None:
    me, opp = game.seat, game.opp
    hand = Text(" ".join(view.hand) or "empty", style=f"bold {YOU}")
    if game.drawn is not None:
        hand.append(f"   (you drew a {game.drawn})", style="dim")
    grid.add_row("Your hand", hand)
    hidden = Text.assemble(
        view.secret or "-", ("      Discard: ", "bold"), " ".join(view.discard or "-")
    )
    grid.add_row("Your Secret", hidden)
    grid.add_row("Your actions", _actions(view.actions_left[me]))
    them = game.names[opp]
    grid.add_row(Text(f"{them}'s actions", style=f"bold {THEM}"), _actions(view.actions_left[opp]))
    cards = f"{view.opponent_hand} card{'s' if view.opponent_hand != 1 else ''}"
    grid.add_row(
        Text(f"{them}'s hand", style=f"bold {THEM}"),
        Text.assemble(cards, ("      Draw pile: ", "bold"), f"{view.deck} cards"),
    )


def _actions(left: str) -> str:
    return ", ".join(ACTION_NAMES[a] for a in left) if left else "none"


def _move_list(legal: tuple[Move, ...], width: int) -> Table:
    """The numbered legal moves, one row per action, wrapped to ``width``."""
    grid = Table.grid(padding=(0, 1))
    grid.add_column(style="bold", no_wrap=True)
    grid.add_column()
    cell = max(len(f"{len(legal)} {m}") for m in legal) + 2 if legal else 1
    per_line = max(1, (width - 16) // cell)
    for action in (Action.SECRET, Action.DISCARD, Action.GIFT, Action.COMPETITION):
        items = [(i, m) for i, m in enumerate(legal, start=1) if m.action is action]
        if not items:
            continue
        lines = []
        for start in range(0, len(items), per_line):
            line = Text()
            for i, m in items[start : start + per_line]:
                entry = Text.assemble(
                    (f"{i:>{len(str(len(legal)))}}", "dim"), " ", (str(m), "bold")
                )
                entry.pad_right(cell - len(entry))
                line.append_text(entry)
            line.rstrip()
            lines.append(line)
        grid.add_row(action.title, Text("\n").join(lines))
    return grid


def _rest(cards: str, taken: str) -> str:
    """``cards`` less ``taken`` (multisets of card digits)."""
    left = Counter(cards) - Counter(taken)
    return "".join(sorted(left.elements()))


def _offer_panel(game: _Game, view: View, legal: tuple[Move, ...]) -> Panel:
    """The offer the human answers, with each numbered pick and what it leaves."""
    assert view.offer is not None
    offer = Move.parse(view.offer)
    them = game.names[game.opp]
    if offer.action is Action.GIFT:
        head = Text.assemble(
            game.name(game.opp),
            f" offers a Gift: {' '.join(offer.cards)}. Take one card for your side;"
            f" the other two go to {them}.",
        )
    else:
        a, b = offer.groups
        head = Text.assemble(
            game.name(game.opp),
            f" offers a Competition: {a} or {b}. Take one pair for your side;"
            f" the other goes to {them}.",
        )
    lines = [head]
    for i, pick in enumerate(legal, start=1):
        what = f"the pair {pick.cards}" if len(pick.cards) == 2 else f"the {pick.cards}"
        lines.append(
            Text.assemble(
                f"  {i}) ",
                (str(pick), "bold"),
                "  you take ",
                (what, YOU),
                f", {them} gets ",
                (" ".join(_rest(offer.cards, pick.cards)), THEM),
            )
        )
    return Panel(Text("\n").join(lines), title="Your pick", title_align="left", border_style=THEM)


def _show_scoring(game: _Game, score: RoundScore) -> None:
    """A round's scoring: both Secrets, each geisha's count and marker move, the standing."""
    me, opp = game.seat, game.opp
    table = Table(box=None, padding=(0, 2), pad_edge=False)
    table.add_column("Geisha", justify="center")
    table.add_column("Charm", justify="center")
    table.add_column(Text(game.names[opp], style=THEM), justify="center")
    table.add_column(Text(game.names[me], style=YOU), justify="center")
    table.add_column("Marker")
    for g in GEISHA:
        before, after = score.markers_before[g - 1], score.markers[g - 1]
        owner = "neutral" if after is None else game.names[after]
        change = f"stays {owner}" if before == after else f"moves to {owner}"
        table.add_row(
            str(g),
            str(CHARM[g - 1]),
            str(score.played[opp].count(str(g))),
            str(score.played[me].count(str(g))),
            Text(change, style=game.style(after) if before != after else "dim"),
        )
    secrets = Text.assemble(
        "Secrets revealed: ",
        game.name(me),
        f" {score.secrets[me]}, ",
        game.name(opp),
        f" {score.secrets[opp]}",
    )
    total = Text.assemble(
        f"After round {score.round}: ",
        game.name(me),
        f" {score.charm[me]} charm, {score.geisha[me]} geisha  |  ",
        game.name(opp),
        f" {score.charm[opp]} charm, {score.geisha[opp]} geisha",
    )
    game.say(
        Panel(
            Group(secrets, Text(""), table, Text(""), total),
            title=Text(f"Round {score.round} scoring", style="bold"),
            title_align="left",
            border_style="yellow",
        )
    )
