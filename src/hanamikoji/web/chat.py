"""Chat: each game's two rooms, what may be said there, who reads it, and how fast one may talk.

The players' room belongs to the game's two seats; the spectators' room to its spectators, and
the players never receive it during the game. A message is short printable text, or a quick
phrase (a key such as ``good-luck`` that each reader sees in their own language). A seat may mute
its opponent for the game; a player may turn chat off for good (``players.chat_off``); a
moderator may mute or disable a player (``hanamikoji admin``, :mod:`hanamikoji.web.moderation`).
Every message is kept with the game: the review shows the players' room to the game's players
only, and the spectators' room to anyone once the game is over (docs/web.md, "Chat").
"""

from __future__ import annotations

import json
import time
import unicodedata
import weakref
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, Protocol

from hanamikoji.web.errors import WebError, check_marks, show
from hanamikoji.web.game import LiveGame
from hanamikoji.web.identity import DISABLED
from hanamikoji.web.ids import new_id
from hanamikoji.web.limits import TooMany, Window
from hanamikoji.web.service import DELETED_SEAT, GameService
from hanamikoji.web.store import ChatFlags, ChatRow, GameRow, deleted_authors

__all__ = [
    "MAX_CHAT",
    "PHRASES",
    "ROOMS",
    "Author",
    "ChatRooms",
    "Reader",
    "clean_text",
    "line_json",
    "parse_message",
]

MAX_CHAT = 200
"""The most characters a message may have (after its spaces are collapsed)."""
PHRASES = ("hello", "good-luck", "well-played", "thanks")
"""The quick phrases, by key (each page says them in its own language)."""
ROOMS = ("players", "spectators")
HISTORY = 500
"""The most messages of a room sent at once (the oldest first)."""

_JOINER = "\u200d"  # the zero-width joiner inside emoji sequences: invisible, yet harmless
_MARKS = "\u200e\u200f\u061c"
"""The direction marks (LEFT-TO-RIGHT MARK, RIGHT-TO-LEFT MARK, ARABIC LETTER MARK) that Hebrew
and Arabic typists use: each acts as one strong letter, so it cannot reorder the text outside
itself (unlike the embeddings, overrides and isolates, U+202A..U+202E and U+2066..U+2069, which
are refused)."""
_ALLOWED = frozenset(_JOINER + _MARKS)


class Reader(Protocol):
    """A socket that may be sent chat (a seat's, with its seat; a spectator's, seat -1)."""

    seat: int

    async def send(self, message: dict[str, Any], *, text: str | None = None) -> None: ...


@dataclass(frozen=True)
class Author:
    """Who posts: the seat (None: a spectator), the player (None: a seat opened by its link
    alone), the name kept with the message, and the key the rate limits count by."""

    seat: int | None
    player: str | None
    name: str
    key: str
    client: str = ""
    """The address posting ("": not counted by address, a seat's two players)."""


def clean_text(text: Any) -> str:
    """A message as typed: its runs of spaces, tabs and line breaks collapsed to one space;
    at most :data:`MAX_CHAT` characters of printable text.

    Control characters, escape sequences, invisible formatting (direction embeddings, overrides
    and isolates included) and broken Unicode are refused, not stripped: the author is told which
    character, and where. The zero-width joiner (emoji sequences) and the direction marks
    (:data:`_MARKS`) are text.
    """
    if not isinstance(text, str):
        raise WebError("bad-request", f"text must be a string, got {show(text)}")
    flat = " ".join(text.split())
    if not flat.strip(_JOINER + _MARKS):
        raise WebError("bad-request", "the message is empty")
    if len(flat) > MAX_CHAT:
        raise WebError(
            "too-long", f"a message is at most {MAX_CHAT} characters; this one has {len(flat)}"
        )
    at, bad = next(
        (
            (i, c)
            for i, c in enumerate(text, 1)
            if not c.isprintable() and c not in _ALLOWED and not c.isspace()
        ),
        (0, ""),
    )
    if bad:
        raise WebError("bad-request", f"a message must be printable text: {_refused(bad, at)}")
    check_marks(flat, "a message")
    return flat


_DIRECTION_CONTROLS = frozenset([*range(0x202A, 0x202F), *range(0x2066, 0x206A)])
"""The embeddings, overrides and isolates: each reorders the text after it, up to its end."""
_KINDS = {
    "Cc": "a control character",
    "Cf": "an invisible formatting character",
    "Co": "a private-use character",
    "Cn": "not a character (unassigned)",
}


def _refused(char: str, at: int) -> str:
    """Why ``char``, the ``at``-th character of a message as sent, is refused, naming it."""
    code = ord(char)
    if 0xD800 <= code <= 0xDFFF:
        return f"U+{code:04X} (character {at}) is half of a UTF-16 surrogate pair (broken Unicode)"
    name = unicodedata.name(char, "")
    if code in _DIRECTION_CONTROLS:
        what = "a direction control, which would reorder the text around it"
    else:
        what = _KINDS.get(unicodedata.category(char), "not printable text")
    return f"U+{code:04X}{' ' + name if name else ''} (character {at}) is {what}"


def parse_message(data: dict[str, Any]) -> tuple[str, str]:
    """``(kind, body)`` of a client's ``chat`` message: its ``text``, or its quick ``phrase``."""
    unknown = sorted(k for k in data if k not in ("type", "room", "text", "phrase", "game"))
    if unknown:
        raise WebError(
            "bad-request", f"unknown keys {show(unknown, 80)}; a chat message has text or phrase"
        )
    if "phrase" in data:
        if "text" in data:
            raise WebError("bad-request", "a chat message has text or a phrase, not both")
        phrase = data["phrase"]
        if phrase not in PHRASES:
            raise WebError(
                "bad-request", f"unknown phrase {show(phrase)}; expected {', '.join(PHRASES)}"
            )
        return "phrase", str(phrase)
    if "text" not in data:
        raise WebError(
            "bad-request", 'a chat message needs text, e.g. {"type": "chat", "text": "hi"}'
        )
    return "text", clean_text(data["text"])


def line_json(line: ChatRow, *, deleted: bool = False) -> dict[str, Any]:
    """A message as the pages receive it: the author's seat in the players' room (their name is
    the seat's), the author's user name in the spectators' (null: a guest, or with
    ``deleted: true`` an account deleted since)."""
    said = {"phrase": line.body} if line.kind == "phrase" else {"text": line.body}
    if line.room == "players":
        return {"id": line.id, "seat": line.seat, "at": line.at, **said}
    if deleted:
        return {"id": line.id, "name": None, "deleted": True, "at": line.at, **said}
    return {"id": line.id, "name": line.name or None, "at": line.at, **said}


def room_of(data: dict[str, Any]) -> str:
    """The room a client's message names (the players' when it names none)."""
    room = data.get("room", "players")
    if room not in ROOMS:
        raise WebError("bad-request", f"unknown room {show(room)}; expected players or spectators")
    return str(room)


@dataclass
class ChatRooms:
    """The rooms of this server process: posting, delivering to the sockets here, history.

    ``seats(game)`` and ``watchers(game)`` are the sockets of a game's seats and spectators
    connected to this process (the server's hub holds them). On PostgreSQL a message posted
    through another server is heard (``store.listen_chat``) and delivered here too.
    """

    service: GameService
    seats: Callable[[str], Iterable[Reader]] = lambda game_id: ()
    watchers: Callable[[str], Iterable[Reader]] = lambda game_id: ()
    clock: Callable[[], float] = time.monotonic
    _joined: weakref.WeakKeyDictionary[Any, tuple[str, str | None]] = field(
        default_factory=weakref.WeakKeyDictionary
    )
    _stop: Callable[[], Awaitable[None]] | None = None
    _last_at: int = 0
    _removed: dict[str, None] = field(default_factory=dict)  # removals told here (the latest)

    def __post_init__(self) -> None:
        limits = self.service.limits.limits
        self._burst = Window(
            limits.chat_burst,
            10,
            f"too many messages: at most {limits.chat_burst} in 10 seconds",
            self.clock,
        )
        self._minute = Window(
            limits.chat_per_minute,
            60,
            f"too many messages: at most {limits.chat_per_minute} a minute",
            self.clock,
        )
        n = limits.chat_per_address
        self._address = Window(
            n, 60, f"too many messages from your address: at most {n} a minute", self.clock
        )

    async def start(self) -> None:
        """Hear the messages other server processes store (PostgreSQL)."""
        self._stop = await self.service.store.listen_chat(self._heard)

    async def close(self) -> None:
        """Stop hearing them."""
        if self._stop is not None:
            await self._stop()
            self._stop = None

    # -- posting ------------------------------------------------------------------------------

    async def post(
        self, game: LiveGame, room: str, author: Author, data: dict[str, Any]
    ) -> ChatRow:
        """Check, keep and deliver one message; :class:`WebError` says why one is refused."""
        if room == "players" and game.row.mode == "ai":
            raise WebError(
                "not-allowed", "the AI does not chat: the players' room is for games between people"
            )
        if room == "players" and any(self.service.bot_seats(game)):
            # A bot's bridge never reads chat (docs/bots.md): a message would go unheard.
            raise WebError(
                "not-allowed", "a bot does not chat: the players' room is for games between people"
            )
        if room == "players" and game.row.withdrawn:  # nobody would ever read it
            raise WebError(
                "not-allowed", "nobody took the other seat of this game: there is nobody to talk to"
            )
        kind, body = parse_message(data)
        if author.player is not None:
            flags = (await self.service.store.chat_flags([author.player])).get(author.player)
            _may_talk(flags or ChatFlags())
        try:
            self._burst.check(author.key)
            self._minute.check(author.key)
            if author.client:
                self._address.check(author.client)
        except TooMany as e:
            raise WebError("too-many", e.message, e.retry_after) from None
        # Two messages of one millisecond keep their order (a room is read by time).
        at = self._last_at = max(self.service.now_ms(), self._last_at + 1)
        line = ChatRow(
            id=new_id(9),
            game=game.id,
            room=room,
            seat=author.seat if room == "players" else None,
            player=author.player,
            name=author.name,
            kind=kind,
            body=body,
            at=at,
        )
        await self.service.store.add_chat(line)
        self._burst.add(author.key)
        self._minute.add(author.key)
        if author.client:
            self._address.add(author.client)
        await self.deliver(game.row, line)
        return line

    async def deliver(self, row: GameRow, line: ChatRow) -> None:
        """Send ``line`` to the sockets here that may read it."""
        message = {"type": "chat", "room": line.room, "line": line_json(line)}
        text = json.dumps(message, separators=(",", ":"))
        if line.room == "players":
            readers = await self.readers(row, line.seat)
            for conn in list(self.seats(row.id)):
                if conn.seat in readers:
                    await conn.send(message, text=text)
            return
        joined = [c for c in list(self.watchers(row.id)) if self._joined.get(c, ("",))[0] == row.id]
        players = [p for c in joined if (p := self._joined[c][1]) is not None]
        flags = await self.service.store.chat_flags(players) if players else {}
        for conn in joined:
            player = self._joined[conn][1]
            if player is None or not flags.get(player, ChatFlags()).chat_off:
                await conn.send(message, text=text)

    async def readers(self, row: GameRow, author_seat: int | None) -> set[int]:
        """The seats shown a message of ``author_seat`` in the players' room: not a seat whose
        player turned chat off, nor one that muted the author."""
        players = [p for p in row.players if p is not None]
        flags = await self.service.store.chat_flags(players) if players else {}
        mutes = await self.service.store.chat_mutes(row.id)
        seats = set()
        for seat in (0, 1):
            player = row.players[seat]
            if player is not None and flags.get(player, ChatFlags()).chat_off:
                continue
            if seat != author_seat and seat in mutes:
                continue
            seats.add(seat)
        return seats

    # -- reading ------------------------------------------------------------------------------

    async def history(
        self, row: GameRow, room: str, seat: int | None, player: str | None
    ) -> dict[str, Any]:
        """The ``chat-history`` message of a room for one reader (a seat, or a spectator:
        ``seat`` None): the messages it may read, whether it muted its opponent, whether its
        player has chat off (then no message at all)."""
        flags = ChatFlags()
        if player is not None:
            flags = (await self.service.store.chat_flags([player])).get(player, flags)
        muted = seat is not None and seat in await self.service.store.chat_mutes(row.id)
        lines: list[ChatRow] = []
        if not flags.chat_off:
            lines = await self.service.store.chat(row.id, room, HISTORY)
            if muted:
                lines = [line for line in lines if line.seat == seat]
        deleted = await deleted_authors(self.service.store, lines)
        return {
            "type": "chat-history",
            "room": room,
            "lines": [line_json(line, deleted=line.player in deleted) for line in lines],
            "muted": muted,
            "off": flags.chat_off,
        }

    def join(self, conn: Reader, game_id: str, player: str | None) -> None:
        """A spectator's socket opened the spectators' room (only those receive its messages)."""
        self._joined[conn] = (game_id, player)

    async def mute(self, game: LiveGame, seat: int, on: Any) -> None:
        """``seat`` mutes (or no longer mutes) its opponent in this game; its sockets here are
        sent the room again, as it now reads it."""
        if not isinstance(on, bool):
            raise WebError("bad-request", f"on must be true or false, got {show(on)}")
        if game.row.mode == "ai":
            raise WebError("not-allowed", "the AI does not chat: there is nobody to mute")
        await self.service.store.set_chat_mute(game.id, seat, on)
        conns = [c for c in list(self.seats(game.id)) if c.seat == seat]
        if conns:
            history = await self.history(game.row, "players", seat, game.row.players[seat])
            for conn in conns:
                await conn.send(history)

    async def review(self, row: GameRow, seat: int | None, player: str | None) -> dict[str, Any]:
        """A finished game's rooms for its review: the players' room to a seat of the game only
        (as that seat read it), the spectators' room to anyone."""
        players = None
        if seat is not None:
            players = (await self.history(row, "players", seat, row.players[seat]))["lines"]
        spectators = (await self.history(row, "spectators", None, player))["lines"]
        return {"players": players, "spectators": spectators}

    async def removed(self, line_id: str) -> None:
        """A moderator removed a message: the sockets here showing its room are told, once
        (heard on PostgreSQL's channel and read in the moderation log alike)."""
        if line_id in self._removed:
            return
        self._removed[line_id] = None  # (before reading: the other path may come meanwhile)
        if len(self._removed) > 1000:  # only recent removals arrive twice: forget the oldest
            del self._removed[next(iter(self._removed))]
        line = await self.service.store.chat_line(line_id)
        if line is None or not line.removed:
            self._removed.pop(line_id, None)
            return
        message = {"type": "chat-removed", "room": line.room, "id": line.id}
        room = self.seats if line.room == "players" else self.watchers
        for conn in list(room(line.game)):
            await conn.send(message)

    async def _heard(self, item: str) -> None:
        """Another process stored (``ID``) or a moderator removed (``-ID``) a message."""
        if item.startswith("-"):
            await self.removed(item[1:])
            return
        line = await self.service.store.chat_line(item)
        if line is None:
            return
        game = await self.service.get(line.game)
        if game is not None and not line.removed:
            await self.deliver(game.row, line)


def _may_talk(flags: ChatFlags) -> None:
    """Refuse a player whom a moderator disabled or muted, who turned chat off, or whose account
    was deleted (a seat's link kept: the seat no longer speaks)."""
    if flags.deleted:
        raise WebError("bad-token", DELETED_SEAT)
    if flags.disabled:
        raise WebError("disabled", DISABLED)
    if flags.muted:
        raise WebError("muted", "a moderator has muted you: your messages are not sent to anyone")
    if flags.chat_off:
        raise WebError(
            "chat-off", "you turned chat off in your settings: turn it on to send messages"
        )
