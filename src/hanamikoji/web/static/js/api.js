// The server: HTTP API and the WebSocket hanamikoji-web/1 (docs/web.md).

/** POST /api/games; resolves to the server's answer, rejects with {status, error}. */
export async function createGame(options) {
  const response = await fetch("/api/games", {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    credentials: "same-origin",
    body: JSON.stringify(options),
  });
  const body = await response.json().catch(() => ({}));
  if (!response.ok) throw { status: response.status, error: body.error || response.statusText };
  return body;
}

/** GET a JSON resource: {status, body} (body null when not JSON). */
export async function getJSON(url) {
  const response = await fetch(url, { credentials: "same-origin" });
  const body = await response.json().catch(() => null);
  return { status: response.status, ok: response.ok, body };
}

/** The game id of a /g/{id} or /review/{id} page: the last path segment. */
export function gameIdFromPath() {
  const parts = location.pathname.split("/").filter(Boolean);
  return decodeURIComponent(parts[parts.length - 1] || "");
}

/** The ?t= token of the page's address, if any. */
export function tokenFromSearch() {
  return new URLSearchParams(location.search).get("t");
}

/**
 * A seat's WebSocket that reconnects by itself (backoff 0.5 s .. 15 s) and pings every 25 s.
 * handlers: {message(msg), open(), close(willRetry)}.
 */
export class GameSocket {
  constructor(gameId, token, handlers) {
    const scheme = location.protocol === "https:" ? "wss:" : "ws:";
    const query = token ? `?t=${encodeURIComponent(token)}` : "";
    this.url = `${scheme}//${location.host}/ws/${encodeURIComponent(gameId)}${query}`;
    this.handlers = handlers;
    this.delay = 500;
    this.stopped = false;
    this.socket = null;
    this.pinger = null;
    this.connect();
  }

  connect() {
    const socket = new WebSocket(this.url);
    this.socket = socket;
    socket.addEventListener("open", () => {
      this.delay = 500;
      clearInterval(this.pinger);
      this.pinger = setInterval(() => this.send({ type: "ping" }), 25000);
      this.handlers.open?.();
    });
    socket.addEventListener("message", (event) => {
      let msg;
      try {
        msg = JSON.parse(event.data);
      } catch {
        return;
      }
      // no seat or no game: retrying cannot help
      if (msg && msg.type === "error" && ["bad-token", "not-found"].includes(msg.code)) this.stopped = true;
      this.handlers.message?.(msg);
    });
    socket.addEventListener("close", () => {
      clearInterval(this.pinger);
      if (this.socket !== socket) return;
      this.handlers.close?.(!this.stopped);
      if (this.stopped) return;
      setTimeout(() => this.connect(), this.delay);
      this.delay = Math.min(this.delay * 2, 15000);
    });
  }

  /** Send a message; false when the connection is down (the caller may tell the player). */
  send(msg) {
    if (!this.socket || this.socket.readyState !== WebSocket.OPEN) return false;
    this.socket.send(JSON.stringify(msg));
    return true;
  }

  close() {
    this.stopped = true;
    this.socket?.close();
  }
}
