"""The lobby: open challenges that every visitor sees live, accepted with one click, and "Play
someone now" (docs/web.md, "The lobby").

A challenge is a row of table ``challenges``; the database decides who wins a race for it (one
conditional update, in the same transaction as the game it starts), so two players clicking at
once on two servers make one game. A real-time challenge lives while its creator has the lobby
open; the others for a day. A player disabled by the moderators has their open challenges
cancelled, and those addressed to them (every server follows the moderation log).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from hanamikoji.clock import CONTROL_NOTATION, ClockError, Kind, TimeControl
from hanamikoji.glicko2 import Rating
from hanamikoji.web.errors import WebError, show
from hanamikoji.web.game import LiveGame
from hanamikoji.web.identity import DISABLED, FieldError, check_username, username_key
from hanamikoji.web.ids import new_id
from hanamikoji.web.limits import TooMany
from hanamikoji.web.moderation import POLL_S, Follower, subject
from hanamikoji.web.profiles import standing_json
from hanamikoji.web.ratings import Standing, family_of, window
from hanamikoji.web.service import GameService
from hanamikoji.web.store import ChallengeRow, Disabled, ModerationRow, PlayerRow, Store

__all__ = [
    "BOT_DISABLED",
    "GONE_MS",
    "REPOLL_MS",
    "Lobby",
    "challenge_json",
    "creator_standings",
    "creator_usernames",
    "rated_flag",
    "show_challenge",
    "time_control",
]

log = logging.getLogger(__name__)

DAY_MS = 86_400_000
"""A correspondence (or untimed) challenge waits this long for someone to accept it."""
GONE_MS = 6_000
"""A real-time challenge dies this long after its creator's last lobby connection closed (a
reload of the lobby keeps it; servers record who is in their lobby every ``HEARTBEAT_MS``)."""
MAX_OPEN = 5
"""Open challenges one player may have at once."""
SHOWN = 200
"""The most challenges the lobby lists (the longest waiting first)."""
STARTED_MS = 60_000
"""A player back in the lobby this soon after their challenge was accepted is sent to the game."""
REPOLL_MS = 5_000
"""How often a page waiting on a rated Play someone now asks again (its window has widened)."""
RULES = (3, None)
"""The lobby's rules: at most 3 rounds, or no limit."""
SWEPT = 10_000
"""The most open challenges read when looking for those of disabled players."""
WITHDRAWN = (
    "this challenge was cancelled: its creator's account has been disabled by the server's "
    "moderators"
)
BOT_DISABLED = "this bot, or its owner, was disabled by the server's moderators"
"""Why a bot that is disabled, or whose owner is, may not accept a challenge."""

Publisher = Callable[[ChallengeRow], Awaitable[None]]


async def _nobody(challenge: ChallengeRow) -> None:
    return None


async def _anyone(to_key: str, control: TimeControl, rated: bool, by: str) -> None:
    return None


async def _no_bots() -> list[dict[str, Any]]:
    return []


def challenge_json(
    c: ChallengeRow,
    player: str | None,
    key: str | None,
    *,
    standing: Standing | None,
    username: str | None,
) -> dict[str, Any]:
    """A challenge as the visitor ``player`` (``key``: their folded user name) sees it, with its
    creator's ``standing`` in its time control's family (:func:`creator_standings`; None for an
    untimed one) and ``username``, the creator's user name (:func:`creator_usernames`; None: a
    guest). ``name`` is the display name the creator typed, which anyone may take: the user name
    beside it tells an account from a guest posing as one. The creator's player id is never
    shown."""
    control = TimeControl.parse(c.control)
    return {
        "id": c.id,
        "name": c.name,
        "username": username,
        "control": c.control,
        "kind": control.kind.value,
        "max_rounds": c.max_rounds,
        "rated": c.rated,
        "seat": c.seat if c.seat == "random" else int(c.seat),
        "to": c.to_name,
        "mine": c.player == player,
        "for_me": c.to_key is not None and c.to_key == key,
        "status": c.status,
        "created": c.created,
        "expires": c.expires,
        "rating": None if standing is None else standing_json(standing),
    }


async def creator_standings(
    store: Store, challenges: Sequence[ChallengeRow]
) -> dict[str, Standing]:
    """Each challenge's creator's standing in its time control's family, by challenge id (an
    untimed challenge has none; a player never rated there is a new player's 1500)."""
    families: dict[str, list[ChallengeRow]] = {}
    for c in challenges:
        family = family_of(c.control)
        if family is not None:
            families.setdefault(family, []).append(c)
    out: dict[str, Standing] = {}
    for family, group in families.items():
        known = await store.standings(sorted({c.player for c in group}), family)
        for c in group:
            out[c.id] = known.get(c.player, Standing(Rating()))
    return out


async def creator_usernames(
    store: Store, challenges: Sequence[ChallengeRow]
) -> dict[str, str | None]:
    """The user name of each challenge's creator, by player id (None: a guest, or an account
    deleted since)."""
    found = await store.usernames([c.player for c in challenges])  # one query for the lot
    return {c.player: found.get(c.player) for c in challenges}


async def show_challenge(
    store: Store, c: ChallengeRow, player: str | None, key: str | None
) -> dict[str, Any]:
    """:func:`challenge_json` of one challenge, its creator's standing and user name looked
    up."""
    standing = (await creator_standings(store, [c])).get(c.id)
    username = (await creator_usernames(store, [c])).get(c.player)
    return challenge_json(c, player, key, standing=standing, username=username)


def visible(c: ChallengeRow, player: str | None, key: str | None) -> bool:
    """Whether the visitor sees ``c``: an open challenge to anyone, or one they made or that
    is addressed to them."""
    return c.to_key is None or c.player == player or (key is not None and c.to_key == key)


class Lobby:
    """Challenges over a :class:`Store`; ``publish(challenge)`` tells this process's lobby
    connections of a change, and ``present()`` names the players connected to its lobby."""

    def __init__(self, games: GameService) -> None:
        self.games = games
        self.store: Store = games.store
        self.publish: Publisher = _nobody
        self.present: Callable[[], list[str]] = list
        # Bots (hanamikoji.web.bots): a challenge to one is refused, saying why, unless it is
        # here and would accept it; the lobby lists those connected.
        self.screen: Callable[[str, TimeControl, bool, str], Awaitable[None]] = _anyone
        self.bots: Callable[[], Awaitable[list[dict[str, Any]]]] = _no_bots
        # The moderators' acts, read from the log at the heartbeat (every server does it: the
        # database cancels each challenge once, and tells the other servers).
        self._moderation = Follower(self.store, self.moderated)
        self._followed: float | None = None
        games.on_beat.append(self.beat)

    # -- reading -------------------------------------------------------------------------------

    def live(self, c: ChallengeRow, now: int) -> bool:
        """Whether ``c`` may still be accepted: open, and its creator still here (real-time)
        or not past its expiry."""
        if c.status != "open":
            return False
        if c.expires is not None:
            return now < c.expires
        return c.seen is not None and c.seen >= now - GONE_MS

    async def listing(self, player: PlayerRow | None) -> dict[str, Any]:
        """The ``lobby`` message: the challenges ``player`` sees, and the games their
        challenges started in the last minute (so a reload mid-acceptance finds its game)."""
        pid = player.id if player else None
        key = _key(player)
        now = self.games.now_ms()
        seen = [
            c
            for c in await self.store.open_challenges(SHOWN)
            if self.live(c, now) and visible(c, pid, key)
        ]
        standings = await creator_standings(self.store, seen)
        usernames = await creator_usernames(self.store, seen)
        shown = [
            challenge_json(
                c, pid, key, standing=standings.get(c.id), username=usernames.get(c.player)
            )
            for c in seen
        ]
        started = []
        if pid is not None:
            for c in await self.store.started_challenges(pid, now - STARTED_MS):
                url = await self.game_url(c, pid)
                if url is not None:
                    started.append({"challenge": c.id, "game": c.game, "url": url})
        bots = await self.bots()
        return {"type": "lobby", "challenges": shown, "started": started, "now": now, "bots": bots}

    async def game_url(self, c: ChallengeRow, player: str) -> str | None:
        """The link of ``player``'s seat in the game ``c`` started (None: not theirs, or over)."""
        if c.game is None:
            return None
        game = await self.games.get(c.game)
        if game is None or game.state.is_over or player not in game.row.players:
            return None
        seat = game.row.players.index(player)
        return f"/g/{game.id}?t={game.row.tokens[seat]}"

    # -- changes -------------------------------------------------------------------------------

    async def create(self, player: PlayerRow | None, body: dict[str, Any]) -> ChallengeRow:
        """A new challenge of ``player`` from a request's body (``control``, ``max_rounds``,
        ``rated``, ``seat``, ``to``)."""
        me = _someone(player)
        control, max_rounds, rated = _settings(body)
        seat = body.get("seat", "random")  # 0, 1 or "random" only: never "0" nor true
        if seat != "random" and (type(seat) is not int or seat not in (0, 1)):
            raise FieldError("seat", f"seat must be 0, 1 or 'random', got {show(seat)}")
        to_key = to_name = None
        if body.get("to") not in (None, ""):
            to_name, to_key = await self._addressee(me, body["to"])
            await self.screen(to_key, control, rated, me.id)
        return await self._add(me, control, max_rounds, rated, str(seat), to_key, to_name)

    async def _addressee(self, me: PlayerRow, name: Any) -> tuple[str, str]:
        """The user name and its key of the account a challenge is addressed to."""
        try:
            wanted = check_username(name)
        except FieldError as e:
            raise FieldError("to", e.message) from None
        key = username_key(wanted)
        account = await self.store.account(key)
        if account is None or account.deleted or account.username is None:
            raise FieldError("to", f"there is no player with the user name {wanted}", "not-found")
        if account.id == me.id:
            raise FieldError("to", "a challenge to yourself: send it to another player", "to-self")
        if await self._disabled(account.id):
            flags = await self.store.chat_flags([account.id])
            # Disabled for the lobby through its owner only (a bot): its own account is not.
            own = account.id in flags and flags[account.id].disabled
            why = (
                "their account has been disabled"
                if own
                else "this bot is disabled, as its owner's account has been disabled"
            )
            raise FieldError(
                "to",
                f"{account.username} cannot be challenged: {why} by the server's moderators",
                "unavailable",
            )
        return account.username, key

    async def _add(
        self,
        me: PlayerRow,
        control: TimeControl,
        max_rounds: int | None,
        rated: bool,
        seat: str,
        to_key: str | None = None,
        to_name: str | None = None,
    ) -> ChallengeRow:
        """Post ``me``'s new challenge, unless ``me`` is disabled: their request may have set
        out before the act ended their sessions. The insert's own transaction reads the flags
        (:class:`Disabled`): a moderator's act on any server is either seen there, and nothing
        is stored, or comes after the insert, and withdraws the challenge as any it finds open
        (the look before it only spares a disabled player's request the rest of the work)."""
        if await self._disabled(me.id):  # their request set out before the act ended it
            raise _refused(False)
        now = self.games.now_ms()
        real_time = control.kind is Kind.REAL_TIME
        row = ChallengeRow(
            id=new_id(9),
            player=me.id,
            name=me.name or me.username or "",
            control=str(control),
            max_rounds=max_rounds,
            rated=rated,
            seat=seat,
            to_key=to_key,
            to_name=to_name,
            created=now,
            updated=now,
            expires=None if real_time else now + DAY_MS,
            seen=now,
        )
        try:
            added = await self.store.add_challenge(row, MAX_OPEN)
        except Disabled:  # disabled since the look above
            raise _refused(False) from None
        if not added:
            raise WebError(
                "too-many",
                f"you have {MAX_OPEN} open challenges: cancel one, or wait for a player",
                60,
            )
        await self.publish(row)
        return row

    async def cancel(self, player: PlayerRow | None, challenge_id: Any) -> ChallengeRow:
        """Cancel ``player``'s own open challenge."""
        me = _someone(player)
        c = await self._find(challenge_id)
        if c.player != me.id:
            raise WebError("not-allowed", "only its creator may cancel a challenge")
        if not await self.store.cancel_challenge(c.id, me.id, self.games.now_ms()):
            c = await self._find(c.id)
            raise _closed(c)
        c = await self._find(c.id)
        await self.publish(c)
        return c

    async def accept(
        self, player: PlayerRow | None, challenge_id: Any, client: str = "", *, bot: bool = False
    ) -> tuple[LiveGame, int]:
        """Accept an open challenge: the new game and the acceptor's seat. Of two players
        racing for one challenge, exactly one gets it (the database decides). A person's
        acceptances count against their client's games a minute; a ``bot``'s do not (its owner's
        games-at-once setting bounds them: docs/bots.md). A disabled acceptor (a bot: or its
        owner) is refused, however late the act lands before the database's update."""
        me = _someone(player)
        if await self._disabled(me.id):  # their request set out before the act ended it
            raise _refused(bot)
        c = await self._find(challenge_id)
        mine = await self._accepted_by(c, me)
        if mine is not None:
            return mine
        if await self._disabled(c.player):  # before the servers have read the act
            await self._withdraw([c])
            raise WebError("cancelled", WITHDRAWN)
        now = self.games.now_ms()
        self._check(c, me, now)
        if not bot:
            self._admit(client)
        creator = int(c.seat) if c.seat != "random" else self.games.random_seat()
        names = ["", ""]
        names[creator] = c.name or f"Player {creator + 1}"
        names[1 - creator] = me.name or me.username or f"Player {2 - creator}"
        players = ["", ""]
        players[creator], players[1 - creator] = c.player, me.id
        row = self.games.lobby_game(
            control=TimeControl.parse(c.control),
            rated=c.rated,
            max_rounds=c.max_rounds,
            names=(names[0], names[1]),
            players=(players[0], players[1]),
        )
        taken = await self.store.accept_challenge(c.id, me.id, _key(me), row, now, now - GONE_MS)
        if not taken:
            again = await self._find(c.id)
            mine = await self._accepted_by(again, me)  # this player's other click won the race
            if mine is not None:
                return mine
            if await self._disabled(me.id):
                # disabled since the look above (the update refuses such an acceptor)
                raise _refused(bot)
            if again.status in ("open", "cancelled") and await self._disabled(again.player):
                # disabled since the look above (the update refuses such a creator's challenge)
                await self._withdraw([again])
                raise WebError("cancelled", WITHDRAWN)
            self._check(again, me, self.games.now_ms())
            raise _closed(again)
        if not bot:
            self.games.limits.created(client, row.id, ai=False)
        game = self.games.hold(row)
        accepted = await self._find(c.id)
        await self.publish(accepted)
        gone = await self.store.disabled_players([c.player, me.id])
        if gone:
            # Disabled after the update read the flags (it refuses a player disabled before):
            # the servers applying the act may have looked for the player's games before this
            # one existed, so it is forfeited here, as theirs are (a disable committed after
            # this read finds the game). A bot whose owner is disabled loses it too: its link
            # is cut, and no one would play its seat.
            loser = creator if c.player in gone else 1 - creator
            try:
                game = await self.games.forfeit(row.id, loser, "disabled")
            except WebError as e:  # ended meanwhile by a server applying the act
                log.info("game %s not forfeited on its player's disabling: %s", row.id, e.message)
        return game, 1 - creator

    async def _accepted_by(self, c: ChallengeRow, me: PlayerRow) -> tuple[LiveGame, int] | None:
        """The game and seat ``me`` took by accepting ``c`` already (None: it did not): to
        accept twice (a second tab, a double click) is to accept once, not to be told that
        someone else was first."""
        if c.status != "accepted" or c.accepted_by != me.id or c.game is None:
            return None
        game = await self.games.get(c.game)
        if game is None or me.id not in game.row.players:
            return None
        return game, game.row.players.index(me.id)

    def _check(self, c: ChallengeRow, me: PlayerRow, now: int) -> None:
        """Refuse a challenge ``me`` may not accept, saying why."""
        if c.status != "open":
            raise _closed(c)
        if c.player == me.id:
            raise WebError("own-challenge", "this is your own challenge: wait for another player")
        if c.to_key is not None and c.to_key != _key(me):
            raise WebError("not-yours", f"this challenge is addressed to {c.to_name}")
        if not self.live(c, now):
            raise WebError("expired", "this challenge has expired: its creator has left")

    def _admit(self, client: str) -> None:
        limits = self.games.limits
        limits.forget_idle()
        try:
            limits.admit(client, ai=False)
        except TooMany as e:
            raise WebError("too-many", e.message, e.retry_after) from None

    async def play_now(
        self, player: PlayerRow | None, body: dict[str, Any], client: str = ""
    ) -> tuple[LiveGame, int] | ChallengeRow:
        """Pair ``player`` with the longest-waiting player whose open challenge has the same
        time control, rules and rated flag (a game and the seat), else wait as such a
        challenge of their own (seat drawn by lot). A rated seek pairs only within both
        players' rating windows (:func:`hanamikoji.web.ratings.window`), which widen with the
        wait: a waiting page asks again (``REPOLL_MS``), and its own challenge's age counts."""
        me = _someone(player)
        control, max_rounds, rated = _settings(body)
        now = self.games.now_ms()
        settings = (str(control), max_rounds, rated)
        seekers = [
            c
            for c in await self.store.open_challenges(SHOWN)
            if (c.control, c.max_rounds, c.rated) == settings
            and c.to_key is None
            and self.live(c, now)
        ]
        mine = next((c for c in seekers if c.player == me.id), None)
        fits = await self._fits(me, mine, seekers, control, rated, now)
        for c in seekers:
            if c.player == me.id or not fits(c):
                continue
            try:
                found = await self.accept(me, c.id, client)
            except WebError as e:
                if e.code in ("accepted", "cancelled", "expired"):
                    continue  # someone else was quicker: the next one
                raise
            if mine is not None:  # paired while waiting: the own seek goes
                await self.store.cancel_challenge(mine.id, me.id, now)
                again = await self.store.challenge(mine.id)
                if again is not None:
                    await self.publish(again)
            return found
        if mine is not None:
            return mine  # already waiting with the same settings
        return await self._add(me, control, max_rounds, rated, "random")

    async def _fits(
        self,
        me: PlayerRow,
        mine: ChallengeRow | None,
        seekers: list[ChallengeRow],
        control: TimeControl,
        rated: bool,
        now: int,
    ) -> Callable[[ChallengeRow], bool]:
        """Whether a waiting seeker may be paired with ``me``: anyone for a casual seek; for a
        rated one, each rating inside the other's window (a player without one is a new
        player's 1500)."""
        family = family_of(str(control))
        if not rated or family is None:
            return lambda c: True
        ids = sorted({me.id, *(c.player for c in seekers)})
        standings = await self.store.standings(ids, family)
        new = Standing(Rating())
        mine_standing = standings.get(me.id, new)
        my_window = window(mine_standing, now - mine.created if mine else 0)

        def fits(c: ChallengeRow) -> bool:
            theirs = standings.get(c.player, new)
            gap = abs(theirs.rating.rating - mine_standing.rating.rating)
            return gap <= my_window and gap <= window(theirs, now - c.created)

        return fits

    async def beat(self, now: int) -> None:
        """Each heartbeat: the players in this server's lobby keep their real-time challenges
        alive; challenges past their time close (every server does it: the database closes
        each once); every ``POLL_S`` seconds, the moderators' new acts."""
        await self.store.touch_challenges(sorted(set(self.present())), now)
        for challenge_id in await self.store.expire_challenges(now, now - GONE_MS):
            await self.changed_elsewhere(challenge_id)
        at = time.monotonic()
        if self._followed is not None and at - self._followed < POLL_S:
            return
        first, self._followed = self._followed is None, at
        try:
            if first:  # the acts made so far are in the flags: one sweep covers them
                await self._moderation.poll(apply=False)
                await self.withdraw_disabled()
            else:
                await self._moderation.poll()
        except Exception:  # a database hiccup: the next poll reads the same acts again
            log.exception("following the moderation log in the lobby failed")

    async def moderated(self, entry: ModerationRow) -> None:
        """A new act of the moderation log: a disable cancels the open challenges of the
        disabled (and those addressed to them); a reset name, the player's own open challenges,
        which show the old name."""
        if entry.action == "disable":
            await self.withdraw_disabled()
        elif entry.action == "reset-name":
            player = subject(entry)
            await self._withdraw(
                [c for c in await self.store.open_challenges(SWEPT) if c.player == player]
            )

    async def withdraw_disabled(self) -> list[str]:
        """Cancel every open challenge whose creator, or the player it is addressed to, is
        disabled, a bot whose owner is disabled included (they could never play it); their
        ids."""
        found = await self.store.open_challenges(SWEPT)
        addressees: dict[str, str] = {}
        for key in sorted({c.to_key for c in found if c.to_key is not None}):
            account = await self.store.account(key)
            if account is not None:
                addressees[key] = account.id
        ids = sorted({c.player for c in found} | set(addressees.values()))
        barred = await self.store.disabled_players(ids)

        def disabled(player: str | None) -> bool:
            return player is not None and player in barred

        return await self._withdraw(
            [
                c
                for c in found
                if disabled(c.player)
                or (c.to_key is not None and disabled(addressees.get(c.to_key)))
            ]
        )

    async def _withdraw(self, challenges: Sequence[ChallengeRow]) -> list[str]:
        """Cancel these open challenges for their creators, telling the lobby; the ids."""
        now = self.games.now_ms()
        done = []
        for c in challenges:
            if await self.store.cancel_challenge(c.id, c.player, now):
                done.append(c.id)
                await self.changed_elsewhere(c.id)
        return done

    async def _disabled(self, player: str) -> bool:
        """Whether a moderator has disabled ``player``, or the owner of ``player``, a bot."""
        return player in await self.store.disabled_players([player])

    async def changed_elsewhere(self, challenge_id: str) -> None:
        """A challenge changed (in another process, or by the sweep): tell the lobby here."""
        c = await self.store.challenge(challenge_id)
        if c is not None:
            await self.publish(c)

    async def _find(self, challenge_id: Any) -> ChallengeRow:
        if not isinstance(challenge_id, str) or not 0 < len(challenge_id) <= 40:
            raise WebError("not-found", f"there is no challenge {show(challenge_id)}")
        c = await self.store.challenge(challenge_id)
        if c is None:
            raise WebError("not-found", f"there is no challenge {show(challenge_id)}")
        return c


def _someone(player: PlayerRow | None) -> PlayerRow:
    if player is None:
        raise WebError("too-many", "too many new visitors from your address: try again soon", 60)
    return player


def _key(player: PlayerRow | None) -> str | None:
    return username_key(player.username) if player and player.username else None


def _refused(bot: bool) -> WebError:
    """Why a disabled acceptor (``bot``: a bot, disabled or its owner) may not accept."""
    return WebError("disabled", BOT_DISABLED if bot else DISABLED)


def _closed(c: ChallengeRow) -> WebError:
    """Why a challenge that is no longer open cannot be accepted or cancelled."""
    if c.status == "accepted":
        return WebError("accepted", "this challenge has already been accepted by another player")
    if c.status == "cancelled":
        return WebError("cancelled", "this challenge was cancelled by its creator")
    if c.status == "declined":
        return WebError("declined", "the bot this challenge was for declined it")
    return WebError("expired", "this challenge has expired")


def time_control(body: dict[str, Any]) -> TimeControl:
    """The time control of a request's body (``control``, default none), as the lobby takes it."""
    text = body.get("control", "none")
    if not isinstance(text, str):
        raise FieldError("control", f"{CONTROL_NOTATION}; got {show(text)}")
    try:
        return TimeControl.parse(text)
    except ClockError as e:
        raise FieldError("control", str(e)) from None


def rated_flag(body: dict[str, Any], control: TimeControl) -> bool:
    """The rated flag of a request's body (``rated``, default false), as the lobby takes it:
    only with a time control (an untimed game is never rated, so a flag saying otherwise is
    refused rather than listed, stored and ignored)."""
    rated = body.get("rated", False)
    if not isinstance(rated, bool):
        raise FieldError("rated", f"rated must be true or false, got {show(rated)}")
    if rated and not control.timed:
        raise FieldError(
            "rated",
            "a rated game needs a time control (real-time or correspondence): untimed games "
            "are never rated",
        )
    return rated


def _settings(body: dict[str, Any]) -> tuple[TimeControl, int | None, bool]:
    """The time control, rules and rated flag of a challenge or a "Play someone now"."""
    control = time_control(body)
    max_rounds = body.get("max_rounds", 3)
    if type(max_rounds) not in (int, type(None)) or max_rounds not in RULES:
        raise FieldError(
            "max_rounds",
            "the lobby's rules are at most 3 rounds (3) or no limit (null), "
            f"got {show(max_rounds)}",
        )
    return control, max_rounds, rated_flag(body, control)
