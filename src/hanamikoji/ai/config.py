"""The search's options, declared once: each option's type, default, range and help, which
search it applies to, and the presets built from them.

The agents (:class:`~hanamikoji.ai.ismcts.IsmctsAgent`, :class:`~hanamikoji.ai.master.MasterAgent`),
``parse_agent``, the CLI's help and the engine's ``hello`` all read :data:`OPTIONS`. Settings
(how to search: :class:`SearchConfig`) are kept apart from limits (how long: :class:`Limits`),
as python-chess keeps ``engine.Option`` apart from ``engine.Limit``.

>>> MASTER.exploration, MASTER.replace(belief=0).belief
(0.5, 0.0)
>>> OPTIONS["hidden"].parse("greedy")
'greedy'
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Any, Literal

__all__ = [
    "ISMCTS",
    "ITERATIONS_MAX",
    "LIMITS",
    "LONG",
    "MASTER",
    "MASTER_1",
    "OPTIONS",
    "RETIRED",
    "Limits",
    "Option",
    "SearchConfig",
]

Search = Literal["python", "fast", "both"]


_KIND_WORDS: dict[type, str] = {
    int: "a whole number",
    float: "a number",
    str: "text",
    bool: "0 or 1",
}
"""An option's type, in the words of its errors."""


@dataclass(frozen=True)
class Option:
    """One option: its name, type, default, range (or choices), help, and which search reads it
    (``python``: the ``ismcts`` agent's search; ``fast``: ``master``'s compiled one)."""

    name: str
    type: type
    default: Any
    help: str
    low: float | None = None
    high: float | None = None
    choices: tuple[str, ...] = ()
    search: Search = "both"

    def check(self, value: Any) -> Any:
        """``value`` as this option's type, or ValueError saying what is allowed."""
        kind = self.type
        if kind is bool:
            if not isinstance(value, bool | int) or value not in (0, 1):
                raise ValueError(f"{self.name} must be true or false (1 or 0), got {value!r}")
            return bool(value)
        if isinstance(value, bool) or not isinstance(value, int | float | str):
            raise ValueError(f"{self.name} must be {_KIND_WORDS[kind]}, got {value!r}")
        if kind is str:
            if value not in self.choices:
                known = ", ".join(self.choices)
                raise ValueError(f"unknown {self.name} {value!r}; known: {known}")
            return value
        if kind is int and (isinstance(value, str) or value != int(value)):
            raise ValueError(f"{self.name} must be a whole number, got {value!r}")
        number = kind(value)
        if isinstance(number, float) and not math.isfinite(number):
            raise ValueError(f"{self.name} must be a finite number, got {value!r}")
        if (self.low is not None and number < self.low) or (
            self.high is not None and number > self.high
        ):
            raise ValueError(f"{self.name} must be {self.range_text()}, got {value!r}")
        return number

    def parse(self, text: str) -> Any:
        """The option's value from text (``"0.4"``, ``"1"``, ``"greedy"``)."""
        kind = self.type
        try:
            if kind is bool:
                word = text.strip().lower()
                if word in ("1", "true", "yes", "on"):
                    return True
                if word in ("0", "false", "no", "off"):
                    return False
                raise ValueError
            value: Any = text.strip() if kind is str else kind(text)
        except ValueError:
            raise ValueError(f"{self.name} must be {_KIND_WORDS[kind]}, got {text!r}") from None
        return self.check(value)

    def range_text(self) -> str:
        """The allowed values in words (``0 or more``, ``0 to 1``, ``random or greedy``)."""
        if self.choices:
            return " or ".join(self.choices)
        if self.type is bool:
            return "0 or 1"

        def num(x: float) -> str:
            return f"{int(x):,}" if self.type is int else f"{x:g}"

        if self.low is not None and self.high is not None:
            return f"{num(self.low)} to {num(self.high)}"
        if self.low is not None:
            return f"{num(self.low)} or more"
        return "any number"

    def to_json(self) -> dict[str, Any]:
        """The option as the engine's ``hello`` lists it (docs/protocol.md)."""
        out: dict[str, Any] = {
            "name": self.name,
            "type": self.type.__name__,
            "default": self.default,
            "help": self.help,
        }
        if self.choices:
            out["choices"] = list(self.choices)
        if self.low is not None:
            out["min"] = self.low
        if self.high is not None:
            out["max"] = self.high
        return out


_DECLARED = (
    Option(
        "exploration", float, 0.7, "the UCB constant: how much the tree tries less-visited moves",
        low=0.0,
    ),
    Option(
        "playout", str, "random",
        "how the Python search finishes a world: random or policy moves to the game's end, "
        "smart or greedy moves to the round's end and the round-value table",
        choices=("random", "policy", "smart", "greedy"), search="python",
    ),
    Option(
        "prior", float, 0.0,
        "progressive bias at the root, from greedy's judgement or the learned prior's "
        "(rootprior; 0: none)",
        low=0.0,
    ),
    Option(
        "rootprior", str, "greedy",
        "whose judgement the root's progressive bias (prior) follows: greedy's, or the "
        "search's learned prior (net: its probabilities, the likeliest move 1)",
        choices=("greedy", "net"), search="fast",
    ),
    Option(
        "belief", float, 0.0,
        "weigh the worlds by how likely the opponent's decisions this round are in each "
        "(greedy softened: a move's chance is proportional to exp(belief * score); 0: none)",
        low=0.0,
    ),
    Option(
        "likelihood", str, "greedy",
        "whose judgement the belief weighs the worlds by: greedy's scores softened by belief, "
        "the network's policy (its logits as they are; with mix, scaled by 0, 1/9, 1/3 and "
        "1), or both models side by side in one mixture",
        choices=("greedy", "net", "both"), search="fast",
    ),
    Option(
        "pool", int, 0,
        "how many worlds the belief weighs (0: the default, 128 in Python, 65,536 compiled, "
        "a quarter of that with mix or the network's likelihood)",
        low=0, high=1 << 20,
    ),
    Option(
        "hidden", str, "random",
        "the cards behind the opponent's Secret and Discard in each world: at random, or as "
        "greedy would choose them with that world's hand",
        choices=("random", "greedy"),
    ),
    Option(
        "guide", float, 0.0,
        "greedy's judgement of each move below the root, in each world, as a fading bias",
        low=0.0, search="fast",
    ),
    Option(
        "guideprior", str, "greedy",
        "whose judgement guide's bias at our own decisions below the root follows: greedy's, "
        "or the search's learned prior with the hand each world gives us (net: its "
        "probabilities, the likeliest move 1)",
        choices=("greedy", "net"), search="fast",
    ),
    Option(
        "mix", bool, False,
        "the belief as a mixture of softnesses (0, belief/9, belief/3, belief); needs belief",
        search="fast",
    ),
    Option(
        "adapt", float, 0.0,
        "with mix: the opponent's picks searched as greedy's once the mixture finds it "
        "greedy-like with this probability (0: never)",
        low=0.0, high=1.0, search="fast",
    ),
    Option(
        "netvalue", float, 0.0,
        "the learned value's share at the tree's leaves, with the greedy playout's the rest "
        "(0: the playout alone, 1: the network alone, no playout)",
        low=0.0, high=1.0, search="fast",
    ),
    Option(
        "opponent", str, "search",
        "the opponent's moves in the tree: searched from our side (UCB over them, with guide "
        "and adapt), drawn from the network's policy with the hand each world gives it "
        "(net), or searched at its own information sets, the hand, Secret and Discard each "
        "world gives it, with the network's policy as the prior (infoset)",
        choices=("search", "net", "infoset"), search="fast",
    ),
    Option(
        "puct", float, 1.0,
        "with opponent=infoset: how much the opponent's search follows the network's prior",
        low=0.0, search="fast",
    ),
    Option(
        "carry", bool, False,
        "with mix: the mixture's models weighed by how well each explained the opponent's "
        "decisions in the earlier rounds of the game (read from the view), not equally likely "
        "at each round's start",
        search="fast",
    ),
    Option(
        "oprior", str, "net",
        "with opponent=infoset: the opponent's prior, the network's policy (net) or the "
        "belief's prediction (belief: each model of the mixture, greedy's softnesses and the "
        "network's, weighed by how well it explained this round's decisions, and with carry "
        "the earlier rounds'; needs mix) or that prediction with the uniform model's share "
        "given to the network's policy (strong: noise predicts a noisy player, it is no way "
        "to choose) or each family's share at its sharpest (sharp: greedy's softnesses' "
        "share to greedy's sharpest, the rest to the network's policy; a greedy share under "
        "oshare left out)",
        choices=("net", "belief", "strong", "sharp"), search="fast",
    ),
    Option(
        "oshare", float, 0.01,
        "with oprior=sharp: the least greedy share searched as greedy's sharpest choice; "
        "under it the opponent's prior is the network's policy alone",
        low=0.0, high=1.0, search="fast",
    ),
    Option(
        "ocarry", bool, False,
        "with oprior=sharp: the greedy share from the opponent's decisions in the whole game, "
        "the earlier rounds' as well as this round's (the worlds still weighed by this "
        "round's alone, unlike carry)",
        search="fast",
    ),
    Option(
        "halving", int, 0,
        "sequential halving at the root: after half the budget as UCB, the most visited moves "
        "(this many) take turns and the better half by mean goes on, phase after phase; 0: "
        "UCB throughout, the most visited move chosen",
        low=0, high=256, search="fast",
    ),
    Option(
        "hvisits", int, 0,
        "with halving: keep fewer moves where the budget is smaller, the most (a power of two, "
        "halving at most) that the first half's iterations give this many visits each in the "
        "first phase, and none (UCB throughout) where not even two would; 0: always halving "
        "moves",
        low=0, high=1_000_000, search="fast",
    ),
    Option(
        "long", int, 0,
        "from a time budget of this many ms a decision up (0: never), LONG's settings for "
        "those not given: the belief's pool four times as large, UCB 0.35 and the opponent's "
        "prior followed half as much, which measured stronger with five times the time",
        low=0, high=3_600_000, search="fast",
    ),
)  # fmt: skip

OPTIONS: dict[str, Option] = {o.name: o for o in _DECLARED}
"""Every search setting, by name."""

ITERATIONS_MAX = 100_000_000
"""The most iterations a decision may be given (hours of search at master's speed)."""

LIMITS: dict[str, Option] = {
    o.name: o
    for o in (
        Option(
            "iterations", int, 0,
            "a fixed number of iterations a decision (deterministic for a seed); 0: use time",
            low=0, high=ITERATIONS_MAX,
        ),
        Option(
            "time_ms", int, 0,
            "milliseconds a decision when iterations is 0 (0: the clock given, else 1,000)",
            low=0, high=3_600_000,
        ),
    )
}  # fmt: skip
"""The search's limits, by name: how long, as opposed to how."""

RETIRED: dict[str, str] = {
    "noise": "random actions in the playouts measured as no gain and were retired (docs/ai.md)",
    "values": "the other round-value table (values=greedy) measured as no gain and was retired",
    "draws": "a branch per card drawn measured as no gain and was retired (docs/ai.md)",
    "histories": "averaging draw orders in the belief measured as no gain and was retired",
    "odds": "carrying the belief's odds between rounds measured as no gain and was retired",
    "model": "the opponent modelled as greedy is no option any more: master's adapt does it "
    "when the opponent looks greedy",
    "adapted": "every decision of a greedy-like opponent searched as greedy's (adapted=all) "
    "gained against greedy what it lost against master-1 and was retired (docs/ai.md)",
    "fast": "the search is chosen by the agent: ismcts is the Python search, master the "
    "compiled one (master:fast=0, the Python master, was retired)",
    "pfloor": "a floor under the opponent's prior, so that a long search tries every reply, "
    "measured as no gain from more time and was retired (docs/ai.md)",
    "shadow": "iterations of the opponent's alone, our hand dealt afresh as it may think it, "
    "measured as no gain from more time and were retired (docs/ai.md)",
    "oback": "the opponent's estimates backed off to its mean over every hand measured as no "
    "gain from more time and were retired (docs/ai.md)",
    "ownpuct": "PUCT at our own decisions below the root measured as no gain from more time "
    "and was retired (docs/ai.md)",
    "smooth": "Smooth UCT below the root (choices drawn from a node's average policy) "
    "measured as no gain from more iterations and was retired (docs/ai.md)",
    "netplay": "playouts by the learned policy measured stronger per iteration but no stronger "
    "at equal time, and weaker with more iterations, and were retired (docs/ai.md)",
}
"""Options that were experiments, measured as no gain and retired: what to say to who uses them."""


def _default(name: str) -> Any:
    return OPTIONS[name].default


@dataclass(frozen=True)
class SearchConfig:
    """How a search searches: one value of each of :data:`OPTIONS` (checked on creation).

    ``replace(**changes)`` gives a changed copy; :data:`ISMCTS` and :data:`MASTER` are presets.
    """

    exploration: float = _default("exploration")
    playout: str = _default("playout")
    prior: float = _default("prior")
    rootprior: str = _default("rootprior")
    belief: float = _default("belief")
    likelihood: str = _default("likelihood")
    pool: int = _default("pool")
    hidden: str = _default("hidden")
    guide: float = _default("guide")
    guideprior: str = _default("guideprior")
    mix: bool = _default("mix")
    adapt: float = _default("adapt")
    netvalue: float = _default("netvalue")
    opponent: str = _default("opponent")
    puct: float = _default("puct")
    carry: bool = _default("carry")
    oprior: str = _default("oprior")
    oshare: float = _default("oshare")
    ocarry: bool = _default("ocarry")
    halving: int = _default("halving")
    hvisits: int = _default("hvisits")
    long: int = _default("long")

    def __post_init__(self) -> None:
        for name, option in OPTIONS.items():
            object.__setattr__(self, name, option.check(getattr(self, name)))

    def replace(self, **changes: Any) -> SearchConfig:
        """A copy with ``changes``; a name that is no option raises ValueError saying so."""
        for name in changes:
            if name not in OPTIONS:
                raise ValueError(unknown_option(name, OPTIONS))
        return dataclasses.replace(self, **changes)

    @property
    def mixed(self) -> bool:
        """Whether the belief is a mixture (``mix`` with a belief)."""
        return self.mix and self.belief > 0

    def to_json(self) -> dict[str, Any]:
        """Every setting by name."""
        return dataclasses.asdict(self)


def unknown_option(name: str, known: dict[str, Option] | list[str]) -> str:
    """The message for an option ``name`` that is not among ``known`` (retired ones say why)."""
    if name in RETIRED:
        return f"option {name!r} is retired: {RETIRED[name]}"
    return f"no option {name!r}; the options: {', '.join(known) or 'none'}"


@dataclass(frozen=True)
class Limits:
    """How long a search may run: ``iterations`` (a fixed budget), else ``time_ms``."""

    iterations: int = 0
    time_ms: int = 0

    def __post_init__(self) -> None:
        for name, option in LIMITS.items():
            object.__setattr__(self, name, option.check(getattr(self, name)))

    def time_budget_ms(self, clock_ms: int | None) -> int | None:
        """The milliseconds a decision is given (``time_ms``, else the clock given, else 1,000),
        or None under a fixed number of iterations."""
        if self.iterations:
            return None
        return self.time_ms or clock_ms or 1000

    def budget(self, clock_ms: int | None) -> tuple[int, float]:
        """(iterations, seconds) for one decision: one of the two is unlimited. A time budget
        aims at nine tenths of ``time_ms``, else of the clock given, else of 1,000 ms."""
        ms = self.time_budget_ms(clock_ms)
        if ms is None:
            return self.iterations, math.inf
        return 2**62, ms / 1000.0 * 0.9


ISMCTS = SearchConfig()
"""The ``ismcts`` agent: the Python search with random playouts, nothing else."""

MASTER_1 = SearchConfig(
    exploration=0.5,
    playout="greedy",
    prior=1.0,
    belief=30.0,
    hidden="greedy",
    guide=0.4,
    mix=True,
    adapt=0.6,
)
"""The ``master-1`` agent: master as #12 left it (what won matches then: docs/ai.md, What went
into master), kept unchanged so that every later master is measured against it."""

MASTER = MASTER_1.replace(
    opponent="infoset",
    adapt=0.0,
    hidden="random",
    likelihood="both",
    oprior="sharp",
    ocarry=True,
    halving=8,
    hvisits=100,
    long=1000,
)
"""The ``master`` agent: the strongest settings measured so far: ``master-1``'s with the
opponent searched at its own information sets, its prior the learned policy or, for the share
of the belief that finds it choosing as greedy does over the whole game (``ocarry``), greedy's
sharpest choice (``oprior=sharp``); the worlds weighed by greedy's and the network's
likelihoods of this round's decisions in one mixture; and the move chosen by sequential halving
among the 8 moves the first half of the budget visited most (``halving``: fewer where the budget
cannot give each 100 visits in the first phase, none below 400 iterations). ``hidden`` shapes
only the opponent searched from our side; ``adapt``, greedy's picks for an opponent the belief
finds greedy-like, is off: a model of one opponent; ``carry``, the worlds weighed by the earlier
rounds as well, and ``oprior=belief``, the mixture's prediction as the opponent's prior, gained
against greedy what they lost against ismcts. From a time budget of 1,000 ms a decision up
(``long``) it searches with :data:`LONG`'s settings. docs/ai.md."""

LONG: dict[str, Any] = {"pool": 65536, "exploration": 0.35, "puct": 0.5}
"""The settings a time budget of ``long`` ms or more searches with, in place of those the agent
was not given: master's were chosen at 200 ms a move, and five times the iterations weigh four
times the worlds (the set-up's cost no longer eats the search), explore less (the estimates are
surer), and lean less on the opponent's learned prior (its own statistics are surer). Each
measured better at 1,000 ms against master at 200 ms; together they scored 58% there over the
time target's 400 deals, which chose them, but 51.0% over 400 fresh ones (53.75% over the first
200, where master without them scored 50.75%): docs/ai.md, Long budgets."""
