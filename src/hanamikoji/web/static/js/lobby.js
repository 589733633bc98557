// The lobby (/lobby): the open challenges, live over /ws/lobby; Play someone now; a challenge of
// one's own, to anyone or to one player (docs/web.md, "The lobby").

import { GameSocket } from "./api.js";
import { controlText } from "./clock.js";
import { $, fill, h } from "./dom.js";
import { reasonOf } from "./errors.js";
import { initI18n, language, onLanguageChange, t } from "./i18n.js";
import { accountLink, whoAmI } from "./mine.js";
import "./prefs.js"; // the theme chosen at the table holds here too
import { markNode, markedText, whoMark as markOf } from "./who.js";
import { acceptsText } from "./words.js";

const lobby = {
  challenges: new Map(), // id -> challenge, as the server shows it to this visitor
  waiting: null, // this visitor's own open challenge from Play someone now or Create
  error: null, // {key, params} or {reason}
  declined: new Map(), // id -> the bot's name: challenges of this visitor's that a bot declined
  conn: "connecting", // connecting | open | lost | disabled
  starting: false,
  bots: [], // the bots connected now, as the server lists them (docs/bots.md)
};
let socket = null; // the lobby's live updates: connect()

/** A bot in the lobby: its name, the BOT mark, its rating and what it accepts; Challenge. */
function botItem(b) {
  const rating = b.ratings["real-time"];
  const what = [
    b.house ? t("bots.house", { level: t(`levels.${b.level}`) }) : t("bots.owner", { owner: b.owner }),
    rating ? t("bots.rating", { rating }) : null,
    acceptsText(b.accepts),
  ].filter(Boolean).join(" · ");
  const label = `${t("bots.challenge")}: ${b.username}`;
  return h(
    "li",
    { class: "challenge bot", "data-bot": b.username, "data-house": b.house ? "true" : "false" },
    h("a", { class: "challenge-who", href: `/@/${encodeURIComponent(b.username)}`, text: b.username }),
    h("span", { class: "bot-badge", text: t("bots.badge"), title: t("bots.badge_title") }),
    h("span", { class: "challenge-what", text: what }),
    h("button", { type: "button", class: "btn primary", text: t("bots.challenge"), "aria-label": label, disabled: lobby.starting, onclick: () => challengeBot(b.username) }),
  );
}

async function challengeBot(name) {
  lobby.error = null;
  const answer = await post("/api/lobby/challenges", { ...settings(), seat: "random", to: name });
  if (!answer.ok) return fail(answer);
  wait(answer.body.challenge);
}

function rulesText(c) {
  return c.max_rounds ? t("mine.rules_max", { n: c.max_rounds }) : t("mine.rules_none");
}

/** The creator's name as the game will show it: the name they typed, or their seat's
 * ("Player 1", "Player 2"; with seats by lot, either). */
function who(c) {
  if (c.mine) return t("lobby.you");
  if (c.name) return c.name;
  return c.seat === "random" ? t("lobby.player_1_or_2") : t("game.player_n", { n: c.seat + 1 });
}

/** The creator's rating in the challenge's time control's family ("?": provisional), or "". */
function ratingText(c) {
  const r = c.rating;
  return r ? `(${r.rating}${r.provisional ? "?" : ""})` : "";
}

/** What tells who made it, beside the name they typed (which anyone may type): js/who.js. */
const whoMark = (c) => (c.mine ? null : markOf(c.username));

/** Who made it, their @user name or guest mark, and their rating: as words (the buttons' labels). */
function whoRated(c) {
  return [markedText(who(c), whoMark(c)), ratingText(c)].filter(Boolean).join(" ");
}

/** The same, shown: an account's @user name links to its profile. */
function whoNode(c) {
  const node = markNode(whoMark(c), "challenge-user");
  const rating = ratingText(c);
  // <bdi>: a name in a right-to-left script cannot reorder the mark and the rating after it
  return h("span", { class: "challenge-who", "data-username": c.username || null, "data-guest": c.username ? null : "true" }, h("bdi", { text: who(c) }), node ? [" ", node] : null, rating ? ` ${rating}` : null);
}

/** Who starts round 1, from this visitor's side. */
function seatText(c) {
  if (c.seat === "random") return t("lobby.seat_random");
  const creatorStarts = c.seat === 0;
  if (c.mine) return creatorStarts ? t("lobby.you_start") : t("lobby.opponent_starts");
  return creatorStarts ? t("lobby.creator_starts", { name: who(c) }) : t("lobby.you_start");
}

function describe(c) {
  const parts = [controlText(c.control), rulesText(c), c.rated ? t("lobby.rated_tag") : t("lobby.casual_tag"), seatText(c)];
  return parts.join(" · ");
}

function item(c) {
  const bot = c.to && lobby.bots.some((b) => b.username === c.to);
  const tag = c.for_me ? t("lobby.for_you") : bot ? t("bots.for_bot", { name: c.to }) : c.to ? t("lobby.for_name", { name: c.to }) : null;
  const label = `${whoRated(c)}: ${describe(c)}${tag ? ` (${tag})` : ""}`;
  const button = c.mine
    ? h("button", { type: "button", class: "btn", text: t("lobby.cancel"), "aria-label": `${t("lobby.cancel")}: ${label}`, onclick: () => cancel(c.id) })
    : h("button", { type: "button", class: "btn primary", text: t("lobby.accept"), "aria-label": `${t("lobby.accept")}: ${label}`, disabled: lobby.starting, onclick: () => accept(c.id) });
  return h(
    "li",
    { class: `challenge${c.mine ? " mine" : ""}${c.for_me ? " for-me" : ""}`, "data-challenge": c.id, "data-control": c.control, "data-mine": c.mine ? "true" : "false" },
    whoNode(c),
    h("span", { class: "challenge-what", text: describe(c) }),
    tag ? h("span", { class: "challenge-tag", text: tag }) : null,
    button,
  );
}

function render() {
  const list = [...lobby.challenges.values()].sort((a, b) => a.created - b.created || a.id.localeCompare(b.id));
  const focusedId = document.activeElement?.closest?.("[data-challenge]")?.dataset.challenge;
  fill($("#challenges"), list.map(item));
  if (focusedId) $(`[data-challenge="${CSS.escape(focusedId)}"] button`)?.focus();
  $("#no-challenges").hidden = list.length > 0;
  fill($("#bots"), lobby.bots.map(botItem));
  $("#no-bots").hidden = lobby.bots.length > 0;
  $("#challenges-count").textContent = list.length ? t("lobby.count", { n: list.length }) : "";
  const root = $("#lobby");
  root.dataset.conn = lobby.conn;
  root.dataset.count = String(list.length);
  const conn = $("#lobby-conn");
  conn.hidden = lobby.conn === "open";
  conn.textContent = { lost: t("lobby.conn_lost"), disabled: t("errors.disabled") }[lobby.conn] ?? t("lobby.conn_connecting");
  const error = $("#lobby-error");
  error.hidden = !lobby.error;
  error.textContent = lobby.error ? (lobby.error.reason ? t("lobby.errors.failed", { reason: reasonOf(lobby.error.reason) }) : t(lobby.error.key, lobby.error.params || {})) : "";
  const mine = lobby.waiting && lobby.challenges.get(lobby.waiting.id);
  if (lobby.waiting && !mine) lobby.waiting = null; // gone: accepted (the start follows), cancelled or expired
  const box = $("#lobby-waiting");
  box.hidden = !lobby.waiting && !lobby.starting;
  root.dataset.waiting = lobby.waiting ? lobby.waiting.id : "";
  if (lobby.waiting) waited(lobby.waiting.id); // (not forgotten when it goes: accepted, its start follows)
  if (lobby.starting) {
    $("#lobby-waiting-text").textContent = t("lobby.starting");
    $("#lobby-waiting-help").textContent = "";
    $("#lobby-waiting-cancel").hidden = true;
  } else if (lobby.waiting) {
    const w = lobby.waiting;
    // what was asked for, as the listing says it: the clock, rated or casual, and for whom
    const what = `${controlText(w.control)}, ${w.rated ? t("lobby.rated_tag") : t("lobby.casual_tag")}`;
    $("#lobby-waiting-text").textContent = w.to
      ? t("lobby.waiting_to", { name: w.to, control: what })
      : t("lobby.waiting", { control: what });
    $("#lobby-waiting-help").textContent = w.kind === "real-time" ? t("lobby.waiting_real_time") : t("lobby.waiting_day");
    $("#lobby-waiting-cancel").hidden = false;
  }
  for (const id of ["#play-now", "#create"]) $(id).disabled = lobby.starting;
}

/** Our words for a refusal: the code's sentence where we have one, else the server's reason. */
function explain(status, body) {
  const code = body?.code;
  // "too-many" is the open challenges' limit only when the server says so (it is also the new
  // games' limit and the new visitors' per address): otherwise the general words, or its reason
  const challenges = code === "too-many" && /open challenges/.test(body?.error || "");
  if (challenges || ["own-challenge", "to-self", "own-bot", "not-yours", "accepted", "cancelled", "expired", "unavailable"].includes(code)) return { key: `lobby.errors.${code}` };
  if (code === "not-found" && body?.field === "to") return { key: "lobby.errors.no-player" };
  if (code === "not-found") return { key: "lobby.errors.not-found" };
  // the server's reason is English: on another language's page, that page's own words
  if (code === "declined") return language() === "en" ? { key: "bots.declined", params: { reason: body?.error || "" } } : { key: "bots.declined_here" };
  if (code === "bad-request" && body?.field === "to") return { key: "lobby.errors.to" };
  return { reason: { status, code: code || null, error: body?.error || "" } };
}

async function post(path, payload) {
  try {
    const response = await fetch(path, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      credentials: "same-origin",
      body: JSON.stringify(payload),
    });
    const body = await response.json().catch(() => null);
    return { ok: response.ok, status: response.status, body };
  } catch {
    return { ok: false, status: 0, body: { code: "offline" } };
  }
}

function settings() {
  return {
    control: $("#control").value,
    max_rounds: $("#rounds").value === "none" ? null : 3,
    rated: $("#control").value !== "none" && $("#rated").checked,
  };
}

/** "Rated" usable only with a clock: untimed games are never rated (the server refuses it). */
function ratedFollowsControl() {
  const rated = $("#rated");
  rated.disabled = $("#control").value === "none";
  if (rated.disabled) rated.checked = false;
}

function fail(answer) {
  lobby.error = explain(answer.status, answer.body); // an alert: read out where the focus is
  render();
}

/** Off to the table (a game was found, or a challenge accepted). */
/** The challenge this tab waits on, kept across its reloads (sessionStorage is the tab's): a game
 * one of the player's challenges started is followed by the tab that waited on it, and by no
 * other (every visit of the lobby, the acceptor's too, was sent back to the game for a minute). */
const WAITED = "hanamikoji.lobby.waited";

function waited(id) {
  try {
    if (id === undefined) return sessionStorage.getItem(WAITED);
    if (id) sessionStorage.setItem(WAITED, id);
    else sessionStorage.removeItem(WAITED);
  } catch {
    return null; // storage refused (a private window's settings): a reload then finds no game
  }
  return id;
}

function start(url) {
  lobby.waiting = null; // followed now: render() must not keep it for the tab's next visit
  waited(null);
  lobby.starting = true;
  socket?.close(); // no reconnect, nor a second start, while the table loads
  render();
  location.assign(url);
}

// A rated seek pairs only within both players' rating windows, which widen with the wait: the
// page asks again every 5 s while its seek waits (the server's REPOLL_MS).
const REPOLL_MS = 5_000;
let repoll = null;

async function playNow() {
  lobby.error = null;
  clearTimeout(repoll);
  const asked = settings();
  const answer = await post("/api/lobby/play", asked);
  if (!answer.ok) return fail(answer);
  if (answer.status === 201) return start(answer.body.url);
  wait(answer.body.challenge);
  if (asked.rated) {
    const id = answer.body.challenge.id;
    repoll = setTimeout(() => lobby.waiting?.id === id && !lobby.starting && playNow(), REPOLL_MS);
  }
}

async function create() {
  lobby.error = null;
  const to = $("#to").value.trim();
  const seat = $("#seat").value;
  const payload = { ...settings(), seat: seat === "random" ? "random" : Number(seat) };
  if (to) payload.to = to;
  const answer = await post("/api/lobby/challenges", payload);
  if (!answer.ok) return fail(answer);
  wait(answer.body.challenge);
}

/** A bot declined our challenge `id`: said, and no longer waited for. */
function declined(id, name) {
  const known = lobby.declined.get(id) ?? name;
  lobby.declined.set(id, known);
  if (lobby.waiting?.id === id) lobby.waiting = null;
  if (!known) return;
  lobby.error = { key: "lobby.errors.declined-by", params: { name: known } };
  // said where the eye is not (the bot's button sits below the house levels): brought into view
  requestAnimationFrame(() => $("#lobby-error").scrollIntoView({ block: "nearest" }));
}

function wait(challenge) {
  // A bot's acceptance (the socket's start) may come before the answer to our POST: the tab is
  // already off to the table, and a challenge waited on now would send its next visit of the
  // lobby back to that game
  if (lobby.starting) return;
  if (lobby.declined.has(challenge.id)) {
    declined(challenge.id, challenge.to); // declined before its answer came: nothing to wait for
    render();
    return;
  }
  lobby.challenges.set(challenge.id, challenge);
  lobby.waiting = challenge;
  render();
  $("#lobby-waiting-cancel").focus();
}

async function accept(id) {
  lobby.error = null;
  const answer = await post(`/api/lobby/challenges/${encodeURIComponent(id)}/accept`, {});
  if (!answer.ok) {
    if (["accepted", "cancelled", "expired"].includes(answer.body?.code)) lobby.challenges.delete(id);
    return fail(answer);
  }
  start(answer.body.url);
}

async function cancel(id) {
  lobby.error = null;
  const answer = await post(`/api/lobby/challenges/${encodeURIComponent(id)}/cancel`, {});
  if (!answer.ok && answer.body?.code !== "cancelled") return fail(answer);
  lobby.challenges.delete(id);
  if (lobby.waiting?.id === id) lobby.waiting = null;
  if (waited() === id) waited(null);
  render();
  $("#play-now").focus();
}

function onMessage(msg) {
  if (msg.type === "lobby") {
    lobby.challenges = new Map(msg.challenges.map((c) => [c.id, c]));
    lobby.bots = msg.bots || [];
    // accepted while this tab, which waited on it, reloaded
    const mine = msg.started?.find((s) => s.challenge === waited());
    if (mine) return start(mine.url);
    if (!lobby.waiting) lobby.waiting = msg.challenges.find((c) => c.mine) || null;
  } else if (msg.type === "challenge") {
    lobby.challenges.set(msg.challenge.id, msg.challenge);
    if (msg.challenge.mine && !lobby.waiting) lobby.waiting = msg.challenge; // made in another tab
  } else if (msg.type === "gone") {
    const gone = lobby.challenges.get(msg.id);
    lobby.challenges.delete(msg.id);
    // A bot declined one of ours (at once, maybe before the page heard its challenge was made)
    if (msg.why === "declined" && (gone?.mine || lobby.waiting?.id === msg.id || !gone)) declined(msg.id, gone?.to);
  } else if (msg.type === "start") {
    return start(msg.url);
  } else if (msg.type === "bots") {
    lobby.bots = msg.bots;
  } else if (msg.type === "error" && msg.code === "signed-out") {
    // the account's session here ended (elsewhere): the page as the browser is now, its name
    // in the top bar included
    lobby.starting = true;
    socket?.close();
    location.reload();
    return;
  } else if (msg.type === "error" && msg.code === "disabled") {
    lobby.conn = "disabled"; // a moderator disabled the account: the page says so, and stops
  }
  render();
}

/** The lobby's socket: js/api.js's GameSocket, whose path for the id "lobby" is /ws/lobby. It
 * reconnects by itself, and its heartbeat notices a connection gone silent without a close (the
 * challenges made meanwhile would never show): each connection opens with the server's listing,
 * so a reconnect shows what was missed. */
function connect() {
  const lost = () => {
    if (lobby.starting || lobby.conn === "disabled") return;
    lobby.conn = "lost";
    render();
  };
  return new GameSocket("lobby", null, {
    open() {
      lobby.conn = "open";
      render();
    },
    // 4403 is the lobby's close for a disabled account, should its message not have come first
    message: (msg) => onMessage(msg.type === "error" && msg.code === "bad-token" ? { ...msg, code: "disabled" } : msg),
    close: lost,
    stalled: lost,
  });
}

async function main() {
  // The buttons work from the first moment (a click while the translations are on their way).
  $("#control").addEventListener("change", ratedFollowsControl);
  ratedFollowsControl();
  $("#play-now").addEventListener("click", playNow);
  $("#lobby-form").addEventListener("submit", (event) => {
    event.preventDefault();
    create();
  });
  $("#lobby-waiting-cancel").addEventListener("click", () => lobby.waiting && cancel(lobby.waiting.id));
  await initI18n();
  for (const option of document.querySelectorAll("#control option")) option.textContent = controlText(option.dataset.control);
  onLanguageChange(() => {
    for (const option of document.querySelectorAll("#control option")) option.textContent = controlText(option.dataset.control);
    render();
  });
  whoAmI().then((me) => {
    accountLink(me);
    onLanguageChange(() => accountLink(me));
  });
  render();
  socket = connect();
}

main();
