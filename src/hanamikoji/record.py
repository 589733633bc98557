"""Game records, ``hanamikoji-record/1`` (interfaces.md §3): write, read, validate, replay.

>>> import random
>>> from hanamikoji.state import State
>>> state = State.new(random.Random(7))
>>> record = state.record(players=("alice", "bob"))
>>> Record.loads(record.dumps()).replay().hand(0) == state.hand(0)
True
"""

from __future__ import annotations

import io
import json
import os
import random
import reprlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

from hanamikoji.moves import IllegalMoveError, InvalidMoveError, Move
from hanamikoji.state import (
    Deal,
    DealError,
    NoDealError,
    Outcome,
    Rules,
    State,
    Termination,
    standing,
)

FORMAT = "hanamikoji-record/1"

MAX_RECORD_BYTES = 4 * 1024 * 1024
"""The largest record read, in bytes of UTF-8; larger ones are refused before parsing.

A round takes about 300 bytes as written here (1 KB even laid out generously), so a game of
100 rounds without a round limit is some 100 KB: 4 MiB is far above any real game and keeps
the memory a hostile record can make the reader use to about 100 MB at worst.
"""

MAX_RECORD_ROUNDS = 1000
"""The most rounds a record may hold; one with more is refused before its rounds are read.

Only a game without a round limit can go on: a real one ends within a few rounds (charm or
geisha are won), while 4 MiB could hold some 28,000 rounds that never move a marker, and a
replayed game keeps every position it went through (each with the scorings so far), so its
memory grows faster than its rounds. 1,000 rounds replay in under a second, in some 40 MB.
"""

_MAX_DIGITS = 30
"""The longest integer literal parsed. A record's numbers are small; converting thousands of
digits is slow (quadratic) and past Python's limit (4,300 digits) it raises a bare ValueError."""

__all__ = [
    "FORMAT",
    "MAX_RECORD_BYTES",
    "MAX_RECORD_ROUNDS",
    "Record",
    "RecordError",
    "RoundRecord",
]

_MAX_REASON = 400


class _JsonRepr(reprlib.Repr):
    """Values quoted as JSON writes them (``null``, ``true``, ``["b", null]``), since the
    messages are about a record's JSON; bounded as :class:`reprlib.Repr` bounds them."""

    def repr_str(self, x: str, level: int) -> str:
        s = _json_text(x[: self.maxstring])
        if len(s) > self.maxstring:
            i = max(0, (self.maxstring - 3) // 2)
            j = max(0, self.maxstring - 3 - i)
            s = s[:i] + "..." + s[len(s) - j :]
        return s

    def repr_NoneType(self, x: None, level: int) -> str:
        return "null"

    def repr_bool(self, x: bool, level: int) -> str:
        return json.dumps(x)

    def repr_float(self, x: float, level: int) -> str:
        return json.dumps(x)

    def repr_tuple(self, x: tuple[Any, ...], level: int) -> str:
        return self.repr_list(list(x), level)

    def repr_dict(self, x: dict[Any, Any], level: int) -> str:
        # In the record's order (reprlib sorts the keys), as "key": value.
        if not x:
            return "{}"
        if level <= 0:
            return "{...}"
        pieces = [
            f"{self.repr1(k, level - 1)}: {self.repr1(v, level - 1)}"
            for k, v in list(x.items())[: self.maxdict]
        ]
        if len(x) > self.maxdict:
            pieces.append("...")
        return "{" + ", ".join(pieces) + "}"


def _json_text(text: str) -> str:
    """``text`` as a JSON string, with every character that is not printable escaped."""
    s = json.dumps(text, ensure_ascii=False)  # control characters come escaped already
    if s.isprintable():
        return s
    out = []
    for c in s:
        if c.isprintable():
            out.append(c)
        elif ord(c) > 0xFFFF:  # as JSON writes it: a surrogate pair
            hi, lo = divmod(ord(c) - 0x10000, 0x400)
            out.append(f"\\u{0xD800 + hi:04x}\\u{0xDC00 + lo:04x}")
        else:
            out.append(f"\\u{ord(c):04x}")
    return "".join(out)


# Quoting foreign values in messages: short, one line, bounded however big or deep the value is.
_quote = _JsonRepr()
_quote.maxstring = 60
_quote.maxother = 60
_quote.maxlist = 8
_quote.maxdict = 8
_quote.maxlevel = 3


class RecordError(ValueError):
    """A record that cannot be read or replayed; names the round and move where it went wrong."""

    def __init__(self, reason: str, round: int | None = None, index: int | None = None) -> None:
        # The checks below quote what they found; a hostile record could make that megabytes.
        if len(reason) > _MAX_REASON:
            reason = reason[: _MAX_REASON - 1] + "…"
        self.reason = reason
        self.round = round
        self.index = index
        where = []
        if round is not None:
            where.append(f"round {round}")
        if index is not None:
            where.append(f"move {index}")
        super().__init__((", ".join(where) + ": " if where else "") + reason)


@dataclass(frozen=True)
class RoundRecord:
    """One round of a record: its deal and every decision in order (picks included)."""

    deal: Deal
    moves: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        """The round object of a record."""
        return {
            "removed": self.deal.removed,
            "hands": list(self.deal.hands),
            "deck": self.deal.deck,
            "moves": list(self.moves),
        }


@dataclass(frozen=True)
class Record:
    """A whole (or unfinished) game: rules, players, each round's deal and moves, and the result."""

    rules: Rules = field(default_factory=Rules)
    players: tuple[str, str] = ("seat 0", "seat 1")
    rounds: tuple[RoundRecord, ...] = ()
    result: Outcome | None = None
    unknown_rules: tuple[str, ...] = field(default=(), compare=False)
    """The keys of the file's ``rules`` this reader does not know (ignored, as interfaces.md
    says; a program may warn that the game was played under rules it does not apply)."""

    # -- writing ---------------------------------------------------------------------------

    @classmethod
    def of(cls, state: State, players: Sequence[str] = ("seat 0", "seat 1")) -> Record:
        """The record of ``state``'s game so far."""
        if isinstance(players, (str, bytes)):  # a str is a sequence too: "ab" would be a and b
            raise TypeError(
                f"players must be two names, such as ('alice', 'bob'), not one string {players!r}"
            )
        if len(players) != 2:
            raise ValueError(f"a record needs two player names, got {players!r}")
        moves: list[list[str]] = [[] for _ in range(state.round)]
        for ply in state.history:
            moves[ply.round - 1].append(str(ply.move))
        rounds = tuple(RoundRecord(d, tuple(m)) for d, m in zip(state.deals, moves, strict=True))
        return cls(state.rules, (str(players[0]), str(players[1])), rounds, state.outcome)

    def to_json(self) -> dict[str, Any]:
        """The record as a JSON-ready dict, in canonical form."""
        return {
            "format": FORMAT,
            "rules": self.rules.to_json(),
            "players": list(self.players),
            "rounds": [r.to_json() for r in self.rounds],
            "result": self.result.to_json() if self.result is not None else None,
        }

    def dumps(self, indent: int | None = 1) -> str:
        """The record as JSON text; a :class:`RecordError` for a record the reader would refuse
        (a name that is not Unicode text, a round limit of more than 30 digits, over
        :data:`MAX_RECORD_BYTES`): what is written can always be read back."""
        text = json.dumps(self.to_json(), indent=indent) + "\n"
        try:
            Record.loads(text)
        except RecordError as e:
            raise RecordError(
                f"this record could not be read back, so it is not written: {e}"
            ) from None
        return text

    def write(self, path: str | Path) -> None:
        """Write the record to a file (nothing is written for a record :meth:`dumps` refuses)."""
        text = self.dumps()
        Path(path).write_text(text, encoding="utf-8")

    # -- reading ---------------------------------------------------------------------------

    @classmethod
    def loads(cls, text: str | bytes) -> Record:
        """Parse a record from JSON text (structure only: ``replay`` checks the moves).

        Every way the text can be broken is a RecordError: over :data:`MAX_RECORD_BYTES`, not
        UTF-8, not JSON, nested too deeply, numbers too long, or not a record.
        """
        if not isinstance(text, (str, bytes)):
            raise RecordError(
                f"a record is read from JSON text (a str or bytes), got {_a(type(text).__name__)}"
                + (
                    ": for an already parsed record use Record.from_json"
                    if isinstance(text, dict)
                    else ""
                )
            )
        size = _utf8_size(text)
        if size > MAX_RECORD_BYTES:
            raise _too_big(size)
        try:
            # Bytes are decoded here, strictly: json.loads would guess UTF-16 or UTF-32 from
            # them, and a record is UTF-8 (a leading byte-order mark is allowed).
            source = text.decode("utf-8-sig") if isinstance(text, bytes) else text
            obj = json.loads(source, parse_int=_parse_int, object_pairs_hook=_unique_keys)
        except RecordError:
            raise
        except UnicodeDecodeError as e:
            raise RecordError(
                f"not valid JSON (not UTF-8 text: cannot decode byte {e.object[e.start]:#04x} "
                f"at offset {e.start}); a record is JSON text in UTF-8"
            ) from None
        except json.JSONDecodeError as e:
            if not source.strip():  # a 0-byte file, or only blanks: said as such
                raise RecordError(
                    "not valid JSON: the text is empty (a record is a JSON object with its tag "
                    '"format": "hanamikoji-record/1")'
                ) from None
            # The text stops inside the JSON (a string runs to the end, or a value is missing)
            if e.pos >= len(source.rstrip()) or e.msg.startswith("Unterminated string"):
                last = source.rstrip().count("\n") + 1
                raise RecordError(
                    f"not valid JSON: the text stops at line {last} before the JSON ends "
                    "(a file cut short?)"
                ) from None
            raise RecordError(f"not valid JSON ({e})") from None
        except RecursionError:
            raise RecordError("not a record: JSON nested too deeply") from None
        except ValueError as e:  # whatever else the parser meets: still the reader's error
            raise RecordError(f"not valid JSON ({e})") from None
        return cls.from_json(obj)

    @classmethod
    def read(cls, path: str | os.PathLike[str] | BinaryIO) -> Record:
        """Read a record file, or a binary stream such as ``sys.stdin.buffer``; one larger than
        :data:`MAX_RECORD_BYTES` is refused unread."""
        if not isinstance(path, (str, os.PathLike)):
            try:
                return cls.loads(_read_limited(path))
            except OSError as e:
                raise RecordError(f"cannot read the record: {e.strerror or e}") from None
        try:
            with Path(path).open("rb") as file:
                data = _read_limited(file)
        except OSError as e:
            raise RecordError(f"cannot read {path}: {e.strerror or e}") from None
        return cls.loads(data)

    @classmethod
    def from_json(cls, obj: Any) -> Record:
        """A record from its parsed JSON, checking its structure."""
        if not isinstance(obj, dict):
            raise RecordError(f"a record must be a JSON object, got {_brief(obj)}")
        fmt = obj.get("format")
        if fmt != FORMAT:
            got = "no format tag" if fmt is None else f"format {_brief(fmt)}"
            raise RecordError(f'not a {FORMAT} record: {got}, expected "format": "{FORMAT}"')
        try:
            rules = Rules.from_json(obj.get("rules"))
        except ValueError as e:
            raise RecordError(f"bad rules: {e}") from None
        players = obj.get("players", ["seat 0", "seat 1"])
        if (
            not isinstance(players, list)
            or len(players) != 2
            or not all(isinstance(p, str) for p in players)
        ):
            raise RecordError(f"players must be a list of two names, got {_brief(players)}")
        for seat, name in enumerate(players):
            _check_text(name, f"the name of seat {seat}")
        rounds_obj = obj.get("rounds")
        if not isinstance(rounds_obj, list) or not rounds_obj:
            raise RecordError("rounds must be a non-empty list of rounds")
        if len(rounds_obj) > MAX_RECORD_ROUNDS:
            raise _too_many_rounds(len(rounds_obj))
        rounds = tuple(_round(r, i + 1) for i, r in enumerate(rounds_obj))
        result_obj = obj.get("result")
        result = None if result_obj is None else _result(result_obj)
        rules_obj = obj.get("rules")
        known = Rules().to_json()
        unknown = (
            tuple(k for k in rules_obj if k not in known) if isinstance(rules_obj, dict) else ()
        )
        return cls(rules, (players[0], players[1]), rounds, result, unknown)

    # -- replaying -------------------------------------------------------------------------

    def replay(self, rng: random.Random | int | None = None) -> State:
        """Replay every move and check the result; the final state, or a RecordError saying where.

        A record without a result replays to its last position (finished or not); a given result
        must agree with the moves. A record that stops right after a round's last move goes on
        into the next round, dealt from ``rng`` (a seed, or None: at random): that deal is no
        part of what the record says, and a fixed one would be known to anyone who resumes it.
        """
        if len(self.rounds) > MAX_RECORD_ROUNDS:
            raise _too_many_rounds(len(self.rounds))
        deals = [r.deal for r in self.rounds]
        rng = rng if isinstance(rng, random.Random) else random.Random(rng)
        state = State.from_deals(deals, rules=self.rules, rng=rng)
        state = self._replay_moves(state)
        last = len(self.rounds)
        last_index = len(self.rounds[-1].moves) - 1 if self.rounds[-1].moves else None
        result = self.result
        if result is None:
            return state
        if result.reason in (Termination.FORFEIT, Termination.RESIGN):
            if state.is_over:
                raise RecordError(
                    f"the result says {result.reason.value}, but the game had already ended "
                    f"({state.outcome.reason.value if state.outcome else '?'})",
                    last,
                    last_index,
                )
            if result.winner not in (0, 1):
                raise RecordError(
                    f"a {result.reason.value} result needs a winner 0 or 1", last, last_index
                )
            state = state.concede(1 - result.winner, result.reason, result.why)
        elif not state.is_over:
            raise RecordError(
                f"the result says the game ended ({result.reason.value}), but after these moves "
                f"it is unfinished: {state.phase.value} of seat {state.to_move}"
                f" in round {state.round}",
                last,
                last_index,
            )
        got = state.outcome
        assert got is not None
        for name in ("winner", "reason", "charm", "geisha", "markers"):
            want_v, got_v = getattr(result, name), getattr(got, name)
            if want_v != got_v:
                raise RecordError(
                    f"the result's {name} is {_show(want_v)} but the moves give {_show(got_v)}",
                    last,
                    last_index,
                )
        return state

    def _replay_moves(self, state: State) -> State:
        for number, rnd in enumerate(self.rounds, start=1):
            if state.is_over:
                raise RecordError(
                    f"the game already ended in round {state.round}, but round {number} follows",
                    number,
                )
            if state.round != number:
                raise RecordError(
                    f"round {number - 1} is unfinished, but round {number} follows", number - 1
                )
            for index, text in enumerate(rnd.moves):
                if state.is_over:
                    raise RecordError(
                        f"move {_brief(text)} comes after the end of the game", number, index
                    )
                if state.round != number:
                    raise RecordError(
                        f"move {_brief(text)} comes after the end of round {number}", number, index
                    )
                try:
                    state = state.apply(Move.parse(text))
                except (InvalidMoveError, IllegalMoveError, NoDealError) as e:
                    raise RecordError(str(e), number, index) from None
        return state


def _round(obj: Any, number: int) -> RoundRecord:
    if not isinstance(obj, dict):
        raise RecordError("a round must be an object with removed, hands, deck and moves", number)
    for key in ("removed", "hands", "deck"):
        if key not in obj:
            raise RecordError(f"the round lacks {_brief(key)}", number)
    hands = obj["hands"]
    if not isinstance(hands, list) or len(hands) != 2:
        raise RecordError(f"hands must be a list of two hands, got {_brief(hands)}", number)
    for what, cards in (
        ("removed card", obj["removed"]),
        ("hand 0", hands[0]),
        ("hand 1", hands[1]),
        ("deck", obj["deck"]),
    ):
        if not isinstance(cards, str):  # said here, in JSON's words (null, not NoneType)
            raise RecordError(
                f"bad deal: {what} must be a string of digits 1-7, got {_brief(cards)}", number
            )
    try:
        deal = Deal(obj["removed"], (hands[0], hands[1]), obj["deck"])
    except DealError as e:
        raise RecordError(f"bad deal: {e}", number) from None
    moves = obj.get("moves", [])
    if not isinstance(moves, list):
        raise RecordError(f"moves must be a list of strings, got {_brief(moves)}", number)
    canonical = []
    for i, m in enumerate(moves):
        if not isinstance(m, str):
            raise RecordError(
                f"a move must be a string in move notation, got {_brief(m)}", number, i
            )
        try:
            canonical.append(str(Move.parse(m)))
        except InvalidMoveError as e:
            raise RecordError(str(e), number, i) from None
    return RoundRecord(deal, tuple(canonical))


def _result(obj: Any) -> Outcome:
    if not isinstance(obj, dict):
        raise RecordError(f"result must be an object or null, got {_brief(obj)}")
    try:
        reason = Termination(obj.get("reason"))
    except ValueError:
        allowed = ", ".join(t.value for t in Termination)
        raise RecordError(
            f"result reason must be one of {allowed}, got {_brief(obj.get('reason'))}"
        ) from None
    winner = obj.get("winner")
    if not _seat_or_null(winner):
        raise RecordError(f"result winner must be 0, 1 or null, got {_brief(winner)}")
    if "markers" not in obj:
        raise RecordError("result markers are missing: 7 entries of 0, 1 or null")
    markers = obj["markers"]
    if not isinstance(markers, list) or len(markers) != 7 or not all(map(_seat_or_null, markers)):
        raise RecordError(
            f"result markers must be 7 entries of 0, 1 or null, got {_brief(markers)}"
        )
    charm, geisha = standing(markers)
    got_charm = _int_pair(obj.get("charm", list(charm)), "charm")
    got_geisha = _int_pair(obj.get("geisha", list(geisha)), "geisha")
    why = obj.get("why")
    if isinstance(why, str):
        _check_text(why, "result why")
    elif why is not None:
        raise RecordError(f"result why must be text or null, got {_brief(why)}")
    return Outcome(
        winner, reason, got_charm, got_geisha, tuple(markers), why if isinstance(why, str) else None
    )


def _seat_or_null(value: Any) -> bool:
    """Whether ``value`` is 0, 1 or null as JSON wrote it (not 1.0, not true)."""
    return value is None or (type(value) is int and value in (0, 1))


def _int_pair(value: Any, name: str) -> tuple[int, int]:
    if (
        not isinstance(value, list)
        or len(value) != 2
        or not all(isinstance(v, int) and not isinstance(v, bool) for v in value)
    ):
        raise RecordError(f"result {name} must be two whole numbers, got {_brief(value)}")
    return (value[0], value[1])


def _brief(value: Any) -> str:
    """``value`` quoted for a message as JSON writes it: short and on one line, however big or
    deep it is."""
    try:
        return _quote.repr(value)
    except (ValueError, RecursionError):  # an int too long to convert, say
        return f"a {type(value).__name__}"


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object whose keys are each given once: a key given twice is a RecordError (the
    last one would win unseen, a record saying two things)."""
    found: dict[str, Any] = {}
    for key, value in pairs:
        if key in found:
            raise RecordError(f"not a record: the key {_brief(key)} is given twice in one object")
        found[key] = value
    return found


def _utf8_size(text: str | bytes) -> int:
    if isinstance(text, bytes):
        return len(text)
    if len(text) * 4 <= MAX_RECORD_BYTES:  # at most 4 bytes a character: surely small enough
        return len(text)
    return len(text.encode("utf-8", "surrogatepass"))


def _read_limited(file: BinaryIO) -> bytes:
    """The bytes of ``file``, refused (:func:`_too_big`) past :data:`MAX_RECORD_BYTES`."""
    # A regular file's size is known at once; a pipe or device is read only up to one byte
    # past the limit, so neither is ever read whole.
    try:
        size = os.fstat(file.fileno()).st_size
    except (AttributeError, io.UnsupportedOperation):  # a stream with no file behind it
        size = 0
    if size > MAX_RECORD_BYTES:
        raise _too_big(size)
    data = file.read(MAX_RECORD_BYTES + 1)
    if len(data) > MAX_RECORD_BYTES:
        raise _too_big(None)
    return data


def _too_big(size: int | None) -> RecordError:
    got = "over" if size is None else f"{size:,} bytes, over"
    return RecordError(
        f"too large for a record: {got} the limit of {MAX_RECORD_BYTES:,} bytes (4 MiB), "
        "far more than any game needs"
    )


def _a(noun: str) -> str:
    return f"{'an' if noun[:1] in tuple('aeiou') else 'a'} {noun}"


def _too_many_rounds(count: int) -> RecordError:
    return RecordError(
        f"too many rounds for a record: {count:,}, over the limit of {MAX_RECORD_ROUNDS:,} "
        "(only a game without a round limit can last so long; a real one ends within a few rounds)"
    )


def _parse_int(digits: str) -> int:
    if len(digits.lstrip("-")) > _MAX_DIGITS:
        raise RecordError(
            f"not a record: a number of {len(digits.lstrip('-')):,} digits; "
            f"a record's numbers are small whole numbers (at most {_MAX_DIGITS} digits)"
        )
    return int(digits)


def _check_text(text: str, what: str) -> None:
    """Refuse a string that is not Unicode text: it could not be written back as UTF-8."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as e:
        raise RecordError(
            f"{what} is not valid Unicode text: a lone surrogate {text[e.start]!r} at character "
            f"{e.start}; names and texts must be encodable as UTF-8"
        ) from None


def _show(value: Any) -> str:
    if isinstance(value, Termination):
        return value.value
    if isinstance(value, tuple):
        return json.dumps(list(value))
    return json.dumps(value)
