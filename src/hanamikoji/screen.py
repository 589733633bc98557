"""The terminal's picture of a game (rich): the board, the status, the legal moves, the offer
being answered and a round's scoring, drawn from one seat's VIEW."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
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

NARROW = 42
"""Consoles narrower than this get the narrow board (the marker as an arrow, the status as
wrapped lines): the compact table and its status grid need about this many columns."""


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
        dot = _dot(console)
        wide = _board(self.game, self.view, compact=False, dot=dot, ending=self.ending)
        # The wide table's natural width depends on the names and the cards: drawn narrower,
        # its no-wrap cells would be cut (five 7s read as four at 76 columns).
        if _fits(console, options, wide, 0):
            yield wide
        else:
            narrow = options.max_width < NARROW
            yield _board(
                self.game, self.view, compact=True, narrow=narrow, dot=dot, ending=self.ending
            )


def _fits(console: Console, options: ConsoleOptions, panel: Panel, part: int) -> bool:
    """Whether the table that is ``part`` of ``panel``'s group fits the console at its natural
    width (the panel's border and padding take 4 columns)."""
    table = cast(Group, panel.renderable).renderables[part]
    return Measurement.get(console, options, table).maximum + 4 <= options.max_width


def board(game: Scene, view: View, *, ending: str | None = None) -> RenderableType:
    """The position as the human sees it: geisha table and status lines, drawn compact (short
    headers, cards side by side) on a console too narrow for the full table, and narrower still
    below :data:`NARROW` columns; ``ending`` says how a game that is over ended, in its title."""
    return _Board(game, view, ending)


def _dot(console: Console) -> str:
    return " · " if unicode_console(console) else " - "


def _board(
    game: Scene,
    view: View,
    *,
    compact: bool,
    narrow: bool = False,
    dot: str = " · ",
    ending: str | None = None,
) -> Panel:
    """The board's panel: ``compact`` with short headers and cards side by side, ``narrow`` (for
    fewer than :data:`NARROW` columns) also with one space between columns, the marker as an
    arrow to the side that holds it, and the title and status as lines that wrap."""
    me, opp = game.seat, game.opp
    sep = "" if compact else " "
    # Narrow, every cell at its widest (five 7s, "7777+S") still fits 30 columns with 1 space.
    padding = (0, 1, 0, 0) if narrow else (0, 1 if compact else 2)
    table = Table(expand=False, pad_edge=False, box=None, padding=padding)
    heads = (
        ("G", "Pts", "Them", "M" if narrow else "Marker", "You", "Hand")
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
    column(Text(heads[2], style=THEM), None if narrow else 4 if compact else 10)
    column(heads[3], None if narrow else 6 if compact else 12)
    column(Text(heads[4], style=YOU), None if narrow else 4 if compact else 10)
    over = view.phase == Phase.OVER.value
    if not over:
        column(heads[5])
    left, right = game.arrows
    for g in GEISHA:
        owner = view.markers[g - 1]
        if owner is None:
            marker = Text("-" if compact else "neutral", style="dim")
        elif owner == me:
            marker = Text(right if narrow else f"you {right}", style=f"bold {YOU}")
        else:
            them = left if narrow else f"{left} them" if compact else f"{left} {game.names[opp]}"
            marker = Text(them, style=f"bold {THEM}")
        mine = Text(_cards(view.played[me], g, sep), style=YOU)
        if view.secret and str(g) in view.secret and not over:
            secret = "S" if compact else "secret"
            mine.append(f"{'' if narrow else ' '}+{secret}" if mine else secret, style="dim")
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
    if over:
        title = Text(ending or f"Final position after round {view.round}", style="bold")
    else:
        doing = "pick from an offer" if view.phase == Phase.PICK.value else "your turn"
        title = Text(
            f"Round {view.round}{dot}turn {turn_number(view)} of 8{dot}{doing}", style="bold"
        )
    if narrow:
        # A title too long for the border would be cut: narrow, it is the first line instead.
        parts: list[RenderableType] = [
            _wrapping(title),
            table,
            Text(""),
            *_status_lines(game, view),
        ]
        return Panel(Group(*parts), border_style=YOU)
    parts = [table, Text(""), _status(game, view)]
    return Panel(Group(*parts), title=title, title_align="left", border_style=YOU)


def _wrapping(text: Text) -> Text:
    """``text`` wrapped at spaces, a word longer than the line (a long name) folded."""
    text.no_wrap, text.overflow = False, "fold"
    return text


def _status(game: Scene, view: View) -> Table:
    """The human's hand, hidden cards and actions, the opponent's hand size, pile and standing."""
    grid = Table.grid(padding=(0, 2))
    grid.add_column(style="bold", no_wrap=True)
    grid.add_column()
    for label, value in _status_rows(game, view):
        grid.add_row(label, value)
    grid.add_row("Standing", _standing(game, view.charm, _geisha(view.markers)))
    return grid


def _status_lines(game: Scene, view: View) -> list[Text]:
    """The status of :func:`_status` for a narrow console: each row a line of its own that
    wraps, the standing a line for each player."""
    lines = [
        _wrapping(Text.assemble(label, ": ", value))
        for label, value in _status_rows(game, view, narrow=True)
    ]
    standing = _standing(game, view.charm, _geisha(view.markers), lines=True)
    return [*lines, _wrapping(Text.assemble(("Standing:", "bold"), "\n", standing))]


def _status_rows(game: Scene, view: View, *, narrow: bool = False) -> list[tuple[Text, Text]]:
    """The status's labelled rows while a round is played (none once the game is over): the
    Discard beside the Secret and the pile beside the opponent's hand, or, ``narrow``, each on
    a row of its own (so that a row which wraps never splits a list of cards)."""
    if view.phase == Phase.OVER.value:
        return []
    me, opp = game.seat, game.opp
    gap = "  " if narrow else "      "
    hand = Text(" ".join(view.hand) or "empty", style=f"bold {YOU}")
    if game.drawn is not None:
        hand.append(f"{gap[:3]}(you drew a {game.drawn})", style="dim")
    them = game.names[opp]
    secret = Text(view.secret or "-")
    discard = Text(" ".join(view.discard or "-"))
    their_hand = Text(f"{them}'s hand", style=f"bold {THEM}")
    cards = Text(f"{view.opponent_hand} card{'s' if view.opponent_hand != 1 else ''}")
    pile = Text(f"{view.deck} card{'' if view.deck == 1 else 's'}")
    if narrow:
        hidden = [(_label("Your Secret"), secret), (_label("Your Discard"), discard)]
        theirs = [(their_hand, cards), (_label("Draw pile"), pile)]
    else:
        hidden = [
            (_label("Your Secret"), Text.assemble(secret, _label(f"{gap}Discard: "), discard))
        ]
        theirs = [(their_hand, Text.assemble(cards, _label(f"{gap}Draw pile: "), pile))]
    return [
        (_label("Your hand"), hand),
        *hidden,
        (_label("Your actions"), Text(_actions(view.actions_left[me]))),
        (Text(f"{them}'s actions", style=f"bold {THEM}"), Text(_actions(view.actions_left[opp]))),
        *theirs,
    ]


def _label(text: str) -> Text:
    return Text(text, style="bold")


def _geisha(markers: Sequence[int | None]) -> tuple[int, int]:
    """How many geisha each seat holds."""
    return (sum(1 for m in markers if m == 0), sum(1 for m in markers if m == 1))


def _standing(
    game: Scene, charm: Sequence[int], geisha: Sequence[int], *, lines: bool = False
) -> Text:
    """Each player's charm and geisha, the human's first: on one line, or a line each."""
    me, opp = game.seat, game.opp
    sides = [
        Text.assemble(game.name(s), f" {charm[s]} charm, {geisha[s]} geisha") for s in (me, opp)
    ]
    return Text("\n" if lines else "  |  ").join(sides)


def _actions(left: str) -> str:
    return ", ".join(ACTION_NAMES[a] for a in left) if left else "none"


def move_list(legal: tuple[Move, ...], width: int) -> RenderableType:
    """The numbered legal moves, one row per action, wrapped to ``width``; where the actions'
    column leaves room for one move a line (below about 40 columns), each action's name is a
    line of its own above its moves, packed across the whole width."""
    cell = max(len(f"{len(legal)} {m}") for m in legal) + 2 if legal else 1
    per_line = max(1, (width - 16) // cell)
    if per_line < 2 and legal:
        return _narrow_move_list(legal, width)
    grid = Table.grid(padding=(0, 1))
    grid.add_column(style="bold", no_wrap=True)
    grid.add_column()
    for action, items in _by_action(legal):
        grid.add_row(action.title, Text("\n").join(_packed(items, len(legal), cell, per_line)))
    return grid


def _narrow_move_list(legal: tuple[Move, ...], width: int) -> Group:
    """The move list for a narrow console: each action's name, then its moves a few a line
    (one move a line was some hundred lines for the first turn's 112 moves at 30 columns)."""
    lines: list[Text] = []
    for action, items in _by_action(legal):
        # Each action's own cell width: the short Secrets and Discards are not spaced as wide
        # as the Competitions' "112 C12-47".
        cell = max(len(f"{len(legal)} {m}") for _, m in items) + 2
        # The last move of a line needs no gap after it.
        per_line = max(1, (width + 2) // cell)
        lines.append(Text(action.title, style="bold"))
        lines.extend(_packed(items, len(legal), cell, per_line))
    return Group(*lines)


def _by_action(legal: tuple[Move, ...]) -> list[tuple[Action, list[tuple[int, Move]]]]:
    """The numbered moves of each action that has some, in the actions' order."""
    groups = []
    for action in (Action.SECRET, Action.DISCARD, Action.GIFT, Action.COMPETITION):
        items = [(i, m) for i, m in enumerate(legal, start=1) if m.action is action]
        if items:
            groups.append((action, items))
    return groups


def _packed(items: list[tuple[int, Move]], count: int, cell: int, per_line: int) -> list[Text]:
    """``items`` as lines of ``per_line`` numbered moves, each ``cell`` columns wide (the
    numbers right-aligned to the widest of ``count``)."""
    lines = []
    for start in range(0, len(items), per_line):
        line = Text()
        for i, m in items[start : start + per_line]:
            entry = Text.assemble((f"{i:>{len(str(count))}}", "dim"), " ", (str(m), "bold"))
            entry.pad_right(cell - len(entry))
            line.append_text(entry)
        line.rstrip()
        lines.append(line)
    return lines


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
    """A round's scoring: both Secrets, each geisha's count and marker move, the standing; drawn
    compact (short headers, the standing a line for each player) on a console too narrow for
    the full table."""
    game.say(_Scoring(game, score))


class _Scoring:
    """A round's scoring, drawn for the console's width when it is printed."""

    def __init__(self, game: Scene, score: RoundScore) -> None:
        self.game, self.score = game, score

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        wide = _scoring(self.game, self.score, compact=False)
        # Narrower than its natural width, the wide table wraps "moves to random" over 3 lines.
        yield (
            wide
            if _fits(console, options, wide, 2)
            else _scoring(self.game, self.score, compact=True)
        )


def _scoring(game: Scene, score: RoundScore, *, compact: bool) -> Panel:
    """The scoring's panel: ``compact`` with short headers and marker words ("to you", dim "them"
    for one that stays), which fit 30 columns, and the standing a line for each player."""
    me, opp = game.seat, game.opp
    # Compact, with 2 spaces between columns, the widest cells ("Them", "to them") fit 30 columns.
    table = Table(box=None, padding=(0, 1 if compact else 2), pad_edge=False)
    heads = (
        ("G", "Pts", Text("Them", style=THEM), Text("You", style=YOU))
        if compact
        else ("Geisha", "Charm", Text(game.names[opp], style=THEM), Text(game.names[me], style=YOU))
    )
    for head in heads:
        table.add_column(head, justify="center")
    table.add_column("Marker")
    for g in GEISHA:
        before, after = score.markers_before[g - 1], score.markers[g - 1]
        if compact:
            owner = "neutral" if after is None else "you" if after == me else "them"
            change = owner if before == after else f"to {owner}"
        else:
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
        "Secrets revealed:",
        "\n" if compact else " ",
        game.name(me),
        f" {score.secrets[me]}, ",
        game.name(opp),
        f" {score.secrets[opp]}",
    )
    total = Text.assemble(
        f"After round {score.round}:",
        "\n" if compact else " ",
        _standing(game, score.charm, score.geisha, lines=compact),
    )
    return Panel(
        Group(_wrapping(secrets), Text(""), table, Text(""), _wrapping(total)),
        title=Text(f"Round {score.round} scoring", style="bold"),
        title_align="left",
        border_style="yellow",
    )
