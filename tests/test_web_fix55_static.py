"""The scripts and styles are asked again at each visit (``no-cache``, answered 304 while
unchanged): without it a browser kept last version's files by its own guess of their age, and a
returning player ran an old script against a new server until a hard reload."""

from __future__ import annotations

from typing import Any

import pytest
from aiohttp.test_utils import TestClient

from hanamikoji.web.server import create_app
from hanamikoji.web.service import GameService
from hanamikoji.web.store import open_store


@pytest.fixture
async def client(aiohttp_client: Any, tmp_path: Any) -> TestClient[Any, Any]:
    store = await open_store(str(tmp_path / "games.db"))
    return await aiohttp_client(create_app(GameService(store, ai_workers=0, seed=1)))  # type: ignore[no-any-return]


@pytest.mark.parametrize("path", ["/static/css/app.css", "/static/js/game.js"])
async def test_a_static_file_is_revalidated_at_each_visit(
    client: TestClient[Any, Any], path: str
) -> None:
    async with client.get(path) as r:
        assert r.status == 200
        assert r.headers["Cache-Control"] == "no-cache"
        etag = r.headers["ETag"]
        await r.read()
    async with client.get(path, headers={"If-None-Match": etag}) as r:
        assert r.status == 304  # unchanged: nothing sent again
        assert r.headers["Cache-Control"] == "no-cache"


async def test_the_api_is_still_never_cached(client: TestClient[Any, Any]) -> None:
    async with client.get("/api/me") as r:
        assert r.headers["Cache-Control"] == "no-store"


@pytest.mark.parametrize(
    "path", ["/static/does-not-exist", "/static/js/nothing.js", "/static/css", "/static/css/"]
)
async def test_a_missing_static_file_is_answered_as_an_unknown_page_is(
    client: TestClient[Any, Any], path: str
) -> None:
    """Not aiohttp's empty 404 as ``application/octet-stream``: the app's own answer."""
    async with client.get("/no/such/page") as page:
        unknown = (page.status, page.content_type, await page.text())
    assert unknown[:2] == (404, "text/plain") and "Not Found" in unknown[2]
    async with client.get(path) as r:
        assert (r.status, r.content_type, await r.text()) == unknown
        assert r.headers["X-Content-Type-Options"] == "nosniff"
