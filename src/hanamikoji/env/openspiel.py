"""Hanamikoji as an OpenSpiel game: ``python_hanamikoji``.

Importing this module registers the game with pyspiel::

    import pyspiel
    import hanamikoji.env.openspiel  # noqa: F401  (registers the game)

    game = pyspiel.load_game("python_hanamikoji", {"max_rounds": 1})
    small = pyspiel.load_game("python_hanamikoji(actions=SG,charms=3:6,max_rounds=1)")

It is a sequential, zero-sum, two-player game of imperfect information with explicit chance
nodes and terminal rewards: +1 to the winner, -1 to the loser, 0 each on a draw. The rules
(rules.md) are implemented here again, for every variant below; on the standard game they agree
with :mod:`hanamikoji.state` move for move (the tests play both side by side).

Parameters
----------
``max_rounds`` (int, default 3)
    The round limit; 0 means no limit (:func:`load` takes None for it too, as the other
    adapters do). A limit whose information-state tensor would hold more than
    :data:`MAX_TENSOR_FLOATS` floats is refused (4,210 rounds of the standard game). Without a
    limit ``max_game_length`` reports a nominal 100 rounds (play is never cut short) and the
    game provides no information-state tensor (a perfect-recall tensor of unbounded play has
    no fixed size).
``charms`` (str, default ``"2:2:2:3:3:4:5"``)
    The charm of each geisha, left to right, separated by colons (commas, spaces and ``-`` are
    read too; the game's parameters hold the colon form, which OpenSpiel's game strings can
    carry): 2 to 9 geisha, charm 1 to 9. Geisha *g* has exactly charm(*g*) item cards, the
    digit of *g* (``1``, ``2`` ...).
``actions`` (str, default ``"SDGC"``)
    The action tokens each player has, distinct letters of ``SDGC`` (any order, any case; kept
    in S D G C order). With *A* actions each player takes *A* turns a round, drawing a card
    each turn, from a hand of *h* = (cards - 1 - 2A) / 2; every card held or drawn is played,
    so the action sizes (S 1, D 2, G 3, C 4) must add up to *h* + *A*: the variant has exactly
    1 + 2 x (sum of the sizes) cards (21 for SDGC, 9 for SG). Anything else is a
    ``ValueError`` that says why.

A player wins with charm >= total charm // 2 + 1 (11 of 21), else with geisha >=
geisha // 2 + 1 (4 of 7), checked after each round; at the round limit more charm wins and
equal charm is a draw. Player 0 begins odd rounds, player 1 even ones.

Actions
-------
A decision's action number indexes :attr:`HanamikojiGame.moves` (notation of interfaces.md §1;
``HanamikojiGame.action_id`` goes back): every distinct move over the variant's cards, Secrets,
Discards, Gifts, Competitions, then picks, each ascending as strings, for the variant's actions
only (one-card picks come with Gift, pair picks with Competition). For the standard game this
is exactly :data:`hanamikoji.env.actions.MOVES` (534 actions).

Chance model
------------
Each round is dealt one card at a time: the removed card, the *h* cards of player 0's hand,
the *h* cards of player 1's hand, then at the start of every turn the acting player's draw.
A chance outcome is a card type, numbered from 0 (outcome *g* is a card of geisha *g* + 1),
with probability (cards of that type not yet dealt) / (cards not yet dealt), which gives every
deal exactly the probability a shuffled deck gives it. The players pick up their hands when the
deal is done; nobody ever sees the removed card; a draw is seen by the drawer only.

Observations
------------
Observation string: the current view: seat, round, first player, phase (deal, draw, action,
pick, over), markers (``0``, ``1`` or ``-`` per geisha), charm, own hand, own Secret and
Discard, the cards on each seat's side this round, both seats' actions left, the offer being
answered, the opponent's hand size, the pile, and the winner at the end.

Observation tensor: the fields of :mod:`hanamikoji.env.observation` with *n* geisha in place of
7 (:func:`observation_fields`; 11n + 21 floats). On the standard game it equals
``observation.observe`` of the same position at every decision and at the end; at a chance
node the three ``phase`` flags are 0.

Information-state string (perfect recall): ``p<seat>``, then for every round ``r<round>``,
``hand:<cards>`` once the deal is done, each draw (``+<card>`` for the seat's own, ``+?`` for
the opponent's), each move as ``<seat>:<move>`` (the opponent's Secret and Discard as bare ``S``
and ``D``), and at scoring ``reveal:<Secret of 0>,<Secret of 1>`` and ``markers:<...>``; ``over``
at the end. For example ``p0 r1 hand:223344 +7 0:S2 +? 1:S +6``.

Information-state tensor (with a round limit): ``observation`` (the observation tensor),
``player`` (one-hot, 2), then ``rounds``, shape (max_rounds, B), one row per round (zero until
reached) of: the hand dealt (n); the seat's own draws in order (A x n, one-hot each); every
turn in order (2A x (4 + 3n): the action one-hot S D G C, its first group of cards (the Secret
or Discard when the seat's own, else 0; the Gift; the first pair), the second pair, and the
cards taken by the pick); the revealed Secrets (own, opponent's: 2n).
B = n + An + 2A(4 + 3n) + 2n: 249 for the standard game, whose tensor has 98 + 2 + 3 x 249.
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import numpy.typing as npt

from hanamikoji.env._checks import research_missing

try:  # the research extra's
    import pyspiel
except ModuleNotFoundError as missing:
    raise research_missing(missing) from missing

from hanamikoji.env._checks import check_max_rounds, check_seed
from hanamikoji.env.observation import fields
from hanamikoji.env.variant import (
    ACTION,
    DEAL,
    DEFAULT_ACTIONS,
    DEFAULT_CHARMS,
    DRAW,
    NOMINAL_ROUNDS,
    OVER,
    PICK,
    Counts,
    Table,
    Variant,
    chance,
    decide,
    initial,
    resample,
    text_of,
    variant_of,
)

__all__ = [
    "DEFAULT_ACTIONS",
    "DEFAULT_CHARMS",
    "GAME_TYPE",
    "MAX_TENSOR_FLOATS",
    "VERSION",
    "HanamikojiGame",
    "HanamikojiObserver",
    "HanamikojiState",
    "Variant",
    "ismcts_bot",
    "load",
    "observation_fields",
]

VERSION = 1
"""The game's version (``HanamikojiGame.version``): a change to its rules, action numbering,
chance model, observations or information states makes a new one."""


def observation_fields(n: int) -> tuple[tuple[str, int], ...]:
    """The observation tensor's parts (name, length) for ``n`` geisha, in order: the layout of
    :data:`hanamikoji.env.observation.LAYOUT`."""
    return tuple((name, length) for name, length, _ in fields(n))


def _game_type(provides_info_tensor: bool) -> Any:
    return pyspiel.GameType(
        short_name="python_hanamikoji",
        long_name="Python Hanamikoji",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.ZERO_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=2,
        min_num_players=2,
        provides_information_state_string=True,
        provides_information_state_tensor=provides_info_tensor,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification={
            "max_rounds": 3,
            "charms": DEFAULT_CHARMS,
            "actions": DEFAULT_ACTIONS,
        },
    )


GAME_TYPE: Any = _game_type(True)
"""The registered ``pyspiel.GameType`` (a game with no round limit has no info-state tensor)."""
_GAME_TYPE_UNLIMITED: Any = _game_type(False)


class HanamikojiGame(pyspiel.Game):  # type: ignore[misc]
    """The pyspiel game ``python_hanamikoji`` (see the module docstring for its parameters)."""

    version = VERSION
    """The game's version (:data:`VERSION`)."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        params = dict(params or {})
        unknown = set(params) - {"max_rounds", "charms", "actions"}
        if unknown:
            raise ValueError(
                f"unknown parameters {sorted(unknown)}; python_hanamikoji takes "
                "max_rounds, charms and actions"
            )
        variant = variant_of(
            params.get("max_rounds", 3),
            params.get("charms", DEFAULT_CHARMS),
            params.get("actions", DEFAULT_ACTIONS),
        )
        _check_rounds(variant, "0")
        rounds = variant.max_rounds or NOMINAL_ROUNDS
        info = pyspiel.GameInfo(
            num_distinct_actions=len(variant.moves),
            max_chance_outcomes=variant.n,
            num_players=2,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=0.0,
            max_game_length=rounds * variant.round_length,
        )
        game_type = GAME_TYPE if variant.max_rounds else _GAME_TYPE_UNLIMITED
        super().__init__(game_type, info, variant.params)
        self.variant = variant
        self._initial = initial(variant)

    @property
    def moves(self) -> tuple[str, ...]:
        """The notation of every action number, in order."""
        return tuple(m.text for m in self.variant.moves)

    def action_id(self, move: str) -> int:
        """The action number of a move in canonical notation (``"G147"``)."""
        try:
            return self.variant.ids[move]
        except KeyError:
            raise ValueError(f"{move!r} is not a move of this game") from None

    def max_chance_nodes_in_history(self) -> int:
        """Chance nodes in the longest game: the deal and the draws of every round."""
        return (self.variant.max_rounds or NOMINAL_ROUNDS) * self.variant.chance_per_round

    def new_initial_state(self) -> HanamikojiState:
        """The start of a game: the first chance node of round 1's deal."""
        return HanamikojiState(self)

    def make_py_observer(
        self, iig_obs_type: Any = None, params: dict[str, Any] | None = None
    ) -> HanamikojiObserver:
        """An observer: information states with ``perfect_recall``, else observations."""
        return HanamikojiObserver(
            self.variant, iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False), params
        )


class HanamikojiState(pyspiel.State):  # type: ignore[misc]
    """A position of ``python_hanamikoji``."""

    def __init__(self, game: HanamikojiGame) -> None:
        super().__init__(game)
        self._p: Table = game._initial

    # -- the pyspiel API -------------------------------------------------------------------

    def current_player(self) -> int:
        """The player to move, or ``PlayerId.CHANCE`` / ``PlayerId.TERMINAL``."""
        p = self._p
        stage = p.stage
        if stage == ACTION:
            return p.first ^ (p.turn & 1)
        if stage == PICK:
            return 1 - (p.first ^ (p.turn & 1))
        if stage == OVER:
            return int(pyspiel.PlayerId.TERMINAL)
        return int(pyspiel.PlayerId.CHANCE)

    def _legal_actions(self, player: int) -> list[int]:
        p = self._p
        actor = p.first ^ (p.turn & 1)
        if p.stage == ACTION and player == actor:
            return list(p.v.legal(p.hands[actor], p.actions[actor]))
        if p.stage == PICK and player == 1 - actor:
            return list(p.v.picks[p.offer])
        return []

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """Each card type still in the deck, with its share of the cards left."""
        deck = self._p.deck
        left = sum(deck)
        return [(g, k / left) for g, k in enumerate(deck) if k]

    def _apply_action(self, action: int) -> None:
        p = self._p
        if p.stage in (DEAL, DRAW):
            self._p = chance(p.v, p, int(action))
        elif p.stage == OVER:
            raise ValueError("the game is over")
        else:
            player = self.current_player()
            legal = self._legal_actions(player)
            if action not in legal:
                name = p.v.moves[action].text if 0 <= action < len(p.v.moves) else "?"
                moves = ", ".join(f"{a} ({p.v.moves[a].text})" for a in legal)
                raise ValueError(
                    f"player {player}: action {action} ({name}) is not legal here; "
                    f"the legal actions are {moves}"
                )
            self._p = decide(p.v, p, int(action))

    def resample_from_infostate(
        self, player_id: int, probability_sampler: Any = None
    ) -> HanamikojiState:
        """A state ``player_id`` cannot tell from this one, drawn as a shuffle would deal it.

        The cards the player has not seen go to the removed card, the opponent's hand, Secret
        and Discard uniformly (the rest of the pile is not dealt yet); the opponent's way there
        (which cards it was dealt and which drawn, in what order) is drawn uniformly among the
        orders that make its moves legal; earlier rounds alike. The state has the same
        information state for ``player_id`` and a whole history (:func:`variant.resample`).
        ``probability_sampler`` (a callable giving floats in [0, 1), e.g.
        ``pyspiel.UniformProbabilitySampler(seed, 0., 1.)``) seeds the draw; None draws afresh.
        """
        seed = None if probability_sampler is None else _seed_from(probability_sampler)
        history = resample(self._p.v, self._p, int(player_id), random.Random(seed))
        state: HanamikojiState = self.get_game().new_initial_state()
        for a in history:
            state.apply_action(a)
        return state

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            p = self._p
            card = str(action + 1)
            if p.stage == DEAL:
                if p.dealt == 0:
                    return f"Removed:{card}"
                return f"Deal:{card} to {0 if p.dealt <= p.v.hand_size else 1}"
            return f"Draw:{card} by {p.first ^ (p.turn & 1)}"
        return self._p.v.moves[action].text

    def is_terminal(self) -> bool:
        """Whether the game has ended."""
        return self._p.stage == OVER

    def returns(self) -> list[float]:
        """+1 / -1 to the winner / loser, 0 each on a draw or while the game goes on."""
        w = self._p.winner
        if self._p.stage != OVER or w == -1:
            return [0.0, 0.0]
        return [1.0, -1.0] if w == 0 else [-1.0, 1.0]

    def __str__(self) -> str:
        p = self._p
        v = p.v
        stage = ("deal", "draw", "action", "pick", "over")[p.stage]
        offer = v.moves[p.offer].text if p.offer >= 0 else "-"
        return (
            f"round {p.round} first {p.first} turn {p.turn} {stage}"
            f" dealt {p.dealt} removed {p.removed + 1 if p.removed >= 0 else '-'}"
            f" markers {_markers_text(p.markers)}"
            f" hands {text_of(p.hands[0])}/{text_of(p.hands[1])}"
            f" deck {text_of(p.deck)}"
            f" played {text_of(p.played[0])}/{text_of(p.played[1])}"
            f" secrets {text_of(p.secrets[0])}/{text_of(p.secrets[1])}"
            f" discards {text_of(p.discards[0])}/{text_of(p.discards[1])}"
            f" actions {p.actions[0]}/{p.actions[1]} offer {offer} winner {p.winner}"
        )

    # -- reading ---------------------------------------------------------------------------

    @property
    def round(self) -> int:
        """The current round, from 1."""
        return self._p.round

    @property
    def markers(self) -> tuple[int | None, ...]:
        """Owner of each geisha's marker: 0, 1 or None (neutral)."""
        return tuple(None if m < 0 else m for m in self._p.markers)

    @property
    def winner(self) -> int | None:
        """The winner of a finished game (None on a draw or while the game goes on)."""
        w = self._p.winner
        return w if w >= 0 else None

    def hand(self, seat: int) -> str:
        """The cards in ``seat``'s hand (hidden information)."""
        return text_of(self._p.hands[seat])


def _markers_text(markers: Counts) -> str:
    return "".join("-" if m < 0 else str(m) for m in markers)


class HanamikojiObserver:
    """Observation or information-state tensors and strings (the pyspiel PyObserver protocol)."""

    def __init__(self, variant: Variant, iig_obs_type: Any, params: dict[str, Any] | None) -> None:
        if params:
            raise ValueError(f"observation parameters are not supported, got {params}")
        if not iig_obs_type.public_info or (
            iig_obs_type.private_info != pyspiel.PrivateInfoType.SINGLE_PLAYER
        ):
            raise ValueError(
                "python_hanamikoji observes public information and the observing player's own "
                "private information only"
            )
        self._v = variant
        self.perfect_recall: bool = bool(iig_obs_type.perfect_recall)
        pieces: list[tuple[str, int, tuple[int, ...]]] = []
        if self.perfect_recall:
            if variant.max_rounds:
                pieces = [
                    ("observation", variant.obs_size, (variant.obs_size,)),
                    ("player", 2, (2,)),
                    (
                        "rounds",
                        variant.max_rounds * variant.block_size,
                        (variant.max_rounds, variant.block_size),
                    ),
                ]
        else:
            pieces = [(name, k, (k,)) for name, k in variant.obs_fields]
        self.tensor: npt.NDArray[np.float32] | None = None
        self.dict: dict[str, npt.NDArray[np.float32]] = {}
        if pieces:
            tensor = np.zeros(sum(k for _, k, _ in pieces), np.float32)
            at = 0
            for name, k, shape in pieces:
                self.dict[name] = tensor[at : at + k].reshape(shape)
                at += k
            self.tensor = tensor
        self._obs_at: dict[str, slice] = {}
        at = 0
        for name, k in variant.obs_fields:
            self._obs_at[name] = slice(at, at + k)
            at += k

    def set_from(self, state: HanamikojiState, player: int) -> None:
        """Write ``state`` as ``player`` sees it into ``tensor``."""
        if self.tensor is None:
            return
        self.tensor.fill(0.0)
        p = state._p
        if self.perfect_recall:
            self._write_observation(p, player, self.dict["observation"])
            self.dict["player"][player] = 1.0
            self._write_history(p, player, self.dict["rounds"])
        else:
            self._write_observation(p, player, self.tensor)

    def string_from(self, state: HanamikojiState, player: int) -> str:
        """``state`` as ``player`` sees it, as text."""
        p = state._p
        if not self.perfect_recall:
            return self._observation_string(p, player)
        memo = p.memo
        if memo is None:
            memo = p.memo = {}
        text = memo.get(player)
        if text is None:
            text = memo[player] = self._history_string(p, player)
        return text

    # -- observations ----------------------------------------------------------------------

    def _own_hand(self, p: Table, seat: int) -> Counts:
        if p.stage == DEAL:
            return (0,) * self._v.n  # hands are picked up once the deal is done
        return p.hands[seat]

    def _opponent_hand(self, p: Table, seat: int) -> int:
        return sum(self._own_hand(p, 1 - seat))

    def _deck_left(self, p: Table) -> int:
        v = self._v
        if p.stage == OVER:
            return 0
        drawn = p.turn + (0 if p.stage in (DEAL, DRAW) else 1)
        return v.turns - drawn

    def _write_observation(self, p: Table, seat: int, out: npt.NDArray[np.float32]) -> None:
        v = self._v
        at = self._obs_at
        other = 1 - seat
        hand = self._own_hand(p, seat)
        seen = [0] * v.n
        for name, cards in (
            ("hand", hand),
            ("secret", p.secrets[seat]),
            ("discard", p.discards[seat]),
            ("played_own", p.played[seat]),
            ("played_opponent", p.played[other]),
        ):
            out[at[name]] = cards
            if name != "secret" or p.stage != OVER:  # once scored, the Secret is played
                seen = [a + b for a, b in zip(seen, cards, strict=True)]
        out[at["markers_own"]] = [m == seat for m in p.markers]
        out[at["markers_opponent"]] = [m == other for m in p.markers]
        charm, geisha = v.standing(p.markers)
        out[at["charm"]] = (charm[seat], charm[other])
        out[at["geisha"]] = (geisha[seat], geisha[other])
        out[at["actions_own"]] = [a in p.actions[seat] for a in "SDGC"]
        out[at["actions_opponent"]] = [a in p.actions[other] for a in "SDGC"]
        if p.offer >= 0:  # the offered cards are out of the hand and not yet on a side
            offer = v.moves[p.offer]
            seen = [a + b for a, b in zip(seen, offer.cards, strict=True)]
            if offer.letter == "G":
                out[at["offer_gift"]] = offer.cards
            else:
                out[at["offer_pair_1"]] = offer.groups[0]
                out[at["offer_pair_2"]] = offer.groups[1]
        out[at["unseen"]] = [c - s for c, s in zip(v.charms, seen, strict=True)]
        phase = {ACTION: 0, PICK: 1, OVER: 2}.get(p.stage)
        if phase is not None:
            out[at["phase"].start + phase] = 1.0
        actor = p.first ^ (p.turn & 1)
        to_move = actor if p.stage == ACTION else 1 - actor if p.stage == PICK else -1
        out[at["to_move"]] = float(to_move == seat)
        out[at["first"]] = float(p.first == seat)
        out[at["round"]] = p.round
        out[at["rounds_left"]] = max(0, v.max_rounds - p.round) if v.max_rounds else -1
        out[at["deck"]] = self._deck_left(p)
        out[at["opponent_hand"]] = self._opponent_hand(p, seat)

    def _observation_string(self, p: Table, seat: int) -> str:
        v = self._v
        stage = ("deal", "draw", "action", "pick", "over")[p.stage]
        charm, _ = v.standing(p.markers)
        own_secret = text_of(p.secrets[seat]) or "-"
        own_discard = text_of(p.discards[seat]) or "-"
        offer = v.moves[p.offer].text if p.offer >= 0 else "-"
        return (
            f"p{seat} round {p.round} first {p.first} {stage}"
            f" markers {_markers_text(p.markers)} charm {charm[0]},{charm[1]}"
            f" hand {text_of(self._own_hand(p, seat)) or '-'}"
            f" secret {own_secret} discard {own_discard}"
            f" played {text_of(p.played[0]) or '-'}/{text_of(p.played[1]) or '-'}"
            f" actions {p.actions[0] or '-'}/{p.actions[1] or '-'} offer {offer}"
            f" opponent_hand {self._opponent_hand(p, seat)} deck {self._deck_left(p)}"
            f"{'' if p.stage != OVER else f' winner {p.winner}'}"
        )

    # -- information states ----------------------------------------------------------------

    def _history_string(self, p: Table, seat: int) -> str:
        moves = self._v.moves
        parts = [f"p{seat}"]
        for event in p.log:
            kind = event[0]
            if kind == "round":
                parts.append(f"r{event[1]}")
            elif kind == "hands":
                parts.append(f"hand:{text_of(event[1 + seat])}")
            elif kind == "draw":
                parts.append(f"+{event[2] + 1}" if event[1] == seat else "+?")
            elif kind == "move":
                move = moves[event[2]]
                text = move.text if event[1] == seat or move.letter not in "SD" else move.letter
                parts.append(f"{event[1]}:{text}")
            elif kind == "reveal":
                parts.append(f"reveal:{text_of(event[1]) or '-'},{text_of(event[2]) or '-'}")
            elif kind == "markers":
                parts.append(f"markers:{_markers_text(event[1])}")
            else:
                parts.append("over")
        return " ".join(parts)

    def _write_history(self, p: Table, seat: int, rounds: npt.NDArray[np.float32]) -> None:
        v = self._v
        n = v.n
        hand_at = 0
        draws_at = n
        turns_at = draws_at + v.num_actions_each * n
        reveal_at = turns_at + v.turns * v.turn_size
        moves = v.moves
        r = -1
        draw = 0
        turn = -1
        for event in p.log:
            kind = event[0]
            if kind == "round":
                r = event[1] - 1
                draw = 0
                turn = -1
            elif kind == "hands":
                rounds[r, hand_at : hand_at + n] = event[1 + seat]
            elif kind == "draw":
                if event[1] == seat:
                    rounds[r, draws_at + draw * n + event[2]] = 1.0
                    draw += 1
            elif kind == "move":
                move = moves[event[2]]
                if move.letter == "P":
                    at = turns_at + turn * v.turn_size + 4 + 2 * n
                    rounds[r, at : at + n] = move.cards
                    continue
                turn += 1
                at = turns_at + turn * v.turn_size
                rounds[r, at + "SDGC".index(move.letter)] = 1.0
                if event[1] == seat or move.letter not in "SD":
                    rounds[r, at + 4 : at + 4 + n] = move.groups[0]
                    if move.letter == "C":
                        rounds[r, at + 4 + n : at + 4 + 2 * n] = move.groups[1]
            elif kind == "reveal":
                rounds[r, reveal_at : reveal_at + n] = event[1 + seat]
                rounds[r, reveal_at + n : reveal_at + 2 * n] = event[2 - seat]


MAX_TENSOR_FLOATS = 2**20
"""The most floats an information-state tensor may hold (4 MiB as float32): it grows by a
round's block with ``max_rounds``, and OpenSpiel hands it to Python as a list of floats, about
40 MB at this size, for every ``information_state_tensor()`` call."""


def _check_rounds(variant: Variant, no_limit: str) -> None:
    """Refuse a round limit whose information-state tensor would exceed
    :data:`MAX_TENSOR_FLOATS` (the standard game's 249 floats a round: about 180 GB at
    OpenSpiel's 32-bit game length, which this bound also keeps far below, since a round's
    block has more floats than the round has moves). ``no_limit``: the value that means none."""
    if not variant.max_rounds:
        return  # no limit: no information-state tensor, and the other tensors have fixed sizes
    most = (MAX_TENSOR_FLOATS - variant.obs_size - 2) // variant.block_size
    if variant.max_rounds > most:
        raise ValueError(
            f"max_rounds must be at most {most} here, or {no_limit} for no limit, got "
            f"{variant.max_rounds}: the information-state tensor holds {variant.block_size} "
            f"floats a round, and {most} rounds keep it within {MAX_TENSOR_FLOATS:,} floats "
            f"({MAX_TENSOR_FLOATS * 4 // 2**20} MiB as float32; a Python list of them about "
            "ten times that)"
        )


def _check_count(value: object, name: str) -> int:
    """A count of at least 1 (a numpy integer too): OpenSpiel's ISMCTS asserts it only at the
    first step, and a random-rollout evaluator of 0 rollouts divides None by 0."""
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < 1:
        raise ValueError(f"{name} must be a whole number >= 1, got {value!r}")
    return int(value)


def _register() -> None:
    pyspiel.register_game(GAME_TYPE, HanamikojiGame)


_register()


def ismcts_bot(
    game: HanamikojiGame,
    *,
    simulations: int = 1000,
    uct_c: float = 2.0,
    seed: int | None = None,
    rollouts: int = 1,
) -> Any:
    """OpenSpiel's Python ISMCTS bot on this game, with the resampler and a random-rollout
    evaluator (``pyspiel.ISMCTSBot``, the C++ one, crashes on Python games: use this one).

    ``seed`` makes it replay (its own draws and the resampler's); the game must have a round
    limit (the bot keys its tree by information-state strings, which it has either way).
    ``simulations`` and ``rollouts`` are whole numbers >= 1, ``seed`` None or one >= 0: others
    are refused here, not at the bot's first step.
    """
    from open_spiel.python.algorithms import ismcts, mcts

    simulations = _check_count(simulations, "simulations")
    rollouts = _check_count(rollouts, "rollouts")
    rng = np.random.RandomState(check_seed(seed))
    bot = ismcts.ISMCTSBot(
        game,
        mcts.RandomRolloutEvaluator(rollouts, rng),
        uct_c,
        simulations,
        random_state=rng,
    )
    sampler = pyspiel.UniformProbabilitySampler(int(rng.randint(2**31)), 0.0, 1.0)
    bot.set_resampler(lambda state, player: state.resample_from_infostate(player, sampler))
    return bot


def load(
    max_rounds: int | None = 3, charms: str = DEFAULT_CHARMS, actions: str = DEFAULT_ACTIONS
) -> HanamikojiGame:
    """``pyspiel.load_game("python_hanamikoji", {...})`` with these parameters. ``max_rounds``
    is checked as every adapter checks it (a whole number >= 1, a numpy integer too, or None
    for no limit), and 0, the game parameter's own "no limit", is taken too."""
    whole = isinstance(max_rounds, int | np.integer) and not isinstance(max_rounds, bool)
    # A Python int either way: pyspiel's parameters take no numpy scalar. None is the game's 0.
    rounds = 0 if whole and max_rounds == 0 else check_max_rounds(max_rounds) or 0
    # Checked before pyspiel sees it: a number past a C++ int failed in pybind, unexplained.
    _check_rounds(variant_of(rounds, charms, actions), "None")
    game: HanamikojiGame = pyspiel.load_game(
        "python_hanamikoji", {"max_rounds": rounds, "charms": charms, "actions": actions}
    )
    return game


def _seed_from(sampler: Any) -> int:
    """A seed from one draw of an OpenSpiel probability sampler: a float in [0, 1)."""
    if not callable(sampler):
        raise ValueError(
            f"probability_sampler must be callable (a float in [0, 1) a call), got {sampler!r}"
        )
    value = sampler()
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value < 1:
        raise ValueError(
            f"probability_sampler must give a float in [0, 1), it gave {value!r}"
        )  # (NaN fails the range too)
    return int(value * 2**53)
