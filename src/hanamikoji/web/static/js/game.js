// The game page: one seat's table, driven by the server's state messages over the WebSocket.
//
// The messages are shown one at a time (the feed): each of the opponent's moves stays on show for
// about a second before the next, its cards travelling to their place; a click or a key shows the
// rest at once, and a player who prefers reduced motion (or chose "at once") sees them instantly.

import { GameSocket, gameIdFromPath, getJSON, tokenFromSearch } from "./api.js";
import { renderBoard } from "./board.js";
import { ACTION_SIZE, ACTIONS, actionSvg, backSvg, cardSvg, charmOf } from "./cards.js";
import { ChatBox, chatOn, setChatOn } from "./chat.js";
import { clockEnding, clockError, clockFor, clockLost, clockReceived, controlText, initClocks } from "./clock.js";
import { copyButton } from "./copy.js";
import { $, $$, fill, h, keepFocus } from "./dom.js";
import { reasonOf } from "./errors.js";
import { Guide } from "./guide.js";
import { initI18n, isolate, onLanguageChange, percent, t } from "./i18n.js";
import { rectOf, travel } from "./motion.js";
import { minus, movesFor, parseMove, sortCards } from "./notation.js";
import { paceMs, prefs, reducedMotion, setPref, touchScreen } from "./prefs.js";
import { ScoringDialog, standingOf } from "./scoring.js";
import { ShareBox } from "./share.js";
import { playSound } from "./sound.js";
import { GEISHA_TO_WIN, asTable, seatMark, seatName, spokenName, watchLog, watchNews, watchResult, watchStatus } from "./spectate.js";
import { botBadge, markNode, markedName, markedText, sentence } from "./who.js";
import { confirmLabel, displayName, logEntries, moveLabel, sinceMyMove } from "./words.js";

const gameId = gameIdFromPath();
const token = tokenFromSearch();
const root = $("#game");

/** Charm and geisha that win (rules.md: 11 charm, or the favour of 4 geisha). */
const WIN_CHARM = 11;
const WIN_GEISHA = 4;
/** How long a card takes to travel (ms), unless motion is reduced. */
const TRAVEL_MS = 450;
/** How long a sent move may wait for its answer (its state, or an error) before the connection is
 * taken as stalled: open, yet silent (a network gone without a close). It is then dropped and
 * opened afresh. A hint, which may take its time (a search), is given up only on a connection
 * that does not even answer a ping within as long. Tests shorten it with
 * `window.__hanamikojiTimings = {answerMs}` set before the page loads (see js/api.js). */
const ANSWER_TIMEOUT_MS = globalThis.__hanamikojiTimings?.answerMs ?? 8000;

/** Everything the page shows is drawn from this. */
const ui = {
  msg: null, // the state message on show
  selected: new Set(), // indices into view.hand
  action: null, // the action button pressed (S, D, G, C)
  sent: false, // a move was sent and its answer is awaited
  stalled: false, // no answer came: the connection is opened afresh, and the table awaits its state
  hint: null, // the latest hint message
  hintAsked: false,
  fresh: { near: "", far: "", oppSecret: false, oppDiscard: false, offer: false, log: 0 },
  error: null, // {code, message}
  conn: "connecting", // connecting | open | lost | failed | bad-token | not-found | replaced
  failures: 0,
  resignAsked: false,
  rematchAsked: false,
  scoringsShown: 0,
  watching: false, // no seat opened: this page is the spectator's table
};

/** The state messages not yet shown, and the timer of the move on show (null: none). */
const feed = { queue: [], timer: null };

/** The watch on an awaited answer (a move's, a hint's): its timer, and for a hint the socket's
 * count of messages heard when it was pinged (null: not pinged yet). */
const answer = { timer: null, heard: null };

/** Errors after which the socket stays closed: no seat, no game, a newer window took over, or a
 * moderator disabled the account. */
const FINAL = ["bad-token", "not-found", "replaced", "disabled", "signed-out-final"];

let socket = null;
let scoring = null;
let guide = null;
let chat = null; // the chat box (js/chat.js)
let share = null; // the seat's links: to watch, and to open it elsewhere (js/share.js)

// ---- derived facts ------------------------------------------------------------------------------

const seatOf = (msg) => msg.view.seat;
const otherOf = (msg) => 1 - msg.view.seat;
const playing = (msg) => msg.game.status === "playing";
/** A friend game its creator ended before anyone took the seat: nothing was played, with nobody
 * (it read "Player 2 won – You resigned", with a rematch and a chat for no one). */
const withdrawn = (msg) =>
  msg.game.mode === "friend" &&
  msg.game.status === "over" &&
  (msg.spectator ? (msg.game.joined || []).includes(false) : !msg.game.opponent_joined);
const myDecision = (msg) => playing(msg) && msg.view.to_move === msg.view.seat && msg.legal.length > 0;
const myAction = (msg) => myDecision(msg) && msg.view.phase === "action";
const myPick = (msg) => myDecision(msg) && msg.view.phase === "pick";
/** Whether this page's socket is closed for good (a session ended, a newer window, an account
 * disabled): the table stays to be read, but nothing on it can be sent any more. */
const cutOff = () => FINAL.includes(ui.conn);
/** Whether the device's own network is down (the browser knows): said so, not "the server does
 * not answer". */
const deviceOffline = () => navigator.onLine === false;
/** Whether nothing asked now could reach the server: the device offline, or the connection
 * down while it reconnects. A resignation, an undo, a hint or a rematch asked then would be lost
 * without a word (a move is watched for its answer instead, and offered again: js/api.js). */
const unreachable = () => deviceOffline() || ui.conn !== "open";

/** A button whose request needs the server: off while it cannot reach it (`off` besides), and
 * then saying why (its title, and the notice that says what is wrong with the connection). */
function needsServer(button, off) {
  const cut = unreachable();
  button.disabled = off || cut;
  if (cut) {
    button.title = t("conn.needs_server");
    button.setAttribute("aria-describedby", "conn");
  } else {
    button.removeAttribute("title");
    button.removeAttribute("aria-describedby");
  }
}
/** Whether the player may act on what is shown (not while later news waits in the feed). */
const canDecide = (msg) => myDecision(msg) && !ui.sent && !ui.stalled && !feed.queue.length && !scoring?.open && !cutOff();

function toMove(msg) {
  if (!playing(msg) || msg.view.to_move === null || msg.view.to_move === undefined) return "none";
  return msg.view.to_move === msg.view.seat ? "me" : "opponent";
}

function selectedCards(msg) {
  return sortCards([...ui.selected].map((i) => msg.view.hand[i]).join(""));
}

function inviteUrl(msg) {
  let link = msg.game.invite || null;
  if (!link) {
    try {
      link = localStorage.getItem(`hanamikoji.invite.${gameId}`);
    } catch {
      link = null;
    }
  }
  return link ? new URL(link, location.origin).href : null;
}

function opponentName(msg) {
  if (msg.spectator) return seatName(msg, otherOf(msg));
  if (msg.game.mode === "ai") return t("game.ai_name", { level: t(`levels.${msg.game.level}`) });
  return displayName(msg.game.names?.[otherOf(msg)], otherOf(msg));
}

/** The other seat's name in the scorebar: "Your friend" while an invited friend has not taken it
 * (the seat's "Player 1" read to a host with no name of their own as if they waited for
 * themself), the seat's name once they have. */
function opponentLabel(msg) {
  if (!msg.spectator && msg.game.mode === "friend" && !msg.game.opponent_joined) return t("game.your_friend");
  return opponentName(msg);
}

function myName(msg) {
  if (msg.spectator) return seatName(msg, seatOf(msg));
  return displayName(msg.game.names?.[seatOf(msg)], seatOf(msg));
}

// ---- the feed: state messages shown one at a time -------------------------------------------------

function onState(msg) {
  feed.queue.push(msg);
  pump();
  root.dataset.busy = feed.timer && feed.queue.length ? "true" : "false";
}

/** Show queued messages in order; an opponent's move holds the next one back for the pace. */
function pump() {
  while (!feed.timer && feed.queue.length && !scoring.open) {
    const msg = feed.queue.shift();
    const before = ui.msg;
    show(msg);
    if (!ui.msg) return; // a rematch took the page elsewhere
    const hold = holdFor(before, msg);
    if (hold > 0 && !scoring.open) {
      feed.timer = setTimeout(() => {
        feed.timer = null;
        root.dataset.busy = "false";
        pump();
        render();
      }, hold);
    }
  }
  root.dataset.busy = feed.timer && feed.queue.length ? "true" : "false";
  render();
}

/** The opponent's moves stay on show for the pace; the player's own move for half of it. A
 * spectator's table, with more moves waiting, shows each for a share of the pace: it catches up
 * with the game instead of falling behind it. */
function holdFor(before, msg) {
  if (!before) return 0;
  const added = msg.view.history.slice(before.view.history.length);
  if (!added.length || msg.view.round !== before.view.round) return 0;
  const pace = msg.spectator && feed.queue.length > 1 ? Math.round(paceMs() / feed.queue.length) : paceMs();
  if (added.some((e) => !e.reveal && (e.seat !== msg.view.seat || msg.spectator))) return pace;
  return feed.queue.length ? Math.round(pace / 2) : 0;
}

/** Show everything that waits in the feed at once (a click or a key while moves are paced). */
function skipAhead() {
  if (!feed.timer) return;
  clearTimeout(feed.timer);
  feed.timer = null;
  const last = feed.queue.pop();
  feed.queue.length = 0;
  if (last) show(last, { still: true });
  root.dataset.busy = "false";
  render();
}

/** Take msg as the table's state: what is fresh, what to animate, the scoring to play. */
function show(msg, { still = false } = {}) {
  const before = ui.msg;
  if (msg.spectator && msg.arrived !== undefined) clockReceived(msg, msg.arrived);
  const from = before && !still ? sources() : null;
  ui.msg = msg;
  const seat = seatOf(msg);
  const other = otherOf(msg);
  if (!before || before.view.hand !== msg.view.hand || before.view.round !== msg.view.round) ui.selected.clear();
  if (!before || before.game.version !== msg.game.version) {
    // an undo: the same round, moved on, with fewer moves in it (said in the status until the next
    // move; the log only lost lines)
    ui.undone = Boolean(
      before && before.view.round === msg.view.round && msg.view.history.length < before.view.history.length,
    );
    ui.sent = false;
    ui.hint = null;
    ui.hintAsked = false;
    ui.action = null; // a pressed action never outlives the decision it was for
    if (before) ui.error = null;
  }
  // reconnected with this browser's session as it is now: that the old one ended is past news
  if (ui.error?.code === "signed-out") ui.error = null;
  const sameRound = before && before.view.round === msg.view.round;
  const had = (s, a) => before.view.actions_left[s].includes(a);
  const has = (s, a) => msg.view.actions_left[s].includes(a);
  ui.fresh = {
    near: sameRound ? minus(msg.view.played[seat], before.view.played[seat]) : "",
    far: sameRound ? minus(msg.view.played[other], before.view.played[other]) : "",
    oppSecret: Boolean(sameRound && had(other, "S") && !has(other, "S")),
    oppDiscard: Boolean(sameRound && had(other, "D") && !has(other, "D")),
    mySecret: Boolean(sameRound && had(seat, "S") && !has(seat, "S")),
    myDiscard: Boolean(sameRound && had(seat, "D") && !has(seat, "D")),
    offer: Boolean(msg.view.offer && (!before || before.view.offer !== msg.view.offer)),
    log: before ? Math.max(0, msg.view.history.length - before.view.history.length) : 0,
  };
  const seen = scoringsSeen(msg);
  if (msg.scorings.length < seen) saveScoringsSeen(msg.scorings.length); // an undo took a scoring back
  if (msg.scorings.length < ui.scoringsShown) ui.scoringsShown = msg.scorings.length;
  if (msg.scorings.length > seen && msg.scorings.length > ui.scoringsShown) {
    // Marked as seen only once the player has watched them (a reload meanwhile shows them again).
    scoring.show(msg.scorings.slice(Math.max(seen, ui.scoringsShown)), seat);
    ui.scoringsShown = msg.scorings.length;
  }
  if (msg.game.rematch && ui.rematchAsked) {
    ui.msg = null;
    location.assign(msg.game.rematch);
    return;
  }
  render();
  if (from) animate(from);
  if (before && ui.fresh.log) playSound("card");
  const nowMine = myDecision(msg) && !(before && myDecision(before) && before.game.version === msg.game.version);
  if (nowMine) turnArrived();
}

/** Where the cards were before a re-render: the hand's cards, the offer's, the hands, the pile. */
function sources() {
  const byCard = (selector) => {
    const out = {};
    for (const node of $$(selector)) {
      const c = node.dataset.card;
      (out[c] ||= []).push(rectOf(node));
    }
    return out;
  };
  return {
    hand: byCard("#hand .card"),
    offer: byCard("#offer [data-card]"),
    oppHand: rectOf($("#opp-hand")),
    nearHand: rectOf($("#near-hand")), // a spectator's near seat
    pile: rectOf($("#pile")),
  };
}

/** The fresh cards travel from where they were: the offer, a hand, the pile. */
function animate(from) {
  const ms = reducedMotion() ? 0 : TRAVEL_MS;
  if (!ms) return;
  const take = (table, card) => table[card]?.shift() || null;
  for (const node of $$("#board .side .pcard.fresh")) {
    const far = node.parentElement.classList.contains("far");
    const card = node.dataset.card;
    travel(node, take(from.offer, card) || (far ? from.oppHand : take(from.hand, card) || from.nearHand), ms);
  }
  for (const node of $$("#offer .offer-cards [data-card], #offer .pick [data-card]")) {
    if (!ui.fresh.offer) break;
    const mine = ui.msg.view.to_move !== ui.msg.view.seat;
    travel(node, mine ? take(from.hand, node.dataset.card) : from.oppHand, ms);
  }
  if (ui.fresh.oppSecret) for (const node of $$("#opp-secret .pcard")) travel(node, from.oppHand, ms);
  if (ui.fresh.oppDiscard) for (const node of $$("#opp-discard .pcard")) travel(node, from.oppHand, ms);
  if (ui.fresh.mySecret) for (const node of $$("#my-secret .pcard")) travel(node, take(from.hand, node.dataset.card), ms);
  if (ui.fresh.myDiscard) for (const node of $$("#my-discard .pcard")) travel(node, take(from.hand, node.dataset.card), ms);
  if (ui.fresh.mySecret) for (const node of $$("#near-secret .pcard")) travel(node, from.nearHand, ms);
  if (ui.fresh.myDiscard) for (const node of $$("#near-discard .pcard")) travel(node, from.nearHand, ms);
  const drawn = $("#hand .card.drawn");
  if (drawn && ui.fresh.log) travel(drawn, from.pile, ms);
}

/** It became this seat's decision: focus where it is made, tell a player who is elsewhere. */
function turnArrived() {
  if (feed.queue.length || scoring.open) return; // told when the feed has caught up
  focusDecision();
  requestAnimationFrame(boardFootAboveDock);
  // an offer to pick from keeps its choices' foot in view (they are under the hand)
  requestAnimationFrame(() => geishaAboveHand(myPick(ui.msg) && !$("#offer").hidden ? $("#offer") : undefined));
  requestAnimationFrame(() => requestAnimationFrame(keepTableInView));
  playSound("turn");
  notifyTurn();
}

function focusDecision() {
  const msg = ui.msg;
  if (!msg || !myDecision(msg) || scoring.open) return;
  const active = document.activeElement;
  // A player typing elsewhere (the language, the invitation link, a setting) keeps their place.
  if (active && active !== document.body && active.closest("select, input, textarea, details[open], .result, dialog[open]")) return;
  const target = myPick(msg)
    ? $("#offer button.pick:not(:disabled)")
    : $("#choices button[data-move]:not(:disabled)") || $("#hand .card.drawn") || $("#hand .card");
  target?.focus({ preventScroll: false });
}

function notifyTurn() {
  if (!document.hidden || !prefs().notify || typeof Notification === "undefined") return;
  if (Notification.permission !== "granted") return;
  try {
    const note = new Notification(t("notify.title"), { body: t("notify.body", { name: opponentName(ui.msg) }), tag: `hanamikoji-${gameId}`, icon: "/static/img/icon.svg" });
    note.onclick = () => {
      window.focus();
      note.close();
    };
  } catch {
    /* notifications not available here */
  }
}

function scoringKey() {
  return `hanamikoji.scorings.${gameId}`;
}

function scoringsSeen(msg) {
  try {
    const value = localStorage.getItem(scoringKey());
    if (value === null) {
      localStorage.setItem(scoringKey(), String(msg.scorings.length));
      return msg.scorings.length;
    }
    return Number(value) || 0;
  } catch {
    return ui.scoringsSeen ?? (ui.scoringsSeen = msg.scorings.length);
  }
}

function saveScoringsSeen(n) {
  ui.scoringsSeen = n;
  try {
    localStorage.setItem(scoringKey(), String(n));
  } catch {
    /* kept in memory only */
  }
}

function onMessage(msg) {
  if (chat?.handle(msg)) return;
  if (msg.type === "state") ui.stalled = false; // the server speaks again: the table is its own
  if (msg.type === "state" && msg.spectator) msg = asTable(msg); // drawn as a table, seat 0 near
  // the clocks as the server sent them, now; a spectator's with the board they go with (shown
  // move by move while it catches up), counted from when they came all the same
  if (msg.type === "state" && msg.spectator) msg.arrived = performance.now();
  else if (msg.type === "state") clockReceived(msg);
  if (msg.type === "state") onState(msg);
  else if (msg.type === "hint") {
    if (ui.msg && msg.version !== ui.msg.game.version) return; // for a decision already gone
    ui.hint = msg;
    ui.hintAsked = false;
    applyHint(msg);
    render();
    focusSuggestion();
  } else if (msg.type === "error") {
    if (msg.code === "bad-token" && !ui.msg && !ui.watching) return watch();
    if (msg.code === "signed-out") ui.signedOut = true; // the session ended: the page reconnects
    // no seat once reconnected: because the seat's account was deleted (its last state said
    // so: it will never open again, from anywhere), or the account's session here ended (a
    // sign-in opens it again), not a wrong link
    const gone = ui.msg && !ui.msg.spectator && Boolean(ui.msg.game.deleted?.[seatOf(ui.msg)]);
    const code = msg.code !== "bad-token" ? msg.code : gone ? "account-deleted" : ui.signedOut ? "signed-out-final" : msg.code;
    // Signed out elsewhere (a password changed on another device: this one may be a shared
    // computer left signed in), or the account deleted: the table forgets the seat's own
    // cards, which its account's owner may no longer be looking at.
    if ((code === "signed-out-final" || code === "account-deleted") && ui.msg) ui.msg = withoutPrivateCards(ui.msg);
    showError({ code, message: msg.message });
    // a rematch refused (a bot gone, a disabled opponent): the button is the player's again
    if (ui.rematchAsked && ui.msg?.game.status === "over" && !ui.msg.game.rematch) ui.rematchAsked = false;
    ui.sent = false;
    ui.hintAsked = false;
    if (FINAL.includes(msg.code)) ui.conn = msg.code;
    render();
    if (FINAL.includes(msg.code) && !ui.msg) $("#no-seat-title").focus();
  }
}

/** ``msg`` without what only its seat may see: its hand, Secret and Discard, its legal moves. */
function withoutPrivateCards(msg) {
  const view = { ...msg.view, hand: "", secret: null, discard: null };
  ui.selected.clear();
  return { ...msg, view, legal: [], drawn: null };
}

/** No seat opens here: the page becomes the spectator's table, on a spectator's socket. */
function watch(handlers = socket.handlers) {
  ui.watching = true;
  ui.conn = "connecting";
  ui.error = null;
  if (!FINAL.includes("too-many")) FINAL.push("too-many"); // a spectator over the limits: final too
  socket?.close();
  socket = new GameSocket(gameId, null, handlers, { watch: true });
  render();
}

/** Whether the server says that no seat opens here (`GET /api/games/{id}/seat`): the page then
 * watches from the start, instead of opening a seat's socket only to be refused (`bad-token`).
 * When it cannot say (offline, an older server), the seat's socket decides, as it always did. */
async function noSeatHere() {
  const query = token ? `?t=${encodeURIComponent(token)}` : "";
  try {
    const answer = await getJSON(`/api/games/${encodeURIComponent(gameId)}/seat${query}`);
    return answer.ok && answer.body?.seat === null;
  } catch {
    return false;
  }
}

/** A hint asked from the keyboard: the focus goes to the suggested move's button, to confirm
 * it with Enter (the Hint button, off while the AI thought, had let the focus fall to the page). */
function focusSuggestion() {
  const at = document.activeElement;
  if (at && at !== document.body && at.id !== "hint") return; // the player has gone on elsewhere
  const button = document.querySelector("#choices button.move.suggested, #offer button.pick.suggested");
  (button ?? $("#hint"))?.focus();
}

/** Highlight the suggested move: select its cards and action so its button shows. */
function applyHint(hint) {
  const msg = ui.msg;
  if (!msg || !myDecision(msg) || !hint.move) return;
  const m = parseMove(hint.move);
  if (m.kind === "P") return; // the offer's button is highlighted when rendering
  ui.selected.clear();
  const taken = new Set();
  for (const card of m.cards) {
    const i = [...msg.view.hand].findIndex((c, k) => c === card && !taken.has(k));
    if (i >= 0) taken.add(i);
  }
  for (const i of taken) ui.selected.add(i);
  ui.action = m.kind;
}

// ---- outgoing -----------------------------------------------------------------------------------

/** Show an error for a while (it also goes when the game moves on). */
function showError(error) {
  ui.error = error;
  clearTimeout(ui.errorTimer);
  if (FINAL.includes(error.code)) return; // stays: nothing more will happen
  ui.errorTimer = setTimeout(() => {
    if (ui.error === error) {
      ui.error = null;
      render();
    }
  }, 12000);
}

function send(message) {
  // While the device is offline an open socket takes a message and may drop it unsent: said
  // so instead (a move is watched for its answer: play() sends it all the same).
  if (message.type !== "move" && deviceOffline()) {
    showError({ code: "offline" });
    render();
    return false;
  }
  if (socket && socket.send(message)) return true;
  showError({ code: "offline" });
  render();
  return false;
}

function play(move) {
  if (ui.sent || !ui.msg || !canDecide(ui.msg)) return;
  if (send({ type: "move", move, version: ui.msg.game.version })) {
    ui.sent = true;
    ui.error = null;
    expectAnswer();
    render();
  }
}

/** Ask the server for a hint on this seat's decision (the Hint button, the guide). */
function askHint() {
  if (!ui.msg || !canDecide(ui.msg) || ui.hintAsked) return;
  if (send({ type: "hint" })) {
    ui.hintAsked = true;
    ui.hint = null;
    expectAnswer();
    render();
  }
}

/** Watch for the answer to what was just sent (a move, a hint request). */
function expectAnswer() {
  clearTimeout(answer.timer);
  answer.heard = null;
  answer.timer = setTimeout(checkAnswer, ANSWER_TIMEOUT_MS);
}

/** The answer is late: a move's means the connection stalled; a hint may be a long search, so the
 * server is pinged, and only a connection that stays silent for as long again has stalled. */
function checkAnswer() {
  answer.timer = null;
  if (ui.sent) return stalled();
  if (!ui.hintAsked || !socket) return; // answered
  if (answer.heard !== null && socket.heard === answer.heard) return stalled();
  answer.heard = socket.heard;
  socket.send({ type: "ping" });
  answer.timer = setTimeout(checkAnswer, ANSWER_TIMEOUT_MS);
}

/** No answer came: say so, and drop the connection for a new one (GameSocket's retries). The server
 * then sends the table as it is: the move played, or the decision still open (a move carries the
 * version it was decided on, so the same move sent again is refused, never played twice). */
function stalled() {
  ui.stalled = true;
  socket?.reconnect(); // its close handler: nothing awaited any more, the connection "lost"
  render();
}

// ---- rendering ----------------------------------------------------------------------------------

function render() {
  keepFocus(renderAll);
}

function renderAll() {
  renderNotices();
  const msg = ui.msg;
  const noSeat = !msg && FINAL.includes(ui.conn);
  renderNoSeat(noSeat);
  if (!msg) return;
  const { view, game } = msg;
  root.dataset.status = game.status;
  root.dataset.history = String(view.history.length);
  root.dataset.toMove = toMove(msg);
  root.dataset.legal = canDecide(msg) ? msg.legal.join(" ") : "";
  root.dataset.mode = game.mode;
  root.dataset.role = msg.spectator ? "spectator" : "player";
  renderWatching(msg);
  root.dataset.phase = view.phase;
  root.dataset.scoring = scoring.open ? "true" : "false";
  document.title = myDecision(msg) ? `● ${t("status.title_turn")} – ${t("game.page_title")}` : t("game.page_title");
  const progress = scoring.progress();
  const markers = progress ? progress.markers : view.markers;
  // behind a scoring, the round being scored (the next one is dealt already)
  const played = progress ? progress.played : view.played;
  renderScorebar(msg, progress);
  renderOpponent(msg);
  renderBoard($("#board"), {
    markers,
    near: played[view.seat],
    far: played[1 - view.seat],
    freshNear: progress ? "" : ui.fresh.near,
    freshFar: progress ? "" : ui.fresh.far,
    nearSeat: view.seat,
    nearName: msg.spectator ? spokenName(msg, view.seat) : undefined, // undefined: "you" (board.js)
    farName: msg.spectator ? spokenName(msg, 1 - view.seat) : opponentName(msg),
  });
  renderMine(msg);
  renderOffer(msg);
  renderPanel(msg);
  chat?.update(cutOff() ? null : msg); // a seat cut off has nobody to talk as
  guide?.update(msg, { selected: selectedCards(msg), action: ui.action, hint: ui.hint, hintAsked: ui.hintAsked, over: resultShown(msg) });
  rove();
}

/** The game is over on the page only once its last scoring has been watched. */
function shownOver(msg) {
  return msg.game.status === "over" && !scoring.open;
}

function renderNoSeat(noSeat) {
  root.classList.toggle("is-no-seat", noSeat);
  const box = $("#no-seat");
  box.hidden = !noSeat;
  if (!noSeat) return;
  if (ui.conn === "too-many") {
    $("#no-seat-title").textContent = t("watch.full_title");
    $("#no-seat-text").textContent = t("watch.full_text");
    return;
  }
  const why = ui.conn === "not-found" ? "not_found" : ui.conn === "replaced" ? "replaced" : "no_seat";
  $("#no-seat-title").textContent = t(`no_seat.${why}_title`);
  $("#no-seat-text").textContent = ui.conn === "disabled" ? t("errors.disabled") : t(`no_seat.${why}_text`);
}

/** A spectator's banner: who plays whom, each name with its mark, as in the scorebar (js/who.js). */
function renderWatching(msg) {
  $("#watching").hidden = !msg.spectator;
  if (!msg.spectator) return;
  const [a, b] = [0, 1].map((s) => markedName(seatName(msg, s), seatMark(msg, s)));
  fill($("#watching-names"), sentence("watch.vs", {}, { a, b }));
}

function renderNotices() {
  const conn = $("#conn");
  let text = {
    connecting: t("conn.connecting"),
    lost: t("conn.lost"),
    failed: t("conn.failed"),
  }[ui.conn]; // bad-token, not-found and replaced: the page says it
  // An answer that never came: said until the server's state comes again (on a new connection).
  const stall = ui.stalled && ["open", "connecting", "lost"].includes(ui.conn);
  conn.classList.toggle("stalled", stall);
  if (stall) text = t("conn.stalled");
  // the device's own network is down: said so, not "the server does not answer" (the page
  // reconnects once it is back)
  if (deviceOffline() && !FINAL.includes(ui.conn)) text = t("conn.offline");
  conn.hidden = !text;
  conn.textContent = text || "";
  const error = $("#error");
  const noSeat = !ui.msg && FINAL.includes(ui.conn);
  if (ui.error && !noSeat) {
    const key = `errors.${ui.error.code}`;
    let text = t(key);
    if (text === key) text = clockError(ui.error.code) ?? (ui.error.message || t("errors.unknown"));
    // "not-allowed" answers many refusals (a claim too early, an opponent still connected): on a
    // page in English the server's own reason says which; in another language our words.
    if (ui.error.code === "not-allowed") text = reasonOf({ code: ui.error.code, error: ui.error.message });
    error.textContent = text;
    error.hidden = false;
  } else {
    error.textContent = "";
    error.hidden = true;
  }
}

/** Whether seat s starts the round on show (behind a scoring, the next round's start is not yet). */
const startsNow = (msg, s) => msg.view.first === s && playing(msg) && !scoring.open;

function standing(msg, s, charm, geisha, name, id) {
  const first = startsNow(msg, s);
  const needCharm = Math.max(0, WIN_CHARM - charm);
  const needGeisha = Math.max(0, WIN_GEISHA - geisha);
  const pips = [];
  for (let i = 0; i < WIN_GEISHA; i++) pips.push(h("span", { class: `pip${i < geisha ? " on" : ""}` }));
  return [
    h("span", { class: "who", id, text: isolate(name) }),
    clockFor(msg, s, name),
    first ? h("span", { class: "first-tag", text: t("game.starts_round"), title: t("game.starts_round_long") }) : null,
    h(
      "span",
      { class: "meter charm", title: t("game.charm_of", { charm, max: WIN_CHARM }) },
      // past the goal, no "12/11": the count and a tick (the title still says what wins)
      h("span", { class: "meter-text", text: charm >= WIN_CHARM ? t("game.charm_reached", { charm }) : t("game.charm_short", { charm, max: WIN_CHARM }) }),
      h("span", { class: "bar", "aria-hidden": "true" }, h("span", { style: `width: ${Math.min(100, (100 * charm) / WIN_CHARM)}%` })),
    ),
    h(
      "span",
      { class: "meter geisha", title: t("game.geisha_of", { geisha, max: WIN_GEISHA }) },
      h("span", { class: "meter-text", text: geisha >= WIN_GEISHA ? t("game.geisha_reached", { geisha }) : t("game.geisha_short", { geisha, max: WIN_GEISHA }) }),
      h("span", { class: "pips", "aria-hidden": "true" }, pips),
    ),
    playing(msg) || scoring.open ? h("span", { class: "needs", text: t("game.needs", { charm: needCharm, geisha: needGeisha }) }) : null,
  ];
}

function renderScorebar(msg, progress) {
  const { view, game } = msg;
  const seat = view.seat;
  const other = 1 - seat;
  const max = game.rules?.max_rounds;
  const round = progress ? progress.round : view.round;
  $("#round").textContent = max ? t("game.round_of", { round, max }) : t("game.round", { round });
  // a timed game says its clock and whether it is rated, at the table as in the lobby
  if (game.control && game.control !== "none") {
    const kind = `${controlText(game.control)} · ${t(game.rated ? "profile.rated" : "profile.casual")}`;
    $("#round").append(h("span", { class: "game-kind", "data-rated": String(Boolean(game.rated)), text: ` · ${kind}` }));
  }
  const now = progress ?? standingOf(view.markers);
  const charm = progress ? progress.charm : view.charm;
  fill($("#my-standing"), standing(msg, seat, charm[seat], now.geisha[seat], myName(msg), "my-name"));
  fill($("#opp-standing"), standing(msg, other, charm[other], now.geisha[other], opponentLabel(msg), "opp-name"));
  // a bot (docs/bots.md): the opponent's seat, or either for a spectator
  if (msg.game.bots?.[other]) $("#opp-name")?.append(" ", botBadge());
  if (msg.game.bots?.[seat]) $("#my-name")?.append(" ", botBadge());
  // beside a name anyone may type, what tells an account from a guest (js/who.js)
  const [myMark, oppMark] = [seatMark(msg, seat), seatMark(msg, other)];
  if (myMark) $("#my-name")?.after(markNode(myMark));
  if (oppMark) $("#opp-name")?.after(markNode(oppMark));
  $("#my-standing").setAttribute("aria-label", standingLabel(markedText(myName(msg), myMark), charm[seat], now.geisha[seat], startsNow(msg, seat)));
  $("#opp-standing").setAttribute("aria-label", standingLabel(markedText(opponentLabel(msg), oppMark), charm[other], now.geisha[other], startsNow(msg, other)));
  for (const id of ["#my-standing", "#opp-standing"]) $(id).setAttribute("role", "group");
}

function standingLabel(name, charm, geisha, first) {
  const text = t("game.standing_label", { name, charm, geisha, needCharm: Math.max(0, WIN_CHARM - charm), needGeisha: Math.max(0, WIN_GEISHA - geisha) });
  return first ? `${text} ${t("game.starts_round_long")}` : text;
}

function backs(n, fresh = false, label = null) {
  const nodes = [];
  for (let i = 0; i < n; i++) nodes.push(h("span", { class: `pcard${fresh ? " fresh" : ""}` }, backSvg()));
  if (label) nodes.push(h("span", { class: "count", text: label }));
  return nodes;
}

function tokens(left) {
  return ACTIONS.map((a) => {
    const used = !left.includes(a);
    const label = `${t(`actions.${a}.name`)}: ${used ? t("game.used") : t("game.available")}`;
    return h("span", { class: `token${used ? " used" : ""}`, "data-token": a, title: label, role: "img", "aria-label": label }, actionSvg(a, used));
  });
}

function renderOpponent(msg) {
  const { view } = msg;
  const other = 1 - view.seat;
  const oppHand = $("#opp-hand");
  fill(oppHand, backs(Math.min(view.opponent_hand, 7), false, String(view.opponent_hand)));
  oppHand.setAttribute("aria-label", t("game.opp_hand_count", { n: view.opponent_hand }));
  oppHand.setAttribute("role", "img");
  const secretUsed = !view.actions_left[other].includes("S") && playing(msg);
  const discardUsed = !view.actions_left[other].includes("D") && playing(msg);
  fill($("#opp-secret"), secretUsed ? backs(1, ui.fresh.oppSecret) : []);
  fill($("#opp-discard"), discardUsed ? backs(2, ui.fresh.oppDiscard) : []);
  for (const id of ["#opp-secret", "#opp-discard"]) $(id).setAttribute("role", "img");
  $("#opp-secret").setAttribute("aria-label", secretUsed ? t("game.opp_secret_played") : t("game.no_secret"));
  $("#opp-discard").setAttribute("aria-label", discardUsed ? t("game.opp_discard_played") : t("game.no_discard"));
  fill($("#opp-actions"), tokens(view.actions_left[other]));
  const pile = $("#pile");
  fill(pile, backs(Math.min(view.deck, 1), false, String(view.deck)));
  pile.setAttribute("role", "img");
  pile.setAttribute("aria-label", t("game.pile_count", { n: view.deck }));
  $(".opp-area").classList.toggle("is-thinking", Boolean(msg.game.thinking));
  if (msg.spectator) renderNear(msg);
}

/** A spectator's table: the near seat's hidden cards and actions shown as the far seat's are, and
 * both seats' named. */
function renderNear(msg) {
  const { view } = msg;
  $("#near-holder").hidden = false;
  for (const [seat, where] of [[view.seat, "near"], [1 - view.seat, "opp"]]) {
    const name = spokenName(msg, seat);
    const n = msg.public.hand_sizes[seat];
    const secret = !view.actions_left[seat].includes("S") && playing(msg);
    const discard = !view.actions_left[seat].includes("D") && playing(msg);
    if (where === "near") {
      fill($("#near-hand"), backs(Math.min(n, 7), false, String(n)));
      fill($("#near-secret"), secret ? backs(1, ui.fresh.mySecret) : []);
      fill($("#near-discard"), discard ? backs(2, ui.fresh.myDiscard) : []);
      fill($("#near-actions"), tokens(view.actions_left[seat]));
    }
    for (const id of ["hand", "secret", "discard"]) $(`#${where}-${id}`).setAttribute("role", "img");
    $(`#${where}-hand`).setAttribute("aria-label", t("watch.hand_count", { name, n }));
    $(`#${where}-secret`).setAttribute("aria-label", secret ? t("watch.secret_played", { name }) : t("game.no_secret"));
    $(`#${where}-discard`).setAttribute("aria-label", discard ? t("watch.discard_played", { name }) : t("game.no_discard"));
  }
  $("#opp-title").textContent = spokenName(msg, 1 - view.seat);
  $("#my-title").textContent = spokenName(msg, view.seat);
}

function offerCards(cards) {
  return [...cards].map((c) => h("span", { class: "pcard", "data-card": c, role: "img", "aria-label": t("game.card_short", { g: c }) }, cardSvg(c)));
}

function pairs(m) {
  return [h("span", { class: "pair" }, offerCards(m.pairs[0])), h("span", { class: "or", "aria-hidden": "true", text: "|" }), h("span", { class: "pair" }, offerCards(m.pairs[1]))];
}

function renderOffer(msg) {
  const { view } = msg;
  const box = $("#offer");
  const shown = Boolean(view.offer && view.phase === "pick" && playing(msg));
  box.hidden = !shown;
  root.classList.toggle("has-offer", shown);
  if (!shown) {
    box.replaceChildren();
    return;
  }
  const m = parseMove(view.offer);
  const mine = view.to_move !== view.seat; // my offer, the opponent chooses
  if (msg.spectator) {
    const names = { name: spokenName(msg, 1 - view.to_move), other: spokenName(msg, view.to_move) };
    box.classList.toggle("fresh", ui.fresh.offer);
    fill(box, h("h2", { id: "offer-title", text: t(`watch.offer_${m.kind}`, names) }), h("div", { class: "offer-cards" }, m.kind === "C" ? pairs(m) : offerCards(m.cards)));
    return;
  }
  box.classList.toggle("fresh", ui.fresh.offer);
  box.classList.toggle("mine", mine);
  const title = h("h2", { id: "offer-title", text: mine ? t(`offer.mine_${m.kind}`) : t(`offer.theirs_${m.kind}_of`, { name: opponentName(msg) }) });
  if (mine) {
    fill(box, title, h("div", { class: "offer-cards" }, m.kind === "C" ? pairs(m) : offerCards(m.cards)), h("p", { class: "muted", text: t("offer.waiting_for", { name: opponentName(msg) }) }));
    return;
  }
  const picks = msg.legal.filter((move) => move[0] === "P");
  const buttons = picks.map((move) => {
    const cards = move.slice(1);
    const cls = `btn pick${ui.hint?.move === move ? " suggested" : ""}`;
    return h(
      "button",
      { type: "button", class: cls, "data-move": move, disabled: !canDecide(msg), "aria-label": moveLabel(move), onclick: () => play(move) },
      h("span", { class: "pick-cards" }, [...cards].map((c) => h("span", { class: "pcard", "data-card": c }, cardSvg(c)))),
      h("span", { class: "pick-label", text: moveLabel(move) }),
    );
  });
  const parts = [title];
  // the whole Gift is shown when equal cards make fewer buttons than cards
  if (m.kind === "G" && new Set(m.cards).size < m.cards.length) parts.push(h("div", { class: "offer-cards", role: "img", "aria-label": t("offer.cards", { cards: [...m.cards].join(", ") }) }, offerCards(m.cards)));
  parts.push(h("div", { class: "picks", role: "toolbar", "aria-labelledby": "offer-title" }, buttons));
  fill(box, parts);
  if (ui.fresh.offer) requestAnimationFrame(boardAboveDock);
}

/** On a short screen the pinned dock, the offer in it, can cover the board's lower half (your
 * side of each geisha) just when you choose what to take: bring the whole board into view above
 * the dock, once, as the offer arrives (a scroll the player makes later stays). */
function boardAboveDock() {
  if (getComputedStyle($(".my-area")).position !== "sticky") {
    geishaAboveHand($("#offer"));
    return;
  }
  const board = $("#board").getBoundingClientRect();
  const dock = $(".my-area").getBoundingClientRect();
  // The scrolls that show the whole board with the dock pinned under it: from the one that
  // puts the board's foot on the dock to the one that puts its head at the top (under a timed
  // game's score bar, pinned there too); the nearest. (A board too tall for the room keeps its
  // foot, your side, in view.)
  const low = scrollY + board.bottom - (innerHeight - dock.height);
  const high = scrollY + board.top - pinnedBar();
  const target = low > high ? low : Math.min(Math.max(scrollY, low), high);
  if (Math.abs(target - scrollY) > 1) window.scrollTo({ top: target > scrollY ? uncut(target) : target, behavior: reducedMotion() ? "auto" : "smooth" });
}

/** On a short screen (a phone on its side), where the dock is not pinned, as a decision or an
 * offer comes: the focus's scroll brings the hand (or the offer) into view and could leave the
 * geisha above the screen, under the pinned score bar. The page moves so that the geisha's row
 * is in view below that bar, as far as the hand's (or the offer's) foot stays in view too. */
function geishaAboveHand(keep = $("#hand")) {
  const dock = $(".my-area");
  const row = $$("#board .geisha-card").map((g) => g.getBoundingClientRect());
  if (!dock || !keep || !row.length || getComputedStyle(dock).position === "sticky") return;
  // The guided game's guide pinned under the status (css/guide.css) leaves no room for the
  // geisha's row above the hand: there the hand and the actions under it (what the guide tells
  // the player to use) come into view under the guide, the geisha a scroll away above.
  const guideBox = $("#guide:not([hidden])");
  const guided = guideBox && getComputedStyle(guideBox).position === "sticky";
  const actions = $("#my-actions");
  if (guided && keep === $("#hand") && actions?.getClientRects().length && actions.offsetHeight) keep = actions;
  const top = Math.min(...row.map((r) => r.top));
  const room = pinnedBar() + 4;
  const foot = keep.getBoundingClientRect().bottom;
  let by = 0; // down when positive
  if (guided && foot > innerHeight - 2) by = Math.min(foot - innerHeight + 4, Math.max(0, $("#hand").getBoundingClientRect().top - room));
  else if (top < room) by = -Math.min(room - top, Math.max(0, innerHeight - foot));
  else if (foot > innerHeight) by = Math.min(foot - innerHeight, top - room);
  // (under the guide, whole pixels towards the foot: a fraction rounded off left the actions' foot cut)
  if (Math.abs(by) > 1) window.scrollTo({ top: guided ? Math.ceil(scrollY + by) : scrollY + by, behavior: "auto" });
}

/** The height of what is pinned at the top: the score bar (a timed game's, in one column; any
 * game's on a phone on its side) and, on a phone on its side, the status's line under it (css). */
function pinnedBar() {
  const bar = $("#scorebar");
  let foot = bar && getComputedStyle(bar).position === "sticky" ? bar.offsetHeight : 0;
  const status = $("#status");
  const cs = status && getComputedStyle(status);
  if (cs && cs.position === "sticky") foot = Math.max(foot, (parseFloat(cs.top) || 0) + status.offsetHeight);
  // and on a phone on its side, the guided game's guide, pinned under the status (css/guide.css)
  const guideBox = $("#guide");
  const gs = guideBox && !guideBox.hidden && getComputedStyle(guideBox);
  if (gs && gs.position === "sticky") foot = Math.max(foot, (parseFloat(gs.top) || 0) + guideBox.offsetHeight);
  return foot;
}

/** A phone held upright, the dock (the hand, the actions) pinned at the bottom: as a decision
 * comes and as the dock grows while the player chooses (a selection's line, an offer, an error),
 * the page moves down, never up, so that the board's foot (your side of each geisha) stands above
 * the dock and Hint, Undo and Resign, under the table, are not cut at the screen's foot: as far
 * as the status's newest line stays in view at the top. Not while the guide is open above. */
function keepTableInView() {
  const dock = $(".my-area");
  const board = $("#board");
  const controls = $(".game-controls");
  const now = $("#status .now") || $("#status");
  if (!dock || !board || !ui.msg || !myDecision(ui.msg) || scoring?.open || !matchMedia("(max-width: 980px)").matches) return;
  if (getComputedStyle(dock).position !== "sticky" || $("#guide:not([hidden]):not(.folded)")) return;
  const d = dock.getBoundingClientRect();
  let by = board.getBoundingClientRect().bottom - d.top; // the board's foot above the dock
  const c = controls?.getClientRects().length ? controls.getBoundingClientRect() : null;
  // a row of buttons cut by the screen's foot comes wholly into view
  if (c && c.top < innerHeight && c.bottom > innerHeight) by = Math.max(by, c.bottom - innerHeight + 2);
  // under a pinned bar the status's whole box stays in view, its top edge too; with none, its line
  const edge = pinnedBar() ? $("#status") : now;
  const room = edge ? edge.getBoundingClientRect().top - pinnedBar() : by;
  const most = Math.max(0, room);
  by = Math.min(by, most);
  if (by > 1) window.scrollTo({ top: uncut(Math.min(Math.ceil(scrollY + by) + 1, Math.floor(scrollY + most))), behavior: "auto" });
}
/** The phone turned (upright, on its side): the page keeps its scroll, which can leave the
 * status's line above the screen or under the pinned score bar; it comes back into view under
 * the bar, then the table as far as it may (keepTableInView). */
function statusAfterTurn() {
  const status = $("#status");
  if (!status || !status.getClientRects().length) return;
  // the box is taller or shorter now: its lines scrolled again to what to do now
  showNow(status);
  markMoreAbove(status);
  if (!matchMedia("(max-width: 980px)").matches) return;
  if (getComputedStyle(status).position !== "sticky") {
    const bar = $("#scorebar");
    const room = bar && getComputedStyle(bar).position === "sticky" ? bar.offsetHeight : 0;
    // the box's top edge, not only its line, below a pinned bar
    const top = (room ? status : $("#status .now") || status).getBoundingClientRect().top - room - 4;
    if (top < 0) window.scrollTo({ top: Math.max(0, scrollY + top), behavior: "auto" });
  }
  keepTableInView();
}
for (const query of ["(orientation: portrait)", "(max-height: 560px)"]) {
  matchMedia(query).addEventListener?.("change", () => requestAnimationFrame(statusAfterTurn));
}
if (typeof ResizeObserver !== "undefined" && $(".my-area")) {
  let dockHeight = 0;
  new ResizeObserver(([entry]) => {
    const height = Math.round(entry.contentRect.height);
    if (height === dockHeight) return;
    dockHeight = height;
    requestAnimationFrame(keepTableInView);
  }).observe($(".my-area"));
}

/** As a decision arrives, on a phone: the status above the board grows with the opponent's news
 * and pushes the board's foot (your side of each geisha) under the pinned dock. The page moves
 * down just enough to show it above the dock; never up (a player further down stays there, and
 * the focus brings them to their hand), and not while the guide is open to be read above. */
function boardFootAboveDock() {
  const dock = $(".my-area");
  if (!dock || getComputedStyle(dock).position !== "sticky" || $("#guide:not([hidden]):not(.folded)")) return;
  const covered = $("#board").getBoundingClientRect().bottom - dock.getBoundingClientRect().top;
  if (covered > 1) window.scrollTo({ top: uncut(scrollY + covered), behavior: reducedMotion() ? "auto" : "smooth" });
}

/** A scroll of the page down to ``target`` that would leave a line of the score bar (the round,
 * a player's standing: not pinned in an untimed game) cut at the screen's top edge goes on to
 * that line's foot: the line is then wholly above the screen, not half in view. */
function uncut(target) {
  if (pinnedBar()) return target;
  for (const line of $$("#round, #opp-standing, #my-standing")) {
    const r = line.getBoundingClientRect();
    const top = scrollY + r.top;
    const bottom = scrollY + r.bottom;
    if (r.height && top < target - 1 && bottom > target + 1) target = Math.ceil(bottom);
  }
  return target;
}

function renderMine(msg) {
  const { view } = msg;
  const seat = view.seat;
  fill($("#my-secret"), view.secret ? offerCards(view.secret) : []);
  fill($("#my-discard"), view.discard ? offerCards(view.discard) : []);
  $("#my-secret").setAttribute("aria-label", view.secret ? t("game.your_secret_is", { card: view.secret }) : t("game.no_secret"));
  $("#my-discard").setAttribute("aria-label", view.discard ? t("game.your_discard_is", { cards: [...view.discard].join(", ") }) : t("game.no_discard"));
  $("#my-discard").setAttribute("role", "group");
  $("#my-secret").setAttribute("role", "group");

  // the hand: the card drawn this turn keeps its mark (the server says which, after a reload too)
  const suggested = ui.hint && myDecision(msg) && ui.hint.move[0] !== "P";
  const drawnAt = msg.drawn ? [...view.hand].lastIndexOf(msg.drawn) : -1;
  const cards = [...view.hand].map((g, i) => {
    const pressed = ui.selected.has(i);
    const isDrawn = i === drawnAt && myAction(msg);
    const cls = `card${isDrawn ? " drawn" : ""}${pressed && suggested ? " suggested" : ""}`;
    return h(
      "button",
      {
        type: "button", class: cls, "data-card": g, "data-index": i, "aria-pressed": pressed ? "true" : "false",
        "aria-label": t(isDrawn ? "game.card_label_drawn" : "game.card_label", { g, charm: charmOf(g) }),
        onclick: () => toggleCard(i),
      },
      cardSvg(g),
      isDrawn ? h("span", { class: "drawn-tag", "aria-hidden": "true", text: t("game.drawn") }) : null,
    );
  });
  fill($("#hand"), cards.length ? cards : h("span", { class: "muted", text: t("game.hand_empty") }));

  // the action buttons
  const canAct = myAction(msg) && canDecide(msg);
  const left = view.actions_left[seat];
  fill($("#my-actions"), ACTIONS.map((a) => {
    const used = !left.includes(a);
    const size = ACTION_SIZE[a];
    const label = used
      ? `${t(`actions.${a}.name`)}: ${t("game.used")}`
      : t("game.action_label", { action: t(`actions.${a}.name`), n: size });
    const cls = `btn action${ui.hint && ui.action === a && suggested ? " suggested" : ""}${used ? " used" : ""}`;
    return h(
      "button",
      {
        type: "button", class: cls, "data-action": a, disabled: used || !canAct,
        "aria-pressed": ui.action === a ? "true" : "false", "aria-label": label, title: t(`actions.${a}.short`),
        onclick: () => chooseAction(a),
      },
      actionSvg(a, used),
      h("span", { class: "action-name", text: t(`actions.${a}.name`) }),
      h("span", { class: "action-size", text: used ? t("game.used") : t("game.n_cards", { n: size }) }),
    );
  }));
  renderChoices(msg);
}

/** What the player waits for: the opponent playing, choosing from the offer, or coming back (an
 * opponent who is offline is not "playing"). */
function waitingWords(msg) {
  const name = opponentName(msg);
  const { game, view } = msg;
  // an invited friend who has not opened the link has no name yet ("Player 1" is a seat's)
  if (!msg.spectator && game.mode !== "ai" && !game.opponent_joined && inviteUrl(msg)) return t("status.waiting_friend");
  if (notYetCome(msg)) return t("status.waiting_for", { name });
  if (!msg.spectator && game.mode !== "ai" && game.opponent_joined && !game.opponent_online) return t("game.prompt_wait_offline", { name });
  return view.phase === "pick" && view.to_move !== view.seat ? t("game.prompt_wait_pick", { name }) : t("game.prompt_wait", { name });
}

/** Whether a friend's seat, already theirs (a rematch is made with both seats taken), has not
 * been come to yet: they are offline, and neither moved in this game nor was seen at it from
 * this browser. Until then the table says it waits for them to join, not that they are offline
 * (they may still be on the old game's result, docs/web.md). */
function notYetCome(msg) {
  const { game, view } = msg;
  if (msg.spectator || game.mode === "ai" || game.opponent_online || game.status === "over") return false;
  let came = false;
  try {
    came = localStorage.getItem(CAME_KEY) !== null;
  } catch {
    /* no storage: the moves alone say it */
  }
  return !came && !opponentMoved(msg);
}

function opponentMoved(msg) {
  return msg.view.history.some((entry) => !entry.reveal && entry.seat === 1 - msg.view.seat);
}

/** The mark that the opponent was seen at this game's table (js: notYetCome), kept with the time
 * it was made; needed only until they have moved or the game is over: then it is taken away. */
const CAME_KEY = `hanamikoji.came.${gameId}`;
const CAME_PREFIX = "hanamikoji.came.";
/** How long a mark is kept at most (a friend who came and left a day ago is simply offline). */
const CAME_KEPT_MS = 24 * 3600 * 1000;

function noteCome(msg) {
  if (msg.spectator) return;
  try {
    if (msg.game.status === "over" || opponentMoved(msg)) localStorage.removeItem(CAME_KEY);
    else if (msg.game.opponent_online && localStorage.getItem(CAME_KEY) === null) localStorage.setItem(CAME_KEY, String(Date.now()));
  } catch {
    /* no storage */
  }
}

/** Other games' marks older than a day, or without their time (as they were first kept), go: they
 * no longer piled up in the browser, one per friend's game ever played. */
function pruneCameMarks(now = Date.now()) {
  try {
    const stale = [];
    for (let i = 0; i < localStorage.length; i += 1) {
      const key = localStorage.key(i);
      if (!key?.startsWith(CAME_PREFIX) || key === CAME_KEY) continue;
      const at = Number(localStorage.getItem(key));
      if (!(at > 1) || now - at > CAME_KEPT_MS || at > now + CAME_KEPT_MS) stale.push(key);
    }
    for (const key of stale) localStorage.removeItem(key);
    if (localStorage.getItem(CAME_KEY) === "1") localStorage.setItem(CAME_KEY, String(now)); // this game's, as it was first kept
  } catch {
    /* no storage */
  }
}

/** The prompt and the move to confirm, right under the actions: every word about the player's move. */
function renderChoices(msg) {
  const box = $("#choices");
  if (cutOff()) {
    box.replaceChildren(); // the error under it says why nothing can be chosen
    return;
  }
  if (!myAction(msg)) {
    const waiting = playing(msg) && !myDecision(msg) && !scoring.open;
    fill(box, waiting ? h("p", { class: "prompt echo", text: waitingWords(msg) }) : hintEcho(msg));
    return;
  }
  if (scoring.open) {
    box.replaceChildren();
    return;
  }
  if (!canDecide(msg)) {
    const stalled = deviceOffline() ? t("conn.offline") : t("conn.stalled");
    const why = ui.stalled ? stalled : ui.sent ? t("game.prompt_sent") : t(touchScreen() ? "game.prompt_catching_up_touch" : "game.prompt_catching_up");
    fill(box, h("p", { class: `prompt${ui.stalled ? " stalled" : ""}`, text: why }));
    return;
  }
  const chosen = selectedCards(msg);
  if (!ui.action) {
    fill(box, h("p", { class: `prompt${chosen.length ? "" : " echo"}`, text: chosen.length ? t("game.prompt_action", { n: chosen.length }) : t("game.prompt_start") }));
    return;
  }
  const size = ACTION_SIZE[ui.action];
  const name = t(`actions.${ui.action}.name`);
  if (chosen.length !== size) {
    fill(box, h("p", { class: "prompt needs-cards", text: t("game.prompt_select", { n: size, action: name, selected: chosen.length }) }));
    return;
  }
  const moves = movesFor(ui.action, chosen).filter((m) => msg.legal.includes(m));
  if (!moves.length) {
    fill(box, h("p", { class: "prompt", text: t("game.prompt_illegal") }));
    return;
  }
  const intro = h("p", { class: "prompt", id: "choices-prompt", text: ui.action === "C" ? t("game.prompt_pairs") : t("game.prompt_confirm") });
  const buttons = moves.map((move) => {
    const m = parseMove(move);
    const cls = `btn primary move${ui.hint?.move === move ? " suggested" : ""}`;
    const content = m.kind === "C" ? pairs(m) : [h("span", { class: "move-label", text: confirmLabel(move) })];
    return h("button", { type: "button", class: cls, "data-move": move, disabled: ui.sent, "aria-label": confirmLabel(move), onclick: () => play(move) }, content);
  });
  fill(box, hintEcho(msg), intro, h("div", { class: "move-buttons", role: "toolbar", "aria-labelledby": "choices-prompt" }, buttons));
}

/** The hint's words again beside the move it suggests, for a narrow screen (css: shown there
 * only), where the hint's own box is at the top of the page, out of sight of the hand. */
function hintEcho(msg) {
  if (!ui.hint?.move || !myDecision(msg) || ui.hint.version !== msg.game.version) return null;
  return h("p", { class: "hint-echo", "aria-hidden": "true", text: t("hint.suggest", { move: moveLabel(ui.hint.move), p: percent(ui.hint.win_probability) }) });
}

function renderStatus(msg) {
  const { view, game } = msg;
  const seat = view.seat;
  const ai = game.mode === "ai";
  const over = shownOver(msg);
  const status = $("#status");
  const lines = [];
  // every move of the opponent since the player's own last one, in words, until the player acts
  const news = msg.spectator ? watchNews(msg) : sinceMyMove(view.history, seat);
  const fresh = ui.fresh.log;
  news.forEach((line, k) => {
    const isFresh = k >= news.length - fresh;
    lines.push(h("p", { class: `news${line.reveal ? " reveal" : " opp"}${isFresh ? " fresh" : ""}`, "data-index": line.index, text: line.text }));
  });
  if (ui.undone && !msg.spectator) lines.push(h("p", { class: "news undone", text: t("status.undone") }));
  let main;
  if (scoring.open) main = t("status.scoring", { round: scoring.progress().round });
  else if (over) main = t("status.over");
  else if (msg.spectator) main = game.thinking ? t("status.thinking_of", { name: spokenName(msg, view.to_move) }) : game.opponent_joined ? watchStatus(msg) : t("watch.waiting");
  // a link to send, or a rematch (of a lobby's game too) the other player is offered at their table
  else if (cutOff()) main = t("status.cut_off"); // why: the error under the hand
  else if (!ai && !game.opponent_joined) main = inviteUrl(msg) ? t("status.waiting_friend") : t("status.waiting_for", { name: opponentName(msg) });
  else if (game.thinking) main = t("status.thinking_of", { name: opponentName(msg) });
  else if (myAction(msg)) main = t("status.your_turn");
  else if (myPick(msg)) main = t("status.your_pick");
  else if (notYetCome(msg)) main = t("status.waiting_for", { name: opponentName(msg) });
  else if (toMove(msg) === "opponent") main = view.phase === "pick" ? t("status.their_pick_of", { name: opponentName(msg) }) : t("status.their_turn_of", { name: opponentName(msg) });
  else main = t("status.wait");
  const pacing = Boolean(feed.timer && feed.queue.length);
  lines.push(h("p", { class: `now${game.thinking ? " thinking" : ""}`, text: main }));
  if (pacing) lines.push(h("p", { class: "skip muted small", text: t(touchScreen() ? "status.skip_touch" : "status.skip") }));
  if (msg.spectator && !over) for (const s of [0, 1]) if (game.joined[s] && !game.online[s] && game.ai_seat !== s) lines.push(h("p", { class: "offline", text: t("watch.offline", { name: spokenName(msg, s) }) }));
  // offline in a correspondence game is the usual: said, not in red
  const daily = /d$/.test(game.control || "");
  noteCome(msg);
  if (!msg.spectator && !ai && game.opponent_joined && !game.opponent_online && !over && !notYetCome(msg)) lines.push(h("p", { class: daily ? "offline usual" : "offline", text: t("status.opp_offline") }));
  const before = status.textContent;
  fill(status, lines);
  // The last lines are the newest and what to do now: a box too short for every line (a phone's)
  // shows them, scrolled down to them again only when its words change.
  if (status.textContent !== before) showNow(status);
  status.classList.toggle("mine", myDecision(msg) && !pacing && !cutOff());
  keyboardScrollable(status);
  markMoreAbove(status);
}

/** Scroll the status (a phone's box, too short for all its lines) to its end, as far as the line
 * of what to do now stays in view below the top's fade (css: .more-above, --fade), its foot
 * always: a line after it ("tap to skip", the opponent offline) never pushes it out of sight. */
function showNow(status) {
  let top = status.scrollHeight;
  const lines = status.querySelector(".now")?.getClientRects(); // one a line when it is inline
  if (lines?.length) {
    const cs = getComputedStyle(status);
    const fade = (parseFloat(cs.getPropertyValue("--fade")) || 0) * parseFloat(cs.fontSize);
    const inside = status.getBoundingClientRect().top + status.clientTop - status.scrollTop; // the content's top
    const head = lines[0].top - inside - fade;
    const foot = lines[lines.length - 1].bottom - inside + (parseFloat(cs.paddingBottom) || 0) - status.clientHeight;
    top = Math.max(Math.ceil(foot), Math.floor(Math.min(top, head)));
  }
  status.scrollTop = Math.max(0, top);
}

// A box scrolled away from its top (the status on a phone, at its newest lines) says that there is
// more above: its top edge fades (css: .more-above), until it is scrolled back up.
function markMoreAbove(el) {
  if (el) el.classList.toggle("more-above", el.scrollTop > 1);
}
$("#status")?.addEventListener("scroll", (e) => markMoreAbove(e.currentTarget), { passive: true });

// A region that scrolls (the status on a phone, with many moves to tell) takes the keyboard's
// focus so that it can be scrolled without a mouse; one that does not is no extra tab stop.
function keyboardScrollable(el) {
  if (!el) return;
  if (el.scrollHeight > el.clientHeight + 1) el.tabIndex = 0;
  else el.removeAttribute("tabindex");
}
window.addEventListener("resize", () => {
  keyboardScrollable($("#status"));
  markMoreAbove($("#status"));
});

function renderPanel(msg) {
  const { game } = msg;
  const ai = game.mode === "ai";
  const over = game.status === "over";
  renderStatus(msg);

  // the invite link while the friend has not come
  const invite = $("#invite-box");
  const link = !ai && !game.opponent_joined && !over ? inviteUrl(msg) : null;
  invite.hidden = !link;
  if (link) $("#invite-link").value = link;
  share?.update(withdrawn(msg) ? null : msg); // a withdrawn invitation: nothing to watch or share
  $("#seat-link-box").hidden = cutOff(); // a seat cut off: no link opens it elsewhere

  // hint
  const hintText = $("#hint-text");
  if (ai && (ui.hint || ui.hintAsked) && !over) {
    hintText.hidden = false;
    if (ui.hintAsked && !ui.hint) fill(hintText, h("p", { text: t("hint.asking") }));
    else {
      const alt = (ui.hint.alternatives || []).map(([move, p]) => t("hint.alternative", { move: moveLabel(move), p: percent(p) }));
      fill(
        hintText,
        h("p", { class: "hint-main", text: t("hint.suggest", { move: moveLabel(ui.hint.move), p: percent(ui.hint.win_probability) }) }),
        alt.length ? h("p", { class: "muted", text: t("hint.others", { list: alt.join("; ") }) }) : null,
      );
    }
  } else {
    hintText.hidden = true;
    hintText.replaceChildren();
  }

  const hintButton = $("#hint");
  const undo = $("#undo");
  hintButton.hidden = !ai || game.rated || over || cutOff(); // a rated game has neither (the server refuses them)
  undo.hidden = !ai || game.control !== "none" || over || cutOff(); // nor any timed game (the clock cannot go back)
  needsServer(hintButton, !canDecide(msg) || game.thinking || ui.hintAsked);
  needsServer(undo, !game.can_undo || ui.sent || ui.stalled);
  const resign = $("#resign");
  resign.hidden = over || cutOff();
  needsServer(resign, ui.resignAsked);
  needsServer($("#resign-yes"), false);
  $("#resign-confirm").hidden = !ui.resignAsked || over;
  if (over) ui.resignAsked = false;

  renderResult(msg);
  renderLog(msg);
}

function renderLog(msg) {
  const { view } = msg;
  const seat = view.seat;
  const log = $("#log");
  const entries = msg.spectator ? watchLog(msg) : logEntries(view.history, seat);
  const freshFrom = view.history.length - ui.fresh.log;
  const items = entries.map(({ index, text }, k) => {
    const entry = view.history[index];
    const prev = entries[k - 1] && view.history[entries[k - 1].index];
    const cls = [entry.reveal ? "reveal" : entry.seat === seat ? "me" : "opp"];
    if (!prev || prev.round !== entry.round) cls.push("round-start");
    const answered = view.history[index + 1];
    if (index >= freshFrom || (answered && index + 1 >= freshFrom && "GC".includes(entry.move?.[0] ?? ""))) cls.push("fresh");
    return h("li", { class: cls.join(" "), "data-round": entry.round, "data-index": index, text });
  });
  const atBottom = log.scrollHeight - log.scrollTop - log.clientHeight < 40;
  fill(log, items);
  if (atBottom || ui.fresh.log) log.scrollTop = log.scrollHeight;
}

/** Why the game ended, with who: "Alice reached 11 charm", "after 3 rounds, 9 charm against 8". */
/** A forfeit in words: why, where the record's `why` says (a bot's engine that failed, an
 * account disabled, an untimed game's absent bot claimed), else plainly. */
function forfeitText(msg, winner) {
  const why = msg.result.why || "";
  const name = opponentName(msg);
  const side = winner === "me" ? "opp" : "me";
  const engine = /^seat \d: (crash|exit|garbage|illegal|timeout):/.exec(why);
  if (engine && side === "opp") return t("result.why.engine_opp", { name, failure: t(`result.engine.${engine[1]}`) });
  if (/ was disabled by the server's moderators$/.test(why)) return t(`result.why.disabled_${side}`, { name });
  if (/ left the game and the win was claimed/.test(why)) return t(`result.why.claimed_${side}`, { name });
  return side === "opp" ? t("result.why.forfeit_opp", { name }) : t("result.why.forfeit_me");
}

function reasonText(msg, winner) {
  const { result, view, game } = msg;
  const seat = view.seat;
  const other = 1 - seat;
  const names = [null, null];
  names[seat] = t("result.you");
  names[other] = opponentName(msg);
  const w = result.winner;
  const charm = result.charm ?? view.charm;
  const geisha = result.geisha ?? [0, 0];
  const rounds = game.rules?.max_rounds ?? view.round;
  switch (result.reason) {
    case "charm":
      // the loser's 4 geisha would have won, but charm counts first: say so
      if (geisha[1 - w] >= GEISHA_TO_WIN) {
        return winner === "me"
          ? t("result.why.charm_me_over_geisha", { name: names[other], charm: charm[w], geisha: geisha[other] })
          : t("result.why.charm_over_geisha", { name: names[w], charm: charm[w], geisha: geisha[seat] });
      }
      return t(winner === "me" ? "result.why.charm_me" : "result.why.charm", { name: names[w], charm: charm[w], other: charm[1 - w] });
    case "geisha":
      return t(winner === "me" ? "result.why.geisha_me" : "result.why.geisha", { name: names[w], geisha: geisha[w], other: geisha[1 - w] });
    case "round-limit":
      return t(winner === "me" ? "result.why_round_limit_me" : "result.why.round_limit", { rounds, name: names[w], charm: charm[w], other: charm[1 - w] });
    case "draw":
      return t("result.why.draw", { rounds, charm: charm[0] });
    case "resign":
      return winner === "me" ? t("result.why.resign_opp", { name: opponentName(msg) }) : t("result.why.resign_me");
    case "forfeit":
      return clockEnding(msg, winner, opponentName(msg)) ?? forfeitText(msg, winner);
    default:
      return "";
  }
}

/** A rated game's rating changes under its result, the player's own first ("Your rating: 1500 →
 * 1562 (+62) · Bob: 1500 → 1438 (−62)", "?" marking a provisional one); hidden for any other game. */
function renderRatingChanges(msg) {
  const line = $("#result-rating");
  const changes = msg.game.ratings;
  const seat = seatOf(msg);
  const order = msg.spectator ? [0, 1] : [seat, 1 - seat];
  const parts = order.filter((s) => changes?.[s]).map((s) => {
    const { before, after, provisional } = changes[s];
    const delta = after - before;
    const words = { before, after: `${after}${provisional ? "?" : ""}`, delta: delta > 0 ? `+${delta}` : delta < 0 ? `\u2212${-delta}` : "\u00b10" };
    return s === seat && !msg.spectator ? t("result.rating_mine", words) : t("result.rating_of", { name: s === seat ? myName(msg) : opponentName(msg), ...words });
  });
  line.hidden = parts.length === 0;
  line.textContent = parts.join(" \u00b7 ");
}

/** Whether the result is on show: the game over and its last scoring (and moves) watched. */
function resultShown(msg) {
  return Boolean(msg.result) && shownOver(msg) && !feed.queue.length;
}

function renderResult(msg) {
  const box = $("#result");
  const { result, game, view } = msg;
  if (!resultShown(msg)) {
    box.hidden = true;
    return;
  }
  const seat = view.seat;
  const other = 1 - seat;
  const winner = result.winner === null || result.winner === undefined ? "draw" : result.winner === seat ? "me" : "opponent";
  const appearing = box.hidden;
  box.hidden = false;
  box.dataset.winner = winner;
  box.dataset.reason = result.reason;
  $("#result-title").textContent = winner === "opponent" ? t("result.opponent_won", { name: opponentName(msg) }) : t(`result.${winner}`);
  $("#result-reason").textContent = reasonText(msg, winner);
  $("#result-score").textContent = t("result.score_of", {
    name: opponentName(msg),
    myCharm: result.charm?.[seat] ?? view.charm[seat], oppCharm: result.charm?.[other] ?? view.charm[other],
    myGeisha: result.geisha?.[seat] ?? 0, oppGeisha: result.geisha?.[other] ?? 0,
  });
  if (msg.spectator) {
    const words = watchResult(msg);
    $("#result-title").textContent = words.title;
    $("#result-reason").textContent = words.reason;
    $("#result-score").textContent = words.score;
  }
  // a game given up before any round was scored has no score to tell ("Charm: you 0, Anna 0"
  // read as if one had been counted): a scoring leaves its reveal in the history
  if (!(view.history || []).some((entry) => entry.reveal)) $("#result-score").textContent = "";
  const alone = withdrawn(msg);
  if (alone) {
    $("#result-title").textContent = t("result.withdrawn");
    $("#result-reason").textContent = msg.spectator ? t("result.withdrawn_watch") : t("result.withdrawn_text");
    $("#result-score").textContent = "";
  }
  renderRatingChanges(msg);
  $("#review-link").href = `/review/${encodeURIComponent(gameId)}`;
  $("#review-link").hidden = alone; // no move to review
  const rematch = $("#rematch");
  // nobody to play it with (the server refuses it: an account deleted, or disabled by the
  // moderators, which ended this game), or no socket to ask on
  const disabled = new RegExp(`^seat ${other} was disabled by the server's moderators$`).test(msg.result?.why || "");
  rematch.hidden = Boolean(game.deleted?.[other]) || disabled || cutOff() || alone;
  needsServer(rematch, ui.rematchAsked);
  rematch.textContent = ui.rematchAsked ? t("result.rematch_starting") : t("result.rematch");
  const offer = $("#rematch-offer");
  offer.hidden = !game.rematch || ui.rematchAsked;
  if (game.rematch) $("#rematch-link").href = game.rematch;
  if (appearing) queueMicrotask(() => $("#result-title").focus({ preventScroll: false }));
}

// ---- player input -------------------------------------------------------------------------------

function toggleCard(i) {
  if (ui.selected.has(i)) ui.selected.delete(i);
  else ui.selected.add(i);
  render();
  // the move is complete: its confirm button is where the decision goes on
  const msg = ui.msg;
  if (ui.action && msg && selectedCards(msg).length === ACTION_SIZE[ui.action]) focusChoice($("#choices [data-move]"));
}

/** Focus a move to confirm. Under the guided game's guide, pinned on a phone on its side
 * (css/guide.css), the focus's own scroll (to the middle of the screen) left the choices' row
 * under the guide or the hand above it: the page moves just enough to show the whole row of
 * choices under the guide instead. */
function focusChoice(button) {
  if (!button) return;
  const guideBox = $("#guide:not([hidden])");
  if (!guideBox || getComputedStyle(guideBox).position !== "sticky") {
    button.focus();
    return;
  }
  button.focus({ preventScroll: true });
  const row = $("#choices").getBoundingClientRect();
  const room = pinnedBar() + 4;
  let by = 0; // down when positive
  if (row.bottom > innerHeight - 4) by = Math.min(row.bottom - innerHeight + 4, row.top - room);
  else if (row.top < room) by = row.top - room;
  if (Math.abs(by) > 1) window.scrollTo({ top: Math.ceil(scrollY + by), behavior: "auto" });
}

/** Choose the action (choosing it again keeps it: Escape clears the selection). */
function chooseAction(a) {
  ui.action = a;
  render();
  focusChoice($("#choices [data-move]"));
}

// ---- the keyboard: each group is one tab stop ---------------------------------------------------
// The hand, the actions, an offer's choices and the moves to confirm are each one stop of Tab (a
// roving tabindex, as WAI-ARIA's toolbar): Tab goes group to group, and within a group the arrow
// keys (Home, End) move; Space or Enter then does what a click does. A group is entered again at
// the card or button last focused in it.

/** The groups, in the page's order. */
const GROUPS = ["#hand", "#offer .picks", "#my-actions", "#choices .move-buttons"];
/** Each group's item that Tab enters it at: its key (a hand card's index, an action, a move). */
const rovingAt = new Map();
const itemKey = (item) => item.dataset.move ?? item.dataset.action ?? item.dataset.index ?? "";

/** The group of a focused item, and its selector (null: not in a group). */
function groupOf(node) {
  for (const selector of GROUPS) {
    const group = node?.closest?.(selector);
    if (group && node.matches("button")) return { selector, group };
  }
  return null;
}

/** Give each group its one tab stop: the focused item, else the one last focused, else the first. */
function rove() {
  for (const selector of GROUPS) {
    const group = $(selector);
    if (!group) continue;
    const items = $$("button", group);
    const enabled = items.filter((b) => !b.disabled);
    const at = rovingAt.get(selector);
    const current = enabled.find((b) => b === document.activeElement) || enabled.find((b) => itemKey(b) === at) || enabled[0];
    for (const item of items) item.tabIndex = item === current ? 0 : -1;
  }
}

/** A focused item becomes its group's tab stop (by the arrows, a click, or the page's own focus). */
function roveTo(event) {
  const found = groupOf(event.target);
  if (!found) return;
  rovingAt.set(found.selector, itemKey(event.target));
  for (const item of $$("button", found.group)) item.tabIndex = item === event.target ? 0 : -1;
}

/** Arrow keys (Home, End) move within a group: the cards of the hand, the actions, the choices. */
function arrows(event) {
  const step = { ArrowLeft: -1, ArrowUp: -1, ArrowRight: 1, ArrowDown: 1 }[event.key];
  if (step === undefined && !["Home", "End"].includes(event.key)) return;
  if (event.altKey || event.ctrlKey || event.metaKey) return;
  const found = groupOf(event.target);
  if (!found) return;
  const items = $$("button:not(:disabled)", found.group);
  const i = items.indexOf(event.target);
  if (i < 0) return;
  const j = event.key === "Home" ? 0 : event.key === "End" ? items.length - 1 : i + step;
  items[(j + items.length) % items.length]?.focus();
  event.preventDefault();
}

function wirePrefs() {
  const p = prefs();
  const theme = $("#pref-theme");
  const pace = $("#pref-pace");
  const sound = $("#pref-sound");
  const notify = $("#pref-notify");
  theme.value = p.theme;
  pace.value = p.pace;
  sound.checked = p.sound;
  notify.checked = p.notify && typeof Notification !== "undefined" && Notification.permission === "granted";
  theme.addEventListener("change", () => setPref("theme", theme.value));
  pace.addEventListener("change", () => setPref("pace", pace.value));
  sound.addEventListener("change", () => {
    setPref("sound", sound.checked);
    if (sound.checked) playSound("turn"); // a sample, and browsers allow sound once a person clicked
  });
  notify.addEventListener("change", async () => {
    const note = $("#pref-notify-note");
    note.hidden = true;
    if (!notify.checked) {
      setPref("notify", false);
      return;
    }
    if (typeof Notification === "undefined") {
      notify.checked = false;
      note.textContent = t("prefs.notify_unsupported");
      note.hidden = false;
      return;
    }
    const answer = Notification.permission === "granted" ? "granted" : await Notification.requestPermission();
    notify.checked = answer === "granted";
    setPref("notify", notify.checked);
    if (!notify.checked) {
      note.textContent = t("prefs.notify_denied");
      note.hidden = false;
    }
  });
  document.addEventListener("click", (event) => {
    const box = $("#prefs");
    if (box.open && !box.contains(event.target)) box.open = false;
  });
}

function wire() {
  $("#hint").addEventListener("click", askHint);
  // the version it was decided on: a second window's undo of the same turn is a conflict, not a
  // second turn taken back
  $("#undo").addEventListener("click", () => send({ type: "undo", version: ui.msg.game.version }));
  $("#resign").addEventListener("click", () => {
    ui.resignAsked = true;
    render();
    $("#resign-no").focus();
  });
  $("#resign-no").addEventListener("click", () => {
    ui.resignAsked = false;
    render();
    $("#resign").focus();
  });
  $("#resign-yes").addEventListener("click", () => {
    ui.resignAsked = false;
    send({ type: "resign" });
    render();
  });
  $("#rematch").addEventListener("click", () => {
    if (ui.msg?.game.rematch) {
      location.assign(ui.msg.game.rematch);
      return;
    }
    if (send({ type: "rematch" })) {
      ui.rematchAsked = true;
      render();
    }
  });
  copyButton($("#copy-invite"), $("#invite-link"));
  share = new ShareBox(gameId, token);
  // offline: not sent, and the words stay in the box (an open socket would take and lose them)
  const chatSend = (message) => (deviceOffline() ? false : (socket?.send(message) ?? false));
  chat = new ChatBox($("#chat"), { send: chatSend, seatName });
  const chatPref = $("#pref-chat");
  chatOn().then((on) => {
    chatPref.checked = on;
    chat.setOn(on);
  });
  chatPref.addEventListener("change", () => {
    setChatOn(chatPref.checked)
      .then((on) => chat.setOn(on))
      .catch(() => (chatPref.checked = chat.on));
  });
  // A click or a key while the opponent's moves wait to be shown shows them at once. (Only then:
  // once all is shown, a click or a key is the player's own, and is never taken for a skip.)
  document.addEventListener("click", () => {
    if (feed.timer && feed.queue.length) skipAhead();
  }, true);
  document.addEventListener("keydown", (event) => {
    if (feed.timer && feed.queue.length && !["Shift", "Control", "Alt", "Meta", "Tab"].includes(event.key)) {
      skipAhead();
      if (event.key === " " || event.key === "Enter") event.preventDefault(); // the key was for skipping
      return;
    }
    arrows(event);
    const settings = $("#prefs");
    if (event.key === "Escape" && settings.open) {
      // Escape closes the settings, as it closes a dialog; the focus goes back to their button
      settings.open = false;
      $("summary", settings).focus();
      return;
    }
    if (event.key === "Escape" && ui.msg && !scoring.open) {
      ui.selected.clear();
      ui.action = null;
      render();
    }
  });
  document.addEventListener("focusin", roveTo);
  document.addEventListener("visibilitychange", () => {
    if (!document.hidden && ui.msg) render();
  });
  // the device's network going and coming: the notice says which (renderNotices)
  for (const change of ["online", "offline"]) window.addEventListener(change, () => render());
  wirePrefs();
}

async function main() {
  pruneCameMarks();
  await initI18n();
  scoring = new ScoringDialog($("#scoring"), {
    onDone: () => {
      if (ui.scoringsShown) saveScoringsSeen(ui.scoringsShown);
      render();
      pump();
      if (ui.msg && myDecision(ui.msg)) turnArrived();
    },
    onStep: () => {
      if (ui.msg) render();
    },
    names: () => {
      const msg = ui.msg;
      if (!msg) return {};
      if (!msg.spectator) return { near: t("board.you"), far: opponentName(msg), watching: false };
      return { near: spokenName(msg, msg.view.seat), far: spokenName(msg, 1 - msg.view.seat), watching: true };
    },
  });
  scoring.explain = (round, step, seat) => guide?.explainScoring(round, step, seat) ?? null;
  guide = Guide.forGame(gameId, { box: $("#guide"), askHint });
  initClocks({ claim: () => send({ type: "claim" }) });
  wire();
  onLanguageChange(() => {
    render();
    scoring.render();
  });
  render();
  const handlers = {
    open() {
      ui.conn = "open";
      ui.failures = 0;
      chat?.opened(ui.watching);
      render();
    },
    message: onMessage,
    stalled, // a ping unanswered while waiting: said, and reconnected, as for a late answer
    close(retrying) {
      if (FINAL.includes(ui.conn)) return render();
      ui.failures += 1;
      ui.conn = !retrying ? "failed" : ui.failures > 4 && !ui.msg ? "failed" : "lost";
      ui.sent = false;
      ui.hintAsked = false; // its answer went with the connection: it may be asked again
      clearTimeout(answer.timer);
      clockLost();
      render();
    },
  };
  if (await noSeatHere()) watch(handlers);
  else socket = new GameSocket(gameId, token, handlers);
}

main();
