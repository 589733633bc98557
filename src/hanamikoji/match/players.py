"""The players of a match: a built-in agent, or an external engine run as a process."""

from __future__ import annotations

import random
import shlex
from collections.abc import Sequence
from typing import Protocol

from hanamikoji.ai import AgentError, parse_agent
from hanamikoji.ai.base import Agent, start_game
from hanamikoji.engine import Engine, EngineError, FailureKind
from hanamikoji.moves import Move
from hanamikoji.state import Outcome, Rules
from hanamikoji.view import View

__all__ = ["SIDES", "AgentPlayer", "EnginePlayer", "MatchError", "Player", "make_player"]

SIDES = ("A", "B")


class MatchError(ValueError):
    """A match that cannot be run as asked (bad player, bad option)."""


class Player(Protocol):
    """One side of a match: a built-in agent or an external engine."""

    label: str

    def start(self, seat: int, rules: Rules, opponent: str, seed: int) -> None:
        """A game starts; ``seed`` seeds this game's randomness (for built-in agents)."""
        ...

    def act(self, view: View, legal: Sequence[Move], clock_ms: int) -> Move:
        """A legal move, or an EngineError naming the failure."""
        ...

    def finish(self, view: View, outcome: Outcome) -> None:
        """The game ended."""
        ...

    def close(self) -> None:
        """Release the player (stop its process)."""
        ...


class AgentPlayer:
    """A built-in agent, in this process."""

    def __init__(self, label: str, agent: Agent) -> None:
        self.label = label
        self.agent = agent
        self._rng = random.Random(0)

    def start(self, seat: int, rules: Rules, opponent: str, seed: int) -> None:
        """Seed this game's random numbers and tell the agent the rules."""
        self._rng = random.Random(seed)
        start_game(self.agent, seat, rules)

    def act(self, view: View, legal: Sequence[Move], clock_ms: int) -> Move:
        """The agent's move (an exception in the agent counts as a crash)."""
        try:
            move = self.agent.choose(view, legal, self._rng, clock_ms)
        except Exception as e:
            raise EngineError("crash", f"agent error: {type(e).__name__}: {e}") from None
        if move not in legal:
            raise EngineError("illegal", f"illegal move {move}")
        return move

    def finish(self, view: View, outcome: Outcome) -> None:
        """Nothing to do."""

    def close(self) -> None:
        """Nothing to do."""


def told(why: str | None) -> str | None:
    """A forfeit's ``why`` as the engines are told it: without the forfeiting engine's last words
    on standard error (the report and the record keep them). An engine may write anything there,
    its hand too, and in a duplicate pair the opponent plays the same deal from the other seat."""
    return why.split("; stderr: ", 1)[0] if why else why


class EnginePlayer:
    """An external engine, started on first use and restarted after a failure.

    An engine forfeited while still running (garbage, an illegal move, a timeout) is told the
    result, with the forfeit's ``why``, before it is stopped.

    An engine that dies (crash or exit) before it has answered anything in a game, when its
    process played the game before (it died after that game's ``result``, whether it is found so
    at the start or only at its first ``act``), or before it was sent this game's first ``act``,
    is restarted once and the game goes on: the new process is sent ``hello``, ``game`` and the
    same ``act`` (the act's view holds the whole game so far), and its time for that act counts
    from when it is sent, as always. A second death in the same game is a forfeit.
    :attr:`notes` lists the restarts. The opponent sees nothing of it.
    """

    def __init__(self, label: str, command: str, *, hard_limit_ms: int | None = None) -> None:
        self.label = label
        self.command = command
        self.hard_limit_ms = hard_limit_ms
        self._engine: Engine | None = None
        self._forfeited = False  # this game: stop the engine once it has the result
        self._answered = False  # this game: the engine has answered an act
        self._carried = False  # this game: its process played the game before (not restarted)
        self._restarted = False  # this game: the engine was restarted once already
        self._game: tuple[int, Rules, str] | None = None
        self.notes: list[str] = []
        """What happened beside the games (an engine restarted between games), oldest first;
        the match takes them after each game."""

    def _get(self) -> Engine:
        if self._engine is None:
            self._engine = Engine.popen(self.command)
        return self._engine

    def _restart(self, why: EngineError) -> Engine:
        """A fresh engine in place of one that died before its first move in this game, noted;
        the only one this game."""
        self._restarted, self._carried = True, False
        self.notes.append(f"its engine ended before its first move in this game ({why}): restarted")
        self.close()
        return self._get()

    def _may_restart(self, error: EngineError) -> bool:
        """Whether ``error`` is a death to restart the engine for (see the class)."""
        return (
            error.kind in (FailureKind.CRASH, FailureKind.EXIT)
            and not self._answered
            and not self._restarted
            and (self._carried or error.unasked)
        )

    def start(self, seat: int, rules: Rules, opponent: str, seed: int) -> None:
        """Start (or restart) the engine and announce the game."""
        if self._forfeited:  # (the result was never sent: the game was abandoned)
            self.close()
        self._forfeited = self._answered = self._restarted = False
        self._carried = self._engine is not None
        self._game = (seat, rules, opponent)
        try:
            engine = self._get()
            if self._carried and not engine.running():
                failure = engine.transport.failure()
                if self._may_restart(failure):
                    engine = self._restart(failure)
            try:
                engine.new_game(seat, rules, opponent)
            except EngineError as e:
                if not self._may_restart(e):
                    raise
                self._restart(e).new_game(seat, rules, opponent)
        except EngineError:
            self.close()
            raise

    def act(self, view: View, legal: Sequence[Move], clock_ms: int) -> Move:
        """The engine's move. On failure the engine is stopped (after the result, if it still
        runs), to be restarted next game; one that died before its first move in this game is
        restarted now, once, and asked again (see the class)."""
        try:
            try:
                move = self._get().act(view, legal, clock_ms, hard_limit_ms=self.hard_limit_ms)
            except EngineError as e:
                if self._game is None or not self._may_restart(e):
                    raise
                # The view holds the whole game so far: a fresh engine, told the game, can be
                # asked the same act, with all its time from when the act is sent.
                engine = self._restart(e)
                engine.new_game(*self._game)
                move = engine.act(view, legal, clock_ms, hard_limit_ms=self.hard_limit_ms)
        except EngineError as e:
            error = self._with_stderr(e)
            if self._engine is not None and self._engine.running():
                self._forfeited = True  # stopped in finish, once it has the result
            else:
                self.close()
            raise error from None
        self._answered = True
        return move.move

    def _with_stderr(self, error: EngineError) -> EngineError:
        """``error`` with the last lines of the engine's stderr, as a crash's message has them
        (a hang's log says most about it)."""
        tail: list[str] = getattr(getattr(self._engine, "transport", None), "stderr_tail", [])
        if not tail or "; stderr: " in str(error):
            return error
        said = " | ".join(tail[-3:])[-300:]
        out = EngineError(error.kind, f"{error}; stderr: {said}")
        out.unasked = error.unasked
        return out

    def finish(self, view: View, outcome: Outcome) -> None:
        """Send the result (a failure here only restarts the engine); a forfeited engine is
        stopped after it."""
        if self._engine is None:
            return
        forfeited, self._forfeited = self._forfeited, False
        try:
            if forfeited:
                # It may have stopped reading (a timeout): the last words must not block.
                never_block = getattr(self._engine.transport, "never_block", None)
                if never_block is not None:
                    never_block()
            self._engine.result(view, outcome.winner, outcome.reason.value, why=told(outcome.why))
        except EngineError:
            forfeited = True
        if forfeited:
            self.close()

    def close(self) -> None:
        """Stop the engine process."""
        if self._engine is not None:
            engine, self._engine = self._engine, None
            engine.close()


def make_player(spec: str, *, hard_limit_ms: int | None = None) -> Player:
    """A player from ``NAME[:KEY=VALUE,...]`` (built-in agent) or ``cmd:COMMAND`` (engine)."""
    if spec.startswith("cmd:"):
        command = spec[4:].strip()
        if not command:
            raise MatchError("cmd: needs a command, e.g. 'cmd:node examples/random_engine.js'")
        try:
            shlex.split(command)
        except ValueError as e:  # an unclosed quote, a backslash at the end
            raise MatchError(
                f"the command {command!r} cannot be split into words ({e}): quote a word "
                "holding spaces whole, e.g. cmd:python3 '/my engines/engine.py'"
            ) from None
        return EnginePlayer(spec, command, hard_limit_ms=hard_limit_ms)
    try:
        return AgentPlayer(spec, parse_agent(spec))
    except AgentError as e:
        raise MatchError(str(e)) from None
