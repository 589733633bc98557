"""The rules of Hanamikoji and its variants as OpenSpiel plays them: a game of explicit chance
nodes, dealt card by card, for any charms (2 to 9 geisha) and any set of actions.

Plain Python, without pyspiel: :mod:`hanamikoji.env.openspiel` wraps it as an OpenSpiel game,
and the tests play it against :mod:`hanamikoji.state` without OpenSpiel installed. A
:class:`Variant` holds the rules (charms, actions, round limit, every move); a :class:`Table`
is one position, never changed once built: :func:`initial` starts a game, :func:`chance`
deals a card, :func:`decide` plays a decision. The parameters, the action numbering and the
chance model are described in :mod:`hanamikoji.env.openspiel`.
"""

from __future__ import annotations

import random
import re
from itertools import combinations
from typing import Any

from hanamikoji.env.observation import fields

__all__ = [
    "ACTION",
    "DEAL",
    "DEFAULT_ACTIONS",
    "DEFAULT_CHARMS",
    "DRAW",
    "OVER",
    "PICK",
    "Counts",
    "Table",
    "Variant",
    "chance",
    "decide",
    "initial",
    "replay",
    "resample",
    "text_of",
    "variant_of",
]

DEFAULT_CHARMS = "2:2:2:3:3:4:5"
"""The standard game's charms (geisha 1..7)."""

DEFAULT_ACTIONS = "SDGC"
"""The standard game's four actions."""

_SIZES = {"S": 1, "D": 2, "G": 3, "C": 4}
_ORDER = {"S": 0, "D": 1, "G": 2, "C": 3, "P": 4}
NOMINAL_ROUNDS = 100

# Stages of a position.
DEAL, DRAW, ACTION, PICK, OVER = range(5)


Counts = tuple[int, ...]


def _add(a: Counts, b: Counts) -> Counts:
    return tuple([x + y for x, y in zip(a, b, strict=True)])


def _sub(a: Counts, b: Counts) -> Counts:
    return tuple([x - y for x, y in zip(a, b, strict=True)])


def text_of(c: Counts) -> str:
    return "".join(str(g + 1) * k for g, k in enumerate(c))


class _Move:
    """One distinct move of a variant: its letter, notation, cards and groups (as counts)."""

    __slots__ = ("cards", "groups", "letter", "text")

    def __init__(self, letter: str, groups: tuple[str, ...], n: int) -> None:
        self.letter = letter
        self.text = letter + "-".join(groups)
        self.groups: tuple[Counts, ...] = tuple(_counts_of(g, n) for g in groups)
        self.cards: Counts = _counts_of("".join(groups), n)


def _counts_of(cards: str, n: int) -> Counts:
    out = [0] * n
    for c in cards:
        out[int(c) - 1] += 1
    return tuple(out)


class Variant:
    """The rules parameters of one game, validated, with everything derived from them.

    ``Variant(1, "2:3:4", "SG")`` is a 9-card game of one round where each player holds 2
    cards, draws 2 and plays a Secret and a Gift. Raises ``ValueError`` (saying why) for
    parameters that are malformed or don't add up. Besides the parameters it holds the hand
    size, the win thresholds, every distinct move (``moves``, by action number) and the sizes
    of the tensors.
    """

    def __init__(
        self, max_rounds: int = 3, charms: str = DEFAULT_CHARMS, actions: str = DEFAULT_ACTIONS
    ) -> None:
        if isinstance(max_rounds, bool) or not isinstance(max_rounds, int) or max_rounds < 0:
            raise ValueError(
                f"max_rounds must be a whole number, 0 for no limit, got {max_rounds!r}"
            )
        if not isinstance(charms, str):
            raise ValueError(f"charms must be a string like {DEFAULT_CHARMS!r}, got {charms!r}")
        try:
            charm = tuple(int(part) for part in re.split(r"[:,/\s-]+", charms.strip()))
        except ValueError:
            raise ValueError(
                f"charms must be whole numbers separated by colons (or commas), like "
                f"{DEFAULT_CHARMS!r}, got {charms!r}"
            ) from None
        if not 2 <= len(charm) <= 9:
            raise ValueError(f"charms must name 2 to 9 geisha, got {len(charm)} in {charms!r}")
        if any(not 1 <= c <= 9 for c in charm):
            raise ValueError(f"every geisha's charm must be 1 to 9, got {charms!r}")
        if not isinstance(actions, str):
            raise ValueError(f"actions must be a string of letters of SDGC, got {actions!r}")
        letters = actions.strip().upper()
        if (
            not letters
            or any(a not in _SIZES for a in letters)
            or len(set(letters)) != len(letters)
        ):
            raise ValueError(
                f"actions must be distinct letters of SDGC (at least one), got {actions!r}"
            )
        letters = "".join(a for a in "SDGC" if a in letters)
        total = sum(charm)
        n_actions = len(letters)
        used = sum(_SIZES[a] for a in letters)
        if total != 1 + 2 * used:
            raise ValueError(
                f"the variant does not add up: with actions {letters} each player plays "
                f"{used} cards a round (S1 D2 G3 C4), its hand of h cards and its "
                f"{n_actions} draws, so h = {used - n_actions} and the game needs "
                f"1 + 2 x {used} = {1 + 2 * used} cards; the charms {charms!r} give {total}"
            )
        self.max_rounds = max_rounds
        self.charms: Counts = charm
        self.charms_text = ":".join(str(c) for c in charm)
        self.actions = letters
        self.n = len(charm)
        self.total_cards = total
        self.num_actions_each = n_actions
        self.hand_size = used - n_actions
        self.turns = 2 * n_actions
        self.win_charm = total // 2 + 1
        self.win_geisha = self.n // 2 + 1
        self.deal_steps = 1 + 2 * self.hand_size
        picks_each = sum(1 for a in letters if a in "GC")
        self.round_length = self.turns + 2 * picks_each
        self.chance_per_round = self.deal_steps + self.turns
        self.moves: tuple[_Move, ...] = self._all_moves()
        self.ids: dict[str, int] = {m.text: i for i, m in enumerate(self.moves)}
        self.by_letter: dict[str, tuple[tuple[int, Counts], ...]] = {
            a: tuple((i, m.cards) for i, m in enumerate(self.moves) if m.letter == a)
            for a in letters
        }
        self.picks: dict[int, tuple[int, ...]] = {
            i: self._picks_of(m) for i, m in enumerate(self.moves) if m.letter in "GC"
        }
        self.obs_fields = tuple((name, k) for name, k, _ in fields(self.n))
        self.obs_size = sum(k for _, k in self.obs_fields)
        self.turn_size = 4 + 3 * self.n
        self.block_size = self.n + n_actions * self.n + self.turns * self.turn_size + 2 * self.n
        self.info_size = self.obs_size + 2 + max_rounds * self.block_size
        self._legal: dict[tuple[Counts, str], list[int]] = {}

    def __deepcopy__(self, memo: dict[int, Any]) -> Variant:
        return self  # immutable once built: states share it

    def __reduce__(self) -> tuple[Any, ...]:
        return (variant_of, (self.max_rounds, self.charms_text, self.actions))

    @property
    def params(self) -> dict[str, Any]:
        """The pyspiel parameters of this variant."""
        return {"max_rounds": self.max_rounds, "charms": self.charms_text, "actions": self.actions}

    def _all_moves(self) -> tuple[_Move, ...]:
        cards = "".join(str(g + 1) * c for g, c in enumerate(self.charms))
        subsets = {k: sorted({"".join(c) for c in combinations(cards, k)}) for k in (1, 2, 3, 4)}
        texts: dict[str, _Move] = {}
        for a in self.actions:
            if a == "C":
                for four in subsets[4]:
                    w, x, y, z = four[0], four[1], four[2], four[3]
                    for p, q in ((w + x, y + z), (w + y, x + z), (w + z, x + y)):
                        pair = tuple(sorted((p, q)))
                        m = _Move("C", pair, self.n)
                        texts[m.text] = m
            else:
                for s in subsets[_SIZES[a]]:
                    m = _Move(a, (s,), self.n)
                    texts[m.text] = m
        if "G" in self.actions:
            for s in subsets[1]:
                texts["P" + s] = _Move("P", (s,), self.n)
        if "C" in self.actions:
            for s in subsets[2]:
                texts["P" + s] = _Move("P", (s,), self.n)
        return tuple(sorted(texts.values(), key=lambda m: (_ORDER[m.letter], m.text)))

    def _picks_of(self, offer: _Move) -> tuple[int, ...]:
        body = offer.text[1:]
        options = set(body) if offer.letter == "G" else set(body.split("-"))
        return tuple(sorted(self.ids["P" + o] for o in options))

    def legal(self, hand: Counts, left: str) -> list[int]:
        """The action numbers open to a hand with the actions ``left``, ascending."""
        key = (hand, left)
        found = self._legal.get(key)
        if found is None:
            found = []
            for a in left:
                for i, cards in self.by_letter[a]:
                    if all(c <= h for c, h in zip(cards, hand, strict=True)):
                        found.append(i)
            self._legal[key] = found
        return found

    def standing(self, markers: Counts) -> tuple[tuple[int, int], tuple[int, int]]:
        """Charm and geisha count per seat for markers (-1 neutral, 0 or 1 the owner)."""
        charm = [0, 0]
        geisha = [0, 0]
        for g, owner in enumerate(markers):
            if owner >= 0:
                charm[owner] += self.charms[g]
                geisha[owner] += 1
        return (charm[0], charm[1]), (geisha[0], geisha[1])


_VARIANTS: dict[tuple[int, str, str], Variant] = {}


def variant_of(max_rounds: int, charms: str, actions: str) -> Variant:
    """The variant of these parameters, built once per process for each canonical spelling."""
    plain = type(max_rounds) is int and type(charms) is str and type(actions) is str
    v = _VARIANTS.get((max_rounds, charms, actions)) if plain else None
    if v is None:
        v = Variant(max_rounds, charms, actions)
        v = _VARIANTS.setdefault((v.max_rounds, v.charms_text, v.actions), v)
    return v


class Table:
    """Everything about a position; never changed once built (each move builds a new one).

    Being immutable, a position is shared, not copied, when pyspiel clones a state, and it
    keeps the information-state strings computed from it (``memo``).
    """

    v: Variant
    round: int
    first: int
    markers: Counts
    stage: int
    dealt: int
    removed: int
    deck: Counts
    hands: tuple[Counts, Counts]
    turn: int
    played: tuple[Counts, Counts]
    secrets: tuple[Counts, Counts]
    discards: tuple[Counts, Counts]
    actions: tuple[str, str]
    offer: int
    winner: int
    log: tuple[tuple[Any, ...], ...]
    memo: dict[int, str] | None

    def copy(self) -> Table:
        c = Table.__new__(Table)
        d = self.__dict__.copy()
        d["memo"] = None
        c.__dict__ = d
        return c

    def __deepcopy__(self, memo: dict[int, Any]) -> Table:
        return self


def _new_round(v: Variant, p: Table, number: int, first: int, markers: Counts) -> None:
    zero = (0,) * v.n
    p.round = number
    p.first = first
    p.markers = markers
    p.stage = DEAL
    p.dealt = 0
    p.removed = -1
    p.deck = v.charms
    p.hands = (zero, zero)
    p.turn = 0
    p.played = (zero, zero)
    p.secrets = (zero, zero)
    p.discards = (zero, zero)
    p.actions = (v.actions, v.actions)
    p.offer = -1
    p.winner = -2
    p.log = (*p.log, ("round", number))


def initial(v: Variant) -> Table:
    p = Table.__new__(Table)
    p.v = v
    p.memo = None
    p.log = ()
    _new_round(v, p, 1, 0, (-1,) * v.n)
    return p


def _one(n: int, g: int) -> Counts:
    return tuple(1 if i == g else 0 for i in range(n))


def _pair_set(pair: tuple[Counts, Counts], seat: int, value: Counts) -> tuple[Counts, Counts]:
    return (pair[0], value) if seat else (value, pair[1])


def chance(v: Variant, p: Table, g: int) -> Table:
    if not 0 <= g < v.n or p.deck[g] <= 0:
        raise ValueError(f"chance outcome {g} is not possible here")
    c = p.copy()
    card = _one(v.n, g)
    c.deck = _sub(p.deck, card)
    if p.stage == DEAL:
        k = p.dealt
        c.dealt = k + 1
        if k == 0:
            c.removed = g
        else:
            seat = 0 if k <= v.hand_size else 1
            c.hands = _pair_set(p.hands, seat, _add(p.hands[seat], card))
        if c.dealt == v.deal_steps:  # the deal is done: both players pick up their hands
            c.stage = DRAW
            c.log = (*p.log, ("hands", c.hands[0], c.hands[1]))
        return c
    seat = p.first ^ (p.turn & 1)
    c.hands = _pair_set(p.hands, seat, _add(p.hands[seat], card))
    c.stage = ACTION
    c.log = (*p.log, ("draw", seat, g))
    return c


def decide(v: Variant, p: Table, action: int) -> Table:
    actor = p.first ^ (p.turn & 1)
    move = v.moves[action]
    if p.stage == ACTION:
        if action not in v.legal(p.hands[actor], p.actions[actor]):
            raise ValueError(f"{move.text} is not legal here")
        c = p.copy()
        c.log = (*p.log, ("move", actor, action))
        c.hands = _pair_set(p.hands, actor, _sub(p.hands[actor], move.cards))
        left = p.actions[actor].replace(move.letter, "")
        c.actions = (p.actions[0], left) if actor else (left, p.actions[1])
        if move.letter in "GC":
            c.offer = action
            c.stage = PICK
            return c
        if move.letter == "S":
            c.secrets = _pair_set(p.secrets, actor, move.cards)
        else:
            c.discards = _pair_set(p.discards, actor, move.cards)
        _end_turn(v, c)
        return c
    if action not in v.picks[p.offer]:
        raise ValueError(f"{move.text} is not a pick of the offer {v.moves[p.offer].text}")
    c = p.copy()
    picker = 1 - actor
    c.log = (*p.log, ("move", picker, action))
    take = move.cards
    give = _sub(v.moves[p.offer].cards, take)
    played = p.played
    c.played = (
        (_add(played[0], give), _add(played[1], take))
        if picker
        else (_add(played[0], take), _add(played[1], give))
    )
    c.offer = -1
    _end_turn(v, c)
    return c


def _end_turn(v: Variant, c: Table) -> None:
    c.turn += 1
    if c.turn < v.turns:
        c.stage = DRAW
        return
    s0, s1 = c.secrets
    p0 = _add(c.played[0], s0)
    p1 = _add(c.played[1], s1)
    markers = tuple(
        0 if a > b else 1 if b > a else m for a, b, m in zip(p0, p1, c.markers, strict=True)
    )
    c.log = (*c.log, ("reveal", s0, s1), ("markers", markers))
    c.markers = markers
    c.played = (p0, p1)
    zero = (0,) * v.n
    c.hands = (zero, zero)
    (charm0, charm1), (geisha0, geisha1) = v.standing(markers)
    winner = -2
    if charm0 >= v.win_charm:
        winner = 0
    elif charm1 >= v.win_charm:
        winner = 1
    elif geisha0 >= v.win_geisha:
        winner = 0
    elif geisha1 >= v.win_geisha:
        winner = 1
    elif v.max_rounds and c.round >= v.max_rounds:
        winner = -1 if charm0 == charm1 else 0 if charm0 > charm1 else 1
    if winner == -2:
        _new_round(v, c, c.round + 1, 1 - c.first, markers)
        return
    c.winner = winner
    c.stage = OVER
    c.actions = ("", "")
    c.log = (*c.log, ("over",))


# -- resampling what a player cannot see ------------------------------------------------------
def replay(v: Variant, history: list[int]) -> Table:
    """The position after ``history``: chance outcomes and decisions from the start, in order."""
    p = initial(v)
    for a in history:
        p = chance(v, p, a) if p.stage in (DEAL, DRAW) else decide(v, p, a)
    return p


def _cards(counts: Counts) -> list[int]:
    """A multiset of card types as a list of geisha indices."""
    return [g for g, k in enumerate(counts) for _ in range(k)]


def _count(cards: list[int], n: int) -> Counts:
    out = [0] * n
    for g in cards:
        out[g] += 1
    return tuple(out)


def resample(v: Variant, p: Table, seat: int, rng: random.Random) -> list[int]:
    """A history (chance outcomes and decisions from the start) that leads to a position ``seat``
    cannot tell from ``p``, drawn at random as a shuffle would deal it.

    In each round the cards ``seat`` has not seen (the removed card, the opponent's hand, its
    Secret until the scoring and its Discard, the rest of the pile) are dealt into those places
    uniformly, exactly as :func:`hanamikoji.ai.belief.determinize` deals them; then the
    opponent's way there, which of its cards it was dealt and which it drew in what order, is
    drawn uniformly among the orders in which each of its moves was legal when it was made. The
    order in which a player's own hand was dealt is hidden from it too, and drawn at random.
    """
    if seat not in (0, 1):
        raise ValueError(f"player must be 0 or 1, got {seat!r}")
    rounds: list[list[tuple[Any, ...]]] = []
    for event in p.log:
        if event[0] == "round":
            rounds.append([])
        else:
            rounds[-1].append(event)
    history: list[int] = []
    for r, events in enumerate(rounds):
        current = r == len(rounds) - 1
        history += _resample_round(v, p, events, seat, current, rng)
    return history


def _resample_round(
    v: Variant,
    p: Table,
    events: list[tuple[Any, ...]],
    seat: int,
    current: bool,
    rng: random.Random,
) -> list[int]:
    n = v.n
    other = 1 - seat
    if not events or events[0][0] != "hands":
        # The deal is under way: nothing of it is seen yet. Deal p.dealt cards as a shuffle.
        deck = _cards(v.charms)
        rng.shuffle(deck)
        return deck[: p.dealt]
    own_hand = events[0][1 + seat]
    own_draws = [e[2] for e in events if e[0] == "draw" and e[1] == seat]
    opp_moves = [v.moves[e[2]] for e in events if e[0] == "move" and e[1] == other]
    letters = {m.letter for m in opp_moves}
    reveal = next((e for e in events if e[0] == "reveal"), None)
    known = [c for m in opp_moves if m.letter in "GC" for c in _cards(m.cards)]
    hidden_secret = "S" in letters and reveal is None
    if "S" in letters and reveal is not None:
        known += _cards(reveal[1 + other])
    opp_hand_now = sum(p.hands[other]) if current and p.stage != OVER else 0
    # The unseen cards, dealt uniformly into: the removed card, the opponent's Secret (while
    # hidden), Discard, hand; what is left is the rest of the pile (not dealt yet: no history).
    unseen = list(v.charms)
    for g in _cards(own_hand) + own_draws + known:
        unseen[g] -= 1
    pool = _cards(tuple(unseen))
    rng.shuffle(pool)
    removed = pool[0]
    at = 1
    secret: Counts | None = None
    discard: Counts | None = None
    if hidden_secret:
        secret = _count(pool[at : at + 1], n)
        at += 1
    if "D" in letters:
        discard = _count(pool[at : at + 2], n)
        at += 2
    opp_cards = known + pool[at : at + opp_hand_now]
    if reveal is None and "S" in letters:
        assert secret is not None
        opp_cards += _cards(secret)
    if discard is not None:
        opp_cards += _cards(discard)
    # The opponent's moves as played here: its hidden Secret and Discard as drawn above.
    played: list[int] = []
    for m in opp_moves:
        if m.letter == "S" and secret is not None:
            played.append(v.ids["S" + text_of(secret)])
        elif m.letter == "D" and discard is not None:
            played.append(v.ids["D" + text_of(discard)])
        else:
            played.append(v.ids[m.text])
    opp_draws = sum(1 for e in events if e[0] == "draw" and e[1] == other)
    order = _route(v, events, other, opp_cards, played, opp_draws, rng)
    dealt_opp, drawn_opp = order[: v.hand_size], order[v.hand_size :]
    own = _cards(own_hand)
    rng.shuffle(own)
    hands = (own, dealt_opp) if seat == 0 else (dealt_opp, own)
    out = [removed, *hands[0], *hands[1]]
    own_draw = iter(own_draws)
    opp_draw = iter(drawn_opp)
    opp_move = iter(played)
    for e in events:
        if e[0] == "draw":
            out.append(next(own_draw) if e[1] == seat else next(opp_draw))
        elif e[0] == "move":
            out.append(e[2] if e[1] == seat else next(opp_move))
    return out


def _route(
    v: Variant,
    events: list[tuple[Any, ...]],
    who: int,
    cards: list[int],
    moves: list[int],
    draws: int,
    rng: random.Random,
) -> list[int]:
    """``who``'s cards of the round in the order dealt then drawn, uniform among the orders in
    which each of its ``moves`` (in order) was legal when made (by rejection: a shuffle is kept
    when it works, which is uniform over the orders that work)."""
    assert len(cards) == v.hand_size + draws, (cards, draws)
    while True:
        rng.shuffle(cards)
        hand = list(_count(cards[: v.hand_size], v.n))
        drawn = iter(cards[v.hand_size :])
        move = iter(moves)
        legal = True
        for e in events:
            if e[0] not in ("draw", "move") or e[1] != who:
                continue
            if e[0] == "draw":
                hand[next(drawn)] += 1
            elif e[0] == "move":
                m = v.moves[next(move)]
                if m.letter == "P":
                    continue
                for g, k in enumerate(m.cards):
                    hand[g] -= k
                    legal &= hand[g] >= 0
        if legal:
            return list(cards)
