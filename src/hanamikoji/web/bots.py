"""Bots on the server (docs/bots.md): bot accounts and their tokens, the bot socket
``hanamikoji-bot/1``, the challenges addressed to bots, and the house bots (the AI levels).

A bot is a player with a user name and no password, owned by an account. Its bridge
(:mod:`hanamikoji.bot`, or any program speaking the protocol) connects with the bot's token and
plays: the server offers it the challenges addressed to it (already checked against what its
owner lets it accept), sends each of its games, an ``act`` at each of its decisions with its
seat's VIEW only, and the result. A bot's moves go through the game service as anyone's: the
clock, the rules and the ratings are the ordinary ones. An engine that failed is forfeited with
its failure named (``forfeit:S:engine-crash``, read by :func:`hanamikoji.web.game.forfeit_why`).

The house bots are the AI levels, each a bot whose bridge runs inside the server over an
in-memory connection, choosing its moves on the AI workers (:mod:`hanamikoji.web.ai_worker`).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import logging
import secrets
import time
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

from hanamikoji.ai.levels import LEVELS
from hanamikoji.bot import PROTOCOL, Bridge, GameEngine, PipeEnd, pipe, serve_bot
from hanamikoji.clock import ClockError, Kind, TimeControl
from hanamikoji.engine import EngineError
from hanamikoji.moves import Move
from hanamikoji.state import Rules
from hanamikoji.view import View
from hanamikoji.web import ai_worker
from hanamikoji.web.errors import WebError, read_json, show
from hanamikoji.web.game import ENGINE_FAILURES, LiveGame
from hanamikoji.web.identity import FieldError, check_new_username, username_key
from hanamikoji.web.ids import new_id
from hanamikoji.web.lobby import BOT_DISABLED, SHOWN, Lobby, show_challenge
from hanamikoji.web.lookalike import separators_folded
from hanamikoji.web.messages import clock_json
from hanamikoji.web.ratings import AI_PLAYER, AI_RATINGS, FAMILIES
from hanamikoji.web.service import GameService
from hanamikoji.web.stopping import stop_tasks
from hanamikoji.web.store import BotRow, ChallengeRow, Duplicate, PlayerRow

__all__ = [
    "HOUSE_GAMES",
    "MAX_BOTS",
    "PROTOCOL",
    "Accepts",
    "BotHub",
    "PipeWire",
    "Wire",
    "hash_token",
    "think_ms",
]

log = logging.getLogger(__name__)

KINDS = tuple(k.value for k in Kind)
"""The time-control families a bot may accept whole: real-time, correspondence, none."""
MAX_BOTS = 5
"""Bots one account may own."""
MAX_GAMES = 20
"""The most games a bot's owner may let it play at once."""
HOUSE_GAMES = {"beginner": 50, "easy": 50, "medium": 4, "hard": 4, "master": 4}
"""Games each house bot plays at once: the searching levels share the AI workers."""
KNOWN_MS = 5_000
"""How often each server reads which players are bots again (one may be made through another)."""
IDLE_MS = 2 * 60_000
"""A game whose person has had the move this long stops counting towards the games its bot
plays at once, whether or not their page is open: games left waiting (an untimed one never ends
by itself, and a page can be held open for ever) must not shut a bot out of the lobby. It counts
again once they move."""
TOKEN_PREFIX = "hkbot_"
HELLO_S = 10.0
"""Seconds a new bot socket has to say hello."""
BURST = 40
"""Messages a bot may send at once; then ``RATE`` a second. Beyond, each is dropped, and the bot
told so (``too-many``) at most once a second: a flood's answers never fill its socket's queue."""
RATE = 20.0
UNTIMED_MS = 2000
"""The ``clock_ms`` of a decision in an untimed game (and the most of any)."""
ANSWER_MS = 60_000
"""How long a bot connected here has to answer an ``act`` (a move, a resignation or a forfeit),
in every game: 30 times the longest ``clock_ms``, room for a slow network and engine. A bot silent
past it forfeits the game (``timeout``), unless its clock runs out first (it loses on time, as
anyone): connected, it is not gone, and an untimed game would wait for it for ever."""
REASK_MS = 10_000
"""The least a connection that was asked an ``act`` costs of the bot's ``ANSWER_MS`` for it, however
soon it drops: only connected time counts, but a bot reconnecting every few seconds is asked
again at most six times an act (else it could hold an untimed game for ever, its absences each
too short for its opponent's claim)."""
HOUSE_RETRY_S = 30.0
"""How long a house bot this server refused waits before trying again."""


def hash_token(token: str) -> str:
    """What the database keeps of a bot's token."""
    return hashlib.sha256(token.encode("utf-8", "replace")).hexdigest()


@dataclass(frozen=True)
class Accepts:
    """What a bot's owner lets it accept: time controls (a family, ``real-time``, or one control,
    ``3+2``), rated and casual games, and how many games at once."""

    controls: tuple[str, ...] = KINDS
    rated: bool = True
    casual: bool = True
    games: int = 2

    @classmethod
    def from_json(cls, data: Any, base: Accepts | None = None) -> Accepts:
        """Read an ``accepts`` object (absent keys keep ``base``'s); :class:`FieldError` for
        anything else, saying what is expected."""
        start = base or cls()
        if data is None:
            return start
        if not isinstance(data, dict):
            raise FieldError("accepts", 'accepts must be an object, e.g. {"controls": ["3+2"]}')
        unknown = set(data) - {"controls", "rated", "casual", "games"}
        if unknown:
            raise FieldError("accepts", f"unknown keys in accepts: {', '.join(sorted(unknown))}")
        controls = data.get("controls", list(start.controls))
        if not isinstance(controls, list) or not 1 <= len(controls) <= 20:
            raise FieldError("accepts", "controls must be a list of 1 to 20 time controls")
        read: list[str] = []
        for item in controls:
            if not isinstance(item, str) or len(item) > 20:
                raise FieldError("accepts", f"a control is a string, got {show(item)}")
            if item not in KINDS:
                try:
                    item = str(TimeControl.parse(item))
                except ClockError as e:
                    kinds = ", ".join(KINDS)
                    raise FieldError("accepts", f"{e} (or a family: {kinds})") from None
            if item not in read:
                read.append(item)
        flags = {}
        for key in ("rated", "casual"):
            value = data.get(key, getattr(start, key))
            if not isinstance(value, bool):
                raise FieldError("accepts", f"{key} must be true or false, got {show(value)}")
            flags[key] = value
        games = data.get("games", start.games)
        if type(games) is not int or not 1 <= games <= MAX_GAMES:
            raise FieldError("accepts", f"games must be a whole number from 1 to {MAX_GAMES}")
        return cls(tuple(read), flags["rated"], flags["casual"], games)

    def some(self) -> Accepts:
        """These settings, if they let the bot play something (an owner's new ones);
        :class:`FieldError` for a bot that would accept no game."""
        if not self.rated and not self.casual:
            raise FieldError(
                "accepts",
                "rated and casual are both false: the bot would accept no game "
                "(set one of them true)",
            )
        return self

    @classmethod
    def stored(cls, text: str) -> Accepts:
        """What the store keeps (written by :meth:`to_json`; unreadable: the defaults)."""
        try:
            return cls.from_json(json.loads(text))
        except (ValueError, WebError):
            return cls()

    def to_json(self) -> dict[str, Any]:
        """As the API shows it."""
        return {
            "controls": list(self.controls),
            "rated": self.rated,
            "casual": self.casual,
            "games": self.games,
        }

    def refusal(self, control: TimeControl, rated: bool) -> str | None:
        """Why a game of ``control`` (``rated``) is not accepted (None: it is)."""
        if str(control) not in self.controls and control.kind.value not in self.controls:
            named = {"none": "untimed", "real-time": "real time"}
            accepted = ", ".join(named.get(c, c) for c in self.controls)
            played = "untimed" if str(control) == "none" else str(control)
            return f"does not play {played} games: it accepts {accepted}"
        if rated and not self.rated:
            return "plays casual games only"
        if not rated and not self.casual:
            return "plays rated games only"
        return None


def think_ms(game: LiveGame, seat: int, now: int) -> int:
    """The ``clock_ms`` of a bot's decision: a share of its time left, plus most of the
    increment (an aim, as in the engine protocol; the game's clock is what counts)."""
    clock = game.clock
    left = clock.remaining_at(now) if clock is not None else None
    if clock is None or left is None or clock.control.kind is not Kind.REAL_TIME:
        return UNTIMED_MS
    mine = left[seat]
    aim = mine // 30 + clock.control.increment * 800
    return int(max(50, min(UNTIMED_MS, aim, mine // 3)))


# -- connections ---------------------------------------------------------------------------------


class Wire(Protocol):
    """A bot's connection as the hub sees it: JSON text in, messages out."""

    async def send(self, message: dict[str, Any]) -> None:
        """Queue one message."""
        ...

    async def receive(self) -> str | None:
        """The next message's text, or None once the connection is closed."""
        ...

    async def close(self, code: int, why: str) -> None:
        """Close the connection (after what was queued)."""
        ...


class PipeWire:
    """The server's end of an in-memory bot connection (the house bots)."""

    def __init__(self, end: PipeEnd) -> None:
        self.end = end

    async def send(self, message: dict[str, Any]) -> None:
        await self.end.send_text(json.dumps(message))

    async def receive(self) -> str | None:
        return await self.end.receive_text()

    async def close(self, code: int, why: str) -> None:
        self.end.close()


@dataclass(eq=False)
class BotLink:
    """One connected bot: who it is, what it accepts, its games and the challenges offered."""

    bot: BotRow
    wire: Wire
    accepts: Accepts
    since: int
    games: dict[str, int] = field(default_factory=dict)  # game -> the bot's seat, while on
    # game -> (the version of the last act sent, ms when its 60 s began, less the time the bot
    # used of them on its earlier connections): the decisions it owes
    asked: dict[str, tuple[int, int]] = field(default_factory=dict)
    offered: set[str] = field(default_factory=set)  # open challenges told to the bot
    rematched: set[str] = field(default_factory=set)  # finished games whose rematch was taken
    opening: set[str] = field(default_factory=set)  # games being taken: no act before "game"
    # game -> (its version, ms since when): the games where the opponent has had the move
    waiting: dict[str, tuple[int, int]] = field(default_factory=dict)
    tokens: float = BURST
    at: float = field(default_factory=time.monotonic)
    warned: float = 0.0

    @property
    def key(self) -> str:
        return username_key(self.bot.username)

    def allow(self) -> bool:
        """Whether one more message is within the bot's rate (a token bucket)."""
        now = time.monotonic()
        self.tokens = min(BURST, self.tokens + (now - self.at) * RATE)
        self.at = now
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True

    def warn(self) -> bool:
        """Whether to tell the bot its messages are dropped (once a second at most)."""
        now = time.monotonic()
        if now - self.warned < 1.0:
            return False
        self.warned = now
        return True


def _error(code: str, message: str, **more: Any) -> dict[str, Any]:
    return {"type": "error", "code": code, "message": message, **more}


def _read(text: str) -> tuple[Any, str]:
    """A message's JSON, or None and why it is not JSON the server takes (not JSON at all, a
    key given twice, a number of thousands of digits: as the players' sockets refuse them)."""
    if len(text) > 16 * 1024:
        return None, "a message is at most 16 KB"
    try:
        return read_json(text), ""
    except WebError as e:
        return None, e.message


class BotHub:
    """The bots connected to this server process, and the bot accounts' API."""

    def __init__(self, service: GameService, lobby: Lobby) -> None:
        self.service = service
        self.lobby = lobby
        self.store = service.store
        self.links: dict[str, BotLink] = {}  # by the bot's player id
        self._by_key: dict[str, BotLink] = {}
        self._by_game: dict[str, set[str]] = {}  # game -> the connected bots playing it
        self.on_change: Callable[[], Awaitable[None]] = _nothing  # bots came or went (the lobby)
        self._house: list[asyncio.Task[Any]] = []
        self._tasks: set[asyncio.Task[Any]] = set()
        self.known: set[str] = set()  # every bot's player id (read at start, then kept up)
        # (bot, game) -> (version, ms of its 60 s used on its connections gone) of the act a
        # bot owes, kept across its connections: a bot reconnecting every 59 s was given a new
        # minute each time. Only connected time counts: one that dropped just after being asked
        # (a correspondence game) was forfeited as it came back, never able to answer.
        self._owed: dict[tuple[str, str], tuple[int, int]] = {}
        self._known_at = 0  # when ``known`` was last read again (the heartbeat's time)
        service.on_beat.append(self._read_known)
        service.on_beat.append(self._answers_due)

    async def load(self) -> None:
        """Read which players are bots (to mark them at the table)."""
        self.known = await self.store.bot_ids()

    async def _read_known(self, now: int) -> None:
        """Read which players are bots again every ``KNOWN_MS``: a bot made through another
        server (PostgreSQL) was never marked here, nor its untimed games claimable."""
        if now - self._known_at >= KNOWN_MS:
            self._known_at = now
            self.known |= await self.store.bot_ids()

    def seats(self, game: LiveGame) -> list[bool]:
        """Which seats of ``game`` a bot holds (the table marks them)."""
        return [p is not None and p in self.known for p in game.row.players]

    # -- the socket ----------------------------------------------------------------------------

    async def serve(self, wire: Wire, house: str | None = None) -> None:
        """One bot connection, from its hello to its end; ``house``: the player id of this
        server's house bot whose in-memory connection it is (let in without a token)."""
        link = await self._hello(wire, house)
        if link is None:
            return
        try:
            await self._arrive(link)
            while True:
                text = await wire.receive()
                if text is None:
                    break
                if not link.allow():
                    if link.warn():
                        why = f"at most {RATE:.0f} messages a second: the others were dropped"
                        await wire.send(_error("too-many", why))
                    continue
                await self._handle(link, text)
        finally:
            await self._leave(link)

    async def _hello(self, wire: Wire, house: str | None = None) -> BotLink | None:
        """Authenticate the bot by its token (the first message), or a house bot by who it is
        (every server's house bots are its own, whatever the others did), or say why not and
        close."""
        try:
            text = await asyncio.wait_for(wire.receive(), HELLO_S)
        except TimeoutError:
            await self._refuse(wire, "bad-request", f"no hello within {HELLO_S:.0f} s", 4400)
            return None
        if text is None:
            return None
        data, wrong = _read(text)
        example = f'{{"type": "hello", "protocol": "{PROTOCOL}", "token": "..."}}'
        if wrong:
            await self._refuse(wire, "bad-request", f"{wrong}: say hello with {example}", 4400)
            return None
        if not isinstance(data, dict) or data.get("type") != "hello":
            await self._refuse(wire, "bad-request", f"say hello first: {example}", 4400)
            return None
        if data.get("protocol") != PROTOCOL:
            why = f"this server speaks {PROTOCOL}, not {show(data.get('protocol'))}"
            await self._refuse(wire, "bad-request", why, 4400)
            return None
        token = data.get("token")
        bot = None
        if house is not None:
            bot = await self.store.bot(house)
            if bot is None:
                why = f"the house bot {house} has no account in the database"
                log.warning("%s: its bridge tries again", why)
                await self._refuse(wire, "not-found", why, 4404)
                return None
        elif isinstance(token, str) and 0 < len(token) <= 200:
            bot = await self.store.bot_by_token(hash_token(token))
            if bot is None and await self.store.bot_by_token(f"revoked:{hash_token(token)}"):
                why = (
                    "this token was revoked by the bot's owner: make a new one on the account page"
                )
                await self._refuse(wire, "revoked", why, 4401)
                return None
        if bot is None:
            why = (
                "this token opens no bot: check it was copied whole, or make a new one on the "
                "account page (a token made again replaces the old one)"
            )
            await self._refuse(wire, "bad-token", why, 4401)
            return None
        if bot.barred == "deleted":
            why = "this bot, or its owner's account, was deleted"
            await self._refuse(wire, "revoked", why, 4401)
            return None
        if bot.barred is not None:
            await self._refuse(wire, "disabled", BOT_DISABLED, 4403)
            return None
        other = self.links.get(bot.player_id)
        if other is not None:
            since = time.strftime("%H:%M:%S UTC", time.gmtime(other.since / 1000))
            why = (
                f"the bot {bot.username} is already connected from another bridge (since "
                f"{since}): stop that one first, or make a new token to cut it off"
            )
            await self._refuse(wire, "in-use", why, 4409)
            return None
        link = BotLink(bot, wire, Accepts.stored(bot.accepts), self.service.now_ms())
        self.links[bot.player_id] = link
        self._by_key[link.key] = link
        return link

    async def _refuse(self, wire: Wire, code: str, why: str, close: int) -> None:
        # The code alone: the reason may name the bot or echo what it sent (docs/web.md, "What is
        # logged": no user name, no text of a visitor's).
        log.info("refused a bot connection: %s", code)
        await wire.send(_error(code, why))
        await wire.close(close, code)

    async def _arrive(self, link: BotLink) -> None:
        """Welcome: the bot's settings, then its games on and the challenges waiting for it."""
        bot = link.bot
        await link.wire.send(
            {
                "type": "welcome",
                "protocol": PROTOCOL,
                "bot": bot.username,
                "owner": bot.owner,
                "accepts": link.accepts.to_json(),
            }
        )
        for row, _ in await self.store.player_games(bot.player_id, "playing", 100):
            game = await self.service.get(row.id)
            if game is not None and bot.player_id in game.row.players:
                seat = game.row.players.index(bot.player_id)
                await self._open(link, game, seat)
                await self.service.publish(game.id)  # its opponent learns it is back
        now = self.service.now_ms()
        for c in await self.store.open_challenges(SHOWN):
            if c.to_key == link.key and self.lobby.live(c, now):
                await self.challenge_changed(c)
        await self.on_change()

    async def _leave(self, link: BotLink) -> None:
        """The bot went: its waiting challenges are declined (its games' clocks run on), and
        what it used of its 60 s on each act it owes is kept (the rest is its own when it is
        asked again: only time connected counts)."""
        if self.links.get(link.bot.player_id) is link:
            del self.links[link.bot.player_id]
            self._by_key.pop(link.key, None)
        now = self.service.now_ms()
        for game_id, (version, since) in link.asked.items():
            key = (link.bot.player_id, game_id)
            owed = self._owed.get(key)
            if owed is not None and owed[0] == version:  # still owed (not answered, not over)
                used = max(now - since, owed[1] + REASK_MS)
                self._owed[key] = (version, min(used, ANSWER_MS))
        for game_id, seat in list(link.games.items()):
            self._forget(game_id, link.bot.player_id)
            # Apart from this handler, which aiohttp cancels once the peer has gone.
            task = asyncio.create_task(self._departed(link, game_id, seat))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
        task = asyncio.create_task(self._gone(link))  # apart from the handler, as above
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _gone(self, link: BotLink) -> None:
        """The challenges offered to a bot that went are declined, and the lobby's list told."""
        for challenge_id in list(link.offered):
            await self._decline(challenge_id)
        with contextlib.suppress(Exception):
            await self.on_change()

    async def _departed(self, link: BotLink, game_id: str, seat: int) -> None:
        """Its opponent learns the bot left; an absence counts from now (the claim of an
        untimed game: docs/bots.md, "A bot that leaves")."""
        if self.online(game_id, seat):
            return  # back already
        await self.service.went(game_id, seat)
        if not self.service.presence.elsewhere(game_id, seat):
            try:
                await self.service.publish(game_id)
            except Exception:  # the database failed
                log.exception("the departure of bot %s from game %s", link.bot.player_id, game_id)

    async def _handle(self, link: BotLink, text: str) -> None:
        data, wrong = _read(text)
        if not isinstance(data, dict):
            why = f"{wrong}: " if wrong else ""
            await link.wire.send(
                _error("bad-request", f'{why}send a JSON object, e.g. {{"type": "ping"}}')
            )
            return
        kind = data.get("type")
        try:
            if kind == "ping":
                await link.wire.send({"type": "pong"})
            elif kind == "accept":
                await self._accept(link, data.get("id"))
            elif kind == "decline":
                await self._bot_declines(link, data.get("id"))
            elif kind in ("move", "resign", "forfeit"):
                await self._play(link, kind, data)
            else:
                await link.wire.send(
                    _error(
                        "bad-request",
                        f"unknown message type {show(kind)}; expected accept, decline, move, "
                        "resign, forfeit or ping",
                    )
                )
        except WebError as e:
            extra = {"game": data["game"]} if isinstance(data.get("game"), str) else {}
            await link.wire.send(_error(e.code, e.message, **extra))

    # -- challenges ------------------------------------------------------------------------------

    async def screen(self, to_key: str, control: TimeControl, rated: bool, by: str) -> None:
        """Refuse, saying why, a challenge of the player ``by`` to a bot that is not here or
        would not accept it, or a rated one to a bot of their own (the lobby asks before
        storing a challenge addressed to a player)."""
        link = self._by_key.get(to_key)
        bot = link.bot if link is not None else await self.store.bot_by_key(to_key)
        if bot is None:
            return  # a person
        if rated and bot.owner_id == by:
            # Its owner chooses its moves too: a rated game would rate them against themselves.
            raise FieldError(
                "rated",
                f"{bot.username} is your own bot: a game against it cannot be rated; "
                "challenge it to a casual game",
                "own-bot",
            )
        if link is None:
            raise FieldError(
                "to",
                f"the bot {bot.username} is not connected now: challenge it when the lobby "
                "shows it",
                "declined",
            )
        why = link.accepts.refusal(control, rated)
        if why is not None:
            raise FieldError("to", f"{link.bot.username} {why}", "declined")
        busy = self._busy(link) + len(link.offered)
        if busy >= link.accepts.games:
            most = "its owner allows" if link.bot.owner_id is not None else "it plays"
            raise FieldError(
                "to",
                f"{link.bot.username} already has {busy} game{'' if busy == 1 else 's'} on or "
                f"offered, the most {most} at once: try again soon",
                "declined",
            )

    async def screen_rematch(self, game: LiveGame, seat: int) -> None:
        """Refuse, saying why, a rematch (asked by ``seat``) with a bot that is not connected
        here or would not accept the game now (its clock or rated flag outside what its owner
        allows today, as many games on as it plays at once): a rematch is a challenge too."""
        other = game.row.players[1 - seat]
        if other is None or other not in self.known:
            return
        link = self.links.get(other)
        name = game.row.names[1 - seat]
        if link is None:
            raise WebError("declined", f"{name} is not connected now: no rematch")
        why = link.accepts.refusal(TimeControl.parse(game.row.control or "none"), game.row.rated)
        if why is None and self._busy(link) + len(link.offered) >= link.accepts.games:
            most = "its owner allows" if link.bot.owner_id is not None else "it plays"
            why = f"already has as many games on as {most} at once"
        if why is not None:
            raise WebError("declined", f"{link.bot.username} {why}: no rematch")

    def _busy(self, link: BotLink) -> int:
        """The bot's games that count towards its limit: all but those whose opponent has had
        the move for ``IDLE_MS``."""
        now = self.service.now_ms()
        idle = sum(now - w[1] >= IDLE_MS for g, w in link.waiting.items() if g in link.games)
        return len(link.games) - idle

    async def challenge_changed(self, c: ChallengeRow) -> None:
        """Tell the bot a challenge is addressed to of it (open), or that it went."""
        if c.to_key is None:
            return
        link = self._by_key.get(c.to_key)
        if link is None:
            return
        if c.status == "open":
            if c.id not in link.offered:
                link.offered.add(c.id)
                shown = await show_challenge(self.store, c, link.bot.player_id, link.key)
                await link.wire.send({"type": "challenge", "challenge": shown})
        elif c.id in link.offered:
            link.offered.discard(c.id)
            await link.wire.send({"type": "gone", "id": c.id, "why": c.status})

    async def _accept(self, link: BotLink, challenge_id: Any) -> None:
        if not isinstance(challenge_id, str) or challenge_id not in link.offered:
            raise WebError("not-found", f"no challenge {show(challenge_id)} waits for this bot")
        c = await self.store.challenge(challenge_id)
        bot = await self.store.bot(link.bot.player_id)
        if c is None or bot is None or bot.barred is not None:
            link.offered.discard(challenge_id)
            await self._decline(challenge_id)
            raise WebError("not-found", "this challenge cannot be accepted now")
        why = link.accepts.refusal(TimeControl.parse(c.control), c.rated)
        if why is None and self._busy(link) >= link.accepts.games:
            most = "its owner allows" if link.bot.owner_id is not None else "it plays at once"
            why = f"is playing the most games {most}"
        if why is not None:
            link.offered.discard(challenge_id)
            await self._decline(challenge_id)
            raise WebError("declined", f"declined for the bot: it {why}")
        me = PlayerRow(bot.player_id, bot.name, bot.username)
        link.offered.discard(challenge_id)  # taken (or gone): the bot is not told it went
        game, seat = await self.lobby.accept(me, challenge_id, f"bot:{bot.player_id}", bot=True)
        await self._open(link, game, seat)

    async def _bot_declines(self, link: BotLink, challenge_id: Any) -> None:
        if not isinstance(challenge_id, str) or challenge_id not in link.offered:
            raise WebError("not-found", f"no challenge {show(challenge_id)} waits for this bot")
        link.offered.discard(challenge_id)
        await self._decline(challenge_id)

    async def _decline(self, challenge_id: str) -> None:
        if await self.store.decline_challenge(challenge_id, self.service.now_ms()):
            c = await self.store.challenge(challenge_id)
            if c is not None:
                await self.lobby.publish(c)

    # -- games ---------------------------------------------------------------------------------

    async def _open(self, link: BotLink, game: LiveGame, seat: int) -> None:
        """Tell the bot of one of its games (once a connection), then whatever is due in it."""
        if game.id in link.games:
            return  # told already (taken as it was published, say)
        row = game.row
        link.games[game.id] = seat
        self._by_game.setdefault(game.id, set()).add(link.bot.player_id)
        await self.service.came(game.id, seat)  # an absence counts from here; the others told
        await link.wire.send(
            {
                "type": "game",
                "game": game.id,
                "seat": seat,
                "rules": {"max_rounds": row.max_rounds},
                "opponent": row.names[1 - seat],
                "control": row.control or "none",
                "rated": row.rated,
                "url": f"/g/{game.id}",
            }
        )
        await self._tell(link, game)

    async def game_changed(self, game_id: str) -> None:
        """A game changed (a move, its end, a rematch): tell the bots connected here that play
        it, by its players, whether or not this server told them of it before (a game that
        ended before this server started, given a rematch now). An ended game's owed acts are
        forgotten, its bots here or not (gone for good, say)."""
        if not self.links and not self._owed:
            return
        game = await self.service.get(game_id)
        if game is None:  # not found (deleted): nothing of it is owed any more
            for key in [k for k in self._owed if k[1] == game_id]:
                del self._owed[key]
            return
        if game.state.is_over:
            # Its bots may never be told (gone, or linked to another server): only the end of
            # the game, however it came (resigned, claimed, forfeited, on time), bounds these.
            for player_id in game.row.players:
                if player_id is not None:
                    self._owed.pop((player_id, game_id), None)
        for player_id in dict.fromkeys(game.row.players):
            link = self.links.get(player_id) if player_id is not None else None
            if link is not None:
                await self._tell(link, game)

    async def _tell(self, link: BotLink, game: LiveGame) -> None:
        seat = link.games.get(game.id)
        if seat is None:
            if not game.state.is_over:
                await self._take(link, game)  # a game of its it was never told of
            elif game.id not in link.rematched and game.row.rematch is not None:
                await self._rematch(link, game)
            return
        if game.id in link.opening:
            return  # its "game" comes first, then the act
        state = game.state
        if state.is_over:
            outcome = state.outcome
            assert outcome is not None
            del link.games[game.id]
            self._forget(game.id, link.bot.player_id)
            link.asked.pop(game.id, None)
            self._owed.pop((link.bot.player_id, game.id), None)
            link.waiting.pop(game.id, None)
            await link.wire.send(
                {
                    "type": "result",
                    "game": game.id,
                    "view": state.view(seat).to_json(),
                    "winner": outcome.winner,
                    "reason": outcome.reason.value,
                    "why": outcome.why,
                }
            )
            return
        if state.to_move != seat:  # the opponent's move: since when, for the idle games
            link.asked.pop(game.id, None)
            self._owed.pop((link.bot.player_id, game.id), None)
            if link.waiting.get(game.id, (None,))[0] != game.row.version:
                link.waiting[game.id] = (game.row.version, self.service.now_ms())
            return
        link.waiting.pop(game.id, None)
        if link.asked.get(game.id, (None,))[0] == game.row.version:
            return
        now = self.service.now_ms()
        owed = self._owed.get((link.bot.player_id, game.id))
        if owed is None or owed[0] != game.row.version:  # a new act; else asked again: the rest
            owed = self._owed[(link.bot.player_id, game.id)] = (game.row.version, 0)
        link.asked[game.id] = (game.row.version, now - owed[1])
        view = state.view(seat)  # this seat's VIEW only: never the opponent's cards
        await link.wire.send(
            {
                "type": "act",
                "game": game.id,
                "version": game.row.version,
                "view": view.to_json(),
                "legal": [str(m) for m in view.legal_moves],
                "clock_ms": think_ms(game, seat, now),
                "clock": clock_json(game, seat, now, online=True),
            }
        )

    async def _rematch(self, link: BotLink, game: LiveGame) -> None:
        """A finished game of the bot's was given a rematch: the bot takes its seat there."""
        link.rematched.add(game.id)
        if len(link.rematched) > 1000:  # only recent games can be rematched: forget the oldest
            link.rematched.discard(next(iter(link.rematched)))
        new = await self.service.get(game.row.rematch or "")
        if new is not None:
            await self._take(link, new)

    async def _take(self, link: BotLink, game: LiveGame) -> None:
        """A game of the bot's on that it was not told of (a rematch): it takes its seat there
        (a timed game's clock starts) and is told, its opponent's page that it is there."""
        player = link.bot.player_id
        if game.id in link.games or game.state.is_over or player not in game.row.players:
            return
        seat = game.row.players.index(player)
        # Present (for the page the seat's joining is published to), its act held back until
        # the bot has its "game".
        link.games[game.id] = seat
        link.opening.add(game.id)
        self._by_game.setdefault(game.id, set()).add(player)
        try:
            await self.service.seat_for(game.id, game.row.tokens[seat])  # joined
            held = await self.service.get(game.id)
        finally:
            link.opening.discard(game.id)
            link.games.pop(game.id, None)
        if held is not None and self.links.get(player) is link:
            await self._open(link, held, seat)
            await self.service.publish(game.id)  # its opponent's page: the bot is here
        else:
            self._forget(game.id, player)

    def _forget(self, game_id: str, player_id: str) -> None:
        """``player_id``'s bot no longer plays ``game_id`` here (it ended, or the bot left)."""
        held = self._by_game.get(game_id)
        if held is not None:
            held.discard(player_id)
            if not held:
                del self._by_game[game_id]

    async def _answers_due(self, now: int) -> None:
        """Forfeit (``timeout``) each game whose bot, connected here, has not answered its
        ``act`` within ``ANSWER_MS`` (docs/bots.md), unless its clock ends it sooner. The server
        holding the bot's link sent the act and receives the answer: it alone can tell (a bot
        that reconnects elsewhere is asked again there). The house bots are the server's own,
        bounded by its AI workers' queue."""
        for link in list(self.links.values()):
            if link.bot.owner_id is None:
                continue
            for game_id, (version, asked_at) in list(link.asked.items()):
                seat = link.games.get(game_id)
                if now - asked_at < ANSWER_MS or seat is None:
                    continue
                game = await self.service.get(game_id)
                if game is None or game.row.version != version or game.state.to_move != seat:
                    continue
                deadline = game.row.deadline
                if deadline is not None and deadline <= asked_at + ANSWER_MS:
                    continue  # its clock falls first: it loses on time, as anyone
                log.info("bot %s forfeits game %s (no answer)", link.bot.player_id, game_id)
                with contextlib.suppress(WebError):  # it answered meanwhile, or the game ended
                    await self.service.forfeit(game_id, seat, "engine-timeout", version)

    async def _play(self, link: BotLink, kind: str, data: dict[str, Any]) -> None:
        game_id = data.get("game")
        if not isinstance(game_id, str) or game_id not in link.games:
            # One of its games that has ended is "over", as docs/bots.md lists it.
            game = None
            if isinstance(game_id, str) and 0 < len(game_id) <= 40:  # an id's length
                game = await self.service.get(game_id)
            if game is not None and link.bot.player_id in game.row.players and game.state.is_over:
                raise WebError("over", f"the game {show(game_id)} is over")
            if game_id is None:
                raise WebError("bad-request", f'a {kind} names its game: {{"game": ID, ...}}')
            raise WebError("not-found", f"the bot plays no game {show(game_id)} now")
        seat = link.games[game_id]
        if kind == "move":
            arrived = self.service.now_ms()
            version = data.get("version")
            await self.service.play(game_id, seat, data.get("move"), version, arrived)
        elif kind == "resign":
            await self.service.resign(game_id, seat)
        else:
            failure = data.get("kind")
            if failure not in ENGINE_FAILURES:
                raise WebError("bad-request", f"kind must be one of {', '.join(ENGINE_FAILURES)}")
            # By its player's id and the kind alone: the engine's message may quote its cards.
            log.info("bot %s forfeits game %s (%s)", link.bot.player_id, game_id, failure)
            await self.service.forfeit(game_id, seat, f"engine-{failure}")

    # -- what others ask ---------------------------------------------------------------------

    def online(self, game_id: str, seat: int) -> bool:
        """Whether ``seat`` of ``game_id`` is a bot connected here (for its opponent's page)."""
        for player_id in self._by_game.get(game_id, ()):
            link = self.links.get(player_id)
            if link is not None and link.games.get(game_id) == seat:
                return True
        return False

    def connected(self) -> list[tuple[str, int]]:
        """Every ``(game, seat)`` a bot connected here plays (its presence, for the claim)."""
        return [(g, s) for link in self.links.values() for g, s in link.games.items()]

    async def listing(self) -> list[dict[str, Any]]:
        """The bots connected here, as the lobby shows them: house bots first, by rating."""
        links = list(self.links.values())
        ids = [link.bot.player_id for link in links if link.bot.owner_id is not None]
        ratings: dict[str, dict[str, int]] = {}
        for family in FAMILIES:
            for pid, s in (await self.store.standings(ids, family)).items():
                ratings.setdefault(pid, {})[family] = round(s.rating.rating)
        shown: list[dict[str, Any]] = []
        for link in links:
            bot = link.bot
            level = _house_level(bot.player_id)
            if level is not None:
                fixed = round(AI_RATINGS[level].rating)
                ratings[bot.player_id] = dict.fromkeys(FAMILIES, fixed)
            shown.append(
                {
                    "username": bot.username,
                    "house": level is not None,
                    "level": level,
                    "owner": bot.owner,
                    "accepts": link.accepts.to_json(),
                    "playing": len(link.games),
                    "ratings": ratings.get(bot.player_id, {}),
                }
            )
        shown.sort(key=lambda b: (not b["house"], b["ratings"].get("real-time", 0), b["username"]))
        return shown

    # -- the owners' API -------------------------------------------------------------------------

    def _json(self, bot: BotRow) -> dict[str, Any]:
        link = self.links.get(bot.player_id)
        return {
            "username": bot.username,
            "accepts": Accepts.stored(bot.accepts).to_json(),
            "token": bot.has_token,
            "online": link is not None,
            "playing": len(link.games) if link is not None else 0,
            "created": bot.created_at,
            "profile": f"/@/{bot.username}",
        }

    async def mine(self, owner: PlayerRow) -> dict[str, Any]:
        """``GET /api/bots``: the account's bots."""
        return {"bots": [self._json(b) for b in await self.store.bots_of(owner.id)]}

    async def create(self, owner: PlayerRow, body: dict[str, Any]) -> dict[str, Any]:
        """``POST /api/bots``: a new bot of ``owner`` and its token (shown this once)."""
        name = check_new_username(body.get("username"))
        accepts = Accepts.from_json(body.get("accepts")).some()
        if len(await self.store.bots_of(owner.id)) >= MAX_BOTS:
            raise WebError("too-many", f"an account may have {MAX_BOTS} bots")
        # a name that differs from one kept only by "_" for "-" passes for it, as at sign-up
        if await self.store.account_like(separators_folded(username_key(name))) is not None:
            raise FieldError("username", f"the user name {name} is taken", "taken")
        token = TOKEN_PREFIX + secrets.token_urlsafe(32)
        player_id = new_id(12)
        accepted = json.dumps(accepts.to_json())
        try:
            await self.store.add_bot(
                player_id, name, username_key(name), owner.id, hash_token(token), accepted
            )
        except Duplicate:
            raise FieldError("username", f"the user name {name} is taken", "taken") from None
        bot = await self.store.bot(player_id)
        assert bot is not None
        self.known.add(player_id)
        return {"bot": self._json(bot), "token": token}

    async def _own(self, owner: PlayerRow, name: Any) -> BotRow:
        bot = None
        if isinstance(name, str) and len(name) <= 100:
            bot = await self.store.bot_by_key(username_key(name))
        if bot is None or bot.owner_id != owner.id:
            raise WebError("not-found", f"you have no bot {show(name)}")
        return bot

    async def new_token(self, owner: PlayerRow, name: Any) -> dict[str, Any]:
        """A new token for an owner's bot: the old one stops working, its bridge is cut off."""
        bot = await self._own(owner, name)
        token = TOKEN_PREFIX + secrets.token_urlsafe(32)
        await self.store.set_bot_token(bot.player_id, hash_token(token))
        await self._cut(bot, "bad-token", "this bot's token was replaced by its owner")
        again = await self.store.bot(bot.player_id)
        assert again is not None
        return {"bot": self._json(again), "token": token}

    async def revoke(self, owner: PlayerRow, name: Any) -> dict[str, Any]:
        """Revoke an owner's bot's token: its bridge is cut off and told why."""
        bot = await self._own(owner, name)
        await self.store.revoke_bot(bot.player_id)
        await self._cut(bot, "revoked", "this bot's token was revoked by its owner")
        again = await self.store.bot(bot.player_id)
        assert again is not None
        return {"bot": self._json(again)}

    async def settings(self, owner: PlayerRow, name: Any, body: dict[str, Any]) -> dict[str, Any]:
        """What an owner's bot accepts from now on (its games on go on)."""
        bot = await self._own(owner, name)
        accepts = Accepts.from_json(body.get("accepts"), Accepts.stored(bot.accepts)).some()
        text = json.dumps(accepts.to_json())
        await self.store.set_bot_accepts(bot.player_id, text)
        link = self.links.get(bot.player_id)
        if link is not None:
            link.accepts = accepts
            link.bot = replace(link.bot, accepts=text)
            await self.on_change()
        again = await self.store.bot(bot.player_id)
        assert again is not None
        return {"bot": self._json(again)}

    async def _cut(self, bot: BotRow, code: str, why: str, close: int = 4401) -> None:
        link = self.links.get(bot.player_id)
        if link is not None:
            await link.wire.send(_error(code, why))
            await link.wire.close(close, code)

    async def disabled(self, player_id: str) -> None:
        """A moderator disabled ``player_id``: its bot's link here, and those of the bots it
        owns, are cut off (``disabled``, as a bot refused at its hello is told)."""
        for link in list(self.links.values()):
            if player_id in (link.bot.player_id, link.bot.owner_id):
                await self._cut(link.bot, "disabled", BOT_DISABLED, 4403)

    async def deleted(self, owner_id: str) -> None:
        """An account was deleted, and its bots with it: their links here are cut off."""
        for link in list(self.links.values()):
            if link.bot.owner_id == owner_id:
                await self._cut(link.bot, "revoked", "this bot's owner deleted their account")

    # -- the house bots --------------------------------------------------------------------------

    async def start_house(self, levels: Iterable[str] = LEVELS) -> None:
        """The AI levels as bots (``AI-beginner`` ...), each through the bridge over an in-memory
        connection; a level whose user name an account already has is left out (logged)."""
        for level in levels:
            username = f"AI-{level}"
            accepts = Accepts(KINDS, True, True, HOUSE_GAMES.get(level, 4))
            try:
                await self.store.house_bot(
                    f"{AI_PLAYER}{level}",
                    username,
                    username_key(username),
                    username,
                    None,  # no token: another server starting must not shut this one's out
                    json.dumps(accepts.to_json()),
                )
            except Duplicate:
                log.warning("no house bot %s: an account has that user name", username)
                continue
            self.known.add(f"{AI_PLAYER}{level}")
            self._house.append(asyncio.create_task(self._run_house(level)))

    async def _run_house(self, level: str) -> None:
        """A house bot's bridge, connected again whenever its connection ends; refused (its
        account gone from the database, say), it tries again every ``HOUSE_RETRY_S``."""
        service = self.service
        player_id = f"{AI_PLAYER}{level}"
        said: list[str] = []

        def engines() -> GameEngine:
            return HouseEngine(service, level)

        async def connect() -> Any:
            channel, end = pipe()
            task = asyncio.create_task(self.serve(PipeWire(end), house=player_id))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
            return channel

        def say(line: str) -> None:
            said[:] = [line]
            log.info("house bot %s: %s", level, line)

        while True:
            await serve_bot(connect, "", Bridge(engines, say), engine=f"level:{level}")
            log.warning(
                "house bot AI-%s is not in this server's lobby: %s; trying again in %.0f s",
                level,
                said[-1] if said else "refused",
                HOUSE_RETRY_S,
            )
            await asyncio.sleep(HOUSE_RETRY_S)

    async def going_away(self) -> None:
        """The server is stopping: every bot's connection closes now (1001), so that the
        shutdown does not wait for bridges that would keep it open, and they reconnect (to this
        server started again, or another). The house bots stop first: their bridges, in this
        process, would only log that they connect again."""
        await stop_tasks(self._house, "the house bots")
        self._house.clear()
        links = list(self.links.values())
        await asyncio.gather(
            *(link.wire.close(1001, "server shutdown") for link in links), return_exceptions=True
        )

    async def close(self) -> None:
        """Stop the house bots and every bot connection's work."""
        await stop_tasks([*self._house, *self._tasks], "the bots")
        self._house.clear()


def _house_level(player_id: str) -> str | None:
    level = player_id[len(AI_PLAYER) :] if player_id.startswith(AI_PLAYER) else None
    return level if level in AI_RATINGS else None


class HouseEngine:
    """A house bot's engine: the AI level's move, searched on the AI workers (their queue and
    their limits, as the home page's AI games)."""

    def __init__(self, service: GameService, level: str) -> None:
        self.service = service
        self.level = level
        self.rules = Rules()
        self.game = secrets.token_hex(6)

    async def start(self, seat: int, rules: Rules, opponent: str) -> None:
        self.rules = rules
        self.game = secrets.token_hex(6)

    async def act(self, view: View, legal: list[Move], clock_ms: int) -> Move:
        seed = secrets.randbits(62)
        try:
            text = await self.service.ai.run(
                "move",
                (self.game, "house", len(view.history)),
                ai_worker.choose,
                self.level,
                view.to_json(),
                self.rules.max_rounds,
                seed,
                client=f"house:{self.level}",
                cost=self.level,
            )
            move = Move.parse(text)
        except asyncio.CancelledError:
            raise
        except Exception as e:  # the worker failed: the bot forfeits, as any engine would
            raise EngineError("crash", f"the AI worker failed: {type(e).__name__}: {e}") from None
        if move not in legal:
            raise EngineError("illegal", f"illegal move {move}")
        return move

    async def finish(self, view: View, winner: int | None, reason: str) -> None:
        """Nothing to do."""

    async def close(self) -> None:
        """Nothing to do."""


async def _nothing() -> None:
    return None
