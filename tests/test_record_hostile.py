"""Hostile records and engines: every broken record is one line and exit 2, foreign text is escaped.

A record may come from anyone. Whatever its bytes, ``hanamikoji replay`` and ``analyze`` either
tell the game or refuse it in one line (never "internal error", never a traceback, never gigabytes
of memory), and what they print from the record cannot reach the terminal as control characters.
"""

from __future__ import annotations

import doctest
import json
import os
import re
import shlex
import subprocess
import sys
import threading
import tracemalloc
from pathlib import Path
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import hanamikoji.terminal
from conftest import DEAL_A, EXAMPLE_DEAL, MOVES_A, one_round, run_cli
from hanamikoji.cli import main
from hanamikoji.moves import InvalidMoveError, Move
from hanamikoji.record import MAX_RECORD_BYTES, Record, RecordError
from hanamikoji.replay import render_replay
from hanamikoji.state import Rules, State, Termination
from hanamikoji.terminal import printable, printable_lines

HUGE = "1" * 5000  # past Python's 4,300-digit limit on converting an int from text
HOSTILE_NAMES = ("\x1b]0;pwned\x07", "\x1b[2J\r\u202eevil\x9b\x7f")


def _record_obj(players: tuple[str, str] = ("alice", "bob")) -> dict[str, Any]:
    return one_round(DEAL_A, MOVES_A, max_rounds=1).record(players).to_json()


Field = tuple[str | int, ...]


def _with_raw(path: Field, raw: str) -> str:
    """A good record's JSON text with the value at ``path`` replaced by the raw JSON ``raw``."""
    obj = _record_obj()
    *parents, last = path
    target: Any = obj
    for key in parents:
        target = target[key]
    target[last] = "@@HERE@@"
    return json.dumps(obj).replace('"@@HERE@@"', raw)


BROKEN_TEXTS: dict[str, bytes] = {
    "huge-int-in-deal": _with_raw(("rounds", 0, "removed"), HUGE).encode(),
    "huge-int-in-hands": _with_raw(("rounds", 0, "hands", 1), HUGE).encode(),
    "huge-int-in-result": _with_raw(("result", "winner"), HUGE).encode(),
    "huge-negative-int-in-charm": _with_raw(("result", "charm"), f"[-{HUGE}, 1]").encode(),
    "huge-int-max-rounds": _with_raw(("rules", "max_rounds"), HUGE).encode(),
    "surrogate-escape-in-name": _with_raw(("players", 0), '"\\ud800"').encode(),
    "low-surrogate-in-name": _with_raw(("players", 1), '"bob\\udfff"').encode(),
    # The same lone surrogate as raw (invalid) UTF-8 bytes, which json decodes with surrogatepass.
    "surrogate-bytes-in-name": _with_raw(("players", 0), '"@"')
    .encode()
    .replace(b'"@"', b'"\xed\xa0\x80"'),
    "surrogate-in-why": _with_raw(("result", "why"), '"\\udbff"').encode(),
    "deeply-nested": b"[" * 100_000,
    "deeply-nested-closed": b"[" * 100_000 + b"]" * 100_000,
    "deeply-nested-players": _with_raw(("players",), "[" * 100_000 + "]" * 100_000).encode(),
    "not-utf8-in-name": _with_raw(("players", 0), '"@"').encode().replace(b"@", b"\xff\xfe"),
    "latin1-name": _with_raw(("players", 0), '"@"').encode().replace(b"@", "Zoë".encode("latin-1")),
    # JSON's own reader would guess UTF-16 from the bytes; a record is UTF-8.
    "utf16-record": json.dumps(_record_obj()).encode("utf-16"),
    "float-winner": _with_raw(("result", "winner"), "1.0").encode(),
    "true-marker": _with_raw(("result", "markers", 0), "true").encode(),
    "float-marker": _with_raw(("result", "markers", 0), "0.0").encode(),
    "number-why": _with_raw(("result", "why"), "5").encode(),
    "null-markers": _with_raw(("result", "markers"), "null").encode(),
    "no-markers": json.dumps(
        {
            **_record_obj(),
            "result": {k: v for k, v in _record_obj()["result"].items() if k != "markers"},
        }
    ).encode(),
    # the rules given twice, the second saying otherwise: the last would have won unseen
    "key-twice": json.dumps(_record_obj())
    .replace('"rules": {', '"rules": {"max_rounds": 3, ', 1)
    .encode(),
}
"""Broken records by name; each is refused with the message of BROKEN_MESSAGES."""

BROKEN_MESSAGES = {
    "huge-int-in-deal": "5,000 digits",
    "huge-int-in-hands": "5,000 digits",
    "huge-int-in-result": "5,000 digits",
    "huge-negative-int-in-charm": "5,000 digits",
    "huge-int-max-rounds": "5,000 digits",
    "surrogate-escape-in-name": r"name of seat 0 is not valid Unicode text.*'\\ud800'",
    "low-surrogate-in-name": r"name of seat 1 is not valid Unicode text.*'\\udfff' at character 3",
    "surrogate-bytes-in-name": "not UTF-8 text: cannot decode byte 0xed",
    "surrogate-in-why": r"result why is not valid Unicode text",
    "deeply-nested": "nested too deeply",
    "deeply-nested-closed": "nested too deeply",
    "deeply-nested-players": "nested too deeply",
    "not-utf8-in-name": "not UTF-8 text: cannot decode byte 0xff",
    "latin1-name": "not UTF-8 text: cannot decode byte 0xeb",
    "utf16-record": "not UTF-8 text: cannot decode byte 0xff at offset 0",
    "float-winner": "result winner must be 0, 1 or null, got 1.0",
    "true-marker": r"result markers must be 7 entries of 0, 1 or null, got \[true, null, ",
    "float-marker": r"result markers must be 7 entries of 0, 1 or null, got \[0.0, ",
    "number-why": "result why must be text or null, got 5",
    "null-markers": "result markers must be 7 entries of 0, 1 or null, got null",
    "no-markers": "result markers are missing: 7 entries of 0, 1 or null",
    "key-twice": 'not a record: the key "max_rounds" is given twice in one object',
}


def _run(capsys: pytest.CaptureFixture[str], *args: str | Path) -> tuple[int, str, str]:
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def _refused(code: int, out: str, err: str, command: str, path: Path) -> str:
    """The one line a refused record gives; checks exit 2, nothing on stdout, no traceback."""
    assert code == 2, err
    assert out == ""
    assert "internal error" not in err and "Traceback" not in err
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith(f"hanamikoji {command}: {path}: "), lines[0]
    return lines[0]


def _only_printable(text: str) -> None:
    """No control character, escape, bidi override or surrogate: each line is printable."""
    for line in text.split("\n"):
        assert line.isprintable(), ascii(line)


# -- the reader: any broken record is a RecordError that says what was wrong -----------------


@pytest.mark.parametrize("name", list(BROKEN_TEXTS))
def test_the_reader_refuses_broken_records_with_a_clear_message(name: str) -> None:
    text = BROKEN_TEXTS[name]
    with pytest.raises(RecordError, match=BROKEN_MESSAGES[name]) as info:
        Record.loads(text)
    assert len(str(info.value)) <= 400 and "\n" not in str(info.value)
    # Given as str rather than bytes: the same verdict.
    if name not in ("not-utf8-in-name", "latin1-name", "surrogate-bytes-in-name", "utf16-record"):
        with pytest.raises(RecordError, match=BROKEN_MESSAGES[name]):
            Record.loads(text.decode("utf-8"))


@pytest.mark.parametrize("name", list(BROKEN_TEXTS))
@pytest.mark.parametrize("command", [("replay",), ("replay", "--json"), ("analyze",)])
def test_the_command_line_refuses_broken_records_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, command: tuple[str, ...]
) -> None:
    path = tmp_path / f"{name}.json"
    path.write_bytes(BROKEN_TEXTS[name])
    line = _refused(*_run(capsys, *command, path), command[0], path)
    assert re.search(BROKEN_MESSAGES[name], line), line
    _only_printable(line)


def test_a_huge_int_is_refused_even_without_pythons_digit_limit() -> None:
    # With the limit off (PYTHONINTMAXSTRDIGITS=0) the parser would convert any number of digits,
    # in time that grows with their square: the reader refuses long numbers itself.
    old = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(0)
    try:
        with pytest.raises(RecordError, match="a number of 5,000 digits"):
            Record.loads(BROKEN_TEXTS["huge-int-max-rounds"])
    finally:
        sys.set_int_max_str_digits(old)


def test_ordinary_numbers_are_still_read() -> None:
    obj = _record_obj()
    obj["rules"]["max_rounds"] = 10**29  # 30 digits: absurd, but a whole number
    obj["result"] = None
    assert Record.loads(json.dumps(obj)).rules.max_rounds == 10**29


# -- the size limit --------------------------------------------------------------------------


def _padded(size: int) -> bytes:
    """A good record, padded with spaces (valid JSON whitespace) to exactly ``size`` bytes."""
    text = json.dumps(_record_obj()).encode()
    return text[:-1] + b" " * (size - len(text)) + b"}"


def test_a_record_at_the_limit_is_read_and_one_byte_over_is_refused(tmp_path: Path) -> None:
    at = tmp_path / "at.json"
    at.write_bytes(_padded(MAX_RECORD_BYTES))
    assert Record.read(at).players == ("alice", "bob")
    assert Record.loads(at.read_bytes()).players == ("alice", "bob")
    over = tmp_path / "over.json"
    over.write_bytes(_padded(MAX_RECORD_BYTES + 1))
    with pytest.raises(
        RecordError, match=f"too large for a record: {MAX_RECORD_BYTES + 1:,} bytes"
    ):
        Record.read(over)
    with pytest.raises(RecordError, match="too large for a record"):
        Record.loads(over.read_bytes())
    with pytest.raises(RecordError, match="too large for a record"):
        Record.loads(over.read_bytes().decode())


def test_a_text_over_the_limit_in_utf8_is_refused() -> None:
    # Fewer characters than the limit, but more bytes once written as UTF-8.
    obj = _record_obj(("é" * (MAX_RECORD_BYTES // 2 + 1), "bob"))
    text = json.dumps(obj, ensure_ascii=False)
    assert len(text) < MAX_RECORD_BYTES < len(text.encode())
    with pytest.raises(RecordError, match="too large"):
        Record.loads(text)


def test_a_huge_file_is_refused_without_being_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "huge.json"
    with path.open("wb") as f:  # sparse: 200 MB that take no room on disk
        f.write(json.dumps(_record_obj()).encode()[:-1])
        f.truncate(200 * 1024 * 1024)
    for command in ("replay", "analyze"):
        tracemalloc.start()
        try:
            result = _run(capsys, command, path)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        line = _refused(*result, command, path)
        assert "too large for a record: 209,715,200 bytes" in line
        assert f"{MAX_RECORD_BYTES:,}" in line
        assert peak < MAX_RECORD_BYTES, peak  # not even the limit's worth was read


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")
def test_an_endless_stream_is_read_only_to_the_limit(tmp_path: Path) -> None:
    # A pipe has no size to look at: reading stops one byte past the limit.
    path = tmp_path / "pipe.json"
    os.mkfifo(path)
    written = []

    def feed() -> None:
        chunk = b" " * 65536
        try:
            with path.open("wb") as f:
                for _ in range(2 * MAX_RECORD_BYTES // len(chunk)):
                    f.write(chunk)
                    written.append(len(chunk))
        except BrokenPipeError:  # the reader stopped, as it should
            pass

    writer = threading.Thread(target=feed, daemon=True)
    writer.start()
    with pytest.raises(RecordError, match="too large for a record: over the limit"):
        Record.read(path)
    writer.join(timeout=10)
    assert sum(written) < 2 * MAX_RECORD_BYTES


# -- escaping what a record says -------------------------------------------------------------


def _hostile_record(tmp_path: Path, why: str | None = None) -> Path:
    path = tmp_path / ("played.json" if why is None else "forfeited.json")
    if why is None:
        state = one_round(DEAL_A, MOVES_A, max_rounds=1)
    else:
        state = State.from_deals([EXAMPLE_DEAL]).concede(0, Termination.FORFEIT, why=why)
    state.record(HOSTILE_NAMES).write(path)
    return path


def test_replay_escapes_names_and_why(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    why = "engine said \x1b[31mred\x1b[0m\rover"
    played = _hostile_record(tmp_path)
    forfeited = _hostile_record(tmp_path, why)
    code, out, err = _run(capsys, "replay", played)
    assert code == 0, err
    _only_printable(out)
    assert out.startswith(
        "\\x1b]0;pwned\\x07 (seat 0) vs \\x1b[2J\\x0d\\u202eevil\\x9b\\x7f (seat 1)"
    )
    assert "Round 1: \\x1b]0;pwned\\x07 plays first" in out
    assert "Result: \\x1b[2J\\x0d\\u202eevil\\x9b\\x7f wins" in out
    code, out, err = _run(capsys, "replay", forfeited)
    assert code == 0, err
    _only_printable(out)
    assert "by forfeit" in out and "engine said \\x1b[31mred\\x1b[0m\\x0dover" in out


def test_replay_json_stays_valid_ascii_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    why = "\x1b]0;pwned\x07 \u202e Алиса \U0001f600"
    code, out, err = _run(capsys, "replay", "--json", _hostile_record(tmp_path, why))
    assert code == 0, err
    assert out.isascii()
    _only_printable(out.rstrip("\n"))
    assert json.loads(out)["why"] == why


def test_analyze_escapes_names(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _run(capsys, "analyze", _hostile_record(tmp_path), "--iterations", "2")
    assert code == 0, err
    _only_printable(out)
    decisions, summary = out.split("\n\n")  # the decision lines, then the players' summary
    lines = decisions.splitlines()
    assert len(lines) == 12 and all(line.startswith("round 1 move ") for line in lines)
    assert sum("\\x1b]0;pwned\\x07" in line for line in lines) == 6
    assert sum("\\x1b[2J\\x0d\\u202eevil\\x9b\\x7f" in line for line in lines) == 6
    players = summary.splitlines()
    assert len(players) == 2
    assert players[0].startswith("\\x1b]0;pwned\\x07  6 decisions  ? ")
    assert players[1].startswith("\\x1b[2J\\x0d\\u202eevil\\x9b\\x7f  6 decisions  ? ")


def test_analyze_json_names_the_players_in_ascii_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The summary of --json names the players as the record does, escaped by JSON itself."""
    path = _hostile_record(tmp_path)
    code, out, err = _run(capsys, "analyze", "--json", path, "--iterations", "2")
    assert code == 0, err
    assert out.isascii()
    _only_printable(out.rstrip("\n"))
    rows = [json.loads(line) for line in out.splitlines()]
    assert len(rows) == 12
    assert [p["name"] for p in rows[-1]["summary"]] == list(HOSTILE_NAMES)


def test_letters_of_any_script_are_shown_as_they_are(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "names.json"
    one_round(DEAL_A, MOVES_A, max_rounds=1).record(("Алиса", "花子 Zoë")).write(path)
    code, out, err = _run(capsys, "replay", path)
    assert code == 0, err
    assert out.startswith("Алиса (seat 0) vs 花子 Zoë (seat 1)")


def test_a_long_name_is_cut_short_on_every_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A name of megabytes (within the record's limit) is printed on many lines: cut short, a
    replay's text stays the size of the game's, not thirty times the file's."""
    path = tmp_path / "long.json"
    long = "x" * 2_000_000
    one_round(DEAL_A, MOVES_A, max_rounds=1).record((long, long + "y")).write(path)
    code, out, err = _run(capsys, "replay", path)
    assert code == 0, err
    assert len(out) < 20_000, len(out)
    shown = "x" * 40 + "... (2,000,000 characters)"
    assert out.startswith(f"{shown} (seat 0) vs {'x' * 40}... (2,000,001 characters) (seat 1)")
    code, out, err = _run(capsys, "analyze", path, "--iterations", "2")
    assert code == 0, err
    assert len(out) < 20_000, len(out)


def test_names_that_only_look_alike_are_told_apart(tmp_path: Path) -> None:
    # "a\x07" and the four characters "a\x07" print the same: the seats say which is which.
    record = one_round(DEAL_A, MOVES_A, max_rounds=1).record(("a\x07", "a\\x07"))
    text = render_replay(record, record.replay())
    # the header says each seat once ("[seat 0] (seat 0)" said it twice); the lines after it
    # tell the two apart by the seat after the name
    assert text.startswith("a\\x07 (seat 0) vs a\\x07 (seat 1),")
    assert "a\\x07 [seat 0]" in text and "a\\x07 [seat 1]" in text


def test_a_hostile_record_in_a_subprocess_writes_no_control_characters(tmp_path: Path) -> None:
    # The real command, its real stdout: nothing raw reaches it.
    done = run_cli("replay", _hostile_record(tmp_path))
    assert done.returncode == 0, done.stderr
    _only_printable(done.stdout)
    assert "\\x1b]0;pwned\\x07" in done.stdout


def test_a_terminal_without_utf8_gets_escapes_not_an_error(tmp_path: Path) -> None:
    path = tmp_path / "names.json"
    one_round(DEAL_A, MOVES_A, max_rounds=1).record(("Алиса", "bob")).write(path)
    env = {**os.environ, "PYTHONIOENCODING": "ascii"}
    done = subprocess.run(
        [sys.executable, "-m", "hanamikoji.cli", "replay", str(path)],
        capture_output=True,
        text=True,
        encoding="ascii",
        env=env,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("\\u0410\\u043b\\u0438\\u0441\\u0430 (seat 0) vs bob")


@settings(max_examples=150, deadline=None)
@given(st.text(st.characters(exclude_categories=()), max_size=40), st.integers(0, 1))
@example("\ud800", 0)
@example("\x1b[2J\r\n\u202e", 1)
def test_any_name_is_read_and_printed_safely_or_refused(name: str, seat: int) -> None:
    players = ["alice", "bob"]
    players[seat] = name
    obj = _record_obj()
    obj["players"] = players
    try:
        record = Record.loads(json.dumps(obj))
    except RecordError as e:
        assert "not valid Unicode text" in str(e)
        assert any(0xD800 <= ord(c) <= 0xDFFF for c in name)
        return
    assert record.players[seat] == name
    _only_printable(render_replay(record, record.replay()))


# -- match: what engines say -----------------------------------------------------------------

ENGINE = """\
import json, sys, time
mode = sys.argv[1]
sys.stderr.write("\\x1b]0;pwned\\x07\\x1b[2J\\r\\u202eengine log\\n")
sys.stderr.flush()
if mode == "nohello":
    time.sleep(0.3)  # time for the referee to read stderr before it sees the exit
    sys.exit(0)
for line in sys.stdin:
    msg = json.loads(line)
    if msg["type"] == "hello":
        print(json.dumps({"type": "hello", "name": "\\x1b[2Jbad", "version": "1"}), flush=True)
    elif msg["type"] == "act":
        sys.stderr.write("\\x1b[31mcrashing\\x07\\n")
        sys.stderr.flush()
        time.sleep(0.3)
        sys.exit(3)
    elif msg["type"] == "quit":
        break
"""


def _engine_spec(tmp_path: Path, mode: str) -> str:
    script = tmp_path / "hostile_engine.py"
    script.write_text(ENGINE, encoding="utf-8")
    return f"cmd:{shlex.quote(sys.executable)} {shlex.quote(str(script))} {mode}"


def test_match_escapes_an_engines_stderr_in_its_error(tmp_path: Path) -> None:
    done = run_cli("match", "random", _engine_spec(tmp_path, "nohello"), "--games", "2")
    assert done.returncode == 2
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr
    _only_printable(lines[0])
    assert "no hello from the engine" in lines[0]
    # (the engine's "\r" ends a line as the referee reads its stderr)
    assert "\\x1b]0;pwned\\x07\\x1b[2J" in lines[0]
    assert "\\u202eengine log" in lines[0]


def test_match_escapes_forfeit_reasons(tmp_path: Path) -> None:
    spec = _engine_spec(tmp_path, "crash")
    common = ("--games", "2", "--clock-ms", "100", "--hard-limit-ms", "5000")
    done = run_cli("match", "random", spec, *common)
    assert done.returncode == 0, done.stderr
    _only_printable(done.stdout)
    _only_printable(done.stderr)
    assert "forfeits: 2" in done.stdout
    assert "\\x1b[31mcrashing\\x07" in done.stdout
    done = run_cli("match", "random", spec, *common, "--json")
    assert done.returncode == 0, done.stderr
    assert done.stdout.isascii()
    whys = [f["why"] for f in json.loads(done.stdout)["forfeits"]]
    assert all("\x1b[31mcrashing\x07" in why for why in whys), whys


# -- the escaping function -------------------------------------------------------------------

ANY_TEXT = st.text(st.characters(exclude_categories=()))

_ESCAPE = re.compile(r"\\x([0-9a-f]{2})|\\u([0-9a-f]{4})|\\U([0-9a-f]{8})")


def _unescape(text: str) -> str:
    return _ESCAPE.sub(lambda m: chr(int(m.group(m.lastindex or 0), 16)), text)


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("\x1b]0;pwned\x07", "\\x1b]0;pwned\\x07"),
        ("\x1b[2J", "\\x1b[2J"),
        ("a\rb\nc\td", "a\\x0db\\x0ac\\x09d"),
        ("\x00\x7f\x85\x9b", "\\x00\\x7f\\x85\\x9b"),
        ("\u202eevil\u202c", "\\u202eevil\\u202c"),
        ("\u200b\u2028\u2029\ufeff", "\\u200b\\u2028\\u2029\\ufeff"),
        ("\ud800\udfff", "\\ud800\\udfff"),
        ("\U000e0041\U0010ffff", "\\U000e0041\\U0010ffff"),
        ("Алиса, Zoë, 花子, 🙂", "Алиса, Zoë, 花子, 🙂"),
        ("C:\\x1b", "C:\\x1b"),  # backslashes are text, kept as they are
    ],
)
def test_printable_escapes_what_is_not_printable(text: str, shown: str) -> None:
    assert printable(text) == shown


@given(ANY_TEXT)
def test_printable_output_is_always_printable(text: str) -> None:
    shown = printable(text)
    assert shown.isprintable()
    shown.encode("utf-8")  # never a surrogate left: printing cannot raise UnicodeEncodeError


@given(st.text(st.characters(exclude_categories=()).filter(str.isprintable)))
def test_printable_text_is_unchanged(text: str) -> None:
    assert printable(text) == text


@given(ANY_TEXT)
def test_printable_is_idempotent(text: str) -> None:
    # So text escaped once (a message quoting a repr, say) is never escaped twice.
    assert printable(printable(text)) == printable(text)


@given(st.text(st.characters(exclude_categories=(), exclude_characters="\\")))
def test_printable_can_be_undone_for_text_without_backslashes(text: str) -> None:
    assert _unescape(printable(text)) == text


@given(
    st.text(st.characters(exclude_categories=(), exclude_characters="\\")),
    st.text(st.characters(exclude_categories=(), exclude_characters="\\")),
)
def test_distinct_texts_without_backslashes_stay_distinct(a: str, b: str) -> None:
    assert (printable(a) == printable(b)) == (a == b)


@given(ANY_TEXT)
def test_printable_lines_keeps_the_line_breaks_only(text: str) -> None:
    shown = printable_lines(text)
    assert shown.count("\n") == text.count("\n")
    assert shown.split("\n") == [printable(line) for line in text.split("\n")]
    _only_printable(shown)


def test_terminal_docstring_examples_run() -> None:
    result = doctest.testmod(hanamikoji.terminal)
    assert result.attempted > 0
    assert result.failed == 0


@pytest.mark.parametrize(
    ("players", "rules", "said"),
    [
        (("a\ud800", "b"), Rules(), "not valid Unicode text"),
        (("a", "b"), Rules(max_rounds=10**40), "41 digits"),
    ],
    ids=["lone-surrogate", "round-limit-of-41-digits"],
)
def test_the_writer_refuses_what_the_reader_would(
    tmp_path: Path, players: tuple[str, str], rules: Rules, said: str
) -> None:
    """A record the library writes can always be read back: one the reader would refuse is not
    written (no file left behind), saying why."""
    record = State.new(1, rules=rules).record(players)
    path = tmp_path / "refused.json"
    with pytest.raises(RecordError, match=f"could not be read back.*{said}"):
        record.write(path)
    assert not path.exists()
    big = State.new(1).concede(0, Termination.FORFEIT, "x" * MAX_RECORD_BYTES).record()
    with pytest.raises(RecordError, match="too large"):
        big.dumps()


def test_a_move_compared_with_a_string_is_a_type_error() -> None:
    with pytest.raises(TypeError, match="'<' not supported"):
        assert Move.parse("C12-47") < "S4"
    assert sorted([Move.parse("S4"), Move.parse("C12-47")])[0] == Move.parse("S4")


def test_a_long_bad_move_is_not_echoed_whole() -> None:
    with pytest.raises(InvalidMoveError) as caught:
        Move.parse("S" + "4" * 10_000)
    said = str(caught.value)
    assert len(said) < 300 and "(10,001 characters)" in said, said
