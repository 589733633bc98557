"""What a careless or hostile engine author, or a careless user of ``match``, ``tournament`` and
``engine``, ran into: each is a clear message (never an internal error), and the referee keeps
to the protocol with the players that did nothing wrong."""

from __future__ import annotations

import io
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from hanamikoji import cli, match, tournament
from hanamikoji.ai import make_agent
from hanamikoji.engine import EngineError, FailureKind, ProcessTransport, serve
from hanamikoji.match import MatchConfig, MatchError, run_match
from hanamikoji.match.games import play_game
from hanamikoji.match.players import make_player
from hanamikoji.match.runner import _sigterm_interrupts
from hanamikoji.match.summary import MatchSummary
from hanamikoji.moves import Move
from hanamikoji.state import Outcome, Rules, State
from hanamikoji.tournament import TournamentConfig, _Stop
from hanamikoji.view import View

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX shells and descriptors")

HELLO = json.dumps({"type": "hello", "protocol": "hanamikoji-engine/1"})
CLI = [sys.executable, "-m", "hanamikoji.cli"]


def shell(script: str, *args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    """``script`` run by sh with ``$CLI`` the hanamikoji command and ``$@`` its arguments."""
    cli = " ".join(f"'{part}'" for part in CLI)
    return subprocess.run(
        ["sh", "-c", script.replace("$CLI", cli), "sh", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
    )


# -- the engine command, with standard output or error closed or full ---------------------------


class Refusing(io.StringIO):
    """A log that cannot be written (a closed descriptor, a full disk)."""

    def write(self, text: str) -> int:
        raise OSError(28, "No space left on device")


def test_an_engine_whose_log_cannot_be_written_plays_on() -> None:
    out = io.StringIO()
    lines = f"{HELLO}\nnot json\n{HELLO}\n"
    status = serve(make_agent("random"), stdin=io.StringIO(lines), stdout=out, stderr=Refusing())
    assert status == 0
    assert out.getvalue().count('"type": "hello"') == 2  # answered after the line it refused


def test_the_engine_command_with_standard_error_closed_plays_on() -> None:
    done = shell("$CLI engine random 2>&-", stdin=f"{HELLO}\ngarbage\n{HELLO}\n")
    assert done.returncode == 0, done.stdout
    assert done.stdout.count('"type": "hello"') == 2
    assert "internal error" not in done.stdout


def test_the_engine_command_with_standard_output_closed_says_so() -> None:
    done = shell("$CLI engine random >&-", stdin=f"{HELLO}\n")
    assert done.returncode == 2
    assert "standard output is closed" in done.stderr
    assert "internal error" not in done.stderr


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
def test_the_engine_command_with_a_full_standard_output_says_so() -> None:
    done = shell("$CLI engine random >/dev/full", stdin=f"{HELLO}\n")
    assert done.returncode == 1
    assert "cannot write an answer to standard output: No space left on device" in done.stderr
    assert "internal error" not in done.stderr


# -- match and tournament, with standard output or error closed or full -------------------------


def test_a_match_with_standard_error_closed_still_gives_its_summary() -> None:
    done = shell("$CLI match random random --games 2 2>&-")
    assert done.returncode == 0, done.stdout
    assert "games 2 of 2" in done.stdout
    assert "internal error" not in done.stdout


@pytest.mark.parametrize(
    "command", ["match random random --games 2", "tournament random greedy --games-per-pair 2"]
)
def test_a_report_with_standard_output_closed_says_where_it_went(command: str) -> None:
    done = shell(f"$CLI {command} >&-")
    assert done.returncode == 1
    assert "standard output is closed: the " in done.stderr
    assert "internal error" not in done.stderr


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
@pytest.mark.parametrize(
    ("args", "what"),
    [
        (["match", "random", "random", "--games", "2"], "match: cannot write the summary"),
        (["match", "random", "random", "--games", "2", "--json"], "cannot write the summary"),
        (["tournament", "random", "greedy", "--games-per-pair", "2"], "cannot write the results"),
    ],
)
def test_a_report_that_cannot_be_written_is_said_not_a_bug(args: list[str], what: str) -> None:
    done = shell('$CLI "$@" >/dev/full', *args)
    assert done.returncode == 1
    assert what in done.stderr and "No space left on device" in done.stderr
    assert "internal error" not in done.stderr


# -- engine commands that cannot be started -----------------------------------------------------


def test_a_command_that_cannot_be_split_is_refused_with_what_to_do() -> None:
    with pytest.raises(MatchError, match=r"cannot be split into words.*No closing quotation"):
        make_player("cmd:python3 '/my engines/engine.py")
    with pytest.raises(MatchError, match="quote a word holding spaces whole"):
        run_match(MatchConfig("cmd:python3 'engine.py", "random", games=2))


def start_error(command: Sequence[str]) -> str:
    with pytest.raises(EngineError) as caught:
        ProcessTransport(list(command)).close()
    assert caught.value.kind == FailureKind.START
    return str(caught.value)


def test_an_engine_file_that_is_not_executable_is_named_so(tmp_path: Path) -> None:
    script = tmp_path / "engine.py"
    script.write_text("print('hello')\n")
    script.chmod(0o644)
    if os.access(script, os.X_OK):  # (root with an odd umask)
        pytest.skip("the file is executable all the same")
    said = start_error([str(script)])
    assert "is not executable" in said and "chmod +x" in said and "python3" in said


def test_a_folder_given_as_an_engine_is_named_so(tmp_path: Path) -> None:
    assert f"{tmp_path} is a folder, not a program" in start_error([str(tmp_path)])


def test_a_script_without_an_interpreter_line_is_named_so(tmp_path: Path) -> None:
    script = tmp_path / "engine"
    script.write_text("print('hello')\n")
    script.chmod(0o755)
    said = start_error([str(script)])
    assert "a script needs a first line naming its interpreter" in said


def test_a_program_not_on_the_path_is_named_so() -> None:
    said = start_error(["no-such-engine-fx55"])
    assert "no program 'no-such-engine-fx55' found on the PATH" in said


# -- a tournament naming one player twice, spelled otherwise ------------------------------------


@pytest.mark.parametrize(
    "players",
    [
        ("random", "Random"),
        ("random", " random"),
        ("random", "random:"),
        ("easy", "level:easy"),
        ("level:easy", "level:EASY"),
        ("greedy:a=1,b=2", "greedy:b=2, a=1"),
        ("cmd:python3 engine.py", "cmd:python3  'engine.py'"),
    ],
)
def test_one_player_spelled_twice_is_refused(players: tuple[str, str]) -> None:
    with pytest.raises(MatchError, match="are the same player, named twice"):
        TournamentConfig(players=("greedy:x=1", *players))


def test_a_gauntlet_spelled_otherwise_than_its_player_is_refused() -> None:
    with pytest.raises(MatchError, match="are the same player"):
        TournamentConfig(players=("random", "greedy"), gauntlet="Random")


def test_players_that_differ_are_still_different() -> None:
    TournamentConfig(players=("random", "greedy", "master", "level:master", "greedy:a=1"))


# -- a game whose second player cannot start ----------------------------------------------------


class Recorder:
    """A player that notes what it is told; ``fail`` makes its start fail."""

    def __init__(self, label: str, *, fail: bool = False) -> None:
        self.label = label
        self.fail = fail
        self.told: list[str] = []

    def start(self, seat: int, rules: Rules, opponent: str, seed: int) -> None:
        if self.fail:
            raise EngineError(FailureKind.START, "cannot start")
        self.told.append("game")

    def act(self, view: View, legal: Sequence[Move], clock_ms: int) -> Move:
        self.told.append("act")
        return legal[0]

    def finish(self, view: View, outcome: Outcome) -> None:
        self.told.append(f"result {outcome.reason.value} {outcome.winner}")

    def close(self) -> None:
        pass


def test_a_player_told_the_game_started_is_told_its_end_when_the_other_cannot_start() -> None:
    first, second = Recorder("A"), Recorder("B", fail=True)
    final = play_game((first, second), State.new(7), 100, (1, 2))
    assert final.outcome is not None and final.outcome.winner == 0
    assert first.told == ["game", "result forfeit 0"]  # never a game left without its result


def test_when_the_first_player_cannot_start_the_other_is_told_nothing() -> None:
    first, second = Recorder("A", fail=True), Recorder("B")
    final = play_game((first, second), State.new(7), 100, (1, 2))
    assert final.outcome is not None and final.outcome.winner == 1
    assert second.told == []


# -- an engine that forgets the newline ---------------------------------------------------------

UNENDED_ENGINE = """
import json, sys
mode = sys.argv[1]
for line in sys.stdin:
    msg = json.loads(line)
    if msg["type"] == "hello":
        end = "" if mode == "hello" else "\\n"
        sys.stdout.write(json.dumps({"type": "hello", "name": "u", "version": "1"}) + end)
    elif msg["type"] == "act":
        answer = json.dumps({"type": "move", "move": msg["legal"][0]})
        sys.stdout.write(answer[:12] if mode == "half" else answer)
    elif msg["type"] == "quit":
        break
    sys.stdout.flush()
"""


def unended(tmp_path: Path, mode: str) -> str:
    script = tmp_path / "unended.py"
    script.write_text(UNENDED_ENGINE)
    return f"cmd:{sys.executable} {script} {mode}"


def test_a_hello_without_its_newline_is_said_at_once(tmp_path: Path) -> None:
    with pytest.raises(MatchError) as caught:
        run_match(MatchConfig(unended(tmp_path, "hello"), "random", games=2))
    said = str(caught.value)
    assert "no hello from the engine" in said  # in seconds, not the minute allowed for hello
    assert "without ending the line: end each message with a newline" in said


def test_a_move_without_its_newline_forfeits_saying_so(tmp_path: Path) -> None:
    summary = run_match(MatchConfig(unended(tmp_path, "move"), "random", games=2, clock_ms=50))
    whys = [why for _, _, why in summary.forfeits]
    assert len(whys) == 2
    for why in whys:
        assert 'it wrote \'{"type": "move", "move": ' in why
        assert "without ending the line" in why


def test_a_timeout_quotes_a_line_begun_and_never_ended(tmp_path: Path) -> None:
    summary = run_match(MatchConfig(unended(tmp_path, "half"), "random", games=2, clock_ms=50))
    whys = [why for _, _, why in summary.forfeits]
    assert len(whys) == 2
    for why in whys:
        assert 'timeout: no answer within 1050 ms: it wrote \'{"type": "mo\'' in why


# -- a second Ctrl-C (or SIGTERM) during the first one's cleanup --------------------------------


def default_sigint() -> None:
    if signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
        pytest.skip("Ctrl-C is not Python's default here")


def signal_self(signum: int) -> None:
    """Send ``signum`` to this process and give its handler the chance to run."""
    os.kill(os.getpid(), signum)
    time.sleep(0.05)


def later_stops() -> None:
    """A second Ctrl-C and a SIGTERM, as the first one's cleanup runs: they must not raise."""
    try:
        signal_self(signal.SIGINT)
        signal_self(signal.SIGTERM)
    except KeyboardInterrupt:
        pytest.fail("a second stop broke off the cleanup of the first")


def test_a_match_stops_on_the_first_signal_and_lets_its_cleanup_end() -> None:
    default_sigint()
    with _sigterm_interrupts() as received:
        with pytest.raises(KeyboardInterrupt):
            signal_self(signal.SIGINT)
        later_stops()  # (they broke off the cleanup: an engine left, no summary)
    assert received == [signal.SIGINT]
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_a_tournament_stops_on_the_first_signal_and_lets_its_cleanup_end() -> None:
    default_sigint()
    with _Stop() as stop:
        with pytest.raises(KeyboardInterrupt):
            signal_self(signal.SIGINT)
        later_stops()
    assert stop.signum == signal.SIGINT


def test_a_ctrl_c_while_the_tournament_table_is_made_does_not_lose_it(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    default_sigint()
    real = tournament.run_tournament

    def stopped(config: TournamentConfig, **kwargs: Any) -> tournament.Tournament:
        t = real(config, **kwargs)
        t.stopped, t.signal = "interrupted", signal.SIGINT
        render = t.render

        def render_hit() -> str:  # the second Ctrl-C, as the table is made
            signal_self(signal.SIGINT)
            return render()

        monkeypatch.setattr(t, "render", render_hit)
        return t

    monkeypatch.setattr(tournament, "run_tournament", stopped)
    status = cli.main(["tournament", "random", "greedy", "--games-per-pair", "2"])
    assert status == 130
    assert "cross table" in capsys.readouterr().out


@pytest.mark.parametrize("interrupted", [True, False])
def test_a_ctrl_c_while_the_match_summary_is_made_does_not_lose_it(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], interrupted: bool
) -> None:
    default_sigint()
    real = match.run_match

    def stopped(config: MatchConfig, **kwargs: Any) -> MatchSummary:
        summary = real(config, **kwargs)
        if interrupted:  # (else it ran to its end: the Ctrl-C takes effect after the summary)
            summary.stopped, summary.signal = "interrupted", signal.SIGINT
        render = summary.render

        def render_hit() -> str:
            signal_self(signal.SIGINT)
            return render()

        monkeypatch.setattr(summary, "render", render_hit)
        return summary

    monkeypatch.setattr(match, "run_match", stopped)
    status = cli.main(["match", "random", "random", "--games", "2"])
    assert status == 130
    assert "games 2 of 2" in capsys.readouterr().out


# -- a tournament whose state file cannot be saved ----------------------------------------------


def test_a_state_file_that_cannot_be_saved_stops_with_the_results_so_far(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    real = tournament.save_state
    saves: list[int] = []

    def full_disk(config: TournamentConfig, pairs: list[Any], identities: dict[str, str]) -> None:
        saves.append(len(pairs))
        if len(saves) > 1:
            raise OSError(28, "No space left on device")
        real(config, pairs, identities)

    monkeypatch.setattr(tournament, "save_state", full_disk)
    state = tmp_path / "state.json"
    args = ["tournament", "random", "greedy", "--games-per-pair", "6", "--state", str(state)]
    status = cli.main(args)
    out, err = capsys.readouterr()
    assert status == 2
    assert "4 of 6 games" in out and "stopped: the state file could not be saved" in out
    assert f"cannot save the state file {state}: No space left on device" in err
    assert "internal error" not in err
    assert saves == [1, 2]  # it stopped there
    assert len(json.loads(state.read_text())["pairs"]) == 1
