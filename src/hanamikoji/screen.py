"""The terminal's picture of a game (rich): the board, the status, the legal moves, the offer
being answered and a round's scoring, drawn from one seat's VIEW."""

from __future__ import annotations

from collections import Counter
from typing import Protocol, cast

from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.measure import Measurement
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from hanamikoji.cards import ACTION_NAMES, CHARM, GEISHA
from hanamikoji.moves import Action, Move
from hanamikoji.state import Phase, RoundScore
from hanamikoji.view import View

__all__ = [
    "THEM",
    "YOU",
    "Scene",
    "board",
    "move_list",
    "offer_panel",
    "show_scoring",
    "turn_number",
    "unicode_console",
]

YOU = "cyan"
THEM = "magenta"


def unicode_console(console: Console) -> bool:
    """Whether ``console`` writes UTF-8 (else the few symbols drawn have ASCII stand-ins)."""
    return (console.encoding or "").lower().replace("-", "").startswith("utf")


def turn_number(view: View) -> int:
    """The turn (1..8) in progress, from the cards left in the pile."""
    return max(1, min(8, 8 - view.deck))


class Scene(Protocol):
    """What the picture needs of a game on screen: whose seat is whose, and a console."""

    seat: int
    names: tuple[str, str]
    drawn: str | None
    arrows: tuple[str, str]

    @property
    def opp(self) -> int:
        """The other seat."""
        ...

    def style(self, seat: int | None) -> str:
        """The colour of ``seat``."""
        ...

    def name(self, seat: int) -> Text:
        """``seat``'s name in its colour."""
        ...

    def say(self, *parts: RenderableType | str) -> None:
        """Print to the console."""
        ...


def _cards(cards: str, geisha: int, sep: str = " ") -> str:
    return sep.join(c for c in cards if c == str(geisha))


class _Board:
    """The position as the human sees it, drawn for the console's width when it is printed."""

    def __init__(self, game: Scene, view: View, ending: str | None) -> None:
        self.game, self.view, self.ending = game, view, ending

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        wide = _board(self.game, self.view, compact=False, dot=_dot(console), ending=self.ending)
        # The wide table's natural width depends on the names and the cards: drawn narrower,
        # its no-wrap cells would be cut (five 7s read as four at 76 columns). Panel: 4 columns.
        table = cast(Group, wide.renderable).renderables[0]
        if Measurement.get(console, options, table).maximum + 4 <= options.max_width:
            yield wide
        else:
            yield _board(self.game, self.view, compact=True, dot=_dot(console), ending=self.ending)


def board(game: Scene, view: View, *, ending: str | None = None) -> RenderableType:
    """The position as the human sees it: geisha table and status lines, drawn compact (short
    headers, cards side by side) on a console too narrow for the full table; ``ending`` says how
    a game that is over ended, in its title."""
    return _Board(game, view, ending)


def _dot(console: Console) -> str:
    return " · " if unicode_console(console) else " - "


def _board(
    game: Scene, view: View, *, compact: bool, dot: str = " · ", ending: str | None = None
) -> Panel:
    me, opp = game.seat, game.opp
    sep = "" if compact else " "
    table = Table(expand=False, pad_edge=False, box=None, padding=(0, 1 if compact else 2))
    heads = (
        ("G", "Pts", "Them", "Marker", "You", "Hand")
        if compact
        else ("Geisha", "Charm", f"{game.names[opp]}'s side", "Marker", "Your side", "Your hand")
    )

    def column(head: str | Text, min_width: int | None = None) -> None:
        # A column's cards never wrap: cut short, a cell ends in "…", never a line of its own.
        table.add_column(
            head, justify="center", no_wrap=True, overflow="ellipsis", min_width=min_width
        )

    column(heads[0])
    column(heads[1])
    column(Text(heads[2], style=THEM), 4 if compact else 10)
    column(heads[3], 6 if compact else 12)
    column(Text(heads[4], style=YOU), 4 if compact else 10)
    over = view.phase == Phase.OVER.value
    if not over:
        column(heads[5])
    left, right = game.arrows
    for g in GEISHA:
        owner = view.markers[g - 1]
        if owner is None:
            marker = Text("-" if compact else "neutral", style="dim")
        elif owner == me:
            marker = Text(f"you {right}", style=f"bold {YOU}")
        else:
            marker = Text(
                f"{left} them" if compact else f"{left} {game.names[opp]}", style=f"bold {THEM}"
            )
        mine = Text(_cards(view.played[me], g, sep), style=YOU)
        if view.secret and str(g) in view.secret and not over:
            mine.append(
                (" +S" if mine else "S") if compact else (" +secret" if mine else "secret"),
                style="dim",
            )
        row: list[RenderableType] = [
            Text(str(g), style="bold"),
            str(CHARM[g - 1]),
            Text(_cards(view.played[opp], g, sep), style=THEM),
            marker,
            mine,
        ]
        if not over:
            row.append(_cards(view.hand, g, sep))
        table.add_row(*row)
    parts: list[RenderableType] = [table, Text(""), _status(game, view)]
    if over:
        title = Text(ending or f"Final position after round {view.round}", style="bold")
    else:
        doing = "pick from an offer" if view.phase == Phase.PICK.value else "your turn"
        title = Text(
            f"Round {view.round}{dot}turn {turn_number(view)} of 8{dot}{doing}", style="bold"
        )
    return Panel(Group(*parts), title=title, title_align="left", border_style=YOU)


def _status(game: Scene, view: View) -> Table:
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


def _add_status_rows(game: Scene, view: View, grid: Table) -> None:
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
        Text.assemble(
            cards, ("      Draw pile: ", "bold"), f"{view.deck} card{'' if view.deck == 1 else 's'}"
        ),
    )


def _actions(left: str) -> str:
    return ", ".join(ACTION_NAMES[a] for a in left) if left else "none"


def move_list(legal: tuple[Move, ...], width: int) -> Table:
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


def offer_panel(game: Scene, view: View, legal: tuple[Move, ...]) -> Panel:
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


def show_scoring(game: Scene, score: RoundScore) -> None:
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
