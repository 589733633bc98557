"""``hanamikoji admin messages`` and ``log`` cannot lead a moderator to the wrong person: the ids
and whether a message was removed come first, at fixed places, and what a player typed (a seat's
name, a message) comes last, quoted as a JSON string (docs/web.md, "Moderation"; both
databases)."""

from __future__ import annotations

import re

import pytest

from hanamikoji.web.identity import username_key
from hanamikoji.web.service import GameService
from test_admin import Client, admin, client, db, service, signed_up  # noqa: F401 (fixtures)
from test_web_chat import base, claim_invite_in, new_browser, next_of
from web_support import Seat


async def test_a_name_or_text_that_mimics_the_listing_is_quoted_after_the_ids(
    client: Client,  # noqa: F811
    db: str,  # noqa: F811
    service: GameService,  # noqa: F811
    capsys: pytest.CaptureFixture[str],
) -> None:
    url = base(client)
    async with new_browser() as alice_browser, new_browser() as eve_b, new_browser() as bob_b:
        await signed_up(alice_browser, url, "alice_k")
        alice = await service.store.account(username_key("alice_k"))
        assert alice is not None
        fake = f"Nice (player {alice.id})"  # another player's id, seen in any listing
        body = {"mode": "friend", "seat": 0, "name": fake}
        async with eve_b.post(f"{url}/api/games", json=body) as r:
            data = await r.json()
        game = data["game"]
        eve = Seat(await eve_b.ws_connect(f"{url}/ws/{game}?t={data['token']}"))
        token = await claim_invite_in(bob_b, url, data["invite"], "Bob")
        bob = Seat(await bob_b.ws_connect(f"{url}/ws/{game}?t={token}"))
        for seat in (eve, bob):
            await seat.until(lambda s: True)
        await eve.send(type="chat", text="you are an idiot")
        rude = (await next_of(bob, "chat"))["line"]["id"]
        await bob.send(type="chat", text='fine (removed)  x: "y"')
        await next_of(bob, "chat")
        await bob.send(type="chat", phrase="thanks")
        await next_of(bob, "chat")
        lines = {line.id: line for line in await service.store.chat_lines(game_id=game)}
        eve_id = lines[rude].player
        assert eve_id is not None and eve_id != alice.id

        status, _, _ = await admin(capsys, db, "remove", rude, "--reason", "insult")
        assert status == 0
        status, out, _ = await admin(capsys, db, "messages", "--game", game)
        assert status == 0
        rows = out.strip().splitlines()
        assert len(rows) == 3
        fields = [row.split("  ", 6) for row in rows]
        for row, (line_id, _when, in_game, room, by, _status, _said) in zip(
            rows, fields, strict=True
        ):
            assert in_game == f"game {game}" and room == "players"
            assert by == f"player {lines[line_id].player}"
            # The first id a moderator copies off the line is the author's.
            first = re.search(r"player (\S+)", row)
            assert first is not None and first[1] == lines[line_id].player
        said = {f[0]: (f[5], f[6]) for f in fields}
        assert said[rude] == ("removed", f'seat 0 "Nice (player {alice.id})": "you are an idiot"')
        thanks = next(i for i in lines if lines[i].kind == "phrase")
        text = next(i for i in lines if i not in (rude, thanks))
        assert said[text] == ("shown", 'seat 1 "Bob": "fine (removed) x: \\"y\\""')
        assert said[thanks] == ("shown", 'seat 1 "Bob": [thanks]')

        status, out, _ = await admin(capsys, db, "log")
        (entry,) = out.strip().splitlines()
        assert f"  remove  message {rude} by player {eve_id} in game {game} (players) " in entry
        assert entry.endswith(f' named "Nice (player {alice.id})"  (why: insult)'), entry
        for seat in (eve, bob):
            await seat.ws.close()
