// The clocks of a timed game at the table (docs/web.md, "Time controls").
//
// The server is the authority: each state message carries each seat's time at the server's own
// `now`. The page counts the running seat's time down from the moment that message arrived (on
// this page's monotonic clock), so an error in this computer's clock changes nothing. Under 20 s
// a real-time clock turns red, and the player's own is announced once to screen readers. The
// "Claim the win" box shows once the server's `claim_at` has come (in an untimed game against a
// bot, the game's own `claim_at`: the bot's bridge has been gone a minute, docs/bots.md).

import { $, h } from "./dom.js";
import { t } from "./i18n.js";

/** A real-time clock under this is low: red, and announced once (the player's own). */
export const LOW_MS = 20_000;
const TICK_MS = 100;

const clocks = {
  clock: null, // the last state message's `clock` (null: no time control)
  claimAt: null, // when this seat may claim the game (the server's time; null: not now)
  now: 0, // the server's time when the last state message was written
  at: 0, // performance.now() when it arrived
  seat: null, // this page's seat
  spectator: false, // a spectator's table: no clock is "yours", nothing announced, no claim
  over: false,
  announced: new Set(), // "<game>:<seat>": low time already announced
  game: null,
  claim: null, // sends the claim
  timer: null,
  lostAt: null, // performance.now() when the connection went (null: connected): the time stops there
};

/** Take the clocks of a state message, which arrived at `at` (performance.now(); a player's are
 * taken as they arrive, before any pacing, a spectator's as its board is shown). */
export function clockReceived(msg, at = performance.now()) {
  clocks.clock = msg.clock || null;
  clocks.claimAt = (msg.clock ? msg.clock.claim_at : msg.game.claim_at) ?? null;
  clocks.now = (msg.clock ? msg.clock.now : msg.game.now) ?? 0;
  clocks.at = at;
  clocks.lostAt = null;
  clocks.seat = msg.view.seat;
  clocks.spectator = Boolean(msg.spectator);
  clocks.over = msg.game.status === "over";
  clocks.game = msg.game.id;
  update();
}

/** Start the countdown; `claim()` sends the claim of an absent opponent's game. */
export function initClocks({ claim }) {
  clocks.claim = claim;
  const alert = h("p", { id: "clock-alert", class: "sr-only", role: "status", "aria-live": "assertive" });
  document.body.append(alert);
  $("#claim")?.addEventListener("click", () => {
    $("#claim").disabled = true;
    // not sent (the device offline, the connection down): the button is the player's again
    if (clocks.claim?.() === false) $("#claim").disabled = false;
  });
  clocks.timer = setInterval(update, TICK_MS);
}

/**
 * The connection went: the clocks stop where they are, marked, until the next state message.
 * Counting on would show a player's time run out while the server cannot be reached (it does
 * not charge the time no server ran), and the message on reconnecting says what the time is.
 */
export function clockLost() {
  if (clocks.lostAt === null) clocks.lostAt = performance.now();
  update();
}

/** The server's time now, as this page estimates it from the last message (held while lost). */
function serverNow() {
  return clocks.now + ((clocks.lostAt ?? performance.now()) - clocks.at);
}

/** A seat's time left now (ms, never below 0), or null without a clock. */
function left(seat) {
  const c = clocks.clock;
  if (!c || !c.remaining) return null;
  let ms = c.remaining[seat];
  // counted from the message, or from the clock's start when that is later (a round's scoring
  // is not charged: the next round's first clock starts after it)
  if (c.running && c.turn === seat && !clocks.over) ms -= Math.max(0, serverNow() - Math.max(c.since ?? c.now, c.now));
  return Math.max(0, ms);
}

const pad = (n) => String(n).padStart(2, "0");

/** "4:59", "0:19.4" (tenths when low), "1:05:00"; a correspondence clock "2 d 23 h", "23 h 59 min". */
export function formatClock(ms, control) {
  const correspondence = /d$/.test(control || "");
  const total = Math.floor(ms / 1000);
  if (correspondence && total >= 86_400) {
    return t("clock.days", { d: Math.floor(total / 86_400), h: Math.floor((total % 86_400) / 3600) });
  }
  // a day's last hours in the same words as its first ("23 h 59 min", not "23:59:56", which
  // reads as a time of day beside the other seat's "1 d 0 h")
  if (correspondence && total >= 3600) return t("clock.hours", { h: Math.floor(total / 3600), m: Math.floor((total % 3600) / 60) });
  const hours = Math.floor(total / 3600);
  const minutes = Math.floor((total % 3600) / 60);
  const seconds = total % 60;
  if (hours) return `${hours}:${pad(minutes)}:${pad(seconds)}`;
  if (!correspondence && ms < LOW_MS) return `${minutes}:${pad(seconds)}.${Math.floor((ms % 1000) / 100)}`;
  return `${minutes}:${pad(seconds)}`;
}

/** "3 min + 2 s", "3 days a move", "No clock": a time control in words. */
export function controlText(control) {
  const real = /^(\d+)\+(\d+)$/.exec(control);
  if (real) return t("lobby.controls.real", { m: Number(real[1]), s: Number(real[2]) });
  const days = /^(\d)d$/.exec(control);
  if (days) return t("lobby.controls.days", { n: Number(days[1]) });
  return t("lobby.controls.none");
}

/** A seat's clock for the scorebar's standing (null in a game without one). */
export function clockFor(msg, seat, name) {
  if (!msg.clock) return null;
  const node = h("span", { class: "clock", "data-clock-seat": seat, role: "timer", "data-name": name });
  paint(node, seat);
  return node;
}

function paint(node, seat) {
  const c = clocks.clock;
  const ms = left(seat);
  if (ms === null) return;
  const low = /\+/.test(c.control) && ms < LOW_MS;
  const running = c.running && c.turn === seat && !clocks.over;
  const text = formatClock(ms, c.control);
  if (node.textContent !== text) node.textContent = text;
  node.classList.toggle("low", low);
  node.classList.toggle("running", running);
  node.classList.toggle("held", clocks.lostAt !== null);
  node.dataset.ms = String(Math.round(ms));
  const name = node.dataset.name || "";
  const yours = seat === clocks.seat && !clocks.spectator;
  const label = yours ? t("clock.yours", { time: text }) : t("clock.theirs", { name, time: text });
  if (node.getAttribute("aria-label") !== label) node.setAttribute("aria-label", label);
}

function update() {
  if (clocks.clock) paintClocks();
  const box = $("#claim-box");
  if (box) {
    const at = clocks.claimAt;
    const open = at !== null && !clocks.over && !clocks.spectator && serverNow() >= at;
    if (box.hidden === open) {
      box.hidden = !open;
      if (open) $("#claim").disabled = false;
    }
  }
}

function paintClocks() {
  for (const node of document.querySelectorAll("[data-clock-seat]")) paint(node, Number(node.dataset.clockSeat));
  const mine = left(clocks.seat);
  const key = `${clocks.game}:${clocks.seat}`;
  const announce = !clocks.spectator && /\+/.test(clocks.clock.control) && !clocks.over;
  if (announce && mine !== null && mine < LOW_MS && mine > 0 && !clocks.announced.has(key)) {
    clocks.announced.add(key);
    const alert = $("#clock-alert");
    if (alert) alert.textContent = t("clock.low");
  }
}

/** Why a game the clock ended was lost, in words (null: not ended by the clock). */
export function clockEnding(msg, winner, opponent) {
  const ended = msg.clock?.ended;
  if (!ended || msg.spectator) return null; // a spectator's words are the table's own
  const mine = ended.seat === msg.view.seat;
  const how = ended.why === "abandoned" ? "abandoned" : "time";
  return mine ? t(`clock.ended_${how}_me`) : t(`clock.ended_${how}_opp`, { name: opponent });
}

/** Our words for a clock's error code (null: not one of ours). */
export function clockError(code) {
  const key = `clock.errors.${code}`;
  const text = t(key);
  return text === key ? null : text;
}
