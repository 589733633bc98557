"""Who is playing: guests and accounts, their sessions, user names and passwords, and their games
(docs/web.md, "Identity and your games").

A visitor is a guest from their first page: a player row and a session whose random id lives in
a cookie (only its SHA-256 is stored). A guest may turn into an account (a user name and a
password, hashed with Argon2): the same player, so their games stay theirs.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import re
import secrets
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from typing import Any

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

from hanamikoji.clock import Clock
from hanamikoji.web.errors import WebError, clean_name, show
from hanamikoji.web.ids import new_id
from hanamikoji.web.limits import Limits, TooMany, Window
from hanamikoji.web.lookalike import looks_like, separators_folded
from hanamikoji.web.service import GameService
from hanamikoji.web.store import ChatFlags, Duplicate, GameRow, PlayerRow, Store

__all__ = [
    "DELETED_NAME",
    "DISABLED",
    "SESSION_CHANGED",
    "SESSION_COOKIE",
    "Accounts",
    "FieldError",
    "Identity",
    "check_new_username",
    "check_password",
    "check_username",
    "opponent_mark",
    "username_key",
]

log = logging.getLogger(__name__)

SESSION_COOKIE = "hk-session"
"""The identity cookie (seat cookies are ``hk_GAME``: the names never meet)."""
GUEST_DAYS = 365
"""A guest's session: the only key to their games, so it lasts (renewed by every visit)."""
ACCOUNT_DAYS = 90
"""A signed-in session: renewed by every visit; an account can always sign in again."""
RENEW_AFTER = timedelta(days=1)
"""A session used this long after its last renewal is renewed (one write a day at most)."""
GUEST_IDLE_DAYS = 30
"""A guest without a game, not seen for this long, is forgotten."""
DELETED_NAME = "deleted player"
DISABLED = "this account has been disabled by the server's moderators"
"""Why a disabled account is refused (its sign-in, seats, chat, lobby, sockets): said here once."""
SESSION_CHANGED = (
    "this browser signed in or made an account (in another page, or just now) after this was "
    "sent: reload the page and try again"
)
"""Why a request sent with a session its browser has since replaced is refused."""
USERNAME_MIN, USERNAME_MAX = 3, 20
PASSWORD_MIN, PASSWORD_MAX = 8, 1024
HASHING = 2
"""Passwords hashed at once (each takes 64 MiB and about 0.1 s); more wait their turn."""
GAMES_ON = 50
"""Unfinished games listed (the most recently changed)."""
GAMES_PAGE = 10
"""Finished games listed a page."""

_SESSION_ID = re.compile(r"[A-Za-z0-9_-]{43}")  # secrets.token_urlsafe(32)

USERNAME_RULE = (
    f"a user name is {USERNAME_MIN} to {USERNAME_MAX} characters: letters (Latin or Cyrillic), "
    "digits, _ and -"
)


class FieldError(WebError):
    """An error about one field of the form (``field``: its key in the request)."""

    def __init__(self, field: str, message: str, code: str = "bad-request") -> None:
        super().__init__(code, message)
        self.field = field


def _allowed(char: str) -> bool:
    """A character a user name may have: the letters of the European Latin alphabets (ASCII,
    Latin-1, Latin Extended-A) and of Cyrillic (U+0400-U+045F), ASCII digits, _ and -."""
    if char.isascii():
        return char.isalnum() or char in "_-"
    code = ord(char)
    letter = unicodedata.category(char) in ("Lu", "Ll")
    return letter and (0xC0 <= code <= 0x17F or 0x400 <= code <= 0x45F)


def check_username(value: Any) -> str:
    """The user name as it will be shown (NFKC), or :class:`FieldError` saying what is wrong."""
    if not isinstance(value, str):
        raise FieldError("username", f"{USERNAME_RULE}; got {show(value)}")
    if len(value) > 4 * USERNAME_MAX:  # never normalise a long text
        raise FieldError("username", f"{USERNAME_RULE}; got {len(value)} characters")
    name = unicodedata.normalize("NFKC", value.strip())
    if not USERNAME_MIN <= len(name) <= USERNAME_MAX:
        raise FieldError("username", f"{USERNAME_RULE}; got {len(name)} characters")
    bad = next((c for c in name if not _allowed(c)), None)
    if bad is not None:
        raise FieldError("username", f"{USERNAME_RULE}; {show(bad)} is not one of them")
    return name


def check_new_username(value: Any) -> str:
    """A user name for a new account or bot: :func:`check_username`'s, with a letter or a digit
    in it, and none that would pass for the server's own (its AI levels ``AI-...``, its
    moderators)."""
    name = check_username(value)
    if not any(c.isalnum() for c in name):
        raise FieldError("username", f"{USERNAME_RULE}, with at least one letter or digit")
    key = username_key(name)
    if key.startswith((username_key("AI-"), username_key("AI_"))) or key in _RESERVED:
        raise FieldError(
            "username",
            f"the user name {name} is kept for the server (its AI levels, its moderators): "
            "choose another",
            "taken",
        )
    return name


_RESERVED_NAMES = ("admin", "administrator", "moderator", "mod", "root", "system", "hanamikoji")
"""User names that would pass for the server's own people."""


def username_key(name: str) -> str:
    """What a user name is unique by: case, accents and look-alike characters folded away.

    >>> username_key("Anna") == username_key("ANNA") == username_key("Аnna")  # Cyrillic А
    True
    >>> username_key("Bill") == username_key("B1ll") == username_key("BiII")
    True
    """
    return looks_like(name)


_RESERVED = frozenset(username_key(n) for n in _RESERVED_NAMES)


def check_password(value: Any, field: str = "password") -> str:
    """A password of 8 to 1024 characters (checked before any hashing), else :class:`FieldError`."""
    rule = f"a password is {PASSWORD_MIN} to {PASSWORD_MAX} characters"
    if not isinstance(value, str):
        raise FieldError(field, f"{rule}; {field} must be a string, got {show(value, 20)}")
    if not PASSWORD_MIN <= len(value) <= PASSWORD_MAX:
        raise FieldError(field, f"{rule}; got {len(value)}")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise FieldError(field, f"{rule} of valid Unicode (no lone surrogates)") from None
    return value


def _normal(password: str) -> str:
    """A password as it is hashed: in Unicode's NFKC form, so that the same text typed on
    another keyboard or system (a precomposed "ü" or "u" and its accent) is the same password."""
    return unicodedata.normalize("NFKC", password)


def session_hash(session_id: str) -> str:
    """What the database keeps of a session id."""
    return hashlib.sha256(session_id.encode()).hexdigest()


def _stamp(moment: datetime) -> str:
    """A time as the store writes them (ISO 8601, UTC, milliseconds: they sort as text)."""
    return moment.isoformat(timespec="milliseconds")


@dataclass(frozen=True)
class Identity:
    """The player a request comes from, through which session; ``cookie`` is a session id to
    send back (a new session, or one whose expiry moved), else None."""

    player: PlayerRow
    session: str  # the hash
    cookie: str | None = None

    @property
    def days(self) -> int:
        """How long the session lasts."""
        return ACCOUNT_DAYS if self.player.is_account else GUEST_DAYS


class Accounts:
    """Guests, accounts and sessions over a store; the games they play through ``games``."""

    def __init__(
        self,
        games: GameService,
        limits: Limits | None = None,
        *,
        hasher: PasswordHasher | None = None,
        now: Callable[[], datetime] = lambda: datetime.now(UTC),
    ) -> None:
        limits = limits or Limits()
        self.games = games
        self.store: Store = games.store
        self.hasher = hasher or PasswordHasher()
        self.now = now
        self._hashing = asyncio.Semaphore(HASHING)
        self._decoy: str | None = None
        self._swept = datetime.min.replace(tzinfo=UTC)
        n = limits.signins_per_minute
        self.signins = Window(
            n, 60, f"too many sign-in attempts from your address (at most {n} a minute)"
        )
        self.failures = Window(
            limits.signin_failures,
            900,
            "too many wrong passwords for this user name from your address",
        )
        self.name_failures = Window(
            limits.signin_failures_per_name,
            900,
            "too many wrong passwords for this user name from many addresses; it is closed to "
            "sign-in for a while",
        )
        n = limits.accounts_per_hour
        self.creations = Window(
            n, 3600, f"too many new accounts from your address (at most {n} an hour)"
        )
        n = limits.guests_per_minute
        self.guests = Window(
            n, 60, f"too many new visitors from your address (at most {n} a minute)"
        )

    # -- sessions ---------------------------------------------------------------------------

    async def identify(self, session_id: str | None) -> Identity | None:
        """The player of a session cookie, or None (no cookie, a forged one, expired, ended)."""
        if not session_id or not _SESSION_ID.fullmatch(session_id):
            return None
        hashed = session_hash(session_id)
        found = await self.store.session_player(hashed)
        if found is None:
            return None
        player, expires = found
        identity = Identity(player, hashed)
        until = self.now() + timedelta(days=identity.days)
        if _stamp(until - RENEW_AFTER) > expires:
            await self.store.renew_session(hashed, _stamp(until))
            return Identity(player, hashed, cookie=session_id)
        return identity

    async def replaced(self, session_id: str | None) -> bool:
        """Whether a session cookie that opens nothing was replaced lately by another of the
        same browser (signing up or in): a request that set out with it before the new cookie
        came must not make the browser a new guest, whose cookie would take the new one's place."""
        if not session_id or not _SESSION_ID.fullmatch(session_id):
            return False
        return await self.store.session_replaced(session_hash(session_id))

    async def guest(self, client: str) -> Identity | None:
        """A new guest for a visitor without one; None when ``client`` had too many a minute
        (the page is served all the same, without an identity)."""
        try:
            self.guests.check(client)
        except TooMany:
            return None
        self.guests.add(client)
        await self._sweep()
        player = PlayerRow(new_id(12))
        session_id = secrets.token_urlsafe(32)
        hashed = session_hash(session_id)
        expires = _stamp(self.now() + timedelta(days=GUEST_DAYS))
        await self.store.new_player(player.id, None, hashed, expires)
        return Identity(player, hashed, cookie=session_id)

    async def _sweep(self) -> None:
        """Forget expired sessions and idle guests without games, at most once an hour."""
        now = self.now()
        if now < self._swept + timedelta(hours=1):
            return
        self._swept = now
        idle = now + timedelta(days=GUEST_DAYS - GUEST_IDLE_DAYS)
        await self.store.forget_guests(_stamp(now), _stamp(idle))

    async def _open(self, player: PlayerRow, *, replacing: str | None) -> Identity:
        """A new session of ``player`` (ending the session ``replacing``)."""
        session_id = secrets.token_urlsafe(32)
        identity = Identity(player, session_hash(session_id), cookie=session_id)
        expires = _stamp(self.now() + timedelta(days=identity.days))
        await self.store.add_session(identity.session, player.id, expires, replacing=replacing)
        return identity

    # -- names and passwords --------------------------------------------------------------------

    async def rename(self, identity: Identity, name: Any) -> str | None:
        """Keep the name a player typed (their new games show it); the name, None if empty (the
        games then show "Player 1" or "Player 2"). A player the moderators muted or disabled
        keeps the name they have (:meth:`check_rename`)."""
        chosen = await self.check_rename(identity, name)
        if chosen != identity.player.name:
            await self.store.set_player_name(identity.player.id, chosen)
        return chosen

    async def check_rename(self, identity: Identity, name: Any) -> str | None:
        """The name a player typed, as :meth:`rename` keeps it; a new one is refused, saying
        why, to a player the moderators muted (a name is shown to the whole lobby: it would say
        what their messages may not) or disabled."""
        chosen = clean_name(name, "") or None
        if chosen == identity.player.name:
            return chosen
        player = identity.player.id
        flags = (await self.store.chat_flags([player])).get(player, ChatFlags())
        if flags.disabled:
            raise WebError("disabled", DISABLED)
        if flags.muted:
            raise FieldError(
                "name",
                "a moderator has muted you: your name cannot be changed until you are unmuted",
                "muted",
            )
        return chosen

    async def _hash(self, password: str) -> str:
        async with self._hashing:
            return await asyncio.to_thread(self.hasher.hash, _normal(password))

    async def _verify(self, stored: str | None, password: str) -> bool:
        """Whether ``password`` is the one ``stored`` was made from. With nothing stored (no
        such account) a decoy is checked, so that the answer takes as long either way."""
        async with self._hashing:
            if stored is None:
                if self._decoy is None:
                    self._decoy = await asyncio.to_thread(self.hasher.hash, secrets.token_hex(16))
                stored = self._decoy
                password = ""  # never matches: the decoy's password is random
            # The normal form first; a password set before passwords were normalised was
            # hashed as it was typed.
            for typed in dict.fromkeys((_normal(password), password)):
                try:
                    if await asyncio.to_thread(self.hasher.verify, stored, typed):
                        return True
                except (VerificationError, InvalidHashError):
                    pass
            return False

    async def _check(self, key: str, password: str, source: str) -> PlayerRow:
        """The account whose user name folds to ``key``, if ``password`` is its own. A wrong
        password counts against the name (whether an account has it or not) from ``source``
        (the client's address, or the session asking) and from everywhere together: counted
        by the name alone, anyone could keep its owner from signing in by guessing wrong."""
        one = f"{key}\n{source}"
        self._limited(self.failures, one)
        self._limited(self.name_failures, key)
        account = await self.store.account(key)
        stored = account.password if account is not None and not account.deleted else None
        right = await self._verify(stored, password)  # always: no name answers faster
        if account is None or not right:
            self.failures.add(one)
            self.name_failures.add(key)
            raise WebError("bad-credentials", "the user name or the password is wrong")
        self.failures.clear(one)
        return account

    @staticmethod
    def _limited(window: Window, key: str) -> None:
        try:
            window.check(key)
        except TooMany as e:
            log.info("refused: %s", e.message)
            raise WebError("too-many", e.message, e.retry_after) from None

    # -- accounts -------------------------------------------------------------------------------

    async def create(
        self, identity: Identity | None, username: Any, password: Any, client: str
    ) -> Identity:
        """Turn the visitor (a guest, made now if they have none) into an account; the new
        session (the guest's is ended: a signed-in session is never one chosen before)."""
        name = check_new_username(username)
        secret = check_password(password)
        if identity is not None and identity.player.is_account:
            raise WebError(
                "signed-in",
                f"you are signed in as {identity.player.username}: sign out to create another "
                "account",
            )
        key = username_key(name)
        # a name that differs from one kept only by "_" for "-" passes for it too (the stored
        # keys keep them apart: folded here, where a new name is checked; the store's unique
        # username_like refuses the second of two such sign-ups at one instant: Duplicate)
        if (
            await self.store.account(key) is not None
            or await self.store.account_like(separators_folded(key)) is not None
        ):
            raise _taken(name)
        self._limited(self.creations, client)
        if identity is None:
            identity = await self.guest(client)
            if identity is None:
                raise WebError("too-many", self.guests.what, 60)
        hashed = await self._hash(secret)
        try:
            made = await self.store.make_account(identity.player.id, name, key, hashed)
        except Duplicate:
            raise _taken(name) from None
        if not made:
            raise WebError("signed-in", "this visitor already has an account: sign in to it")
        self.creations.add(client)
        guest = identity.player
        player = replace(guest, name=guest.name or name, username=name, password=hashed)
        return await self._open(player, replacing=identity.session)

    async def sign_in(
        self, identity: Identity | None, username: Any, password: Any, client: str
    ) -> Identity:
        """A new session of the account; a guest's games (from this browser) go with it."""
        name = check_username(username)
        secret = check_password(password)
        self._limited(self.signins, client)
        self.signins.add(client)
        account = await self._check(username_key(name), secret, client)
        flags = await self.store.chat_flags([account.id])  # a moderator's (hanamikoji admin)
        if account.id in flags and flags[account.id].disabled:
            raise WebError("disabled", DISABLED)
        opened = await self._open(account, replacing=identity.session if identity else None)
        if identity is not None and not identity.player.is_account:
            moved = await self.store.adopt_games(identity.player.id, account.id)
            await self.games.refresh(moved)
        return opened

    async def sign_out(self, identity: Identity) -> None:
        """End this session (the account's others go on)."""
        await self.store.end_session(identity.session)

    async def change_password(self, identity: Identity, current: Any, new: Any) -> Identity:
        """Set a new password: every session of the account ends; this browser gets a new one."""
        account = self._account(identity)
        old = check_password(current)
        secret = check_password(new, "new_password")
        await self._check(username_key(account.username or ""), old, identity.session)
        hashed = await self._hash(secret)
        session_id = secrets.token_urlsafe(32)
        opened = Identity(account, session_hash(session_id), cookie=session_id)
        expires = _stamp(self.now() + timedelta(days=ACCOUNT_DAYS))
        await self.store.set_password(account.id, hashed, opened.session, expires)
        return opened

    async def delete(self, identity: Identity, password: Any) -> None:
        """Delete the account and its bots: their unfinished games are resigned, their games stay
        under "deleted player"; their sessions end and their user names are never given to anyone
        else."""
        account = self._account(identity)
        await self._check(
            username_key(account.username or ""), check_password(password), identity.session
        )
        for bot in await self.store.bots_of(account.id):
            await self._erase(bot.player_id)
        await self._erase(account.id)

    async def _erase(self, player_id: str) -> None:
        """Resign a player's unfinished games, then delete the player."""
        tried: set[str] = set()
        while True:  # a page at a time, until only games that could not be resigned are left
            on = await self.store.player_games(player_id, "playing", 100)
            left = [row for row, _ in on if row.id not in tried]
            if not left:
                break
            for row in left:
                tried.add(row.id)
                try:
                    await self.games.resign(row.id, row.players.index(player_id))
                except WebError as e:  # over meanwhile, or busy: the game stays as it is
                    log.info("game %s not resigned on deleting its player: %s", row.id, e.message)
        games = await self.store.delete_player(player_id, DELETED_NAME)
        await self.games.refresh(games)

    @staticmethod
    def _account(identity: Identity | None) -> PlayerRow:
        if identity is None or not identity.player.is_account:
            raise WebError("not-signed-in", "sign in to your account first")
        return identity.player

    # -- your games -----------------------------------------------------------------------------

    async def games_of(self, identity: Identity | None, offset: int = 0) -> dict[str, Any]:
        """The player's games: those on (their turn first), then a page of finished ones."""
        if identity is None:
            return {"on": [], "finished": [], "more": False}
        player = identity.player.id
        on = []
        playing = await self.store.player_games(player, "playing", GAMES_ON) if offset == 0 else []
        done = await self.store.player_games(player, "over", GAMES_PAGE + 1, offset)
        others = {p for row, _ in playing + done[:GAMES_PAGE] for p in row.players}
        accounts = await self.store.accounts(sorted(p for p in others if p and p != player))
        for row, updated in playing:
            game = await self.games.get(row.id)
            if game is not None and game.row.status == "playing":
                now = self.games.now_ms()
                on.append(_summary(game.row, player, updated, game.state.to_move, now, accounts))
        on.sort(key=lambda g: g["turn"] not in ("you", "join"))  # stable: the newest first in each
        finished = [
            _summary(row, player, updated, None, accounts=accounts)
            for row, updated in done[:GAMES_PAGE]
        ]
        return {"on": on, "finished": finished, "more": len(done) > GAMES_PAGE}


def _taken(name: str) -> WebError:
    return FieldError(
        "username",
        f"the user name {name} is taken (or looks too much like one that is): choose another",
        "taken",
    )


def opponent_mark(accounts: dict[str, str | None], opponent: str | None) -> dict[str, Any]:
    """A listed game's ``opponent_username`` (None for a guest, the AI, nobody yet or a deleted
    account) from ``accounts`` (the store's ``accounts``, by player id), and
    ``"opponent_deleted": true`` for a deleted account, which a guest's None would pass for."""
    if opponent is None or opponent not in accounts:
        return {"opponent_username": None}
    username = accounts[opponent]
    return (
        {"opponent_username": username}
        if username
        else {"opponent_username": None, "opponent_deleted": True}
    )


def _summary(
    row: GameRow,
    player: str,
    updated: str,
    to_move: int | None,
    now: int | None = None,
    accounts: dict[str, str | None] | None = None,
) -> dict[str, Any]:
    """One game of the list, as its player sees it (a timed game's time left at ``now``; the
    opponent's mark from ``accounts``, :func:`opponent_mark`)."""
    seat = 0 if row.players[0] == player else 1
    other = 1 - seat
    opponent = row.players[other]
    turn = None
    if row.status == "playing":
        if row.mode == "friend" and not row.tokens[other]:
            turn = "invite"  # the friend has not taken their seat yet
        elif not row.joined[seat]:
            turn = "join"  # a rematch the other asked for: it starts when this player comes
        elif not row.joined[other]:
            turn = "joining"  # a rematch this player asked for: the other has not come yet
        else:
            turn = "you" if to_move == seat else "opponent"
    result = row.result or {}
    winner = result.get("winner")
    withdrawn = row.withdrawn
    outcome = None
    if row.status == "over":
        outcome = "draw" if winner is None else "won" if winner == seat else "lost"
    return {
        "game": row.id,
        "seat": seat,
        "mode": row.mode,
        "level": row.level,
        "opponent": row.names[other],
        **opponent_mark(accounts or {}, opponent),
        "rules": {"max_rounds": row.max_rounds},
        "control": row.control or "none",
        "left": _time_left(row, now),
        "turn": turn,
        "result": outcome,
        "reason": result.get("reason"),
        "url": f"/g/{row.id}",
        "review": f"/review/{row.id}" if row.status == "over" and not withdrawn else None,
        **({"withdrawn": True} if withdrawn else {}),
        "created": row.created_at,
        "updated": updated,
    }


def _time_left(row: GameRow, now: int | None) -> int | None:
    """The deciding seat's time left at ``now`` (ms) in a timed game on, else None."""
    if row.clock is None or row.status != "playing" or now is None:
        return None
    clock = Clock.from_json(row.clock)
    left = clock.remaining_at(now)
    return None if left is None or clock.turn is None or not clock.running else left[clock.turn]
