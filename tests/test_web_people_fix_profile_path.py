"""Profile addresses: ``/@/`` and ``/@/NAME/`` answer the site's own page (a redirect for the
slash), not aiohttp's bare text "404: Not Found" (both databases)."""

from __future__ import annotations

from lobby_support import Server, call


async def test_a_profile_address_without_a_name_or_with_a_slash(site: Server) -> None:
    async with site.browser() as anna:
        await call(
            anna,
            "POST",
            "/api/account",
            201,
            json={"username": "anna_r", "password": "correct horse 7"},
        )
        async with anna.get("/@/") as page:
            assert page.status == 404
            assert page.content_type == "text/html" and "profile.js" in await page.text()
        async with anna.get("/@/anna_r/", allow_redirects=False) as moved:
            assert moved.status in (301, 308)
            assert moved.headers["Location"].endswith("/@/anna_r")
        async with anna.get("/@/anna_r/") as page:
            assert page.status == 200 and "profile.js" in await page.text()
        async with anna.get("/@/nobody_here/") as page:
            assert page.status == 404
            assert page.content_type == "text/html" and "profile.js" in await page.text()
