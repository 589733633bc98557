"""Moves and their notation (interfaces.md §1).

A :class:`Move` is a small immutable value: ``Move.parse("g741")`` gives ``G147``. Every distinct
outcome has exactly one ``Move`` object (they are interned), so moves compare and hash cheaply.
Parsing checks syntax only; whether a move is legal is the game state's business.
"""

from __future__ import annotations

import enum
from itertools import combinations
from typing import Any, ClassVar

from hanamikoji.cards import (
    ACTION_NAMES,
    ACTION_SIZES,
    ALL_CARDS,
    GUARD,
    CardError,
    pack,
    parse_cards,
)


class Action(enum.Enum):
    """What a move does: one of the four actions, or the opponent's pick after an offer."""

    _value_: str
    SECRET = "S"
    DISCARD = "D"
    GIFT = "G"
    COMPETITION = "C"
    PICK = "P"

    @property
    def title(self) -> str:
        """The name in words: ``Secret``, ``Discard``, ``Gift``, ``Competition``, ``Pick``."""
        return ACTION_NAMES.get(self.value, "Pick")

    @property
    def bit(self) -> int:
        """The action's bit in an actions-left mask (S=1, D=2, G=4, C=8; a pick has none)."""
        return _ACTION_BITS[self]


_ACTION_BITS = {
    Action.SECRET: 1,
    Action.DISCARD: 2,
    Action.GIFT: 4,
    Action.COMPETITION: 8,
    Action.PICK: 0,
}


class InvalidMoveError(ValueError):
    """Text that is not a move in the notation (a syntax error)."""


class IllegalMoveError(ValueError):
    """A well-formed move that the rules do not allow in this position."""


EXPECTED = (
    "expected S+1 card (S4), D+2 (D15), G+3 (G147), C+pair-pair (C12-47) "
    "or P+1 or 2 cards (P4, P47), cards being digits 1-7"
)


def _quoted(text: str) -> str:
    """``text`` as an error quotes it: its repr, cut short after 40 characters (a move is at
    most 7; a line of thousands, pasted by mistake, is not echoed whole)."""
    if len(text) <= 40:
        return repr(text)
    return f"{text[:30]!r}... ({len(text):,} characters)"


class Move:
    """One decision: an action with its cards, or a pick from an offer.

    ``groups`` holds the cards: one canonical string, or two pairs for a Competition.

    >>> m = Move.parse("c47-21")
    >>> m, str(m), m.cards
    (Move.parse('C12-47'), 'C12-47', '1247')
    """

    __slots__ = ("_hash", "_text", "action", "bit", "cards", "code", "groups", "picks")
    _interned: ClassVar[dict[str, Move]] = {}

    action: Action
    groups: tuple[str, ...]
    cards: str
    code: int
    bit: int
    picks: tuple[Move, ...]
    _text: str
    _hash: int

    def __new__(cls, action: Action, *groups: str) -> Move:
        """The move doing ``action`` with the given cards (canonicalised, interned)."""
        try:
            text = _canonical(action, [parse_cards(g) for g in groups])
        except CardError as e:
            raise InvalidMoveError(f"{e}; {EXPECTED}") from None
        move = cls._interned.get(text)
        if move is None:
            move = object.__new__(cls)
            groups = _split(action, text)
            cards = "".join(sorted("".join(groups)))
            fields: dict[str, object] = {
                "action": action,
                "groups": groups,
                "cards": cards,
                "code": pack(cards),
                "bit": action.bit,
                "_text": text,
                "_hash": hash(text),
            }
            for key, value in fields.items():
                object.__setattr__(move, key, value)
            object.__setattr__(move, "picks", _picks(move))
            cls._interned[text] = move
        return move

    @classmethod
    def parse(cls, text: str) -> Move:
        """Parse notation liberally (any case, spaces around, digits or pairs in any order)."""
        if not isinstance(text, str):
            raise InvalidMoveError(f"a move must be a string, got {type(text).__name__}")
        move = cls._interned.get(text)
        if move is not None:
            return move
        if not text.isascii():
            raise InvalidMoveError(f"{_quoted(text)} is not a move: {EXPECTED}")
        s = text.strip().upper()
        if not s:
            raise InvalidMoveError(f"empty move; {EXPECTED}")
        try:
            action = Action(s[0])
        except ValueError:
            raise InvalidMoveError(f"{_quoted(text)} is not a move: {EXPECTED}") from None
        body = s[1:].replace(" ", "")
        groups = body.split("-")
        try:
            cards = [parse_cards(g) for g in groups]
        except CardError:
            raise InvalidMoveError(f"{_quoted(text)} is not a move: {EXPECTED}") from None
        sizes = [len(g) for g in cards]
        ok = (
            (action is Action.COMPETITION and sizes == [2, 2])
            or (action is Action.PICK and sizes in ([1], [2]))
            or (action.value in ACTION_SIZES and sizes == [ACTION_SIZES[action.value]])
        )
        if not ok:
            raise InvalidMoveError(f"{_quoted(text)} is not a move: {EXPECTED}")
        return cls(action, *cards)

    @classmethod
    def secret(cls, card: str) -> Move:
        """``S`` + 1 card."""
        return cls.parse("S" + card)

    @classmethod
    def discard(cls, cards: str) -> Move:
        """``D`` + 2 cards."""
        return cls.parse("D" + cards)

    @classmethod
    def gift(cls, cards: str) -> Move:
        """``G`` + 3 cards."""
        return cls.parse("G" + cards)

    @classmethod
    def competition(cls, pair: str, other: str) -> Move:
        """``C`` + two pairs."""
        return cls.parse(f"C{pair}-{other}")

    @classmethod
    def pick(cls, cards: str) -> Move:
        """``P`` + the card (after a Gift) or pair (after a Competition) taken."""
        return cls.parse("P" + cards)

    @property
    def is_pick(self) -> bool:
        """Whether this is the opponent's pick from an offer."""
        return self.action is Action.PICK

    def describe(self) -> str:
        """The move in words, e.g. ``Gift: offers 1, 4, 7``."""
        a = self.action
        if a is Action.SECRET:
            return f"Secret: hides a {self.cards}"
        if a is Action.DISCARD:
            return f"Discard: discards {_words(self.cards)}"
        if a is Action.GIFT:
            return f"Gift: offers {_words(self.cards)}"
        if a is Action.COMPETITION:
            return f"Competition: offers the pairs {self.groups[0]} and {self.groups[1]}"
        return f"Pick: takes {_words(self.cards)}"

    def __str__(self) -> str:
        return self._text

    def __repr__(self) -> str:
        return f"Move.parse({self._text!r})"

    # Moves are interned (one object per canonical move, pickling included), so the default
    # identity equality and hash are value equality, and C-speed in dicts and sets.

    def __lt__(self, other: object) -> bool:
        if not isinstance(other, Move):
            return NotImplemented  # Python's TypeError names both types
        return sort_key(self) < sort_key(other)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("Move is immutable")

    def __reduce__(self) -> tuple[Any, ...]:
        return (Move.parse, (self._text,))


def _words(cards: str) -> str:
    return ", ".join(cards)


def _canonical(action: Action, groups: list[str]) -> str:
    if action is Action.COMPETITION:
        if len(groups) != 2 or any(len(g) != 2 for g in groups):
            raise InvalidMoveError(f"a Competition needs two pairs; {EXPECTED}")
        return "C" + "-".join(sorted(groups))
    if len(groups) != 1:
        raise InvalidMoveError(f"{action.title} takes one group of cards; {EXPECTED}")
    cards: str = groups[0]
    size = len(cards)
    if (action is Action.PICK and size not in (1, 2)) or (
        action is not Action.PICK and size != ACTION_SIZES[action.value]
    ):
        raise InvalidMoveError(f"wrong number of cards for {action.title}; {EXPECTED}")
    return f"{action.value}{cards}"


def _split(action: Action, text: str) -> tuple[str, ...]:
    return tuple(text[1:].split("-")) if action is Action.COMPETITION else (text[1:],)


def _picks(move: Move) -> tuple[Move, ...]:
    if move.action is Action.GIFT:
        return tuple(Move(Action.PICK, c) for c in sorted(set(move.cards)))
    if move.action is Action.COMPETITION:
        return tuple(Move(Action.PICK, g) for g in sorted(set(move.groups)))
    return ()


ORDER = {"S": 0, "D": 1, "G": 2, "C": 3, "P": 4}


def sort_key(move: Move) -> tuple[int, str]:
    """The order of legal-move lists: S, D, G, C, P, each ascending as strings."""
    return ORDER[move.action.value], str(move)


def _subsets(cards: str, k: int) -> list[str]:
    return sorted({"".join(c) for c in combinations(cards, k)})


def moves_for(hand: str, actions: str) -> tuple[Move, ...]:
    """Every distinct action move for a hand and the actions left (e.g. ``"SDGC"``), in order."""
    return action_moves(pack(parse_cards(hand, what="hand")), actions_mask(actions))


def _every(action: Action) -> tuple[tuple[Move, int], ...]:
    """Every move of an action that some hand could make, in notation order, with its code."""
    if action is Action.COMPETITION:
        found: set[Move] = set()
        for four in _subsets(ALL_CARDS, 4):
            w, x, y, z = four[0], four[1], four[2], four[3]
            for p, q in ((w + x, y + z), (w + y, x + z), (w + z, x + y)):
                found.add(Move(action, p, q))
        moves = sorted(found, key=str)
    else:
        moves = [Move(action, c) for c in _subsets(ALL_CARDS, ACTION_SIZES[action.value])]
    return tuple((m, m.code) for m in moves)


_EVERY = tuple(_every(Action(a)) for a in "SDGC")
_MASK_ACTIONS = tuple("".join(a for i, a in enumerate("SDGC") if m >> i & 1) for m in range(16))
_BY_ACTION: dict[int, tuple[Move, ...]] = {}
_LEGAL: dict[int, tuple[Move, ...]] = {}


def _action_moves(hand_code: int, index: int) -> tuple[Move, ...]:
    key = hand_code << 2 | index
    moves = _BY_ACTION.get(key)
    if moves is None:
        h = hand_code | GUARD
        moves = tuple([m for m, code in _EVERY[index] if (h - code) & GUARD == GUARD])
        _BY_ACTION[key] = moves
    return moves


def action_moves(hand_code: int, mask: int) -> tuple[Move, ...]:
    """Every distinct action move for a packed hand and an actions-left bit mask, in order.

    Results are cached: a position's legal moves are one dict lookup once seen.
    """
    key = hand_code << 4 | mask
    moves = _LEGAL.get(key)
    if moves is None:
        out: list[Move] = []
        for i in range(4):
            if mask >> i & 1:
                out.extend(_action_moves(hand_code, i))
        moves = _LEGAL[key] = tuple(out)
    return moves


def mask_actions(mask: int) -> str:
    """The actions of a bit mask as letters in S D G C order (``0b0101`` → ``"SG"``)."""
    return _MASK_ACTIONS[mask]


def actions_mask(actions: str) -> int:
    """The bit mask of a string of action letters (``"SG"`` → ``0b0101``)."""
    return sum(Action(a).bit for a in set(actions))
