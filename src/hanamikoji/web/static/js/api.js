// The server: HTTP API and the WebSocket hanamikoji-web/1 (docs/web.md).

/**
 * Send a JSON request; resolves to {status, ok, body} (body null when not JSON), rejects with
 * {status: 0, code: "offline"} when the server cannot be reached.
 */
async function request(method, url, payload) {
  let response;
  try {
    response = await fetch(url, {
      method,
      headers: payload === undefined ? {} : { "Content-Type": "application/json" },
      credentials: "same-origin",
      body: payload === undefined ? undefined : JSON.stringify(payload),
    });
  } catch {
    throw { status: 0, code: "offline", error: "" };
  }
  const body = await response.json().catch(() => null);
  return { status: response.status, ok: response.ok, body };
}

/** The error a failed answer stands for: {status, code, error}. */
function failure(answer) {
  const body = answer.body || {};
  return { status: answer.status, code: body.code || null, error: body.error || "" };
}

/** POST /api/games; resolves to the server's answer, rejects with {status, code, error}. */
export async function createGame(options) {
  const answer = await request("POST", "/api/games", options);
  if (!answer.ok) throw failure(answer);
  return answer.body;
}

/** POST /api/me: the name the player's new games show, lobby games too; resolves to the
 * answer's body, rejects with {status, code, error} (a name refused says why). */
export async function setName(name) {
  const answer = await request("POST", "/api/me", { name });
  if (!answer.ok) throw failure(answer);
  return answer.body;
}

/** GET a friend game's invitation: {game, status: open | used, host, seat, rules, yours}. */
export async function getInvitation(gameId, code) {
  const query = new URLSearchParams({ i: code || "" });
  const answer = await request("GET", `/api/games/${encodeURIComponent(gameId)}/invitation?${query}`);
  if (!answer.ok || !answer.body) throw failure(answer);
  return answer.body;
}

/** Claim a friend game's invitation: {game, seat, token, url} (the seat's cookie comes with it).
 * ``name`` is sent as typed, "" too: a name the player cleared is no name ("Player 1" or "2"),
 * not the one the server remembers. */
export async function joinGame(gameId, code, name) {
  const payload = { invite: code || "" };
  if (typeof name === "string") payload.name = name;
  const answer = await request("POST", `/api/games/${encodeURIComponent(gameId)}/join`, payload);
  if (!answer.ok || !answer.body) throw failure(answer);
  return answer.body;
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

/** No seat, no game, this window was closed for a newer one, or the account was disabled by a
 * moderator: reconnecting cannot help. */
const STOP = ["bad-token", "not-found", "replaced", "disabled"];
/** The server's close codes for the same, should its error message not have come first (4429: a
 * spectator over the limits). */
const CLOSE_CODES = { 4403: "bad-token", 4404: "not-found", 4409: "replaced", 4429: "too-many" };

/**
 * The socket's heartbeat: a ping every `pingMs`, after which some message (the pong, or anything
 * else) must come within `pongMs`, or the connection is taken as stalled. A page that waits for
 * the opponent sends nothing else, and a network gone quiet without a close (a laptop asleep, a
 * Wi-Fi handover, a proxy dropping the flow) would keep it waiting for ever. Tests shorten both
 * with `window.__hanamikojiTimings = {pingMs, pongMs}` set before the page loads.
 */
const HEARTBEAT = { pingMs: 25000, pongMs: 10000, ...globalThis.__hanamikojiTimings };

/** The longest wait between two tries: a server started again gives a clock's player this long
 * to come back before it runs on (clock.py's RECONNECT_MS). */
const RETRY_MAX_MS = 5000;

/**
 * A seat's WebSocket that reconnects by itself (backoff 0.5 s .. 5 s, at once when the browser
 * says it is online again), pings every 25 s and reconnects when nothing answers within 10 s.
 * handlers: {message(msg), open(), close(willRetry), stalled()}: `stalled` is told first when the
 * heartbeat gives up (the page may say so). With `watch`, a spectator's socket instead.
 */
export class GameSocket {
  constructor(gameId, token, handlers, { watch = false } = {}) {
    const scheme = location.protocol === "https:" ? "wss:" : "ws:";
    const query = token ? `?t=${encodeURIComponent(token)}` : "";
    const path = `/ws/${encodeURIComponent(gameId)}${watch ? "/watch" : ""}`;
    this.url = `${scheme}//${location.host}${path}${query}`;
    this.handlers = handlers;
    this.delay = 500;
    this.stopped = false;
    this.socket = null;
    this.pinger = null;
    this.deadline = null; // the timer of the answer awaited since a ping (null: none awaited)
    this.retry = null; // the timer of the next try while the connection is down
    this.heard = 0; // messages received (a caller may tell a silent connection from a slow answer)
    this.onOnline = () => this.wake();
    window.addEventListener("online", this.onOnline);
    this.connect();
  }

  connect() {
    if (this.stopped) return;
    const socket = new WebSocket(this.url);
    this.socket = socket;
    socket.addEventListener("open", () => {
      if (this.socket !== socket) return;
      this.delay = 500;
      this.stopBeat();
      this.pinger = setInterval(() => this.ping(), HEARTBEAT.pingMs);
      this.handlers.open?.();
    });
    socket.addEventListener("message", (event) => {
      if (this.socket !== socket) return; // a stalled socket given up on: the new one speaks
      this.heard += 1;
      clearTimeout(this.deadline); // any message is proof of life
      this.deadline = null;
      let msg;
      try {
        msg = JSON.parse(event.data);
      } catch {
        return;
      }
      if (msg && msg.type === "error" && STOP.includes(msg.code)) this.stopped = true;
      this.handlers.message?.(msg);
    });
    socket.addEventListener("close", (event) => {
      if (this.socket !== socket) return; // given up on already (reconnect): its heartbeat went then
      const code = CLOSE_CODES[event.code];
      if (code && !this.stopped) {
        this.stopped = true;
        this.handlers.message?.({ type: "error", code, message: event.reason || "" });
      }
      this.lost();
    });
  }

  /** Ping, and await some message within the deadline (the one set already, if it still runs: a
   * connection that never answers is caught however short the pings' interval). */
  ping() {
    if (!this.send({ type: "ping" }) || this.deadline !== null) return;
    this.deadline = setTimeout(() => this.silent(), HEARTBEAT.pongMs);
  }

  /** Nothing came since a ping: the connection stalled while nothing else awaited an answer (a
   * player waiting for the opponent). The page is told, and the connection opened afresh; the
   * backoff of `lost` paces the tries, so a server that stays silent is not hammered. */
  silent() {
    this.deadline = null;
    this.handlers.stalled?.(); // the page may reconnect itself meanwhile: then this does nothing
    this.reconnect();
  }

  /** The heartbeat stops: a connection gone, given up on or closed for good awaits no pong. */
  stopBeat() {
    clearInterval(this.pinger);
    clearTimeout(this.deadline);
    this.pinger = null;
    this.deadline = null;
  }

  /** The connection is gone: say so, then try again after the backoff (unless stopped). */
  lost() {
    this.stopBeat();
    this.handlers.close?.(!this.stopped);
    if (this.stopped) return;
    clearTimeout(this.retry);
    this.retry = setTimeout(() => {
      this.retry = null;
      this.connect();
    }, this.delay);
    this.delay = Math.min(this.delay * 2, RETRY_MAX_MS);
  }

  /**
   * Give up on a connection that stalled: open, but the server's answers stopped coming (a network
   * gone without a close, which may take minutes to be noticed). It is dropped and a new one
   * connects as after a close; the old one closes in its own time, and nothing it may still bring
   * reaches the handlers.
   */
  reconnect() {
    const old = this.socket;
    if (this.stopped || !old || old.readyState !== WebSocket.OPEN) return; // closing already: retried then
    this.socket = null;
    old.close();
    this.lost();
  }

  /** The browser is online again: a connection waiting out its backoff tries at once. */
  wake() {
    if (this.stopped || this.retry === null) return;
    clearTimeout(this.retry);
    this.retry = null;
    this.delay = 500;
    this.connect();
  }

  /** Send a message; false when the connection is down (the caller may tell the player). */
  send(msg) {
    if (!this.socket || this.socket.readyState !== WebSocket.OPEN) return false;
    this.socket.send(JSON.stringify(msg));
    return true;
  }

  /** Close for good: nothing more reaches the handlers (a socket that replaces it may take them). */
  close() {
    this.stopped = true;
    this.handlers = {};
    this.stopBeat();
    clearTimeout(this.retry);
    this.retry = null;
    window.removeEventListener("online", this.onOnline);
    this.socket?.close();
  }
}
