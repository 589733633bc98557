"""``hanamikoji play``: what it must not give away, and how it copes with odd terminals, input
and signals (faults found by an outside review of the terminal game)."""

from __future__ import annotations

import io
import os
import random
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from rich.console import Console
from rich.text import Text

from hanamikoji.cards import CHARM
from hanamikoji.cli import main
from hanamikoji.play import play_game
from hanamikoji.record import Record
from hanamikoji.screen import board, show_scoring
from hanamikoji.state import State
from hanamikoji.view import View


def run(
    answers: str,
    *,
    opponent: str = "random",
    seed: int | None = 3,
    seat: int | None = 0,
    record: Path | None = None,
    force: bool = False,
    width: int = 120,
) -> tuple[int, str]:
    """Play in-process with ``answers`` as standard input; the exit status and the output."""
    out = io.StringIO()
    console = Console(file=out, force_terminal=False, width=width)
    status = play_game(
        opponent=opponent,
        seed=seed,
        seat=seat,
        record=record,
        force=force,
        input=io.StringIO(answers),
        console=console,
    )
    return status, out.getvalue()


# -- the seed --------------------------------------------------------------------------------


def test_a_random_seed_is_told_only_when_the_game_is_over() -> None:
    """Every deal follows from the seed: shown at the start, it gave away the opponent's hand
    and the pile (``play --seed N --record peek.json </dev/null`` in another terminal)."""
    status, out = run("1\nq\n", seed=None, seat=0)
    assert status == 0
    during, _, after = out.partition("You quit")
    assert after, out
    assert "Seed" not in during and "seed" not in during.lower()
    found = re.search(r"seed was (\d+): --seed \1 plays this game again", after)
    assert found, after
    # the seed told plays the same deal again
    again = run("1\nq\n", seed=int(found.group(1)), seat=0)[1]
    hand = re.search(r"Your hand\s+([1-7 ]+)", during)
    assert hand and hand.group(0) in again


def test_a_chosen_seed_is_shown_at_the_start_and_not_repeated() -> None:
    status, out = run("q\n", seed=12, seat=0)
    assert status == 0
    assert "Seed 12, at most 3 rounds" in out
    assert "plays this game again" not in out


# -- a terminal that is not UTF-8 --------------------------------------------------------------


def command(
    args: list[str], answers: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """``hanamikoji play ARGS`` as a subprocess with ``answers`` piped in."""
    return subprocess.run(
        [sys.executable, "-m", "hanamikoji.cli", "play", *args],
        input=answers,
        env={**os.environ, "COLUMNS": "100", **(env or {})},
        capture_output=True,
        text=True,
        encoding="utf-8",
        errors="replace",
        timeout=120,
        check=False,
    )


def test_an_ascii_terminal_plays_without_crashing() -> None:
    """``PYTHONIOENCODING=ascii hanamikoji play`` ended at once with an internal error (the
    ``·`` of the board's title); a name in another script too."""
    args = ["--opponent", "random", "--seat", "0", "--seed", "7", "--name", "Алиса"]
    done = command(args, "1\nresign\n", {"PYTHONIOENCODING": "ascii"})
    assert done.returncode == 0, done.stderr
    assert "internal error" not in done.stderr
    assert "Round 1 - turn 1 of 8 - your turn" in done.stdout
    assert "Game over" in done.stdout
    assert "\\u0410" in done.stdout  # the name, escaped


# -- the record's path -----------------------------------------------------------------------


def test_a_record_name_too_long_is_refused_before_the_game(tmp_path: Path) -> None:
    """A 300-character name was ``internal error: OSError: [Errno 36]``, exit 1."""
    status, out = run("1\n", record=tmp_path / ("a" * 300 + ".json"))
    assert status == 2
    assert "cannot write the record to" in out and "too long" in out
    assert "Your move" not in out


def test_a_record_that_cannot_be_written_is_refused_before_the_game() -> None:
    """``--record /dev/full`` let the whole game be played, then failed."""
    if not Path("/dev/full").exists():
        pytest.skip("no /dev/full here")
    status, out = run("1\n", record=Path("/dev/full"))
    assert status == 2
    assert "cannot write the record to /dev/full: No space left on device" in out
    assert "Your move" not in out


def test_the_probe_leaves_no_file_and_an_existing_file_as_it_was(tmp_path: Path) -> None:
    new = tmp_path / "new.json"
    old = tmp_path / "old.json"
    old.write_text("keep")
    status, out = run("q\n", record=new)
    assert status == 0 and new.exists()  # written at the end, not left by the probe alone
    status, out = run("", record=old, seed=4, force=True)
    assert status == 0 and "saved to" in out
    assert set(tmp_path.iterdir()) == {new, old}  # nor a temporary file


def test_the_record_path_is_shown_escaped(tmp_path: Path) -> None:
    """A path with an escape sequence was printed raw, as replay and analyze never do."""
    status, out = run("1\n", record=tmp_path / "no\x1b[31mdir" / "x.json")
    assert status == 2
    assert "\x1b" not in out
    assert "no\\x1b[31mdir" in out


# -- stopped from outside ----------------------------------------------------------------------


def start(args: list[str]) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "hanamikoji.cli", "play", *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, "COLUMNS": "100", "PYTHONIOENCODING": "utf-8"},
        text=True,
    )


def read_until(proc: subprocess.Popen[str], text: str) -> None:
    assert proc.stdout is not None
    seen = ""
    while text not in seen:
        char = proc.stdout.read(1)
        assert char, seen
        seen += char


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP])
def test_a_signal_saves_the_record(tmp_path: Path, signum: int) -> None:
    """Closing the terminal (SIGHUP) or ``kill`` (SIGTERM) lost the record."""
    path = tmp_path / "sig.json"
    args = ["--opponent", "random", "--seat", "0", "--seed", "3", "--record", str(path)]
    proc = start(args)
    assert proc.stdin is not None
    read_until(proc, "Your move")
    proc.stdin.write("1\n")
    proc.stdin.flush()
    read_until(proc, "Your move")
    proc.send_signal(signum)
    proc.communicate(timeout=60)
    assert proc.returncode == 128 + signum
    record = Record.read(path)
    assert record.result is None and len(record.rounds[0].moves) >= 2


def test_a_reader_that_leaves_still_gets_the_record_saved(tmp_path: Path) -> None:
    """``yes 1 | hanamikoji play --record bp.json | head -3`` lost the record, exit 1."""
    path = tmp_path / "bp.json"
    args = ["--opponent", "random", "--seat", "0", "--seed", "3", "--record", str(path)]
    proc = start(args)
    assert proc.stdin is not None and proc.stdout is not None
    read_until(proc, "Your move")
    proc.stdout.close()  # the reader leaves; the next move's line cannot be written
    proc.stdin.write("1\n")
    proc.stdin.close()
    assert proc.wait(timeout=60) == 141
    assert proc.stderr is not None and "internal error" not in proc.stderr.read()
    assert Record.read(path).result is None  # the unfinished game, saved


# -- what is typed -----------------------------------------------------------------------------


@pytest.mark.parametrize("typed", ["١", "２", "²", "Ｓ２"])
def test_only_ascii_digits_are_read(typed: str) -> None:
    """``١`` and ``２`` played moves 1 and 2 silently; ``²`` printed int()'s own message."""
    status, out = run(f"{typed}\nq\n", seat=0)
    assert status == 0
    assert "is not one of the digits 0-9" in out
    assert "invalid literal" not in out
    assert not re.search(r"R1 +1\. player", out)  # no move was played


def test_a_byte_order_mark_before_the_first_answer_is_ignored() -> None:
    status, out = run("\ufeff1\nq\n", seat=0)
    assert status == 0
    assert "is not a move" not in out
    assert re.search(r"R1 +1\. player", out)


def test_a_pick_number_that_is_also_an_offered_card_is_refused() -> None:
    """Offered 2 5 6 (list 1) P2 2) P5 3) P6), typing 2 took the 5."""
    answers = "1\n1\n1\n1\n"
    status, out = run(answers + "2\nq\n", seed=3, seat=1)
    assert status == 0
    assert "offers a Gift: 2 5 6" in out
    assert "2 is both a card of the offer and the number of P5: type P2" in out
    assert "Pick: takes" not in out.partition("Gift: 2 5 6")[2]
    # the notation, and a number that is no card of the offer, still work
    assert "Pick: takes 2" in run(answers + "P2\nq\n", seed=3, seat=1)[1]
    assert "Pick: takes 6" in run(answers + "3\nq\n", seed=3, seat=1)[1]
    assert "type P5 for the card 5" in run("help\nq\n")[1]


# -- the opponent ------------------------------------------------------------------------------


def test_level_and_opponent_together_are_refused(capsys: pytest.CaptureFixture[str]) -> None:
    """``--opponent random --level hard`` played random without a word."""
    assert main(["play", "--opponent", "random", "--level", "hard"]) == 2
    assert "give --level or --opponent, not both" in capsys.readouterr().err


def test_an_empty_opponent_is_refused() -> None:
    """``--opponent ''`` played the medium level."""
    status, out = run("1\n", opponent=" ")
    assert status == 2
    assert "--opponent is empty" in out and "Your move" not in out


def test_the_opponents_options_are_shown_and_recorded(tmp_path: Path) -> None:
    path = tmp_path / "g.json"
    status, out = run("q\n", opponent="greedy: hand_weight=0.4", record=path)
    assert status == 0
    assert Record.read(path).players == ("player", "greedy:hand_weight=0.4")
    assert "player vs greedy:hand_weight=0.4" in out


def test_a_resignation_says_so_in_the_final_boards_title() -> None:
    """After resigning in round 1 the board read "Final position after round 1"."""
    status, out = run("1\nresign\n")
    assert status == 0
    assert "Final position: You resigned in round 1" in out
    assert "after round 1" not in out


# -- the board at any width ----------------------------------------------------------------------


class _Scene:
    """The little of a game on screen that the board needs."""

    drawn: str | None

    def __init__(self, seat: int) -> None:
        self.seat, self.names, self.drawn, self.arrows = (
            seat,
            ("player", "random"),
            None,
            ("<", ">"),
        )

    @property
    def opp(self) -> int:
        return 1 - self.seat

    def style(self, seat: int | None) -> str:
        return "dim" if seat is None else ("cyan" if seat == self.seat else "magenta")

    def name(self, seat: int) -> Text:
        return Text(self.names[seat])

    def say(self, *parts: object) -> None:
        raise AssertionError("the board only draws")


def positions() -> list[tuple[int, View]]:
    """Views of a few positions of random games, some deep into a round, and seed 2089's hand
    of five 7s (cut to four at 76 columns)."""
    found = [(0, State.new(random.Random(2089)).view(0))]
    rng = random.Random(5)
    for seed in range(12):
        state = State.new(random.Random(seed))
        for _ in range(rng.randrange(0, 12)):
            if state.is_over:
                break
            state = state.apply(rng.choice(state.legal_moves))
        if not state.is_over:
            found.append((seed % 2, state.view(seed % 2)))
    return found


@pytest.mark.parametrize("width", [*range(42, 90), 100, 120, 160, 200])
def test_the_board_never_drops_a_card(width: int) -> None:
    """The compact layout started below 76 columns, but the wide table needs about 80: at
    76-79 the hand column cut five 7s to four, at 76-77 with no mark."""
    for seat, view in positions():
        out = io.StringIO()
        Console(file=out, width=width, force_terminal=False).print(board(_Scene(seat), view))
        text = out.getvalue()
        assert all(len(line) <= width for line in text.splitlines()), text
        rows = [
            line.strip("│| ") for line in text.splitlines() if re.match(r"^[│|]\s+[1-7]\s", line)
        ]
        assert len(rows) >= 7 and "…" not in "".join(rows[:7]), text
        for g, row in zip("1234567", rows[:7], strict=True):
            cells = row.split()
            assert cells[0] == g, text
            shown = "".join(cells[2:]).count(g)
            held = view.played[0].count(g) + view.played[1].count(g) + view.hand.count(g)
            assert shown == held, (width, g, row, view)


# -- the board and the scoring at 30-42 columns --------------------------------------------------


def finished_games() -> list[tuple[int, State]]:
    """Random games played to their end, with each seat's point of view."""
    games = []
    for seed in range(4):
        rng = random.Random(seed)
        state = State.new(random.Random(seed))
        while not state.is_over:
            state = state.apply(rng.choice(state.legal_moves))
        games.append((seed % 2, state))
    return games


def draw(width: int, renderable: object) -> list[str]:
    """``renderable`` drawn at ``width`` columns, as lines of plain text."""
    console = Console(width=width, record=True, force_terminal=False, file=io.StringIO())
    console.print(renderable)
    return console.export_text().splitlines()


def columns(header: str, row: str) -> dict[str, str]:
    """A row's text in each column named by ``header``: the columns are centred, so each word of
    the row belongs to the heading whose centre is nearest its own."""
    heads = [(m.group(), (m.start() + m.end()) / 2) for m in re.finditer(r"\S+", header)]
    cells = {name: "" for name, _ in heads}
    for m in re.finditer(r"\S+", row):
        centre = (m.start() + m.end()) / 2
        name = min(heads, key=lambda head: abs(head[1] - centre))[0]
        cells[name] += m.group()
    return cells


def words(lines: list[str]) -> str:
    """The text of ``lines`` inside a panel's borders, as one line of single spaces."""
    return " ".join(" ".join(line.strip("│╭╮╰╯─ ") for line in lines).split())


def geisha_rows(lines: list[str], width: int) -> tuple[str, list[str]]:
    """The table's header and its seven geisha rows; no line wider than ``width``."""
    assert all(len(line) <= width for line in lines), "\n".join(lines)
    at = next(i for i, line in enumerate(lines) if re.match(r"^│ G\s+P", line))
    rows = lines[at + 1 : at + 8]
    assert [row[2] for row in rows] == list("1234567"), "\n".join(lines)
    return lines[at], rows


@pytest.mark.parametrize("width", range(30, 43))
def test_a_narrow_board_keeps_every_geisha_each_side_and_the_hand(width: int) -> None:
    """At 30-41 columns the compact table was cut: the geisha's numbers and the hand column
    went, and the status wrapped a word to a line."""
    for seat, view in positions():
        lines = draw(width, board(_Scene(seat), view))
        header, rows = geisha_rows(lines, width)
        for g, row in zip("1234567", rows, strict=True):
            cells = columns(header, row)
            assert cells["G"] == g and cells["Pts"] == str(CHARM[int(g) - 1]), row
            assert cells["Them"] == g * view.played[1 - seat].count(g), (width, row)
            secret = "S" if view.secret and g in view.secret else ""
            mine = g * view.played[seat].count(g)
            assert cells["You"] == (f"{mine}+{secret}" if mine and secret else mine + secret)
            assert cells["Hand"] == g * view.hand.count(g), (width, row)
        text = words(lines)
        assert re.search(rf"Your hand:? {' '.join(view.hand) or 'empty'} ", text), text
        for s, name in enumerate(("player", "random")):
            assert f"{name} {view.charm[s]} charm, 0 geisha" in text, text


@pytest.mark.parametrize("width", range(30, 43))
def test_a_narrow_final_board_shows_each_marker(width: int) -> None:
    for seat, state in finished_games():
        view = state.view(seat)
        lines = draw(width, board(_Scene(seat), view))
        header, rows = geisha_rows(lines, width)
        marker = "M" if width < 42 else "Marker"
        held = {
            None: "-",
            seat: ">" if width < 42 else "you>",
            1 - seat: "<" if width < 42 else "<them",
        }
        for g, row in zip("1234567", rows, strict=True):
            cells = columns(header, row)
            assert cells["Them"] == g * view.played[1 - seat].count(g), (width, row)
            assert cells["You"] == g * view.played[seat].count(g), (width, row)
            assert cells[marker] == held[view.markers[int(g) - 1]], (width, row)


class _Scoring(_Scene):
    """A scene that keeps what is said, to draw it at a width."""

    def __init__(self, seat: int) -> None:
        super().__init__(seat)
        self.said: list[object] = []

    def say(self, *parts: object) -> None:
        self.said.extend(parts)


@pytest.mark.parametrize("width", range(30, 43))
def test_a_narrow_scoring_keeps_its_counts_markers_and_totals(width: int) -> None:
    """The scoring had no compact form: at 30-41 columns its headers were cut ("Cha…") and each
    marker's "moves to player" took three lines, cut too."""
    for seat, state in finished_games():
        for score in state.scorings:
            scene = _Scoring(seat)
            show_scoring(scene, score)
            lines = draw(width, *scene.said)
            header, rows = geisha_rows(lines, width)
            for g, row in zip("1234567", rows, strict=True):
                cells = columns(header, row)
                assert cells["Pts"] == str(CHARM[int(g) - 1]), row
                assert cells["Them"] == str(score.played[1 - seat].count(g)), row
                assert cells["You"] == str(score.played[seat].count(g)), row
                before, after = score.markers_before[int(g) - 1], score.markers[int(g) - 1]
                owner = "neutral" if after is None else "you" if after == seat else "them"
                assert cells["Marker"] == (owner if before == after else f"to{owner}"), row
            text = words(lines)
            for s, name in enumerate(scene.names):
                standing = f"{name} {score.charm[s]} charm, {score.geisha[s]} geisha"
                assert standing in text and f"{name} {score.secrets[s]}" in text, text


def test_a_whole_game_at_30_columns_keeps_to_them() -> None:
    status, out = run("1\n" * 200, seed=5, width=30)
    assert status == 0 and "Game over" in out
    assert all(len(line) <= 30 for line in out.splitlines())
    assert "Round 1 scoring" in out and "After round 1:" in out
