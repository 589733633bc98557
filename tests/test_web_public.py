"""A public server as a process: what reaches it below the application, and who may start it."""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import aiohttp
import pytest

from hanamikoji.bot import PROTOCOL
from hanamikoji.web.server import origin_of
from web_support import SERVE, Server, free_port, sqlite_url


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    started = Server(sqlite_url(tmp_path / "games.sqlite3"), args=["--header-timeout", "1"])
    started.start()
    yield started
    started.stop()


def _raw(port: int, data: bytes) -> str:
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(data)
        chunks = []
        while chunk := sock.recv(65536):
            chunks.append(chunk)
    return b"".join(chunks).decode(errors="replace")


def test_a_malformed_request_gets_the_security_headers_and_no_version(server: Server) -> None:
    answer = _raw(server.port, b"GARBAGE\x00 / HTTP/1.1\r\nHost: x\r\n\r\n")
    head = answer.split("\r\n\r\n")[0].lower()
    assert head.startswith("http/1.") and " 400 " in head.split("\r\n")[0]
    assert "server: hanamikoji\r\n" in head + "\r\n" and "aiohttp" not in head
    assert "x-content-type-options: nosniff" in head
    assert "content-security-policy:" in head


def _log(server: Server) -> str:
    return server.log.read_text()


@pytest.mark.parametrize(
    "request_bytes",
    [
        b"GARBAGE\x00 / HTTP/1.1\r\nHost: x\r\n\r\n",
        b"GET /" + b"a" * 20_000 + b" HTTP/1.1\r\nHost: x\r\n\r\n",
        b"GET / HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n",
        b"GET / HTTP/1.1\r\nHost: x\r\nX: \x01\r\n\r\n",
    ],
)
def test_malformed_requests_are_a_400_and_one_quiet_line(
    server: Server, request_bytes: bytes
) -> None:
    answer = _raw(server.port, request_bytes)
    assert " 400 " in answer.split("\r\n")[0]
    assert "this is not a request this server understands" in answer
    time.sleep(0.2)
    assert "Traceback" not in _log(server) and "ERROR" not in _log(server)


@pytest.mark.parametrize("encoding", ["gzip", "deflate"])
def test_a_body_that_cannot_be_decoded_is_a_bad_request(server: Server, encoding: str) -> None:
    answer = _raw(
        server.port,
        b"POST /api/games HTTP/1.1\r\nHost: x\r\nContent-Encoding: "
        + encoding.encode()
        + b"\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}",
    )
    assert " 400 " in answer.split("\r\n")[0]  # the JSON's words, or the parser's own
    time.sleep(0.2)
    assert "Traceback" not in _log(server) and "ERROR" not in _log(server)


def test_a_body_trickled_slower_than_the_header_timeout_is_refused(server: Server) -> None:
    started = time.monotonic()
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
        sock.sendall(b"POST /api/games HTTP/1.1\r\nHost: x\r\nContent-Length: 200\r\n\r\n{")
        answer = b""
        for _ in range(100):  # a byte every 0.1 s: 200 bytes would take 20 s
            try:
                sock.sendall(b" ")
            except OSError:
                break
            sock.settimeout(0.1)
            try:
                chunk = sock.recv(65536)
            except TimeoutError:
                continue
            answer += chunk
            if not chunk or b"too slowly" in answer:
                break
    assert b" 400 " in answer and b"the body came too slowly" in answer
    assert time.monotonic() - started < 5


def test_a_request_trickled_slower_than_the_header_timeout_is_dropped(server: Server) -> None:
    started = time.monotonic()
    closed = None
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
        sock.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n")
        for _ in range(100):  # ten seconds of one header line every 0.1 s
            try:
                sock.sendall(b"X-Slow: a\r\n")
                if sock.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT) == b"":
                    closed = time.monotonic() - started  # the server hung up
                    break
            except BlockingIOError:
                pass  # nothing to read: still open
            except OSError:
                closed = time.monotonic() - started
                break
            time.sleep(0.1)
    assert closed is not None and closed < 5


def test_a_second_server_on_the_same_sqlite_file_is_refused(server: Server, tmp_path: Path) -> None:
    second = subprocess.run(
        [*SERVE, "--port", str(free_port()), "--db", server.db],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert second.returncode == 1
    lines = second.stderr.strip().splitlines()
    assert len(lines) == 1 and "in use by another hanamikoji server" in lines[0]
    assert "PostgreSQL" in lines[0] and "Traceback" not in second.stderr
    link = tmp_path / "link.sqlite3"
    link.symlink_to(server.db.removeprefix("sqlite:///"))
    through_link = subprocess.run(
        [*SERVE, "--port", str(free_port()), "--db", sqlite_url(link)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert through_link.returncode == 1 and "in use" in through_link.stderr
    server.stop()  # once it is gone, the file is free again (even after a kill)
    again = Server(server.db)
    again.start()
    again.kill()
    after_kill = Server(server.db)
    after_kill.start()
    after_kill.stop()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--public-url", "nowhere"], "expected an origin like https://example.org"),
        (["--allow-origin", "example.org"], "expected an origin like https://example.org"),
        (["--public-url", "ftp://hk.example.org"], "expected an http:// or https:// address"),
        (["--public-url", "https://example.org/hk/"], "expected the site's root"),
        (["--allow-origin", "https://example.org?x=1"], "expected the site's root"),
        (["--public-url", "http://hk.example.org:99999"], "expected a port from 1 to 65535"),
        (["--public-url", "http://hk.example.org:0"], "expected a port from 1 to 65535"),
        (["--public-url", "http://user:pw@hk.example.org"], "no user name or password"),
        (["--games-per-minute", "-1"], "must be 0 or more"),
        (["--header-timeout", "nan"], "must be from 0.1 to 3600 seconds"),
        (["--ai-workers", "1000"], "'1000': must be 256 or less"),
    ],
)
def test_bad_public_settings_are_one_clear_line(
    tmp_path: Path, args: list[str], message: str
) -> None:
    done = subprocess.run(
        [*SERVE, "--port", str(free_port()), "--db", sqlite_url(tmp_path / "x.sqlite3"), *args],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2 and message in done.stderr and "Traceback" not in done.stderr


def test_more_ai_workers_than_cores_start_with_a_note(tmp_path: Path) -> None:
    """Allowed, but the operator is told they only take turns on the cores."""
    many = (os.cpu_count() or 1) + 1
    server = Server(sqlite_url(tmp_path / "x.sqlite3"), args=["--ai-workers", str(many)])
    server.start()
    try:
        log = server.log.read_text()
        assert f"note: {many} AI workers on {many - 1} cores: they take turns" in log, log
    finally:
        server.stop()


@pytest.mark.parametrize(
    ("url", "origin"),
    [
        ("https://Hana.Example.org:443", "https://hana.example.org"),
        ("HTTP://Other.COM:80/", "http://other.com"),
        ("https://hana.example.org:8443", "https://hana.example.org:8443"),
        ("http://hana.example.org:443", "http://hana.example.org:443"),
        ("http://[::1]:8000", "http://[::1]:8000"),
        ("https://[2001:DB8::1]:443", "https://[2001:db8::1]"),
    ],
)
def test_an_origin_is_kept_as_a_browser_sends_it(url: str, origin: str) -> None:
    """A browser's Origin leaves out the scheme's own port: kept with it, the site's own pages
    were refused (403 bad-origin) on every write."""
    assert origin_of(url) == origin


def test_a_database_in_a_folder_that_is_not_there_is_refused_not_made(tmp_path: Path) -> None:
    """A mistyped --db made the folders (as root, /nonexistent/dir) and an empty database."""
    missing = tmp_path / "typo" / "deeper" / "games.sqlite3"
    done = subprocess.run(
        [*SERVE, "--port", str(free_port()), "--db", str(missing)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert f"no folder '{missing.parent}' for the SQLite database" in done.stderr, done.stderr
    assert not (tmp_path / "typo").exists()


@pytest.fixture
def chatty_server(tmp_path: Path) -> Iterator[Server]:
    """A server at --log-level info, as docs/web.md's public server runs."""
    started = Server(sqlite_url(tmp_path / "games.sqlite3"), args=["--log-level", "info"])
    started.start()
    yield started
    started.stop()


def test_an_oversized_request_logs_no_session_nor_seat_token(chatty_server: Server) -> None:
    """The line logged for a request too large quotes none of its bytes: a cookie header's
    session id, a link's seat token."""
    session = "SESSIONSECRET" + "s" * 30
    pad = "; ".join(f"pad{i}={'p' * 90}" for i in range(200))
    cookie = f"hk-session={session}; {pad}"
    asked = f"GET / HTTP/1.1\r\nHost: x\r\nCookie: {cookie}\r\n\r\n".encode()
    assert " 400 " in _raw(chatty_server.port, asked).split("\r\n")[0]
    link = f"GET /g/abc?t=SEATSECRET{'a' * 20_000} HTTP/1.1\r\nHost: x\r\n\r\n".encode()
    assert " 400 " in _raw(chatty_server.port, link).split("\r\n")[0]
    time.sleep(0.3)
    said = _log(chatty_server)
    assert said.count("malformed request") == 2, said
    assert "SESSIONSECRET" not in said and "SEATSECRET" not in said, said
    assert "not logged" in said


def test_a_browser_with_many_seats_cookies_is_served(server: Server) -> None:
    """Some 200 seats' cookies (one a game, a year each) overflowed aiohttp's 8 KB header: every
    page answered 400. The server takes headers up to 16 KB."""
    seats = "; ".join(f"hk_{i:09d}={'t' * 24}" for i in range(300))
    assert 10_000 < len(seats) < 16_000
    asked = f"GET /rules HTTP/1.1\r\nHost: x\r\nCookie: {seats}\r\nConnection: close\r\n\r\n"
    assert " 200 " in _raw(server.port, asked.encode()).split("\r\n")[0]


def test_the_apis_answers_are_never_cached(server: Server) -> None:
    for path in ("/api/me", "/api/lobby", "/api/levels"):
        asked = f"GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".encode()
        head = _raw(server.port, asked).split("\r\n\r\n")[0].lower()
        assert "cache-control: no-store" in head, (path, head)
    page = _raw(server.port, b"GET /rules HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    assert "no-store" not in page.split("\r\n\r\n")[0].lower()  # a page may be cached


async def test_a_connected_bot_does_not_hold_the_server_open(tmp_path: Path) -> None:
    """SIGTERM with a bot's bridge connected took 22 to 46 s (a new server on the same file was
    refused meanwhile): the bots' sockets now close at once with 1001, as the browsers' do."""
    served = Server(sqlite_url(tmp_path / "games.sqlite3"))
    served.start()
    try:
        jar = aiohttp.CookieJar(unsafe=True)  # (cookies for 127.0.0.1)
        async with aiohttp.ClientSession(base_url=served.url, cookie_jar=jar) as http:
            await (await http.get("/api/me")).read()  # a guest first, as a page makes one
            body = {"username": "quick_owner", "password": "correct horse 7"}
            assert (await http.post("/api/account", json=body)).status == 201
            made = await (await http.post("/api/bots", json={"username": "quick_bot"})).json()
            assert "token" in made, made
            async with http.ws_connect("/ws/bot") as bot:
                hello = {"type": "hello", "protocol": PROTOCOL, "token": made["token"]}
                await bot.send_json(hello)
                assert (await bot.receive_json(timeout=10))["type"] == "welcome"
                assert served.proc is not None
                started = time.monotonic()
                served.proc.terminate()
                closed = await bot.receive(timeout=15)
                assert closed.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED)
                assert bot.close_code == 1001, bot.close_code
                await asyncio.to_thread(served.proc.wait, 15)
                assert time.monotonic() - started < 10, time.monotonic() - started
    finally:
        served.stop()
