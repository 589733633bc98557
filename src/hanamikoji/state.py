"""The immutable game state: deals, legal moves, applying moves, scoring, rounds and the outcome.

>>> import random
>>> state = State.new(random.Random(1))
>>> state.round, state.to_move, state.phase.value
(1, 0, 'action')
>>> state = state.apply(state.legal_moves[0])
>>> state.to_move
1

A game is created from a seed (``State.new``) or from explicit deals (``State.from_deals``), so
every game can be replayed exactly. Applying a move returns a new state; the old one is untouched.
"""

from __future__ import annotations

import enum
import json
import numbers
import operator
import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import combinations
from math import factorial
from operator import itemgetter
from typing import TYPE_CHECKING, Any, NamedTuple, SupportsIndex

from hanamikoji.cards import (
    ACTION_NAMES,
    ACTION_SIZES,
    ALL_CARDS,
    CARD_CODE,
    CHARM,
    GUARD,
    WIN_CHARM,
    WIN_GEISHA,
    CardError,
    count,
    missing_and_extra,
    pack,
    parse_cards,
    unpack,
)
from hanamikoji.moves import (
    Action,
    IllegalMoveError,
    InvalidMoveError,
    Move,
    action_moves,
    actions_mask,
    mask_actions,
)

if TYPE_CHECKING:
    from hanamikoji.record import Record
    from hanamikoji.view import View

__all__ = [
    "Deal",
    "DealError",
    "Dealer",
    "Outcome",
    "PackedSeat",
    "Phase",
    "Ply",
    "Position",
    "RoundScore",
    "Rules",
    "State",
    "Termination",
]


class Phase(enum.Enum):
    """What kind of decision is due: an action, a pick from an offer, or none (game over)."""

    ACTION = "action"
    PICK = "pick"
    OVER = "over"


class Termination(enum.Enum):
    """Why a game ended (the ``reason`` of a record's result)."""

    CHARM = "charm"
    GEISHA = "geisha"
    ROUND_LIMIT = "round-limit"
    DRAW = "draw"
    FORFEIT = "forfeit"
    RESIGN = "resign"


class DealError(ValueError):
    """A deal that is not the 21 cards split as removed 1, hands 6 + 6, pile 8."""


@dataclass(frozen=True)
class Rules:
    """Rules options. ``max_rounds``: a positive whole number, or None for no limit."""

    max_rounds: int | None = 3

    def __post_init__(self) -> None:
        m = self.max_rounds
        if m is not None and (isinstance(m, bool) or not isinstance(m, int) or m < 1):
            raise ValueError(f"max_rounds must be a positive whole number or None, got {m!r}")

    def to_json(self) -> dict[str, Any]:
        """The rules object of records and the engine protocol."""
        return {"max_rounds": self.max_rounds}

    @classmethod
    def from_json(cls, obj: Any) -> Rules:
        """Read a rules object; missing keys take their defaults, unknown keys are ignored."""
        # Said in JSON's words (null, "text", [1, 2]), as a record and the protocol write them.
        if obj is None:
            return cls()
        if not isinstance(obj, dict):
            raise ValueError(f'rules must be an object like {{"max_rounds": 3}}, got {_json(obj)}')
        max_rounds = obj.get("max_rounds", 3)
        try:
            return cls(max_rounds=max_rounds)
        except ValueError:
            raise ValueError(
                "max_rounds must be a positive whole number or null (no limit), "
                f"got {_json(max_rounds)}"
            ) from None


def _json(value: Any) -> str:
    """``value`` as JSON text, cut short for a message."""
    try:
        text = json.dumps(value)
    except (TypeError, ValueError):  # not from JSON after all
        text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


_DEFAULT_RULES = Rules()


@dataclass(frozen=True)
class Deal:
    """One round's deal: the removed card, the two hands and the draw pile (top card first)."""

    removed: str
    hands: tuple[str, str]
    deck: str
    hand_codes: tuple[int, int] = field(init=False, repr=False, compare=False)
    deck_codes: tuple[int, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        try:
            removed = parse_cards(self.removed, what="removed card")
            if not isinstance(self.hands, Sequence) or len(self.hands) != 2:
                raise DealError(f"hands must be two strings of 6 cards, got {self.hands!r}")
            hands = (
                parse_cards(self.hands[0], what="hand 0"),
                parse_cards(self.hands[1], what="hand 1"),
            )
            deck_sorted = parse_cards(self.deck, what="deck")
        except CardError as e:
            raise DealError(str(e)) from None
        deck = self.deck.strip()
        if len(removed) != 1:
            raise DealError(f"the removed card must be 1 card, got {removed!r}")
        for seat, hand in enumerate(hands):
            if len(hand) != 6:
                raise DealError(f"hand {seat} must have 6 cards, got {len(hand)} ({hand!r})")
        if len(deck) != 8:
            raise DealError(f"the deck must have 8 cards, got {len(deck)} ({deck!r})")
        missing, extra = missing_and_extra(removed + hands[0] + hands[1] + deck_sorted)
        if missing or extra:
            parts = [f"missing {missing}" if missing else "", f"extra {extra}" if extra else ""]
            raise DealError(
                "the deal is not the 21 cards "
                + ALL_CARDS
                + ": "
                + ", ".join(p for p in parts if p)
            )
        set_ = object.__setattr__
        set_(self, "removed", removed)
        set_(self, "hands", hands)
        set_(self, "deck", deck)
        set_(self, "hand_codes", (pack(hands[0]), pack(hands[1])))
        set_(self, "deck_codes", tuple(pack(c) for c in deck))

    @classmethod
    def random(cls, rng: random.Random) -> Deal:
        """A uniformly shuffled deal drawn from ``rng``."""
        # One uniform number picks the removed card and the pile in order; a second splits the
        # other 12 cards between the hands. Far cheaper than a shuffle's twenty separate draws.
        cards = list(ALL_CARDS)
        pop = cards.pop
        r = rng.randrange(_ORDERED_NINE)
        picked = []
        for i in range(21, 12, -1):
            r, j = divmod(r, i)
            picked.append(pop(j))
        # pop() keeps the rest in ascending order, so each hand comes out sorted.
        take0, take1 = _SPLITS[rng.randrange(len(_SPLITS))]
        hands = ("".join(take0(cards)), "".join(take1(cards)))
        deck = picked[1:]
        deal: Deal = object.__new__(cls)
        set_ = object.__setattr__
        set_(deal, "removed", picked[0])
        set_(deal, "hands", hands)
        set_(deal, "deck", "".join(deck))
        set_(deal, "hand_codes", (pack(hands[0]), pack(hands[1])))
        set_(deal, "deck_codes", tuple([CARD_CODE[ord(c) - 48] for c in deck]))
        return deal


_ORDERED_NINE = factorial(21) // factorial(12)
_SPLITS = tuple(
    (itemgetter(*six), itemgetter(*(i for i in range(12) if i not in six)))
    for six in combinations(range(12), 6)
)


class NoDealError(ValueError):
    """A round was reached for which no deal was given."""


class Dealer:
    """The source of each round's deal: given deals first, then (optionally) random ones.

    Deals are memoised by round, so every state of one game sees the same deal for a round
    whichever way the game went: applying a move is a pure function of the state.
    """

    __slots__ = ("_deals", "_rng")

    def __init__(self, deals: Sequence[Deal] = (), rng: random.Random | None = None) -> None:
        self._deals = list(deals)
        self._rng = rng

    def deal(self, round: int) -> Deal:
        """The deal of ``round`` (from 1)."""
        deals = self._deals
        while len(deals) < round:
            if self._rng is None:
                raise NoDealError(
                    f"no deal was given for round {len(deals) + 1}: give the state an rng "
                    "(State.from_position(..., rng=random.Random()) or "
                    "State.from_deals(deals, rng=...)) to deal the rounds after the given ones"
                )
            deals.append(Deal.random(self._rng))
        return deals[round - 1]


class Ply(NamedTuple):
    """One decision of a game: in which round, by which seat, what move."""

    round: int
    seat: int
    move: Move


class RoundScore(NamedTuple):
    """The scoring of one round: each side's cards (Secrets included) and the markers after."""

    round: int
    played: tuple[str, str]
    secrets: tuple[str, str]
    markers_before: tuple[int | None, ...]
    markers: tuple[int | None, ...]
    charm: tuple[int, int]
    geisha: tuple[int, int]


@dataclass(frozen=True)
class Outcome:
    """How a game ended: the winner (None on a draw), why, and the final standing."""

    winner: int | None
    reason: Termination
    charm: tuple[int, int]
    geisha: tuple[int, int]
    markers: tuple[int | None, ...]
    why: str | None = None

    def to_json(self) -> dict[str, Any]:
        """The ``result`` object of a record."""
        out: dict[str, Any] = {
            "winner": self.winner,
            "reason": self.reason.value,
            "charm": list(self.charm),
            "geisha": list(self.geisha),
            "markers": list(self.markers),
        }
        if self.why is not None:
            out["why"] = self.why
        return out

    def describe(self, names: Sequence[str] = ("seat 0", "seat 1")) -> str:
        """The result in words."""
        c0, c1 = self.charm
        g0, g1 = self.geisha
        tail = f"charm {c0}-{c1}, geisha {g0}-{g1}"
        if self.winner is None:
            return f"Draw after the round limit with equal charm ({tail})"
        who = names[self.winner]
        why = {
            Termination.CHARM: f"with {self.charm[self.winner]} charm",
            Termination.GEISHA: f"with {self.geisha[self.winner]} geisha",
            Termination.ROUND_LIMIT: "on charm at the round limit",
            Termination.FORFEIT: "by forfeit",
            Termination.RESIGN: "by resignation",
        }[self.reason]
        extra = f": {self.why}" if self.why else ""
        return f"{who} wins {why} ({tail}){extra}"


def standing(markers: Sequence[int | None]) -> tuple[tuple[int, int], tuple[int, int]]:
    """Charm and geisha count per seat for a marker position."""
    charm = [0, 0]
    geisha = [0, 0]
    for g, owner in enumerate(markers):
        if owner is not None:
            charm[owner] += CHARM[g]
            geisha[owner] += 1
    return (charm[0], charm[1]), (geisha[0], geisha[1])


def decide(
    markers: Sequence[int | None], round: int, rules: Rules
) -> tuple[int | None, Termination] | None:
    """The end-of-round check: (winner, reason) if the game ends here, else None."""
    return _decide(*standing(markers), round, rules)


def _decide(
    charm: tuple[int, int], geisha: tuple[int, int], round: int, rules: Rules
) -> tuple[int | None, Termination] | None:
    for seat in (0, 1):
        if charm[seat] >= WIN_CHARM:
            return seat, Termination.CHARM
    for seat in (0, 1):
        if geisha[seat] >= WIN_GEISHA:
            return seat, Termination.GEISHA
    if rules.max_rounds is not None and round >= rules.max_rounds:
        if charm[0] == charm[1]:
            return None, Termination.DRAW
        return (0 if charm[0] > charm[1] else 1), Termination.ROUND_LIMIT
    return None


class _Round:
    """What stays fixed during one round."""

    __slots__ = ("deal", "dealer", "deck_codes", "first", "number", "rules")

    def __init__(self, rules: Rules, dealer: Dealer, number: int, first: int) -> None:
        self.rules = rules
        self.dealer = dealer
        self.number = number
        self.first = first
        self.deal = dealer.deal(number)
        self.deck_codes = self.deal.deck_codes


_EMPTY = (0, 0)
_NO_MOVES: tuple[Move, ...] = ()


class PackedSeat(NamedTuple):
    """One seat's cards as packed counts (:meth:`State.packed`)."""

    hand: int
    played: int
    secret: int
    discard: int
    actions: int


_new_packed = tuple.__new__  # (a NamedTuple's own constructor parses keywords: slower)


@dataclass(frozen=True)
class Position:
    """Everything about a game going on that the rest of it depends on, as plain values: the
    state's counterpart of a FEN (``State.from_position(state.position()) == state``).

    >>> state = State.new(7)
    >>> state.position().hands
    ('2345677', '123567')
    >>> State.from_position(state.position()) == state
    True

    ``turn`` counts the turns completed this round (0..7); ``hands`` are after this turn's draw;
    ``deck`` is the undrawn pile, top first (``7 - turn`` cards); ``offer`` is a Gift or
    Competition awaiting its pick. The round's first player follows from ``round`` (seat 0 in
    odd rounds); ``rules`` are the game's (its round limit decides how it may end). What was
    dealt and drawn earlier, and the history, are not part of it.
    """

    round: int
    turn: int
    markers: tuple[int | None, ...]
    hands: tuple[str, str]
    played: tuple[str, str]
    secrets: tuple[str | None, str | None]
    discards: tuple[str | None, str | None]
    actions_left: tuple[str, str]
    offer: Move | None
    deck: str
    removed: str
    rules: Rules = _DEFAULT_RULES

    @property
    def first(self) -> int:
        """The round's first player."""
        return 0 if self.round % 2 else 1

    @property
    def to_move(self) -> int:
        """The seat whose decision is due."""
        actor = self.first ^ (self.turn & 1)
        return 1 - actor if self.offer is not None else actor


_RNG_EXPECTED = "rng must be a random.Random, a seed (a whole number >= 0) or None"


def _seed(seed: object) -> int:
    """A seed as a Python int: any integer (numpy's too, as RL code draws them), but not a
    bool (True is no seed), a float or a negative number (``random.Random(-1)`` is
    ``random.Random(1)``: refused, as the adapters refuse it)."""
    # numbers.Integral: int and numpy's integers, not a float or a numpy bool.
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral):
        raise TypeError(f"{_RNG_EXPECTED}, got {_short(seed)}")
    number = operator.index(seed)
    if number < 0:
        raise ValueError(f"{_RNG_EXPECTED}, got {_short(seed)}")
    return number


def _check_rules(rules: object) -> Rules:
    """A constructor's ``rules``: a :class:`Rules`, or None for the default ones. Checked once
    at construction, since the game reads them only later (at a round's end)."""
    if rules is None:
        return _DEFAULT_RULES
    if not isinstance(rules, Rules):
        hint = ": Rules.from_json reads a rules object" if isinstance(rules, dict) else ""
        raise TypeError(
            f"rules must be a Rules(...), e.g. Rules(max_rounds=3), or None, got "
            f"{_short(rules)} ({type(rules).__name__}){hint}"
        )
    return rules


def _check_deals(deals: object) -> list[Deal]:
    """``from_deals``'s deals as a list: a sequence of :class:`Deal` objects (one per round)."""
    expected = "deals must be a sequence of Deal objects, one per round (e.g. [Deal(...)])"
    if isinstance(deals, str | bytes | Deal):
        raise TypeError(f"{expected}, got {_short(deals)} ({type(deals).__name__})")
    try:
        given: list[Deal] = list(deals)  # type: ignore[call-overload]
    except TypeError:
        raise TypeError(f"{expected}, got {_short(deals)} ({type(deals).__name__})") from None
    for i, deal in enumerate(given):
        if not isinstance(deal, Deal):
            raise TypeError(f"{expected}: deal {i} is {_short(deal)} ({type(deal).__name__})")
    return given


def _short(value: object) -> str:
    """``repr(value)``, cut short for a message."""
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _seat(seat: object) -> None:
    """Refuse anything but the seat 0 or 1: a whole number (numpy's too), not True, not -1
    (which would index the other seat's cards), not 5."""
    if seat.__class__ is int and 0 <= seat <= 1:
        return
    if isinstance(seat, bool) or not isinstance(seat, numbers.Integral) or seat not in (0, 1):
        raise ValueError(f"seat must be 0 or 1, got {seat!r}")


class State:
    """A position in a game of Hanamikoji, immutable.

    Read it through its properties (``to_move``, ``phase``, ``legal_moves``, ``hand(seat)`` ...),
    move on with ``apply``. ``view(seat)`` is what one seat may know; ``record()`` the whole game.
    """

    __slots__ = (
        "_actions",
        "_discards",
        "_hands",
        "_markers",
        "_move",
        "_offer",
        "_outcome",
        "_phase",
        "_played",
        "_prev",
        "_r",
        "_scorings",
        "_secrets",
        "_seen",
        "_to_move",
        "_turn",
    )

    _r: _Round
    _markers: tuple[int | None, ...]
    _turn: int
    _hands: tuple[int, int]
    _played: tuple[int, int]
    _secrets: tuple[int, int]
    _discards: tuple[int, int]
    _actions: tuple[int, int]
    _offer: Move | None
    _to_move: int | None
    _phase: Phase
    _prev: State | None
    _move: Move | None
    _outcome: Outcome | None
    _seen: dict[int, tuple[Any, ...]]
    """Per seat, the history as that seat saw it (filled in lazily by the view module)."""
    _scorings: tuple[RoundScore, ...]

    def __init__(self) -> None:
        raise TypeError("create a game with State.new(rng) or State.from_deals(deals)")

    # -- creation --------------------------------------------------------------------------

    @classmethod
    def new(
        cls, rng: random.Random | SupportsIndex | None = None, *, rules: Rules | None = None
    ) -> State:
        """A new game whose deals are drawn from ``rng``: a ``random.Random``, a seed (a whole
        number >= 0, a numpy integer too) or None (a fresh random one)."""
        if rng is None:
            rng = random.Random()
        elif not isinstance(rng, random.Random):
            rng = random.Random(_seed(rng))
        return _start(_check_rules(rules), Dealer((), rng), 1, 0, (None,) * 7, None, None, ())

    @classmethod
    def from_deals(
        cls,
        deals: Sequence[Deal],
        *,
        rules: Rules | None = None,
        rng: random.Random | None = None,
        markers: Sequence[int | None] | None = None,
    ) -> State:
        """A new game with explicit deals, one per round (then random ones from ``rng``, if given).

        ``markers`` optionally starts round 1 from a marker position other than all neutral.
        """
        start = tuple(markers) if markers is not None else (None,) * 7
        if len(start) != 7 or any(
            (m is not None and type(m) is not int) or m not in (None, 0, 1) for m in start
        ):
            raise ValueError(f"markers must be 7 entries of 0, 1 or None, got {markers!r}")
        given = _check_deals(deals)
        if rng is not None and not isinstance(rng, random.Random):
            raise TypeError(f"rng must be a random.Random or None, got {rng!r}")
        return _start(_check_rules(rules), Dealer(given, rng), 1, 0, start, None, None, ())

    @classmethod
    def from_position(
        cls,
        position: Position | None = None,
        /,
        *,
        turn: int = 0,
        hands: tuple[str, str] = ("", ""),
        actions_left: tuple[str, str] = ("SDGC", "SDGC"),
        deck: str = "",
        removed: str = "",
        round: int = 1,
        markers: Sequence[int | None] = (None,) * 7,
        played: tuple[str, str] = ("", ""),
        secrets: tuple[str | None, str | None] = (None, None),
        discards: tuple[str | None, str | None] = (None, None),
        offer: Move | str | None = None,
        rules: Rules | None = None,
        rng: random.Random | None = None,
        check: bool = True,
    ) -> State:
        """A state in the middle of a round, from a :class:`Position` or from its parts given as
        keywords (the Position's fields); it has no history.

        ``turn`` counts the turns completed this round, ``hands`` are after this turn's draw,
        ``deck`` is the undrawn pile (top first, ``7 - turn`` cards) and ``offer`` a Gift or
        Competition awaiting its pick; ``rules`` given override the Position's. Later rounds are
        dealt from ``rng``. With ``check`` the parts must be consistent (the 21 cards, hand
        sizes, actions); searches that build many positions from known-good parts may skip it.
        """
        if position is not None:
            if not isinstance(position, Position):
                raise TypeError(
                    "position must be a Position (state.position()), or left out with its parts "
                    f"given as keywords, got {_short(position)} ({type(position).__name__})"
                )
            p = position
            turn, hands, actions_left, deck, removed = (
                p.turn,
                p.hands,
                p.actions_left,
                p.deck,
                p.removed,
            )
            round, markers, played, secrets, discards, offer = (
                p.round,
                p.markers,
                p.played,
                p.secrets,
                p.discards,
                p.offer,
            )
            rules = p.rules if rules is None else rules
        move = Move.parse(offer) if isinstance(offer, str) else offer
        first = 0 if round % 2 else 1
        actor = first ^ (turn & 1)
        if rules is None or rules.__class__ is not Rules:  # (the searches give Rules: no call)
            rules = _check_rules(rules)
        if check:
            if rng is not None and not isinstance(rng, random.Random):
                raise TypeError(f"rng must be a random.Random or None, got {_short(rng)}")
            if position is None and not removed and not deck and hands == ("", ""):
                # Nothing given at all (from_position() or from_position(None)): say what is
                # expected rather than that the (default) empty pile is too short.
                raise TypeError(
                    "from_position needs a Position (state.position()) or its parts as "
                    "keywords (turn=, hands=, deck=, removed=, ...), got neither"
                )
            _check_position(
                round,
                turn,
                hands,
                actions_left,
                deck,
                removed,
                markers,
                played,
                secrets,
                discards,
                move,
                actor,
            )
        # The round's deal is rebuilt only as far as the rest of the round needs it: the pile
        # from this turn on. What was dealt and drawn before is not known here.
        drawn = ALL_CARDS[: turn + 1]
        deal: Deal = object.__new__(Deal)
        set_ = object.__setattr__
        set_(deal, "removed", removed)
        set_(deal, "hands", hands)
        set_(deal, "deck", drawn + deck)
        set_(deal, "hand_codes", (pack(hands[0]), pack(hands[1])))
        set_(deal, "deck_codes", tuple([CARD_CODE[ord(c) - 48] for c in drawn + deck]))
        dealer = Dealer([deal] * round, rng)
        s: State = _new_state(State)
        s._r = _Round(rules, dealer, round, first)
        s._markers = tuple(markers)
        s._turn = turn
        s._hands = (pack(hands[0]), pack(hands[1]))
        s._played = (pack(played[0]), pack(played[1]))
        s._secrets = (pack(secrets[0] or ""), pack(secrets[1] or ""))
        s._discards = (pack(discards[0] or ""), pack(discards[1] or ""))
        s._actions = (actions_mask(actions_left[0]), actions_mask(actions_left[1]))
        s._offer = move
        s._to_move = 1 - actor if move is not None else actor
        s._phase = Phase.PICK if move is not None else Phase.ACTION
        s._prev = None
        s._move = None
        s._outcome = None
        s._scorings = ()
        return s

    # -- reading ---------------------------------------------------------------------------

    @property
    def to_move(self) -> int | None:
        """The seat whose decision is due, or None when the game is over."""
        return self._to_move

    @property
    def phase(self) -> Phase:
        """What kind of decision is due: an action, a pick, or none (over)."""
        return self._phase

    @property
    def offer(self) -> Move | None:
        """The Gift or Competition being answered (phase PICK), else None."""
        return self._offer

    @property
    def markers(self) -> tuple[int | None, ...]:
        """Owner of each geisha's marker (index 0 is geisha 1): 0, 1, or None for neutral."""
        return self._markers

    @property
    def turn(self) -> int:
        """Turns completed in this round (0..8); a turn ends after its pick, if any."""
        return self._turn

    @property
    def rules(self) -> Rules:
        """The rules options of this game."""
        return self._r.rules

    @property
    def round(self) -> int:
        """The current round, from 1."""
        return self._r.number

    @property
    def first(self) -> int:
        """The first player of the current round."""
        return self._r.first

    @property
    def deal(self) -> Deal:
        """The current round's deal (hidden information: for referees, not for players)."""
        return self._r.deal

    @property
    def deals(self) -> tuple[Deal, ...]:
        """The deals of every round so far, round 1 first."""
        dealer = self._r.dealer
        return tuple(dealer.deal(r) for r in range(1, self._r.number + 1))

    @property
    def actor(self) -> int:
        """The seat whose turn it is (in phase PICK, the one who made the offer)."""
        return self._r.first ^ (self._turn & 1)

    @property
    def is_over(self) -> bool:
        """Whether the game has ended."""
        return self._to_move is None

    @property
    def outcome(self) -> Outcome | None:
        """The outcome, or None while the game goes on."""
        return self._outcome

    @property
    def legal_moves(self) -> tuple[Move, ...]:
        """Every legal move, each distinct outcome once, ordered S, D, G, C, P."""
        seat = self._to_move
        if seat is None:
            return _NO_MOVES
        offer = self._offer
        if offer is not None:
            return offer.picks
        return action_moves(self._hands[seat], self._actions[seat])

    def is_legal(self, move: Move) -> bool:
        """Whether ``move`` may be played now."""
        return move in self.legal_moves

    def hand(self, seat: int) -> str:
        """The cards in ``seat``'s hand (for the acting player, after this turn's draw)."""
        _seat(seat)
        return unpack(self._hands[seat])

    def played(self, seat: int) -> str:
        """The cards on ``seat``'s side this round (the Secret joins at scoring)."""
        _seat(seat)
        return unpack(self._played[seat])

    def secret(self, seat: int) -> str | None:
        """``seat``'s Secret card this round, or None."""
        _seat(seat)
        code = self._secrets[seat]
        return unpack(code) if code else None

    def discard(self, seat: int) -> str | None:
        """``seat``'s two discarded cards this round, or None."""
        _seat(seat)
        code = self._discards[seat]
        return unpack(code) if code else None

    def actions_left(self, seat: int) -> str:
        """``seat``'s unused actions, in the order S D G C (e.g. ``"DC"``)."""
        _seat(seat)
        return mask_actions(self._actions[seat])

    def packed(self, seat: int) -> PackedSeat:
        """``seat``'s card sets packed as :func:`hanamikoji.cards.pack` packs them, and its
        actions left as a bit mask (S 1, D 2, G 4, C 8): what ``hand``, ``played``, ``secret``,
        ``discard`` and ``actions_left`` give as text, for code that counts cards in bulk
        (encoders, playouts). An empty set, or no Secret or Discard yet, is 0."""
        _seat(seat)
        return _new_packed(
            PackedSeat,
            (
                self._hands[seat],
                self._played[seat],
                self._secrets[seat],
                self._discards[seat],
                self._actions[seat],
            ),
        )

    def position(self) -> Position:
        """The position of a game going on, as plain values (see :class:`Position`); raises
        ValueError for a finished game, which has no decision left to make."""
        if self._to_move is None:
            raise ValueError("the game is over: it has no position to go on from")
        turn = self._turn
        s0, s1 = self._secrets
        d0, d1 = self._discards
        return Position(
            round=self._r.number,
            turn=turn,
            markers=self._markers,
            hands=(unpack(self._hands[0]), unpack(self._hands[1])),
            played=(unpack(self._played[0]), unpack(self._played[1])),
            secrets=(unpack(s0) if s0 else None, unpack(s1) if s1 else None),
            discards=(unpack(d0) if d0 else None, unpack(d1) if d1 else None),
            actions_left=(mask_actions(self._actions[0]), mask_actions(self._actions[1])),
            offer=self._offer,
            deck=self._r.deal.deck[turn + 1 :],
            removed=self._r.deal.removed,
            rules=self.rules,
        )

    def _key(self) -> tuple[Any, ...]:
        if self._to_move is None:
            return (self.rules, self._r.number, self._outcome)
        return (self.rules, self.position())

    def __eq__(self, other: object) -> bool:
        """Equal states have the same rules and position (or outcome), whatever led there."""
        if not isinstance(other, State):
            return NotImplemented
        return self is other or self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    @property
    def deck_left(self) -> int:
        """Cards left in the draw pile (after this turn's draw)."""
        return max(0, 7 - self._turn) if self._turn < 8 else 0

    @property
    def charm(self) -> tuple[int, int]:
        """Charm per seat from the markers."""
        return standing(self._markers)[0]

    @property
    def geisha(self) -> tuple[int, int]:
        """Geisha count per seat from the markers."""
        return standing(self._markers)[1]

    @property
    def parent(self) -> State | None:
        """The state before the last move (None at the start of the game)."""
        return self._prev

    @property
    def last_move(self) -> Move | None:
        """The move that led here (None at the start of the game)."""
        return self._move

    @property
    def history(self) -> tuple[Ply, ...]:
        """Every decision so far, oldest first."""
        out = []
        s: State | None = self
        while s is not None and s._prev is not None:
            prev = s._prev
            assert prev._to_move is not None and s._move is not None
            out.append(Ply(prev.round, prev._to_move, s._move))
            s = prev
        out.reverse()
        return tuple(out)

    @property
    def scorings(self) -> tuple[RoundScore, ...]:
        """The scoring of every round completed so far."""
        return self._scorings

    def view(self, seat: int) -> View:
        """Everything ``seat`` may know (interfaces.md §2)."""
        from hanamikoji.view import View

        return View.of(self, seat)

    def record(self, players: Sequence[str] = ("seat 0", "seat 1")) -> Record:
        """The game record (hanamikoji-record/1) of this game so far."""
        from hanamikoji.record import Record

        return Record.of(self, players)

    def __repr__(self) -> str:
        if self._outcome is not None:
            return f"<State over: {self._outcome.describe()}>"
        return (
            f"<State round {self.round} turn {self._turn + 1} {self._phase.value}"
            f" seat {self._to_move}"
            f" hands {self.hand(0)!r}/{self.hand(1)!r} markers {list(self._markers)}>"
        )

    # -- moving on -------------------------------------------------------------------------

    def apply(self, move: Move | str) -> State:
        """The state after ``move`` (a Move or its notation).

        Raises InvalidMoveError for text that is not a move and IllegalMoveError for a move the
        rules forbid here; both are ValueErrors and say why.
        """
        if type(move) is not Move:
            move = _coerce(move)
        seat = self._to_move
        offer = self._offer
        if offer is None:
            bit = move.bit
            if seat is None or not bit & self._actions[seat]:
                raise IllegalMoveError(self._why_illegal(move))
            hands = self._hands
            rest = (hands[seat] | GUARD) - move.code
            if rest & GUARD != GUARD:
                raise IllegalMoveError(self._why_illegal(move))
            rest -= GUARD
            a = self._actions
            c = _new_state(State)
            c._r = self._r
            c._markers = self._markers
            c._played = self._played
            c._prev = self
            c._move = move
            c._outcome = None
            c._scorings = self._scorings
            if seat:
                h0, h1 = hands[0], rest
                c._actions = (a[0], a[1] ^ bit)
            else:
                h0, h1 = rest, hands[1]
                c._actions = (a[0] ^ bit, a[1])
            if bit > 2:  # Gift or Competition: the opponent picks before the turn ends
                c._secrets = self._secrets
                c._discards = self._discards
                c._turn = self._turn
                c._hands = (h0, h1)
                c._offer = move
                c._to_move = 1 - seat
                c._phase = Phase.PICK
                return c
            if bit == 1:
                c._secrets = _set(self._secrets, seat, move.code)
                c._discards = self._discards
            else:
                c._secrets = self._secrets
                c._discards = _set(self._discards, seat, move.code)
            c._offer = None
            return c._end_turn(self._turn + 1, h0, h1)
        if move not in offer.picks:
            raise IllegalMoveError(self._why_illegal(move))
        c = self._child(move)
        played = self._played
        take = move.code
        give = offer.code - take
        if seat:
            c._played = (played[0] + give, played[1] + take)
        else:
            c._played = (played[0] + take, played[1] + give)
        c._offer = None
        hands = self._hands
        return c._end_turn(self._turn + 1, hands[0], hands[1])

    def concede(
        self, seat: int, reason: Termination = Termination.RESIGN, why: str | None = None
    ) -> State:
        """The game ended now by ``seat`` resigning or forfeiting: the other seat wins."""
        if reason not in (Termination.RESIGN, Termination.FORFEIT):
            raise ValueError(
                f"a game can only be conceded by resign or forfeit, not {reason.value}"
            )
        _seat(seat)
        if self._to_move is None:
            raise IllegalMoveError("the game is already over")
        c = self._child(None)
        c._prev = self._prev
        c._move = self._move
        charm, geisha = standing(self._markers)
        c._end(Outcome(1 - seat, reason, charm, geisha, self._markers, why))
        return c

    # -- internals -------------------------------------------------------------------------

    def _child(self, move: Move | None) -> State:
        c = _new_state(State)
        c._r = self._r
        c._markers = self._markers
        c._turn = self._turn
        c._hands = self._hands
        c._played = self._played
        c._secrets = self._secrets
        c._discards = self._discards
        c._actions = self._actions
        c._offer = self._offer
        c._to_move = self._to_move
        c._phase = self._phase
        c._prev = self
        c._move = move
        c._outcome = None
        c._scorings = self._scorings
        return c

    def _end_turn(self, turn: int, h0: int, h1: int) -> State:
        """Finish a turn on this fresh child: the next player draws, or the round is scored."""
        self._turn = turn
        if turn == 8:
            self._hands = (h0, h1)
            return self._score()
        r = self._r
        actor = r.first ^ (turn & 1)
        card = r.deck_codes[turn]
        self._hands = (h0 + card, h1) if actor == 0 else (h0, h1 + card)
        self._to_move = actor
        self._phase = Phase.ACTION
        return self

    def _score(self) -> State:
        r = self._r
        p0 = self._played[0] + self._secrets[0]
        p1 = self._played[1] + self._secrets[1]
        before = self._markers
        markers = list(before)
        for g in range(7):
            a = (p0 >> (4 * g)) & 15
            b = (p1 >> (4 * g)) & 15
            if a > b:
                markers[g] = 0
            elif b > a:
                markers[g] = 1
        after = tuple(markers)
        charm, geisha = standing(after)
        score = RoundScore(
            r.number,
            (unpack(p0), unpack(p1)),
            (unpack(self._secrets[0]), unpack(self._secrets[1])),
            before,
            after,
            charm,
            geisha,
        )
        self._markers = after
        self._scorings = (*self._scorings, score)
        self._hands = _EMPTY
        self._played = (p0, p1)
        ended = _decide(charm, geisha, r.number, r.rules)
        if ended is not None:
            self._end(Outcome(ended[0], ended[1], charm, geisha, after))
            return self
        return _start(
            r.rules,
            r.dealer,
            r.number + 1,
            1 - r.first,
            after,
            self._prev,
            self._move,
            self._scorings,
        )

    def _end(self, outcome: Outcome) -> None:
        self._outcome = outcome
        self._to_move = None
        self._offer = None
        self._phase = Phase.OVER
        self._hands = _EMPTY
        self._actions = _EMPTY

    def _why_illegal(self, move: Move) -> str:
        head = f"{move} is illegal: "
        seat = self._to_move
        if seat is None:
            return head + "the game is over"
        offer = self._offer
        if offer is not None:
            options = ", ".join(str(p) for p in offer.picks)
            if move.action is not Action.PICK:
                what = f"the {offer.action.title} {offer}"
                return head + f"seat {seat} must first answer {what} with a pick ({options})"
            return head + f"it is not a choice of the offer {offer}; pick one of {options}"
        if move.action is Action.PICK:
            return head + "there is no offer to pick from"
        if not move.bit & self._actions[seat]:
            left = self.actions_left(seat) or "none"
            used = move.action.title
            return head + f"seat {seat} has already used its {used} this round (left: {left})"
        return head + _short_of(self.hand(seat), move)


_NUMBERS = ("no", "one", "two", "three", "four", "five")


def _short_of(hand: str, move: Move) -> str:
    """What ``hand`` lacks for ``move``, in words for whoever holds it (a player reads it as
    their own hand, a referee as a seat's): ``the hand 2345677 holds one 2; D22 needs two``."""
    short = [c for c in sorted(set(move.cards)) if move.cards.count(c) > hand.count(c)]
    if not any(c in hand for c in short):  # none of them there at all
        return f"the hand {hand} does not hold {' or '.join(short)}"

    def cards(c: str, n: int) -> str:
        return f"{_NUMBERS[n]} {c}{'s' if n != 1 else ''}"

    held = " and ".join(cards(c, hand.count(c)) for c in short)
    if len(short) == 1:
        needed = _NUMBERS[move.cards.count(short[0])]
    else:
        needed = " and ".join(cards(c, move.cards.count(c)) for c in short)
    return f"the hand {hand} holds {held}; {move} needs {needed}"


def cards_lacking(hand: str, cards: str) -> str:
    """The cards of ``cards`` that ``hand`` lacks (with multiplicity)."""
    code = pack(hand)
    lacking: list[str] = []
    for c in sorted(set(cards)):
        need = cards.count(c) - count(code, int(c))
        lacking.extend(c * max(0, need))
    return "".join(lacking)


_new_state = object.__new__


def _set(pair: tuple[int, int], seat: int, value: int) -> tuple[int, int]:
    return (pair[0], value) if seat else (value, pair[1])


def _coerce(move: object) -> Move:
    if isinstance(move, str):
        return Move.parse(move)
    raise InvalidMoveError(f"a move must be a Move or its notation, got {type(move).__name__}")


def _check_position(
    round: int,
    turn: int,
    hands: tuple[str, str],
    actions_left: tuple[str, str],
    deck: str,
    removed: str,
    markers: Sequence[int | None],
    played: tuple[str, str],
    secrets: tuple[str | None, str | None],
    discards: tuple[str | None, str | None],
    offer: Move | None,
    actor: int,
) -> None:
    """Raise ValueError unless the parts of a mid-round position fit together."""
    if not (isinstance(round, int) and round >= 1):
        raise ValueError(f"round must be 1 or more, got {round!r}")
    if not (isinstance(turn, int) and 0 <= turn <= 7):
        raise ValueError(f"turn must be 0..7 (turns completed this round), got {turn!r}")
    if len(markers) != 7 or any(m not in (None, 0, 1) for m in markers):
        raise ValueError(f"markers must be 7 entries of 0, 1 or None, got {markers!r}")
    if len(deck) != 7 - turn:
        raise ValueError(f"after {turn} turns the pile holds {7 - turn} cards, got {deck!r}")
    if offer is not None and offer.action not in (Action.GIFT, Action.COMPETITION):
        raise ValueError(f"an offer is a Gift or a Competition, got {offer}")
    cards = removed + deck + offer.cards if offer is not None else removed + deck
    for seat in (0, 1):
        cards += hands[seat] + played[seat] + (secrets[seat] or "") + (discards[seat] or "")
        left = actions_left[seat]
        if not set(left) <= set("SDGC") or len(set(left)) != len(left):
            raise ValueError(f"actions_left[{seat}] must be letters of SDGC, got {left!r}")
        turns_taken = sum(1 for t in range(turn) if first_actor(actor, turn, t) == seat)
        pending = 1 if offer is not None and seat == actor else 0
        if 4 - len(left) != turns_taken + pending:
            raise ValueError(
                f"seat {seat} has taken {turns_taken + pending} actions by turn {turn + 1}, "
                f"but its actions left are {left!r}"
            )
        if offer is not None and seat == actor and offer.action.value in left:
            raise ValueError(f"seat {seat} offers {offer} but still has that action left")
        for letter, held in (("S", secrets[seat]), ("D", discards[seat])):
            if (held is not None) == (letter in left):
                raise ValueError(f"seat {seat}'s {ACTION_NAMES[letter]} and actions left disagree")
        draws = sum(1 for t in range(turn + 1) if first_actor(actor, turn, t) == seat)
        used = sum(ACTION_SIZES[a] for a in "SDGC" if a not in left)
        if len(hands[seat]) != 6 + draws - used:
            raise ValueError(
                f"seat {seat} should hold {6 + draws - used} cards at this point, "
                f"got {hands[seat]!r}"
            )
    missing, extra = missing_and_extra(parse_cards(cards))
    if missing or extra:
        raise ValueError(f"the position is not the 21 cards: missing {missing!r}, extra {extra!r}")


def first_actor(actor: int, turn: int, t: int) -> int:
    """The seat acting at turn ``t`` of a round whose turn ``turn`` is ``actor``'s."""
    return actor ^ ((turn - t) & 1)


def _start(
    rules: Rules,
    dealer: Dealer,
    number: int,
    first: int,
    markers: tuple[int | None, ...],
    prev: State | None,
    move: Move | None,
    scorings: tuple[RoundScore, ...],
) -> State:
    """The first state of a round: dealt, and the first player has drawn."""
    r = _Round(rules, dealer, number, first)
    s: State = _new_state(State)
    s._r = r
    s._markers = markers
    s._turn = 0
    h = r.deal.hand_codes
    card = r.deck_codes[0]
    s._hands = (h[0] + card, h[1]) if first == 0 else (h[0], h[1] + card)
    s._played = _EMPTY
    s._secrets = _EMPTY
    s._discards = _EMPTY
    s._actions = (15, 15)
    s._offer = None
    s._to_move = first
    s._phase = Phase.ACTION
    s._prev = prev
    s._move = move
    s._outcome = None
    s._scorings = scorings
    return s


__all__ += ["IllegalMoveError", "InvalidMoveError", "NoDealError", "decide", "standing"]
