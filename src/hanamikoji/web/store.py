"""Where the web app keeps its games: SQLite (embedded, the default) or PostgreSQL.

A game is its row (who plays, the seed its deals come from, the rules) and its moves, one row each.
Every change goes through a version check (optimistic concurrency), so two server processes on one
database never both write the same ply: the loser reloads and checks its move again.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import json
import os
import sqlite3
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, Protocol
from urllib.parse import urlparse

from hanamikoji.glicko2 import PROVISIONAL_DEVIATION, Rating
from hanamikoji.web.lookalike import separators_folded
from hanamikoji.web.ratings import Standing, rate
from hanamikoji.web.stopping import stop_tasks

__all__ = [
    "MIGRATIONS",
    "REPLACED_KEPT",
    "Atomic",
    "BotRow",
    "BotStore",
    "ChallengeRow",
    "ChatFlags",
    "ChatRow",
    "ChatStore",
    "Disabled",
    "Duplicate",
    "GameRow",
    "HintRow",
    "LobbyStore",
    "ModerationRow",
    "PlayerRow",
    "PostgresStore",
    "RatedEnd",
    "SQLiteStore",
    "Store",
    "StoreError",
    "default_db_path",
    "deleted_authors",
    "open_store",
    "safe_url",
]


class StoreError(ValueError):
    """A database URL that cannot be used, or a database that cannot be opened."""


class Duplicate(Exception):
    """A value that must be unique (an account's user name) is already taken."""


class Disabled(Exception):
    """The player is disabled for the lobby (by a moderator, or a bot whose owner is): read in
    the transaction that would have written for them, nothing written."""


@dataclass(frozen=True)
class GameRow:
    """One stored game: its settings, players and moves (``"resign:S"`` for a resignation)."""

    id: str
    seed: int
    max_rounds: int | None
    mode: str  # "ai" or "friend"
    level: str | None
    ai_seat: int | None
    tokens: tuple[str, str]
    names: tuple[str, str]
    joined: tuple[bool, bool]
    version: int = 0
    status: str = "playing"
    result: dict[str, Any] | None = None
    rematch: str | None = None
    created_at: str = ""
    moves: tuple[str, ...] = field(default=())
    ai_due: bool = False  # the AI is to move (a server starting makes those moves)
    invite: str | None = None  # a friend game's invitation code (spent once the seat is claimed)
    deals: dict[str, Any] | None = None  # {"seed": S, "deals": [...]} once an undo dealt afresh
    players: tuple[str | None, str | None] = (None, None)  # each seat's player (None: nobody's)
    control: str | None = None  # the time control ("3+2", "3d"); None: no clock (AI, friends)
    rated: bool = False  # a rated game (rated once ratings exist; stored from the challenge)
    clock: str | None = None  # the clock's JSON (hanamikoji.clock.Clock.to_json), if timed
    deadline: int | None = None  # ms since the epoch: the deciding seat's deadline, while it runs
    seen: tuple[int | None, int | None] = (None, None)  # ms: each seat last connected (timed)

    @property
    def withdrawn(self) -> bool:
        """A friend game its creator ended before the friend took the seat: nothing was played,
        with nobody (no review, no chat, no result to speak of; docs/web.md)."""
        return self.mode == "friend" and self.status == "over" and not all(self.tokens)


@dataclass(frozen=True)
class ChallengeRow:
    """A challenge in the lobby: who offers which game, to whom, and what became of it.

    Times are milliseconds since the epoch (as the clocks'). ``seat`` is the creator's seat
    (``"0"``, ``"1"`` or ``"random"``); ``to_key`` the folded user name of the one player it is
    addressed to (None: anyone). A real-time challenge lives while ``seen`` (its creator's last
    lobby connection) is recent; the others until ``expires``.
    """

    id: str
    player: str
    name: str
    control: str
    max_rounds: int | None
    rated: bool
    seat: str
    to_key: str | None = None
    to_name: str | None = None
    status: str = "open"  # open, accepted, cancelled, expired
    game: str | None = None
    accepted_by: str | None = None
    created: int = 0
    updated: int = 0
    expires: int | None = None
    seen: int | None = None


@dataclass(frozen=True)
class PlayerRow:
    """A player: a guest (no user name) or an account; ``name`` is the name they last typed."""

    id: str
    name: str | None = None
    username: str | None = None
    password: str | None = None  # an account's password, hashed (Argon2)
    created_at: str = ""
    deleted: bool = False

    @property
    def is_account(self) -> bool:
        """Whether the player has an account (a user name and a password)."""
        return self.username is not None


@dataclass(frozen=True)
class HintRow:
    """A hint the server gave: at which ply of the game, to which seat, and what it said."""

    ply: int
    seat: int
    move: str
    win_probability: float
    iterations: int  # the search's budget (less than the server's own when it was busy)


# Each migration takes the schema from version i to i + 1; never edit one that has shipped.
MIGRATIONS: tuple[tuple[str, ...], ...] = (
    (
        """CREATE TABLE games (
            id TEXT PRIMARY KEY,
            created_at TEXT NOT NULL,
            updated_at TEXT NOT NULL,
            seed BIGINT NOT NULL,
            max_rounds INTEGER,
            mode TEXT NOT NULL,
            level TEXT,
            ai_seat INTEGER,
            token0 TEXT NOT NULL,
            token1 TEXT NOT NULL,
            name0 TEXT NOT NULL,
            name1 TEXT NOT NULL,
            joined0 INTEGER NOT NULL,
            joined1 INTEGER NOT NULL,
            version INTEGER NOT NULL,
            status TEXT NOT NULL,
            result TEXT,
            rematch TEXT
        )""",
        """CREATE TABLE moves (
            game_id TEXT NOT NULL REFERENCES games(id),
            ply INTEGER NOT NULL,
            seat INTEGER NOT NULL,
            move TEXT NOT NULL,
            created_at TEXT NOT NULL,
            PRIMARY KEY (game_id, ply)
        )""",
        "CREATE INDEX games_status ON games (status)",
        """CREATE TABLE analyses (
            game_id TEXT PRIMARY KEY REFERENCES games(id),
            data TEXT NOT NULL,
            created_at TEXT NOT NULL
        )""",
    ),
    # 2: whether the AI is to move, so that a starting server finds those games without reading
    # every unfinished game (NULL for games stored before: they are read to find out).
    ("ALTER TABLE games ADD COLUMN ai_due INTEGER",),
    # 3: a friend game's invitation, claimed once (the friend's seat token is made then), and
    # the deals an undo drew afresh (NULL: the deals come from the seed). A game stored before,
    # still waiting for its friend, turns the friend's token into the invitation: the old link
    # no longer opens a seat, and its code can be claimed once on the invitation page.
    (
        "ALTER TABLE games ADD COLUMN invite TEXT",
        "ALTER TABLE games ADD COLUMN deals TEXT",
        "UPDATE games SET invite = token1, token1 = '' "
        "WHERE mode = 'friend' AND joined1 = 0 AND status = 'playing'",
        "UPDATE games SET invite = token0, token0 = '' "
        "WHERE mode = 'friend' AND joined0 = 0 AND status = 'playing'",
    ),
    # 4: every hint given, so that a game's review shows it at its move. Reviews stored before
    # searched a quarter of a hint's budget (and so could call a followed hint a mistake): they
    # are searched again, at the hints' budget, when next asked for.
    (
        """CREATE TABLE hints (
            game_id TEXT NOT NULL REFERENCES games(id),
            ply INTEGER NOT NULL,
            seat INTEGER NOT NULL,
            move TEXT NOT NULL,
            win_probability DOUBLE PRECISION NOT NULL,
            iterations INTEGER NOT NULL,
            created_at TEXT NOT NULL,
            PRIMARY KEY (game_id, ply)
        )""",
        "DELETE FROM analyses",
    ),
    # 5: players (guests and accounts), their sessions (only a hash of each session id is kept)
    # and the player of each seat. Games stored before belong to nobody: their links and seat
    # cookies open them as before.
    (
        """CREATE TABLE players (
            id TEXT PRIMARY KEY,
            created_at TEXT NOT NULL,
            name TEXT,
            username TEXT,
            username_key TEXT UNIQUE,
            password TEXT,
            deleted_at TEXT
        )""",
        """CREATE TABLE sessions (
            id TEXT PRIMARY KEY,
            player_id TEXT NOT NULL REFERENCES players(id),
            created_at TEXT NOT NULL,
            expires_at TEXT NOT NULL
        )""",
        "CREATE INDEX sessions_player ON sessions (player_id)",
        "ALTER TABLE games ADD COLUMN player0 TEXT",
        "ALTER TABLE games ADD COLUMN player1 TEXT",
        "CREATE INDEX games_player0 ON games (player0, status)",
        "CREATE INDEX games_player1 ON games (player1, status)",
    ),
    # 6: the lobby and the clocks. A game's time control, rated flag, clock (JSON) and the
    # deadline of the seat to decide (ms since the epoch, NULL while no clock runs: the sweep
    # reads this column alone), and when each seat was last connected (the abandonment claim);
    # the challenges (their player as the games' seats: no foreign key, so that an idle guest
    # is forgotten as before); one row that running servers keep at "now" (the downtime rule).
    # Games stored before have no clock ("none"), as every AI and friend game.
    (
        "ALTER TABLE games ADD COLUMN control TEXT",
        "ALTER TABLE games ADD COLUMN rated INTEGER",
        "ALTER TABLE games ADD COLUMN clock TEXT",
        "ALTER TABLE games ADD COLUMN deadline BIGINT",
        "ALTER TABLE games ADD COLUMN seen0 BIGINT",
        "ALTER TABLE games ADD COLUMN seen1 BIGINT",
        "CREATE INDEX games_deadline ON games (deadline)",
        """CREATE TABLE challenges (
            id TEXT PRIMARY KEY,
            player_id TEXT NOT NULL,
            name TEXT NOT NULL,
            control TEXT NOT NULL,
            max_rounds INTEGER,
            rated INTEGER NOT NULL,
            seat TEXT NOT NULL,
            to_key TEXT,
            to_name TEXT,
            status TEXT NOT NULL,
            game_id TEXT,
            accepted_by TEXT,
            created_at BIGINT NOT NULL,
            updated_at BIGINT NOT NULL,
            expires_at BIGINT,
            seen_at BIGINT
        )""",
        "CREATE INDEX challenges_status ON challenges (status, created_at)",
        "CREATE INDEX challenges_player ON challenges (player_id, status)",
        "CREATE TABLE heartbeat (id INTEGER PRIMARY KEY, alive_at BIGINT NOT NULL)",
        "INSERT INTO heartbeat (id, alive_at) VALUES (1, 0)",
    ),
    # 7: ratings. Each player's Glicko-2 rating per family (real-time, correspondence; rated_at:
    # ms of the last rated game, NULL before the first) and one history row per player and rated
    # game with what went into its update, written in the transaction that ends the game.
    (
        """CREATE TABLE ratings (
            player_id TEXT NOT NULL,
            family TEXT NOT NULL,
            rating DOUBLE PRECISION NOT NULL,
            deviation DOUBLE PRECISION NOT NULL,
            volatility DOUBLE PRECISION NOT NULL,
            games INTEGER NOT NULL,
            rated_at BIGINT,
            PRIMARY KEY (player_id, family)
        )""",
        "CREATE INDEX ratings_board ON ratings (family, rating)",
        """CREATE TABLE rating_history (
            player_id TEXT NOT NULL,
            game_id TEXT NOT NULL,
            family TEXT NOT NULL,
            at BIGINT NOT NULL,
            opponent_id TEXT NOT NULL,
            opponent_rating DOUBLE PRECISION NOT NULL,
            opponent_deviation DOUBLE PRECISION NOT NULL,
            score DOUBLE PRECISION NOT NULL,
            periods DOUBLE PRECISION NOT NULL,
            rating DOUBLE PRECISION NOT NULL,
            deviation DOUBLE PRECISION NOT NULL,
            volatility DOUBLE PRECISION NOT NULL,
            PRIMARY KEY (player_id, game_id)
        )""",
        "CREATE INDEX rating_history_player ON rating_history (player_id, family, at)",
    ),
    # 8: chat and moderation. Each game's messages in two rooms, the players' and the
    # spectators' (kind "text", or "phrase": a quick phrase's key, shown in each reader's
    # language; removed_at: taken down by a moderator, kept for the log); each seat's mute of its
    # opponent; each player's chat preference (chat_off) and the moderators' flags (muted_at:
    # their messages are refused; disabled_at: no sign-in, no seat, sessions ended); and the
    # moderation log (who did what to whom, when and why).
    (
        "ALTER TABLE players ADD COLUMN chat_off INTEGER",
        "ALTER TABLE players ADD COLUMN muted_at TEXT",
        "ALTER TABLE players ADD COLUMN disabled_at TEXT",
        """CREATE TABLE chat (
            id TEXT PRIMARY KEY,
            game_id TEXT NOT NULL REFERENCES games(id),
            room TEXT NOT NULL,
            seat INTEGER,
            player_id TEXT,
            name TEXT NOT NULL,
            kind TEXT NOT NULL,
            body TEXT NOT NULL,
            at BIGINT NOT NULL,
            removed_at TEXT
        )""",
        "CREATE INDEX chat_game ON chat (game_id, room, at)",
        "CREATE INDEX chat_player ON chat (player_id, at)",
        """CREATE TABLE chat_mutes (
            game_id TEXT NOT NULL REFERENCES games(id),
            seat INTEGER NOT NULL,
            at TEXT NOT NULL,
            PRIMARY KEY (game_id, seat)
        )""",
        """CREATE TABLE moderation (
            id TEXT PRIMARY KEY,
            at TEXT NOT NULL,
            moderator TEXT NOT NULL,
            action TEXT NOT NULL,
            target TEXT NOT NULL,
            reason TEXT NOT NULL
        )""",
        "CREATE INDEX moderation_at ON moderation (at)",
    ),
    # 9: bots (docs/bots.md). A bot is a player with a user name and no password, owned by an
    # account (owner_id NULL: a house bot, an AI level); only a hash of its token is kept (a
    # revoked one as "revoked:HASH", so its bridge is told why); accepts: what it may play (JSON).
    (
        """CREATE TABLE bots (
            player_id TEXT PRIMARY KEY REFERENCES players(id),
            owner_id TEXT,
            token_hash TEXT UNIQUE,
            accepts TEXT NOT NULL,
            created_at TEXT NOT NULL
        )""",
        "CREATE INDEX bots_owner ON bots (owner_id)",
    ),
    # 10: the user name's key with "-" read as "_" (lookalike.separators_folded: REPLACE below
    # is the same fold), unique, so that the database itself refuses a name that passes for one
    # kept (two sign-ups of "a_b" and "a-b" at one instant both passed the check before the
    # insert). A database may already hold such a pair: both keep their names (renaming would
    # lock someone out of their account), but only the earliest made of each set holds the key,
    # which still bars every new name that passes for any of them; the others' key stays NULL,
    # which the unique index lets be.
    (
        "ALTER TABLE players ADD COLUMN username_like TEXT",
        "UPDATE players SET username_like = REPLACE(username_key, '-', '_') WHERE id IN ("
        "SELECT id FROM (SELECT id, ROW_NUMBER() OVER (PARTITION BY REPLACE(username_key, '-', "
        "'_') ORDER BY created_at, id) AS n FROM players WHERE username_key IS NOT NULL) AS firsts "
        "WHERE n = 1)",
        "CREATE UNIQUE INDEX players_username_like ON players (username_like)",
    ),
    # 11: a session replaced by another of the same browser (signing up or in) is kept a while
    # as replaced, not deleted: a request that left with it before the new cookie came is then
    # told so, rather than made a new guest whose cookie would take the place of the new one.
    ("ALTER TABLE sessions ADD COLUMN replaced_at TEXT",),
)
"""The schema as migrations; ``schema_version`` in table ``meta`` says how far a database is."""

_GAME_COLUMNS = (
    "id, seed, max_rounds, mode, level, ai_seat, token0, token1, name0, name1, "
    "joined0, joined1, version, status, result, rematch, created_at, ai_due, invite, deals, "
    "player0, player1, control, rated, clock, deadline, seen0, seen1"
)
_GAME_WIDTH = _GAME_COLUMNS.count(",") + 1  # a game's values in a row, before any others

Listener = Callable[[str], Awaitable[None]]
PresenceListener = Callable[[str, str], Awaitable[None]]
"""Another server's presence announcement: its id, then what it says (:mod:`.presence`)."""

# The statements both databases run, with ``?`` placeholders (PostgreSQL's are ``%s``: see _pg).
_SCHEMA_VERSION = "SELECT value FROM meta WHERE key = 'schema_version'"
_SET_SCHEMA_VERSION = (
    "INSERT INTO meta (key, value) VALUES ('schema_version', ?) "
    "ON CONFLICT (key) DO UPDATE SET value = excluded.value"
)
_INSERT_GAME = (
    "INSERT INTO games (id, created_at, updated_at, seed, max_rounds, mode, level, ai_seat, "
    "token0, token1, name0, name1, joined0, joined1, version, status, result, rematch, ai_due, "
    "invite, deals, player0, player1, control, rated, clock, deadline, seen0, seen1) "
    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
)
_SELECT_GAME = f"SELECT {_GAME_COLUMNS} FROM games WHERE id = ?"
_SELECT_MOVES = "SELECT move FROM moves WHERE game_id = ? ORDER BY ply"
_PG_SELECT_GAME_AND_MOVES = (
    f"SELECT {_GAME_COLUMNS}, "
    "ARRAY(SELECT m.move FROM moves m WHERE m.game_id = games.id ORDER BY m.ply) "
    "FROM games WHERE id = %s"
)
_BUMP = (
    "UPDATE games SET version = version + 1, status = ?, result = ?, updated_at = ?, ai_due = ? "
    "WHERE id = ? AND version = ?"
)
# A move writes the clock it leaves, and its deadline (NULL once no clock runs).
_BUMP_CLOCK = (
    "UPDATE games SET version = version + 1, status = ?, result = ?, updated_at = ?, ai_due = ?, "
    "clock = ?, deadline = ? WHERE id = ? AND version = ?"
)
_COUNT_MOVES = "SELECT COUNT(*) FROM moves WHERE game_id = ?"
_SET_DEALS = "UPDATE games SET deals = ? WHERE id = ?"
# A seat is claimed once: only while its token is still empty (the invitation unspent).
_CLAIM = (
    "UPDATE games SET token{seat} = ?, name{seat} = ?, joined{seat} = 1, player{seat} = ? "
    "WHERE id = ? AND token{seat} = '' AND invite IS NOT NULL AND status = 'playing'"
)
_INSERT_MOVE = "INSERT INTO moves (game_id, ply, seat, move, created_at) VALUES (?, ?, ?, ?, ?)"
_DELETE_MOVES = "DELETE FROM moves WHERE game_id = ? AND ply >= ?"
_AI_DUE = (
    "SELECT id FROM games WHERE status = 'playing' AND ai_seat IS NOT NULL "
    "AND (ai_due IS NULL OR ai_due = 1)"
)
# A hint is kept only if the game is still where it was asked (not moved on, nor undone).
_SAVE_HINT = (
    "INSERT INTO hints (game_id, ply, seat, move, win_probability, iterations, created_at) "
    "SELECT ?, ?, ?, ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM games WHERE id = ? AND version = ?) "
    "ON CONFLICT (game_id, ply) DO UPDATE SET seat = excluded.seat, move = excluded.move, "
    "win_probability = excluded.win_probability, iterations = excluded.iterations, "
    "created_at = excluded.created_at"
)
_SELECT_HINTS = (
    "SELECT ply, seat, move, win_probability, iterations FROM hints WHERE game_id = ? ORDER BY ply"
)
_DELETE_HINTS = "DELETE FROM hints WHERE game_id = ? AND ply >= ?"
_SELECT_ANALYSIS = "SELECT data FROM analyses WHERE game_id = ?"
_SAVE_ANALYSIS = (
    "INSERT INTO analyses (game_id, data, created_at) VALUES (?, ?, ?) "
    "ON CONFLICT (game_id) DO UPDATE SET data = excluded.data"
)


def _pg(sql: str) -> str:
    """A statement with PostgreSQL's placeholders."""
    return sql.replace("?", "%s")


def _pending(current: int) -> list[str]:
    """The statements that bring a database at schema version ``current`` up to date."""
    if current > len(MIGRATIONS):
        raise StoreError(
            f"the database has schema version {current}, newer than this program's "
            f"{len(MIGRATIONS)}: upgrade hanamikoji"
        )
    return [sql for statements in MIGRATIONS[current:] for sql in statements]


def _bump_values(
    game_id: str,
    version: int,
    status: str,
    result: dict[str, Any] | None,
    ai_due: bool,
    now: str,
) -> tuple[Any, ...]:
    return (status, json.dumps(result) if result else None, now, int(ai_due), game_id, version)


def _move_values(
    game_id: str,
    version: int,
    status: str,
    result: dict[str, Any] | None,
    ai_due: bool,
    clock: str | None,
    deadline: int | None,
    now: str,
) -> tuple[Any, ...]:
    """The values of :data:`_BUMP_CLOCK`."""
    head = _bump_values(game_id, version, status, result, ai_due, now)
    return (*head[:4], clock, deadline, *head[4:])


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def stamp() -> str:
    """Now, as the database's times are written (a new game's ``created_at``)."""
    return _now()


def _row(values: Sequence[Any], moves: Sequence[str]) -> GameRow:
    (gid, seed, max_rounds, mode, level, ai_seat, t0, t1, n0, n1, j0, j1, version, status) = values[
        :14
    ]
    result, rematch, created, ai_due, invite, deals, player0, player1 = values[14:22]
    control, rated, clock, deadline, seen0, seen1 = values[22:28]
    return GameRow(
        id=gid,
        seed=int(seed),
        max_rounds=max_rounds,
        mode=mode,
        level=level,
        ai_seat=ai_seat,
        tokens=(t0, t1),
        names=(n0, n1),
        joined=(bool(j0), bool(j1)),
        version=int(version),
        status=status,
        result=json.loads(result) if result else None,
        rematch=rematch,
        created_at=str(created),
        moves=tuple(moves),
        ai_due=ai_due is None or bool(ai_due),
        invite=invite,
        deals=json.loads(deals) if deals else None,
        players=(player0, player1),
        control=control,
        rated=bool(rated),
        clock=clock,
        deadline=None if deadline is None else int(deadline),
        seen=(_ms(seen0), _ms(seen1)),
    )


def _ms(value: Any) -> int | None:
    return None if value is None else int(value)


# -- players and sessions -------------------------------------------------------------------------

_PLAYER_COLUMNS = "p.id, p.name, p.username, p.password, p.created_at, p.deleted_at"
_INSERT_PLAYER = "INSERT INTO players (id, created_at, name) VALUES (?, ?, ?)"
_INSERT_SESSION = "INSERT INTO sessions (id, player_id, created_at, expires_at) VALUES (?, ?, ?, ?)"
_SESSION_PLAYER = (
    f"SELECT {_PLAYER_COLUMNS}, s.expires_at FROM sessions s JOIN players p ON p.id = s.player_id "
    "WHERE s.id = ? AND s.expires_at > ? AND s.replaced_at IS NULL AND p.deleted_at IS NULL"
)
_LIVE_SESSIONS = (
    "SELECT s.id FROM sessions s JOIN players p ON p.id = s.player_id "
    "WHERE s.id IN ({marks}) AND s.expires_at > ? AND s.replaced_at IS NULL "
    "AND p.deleted_at IS NULL"
)
_SELECT_PLAYER = f"SELECT {_PLAYER_COLUMNS} FROM players p WHERE p.id = ?"
# An account's user name, or a deleted account (its name cleared, its row kept for its games).
_ACCOUNTS = (
    "SELECT id, username, deleted_at FROM players "
    "WHERE id IN ({marks}) AND (username IS NOT NULL OR deleted_at IS NOT NULL)"
)
_PLAYER_BY_KEY = f"SELECT {_PLAYER_COLUMNS} FROM players p WHERE p.username_key = ?"
# (a look-alike pair kept from before schema 10 has the key on one row only: that one is found)
_PLAYER_LIKE_KEY = f"SELECT {_PLAYER_COLUMNS} FROM players p WHERE p.username_like = ? LIMIT 1"
_RENEW_SESSION = "UPDATE sessions SET expires_at = ? WHERE id = ?"
_END_SESSION = "DELETE FROM sessions WHERE id = ?"
# Replaced (signing up or in): opens nothing, but is known as replaced until it expires.
_REPLACE_SESSION = (
    "UPDATE sessions SET replaced_at = ?, expires_at = ? WHERE id = ? AND replaced_at IS NULL"
)
_REPLACED_SESSION = (
    "SELECT 1 FROM sessions WHERE id = ? AND replaced_at IS NOT NULL AND expires_at > ?"
)
REPLACED_KEPT = timedelta(hours=1)
"""How long a replaced session is known as such (the sweep then deletes it as expired)."""
_END_SESSIONS = "DELETE FROM sessions WHERE player_id = ?"
_END_LIVE_SESSIONS = "DELETE FROM sessions WHERE player_id = ? AND replaced_at IS NULL"
# A guest becomes an account once; the unique username_key refuses a name already taken, the
# unique username_like one that passes for it ("a-b" for "a_b").
_MAKE_ACCOUNT = (
    "UPDATE players SET username = ?, username_key = ?, username_like = ?, password = ?, "
    "name = COALESCE(name, ?) WHERE id = ? AND username_key IS NULL AND deleted_at IS NULL"
)
_SET_PASSWORD = "UPDATE players SET password = ? WHERE id = ? AND deleted_at IS NULL"
_SET_PLAYER_NAME = "UPDATE players SET name = ? WHERE id = ? AND deleted_at IS NULL"
# A guest's games go to the account they sign in to, except a game where that account holds
# the other seat: nobody may hold both seats of a game.
_ADOPTABLE = (
    "SELECT id FROM games WHERE (player0 = ? AND (player1 IS NULL OR player1 <> ?)) "
    "OR (player1 = ? AND (player0 IS NULL OR player0 <> ?))"
)
_ADOPT = (
    "UPDATE games SET player{seat} = ? "
    "WHERE player{seat} = ? AND (player{other} IS NULL OR player{other} <> ?)"
)
_PLAYER_GAME_IDS = "SELECT id FROM games WHERE player0 = ? OR player1 = ?"
_RENAME_SEATS = "UPDATE games SET name{seat} = ? WHERE player{seat} = ?"
# The row stays (the games point to it; its user name is never given to anyone else).
_DELETE_PLAYER = (
    "UPDATE players SET name = NULL, username = NULL, password = NULL, deleted_at = ? WHERE id = ?"
)
# Its chat keeps no name either: the players' room shows the seat's new name, the spectators'
# (where the name is the user name) none, which the pages mark as a deleted account's.
_FORGET_CHAT_NAMES = (
    "UPDATE chat SET name = CASE WHEN room = 'players' THEN ? ELSE '' END WHERE player_id = ?"
)
_PLAYER_GAMES = (
    f"SELECT {_GAME_COLUMNS}, updated_at FROM games "
    "WHERE (player0 = ? OR player1 = ?) AND status = ? "
    "ORDER BY updated_at DESC, id LIMIT ? OFFSET ?"
)
# The games on now that a spectator may watch: both seats taken (or one is the AI's).
_GAMES_ON = (
    f"SELECT {_GAME_COLUMNS}, updated_at FROM games "
    "WHERE status = 'playing' AND updated_at >= ? "
    "AND (ai_seat IS NOT NULL OR (joined0 = 1 AND joined1 = 1)) "
    "ORDER BY updated_at DESC, id LIMIT ?"
)
_EXPIRED_SESSIONS = "DELETE FROM sessions WHERE expires_at <= ?"
_GAMELESS_GUEST = (
    "players.username_key IS NULL AND players.deleted_at IS NULL AND NOT EXISTS "
    "(SELECT 1 FROM games WHERE games.player0 = players.id OR games.player1 = players.id)"
)
_IDLE_GUEST_SESSIONS = (
    "DELETE FROM sessions WHERE expires_at < ? AND player_id IN "
    f"(SELECT id FROM players WHERE {_GAMELESS_GUEST})"
)
_FORGET_GUESTS = (
    f"DELETE FROM players WHERE {_GAMELESS_GUEST} AND NOT EXISTS "
    "(SELECT 1 FROM sessions WHERE sessions.player_id = players.id)"
)

Step = tuple[str, Sequence[Any]]
"""A statement (``?`` placeholders) and its values."""


@dataclass(frozen=True)
class Done:
    """What one statement of a transaction did: the rows it changed, the rows it selected."""

    count: int
    rows: list[tuple[Any, ...]]


def _player(values: Sequence[Any]) -> PlayerRow:
    pid, name, username, password, created, deleted = values[:6]
    return PlayerRow(pid, name, username, password, str(created), deleted is not None)


class PlayerStore(Protocol):
    """What the web app needs to know who is playing: players, sessions and their games."""

    async def new_player(
        self, player_id: str, name: str | None, session: str, expires: str
    ) -> None:
        """Store a new guest and its first session (``session``: the hash of its id)."""
        ...

    async def session_player(self, session: str) -> tuple[PlayerRow, str] | None:
        """The player of an unexpired session and the session's expiry, or None."""
        ...

    async def live_sessions(self, sessions: Sequence[str]) -> set[str]:
        """Those of ``sessions`` that are still open (unexpired, of a player not deleted), in
        one query."""
        ...

    async def add_session(
        self, session: str, player_id: str, expires: str, *, replacing: str | None = None
    ) -> None:
        """Open a session for ``player_id``, ending the session ``replacing`` (if given: it
        opens nothing from now, and is known as replaced for :data:`REPLACED_KEPT`)."""
        ...

    async def session_replaced(self, session: str) -> bool:
        """Whether ``session`` was replaced by another of the same browser lately."""
        ...

    async def renew_session(self, session: str, expires: str) -> None:
        """Move a session's expiry."""
        ...

    async def end_session(self, session: str) -> None:
        """End one session (signing out)."""
        ...

    async def player(self, player_id: str) -> PlayerRow | None:
        """A player by id."""
        ...

    async def usernames(self, player_ids: Sequence[str]) -> dict[str, str]:
        """The user name of each of ``player_ids`` that is an account (not deleted), in one
        query; guests and deleted accounts are left out."""
        ...

    async def accounts(self, player_ids: Sequence[str]) -> dict[str, str | None]:
        """Each of ``player_ids`` that is or was an account, in one query: its user name, or
        None for a deleted account (what tells it from a guest, who is left out)."""
        ...

    async def account(self, username_key: str) -> PlayerRow | None:
        """The account (deleted or not) whose user name folds to ``username_key``."""
        ...

    async def account_like(self, separators_folded: str) -> PlayerRow | None:
        """An account (deleted or not) whose user name's key, with ``-`` read as ``_``, is
        ``separators_folded`` (lookalike.separators_folded): a look-alike a new name must not be."""
        ...

    async def make_account(
        self, player_id: str, username: str, username_key: str, password: str
    ) -> bool:
        """Turn a guest into an account (their name, if they had none, is the user name);
        False if the player is not a guest; :class:`Duplicate` if the name is taken."""
        ...

    async def set_password(self, player_id: str, password: str, session: str, expires: str) -> None:
        """Change an account's password, end all its sessions and open ``session`` instead."""
        ...

    async def set_player_name(self, player_id: str, name: str | None) -> None:
        """The name a player's new games show (None: the games' defaults)."""
        ...

    async def adopt_games(self, guest_id: str, player_id: str) -> list[str]:
        """Give ``player_id`` the seats of ``guest_id`` (not where it holds the other seat) and
        end the guest's sessions; the ids of the games that changed hands."""
        ...

    async def delete_player(self, player_id: str, shown_as: str) -> list[str]:
        """Delete an account: its sessions end, its user name, name and password are erased, its
        seats' names (and its lines' in the players' chat) become ``shown_as``, its lines in
        the spectators' chat lose its user name; the ids of its games (which stay)."""
        ...

    async def player_games(
        self, player_id: str, status: str, limit: int, offset: int = 0
    ) -> list[tuple[GameRow, str]]:
        """A player's games of ``status`` (without their moves) and when each last changed,
        the most recent first."""
        ...

    async def forget_guests(self, now: str, idle_expiry: str) -> None:
        """Delete expired sessions, and guests without a game whose session expires before
        ``idle_expiry`` (not seen for long) with those sessions."""
        ...

    async def games_on(self, since: str, limit: int) -> list[tuple[GameRow, str]]:
        """Unfinished games with both seats taken that changed at or after ``since`` (without
        their moves) and when each last changed, the most recent first: what spectators find."""
        ...


class _Primitives:
    """What each database provides, and the parts of the store written once over it use."""

    _LOCK = ""
    """What a ``SELECT`` ends with to lock the rows it reads until the transaction ends (none
    on SQLite, whose writing transactions run one at a time)."""

    async def _one(self, sql: str, values: Sequence[Any]) -> tuple[Any, ...] | None:
        """The first row ``sql`` selects, or None."""
        raise NotImplementedError

    async def _all(self, sql: str, values: Sequence[Any]) -> list[tuple[Any, ...]]:
        """Every row ``sql`` selects."""
        raise NotImplementedError

    async def _tx(self, steps: Sequence[Step], *, announce: int | None = None) -> list[Done]:
        """Run ``steps`` in one transaction; the game ids step ``announce`` selects are
        announced to the other processes. A unique value taken raises :class:`Duplicate`."""
        raise NotImplementedError

    def _atomic(self) -> contextlib.AbstractAsyncContextManager[Atomic]:
        """One transaction (committed when the block ends, rolled back on an exception)."""
        raise NotImplementedError


class _Players(_Primitives):
    """:class:`PlayerStore` written once, over the primitives each database provides."""

    async def new_player(
        self, player_id: str, name: str | None, session: str, expires: str
    ) -> None:
        now = _now()
        await self._tx(
            [
                (_INSERT_PLAYER, (player_id, now, name)),
                (_INSERT_SESSION, (session, player_id, now, expires)),
            ]
        )

    async def session_player(self, session: str) -> tuple[PlayerRow, str] | None:
        row = await self._one(_SESSION_PLAYER, (session, _now()))
        return None if row is None else (_player(row), str(row[6]))

    async def live_sessions(self, sessions: Sequence[str]) -> set[str]:
        ids = sorted(set(sessions))
        live: set[str] = set()
        for at in range(0, len(ids), 500):  # within every SQLite's limit on parameters
            part = ids[at : at + 500]
            rows = await self._all(_LIVE_SESSIONS.format(marks=_marks(len(part))), [*part, _now()])
            live.update(str(r[0]) for r in rows)
        return live

    async def add_session(
        self, session: str, player_id: str, expires: str, *, replacing: str | None = None
    ) -> None:
        steps: list[Step] = []
        if replacing is not None:
            until = (datetime.now(UTC) + REPLACED_KEPT).isoformat(timespec="milliseconds")
            steps.append((_REPLACE_SESSION, (_now(), until, replacing)))
        steps.append((_INSERT_SESSION, (session, player_id, _now(), expires)))
        await self._tx(steps)

    async def session_replaced(self, session: str) -> bool:
        return await self._one(_REPLACED_SESSION, (session, _now())) is not None

    async def renew_session(self, session: str, expires: str) -> None:
        await self._tx([(_RENEW_SESSION, (expires, session))])

    async def end_session(self, session: str) -> None:
        await self._tx([(_END_SESSION, (session,))])

    async def player(self, player_id: str) -> PlayerRow | None:
        row = await self._one(_SELECT_PLAYER, (player_id,))
        return None if row is None else _player(row)

    async def usernames(self, player_ids: Sequence[str]) -> dict[str, str]:
        found = await self.accounts(player_ids)
        return {pid: name for pid, name in found.items() if name is not None}

    async def accounts(self, player_ids: Sequence[str]) -> dict[str, str | None]:
        ids = sorted(set(player_ids))
        if not ids:
            return {}
        rows = await self._all(_ACCOUNTS.format(marks=_marks(len(ids))), ids)
        return {r[0]: None if r[2] is not None else r[1] for r in rows}

    async def account(self, username_key: str) -> PlayerRow | None:
        row = await self._one(_PLAYER_BY_KEY, (username_key,))
        return None if row is None else _player(row)

    async def account_like(self, separators_folded: str) -> PlayerRow | None:
        row = await self._one(_PLAYER_LIKE_KEY, (separators_folded,))
        return None if row is None else _player(row)

    async def make_account(
        self, player_id: str, username: str, username_key: str, password: str
    ) -> bool:
        like = separators_folded(username_key)
        values = (username, username_key, like, password, username, player_id)
        (done,) = await self._tx([(_MAKE_ACCOUNT, values)])
        return done.count == 1

    async def set_password(self, player_id: str, password: str, session: str, expires: str) -> None:
        await self._tx(
            [
                (_SET_PASSWORD, (password, player_id)),
                (_END_SESSIONS, (player_id,)),
                (_INSERT_SESSION, (session, player_id, _now(), expires)),
            ]
        )

    async def set_player_name(self, player_id: str, name: str | None) -> None:
        await self._tx([(_SET_PLAYER_NAME, (name, player_id))])

    async def adopt_games(self, guest_id: str, player_id: str) -> list[str]:
        done = await self._tx(
            [
                (_ADOPTABLE, (guest_id, player_id, guest_id, player_id)),
                (_ADOPT.format(seat=0, other=1), (player_id, guest_id, player_id)),
                (_ADOPT.format(seat=1, other=0), (player_id, guest_id, player_id)),
                (_END_LIVE_SESSIONS, (guest_id,)),  # the one replaced by the sign-in is kept
            ],
            announce=0,
        )
        return [r[0] for r in done[0].rows]

    async def delete_player(self, player_id: str, shown_as: str) -> list[str]:
        done = await self._tx(
            [
                (_PLAYER_GAME_IDS, (player_id, player_id)),
                (_RENAME_SEATS.format(seat=0), (shown_as, player_id)),
                (_RENAME_SEATS.format(seat=1), (shown_as, player_id)),
                (_FORGET_CHAT_NAMES, (shown_as, player_id)),
                (_END_SESSIONS, (player_id,)),
                (_DELETE_PLAYER, (_now(), player_id)),
            ],
            announce=0,
        )
        return [r[0] for r in done[0].rows]

    async def player_games(
        self, player_id: str, status: str, limit: int, offset: int = 0
    ) -> list[tuple[GameRow, str]]:
        rows = await self._all(_PLAYER_GAMES, (player_id, player_id, status, limit, offset))
        return [(_row(r, []), str(r[_GAME_WIDTH])) for r in rows]

    async def games_on(self, since: str, limit: int) -> list[tuple[GameRow, str]]:
        rows = await self._all(_GAMES_ON, (since, limit))
        return [(_row(r, []), str(r[_GAME_WIDTH])) for r in rows]

    async def forget_guests(self, now: str, idle_expiry: str) -> None:
        await self._tx(
            [
                (_EXPIRED_SESSIONS, (now,)),
                (_IDLE_GUEST_SESSIONS, (idle_expiry,)),
                (_FORGET_GUESTS, ()),
            ]
        )


# -- ratings ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class RatedEnd:
    """A rated game's end, for :meth:`Store.append`: the two players (seat 0's first), the
    family, seat 0's score and when it ended (ms). The store rates it in the same transaction.
    ``fixed`` gives a seat's fixed rating (an AI level's): that seat is neither read nor
    written, and the other player is rated against it."""

    players: tuple[str, str]
    family: str
    score: float
    now: int
    fixed: tuple[Rating | None, Rating | None] = (None, None)


@dataclass(frozen=True)
class HistoryRow:
    """One rated game of a player: what went into the update and the rating after it."""

    game_id: str
    family: str
    at: int
    opponent_id: str
    opponent: Rating
    score: float
    periods: float
    after: Rating


# A player's row exists before it is locked, so that two games ending at once (two servers)
# both wait for the same row rather than both inserting a new player's rating.
_NEW_RATING = (
    "INSERT INTO ratings (player_id, family, rating, deviation, volatility, games, rated_at) "
    "VALUES (?, ?, ?, ?, ?, 0, NULL) ON CONFLICT (player_id, family) DO NOTHING"
)
_SELECT_RATING = (
    "SELECT rating, deviation, volatility, games, rated_at FROM ratings "
    "WHERE player_id = ? AND family = ?"
)
_SET_RATING = (
    "UPDATE ratings SET rating = ?, deviation = ?, volatility = ?, games = ?, rated_at = ? "
    "WHERE player_id = ? AND family = ?"
)
_INSERT_HISTORY = (
    "INSERT INTO rating_history (player_id, game_id, family, at, opponent_id, opponent_rating, "
    "opponent_deviation, score, periods, rating, deviation, volatility) "
    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
)
_PLAYER_RATINGS = (
    "SELECT family, rating, deviation, volatility, games, rated_at FROM ratings "
    "WHERE player_id = ? AND games > 0"
)
_HISTORY = (
    "SELECT game_id, family, at, opponent_id, opponent_rating, opponent_deviation, score, "
    "periods, rating, deviation, volatility FROM rating_history WHERE player_id = ? "
    "ORDER BY at, game_id"
)
# Established accounts only: a guest has no profile to link to, a deleted account no name.
_LEADERS = (
    "SELECT p.username, p.name, r.rating, r.deviation, r.games FROM ratings r "
    "JOIN players p ON p.id = r.player_id WHERE r.family = ? AND r.deviation < ? "
    "AND r.games > 0 AND p.username IS NOT NULL AND p.deleted_at IS NULL "
    "ORDER BY r.rating DESC, p.username LIMIT ?"
)
_RATINGS_OF = "SELECT player_id, rating, deviation, volatility, games, rated_at FROM ratings "
# By the primary key (player_id, game_id): one row or none.
_GAME_HISTORY = (
    "SELECT family, at, rating, deviation FROM rating_history WHERE player_id = ? AND game_id = ?"
)
# The rating a game started from: the player's row just before it in the history's order (the
# index on player_id, family, at).
_RATING_BEFORE = (
    "SELECT rating, deviation FROM rating_history WHERE player_id = ? AND family = ? "
    "AND (at < ? OR (at = ? AND game_id < ?)) ORDER BY at DESC, game_id DESC LIMIT 1"
)


Query = Callable[[str, Sequence[Any]], Awaitable[list[tuple[Any, ...]]]]
"""Runs one statement inside a transaction and returns its rows (none for a change)."""


def _standing(values: Sequence[Any]) -> Standing:
    rating, deviation, volatility, games, rated_at = values[:5]
    return Standing(Rating(rating, deviation, volatility), int(games), _ms(rated_at))


async def _rate_in(run: Query, game_id: str, end: RatedEnd, lock: str = "") -> None:
    """Rate ``game_id``'s end inside the caller's transaction: read both players' ratings
    (locked with ``lock``, PostgreSQL's ``FOR UPDATE``), write both and their history rows (a
    fixed seat, an AI level, is rated against but neither read nor written)."""
    fresh = Rating()
    standings = {p: Standing(r) for p, r in zip(end.players, end.fixed, strict=True) if r}
    for player in sorted(set(end.players) - set(standings)):  # one order: no deadlock
        await run(
            _NEW_RATING, (player, end.family, fresh.rating, fresh.deviation, fresh.volatility)
        )
        (row,) = await run(_SELECT_RATING + lock, (player, end.family))
        standings[player] = _standing(row)
    first, second = end.players
    changes = rate(standings[first], standings[second], end.score, end.now)
    for me, other, change, fixed in (
        (first, second, changes[0], end.fixed[0]),
        (second, first, changes[1], end.fixed[1]),
    ):
        if fixed is not None:  # an AI level's rating never moves
            continue
        new = change.after
        r = new.rating
        await run(
            _SET_RATING,
            (r.rating, r.deviation, r.volatility, new.games, new.rated_at, me, end.family),
        )
        await run(
            _INSERT_HISTORY,
            (
                me,
                game_id,
                end.family,
                end.now,
                other,
                change.opponent.rating,
                change.opponent.deviation,
                change.score,
                change.periods,
                r.rating,
                r.deviation,
                r.volatility,
            ),
        )


class _Ratings(_Primitives):
    """Reading ratings, written once over the databases' ``_all``."""

    async def ratings(self, player_id: str) -> dict[str, Standing]:
        """``player_id``'s ratings by family (only families with a rated game)."""
        rows = await self._all(_PLAYER_RATINGS, (player_id,))
        return {r[0]: _standing(r[1:]) for r in rows}

    async def rating_history(self, player_id: str) -> list[HistoryRow]:
        """``player_id``'s rated games, oldest first."""
        rows = await self._all(_HISTORY, (player_id,))
        return [
            HistoryRow(g, f, int(at), o, Rating(orat, odev), sc, per, Rating(ra, de, vo))
            for g, f, at, o, orat, odev, sc, per, ra, de, vo in rows
        ]

    async def game_ratings(
        self, game_id: str, player_ids: Sequence[str]
    ) -> dict[str, tuple[Rating, Rating]]:
        """What rated ``game_id`` did to each of ``player_ids`` whose rating it moved: the
        rating before it (a fresh one for a first rated game) and after, by player id (an AI
        level's fixed rating, never moved, is left out, as is every player of an unrated game)."""
        moved = {}
        for player in player_ids:
            for family, at, rating, deviation in await self._all(_GAME_HISTORY, (player, game_id)):
                rows = await self._all(_RATING_BEFORE, (player, family, at, at, game_id))
                before = Rating(*rows[0]) if rows else Rating()
                moved[player] = (before, Rating(rating, deviation))
        return moved

    async def leaders(self, family: str, limit: int) -> list[tuple[str, str | None, Standing]]:
        """The established accounts of ``family``, best first: (user name, name, standing)."""
        rows = await self._all(_LEADERS, (family, PROVISIONAL_DEVIATION, limit))
        return [(u, n, Standing(Rating(ra, de), int(g))) for u, n, ra, de, g in rows]

    async def standings(self, player_ids: Sequence[str], family: str) -> dict[str, Standing]:
        """The ratings of ``player_ids`` in ``family`` (a player without one is left out)."""
        if not player_ids:
            return {}
        sql = _RATINGS_OF + f"WHERE family = ? AND player_id IN ({_marks(len(player_ids))})"
        rows = await self._all(sql, (family, *player_ids))
        return {r[0]: _standing(r[1:]) for r in rows}


# -- the lobby and the clocks ----------------------------------------------------------------------

_CHALLENGE_COLUMNS = (
    "id, player_id, name, control, max_rounds, rated, seat, to_key, to_name, status, game_id, "
    "accepted_by, created_at, updated_at, expires_at, seen_at"
)
_INSERT_CHALLENGE = (
    f"INSERT INTO challenges ({_CHALLENGE_COLUMNS}) "
    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
)
_SELECT_CHALLENGE = f"SELECT {_CHALLENGE_COLUMNS} FROM challenges WHERE id = ?"
_OPEN_CHALLENGES = (
    f"SELECT {_CHALLENGE_COLUMNS} FROM challenges WHERE status = 'open' "
    "ORDER BY created_at, id LIMIT ?"
)
_COUNT_OPEN = "SELECT COUNT(*) FROM challenges WHERE player_id = ? AND status = 'open'"
# A creator's row and, for a bot, its owner's: their flags, read (locked, on PostgreSQL: see
# _Primitives._LOCK) in the transaction that stores the challenge.
_CREATOR_FLAGS = (
    "SELECT disabled_at FROM players "
    "WHERE id = ? OR id IN (SELECT owner_id FROM bots WHERE player_id = ?)"
)
_DELETED = "player_id IN (SELECT id FROM players WHERE deleted_at IS NOT NULL)"


def _disabled_sql(player: str) -> str:
    """SQL that holds when ``player`` (a column, or ``?``: bound twice) is disabled for the
    lobby: a moderator disabled them, or they are a bot whose owner is (the act sets only the
    owner's flag, and cuts their bots off)."""
    return (
        f"(EXISTS (SELECT 1 FROM players dp WHERE dp.id = {player} AND dp.disabled_at IS NOT NULL) "
        "OR EXISTS (SELECT 1 FROM bots db JOIN players dow ON dow.id = db.owner_id "
        f"WHERE db.player_id = {player} AND dow.disabled_at IS NOT NULL))"
    )


# (Qualified: inside the subqueries, a bare player_id would be the bots table's.)
_DISABLED = _disabled_sql("challenges.player_id")
# Accepted once: only while open, live (a real-time one: its creator seen lately; the others:
# not past their expiry), by someone else, by its addressee if it has one, while its creator has
# neither deleted their account nor been disabled, and while its acceptor is not disabled either
# (a moderator's act on any server, up to the instant of this update: the lobby's own looks at
# the flags come before it, and a disabled player's request may still be on its way).
_ACCEPT = (
    "UPDATE challenges SET status = 'accepted', game_id = ?, accepted_by = ?, updated_at = ? "
    "WHERE id = ? AND status = 'open' AND player_id <> ? AND (to_key IS NULL OR to_key = ?) "
    "AND (expires_at > ? OR (expires_at IS NULL AND seen_at >= ?)) "
    f"AND NOT {_DELETED} AND NOT {_DISABLED} AND NOT {_disabled_sql('?')}"
)
# The players among some who are disabled for the lobby (as _disabled_sql has it).
_DISABLED_AMONG = (
    "SELECT id FROM players WHERE disabled_at IS NOT NULL AND id IN ({marks}) "
    "UNION SELECT b.player_id FROM bots b JOIN players o ON o.id = b.owner_id "
    "WHERE o.disabled_at IS NOT NULL AND b.player_id IN ({marks})"
)
_CANCEL = (
    "UPDATE challenges SET status = 'cancelled', updated_at = ? "
    "WHERE id = ? AND player_id = ? AND status = 'open'"
)
# A disabled creator's challenge closes as the servers following the moderation log close it,
# cancelled (lobby.WITHDRAWN), whichever of the two comes first; the others expire.
_EXPIRE = (
    f"UPDATE challenges SET status = CASE WHEN {_DISABLED} THEN 'cancelled' ELSE 'expired' END, "
    "updated_at = ? WHERE status = 'open' AND (expires_at <= ? "
    f"OR (expires_at IS NULL AND seen_at < ?) OR {_DELETED} OR {_DISABLED}) RETURNING id"
)
_TOUCH_CHALLENGES = (
    "UPDATE challenges SET seen_at = ? "
    "WHERE status = 'open' AND expires_at IS NULL AND player_id IN ({marks})"
)
_STARTED = (
    f"SELECT {_CHALLENGE_COLUMNS} FROM challenges "
    "WHERE (player_id = ? OR accepted_by = ?) AND status = 'accepted' AND updated_at >= ?"
)
_ALIVE_AT = "SELECT alive_at FROM heartbeat WHERE id = 1"
_BEAT = "UPDATE heartbeat SET alive_at = ? WHERE id = 1 AND alive_at < ?"
# Moved only from the value read: of several servers starting at once, one skips the downtime.
_TAKE_DOWNTIME = "UPDATE heartbeat SET alive_at = ? WHERE id = 1 AND alive_at = ?"
_SHIFT_SEEKS = (
    "UPDATE challenges SET seen_at = seen_at + ? "
    "WHERE status = 'open' AND expires_at IS NULL AND seen_at IS NOT NULL"
)
_RUNNING_CLOCKS = "SELECT id, clock FROM games WHERE status = 'playing' AND deadline IS NOT NULL"
_SET_CLOCK = "UPDATE games SET clock = ?, deadline = ? WHERE id = ?"
_OVERDUE = (
    "SELECT id FROM games WHERE deadline < ? AND status = 'playing' ORDER BY deadline LIMIT ?"
)
_TOUCH_SEATS = "UPDATE games SET seen{seat} = ? WHERE id IN ({marks})"


def _challenge(values: Sequence[Any]) -> ChallengeRow:
    (cid, player, name, control, max_rounds, rated, seat, to_key, to_name, status) = values[:10]
    game, accepted_by, created, updated, expires, seen = values[10:16]
    return ChallengeRow(
        id=cid,
        player=player,
        name=name,
        control=control,
        max_rounds=max_rounds,
        rated=bool(rated),
        seat=seat,
        to_key=to_key,
        to_name=to_name,
        status=status,
        game=game,
        accepted_by=accepted_by,
        created=int(created),
        updated=int(updated),
        expires=_ms(expires),
        seen=_ms(seen),
    )


def _challenge_values(c: ChallengeRow) -> tuple[Any, ...]:
    return (
        c.id,
        c.player,
        c.name,
        c.control,
        c.max_rounds,
        int(c.rated),
        c.seat,
        c.to_key,
        c.to_name,
        c.status,
        c.game,
        c.accepted_by,
        c.created,
        c.updated,
        c.expires,
        c.seen,
    )


def _marks(n: int) -> str:
    return ", ".join("?" * n)


class Atomic(Protocol):
    """One transaction: statements, and announcements sent to the other processes on commit."""

    async def run(self, sql: str, values: Sequence[Any] = ()) -> Done:
        """Run one statement (``?`` placeholders)."""
        ...

    async def announce(self, game_id: str) -> None:
        """Tell the other processes that a game changed."""
        ...

    async def announce_challenge(self, challenge_id: str) -> None:
        """Tell the other processes that a challenge changed."""
        ...


ClockRewrite = Callable[[str], tuple[str, int | None]]
"""A stored clock's JSON to the JSON and deadline that replace it."""


class LobbyStore(Protocol):
    """What the lobby and the clocks need from a database (docs/web.md, "The lobby")."""

    async def add_challenge(self, challenge: ChallengeRow, most: int) -> bool:
        """Store a new challenge, unless its player already has ``most`` open ones (False);
        :class:`Disabled` (nothing stored) if its player is disabled for the lobby, as read in
        the same transaction."""
        ...

    async def challenge(self, challenge_id: str) -> ChallengeRow | None:
        """A challenge by id."""
        ...

    async def open_challenges(self, limit: int) -> list[ChallengeRow]:
        """The open challenges, the longest waiting first."""
        ...

    async def accept_challenge(
        self,
        challenge_id: str,
        player: str,
        player_key: str | None,
        game: GameRow,
        now: int,
        seen_after: int,
    ) -> bool:
        """Accept an open challenge for ``player`` and store ``game`` in the same transaction;
        False (nothing written) if it is not open, not live (a real-time one whose creator was
        last seen before ``seen_after``, another past its expiry), ``player``'s own, addressed
        to someone else (``player_key``: the acceptor's folded user name), its creator's
        account deleted or disabled, or ``player`` disabled (a bot: or its owner)."""
        ...

    async def cancel_challenge(self, challenge_id: str, player: str, now: int) -> bool:
        """Cancel ``player``'s open challenge; False if it is not theirs or not open."""
        ...

    async def expire_challenges(self, now: int, seen_before: int) -> list[str]:
        """Close the open challenges past their expiry, the real-time ones whose creator was
        last seen before ``seen_before``, and those of deleted accounts (expired) and disabled
        ones (cancelled; a bot whose owner is disabled is disabled too); their ids."""
        ...

    async def disabled_players(self, player_ids: Sequence[str]) -> set[str]:
        """Those of ``player_ids`` who are disabled for the lobby: by a moderator, or bots whose
        owner is."""
        ...

    async def touch_challenges(self, players: Sequence[str], now: int) -> None:
        """``players`` are in the lobby now: their real-time challenges stay alive."""
        ...

    async def started_challenges(self, player: str, since: int) -> list[ChallengeRow]:
        """``player``'s challenges (made or accepted) that became games since ``since``."""
        ...

    async def alive_at(self) -> int:
        """The last heartbeat of any server (ms since the epoch; 0 before the first)."""
        ...

    async def beat(self, now: int) -> None:
        """This server is alive at ``now`` (``alive_at`` only ever moves forward)."""
        ...

    async def skip_downtime(
        self, alive_at: int, now: int, rewrite: ClockRewrite, reconnect_ms: int = 0
    ) -> list[str] | None:
        """If the heartbeat still reads ``alive_at``, move it to ``now`` and, in the same
        transaction, replace every running clock by ``rewrite(clock)`` and move the last sight
        of every open real-time challenge's creator on by the downtime and ``reconnect_ms``
        (their pages come back: their seeks must not close as abandoned); the ids of the games
        rewritten (None: another server had moved the heartbeat first)."""
        ...

    async def overdue(self, now: int, limit: int = 100) -> list[str]:
        """The unfinished games whose deadline is before ``now``, the earliest first."""
        ...

    async def touch_seats(self, seats: Sequence[tuple[str, int]], now: int) -> None:
        """The seats ``(game, seat)`` are connected at ``now`` (no announcement)."""
        ...


class _Lobby(_Primitives):
    """:class:`LobbyStore` written once, over the primitives each database provides."""

    async def add_challenge(self, challenge: ChallengeRow, most: int) -> bool:
        player = challenge.player
        async with self._atomic() as tx:
            # The flags as this transaction writes: a moderator's act on any server commits
            # before this read (which then sees it) or waits for this insert (and the challenge
            # is withdrawn as any the act finds open); never a challenge of a disabled player
            # shown for an instant. The lock also counts one player's challenges one at a time.
            flags = await tx.run(_CREATOR_FLAGS + self._LOCK, (player, player))
            if any(disabled_at is not None for (disabled_at,) in flags.rows):
                raise Disabled(player)
            (count,) = (await tx.run(_COUNT_OPEN, (player,))).rows[0]
            if int(count) >= most:
                return False
            await tx.run(_INSERT_CHALLENGE, _challenge_values(challenge))
            await tx.announce_challenge(challenge.id)
        return True

    async def challenge(self, challenge_id: str) -> ChallengeRow | None:
        row = await self._one(_SELECT_CHALLENGE, (challenge_id,))
        return None if row is None else _challenge(row)

    async def open_challenges(self, limit: int) -> list[ChallengeRow]:
        return [_challenge(r) for r in await self._all(_OPEN_CHALLENGES, (limit,))]

    async def accept_challenge(
        self,
        challenge_id: str,
        player: str,
        player_key: str | None,
        game: GameRow,
        now: int,
        seen_after: int,
    ) -> bool:
        values = (
            *(game.id, player, now, challenge_id, player, player_key, now, seen_after),
            *(player, player),  # the acceptor, not disabled
        )
        async with self._atomic() as tx:
            if (await tx.run(_ACCEPT, values)).count != 1:
                return False
            await tx.run(_INSERT_GAME, _insert_values(game, game.created_at or _now()))
            await tx.announce_challenge(challenge_id)
        return True

    async def cancel_challenge(self, challenge_id: str, player: str, now: int) -> bool:
        async with self._atomic() as tx:
            if (await tx.run(_CANCEL, (now, challenge_id, player))).count != 1:
                return False
            await tx.announce_challenge(challenge_id)
        return True

    async def expire_challenges(self, now: int, seen_before: int) -> list[str]:
        async with self._atomic() as tx:
            done = await tx.run(_EXPIRE, (now, now, seen_before))
            ids = [str(r[0]) for r in done.rows]
            for challenge_id in ids:
                await tx.announce_challenge(challenge_id)
        return ids

    async def disabled_players(self, player_ids: Sequence[str]) -> set[str]:
        ids = sorted(set(player_ids))
        if not ids:
            return set()
        marks = _marks(len(ids))
        rows = await self._all(_DISABLED_AMONG.format(marks=marks), (*ids, *ids))
        return {str(r[0]) for r in rows}

    async def touch_challenges(self, players: Sequence[str], now: int) -> None:
        if not players:
            return
        async with self._atomic() as tx:
            await tx.run(_TOUCH_CHALLENGES.format(marks=_marks(len(players))), (now, *players))

    async def started_challenges(self, player: str, since: int) -> list[ChallengeRow]:
        return [_challenge(r) for r in await self._all(_STARTED, (player, player, since))]

    async def alive_at(self) -> int:
        row = await self._one(_ALIVE_AT, ())
        return 0 if row is None else int(row[0])

    async def beat(self, now: int) -> None:
        async with self._atomic() as tx:
            await tx.run(_BEAT, (now, now))

    async def skip_downtime(
        self, alive_at: int, now: int, rewrite: ClockRewrite, reconnect_ms: int = 0
    ) -> list[str] | None:
        async with self._atomic() as tx:
            if (await tx.run(_TAKE_DOWNTIME, (now, alive_at))).count != 1:
                return None
            await tx.run(_SHIFT_SEEKS, (max(0, now - alive_at) + reconnect_ms,))
            running = (await tx.run(_RUNNING_CLOCKS)).rows
            for game_id, clock in running:
                text, deadline = rewrite(clock)
                await tx.run(_SET_CLOCK, (text, deadline, game_id))
                await tx.announce(game_id)
        return [str(r[0]) for r in running]

    async def overdue(self, now: int, limit: int = 100) -> list[str]:
        return [str(r[0]) for r in await self._all(_OVERDUE, (now, limit))]

    async def touch_seats(self, seats: Sequence[tuple[str, int]], now: int) -> None:
        if not seats:
            return
        async with self._atomic() as tx:
            for seat in (0, 1):
                ids = [game for game, s in seats if s == seat]
                if ids:
                    sql = _TOUCH_SEATS.format(seat=seat, marks=_marks(len(ids)))
                    await tx.run(sql, (now, *ids))


# -- chat and moderation (docs/web.md "Chat" and "Moderation") ------------------------------------


@dataclass(frozen=True)
class ChatRow:
    """One chat message: in which game and room, from whom, what, and when (ms since the epoch).

    ``kind`` is ``"text"`` (``body`` as typed) or ``"phrase"`` (``body`` a quick phrase's key,
    which each reader sees in their own language); ``seat`` is the author's seat in the players'
    room (None in the spectators'); ``removed``: taken down by a moderator.
    """

    id: str
    game: str
    room: str
    seat: int | None
    player: str | None
    name: str
    kind: str
    body: str
    at: int
    removed: bool = False


@dataclass(frozen=True)
class ChatFlags:
    """A player's chat preference and the moderators' flags on them."""

    chat_off: bool = False
    muted: bool = False
    disabled: bool = False
    deleted: bool = False  # the account was deleted: its seats, and their chat, are closed


@dataclass(frozen=True)
class ModerationRow:
    """One act of moderation: who did what to whom (a player or a message), when and why."""

    id: str
    at: str
    moderator: str
    action: str
    target: str
    reason: str


_CHAT_COLUMNS = "id, game_id, room, seat, player_id, name, kind, body, at, removed_at"
_INSERT_CHAT = (
    "INSERT INTO chat (id, game_id, room, seat, player_id, name, kind, body, at) "
    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
)
_SELECT_CHAT = f"SELECT {_CHAT_COLUMNS} FROM chat WHERE id = ?"
_GAME_CHAT = (
    f"SELECT {_CHAT_COLUMNS} FROM chat WHERE game_id = ? AND room = ? AND removed_at IS NULL "
    "ORDER BY at, id LIMIT ?"
)
_CHAT_MUTES = "SELECT seat FROM chat_mutes WHERE game_id = ?"
_MUTE_CHAT = (
    "INSERT INTO chat_mutes (game_id, seat, at) VALUES (?, ?, ?) "
    "ON CONFLICT (game_id, seat) DO NOTHING"
)
_UNMUTE_CHAT = "DELETE FROM chat_mutes WHERE game_id = ? AND seat = ?"
_CHAT_FLAGS = (
    "SELECT id, chat_off, muted_at, disabled_at, deleted_at FROM players WHERE id IN ({marks})"
)
_SET_CHAT_OFF = "UPDATE players SET chat_off = ? WHERE id = ?"
_SET_FLAG = {
    "muted": "UPDATE players SET muted_at = ? WHERE id = ?",
    "disabled": "UPDATE players SET disabled_at = ? WHERE id = ?",
}
_REMOVE_CHAT = "UPDATE chat SET removed_at = ? WHERE id = ? AND removed_at IS NULL"
# Only the name the log names: one changed meanwhile is not cleared under the old one's entry.
_RESET_NAME = "UPDATE players SET name = NULL WHERE id = ? AND name = ? AND deleted_at IS NULL"
_INSERT_MODERATION = (
    "INSERT INTO moderation (id, at, moderator, action, target, reason) VALUES (?, ?, ?, ?, ?, ?)"
)
_MODERATION_LOG = (
    "SELECT id, at, moderator, action, target, reason FROM moderation "
    "ORDER BY at DESC, id DESC LIMIT ?"
)
_MODERATION_AFTER = (
    "SELECT id, at, moderator, action, target, reason FROM moderation WHERE id > ? "
    "ORDER BY id LIMIT ?"
)


async def deleted_authors(store: PlayerStore, lines: Sequence[ChatRow]) -> set[str]:
    """The players behind ``lines`` said in the spectators' room without a name who were
    accounts, deleted since (the others without one are guests), in one query."""
    spoke = {ln.player for ln in lines if ln.room != "players" and not ln.name}
    unnamed = sorted(p for p in spoke if p)
    found = await store.accounts(unnamed) if unnamed else {}
    return {player for player, name in found.items() if name is None}


def _chat_row(values: Sequence[Any]) -> ChatRow:
    cid, game, room, seat, player, name, kind, body, at, removed = values[:10]
    seat = None if seat is None else int(seat)
    return ChatRow(cid, game, room, seat, player, name, kind, body, int(at), removed is not None)


def _moderation_values(entry: ModerationRow) -> tuple[Any, ...]:
    return (entry.id, entry.at, entry.moderator, entry.action, entry.target, entry.reason)


ChatListener = Callable[[str], Awaitable[None]]


class ChatStore(Protocol):
    """What chat and moderation need from a database."""

    async def add_chat(self, line: ChatRow) -> None:
        """Store a message (and tell the other server processes of it)."""
        ...

    async def chat_line(self, line_id: str) -> ChatRow | None:
        """One message by id, removed or not."""
        ...

    async def chat(self, game_id: str, room: str, limit: int = 500) -> list[ChatRow]:
        """A room's messages (not removed), oldest first."""
        ...

    async def chat_lines(
        self, *, game_id: str | None = None, player_id: str | None = None, limit: int = 50
    ) -> list[ChatRow]:
        """Messages of a game, or of a player, or all, removed ones too, newest first."""
        ...

    async def chat_mutes(self, game_id: str) -> set[int]:
        """The seats of ``game_id`` that muted their opponent."""
        ...

    async def set_chat_mute(self, game_id: str, seat: int, muted: bool) -> None:
        """Whether ``seat`` mutes its opponent in ``game_id``."""
        ...

    async def chat_flags(self, player_ids: Sequence[str]) -> dict[str, ChatFlags]:
        """The flags of each of ``player_ids`` that exists."""
        ...

    async def set_chat_off(self, player_id: str, off: bool) -> None:
        """A player's preference: chat off (nothing shown, nothing sent) or on."""
        ...

    async def moderate_player(
        self, player_id: str, flag: str, on: bool, entry: ModerationRow
    ) -> None:
        """Set or clear a player's ``flag`` (``muted`` or ``disabled``; disabling ends their
        sessions) and log ``entry``, in one transaction."""
        ...

    async def reset_name(self, player_id: str, name: str, entry: ModerationRow) -> bool:
        """Clear a player's display name and log ``entry``, in one transaction; False if their
        name is no longer ``name`` (nothing changed nor logged then)."""
        ...

    async def remove_chat(self, line_id: str, entry: ModerationRow) -> bool:
        """Take a message down and log ``entry``, in one transaction; False if there is no
        such message or it was removed already (nothing logged then)."""
        ...

    async def moderation_log(self, limit: int = 50) -> list[ModerationRow]:
        """The moderation log, newest first."""
        ...

    async def moderation_after(self, after: str, limit: int = 500) -> list[ModerationRow]:
        """The acts whose id sorts after ``after`` (ids start with the time), oldest first."""
        ...

    async def listen_chat(self, callback: ChatListener) -> Callable[[], Awaitable[None]]:
        """Call ``callback(item)`` for each message another process stores (``item``: its id)
        or removes (``-`` and its id); returns what stops listening."""
        ...


async def _nothing() -> None:
    return None


class _Chat(_Primitives):
    """:class:`ChatStore` written once, over the primitives each database provides."""

    async def _announce_chat(self, item: str) -> None:
        """Tell the other processes (PostgreSQL; SQLite serves one process)."""
        return None

    async def add_chat(self, line: ChatRow) -> None:
        values = (line.id, line.game, line.room, line.seat, line.player, line.name)
        await self._tx([(_INSERT_CHAT, (*values, line.kind, line.body, line.at))])
        await self._announce_chat(line.id)

    async def chat_line(self, line_id: str) -> ChatRow | None:
        row = await self._one(_SELECT_CHAT, (line_id,))
        return None if row is None else _chat_row(row)

    async def chat(self, game_id: str, room: str, limit: int = 500) -> list[ChatRow]:
        return [_chat_row(r) for r in await self._all(_GAME_CHAT, (game_id, room, limit))]

    async def chat_lines(
        self, *, game_id: str | None = None, player_id: str | None = None, limit: int = 50
    ) -> list[ChatRow]:
        where, values = [], []
        for column, value in (("game_id", game_id), ("player_id", player_id)):
            if value is not None:
                where.append(f"{column} = ?")
                values.append(value)
        clause = f"WHERE {' AND '.join(where)} " if where else ""
        sql = f"SELECT {_CHAT_COLUMNS} FROM chat {clause}ORDER BY at DESC, id LIMIT ?"
        return [_chat_row(r) for r in await self._all(sql, (*values, limit))]

    async def chat_mutes(self, game_id: str) -> set[int]:
        return {int(r[0]) for r in await self._all(_CHAT_MUTES, (game_id,))}

    async def set_chat_mute(self, game_id: str, seat: int, muted: bool) -> None:
        if muted:
            await self._tx([(_MUTE_CHAT, (game_id, seat, _now()))])
        else:
            await self._tx([(_UNMUTE_CHAT, (game_id, seat))])

    async def chat_flags(self, player_ids: Sequence[str]) -> dict[str, ChatFlags]:
        ids = sorted(set(player_ids))
        if not ids:
            return {}
        rows = await self._all(_CHAT_FLAGS.format(marks=_marks(len(ids))), ids)
        return {
            r[0]: ChatFlags(bool(r[1]), r[2] is not None, r[3] is not None, r[4] is not None)
            for r in rows
        }

    async def set_chat_off(self, player_id: str, off: bool) -> None:
        await self._tx([(_SET_CHAT_OFF, (int(off), player_id))])

    async def moderate_player(
        self, player_id: str, flag: str, on: bool, entry: ModerationRow
    ) -> None:
        steps: list[Step] = [(_SET_FLAG[flag], (entry.at if on else None, player_id))]
        if flag == "disabled" and on:
            steps.append((_END_SESSIONS, (player_id,)))
        steps.append((_INSERT_MODERATION, _moderation_values(entry)))
        await self._tx(steps)

    async def reset_name(self, player_id: str, name: str, entry: ModerationRow) -> bool:
        async with self._atomic() as tx:
            if (await tx.run(_RESET_NAME, (player_id, name))).count != 1:
                return False
            await tx.run(_INSERT_MODERATION, _moderation_values(entry))
        return True

    async def remove_chat(self, line_id: str, entry: ModerationRow) -> bool:
        row = await self._one(_SELECT_CHAT, (line_id,))
        if row is None or row[9] is not None:
            return False
        done = await self._tx(
            [(_REMOVE_CHAT, (entry.at, line_id)), (_INSERT_MODERATION, _moderation_values(entry))]
        )
        if done[0].count != 1:  # removed meanwhile by someone else: log nothing twice
            return False
        await self._announce_chat(f"-{line_id}")
        return True

    async def moderation_log(self, limit: int = 50) -> list[ModerationRow]:
        return [ModerationRow(*map(str, r)) for r in await self._all(_MODERATION_LOG, (limit,))]

    async def moderation_after(self, after: str, limit: int = 500) -> list[ModerationRow]:
        rows = await self._all(_MODERATION_AFTER, (after, limit))
        return [ModerationRow(*map(str, r)) for r in rows]

    async def listen_chat(self, callback: ChatListener) -> Callable[[], Awaitable[None]]:
        return _nothing


# -- bots (docs/bots.md) ---------------------------------------------------------------------------


@dataclass(frozen=True)
class BotRow:
    """A bot: its player (user name, display name), its owner (None: a house bot), what it
    accepts (JSON text), whether a token is set, and whether it may connect at all (its
    account and its owner's neither deleted nor disabled by a moderator)."""

    player_id: str
    username: str
    name: str | None
    owner_id: str | None
    owner: str | None  # the owner's user name
    accepts: str
    has_token: bool
    created_at: str
    barred: str | None = None  # why it may not connect (deleted, disabled), else None


REVOKED = "revoked:"
"""How a revoked token's hash is kept."""
_BOT_COLUMNS = (
    "b.player_id, p.username, p.name, b.owner_id, o.username, b.accepts, b.token_hash, "
    "b.created_at, p.deleted_at, p.disabled_at, o.deleted_at, o.disabled_at"
)
_BOT_FROM = (
    "FROM bots b JOIN players p ON p.id = b.player_id LEFT JOIN players o ON o.id = b.owner_id"
)
_INSERT_BOT_PLAYER = (
    "INSERT INTO players (id, created_at, name, username, username_key, username_like) "
    "VALUES (?, ?, ?, ?, ?, ?)"
)
_INSERT_BOT = (
    "INSERT INTO bots (player_id, owner_id, token_hash, accepts, created_at) VALUES (?, ?, ?, ?, ?)"
)
# A house bot keeps its player (its rating history) from one start to the next; its token is new.
_HOUSE_PLAYER = (
    "INSERT INTO players (id, created_at, name, username, username_key, username_like) "
    "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING"
)
_HOUSE_BOT = (
    "INSERT INTO bots (player_id, owner_id, token_hash, accepts, created_at) "
    "VALUES (?, NULL, ?, ?, ?) ON CONFLICT (player_id) DO UPDATE SET "
    "token_hash = excluded.token_hash, accepts = excluded.accepts"
)
_BOT_BY_TOKEN = f"SELECT {_BOT_COLUMNS} {_BOT_FROM} WHERE b.token_hash = ?"
_BOT_BY_KEY = f"SELECT {_BOT_COLUMNS} {_BOT_FROM} WHERE p.username_key = ?"
_BOT_BY_ID = f"SELECT {_BOT_COLUMNS} {_BOT_FROM} WHERE b.player_id = ?"
_BOTS_OF = f"SELECT {_BOT_COLUMNS} {_BOT_FROM} WHERE b.owner_id = ? ORDER BY b.created_at"
_BOT_NAMES = "SELECT p.username FROM bots b JOIN players p ON p.id = b.player_id"
_BOT_IDS = "SELECT player_id FROM bots"
_SET_BOT_TOKEN = "UPDATE bots SET token_hash = ? WHERE player_id = ?"
# A revoked token stays known as such, so that a bridge still using it is told so.
_REVOKE_BOT = (
    "UPDATE bots SET token_hash = 'revoked:' || token_hash "
    # (not LIKE 'revoked:%': psycopg would read its % as a placeholder)
    "WHERE player_id = ? AND substr(token_hash, 1, 8) <> 'revoked:'"
)
_SET_BOT_ACCEPTS = "UPDATE bots SET accepts = ? WHERE player_id = ?"
# A bot declines a challenge addressed to it (only while it is open).
_DECLINE_CHALLENGE = (
    "UPDATE challenges SET status = 'declined', updated_at = ? WHERE id = ? AND status = 'open'"
)


def _bot(values: Sequence[Any]) -> BotRow:
    pid, username, name, owner_id, owner, accepts, token, created = values[:8]
    deleted, disabled, owner_deleted, owner_disabled = values[8:12]
    barred = None
    if deleted is not None or (owner_id is not None and owner_deleted is not None):
        barred = "deleted"
    elif disabled is not None or owner_disabled is not None:
        barred = "disabled"
    has_token = token is not None and not str(token).startswith(REVOKED)
    return BotRow(pid, username, name, owner_id, owner, accepts, has_token, str(created), barred)


class BotStore(Protocol):
    """What the web app needs of its bots: accounts with a token, owned by a person."""

    async def add_bot(
        self,
        player_id: str,
        username: str,
        username_key: str,
        owner_id: str,
        token: str,
        accepts: str,
    ) -> None:
        """A new bot of ``owner_id`` with its token's hash; :class:`Duplicate` if the user name
        is taken."""
        ...

    async def house_bot(
        self,
        player_id: str,
        username: str,
        username_key: str,
        name: str,
        token: str | None,
        accepts: str,
    ) -> None:
        """Make (or keep) a house bot's player, with what it accepts and its token's hash
        (None: no token opens it, as the servers let their own house bots in without one);
        :class:`Duplicate` if an account took its user name."""
        ...

    async def bot_by_token(self, token: str) -> BotRow | None:
        """The bot whose token hashes to ``token``."""
        ...

    async def bot_by_key(self, username_key: str) -> BotRow | None:
        """The bot whose user name folds to ``username_key``."""
        ...

    async def bot(self, player_id: str) -> BotRow | None:
        """A bot by its player id."""
        ...

    async def bots_of(self, owner_id: str) -> list[BotRow]:
        """An owner's bots, the oldest first."""
        ...

    async def bot_names(self) -> set[str]:
        """Every bot's user name (to mark them on the leaderboard)."""
        ...

    async def bot_ids(self) -> set[str]:
        """Every bot's player id (to mark them at the table)."""
        ...

    async def set_bot_token(self, player_id: str, token: str) -> None:
        """A bot's new token's hash (the old token stops working)."""
        ...

    async def revoke_bot(self, player_id: str) -> None:
        """Revoke a bot's token (kept as ``revoked:HASH``, so that its bridge is told why)."""
        ...

    async def set_bot_accepts(self, player_id: str, accepts: str) -> None:
        """What a bot accepts (JSON)."""
        ...

    async def decline_challenge(self, challenge_id: str, now: int) -> bool:
        """Close an open challenge as declined by the bot it was addressed to."""
        ...


class _Bots(_Primitives):
    """:class:`BotStore` written once, over the primitives each database provides."""

    async def add_bot(
        self,
        player_id: str,
        username: str,
        username_key: str,
        owner_id: str,
        token: str,
        accepts: str,
    ) -> None:
        now, like = _now(), separators_folded(username_key)
        await self._tx(
            [
                (
                    _INSERT_BOT_PLAYER,
                    (player_id, now, username, username, username_key, like),
                ),
                (_INSERT_BOT, (player_id, owner_id, token, accepts, now)),
            ]
        )

    async def house_bot(
        self,
        player_id: str,
        username: str,
        username_key: str,
        name: str,
        token: str | None,
        accepts: str,
    ) -> None:
        now, like = _now(), separators_folded(username_key)
        await self._tx(
            [
                (_HOUSE_PLAYER, (player_id, now, name, username, username_key, like)),
                (_HOUSE_BOT, (player_id, token, accepts, now)),
            ]
        )

    async def bot_by_token(self, token: str) -> BotRow | None:
        row = await self._one(_BOT_BY_TOKEN, (token,))
        return None if row is None else _bot(row)

    async def bot_by_key(self, username_key: str) -> BotRow | None:
        row = await self._one(_BOT_BY_KEY, (username_key,))
        return None if row is None else _bot(row)

    async def bot(self, player_id: str) -> BotRow | None:
        row = await self._one(_BOT_BY_ID, (player_id,))
        return None if row is None else _bot(row)

    async def bots_of(self, owner_id: str) -> list[BotRow]:
        return [_bot(r) for r in await self._all(_BOTS_OF, (owner_id,))]

    async def bot_names(self) -> set[str]:
        return {str(r[0]) for r in await self._all(_BOT_NAMES, ())}

    async def bot_ids(self) -> set[str]:
        return {str(r[0]) for r in await self._all(_BOT_IDS, ())}

    async def set_bot_token(self, player_id: str, token: str) -> None:
        await self._tx([(_SET_BOT_TOKEN, (token, player_id))])

    async def revoke_bot(self, player_id: str) -> None:
        await self._tx([(_REVOKE_BOT, (player_id,))])

    async def set_bot_accepts(self, player_id: str, accepts: str) -> None:
        await self._tx([(_SET_BOT_ACCEPTS, (accepts, player_id))])

    async def decline_challenge(self, challenge_id: str, now: int) -> bool:
        (done,) = await self._tx([(_DECLINE_CHALLENGE, (now, challenge_id))])
        return done.count == 1


class Store(PlayerStore, LobbyStore, ChatStore, BotStore, Protocol):
    """What the web app needs from a database."""

    url: str

    async def ratings(self, player_id: str) -> dict[str, Standing]:
        """A player's ratings by family (see :class:`_Ratings`)."""
        ...

    async def rating_history(self, player_id: str) -> list[HistoryRow]:
        """A player's rated games, oldest first."""
        ...

    async def game_ratings(
        self, game_id: str, player_ids: Sequence[str]
    ) -> dict[str, tuple[Rating, Rating]]:
        """Each moved rating of a rated game's players, before and after, by player id."""
        ...

    async def leaders(self, family: str, limit: int) -> list[tuple[str, str | None, Standing]]:
        """The established accounts of a family, best first."""
        ...

    async def standings(self, player_ids: Sequence[str], family: str) -> dict[str, Standing]:
        """Several players' ratings in one family."""
        ...

    async def create(self, game: GameRow) -> None:
        """Store a new game (no moves yet)."""
        ...

    async def load(self, game_id: str) -> GameRow | None:
        """The game with its moves, or None."""
        ...

    async def append(
        self,
        game_id: str,
        version: int,
        moves: Sequence[tuple[int, str]],
        *,
        status: str = "playing",
        result: dict[str, Any] | None = None,
        ai_due: bool = False,
        clock: str | None = None,
        deadline: int | None = None,
        rated: RatedEnd | None = None,
    ) -> bool:
        """Add ``(seat, move)`` entries after the stored ones if the game is at ``version``.

        ``clock`` and ``deadline`` are the game's clock after them (None: no clock, or stopped);
        ``rated``: the game ends rated, and both players' ratings change in the same transaction.
        """
        ...

    async def truncate(
        self,
        game_id: str,
        version: int,
        keep: int,
        *,
        ai_due: bool = False,
        moves: Sequence[tuple[int, str]] = (),
        deals: dict[str, Any] | None = None,
    ) -> bool:
        """Keep only the first ``keep`` moves (an undo) if the game is still at ``version``.

        ``moves`` then follow them, and ``deals`` (if given) replaces the game's deals: an undo
        that dealt the hidden cards afresh rewrites the round's moves with them. The hints of
        the plies taken back are forgotten (those of rewritten plies stay: their seat saw the
        same table).
        """
        ...

    async def claim(
        self, game_id: str, seat: int, token: str, name: str, player: str | None = None
    ) -> bool:
        """Give ``seat`` of a friend game its token, name and player, if its invitation is
        unspent and the game not over."""
        ...

    async def update(self, game_id: str, **fields: Any) -> None:
        """Set ``joined0``/``joined1``/``rematch``, ``seen0``/``seen1`` or a clock that starts
        (``clock``, ``deadline``): no version change, the moves stay."""
        ...

    async def ai_due(self) -> list[str]:
        """The ids of the unfinished games where the AI is (or may be) to move."""
        ...

    async def save_hint(self, game_id: str, version: int, hint: HintRow) -> bool:
        """Keep a hint given at ``hint.ply``, if the game is still at ``version`` (a hint asked
        again at the same ply replaces it)."""
        ...

    async def hints(self, game_id: str) -> list[HintRow]:
        """The hints kept for a game, in the order of their plies."""
        ...

    async def analysis(self, game_id: str) -> dict[str, Any] | None:
        """A stored analysis of a finished game."""
        ...

    async def save_analysis(self, game_id: str, data: dict[str, Any]) -> None:
        """Store a finished game's analysis."""
        ...

    async def listen(
        self,
        callback: Listener,
        lobby: Listener | None = None,
        presence: PresenceListener | None = None,
    ) -> None:
        """Call ``callback(game_id)`` when another process changes a game,
        ``lobby(challenge_id)`` when it changes a challenge, and ``presence(server, text)``
        when it announces the seats connected to it (no-op if alone).

        Every change (append, truncate, update) is announced to the other processes in the same
        transaction, so they hear of it exactly when it is committed.
        """
        ...

    async def announce_presence(self, text: str) -> None:
        """Tell the other processes which seats come or go here (:mod:`.presence`; no-op if
        alone): nothing is written."""
        ...

    async def close(self) -> None:
        """Release the database."""
        ...


def default_db_path() -> Path:
    """The default SQLite file, in the user's data directory."""
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "hanamikoji" / "games.sqlite3"


async def open_store(url: str | None, *, exclusive: bool = False, create: bool = True) -> Store:
    """Open (and create or migrate) the database named by ``url``.

    ``None`` is the default SQLite file; ``sqlite:///PATH`` another file (``sqlite:////tmp/x``
    for an absolute path, as in SQLAlchemy); ``postgresql://...``
    a PostgreSQL database. A plain path is taken as an SQLite file. With ``exclusive`` (a server)
    an SQLite file is locked for this process: a second server on it is refused. Without
    ``create`` (``hanamikoji admin``), an SQLite file that does not exist is :class:`StoreError`
    instead of a new, empty database.
    """
    if url is None or not url.strip():
        return _sqlite(default_db_path(), exclusive, create, made=True)
    text = url.strip()
    scheme = urlparse(text).scheme.lower()
    if scheme in ("postgresql", "postgres"):
        store = PostgresStore(text)
        await store.open()
        return store
    if scheme == "sqlite":
        if not text.startswith("sqlite:///") or len(text) == len("sqlite:///"):
            raise StoreError(
                f"no file in {text!r}; expected sqlite:///relative/path.sqlite3 "
                "or sqlite:////absolute/path.sqlite3"
            )
        return _sqlite(Path(text[len("sqlite:///") :]), exclusive, create)
    if scheme == "":
        return _sqlite(Path(text), exclusive, create)
    raise StoreError(
        f"unknown database {text!r}; expected sqlite:///PATH or postgresql://USER@HOST:PORT/DB"
    )


def _sqlite(path: Path, exclusive: bool, create: bool, made: bool = False) -> SQLiteStore:
    """The SQLite store at ``path``; its folder is made only for the default file (``made``):
    a mistyped ``--db`` made folders where nobody would look for them."""
    if not create and not path.is_file():
        raise StoreError(
            f"no SQLite database at {str(path)!r}: give --db as the server has it "
            "(hanamikoji serve --db URL makes it)"
        )
    if not made and not path.parent.is_dir():
        raise StoreError(
            f"no folder {str(path.parent)!r} for the SQLite database {str(path)!r}: "
            "create it first, or give another path"
        )
    return SQLiteStore(path, exclusive=exclusive)


class SQLiteStore(_Players, _Lobby, _Ratings, _Chat, _Bots):
    """Games in an SQLite file (WAL: a write is safe once its call returns, even on kill -9).

    One server process at a time: a server's store (``exclusive``) holds a lock on ``PATH.lock``,
    because a second server would keep its own games in memory and never hear of the first's
    moves. Several servers share a PostgreSQL database instead.
    """

    def __init__(self, path: Path, *, exclusive: bool = False) -> None:
        self.url = f"sqlite:///{path}"
        self._lock: int | None = None
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            if exclusive:  # one lock per file, however it is named (a symbolic link, ..)
                self._lock = _lock_file(Path(f"{path.resolve()}.lock"), path)
            self._db = sqlite3.connect(str(path), isolation_level=None, check_same_thread=False)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.execute("PRAGMA foreign_keys=ON")
            self._db.execute("PRAGMA busy_timeout=5000")
            self._migrate()
        except (OSError, sqlite3.Error) as e:
            self._unlock()
            raise StoreError(f"cannot open the SQLite database {str(path)!r}: {e}") from None
        except StoreError:
            self._unlock()
            raise

    def _unlock(self) -> None:
        if self._lock is not None:
            os.close(self._lock)  # closing the file releases the lock
            self._lock = None

    def _migrate(self) -> None:
        db = self._db
        db.execute("BEGIN IMMEDIATE")
        try:
            db.execute("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT)")
            row = db.execute(_SCHEMA_VERSION).fetchone()
            for sql in _pending(int(row[0]) if row else 0):
                db.execute(sql)
            db.execute(_SET_SCHEMA_VERSION, (str(len(MIGRATIONS)),))
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise

    @property
    def schema_version(self) -> int:
        """How many migrations the file has had."""
        row = self._db.execute(_SCHEMA_VERSION).fetchone()
        return int(row[0])

    async def create(self, game: GameRow) -> None:
        self._db.execute(_INSERT_GAME, _insert_values(game, game.created_at or _now()))

    async def load(self, game_id: str) -> GameRow | None:
        db = self._db
        values = db.execute(_SELECT_GAME, (game_id,)).fetchone()
        if values is None:
            return None
        moves = db.execute(_SELECT_MOVES, (game_id,)).fetchall()
        return _row(values, [m[0] for m in moves])

    async def append(
        self,
        game_id: str,
        version: int,
        moves: Sequence[tuple[int, str]],
        *,
        status: str = "playing",
        result: dict[str, Any] | None = None,
        ai_due: bool = False,
        clock: str | None = None,
        deadline: int | None = None,
        rated: RatedEnd | None = None,
    ) -> bool:
        db = self._db
        now = _now()
        db.execute("BEGIN IMMEDIATE")
        try:
            values = _move_values(game_id, version, status, result, ai_due, clock, deadline, now)
            cur = db.execute(_BUMP_CLOCK, values)
            if cur.rowcount != 1:
                db.execute("ROLLBACK")
                return False
            (count,) = db.execute(_COUNT_MOVES, (game_id,)).fetchone()
            db.executemany(_INSERT_MOVE, _move_rows(game_id, count, moves, now))
            if rated is not None:

                async def run(sql: str, values: Sequence[Any]) -> list[tuple[Any, ...]]:
                    return db.execute(sql, values).fetchall()  # never yields: still atomic

                await _rate_in(run, game_id, rated)
            db.execute("COMMIT")
            return True
        except BaseException:
            db.execute("ROLLBACK")
            raise

    async def truncate(
        self,
        game_id: str,
        version: int,
        keep: int,
        *,
        ai_due: bool = False,
        moves: Sequence[tuple[int, str]] = (),
        deals: dict[str, Any] | None = None,
    ) -> bool:
        db = self._db
        now = _now()
        db.execute("BEGIN IMMEDIATE")
        try:
            cur = db.execute(_BUMP, _bump_values(game_id, version, "playing", None, ai_due, now))
            if cur.rowcount != 1:
                db.execute("ROLLBACK")
                return False
            db.execute(_DELETE_MOVES, (game_id, keep))
            db.execute(_DELETE_HINTS, (game_id, keep + len(moves)))
            db.executemany(_INSERT_MOVE, _move_rows(game_id, keep, moves, now))
            if deals is not None:
                db.execute(_SET_DEALS, (json.dumps(deals), game_id))
            db.execute("COMMIT")
            return True
        except BaseException:
            db.execute("ROLLBACK")
            raise

    async def claim(
        self, game_id: str, seat: int, token: str, name: str, player: str | None = None
    ) -> bool:
        cur = self._db.execute(_claim_sql(seat), (token, name, player, game_id))
        return cur.rowcount == 1

    async def update(self, game_id: str, **fields: Any) -> None:
        sets, values = _updates(fields)
        self._db.execute(f"UPDATE games SET {sets} WHERE id = ?", (*values, game_id))

    async def ai_due(self) -> list[str]:
        rows = self._db.execute(_AI_DUE).fetchall()
        return [r[0] for r in rows]

    async def save_hint(self, game_id: str, version: int, hint: HintRow) -> bool:
        cur = self._db.execute(_SAVE_HINT, _hint_values(game_id, version, hint, _now()))
        return cur.rowcount == 1

    async def hints(self, game_id: str) -> list[HintRow]:
        return [_hint_row(r) for r in self._db.execute(_SELECT_HINTS, (game_id,)).fetchall()]

    async def analysis(self, game_id: str) -> dict[str, Any] | None:
        row = self._db.execute(_SELECT_ANALYSIS, (game_id,)).fetchone()
        return json.loads(row[0]) if row else None

    async def save_analysis(self, game_id: str, data: dict[str, Any]) -> None:
        self._db.execute(_SAVE_ANALYSIS, (game_id, json.dumps(data), _now()))

    async def listen(
        self,
        callback: Listener,
        lobby: Listener | None = None,
        presence: PresenceListener | None = None,
    ) -> None:
        return None

    async def announce_presence(self, text: str) -> None:
        return None  # one server on an SQLite file: nobody else to tell

    async def _one(self, sql: str, values: Sequence[Any]) -> tuple[Any, ...] | None:
        row: tuple[Any, ...] | None = self._db.execute(sql, values).fetchone()
        return row

    async def _all(self, sql: str, values: Sequence[Any]) -> list[tuple[Any, ...]]:
        return self._db.execute(sql, values).fetchall()

    async def _tx(self, steps: Sequence[Step], *, announce: int | None = None) -> list[Done]:
        db = self._db
        db.execute("BEGIN IMMEDIATE")
        try:
            done = []
            for sql, values in steps:
                cur = db.execute(sql, values)
                done.append(Done(cur.rowcount, cur.fetchall() if cur.description else []))
            db.execute("COMMIT")
            return done
        except sqlite3.IntegrityError as e:
            db.execute("ROLLBACK")
            if "UNIQUE" in str(e):
                raise Duplicate(str(e)) from None
            raise
        except BaseException:
            db.execute("ROLLBACK")
            raise

    @contextlib.asynccontextmanager
    async def _atomic(self) -> AsyncIterator[Atomic]:
        # The statements run at once (sqlite3 never yields to the event loop), so no other
        # coroutine's statement lands inside this transaction.
        db = self._db
        db.execute("BEGIN IMMEDIATE")
        try:
            yield _SQLiteAtomic(db)
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise

    async def close(self) -> None:
        self._db.close()
        self._unlock()


class _SQLiteAtomic:
    """A transaction on one SQLite connection (one process: nobody to announce to)."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self._db = db

    async def run(self, sql: str, values: Sequence[Any] = ()) -> Done:
        cur = self._db.execute(sql, values)
        return Done(cur.rowcount, cur.fetchall() if cur.description else [])

    async def announce(self, game_id: str) -> None:
        return None

    async def announce_challenge(self, challenge_id: str) -> None:
        return None


def _lock_file(lock: Path, db: Path) -> int:
    """Lock ``lock`` for this process (released when it ends, even killed); its descriptor."""
    fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        holder = os.read(fd, 32).decode(errors="replace").strip() or "unknown"
        os.close(fd)
        raise StoreError(
            f"the SQLite database {str(db)!r} is in use by another hanamikoji server "
            f"(process {holder}); stop it, or run several servers on one PostgreSQL database "
            "(--db postgresql://...)"
        ) from None
    os.ftruncate(fd, 0)
    os.write(fd, str(os.getpid()).encode())
    return fd


def _move_rows(
    game_id: str, count: int, moves: Sequence[tuple[int, str]], now: str
) -> list[tuple[Any, ...]]:
    """The rows of ``moves`` (``(seat, move)``) played after ``count`` stored ones."""
    return [(game_id, count + i, seat, move, now) for i, (seat, move) in enumerate(moves)]


def _insert_values(game: GameRow, now: str) -> tuple[Any, ...]:
    return (
        game.id,
        now,
        now,
        game.seed,
        game.max_rounds,
        game.mode,
        game.level,
        game.ai_seat,
        game.tokens[0],
        game.tokens[1],
        game.names[0],
        game.names[1],
        int(game.joined[0]),
        int(game.joined[1]),
        game.version,
        game.status,
        json.dumps(game.result) if game.result else None,
        game.rematch,
        int(game.ai_due),
        game.invite,
        json.dumps(game.deals) if game.deals else None,
        game.players[0],
        game.players[1],
        game.control,
        int(game.rated),
        game.clock,
        game.deadline,
        game.seen[0],
        game.seen[1],
    )


def _hint_values(game_id: str, version: int, hint: HintRow, now: str) -> tuple[Any, ...]:
    return (
        game_id,
        hint.ply,
        hint.seat,
        hint.move,
        hint.win_probability,
        hint.iterations,
        now,
        game_id,
        version,
    )


def _hint_row(values: Sequence[Any]) -> HintRow:
    ply, seat, move, p, iterations = values
    return HintRow(int(ply), int(seat), move, float(p), int(iterations))


def _claim_sql(seat: int) -> str:
    if seat not in (0, 1):
        raise ValueError(f"seat must be 0 or 1, got {seat!r}")
    return _CLAIM.format(seat=seat)


_UPDATABLE = ("joined0", "joined1", "rematch", "seen0", "seen1", "clock", "deadline")


def _updates(fields: dict[str, Any]) -> tuple[str, list[Any]]:
    unknown = set(fields) - set(_UPDATABLE)
    if unknown or not fields:
        raise ValueError(f"only {', '.join(_UPDATABLE)} can be updated, got {sorted(fields)}")
    names = list(fields)
    values = [int(v) if isinstance(v, bool) else v for v in fields.values()]
    return ", ".join(f"{n} = ?" for n in names), values


_CHANNEL = "hanamikoji_games"
_LOBBY_CHANNEL = "hanamikoji_lobby"
_CHAT_CHANNEL = "hanamikoji_chat"
_PRESENCE_CHANNEL = "hanamikoji_presence"


class PostgresStore(_Players, _Lobby, _Ratings, _Chat, _Bots):
    """Games in PostgreSQL; changes are announced to other processes with LISTEN/NOTIFY."""

    _LOCK = " FOR NO KEY UPDATE"  # as a moderator's update of the row locks it

    def __init__(self, url: str) -> None:
        self.url = url
        self._origin = os.urandom(6).hex()  # to recognise this process's own notifications
        self._pool: Any = None
        self._listener: Any = None
        self._listen_task: asyncio.Task[None] | None = None
        self._lobby: Listener | None = None

    async def open(self) -> None:
        """Connect and create or migrate the schema."""
        import psycopg
        from psycopg_pool import AsyncConnectionPool

        try:
            # One plain connection first: it fails at once, with PostgreSQL's own reason.
            probe = await psycopg.AsyncConnection.connect(self.url, connect_timeout=10)
            await probe.close()
            self._pool = AsyncConnectionPool(
                self.url, min_size=1, max_size=8, open=False, kwargs={"autocommit": True}
            )
            await self._pool.open(wait=True, timeout=10)
            await self._migrate()
        except (psycopg.Error, OSError) as e:
            await self.close()
            raise StoreError(
                f"cannot use the PostgreSQL database {safe_url(self.url)}: {e}"
            ) from None
        except Exception as e:  # the pool's own timeout error
            await self.close()
            raise StoreError(f"cannot connect to PostgreSQL at {safe_url(self.url)}: {e}") from None

    async def _migrate(self) -> None:
        async with self._pool.connection() as conn, conn.transaction():
            # One process migrates at a time; the others wait, then find nothing to do.
            await conn.execute("SELECT pg_advisory_xact_lock(7316402)")
            await conn.execute("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT)")
            cur = await conn.execute(_SCHEMA_VERSION)
            row = await cur.fetchone()
            for sql in _pending(int(row[0]) if row else 0):
                await conn.execute(sql)
            await conn.execute(_pg(_SET_SCHEMA_VERSION), (str(len(MIGRATIONS)),))

    async def create(self, game: GameRow) -> None:
        async with self._pool.connection() as conn:
            await conn.execute(_pg(_INSERT_GAME), _insert_values(game, game.created_at or _now()))

    async def load(self, game_id: str) -> GameRow | None:
        async with self._pool.connection() as conn:
            # One statement, one snapshot: read apart, a move committed between the two reads
            # would give an older row with a newer game (another server's write, say).
            cur = await conn.execute(_PG_SELECT_GAME_AND_MOVES, (game_id,))
            values = await cur.fetchone()
        if values is None:
            return None
        return _row(values[:-1], list(values[-1]))

    async def append(
        self,
        game_id: str,
        version: int,
        moves: Sequence[tuple[int, str]],
        *,
        status: str = "playing",
        result: dict[str, Any] | None = None,
        ai_due: bool = False,
        clock: str | None = None,
        deadline: int | None = None,
        rated: RatedEnd | None = None,
    ) -> bool:
        now = _now()
        async with self._pool.connection() as conn, conn.transaction():
            values = _move_values(game_id, version, status, result, ai_due, clock, deadline, now)
            cur = await conn.execute(_pg(_BUMP_CLOCK), values)
            if cur.rowcount != 1:
                return False
            await self._announce(conn, game_id)
            cur = await conn.execute(_pg(_COUNT_MOVES), (game_id,))
            row = await cur.fetchone()
            async with conn.cursor() as c:
                await c.executemany(_pg(_INSERT_MOVE), _move_rows(game_id, int(row[0]), moves, now))
            if rated is not None:

                async def run(sql: str, values: Sequence[Any]) -> list[tuple[Any, ...]]:
                    cur = await conn.execute(_pg(sql), values)
                    return list(await cur.fetchall()) if cur.description else []

                await _rate_in(run, game_id, rated, " FOR UPDATE")
        return True

    async def truncate(
        self,
        game_id: str,
        version: int,
        keep: int,
        *,
        ai_due: bool = False,
        moves: Sequence[tuple[int, str]] = (),
        deals: dict[str, Any] | None = None,
    ) -> bool:
        now = _now()
        async with self._pool.connection() as conn, conn.transaction():
            cur = await conn.execute(
                _pg(_BUMP), _bump_values(game_id, version, "playing", None, ai_due, now)
            )
            if cur.rowcount != 1:
                return False
            await self._announce(conn, game_id)
            await conn.execute(_pg(_DELETE_MOVES), (game_id, keep))
            await conn.execute(_pg(_DELETE_HINTS), (game_id, keep + len(moves)))
            if moves:
                async with conn.cursor() as c:
                    await c.executemany(_pg(_INSERT_MOVE), _move_rows(game_id, keep, moves, now))
            if deals is not None:
                await conn.execute(_pg(_SET_DEALS), (json.dumps(deals), game_id))
        return True

    async def claim(
        self, game_id: str, seat: int, token: str, name: str, player: str | None = None
    ) -> bool:
        async with self._pool.connection() as conn, conn.transaction():
            cur = await conn.execute(_pg(_claim_sql(seat)), (token, name, player, game_id))
            if cur.rowcount != 1:
                return False
            await self._announce(conn, game_id)
        return True

    async def update(self, game_id: str, **fields: Any) -> None:
        sets, values = _updates(fields)
        async with self._pool.connection() as conn, conn.transaction():
            await conn.execute(_pg(f"UPDATE games SET {sets} WHERE id = ?"), (*values, game_id))
            await self._announce(conn, game_id)

    async def _announce(self, conn: Any, game_id: str, channel: str = _CHANNEL) -> None:
        """Tell the other processes (delivered when the transaction commits)."""
        await conn.execute("SELECT pg_notify(%s, %s)", (channel, f"{self._origin}:{game_id}"))

    @contextlib.asynccontextmanager
    async def _atomic(self) -> AsyncIterator[Atomic]:
        async with self._pool.connection() as conn, conn.transaction():
            yield _PgAtomic(self, conn)

    async def announce_presence(self, text: str) -> None:
        async with self._pool.connection() as conn:
            await conn.execute(
                "SELECT pg_notify(%s, %s)", (_PRESENCE_CHANNEL, f"{self._origin}:{text}")
            )

    async def _announce_chat(self, item: str) -> None:
        async with self._pool.connection() as conn:
            await conn.execute(
                "SELECT pg_notify(%s, %s)", (_CHAT_CHANNEL, f"{self._origin}:{item}")
            )

    async def listen_chat(self, callback: ChatListener) -> Callable[[], Awaitable[None]]:
        """A connection of its own listens to the chat's channel."""
        import psycopg

        listener = await psycopg.AsyncConnection.connect(self.url, autocommit=True)
        await listener.execute(f"LISTEN {_CHAT_CHANNEL}")

        async def pump() -> None:
            async for note in listener.notifies():
                origin, _, item = note.payload.partition(":")
                if origin == self._origin or not item:
                    continue
                try:
                    await callback(item)
                except Exception:  # one bad message must not stop the others
                    import logging

                    logging.getLogger(__name__).exception("chat update %s failed", item)

        task = asyncio.create_task(pump())

        async def stop() -> None:
            await stop_tasks([task], "the chat's listener")  # before its connection closes
            await listener.close()

        return stop

    async def ai_due(self) -> list[str]:
        async with self._pool.connection() as conn:
            cur = await conn.execute(_AI_DUE)
            return [r[0] for r in await cur.fetchall()]

    async def save_hint(self, game_id: str, version: int, hint: HintRow) -> bool:
        async with self._pool.connection() as conn:
            cur = await conn.execute(_pg(_SAVE_HINT), _hint_values(game_id, version, hint, _now()))
            return bool(cur.rowcount == 1)

    async def hints(self, game_id: str) -> list[HintRow]:
        async with self._pool.connection() as conn:
            cur = await conn.execute(_pg(_SELECT_HINTS), (game_id,))
            return [_hint_row(r) for r in await cur.fetchall()]

    async def analysis(self, game_id: str) -> dict[str, Any] | None:
        async with self._pool.connection() as conn:
            cur = await conn.execute(_pg(_SELECT_ANALYSIS), (game_id,))
            row = await cur.fetchone()
        return json.loads(row[0]) if row else None

    async def save_analysis(self, game_id: str, data: dict[str, Any]) -> None:
        async with self._pool.connection() as conn:
            await conn.execute(_pg(_SAVE_ANALYSIS), (game_id, json.dumps(data), _now()))

    async def _one(self, sql: str, values: Sequence[Any]) -> tuple[Any, ...] | None:
        async with self._pool.connection() as conn:
            cur = await conn.execute(_pg(sql), values)
            row: tuple[Any, ...] | None = await cur.fetchone()
            return row

    async def _all(self, sql: str, values: Sequence[Any]) -> list[tuple[Any, ...]]:
        async with self._pool.connection() as conn:
            cur = await conn.execute(_pg(sql), values)
            return list(await cur.fetchall())

    async def _tx(self, steps: Sequence[Step], *, announce: int | None = None) -> list[Done]:
        import psycopg

        try:
            async with self._pool.connection() as conn, conn.transaction():
                done = []
                for sql, values in steps:
                    cur = await conn.execute(_pg(sql), values)
                    rows = list(await cur.fetchall()) if cur.description else []
                    done.append(Done(cur.rowcount, rows))
                if announce is not None:
                    for game_id, *_ in done[announce].rows:
                        await self._announce(conn, game_id)
                return done
        except psycopg.errors.UniqueViolation as e:
            raise Duplicate(str(e)) from None

    async def listen(
        self,
        callback: Listener,
        lobby: Listener | None = None,
        presence: PresenceListener | None = None,
    ) -> None:
        import psycopg

        self._listener = await psycopg.AsyncConnection.connect(self.url, autocommit=True)
        await self._listener.execute(f"LISTEN {_CHANNEL}")
        if lobby is not None:
            await self._listener.execute(f"LISTEN {_LOBBY_CHANNEL}")
        if presence is not None:  # on the same connection: heard in order with the games'
            await self._listener.execute(f"LISTEN {_PRESENCE_CHANNEL}")

        async def pump() -> None:
            async for note in self._listener.notifies():
                origin, _, item = note.payload.partition(":")
                if origin == self._origin or not item:
                    continue
                try:
                    if note.channel == _PRESENCE_CHANNEL:
                        if presence is not None:
                            await presence(origin, item)
                        continue
                    heard = lobby if note.channel == _LOBBY_CHANNEL else callback
                    if heard is not None:
                        await heard(item)
                except Exception:  # one bad game must not stop the others' updates
                    import logging

                    logging.getLogger(__name__).exception("update of %s failed", item)

        self._listen_task = asyncio.create_task(pump())

    async def close(self) -> None:
        if self._listen_task is not None:
            # The pump ends before its connection closes: closed under a pump still waiting on
            # it, the connection's socket would stay registered in the event loop, and the
            # system may hand its number to the next socket opened (whose reads then never came).
            await stop_tasks([self._listen_task], "the database's listener")
            self._listen_task = None
        if self._listener is not None:
            await self._listener.close()
            self._listener = None
        if self._pool is not None:
            await self._pool.close()
            self._pool = None


def safe_url(url: str) -> str:
    """The URL without its password, for messages."""
    parsed = urlparse(url)
    if parsed.password:
        netloc = parsed.netloc.replace(f":{parsed.password}@", ":***@")
        return parsed._replace(netloc=netloc).geturl()
    return url


class _PgAtomic:
    """A transaction on one PostgreSQL connection; its announcements leave on commit."""

    def __init__(self, store: PostgresStore, conn: Any) -> None:
        self._store = store
        self._conn = conn

    async def run(self, sql: str, values: Sequence[Any] = ()) -> Done:
        cur = await self._conn.execute(_pg(sql), values)
        rows = list(await cur.fetchall()) if cur.description else []
        return Done(cur.rowcount, rows)

    async def announce(self, game_id: str) -> None:
        await self._store._announce(self._conn, game_id)

    async def announce_challenge(self, challenge_id: str) -> None:
        await self._store._announce(self._conn, challenge_id, _LOBBY_CHANNEL)
