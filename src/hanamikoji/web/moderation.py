"""Moderation: ``hanamikoji admin`` over a server's database.

Mute or disable a player (an account, a bot's account, or a guest by its id), reset their display
name, list and remove chat messages; every act is written to the moderation log (who, what, to
whom, when, why) in the same transaction, and ``hanamikoji admin log`` shows it. The servers read
the flags at each chat message and each seat's connection: a muted player's messages (and new
display names) are refused, a disabled player cannot sign in or open a seat and their sessions
end (docs/web.md, "Moderation").

A server follows the log (:class:`Follower`, every ``POLL_S`` seconds) and applies each new act
to its own sockets at once: a disabled player's sockets close, a removed message leaves the
pages open, on SQLite as on PostgreSQL; its lobby follows it too (a disabled player's open
challenges are cancelled).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import getpass
import json
import logging
import secrets
import sys
import time
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime

from hanamikoji.terminal import printable
from hanamikoji.web.store import (
    ChatFlags,
    ChatRow,
    ModerationRow,
    PlayerRow,
    Store,
    StoreError,
    deleted_authors,
    open_store,
)

__all__ = [
    "FLAGS",
    "MOST_LISTED",
    "POLL_S",
    "Follower",
    "ModerationError",
    "configure",
    "find_player",
    "moderate",
    "remove",
    "reset_name",
    "run",
    "subject",
]

log = logging.getLogger(__name__)

POLL_S = 2.0
"""How often a server reads the moderation log's new acts."""
LATE_S = 30.0
"""How far back each read looks: an act committed up to this late (its id, led by the time it
was made, sorting before acts already read) is still applied, once."""

FLAGS = {
    "mute": ("muted", True),
    "unmute": ("muted", False),
    "disable": ("disabled", True),
    "enable": ("disabled", False),
}
"""Each act on a player: the flag it sets or clears."""
_HELP = {
    "mute": "refuse a player's chat messages (in every game, until unmuted); their display name "
    "can no longer be changed",
    "unmute": "let a muted player talk again",
    "disable": "stop a player signing in or opening a seat; their sessions end, their games are "
    "forfeited and their open challenges cancelled",
    "enable": "let a disabled player sign in again",
    "reset-name": "clear a player's display name (their new games and the lobby show their user "
    "name, or a guest's default name); their open challenges are cancelled",
}
MOST_LISTED = 10_000
"""The most lines ``messages`` and ``log`` print (``--limit``)."""


class ModerationError(Exception):
    """An act that cannot be done (no such player, no such message): the message says why."""


def configure(parser: argparse.ArgumentParser, count: Callable[[str], int]) -> None:
    """The ``admin`` command's arguments (its actions, each with ``--db`` and ``--by``);
    ``count`` reads ``--limit``, a whole number of 1 or more, as the command line's others (and
    at most ``MOST_LISTED``)."""

    def limit(text: str) -> int:
        value = count(text)
        if value > MOST_LISTED:
            raise argparse.ArgumentTypeError(f"{text!r}: must be at most {MOST_LISTED}")
        return value

    common = argparse.ArgumentParser(add_help=False)
    common.add_argument(
        "--db",
        default=None,
        metavar="URL",
        help="the server's database, as `hanamikoji serve --db` takes it (default: the default "
        "SQLite file)",
    )
    common.add_argument(
        "--by", default=None, metavar="NAME", help="who acts, for the log (default: your login)"
    )
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    for verb, text in _HELP.items():
        act = actions.add_parser(verb, parents=[common], help=text, description=text)
        act.add_argument(
            "player", metavar="PLAYER", help="a user name (an account's, a bot's) or a player id"
        )
        act.add_argument("--reason", required=True, help="why, for the log")
    listing = actions.add_parser(
        "messages", parents=[common], help="list chat messages, the newest first (removed too)"
    )
    listing.add_argument("--game", default=None, metavar="GAME", help="only this game's")
    listing.add_argument(
        "--player", default=None, metavar="PLAYER", help="only this player's (user name or id)"
    )
    listing.add_argument(
        "--limit", type=limit, default=50, metavar="N", help=f"at most N (50; {MOST_LISTED} most)"
    )
    removal = actions.add_parser(
        "remove", parents=[common], help="remove a chat message (kept, marked, for the log)"
    )
    removal.add_argument("message", metavar="MESSAGE", help="the message's id (see messages)")
    removal.add_argument("--reason", required=True, help="why, for the log")
    log = actions.add_parser("log", parents=[common], help="the moderation log, the newest first")
    log.add_argument(
        "--limit", type=limit, default=50, metavar="N", help=f"at most N (50; {MOST_LISTED} most)"
    )


def run(args: argparse.Namespace) -> int:
    """Run one ``admin`` action; the exit status (1 with a one-line message when refused)."""
    try:
        for line in asyncio.run(_act(args)):
            print(line)
    except (ModerationError, StoreError) as e:
        print(f"hanamikoji admin: {e}", file=sys.stderr)
        return 1
    return 0


async def _act(args: argparse.Namespace) -> list[str]:
    store = await open_store(args.db, create=False)
    try:
        moderator = _moderator(args.by)
        if args.action in FLAGS:
            player = await find_player(store, args.player)
            flag, on = FLAGS[args.action]
            entry = await moderate(store, player, flag, on, moderator, args.reason)
            return [_entry_line(entry)]
        if args.action == "reset-name":
            player = await find_player(store, args.player)
            return [_entry_line(await reset_name(store, player, moderator, args.reason))]
        if args.action == "remove":
            entry = await remove(store, args.message, moderator, args.reason)
            return [_entry_line(entry)]
        if args.action == "messages":
            player_id = (await find_player(store, args.player)).id if args.player else None
            lines = await store.chat_lines(game_id=args.game, player_id=player_id, limit=args.limit)
            deleted = await deleted_authors(store, lines)
            return [_chat_line(line, line.player in deleted) for line in lines] or ["no messages"]
        entries = await store.moderation_log(args.limit)
        return [_entry_line(entry) for entry in entries] or ["nothing logged yet"]
    finally:
        await store.close()


def _moderator(by: str | None) -> str:
    if by:
        return printable(by.strip())[:80]
    try:
        return getpass.getuser()
    except Exception:  # no login name (a container): still someone in the log
        return "operator"


async def find_player(store: Store, text: str) -> PlayerRow:
    """The player named by a user name (folded as sign-in folds it, with or without the "@"
    the pages show before it) or by id; never one of the server's own AI levels."""
    from hanamikoji.web.identity import username_key  # (the web's identity module is heavy)
    from hanamikoji.web.ratings import AI_PLAYER

    name = text[1:] if text.startswith("@") else text
    found = await store.account(username_key(name)) or await store.player(text)
    if found is None:
        raise ModerationError(f"no player with the user name or id {printable(text)!r}")
    if found.id.startswith(AI_PLAYER):
        raise ModerationError(
            f"{printable(text)} is one of the server's own AI levels, not a player: to take the "
            "levels out of the lobby, run the servers with --no-house-bots"
        )
    return found


def _who(player: PlayerRow) -> str:
    """A player as the log names them: the id, and the user name of an account (the target's
    second word is always the id: see :func:`subject`)."""
    return f"player {player.id} (@{player.username})" if player.username else f"guest {player.id}"


async def moderate(
    store: Store, player: PlayerRow, flag: str, on: bool, moderator: str, reason: str
) -> ModerationRow:
    """Set (or clear) a player's ``muted`` or ``disabled`` flag, logged; refused when the flag is
    so already (as removing a message removed already is), so the log holds only changes."""
    action = next(verb for verb, value in FLAGS.items() if value == (flag, on))
    flags = (await store.chat_flags([player.id])).get(player.id, ChatFlags())
    if getattr(flags, flag) == on:
        state = f"{flag} already" if on else f"not {flag}"
        raise ModerationError(f"{_who(player)} is {state}: nothing to {action}")
    entry = _entry(moderator, action, _who(player), reason)
    await store.moderate_player(player.id, flag, on, entry)
    return entry


async def reset_name(store: Store, player: PlayerRow, moderator: str, reason: str) -> ModerationRow:
    """Clear a player's display name (one that insults, or evades a mute), logged with the name
    it was, in one transaction; refused when they have none, or another than ``player`` read.
    Their new games and the lobby show the reset name (each server cancels their open
    challenges, which show the old one: :mod:`lobby`); games already made keep the names they
    were made with."""
    if not player.name:
        raise ModerationError(f"{_who(player)} has no display name: nothing to reset")
    entry = _entry(moderator, "reset-name", f"{_who(player)} named {_quoted(player.name)}", reason)
    # One transaction: no reset without its entry, no entry without its reset.
    if not await store.reset_name(player.id, player.name, entry):
        raise ModerationError(
            f"{_who(player)} changed their display name meanwhile: nothing reset, run it again"
        )
    return entry


async def remove(store: Store, message_id: str, moderator: str, reason: str) -> ModerationRow:
    """Remove a chat message (no longer shown anywhere), logged."""
    line = await store.chat_line(message_id)
    if line is None:
        raise ModerationError(f"no chat message {printable(message_id)!r}")
    if line.removed:
        raise ModerationError(f"the message {line.id} was removed already")
    # The ids first; the name its room showed (a seat's, which a guest types) last, quoted.
    named = f" named {_quoted(line.name)}" if line.name else ""
    target = f"message {line.id} by player {line.player} in game {line.game} ({line.room}){named}"
    entry = _entry(moderator, "remove", target, reason)
    if not await store.remove_chat(line.id, entry):
        raise ModerationError(f"the message {line.id} was removed already")
    return entry


def subject(entry: ModerationRow) -> str:
    """The id an act is about: the player's (``player ID (@name)``, ``guest ID``), or the
    message's (``message ID by ...``); ids have no spaces."""
    words = entry.target.split()
    return words[1] if len(words) > 1 else ""


def _time_id(ns: int) -> str:
    """An act's id, or the floor of ids, at ``ns`` nanoseconds (fixed width: ids sort by time)."""
    return f"{max(0, ns):016x}"


class Follower:
    """The moderation log as one server follows it: each act made after :meth:`start` is
    passed to ``apply`` once, within about ``every`` seconds of its commit."""

    def __init__(
        self,
        store: Store,
        apply: Callable[[ModerationRow], Awaitable[None]],
        every: float = POLL_S,
    ) -> None:
        self.store = store
        self.apply = apply
        self.every = every
        self._done: dict[str, int] = {}  # the acts applied (or older than the start), by id
        self._task: asyncio.Task[None] | None = None

    async def start(self) -> None:
        """Take the acts made so far as done (a new socket is checked as it opens), then
        follow the log."""
        await self.poll(apply=False)
        self._task = asyncio.create_task(self._follow())

    async def close(self) -> None:
        """Stop following."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    async def poll(self, *, apply: bool = True) -> int:
        """Read the acts of the last ``LATE_S`` seconds and apply the new ones; how many."""
        now = time.time_ns()
        floor = now - int(LATE_S * 1e9)
        for act_id, at in list(self._done.items()):
            if at < floor:
                del self._done[act_id]
        count = 0
        for entry in await self.store.moderation_after(_time_id(floor)):
            if entry.id in self._done:
                continue
            self._done[entry.id] = now
            if apply:
                count += 1
                try:
                    await self.apply(entry)
                except Exception:  # one act that fails must not stop the others
                    log.exception("applying the moderation act %s failed", entry.id)
        return count

    async def _follow(self) -> None:
        while True:
            await asyncio.sleep(self.every)
            try:
                await self.poll()
            except Exception:  # a database hiccup: the next poll reads the same acts again
                log.exception("reading the moderation log failed")


def _entry(moderator: str, action: str, target: str, reason: str) -> ModerationRow:
    reason = printable(" ".join(reason.split()))[:500]
    if not reason:
        raise ModerationError("say why (--reason): the log keeps it")
    now = time.time_ns()
    at = datetime.fromtimestamp(now / 1e9, UTC).isoformat(timespec="milliseconds")
    # The id starts with the time, so the log keeps the order of acts of one millisecond.
    return ModerationRow(
        f"{_time_id(now)}-{secrets.token_hex(3)}", at, moderator, action, target, reason
    )


def _quoted(text: str) -> str:
    """What a player typed (a name, a message), as a JSON string, so that nothing in it passes
    for the listing's own words: ``"Nice (player 3eArf...)"`` is a name, never an id."""
    return printable(json.dumps(text, ensure_ascii=False))


def _entry_line(entry: ModerationRow) -> str:
    return f"{entry.at}  {entry.moderator}  {entry.action}  {entry.target}  (why: {entry.reason})"


def _chat_line(line: ChatRow, deleted: bool = False) -> str:
    """One message as ``messages`` prints it: the ids and whether it was removed at fixed places,
    then the author's name and the text as typed, quoted (docs/web.md, "Moderation")."""
    when = datetime.fromtimestamp(line.at / 1000, UTC).isoformat(timespec="seconds")
    named = _quoted(line.name) if line.name else ""
    if line.room == "players":
        who = f"seat {line.seat} {named}".rstrip()
    else:
        who = named or ("deleted account" if deleted else "guest")
    said = f"[{printable(line.body)}]" if line.kind == "phrase" else _quoted(line.body)
    status = "removed" if line.removed else "shown"
    return (
        f"{line.id}  {when}  game {line.game}  {line.room}  player {line.player}  {status}  "
        f"{who}: {said}"
    )
