"""``hanamikoji play`` at 30 columns: the intro's title was cut ("player vs ran") and the move
list took one line per move (some 112 lines for the first turn)."""

from __future__ import annotations

import io
import random
import re

import pytest
from rich.console import Console

from hanamikoji.moves import Move
from hanamikoji.play import play_game
from hanamikoji.screen import move_list
from hanamikoji.state import State


def run(answers: str, *, width: int, name: str = "player") -> str:
    """Play in-process at ``width`` columns; everything said."""
    out = io.StringIO()
    status = play_game(
        opponent="random",
        seed=3,
        seat=0,
        name=name,
        input=io.StringIO(answers),
        console=Console(file=out, force_terminal=False, width=width),
    )
    assert status == 0
    return out.getvalue()


def panel_text(lines: list[str]) -> str:
    """The words inside a panel's borders, as one line of single spaces."""
    return " ".join(" ".join(line.strip("│╭╮╰╯─ ") for line in lines).split())


@pytest.mark.parametrize("width", [30, 31, 32, 33])
def test_the_intro_names_both_players_whole_at_30_columns(width: int) -> None:
    out = run("q\n", width=width)
    lines = out.splitlines()
    assert all(len(line) <= width for line in lines)
    intro = lines[: next(i for i, line in enumerate(lines) if line.startswith("╰")) + 1]
    assert "player vs random" in panel_text(intro), "\n".join(intro)
    assert "Hanamikoji" in intro[0]


def test_a_long_name_is_wrapped_in_the_intro_not_cut() -> None:
    name = "a very long name of a player who plays"
    lines = run("q\n", width=30, name=name).splitlines()
    assert all(len(line) <= 30 for line in lines)
    intro = lines[: next(i for i, line in enumerate(lines) if line.startswith("╰")) + 1]
    assert f"{name} vs random" in panel_text(intro)


def test_the_intro_title_stays_in_the_border_where_it_fits() -> None:
    lines = run("q\n", width=34).splitlines()
    assert lines[0].startswith("╭─ Hanamikoji: player vs random ")


def drawn(legal: tuple[Move, ...], width: int) -> list[str]:
    console = Console(width=width, record=True, force_terminal=False, file=io.StringIO())
    console.print(move_list(legal, width))
    return console.export_text().splitlines()


ENTRY = re.compile(r"(\d+) ([SDGC][0-9-]+)")


@pytest.mark.parametrize("width", range(30, 42))
def test_a_narrow_move_list_packs_several_moves_a_line(width: int) -> None:
    """Every move once with its number, no line wider than the console, and no more lines than
    about half the moves (the first turn's 112 moves took 112 lines)."""
    legal = State.new(random.Random(3)).legal_moves
    assert len(legal) > 100
    lines = drawn(legal, width)
    assert all(len(line) <= width for line in lines), "\n".join(lines)
    found = [(int(n), m) for line in lines for n, m in ENTRY.findall(line)]
    assert found == [(i, str(m)) for i, m in enumerate(legal, start=1)]
    assert len(lines) <= len(legal) // 2 + 8, "\n".join(lines)
    for line in lines:
        if ENTRY.search(line) is None:  # an action's name above its moves
            assert line.strip() in ("Secret", "Discard", "Gift", "Competition"), line


def test_a_whole_game_at_30_columns_lists_moves_several_a_line() -> None:
    out = run("1\n" * 200, width=30)
    lines = out.splitlines()
    # (the prompt's line holds the piped answer echoed after it, past the width)
    assert all(len(line) <= 30 for line in lines if not line.startswith("Your move"))
    listed = [line for line in lines if ENTRY.search(line) and not line.startswith("│")]
    several = [line for line in listed if len(ENTRY.findall(line)) >= 2]
    assert len(several) > len(listed) // 2, "\n".join(listed)
