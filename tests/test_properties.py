"""Property tests of the rules engine (hypothesis): random legal games checked at every step.

Every game is a drawn deal seed, a drawn ``max_rounds`` and moves chosen by a hypothesis-driven
random source, so failures shrink and replay. The checks are written from rules.md and
interfaces.md, not from the engine's code: card conservation, the use of every card and action,
the pile, legal-move lists, notation, records, hidden information and the game's flow.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from dataclasses import dataclass, field
from itertools import combinations

from hypothesis import given, settings
from hypothesis import strategies as st

from hanamikoji.cards import ALL_CARDS, CHARM
from hanamikoji.moves import Action, IllegalMoveError, Move, moves_for
from hanamikoji.record import Record
from hanamikoji.state import Deal, Phase, Ply, Rules, State, Termination

# -- the rules, restated independently -----------------------------------------------------

RULE_CHARM = (2, 2, 2, 3, 3, 4, 5)
FULL = "".join(str(g) * n for g, n in zip(range(1, 8), RULE_CHARM, strict=True))
SIZES = {"S": 1, "D": 2, "G": 3, "C": 4}
ORDER = "SDGCP"
ROUND_CAP = 8
"""Games without a round limit are cut after this many rounds (random play rarely gets there)."""

MAX_ROUNDS = st.sampled_from([1, 2, 3, 5, None])
SEEDS = st.integers(min_value=0, max_value=2**32 - 1)
CHOICES = st.randoms(use_true_random=False)


def canon(cards: str) -> str:
    return "".join(sorted(cards))


def minus(whole: str, part: str) -> str:
    """``whole`` less the cards of ``part`` (which it must hold)."""
    left = Counter(whole)
    left.subtract(part)
    assert all(v >= 0 for v in left.values()), f"{whole!r} does not hold {part!r}"
    return canon("".join(left.elements()))


def holds(whole: str, part: str) -> bool:
    return not (Counter(part) - Counter(whole))


def ref_standing(markers: tuple[int | None, ...]) -> tuple[tuple[int, int], tuple[int, int]]:
    charm = [0, 0]
    geisha = [0, 0]
    for g, owner in enumerate(markers):
        if owner is not None:
            charm[owner] += RULE_CHARM[g]
            geisha[owner] += 1
    return (charm[0], charm[1]), (geisha[0], geisha[1])


def ref_markers(before: tuple[int | None, ...], sides: tuple[str, str]) -> tuple[int | None, ...]:
    out = list(before)
    for g in range(7):
        a, b = sides[0].count(str(g + 1)), sides[1].count(str(g + 1))
        if a > b:
            out[g] = 0
        elif b > a:
            out[g] = 1
    return tuple(out)


def ref_decide(
    markers: tuple[int | None, ...], round: int, max_rounds: int | None
) -> tuple[int | None, Termination] | None:
    charm, geisha = ref_standing(markers)
    for seat in (0, 1):
        if charm[seat] >= 11:
            return seat, Termination.CHARM
    for seat in (0, 1):
        if geisha[seat] >= 4:
            return seat, Termination.GEISHA
    if max_rounds is not None and round >= max_rounds:
        if charm[0] == charm[1]:
            return None, Termination.DRAW
        return (0 if charm[0] > charm[1] else 1), Termination.ROUND_LIMIT
    return None


def ref_action_texts(hand: str, actions: str) -> set[str]:
    """Every distinct action move (as canonical text) for a hand and the actions left."""
    out: set[str] = set()
    for a in actions:
        if a == "C":
            for w, x, y, z in combinations(canon(hand), 4):
                for p, q in ((w + x, y + z), (w + y, x + z), (w + z, x + y)):
                    out.add("C" + "-".join(sorted((p, q))))
        else:
            out.update(a + "".join(c) for c in combinations(canon(hand), SIZES[a]))
    return out


def _universe() -> tuple[Move, ...]:
    texts = ref_action_texts(FULL, "SDGC")
    texts.update("P" + "".join(c) for k in (1, 2) for c in combinations(FULL, k))
    return tuple(Move.parse(t) for t in sorted(texts))


UNIVERSE = _universe()
"""Every move some position could allow: all actions on the 21 cards, and all picks."""


def order_key(text: str) -> tuple[int, str]:
    return ORDER.index(text[0]), text


def scramble(move: Move, rnd: random.Random) -> str:
    """A liberal spelling of ``move``: shuffled digits, swapped pairs, any case, spaces around."""
    groups = ["".join(rnd.sample(g, len(g))) for g in move.groups]
    if len(groups) == 2 and rnd.random() < 0.5:
        groups.reverse()
    letter = move.action.value
    if rnd.random() < 0.5:
        letter = letter.lower()
    return " " * rnd.randint(0, 2) + letter + "-".join(groups) + " " * rnd.randint(0, 2)


# -- playing -------------------------------------------------------------------------------


@dataclass
class Game:
    rules: Rules
    states: list[State]
    moves: list[Move]


def play(seed: int, max_rounds: int | None, rnd: random.Random) -> Game:
    """A game with deals from ``seed`` and random legal moves chosen by ``rnd``."""
    rules = Rules(max_rounds=max_rounds)
    state = State.new(random.Random(seed), rules=rules)
    states = [state]
    moves: list[Move] = []
    while not state.is_over and state.round <= ROUND_CAP:
        move = rnd.choice(state.legal_moves)
        state = state.apply(move)
        moves.append(move)
        states.append(state)
    return Game(rules, states, moves)


# -- checks of one state and of one step ----------------------------------------------------


def check_state(state: State) -> None:
    """Invariants of any single state (properties 1, 3 and 8)."""
    deal = state.deal
    assert state.first == (0 if state.round % 2 else 1)
    charm, geisha = ref_standing(state.markers)
    assert (state.charm, state.geisha) == (charm, geisha)
    check_scorings(state)
    if state.is_over:
        assert state.phase is Phase.OVER and state.to_move is None and state.offer is None
        assert state.legal_moves == ()
        assert state.hand(0) == state.hand(1) == ""
        assert state.actions_left(0) == state.actions_left(1) == ""
        assert state.deck_left == 0
        last = state.scorings[-1]
        assert last.round == state.round
        assert (state.played(0), state.played(1)) == last.played
        for seat in (0, 1):
            assert holds(state.played(seat), last.secrets[seat])
            view = state.view(seat)
            assert (view.phase, view.to_move, view.offer, view.hand) == ("over", None, None, "")
            assert view.actions_left == ("", "") and view.played == last.played
        cards = deal.removed + state.played(0) + state.played(1)
        cards += (state.discard(0) or "") + (state.discard(1) or "")
        assert canon(cards) == FULL, f"cards not conserved at the end: {canon(cards)}"
        check_outcome(state)
        return

    assert state.outcome is None
    t = state.turn
    assert 0 <= t < 8
    actor = state.first ^ (t & 1)
    assert state.actor == actor
    if state.phase is Phase.ACTION:
        assert state.offer is None and state.to_move == actor
    else:
        assert state.phase is Phase.PICK and state.to_move == 1 - actor
        assert state.offer is not None and state.offer.action in (Action.GIFT, Action.COMPETITION)
    # the pile: t + 1 cards drawn, the rest in order at the bottom of the deal's deck
    assert state.deck_left == 7 - t
    undrawn = deal.deck[-state.deck_left :] if state.deck_left > 0 else ""
    assert undrawn == deal.deck[t + 1 :]
    cards = deal.removed + undrawn + (str(state.offer.cards) if state.offer else "")
    for seat in (0, 1):
        cards += state.hand(seat) + state.played(seat)
        cards += (state.secret(seat) or "") + (state.discard(seat) or "")
    assert canon(cards) == FULL, f"cards not conserved: {canon(cards)} in {state!r}"

    offered = 0
    for seat in (0, 1):
        left = state.actions_left(seat)
        assert left == "".join(a for a in "SDGC" if a in left)
        used = "".join(a for a in "SDGC" if a not in left)
        secret, discard = state.secret(seat), state.discard(seat)
        assert (secret is None) == ("S" in left) and (discard is None) == ("D" in left)
        assert secret is None or len(secret) == 1
        assert discard is None or len(discard) == 2
        draws = sum(1 for i in range(t + 1) if state.first ^ (i & 1) == seat)
        assert len(state.hand(seat)) == 6 + draws - sum(SIZES[a] for a in used)
        offered += sum(SIZES[a] for a in used if a in "GC")
    in_offer = len(state.offer.cards) if state.offer else 0
    assert len(state.played(0)) + len(state.played(1)) == offered - in_offer


def check_scorings(state: State) -> None:
    """Markers change only at scoring, as the rules say (property 8)."""
    scorings = state.scorings
    assert len(scorings) == state.round - (0 if state.is_over else 1)
    markers: tuple[int | None, ...] = (None,) * 7
    for i, sc in enumerate(scorings):
        assert sc.round == i + 1
        assert sc.markers_before == markers
        assert sc.markers == ref_markers(markers, sc.played)
        assert (sc.charm, sc.geisha) == ref_standing(sc.markers)
        for seat in (0, 1):
            assert len(sc.secrets[seat]) == 1 and holds(sc.played[seat], sc.secrets[seat])
        assert len(sc.played[0]) + len(sc.played[1]) == 2 * (3 + 4 + 1)
        markers = sc.markers
        if i + 1 < len(scorings):
            assert ref_decide(markers, sc.round, state.rules.max_rounds) is None
    assert state.markers == markers


def check_outcome(state: State) -> None:
    outcome = state.outcome
    assert outcome is not None
    charm, geisha = ref_standing(state.markers)
    assert outcome.markers == state.markers
    assert (outcome.charm, outcome.geisha) == (charm, geisha)
    assert ref_decide(state.markers, state.round, state.rules.max_rounds) == (
        outcome.winner,
        outcome.reason,
    )
    w = outcome.winner
    if outcome.reason is Termination.CHARM:
        assert w is not None and charm[w] >= 11
    elif outcome.reason is Termination.GEISHA:
        assert w is not None and geisha[w] >= 4 and max(charm) < 11
    elif outcome.reason is Termination.ROUND_LIMIT:
        assert w is not None and charm[w] > charm[1 - w] and state.round == state.rules.max_rounds
    else:
        assert outcome.reason is Termination.DRAW and w is None and charm[0] == charm[1]
        assert state.round == state.rules.max_rounds


def check_step(prev: State, move: Move, nxt: State) -> None:
    """One move's effect (properties 1, 2, 3 and 8)."""
    assert nxt.parent is prev and nxt.last_move is move
    p = prev.to_move
    assert p is not None
    assert nxt.history == (*prev.history, Ply(prev.round, p, move))
    deal = prev.deal
    hands = [prev.hand(0), prev.hand(1)]
    played = [prev.played(0), prev.played(1)]
    secrets = [prev.secret(0), prev.secret(1)]
    discards = [prev.discard(0), prev.discard(1)]
    lefts = [prev.actions_left(0), prev.actions_left(1)]
    if move.action is Action.PICK:
        offer = prev.offer
        assert prev.phase is Phase.PICK and offer is not None and p == 1 - prev.actor
        played[p] = canon(played[p] + move.cards)
        played[1 - p] = canon(played[1 - p] + minus(offer.cards, move.cards))
    else:
        assert prev.phase is Phase.ACTION and p == prev.actor
        letter = move.action.value
        assert letter in lefts[p]
        lefts[p] = lefts[p].replace(letter, "")
        hands[p] = minus(hands[p], move.cards)
        if letter == "S":
            secrets[p] = move.cards
        elif letter == "D":
            discards[p] = move.cards
        else:
            # an offer: the opponent decides before the turn ends
            assert (nxt.round, nxt.turn, nxt.phase, nxt.offer) == (
                prev.round,
                prev.turn,
                Phase.PICK,
                move,
            )
            assert nxt.to_move == 1 - p
            assert [nxt.hand(0), nxt.hand(1)] == hands
            assert [nxt.played(0), nxt.played(1)] == played
            assert [nxt.actions_left(0), nxt.actions_left(1)] == lefts
            assert nxt.markers == prev.markers and nxt.scorings == prev.scorings
            return
    t = prev.turn
    if t < 7:
        # the turn ends: the next player draws the next card of the pile
        drawer = prev.first ^ ((t + 1) & 1)
        hands[drawer] = canon(hands[drawer] + deal.deck[t + 1])
        assert (nxt.round, nxt.turn, nxt.phase, nxt.offer) == (
            prev.round,
            t + 1,
            Phase.ACTION,
            None,
        )
        assert nxt.to_move == drawer and nxt.deal is deal
        assert [nxt.hand(0), nxt.hand(1)] == hands
        assert [nxt.played(0), nxt.played(1)] == played
        assert [nxt.secret(0), nxt.secret(1)] == secrets
        assert [nxt.discard(0), nxt.discard(1)] == discards
        assert [nxt.actions_left(0), nxt.actions_left(1)] == lefts
        assert nxt.markers == prev.markers and nxt.scorings == prev.scorings
        return

    # the 8th turn ended: the pile is empty, every action used, the round is scored
    assert prev.deck_left == 0 and lefts == ["", ""] and hands == ["", ""]
    assert secrets[0] is not None and secrets[1] is not None
    check_round_use(nxt, prev.round, deal)
    assert len(nxt.scorings) == len(prev.scorings) + 1
    sc = nxt.scorings[-1]
    sides = (canon(played[0] + secrets[0]), canon(played[1] + secrets[1]))
    assert sc.round == prev.round and sc.secrets == (secrets[0], secrets[1])
    assert sc.played == sides
    assert sc.markers_before == prev.markers
    assert nxt.markers == sc.markers == ref_markers(prev.markers, sides)
    ended = ref_decide(nxt.markers, prev.round, prev.rules.max_rounds)
    if ended is not None:
        assert nxt.is_over and nxt.round == prev.round
        assert nxt.outcome is not None and (nxt.outcome.winner, nxt.outcome.reason) == ended
        return
    # a new round: markers stay, everything else is dealt anew, the other player starts
    new = nxt.deal
    first = 1 - prev.first
    assert not nxt.is_over
    assert (nxt.round, nxt.first, nxt.turn, nxt.phase) == (prev.round + 1, first, 0, Phase.ACTION)
    assert nxt.to_move == first and nxt.offer is None and nxt.deck_left == 7
    assert nxt.hand(first) == canon(new.hands[first] + new.deck[0])
    assert nxt.hand(1 - first) == new.hands[1 - first]
    for seat in (0, 1):
        assert nxt.played(seat) == "" and nxt.actions_left(seat) == "SDGC"
        assert nxt.secret(seat) is None and nxt.discard(seat) is None


def check_round_use(state: State, round: int, deal: Deal) -> None:
    """Each seat used each action once and exactly its 6 dealt + 4 drawn cards (property 2)."""
    plies = [p for p in state.history if p.round == round]
    first = 0 if round % 2 else 1
    actions = [p for p in plies if not p.move.is_pick]
    assert len(actions) == 8
    offers = sum(1 for p in actions if p.move.action in (Action.GIFT, Action.COMPETITION))
    assert len(plies) == 8 + offers
    for i, ply in enumerate(actions):
        assert ply.seat == first ^ (i & 1)
    for seat in (0, 1):
        mine = [p.move for p in actions if p.seat == seat]
        assert sorted(m.action.value for m in mine) == sorted("SDGC")
        used = canon("".join(m.cards for m in mine))
        drawn = "".join(deal.deck[i] for i in range(8) if first ^ (i & 1) == seat)
        assert len(used) == 10
        assert used == canon(deal.hands[seat] + drawn)


def check_legal(state: State, rnd: random.Random) -> None:
    """The legal-move list (property 4) and the notation of its moves (property 6)."""
    seat = state.to_move
    if seat is None:
        assert state.legal_moves == ()
        return
    legal = state.legal_moves
    assert legal, f"no legal move in {state!r}"
    texts = [str(m) for m in legal]
    assert len(set(legal)) == len(legal) and len(set(texts)) == len(texts)
    assert texts == sorted(texts, key=order_key)
    offer = state.offer
    if offer is not None:
        assert all(m.is_pick for m in legal)
        if offer.action is Action.GIFT:
            want = {"P" + c for c in offer.cards}
        else:
            want = {"P" + g for g in offer.groups}
        assert set(texts) == want
    else:
        hand, left = state.hand(seat), state.actions_left(seat)
        for m in legal:
            assert m.action.value in left and holds(hand, m.cards)
        assert set(texts) == ref_action_texts(hand, left)
    for m in legal:
        assert Move.parse(str(m)) is m
        assert state.is_legal(m)
        nxt = state.apply(m)
        assert nxt.parent is state
    for m in rnd.sample(legal, min(3, len(legal))):
        assert Move.parse(scramble(m, rnd)) is m
        assert state.apply(scramble(m, rnd)).last_move is m

    # a sample of moves not in the list, of every kind, must be refused
    allowed = set(legal)
    for kind in ORDER:
        others = [m for m in UNIVERSE if m.action.value == kind and m not in allowed]
        for m in rnd.sample(others, min(2, len(others))):
            assert_illegal(state, m)
    if offer is None:
        # an action already used, with cards that are in hand
        used = "".join(a for a in "SDGC" if a not in state.actions_left(seat))
        for m in moves_for(state.hand(seat), used)[:3]:
            assert_illegal(state, m)
    else:
        # the picker's own actions wait until after the pick
        for m in moves_for(state.hand(seat), state.actions_left(seat))[:3]:
            assert_illegal(state, m)


def assert_illegal(state: State, move: Move) -> None:
    assert not state.is_legal(move)
    try:
        state.apply(move)
    except IllegalMoveError:
        return
    raise AssertionError(f"{move} was accepted in {state!r} but is not in the legal moves")


# -- properties 1-4, 6, 8: random games checked at every step --------------------------------


@settings(max_examples=50, deadline=None)
@given(seed=SEEDS, max_rounds=MAX_ROUNDS, rnd=CHOICES)
def test_random_games_keep_the_rules(seed: int, max_rounds: int | None, rnd: random.Random) -> None:
    game = play(seed, max_rounds, rnd)
    assert game.states[0].markers == (None,) * 7 and game.states[0].round == 1
    for i, state in enumerate(game.states):
        check_state(state)
        check_legal(state, rnd)
        if i < len(game.moves):
            check_step(state, game.moves[i], game.states[i + 1])
    last = game.states[-1]
    if last.is_over:
        assert max_rounds is None or last.round <= max_rounds
    else:
        assert max_rounds is None and last.round > ROUND_CAP


@settings(max_examples=150, deadline=None)
@given(seed=SEEDS, max_rounds=MAX_ROUNDS, rnd=CHOICES)
def test_cheap_invariants_over_more_games(
    seed: int, max_rounds: int | None, rnd: random.Random
) -> None:
    """Properties 1-3 and 8 (without trying every legal move) over more games."""
    game = play(seed, max_rounds, rnd)
    for i, state in enumerate(game.states):
        check_state(state)
        if i < len(game.moves):
            check_step(state, game.moves[i], game.states[i + 1])


# -- property 5: records replay to the same game ----------------------------------------------


def check_replay(state: State) -> None:
    text = state.record(("alice", "bob")).dumps()
    again = Record.loads(text).replay()
    assert again.history == state.history
    assert again.outcome == state.outcome
    assert again.markers == state.markers
    assert again.scorings == state.scorings
    assert (again.round, again.turn, again.phase, again.to_move) == (
        state.round,
        state.turn,
        state.phase,
        state.to_move,
    )
    assert again.deals == state.deals
    for seat in (0, 1):
        assert again.view(seat) == state.view(seat)
        assert again.view(seat).to_json() == state.view(seat).to_json()
    assert again.legal_moves == state.legal_moves
    assert again.record(("alice", "bob")).dumps() == text


@settings(max_examples=100, deadline=None)
@given(seed=SEEDS, max_rounds=MAX_ROUNDS, rnd=CHOICES)
def test_records_replay_to_the_same_game(
    seed: int, max_rounds: int | None, rnd: random.Random
) -> None:
    game = play(seed, max_rounds, rnd)
    points = {0, len(game.states) - 1, *(rnd.randrange(len(game.states)) for _ in range(3))}
    for k in sorted(points):
        check_replay(game.states[k])


# -- property 6: notation -----------------------------------------------------------------------


def test_every_move_has_one_canonical_spelling() -> None:
    actions = [m for m in UNIVERSE if not m.is_pick]
    assert set(moves_for(ALL_CARDS, "SDGC")) == set(actions)
    for m in UNIVERSE:
        text = str(m)
        assert Move.parse(text) is m
        assert Move.parse(text.lower()) is m
        assert m.cards == canon(m.cards) and len(m.cards) == (SIZES.get(text[0]) or len(text) - 1)
        if m.action is Action.COMPETITION:
            a, b = text[1:].split("-")
            assert a == canon(a) and b == canon(b) and a <= b


@settings(max_examples=300, deadline=None)
@given(move=st.sampled_from(UNIVERSE), rnd=CHOICES)
def test_scrambled_spellings_parse_to_the_same_move(move: Move, rnd: random.Random) -> None:
    text = scramble(move, rnd)
    assert Move.parse(text) is move
    assert str(Move.parse(text)) == str(move)


# -- property 7: hidden information -------------------------------------------------------------

# Physical card positions of a round: 0 the removed card, 1..6 hand 0, 7..12 hand 1, 13..20 pile.
HAND_POS = (range(1, 7), range(7, 13))
PILE_POS = 13


@dataclass
class RoundTrack:
    """Where each of a round's 21 dealt cards went, and who has seen each one."""

    cards: list[str]
    held: tuple[list[int], list[int]]
    seen: tuple[set[int], set[int]]
    drawn: set[int] = field(default_factory=set)
    secrets: dict[int, list[int]] = field(default_factory=dict)

    @classmethod
    def of(cls, deal: Deal) -> RoundTrack:
        cards = [deal.removed, *deal.hands[0], *deal.hands[1], *deal.deck]
        assert len(cards) == 21 and canon("".join(cards)) == FULL
        held = (list(HAND_POS[0]), list(HAND_POS[1]))
        return cls(cards, held, (set(held[0]), set(held[1])))

    def take(self, seat: int, cards: str) -> list[int]:
        """The positions of ``cards`` in ``seat``'s hand (first match), now out of it."""
        out = []
        for c in cards:
            pos = next(p for p in self.held[seat] if self.cards[p] == c)
            self.held[seat].remove(pos)
            out.append(pos)
        return out


@dataclass
class Tracked:
    rounds: dict[int, RoundTrack]
    uses: dict[int, list[int]]
    """Move index -> the positions its cards came from (action moves only)."""


def track(game: Game, k: int) -> Tracked:
    """Follow every card of ``game`` up to state ``k``, and who has seen it."""
    rounds: dict[int, RoundTrack] = {}
    uses: dict[int, list[int]] = {}
    for i in range(k + 1):
        state = game.states[i]
        tr = rounds.get(state.round)
        if tr is None:
            tr = rounds[state.round] = RoundTrack.of(state.deal)
        if state.phase is Phase.ACTION and state.turn not in tr.drawn:
            assert state.to_move is not None
            pos = PILE_POS + state.turn
            tr.drawn.add(state.turn)
            tr.held[state.to_move].append(pos)
            tr.seen[state.to_move].add(pos)
        if i == k:
            break
        move, seat = game.moves[i], state.to_move
        assert seat is not None
        if not move.is_pick:
            pos_list = tr.take(seat, move.cards)
            uses[i] = pos_list
            if move.action in (Action.GIFT, Action.COMPETITION):
                tr.seen[0].update(pos_list)
                tr.seen[1].update(pos_list)
            elif move.action is Action.SECRET:
                tr.secrets[seat] = pos_list
        nxt = game.states[i + 1]
        if nxt.is_over or nxt.round != state.round:
            # scoring reveals both Secrets
            for pos_list in tr.secrets.values():
                tr.seen[0].update(pos_list)
                tr.seen[1].update(pos_list)
    return Tracked(rounds, uses)


def permute(cards: list[str], hidden: list[int], rnd: random.Random) -> list[str]:
    """``cards`` with the cards at ``hidden`` shuffled among themselves (changed if possible)."""
    values = [cards[p] for p in hidden]
    new = values[:]
    rnd.shuffle(new)
    if new == values and len(set(values)) > 1:
        j = next(j for j in range(1, len(values)) if values[j] != values[0])
        new[0], new[j] = new[j], new[0]
    out = cards[:]
    for p, c in zip(hidden, new, strict=True):
        out[p] = c
    return out


def deal_of(cards: list[str]) -> Deal:
    return Deal(
        cards[0],
        (canon("".join(cards[1:7])), canon("".join(cards[7:13]))),
        "".join(cards[13:21]),
    )


def rebuild(
    game: Game, k: int, tracked: Tracked, hidden_from: tuple[int, ...], rnd: random.Random
) -> tuple[State, list[Move]]:
    """Game B: the cards no seat of ``hidden_from`` has seen are permuted within each round.

    The moves are A's, except that a Secret or Discard of a seat not in ``hidden_from`` uses the
    cards now at the positions A's move used (it stays hidden from ``hidden_from``).
    """
    new_cards: dict[int, list[str]] = {}
    for r, tr in sorted(tracked.rounds.items()):
        seen: set[int] = set()
        for s in hidden_from:
            seen |= tr.seen[s]
        hidden = [p for p in range(21) if p not in seen]
        new_cards[r] = permute(tr.cards, hidden, rnd)
    deals = [deal_of(new_cards[r]) for r in sorted(new_cards)]
    state = State.from_deals(deals, rules=game.rules)
    moves: list[Move] = []
    for i in range(k):
        prev, move = game.states[i], game.moves[i]
        if move.action in (Action.SECRET, Action.DISCARD) and prev.to_move not in hidden_from:
            cards = "".join(new_cards[prev.round][p] for p in tracked.uses[i])
            move = Move.parse(move.action.value + cards)
        moves.append(move)
        nxt = state.apply(move)  # B is a legal game: every move applies
        check_step(state, move, nxt)
        state = nxt
    check_state(state)
    return state, moves


def same_view(a: State, b: State, seat: int) -> bool:
    va, vb = a.view(seat), b.view(seat)
    ja = json.dumps(va.to_json(), sort_keys=True)
    jb = json.dumps(vb.to_json(), sort_keys=True)
    assert (va == vb) == (ja == jb)
    return va == vb


def check_hidden(game: Game, k: int, rnd: random.Random) -> None:
    a = game.states[k]
    tracked = track(game, k)
    for s in (0, 1):
        o = 1 - s
        b, b_moves = rebuild(game, k, tracked, (s,), rnd)
        assert (b.round, b.turn, b.phase, b.to_move) == (a.round, a.turn, a.phase, a.to_move)
        assert b.view(s) == a.view(s), f"seat {s} sees a difference: {a.view(s)} / {b.view(s)}"
        assert same_view(a, b, s)
        # the other seat sees a difference exactly when its own cards changed
        o_changed = b.hand(o) != a.hand(o) or any(
            bm != am
            for bm, am, st_ in zip(b_moves, game.moves, game.states, strict=False)
            if st_.to_move == o
        )
        assert same_view(a, b, o) != o_changed
    # the removed card and the undrawn pile's order: no view depends on them
    c, c_moves = rebuild(game, k, tracked, (0, 1), rnd)
    assert c_moves == game.moves[:k]
    for s in (0, 1):
        assert same_view(a, c, s)
        assert c.legal_moves == a.legal_moves


@settings(max_examples=150, deadline=None)
@given(seed=SEEDS, max_rounds=MAX_ROUNDS, rnd=CHOICES)
def test_hidden_cards_do_not_change_a_seats_view(
    seed: int, max_rounds: int | None, rnd: random.Random
) -> None:
    game = play(seed, max_rounds, rnd)
    check_hidden(game, rnd.randrange(len(game.states)), rnd)
    check_hidden(game, len(game.states) - 1, rnd)


def test_charm_table_matches_the_rules() -> None:
    assert CHARM == RULE_CHARM and ALL_CARDS == FULL and len(FULL) == 21
