// The game page: one seat's table, driven by the server's state messages over the WebSocket.

import { GameSocket, gameIdFromPath, tokenFromSearch } from "./api.js";
import { renderBoard } from "./board.js";
import { ACTION_SIZE, ACTIONS, actionSvg, backSvg, cardSvg, charmOf } from "./cards.js";
import { copyButton } from "./copy.js";
import { $, fill, h, keepFocus } from "./dom.js";
import { Guide } from "./guide.js";
import { initI18n, onLanguageChange, percent, t } from "./i18n.js";
import { minus, movesFor, parseMove, sortCards } from "./notation.js";
import { ScoringDialog } from "./scoring.js";
import { displayName, historyLines, moveLabel } from "./words.js";

const gameId = gameIdFromPath();
const token = tokenFromSearch();
const root = $("#game");

/** Everything the page shows is drawn from this. */
const ui = {
  msg: null, // the latest state message
  selected: new Set(), // indices into view.hand
  action: null, // the action button pressed (S, D, G, C)
  sent: false, // a move was sent and its answer is awaited
  hint: null, // the latest hint message
  hintAsked: false,
  fresh: { near: "", far: "", drawn: "", oppSecret: false, oppDiscard: false, offer: false, log: 0 },
  error: null, // {code, message}
  conn: "connecting", // connecting | open | lost | failed | bad-token | not-found | replaced
  failures: 0,
  resignAsked: false,
  rematchAsked: false,
};

/** Errors after which the socket stays closed: no seat, no game, or a newer window took over. */
const FINAL = ["bad-token", "not-found", "replaced"];

let socket = null;
let scoring = null;
let guide = null;

// ---- derived facts ------------------------------------------------------------------------------

const seatOf = (msg) => msg.view.seat;
const otherOf = (msg) => 1 - msg.view.seat;
const playing = (msg) => msg.game.status === "playing";
const myDecision = (msg) => playing(msg) && msg.view.to_move === msg.view.seat && msg.legal.length > 0;
const myAction = (msg) => myDecision(msg) && msg.view.phase === "action";
const myPick = (msg) => myDecision(msg) && msg.view.phase === "pick";

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

// ---- incoming messages --------------------------------------------------------------------------

function onState(msg) {
  const before = ui.msg;
  ui.msg = msg;
  const seat = seatOf(msg);
  const other = otherOf(msg);
  if (!before || before.view.hand !== msg.view.hand || before.view.round !== msg.view.round) ui.selected.clear();
  if (!myAction(msg)) ui.action = null;
  if (!before || before.game.version !== msg.game.version) {
    ui.sent = false;
    ui.hint = null;
    ui.hintAsked = false;
    if (before) ui.error = null;
  }
  const sameRound = before && before.view.round === msg.view.round;
  const had = (s, a) => before.view.actions_left[s].includes(a);
  const has = (s, a) => msg.view.actions_left[s].includes(a);
  ui.fresh = {
    near: sameRound ? minus(msg.view.played[seat], before.view.played[seat]) : "",
    far: sameRound ? minus(msg.view.played[other], before.view.played[other]) : "",
    drawn: sameRound && myAction(msg) && !myAction(before) ? minus(msg.view.hand, before.view.hand) : "",
    oppSecret: Boolean(sameRound && had(other, "S") && !has(other, "S")),
    oppDiscard: Boolean(sameRound && had(other, "D") && !has(other, "D")),
    offer: Boolean(msg.view.offer && (!before || before.view.offer !== msg.view.offer)),
    log: before ? Math.max(0, msg.view.history.length - before.view.history.length) : 0,
  };
  const seen = scoringsSeen(msg);
  if (msg.scorings.length < seen) saveScoringsSeen(msg.scorings.length); // an undo took a scoring back
  if (msg.scorings.length < (ui.scoringsShown ?? 0)) ui.scoringsShown = msg.scorings.length;
  if (msg.scorings.length > seen && msg.scorings.length > (ui.scoringsShown ?? 0)) {
    // Marked as seen only once the player has watched them (a reload meanwhile shows them again).
    scoring.show(msg.scorings.slice(Math.max(seen, ui.scoringsShown ?? 0)), seat, msg.game.names);
    ui.scoringsShown = msg.scorings.length;
  }
  if (msg.game.rematch && ui.rematchAsked) {
    location.assign(msg.game.rematch);
    return;
  }
  render();
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
  if (msg.type === "state") onState(msg);
  else if (msg.type === "hint") {
    ui.hint = msg;
    ui.hintAsked = false;
    applyHint(msg);
    render();
  } else if (msg.type === "error") {
    showError({ code: msg.code, message: msg.message });
    ui.sent = false;
    ui.hintAsked = false;
    if (FINAL.includes(msg.code)) ui.conn = msg.code;
    render();
  }
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
  if (socket && socket.send(message)) return true;
  showError({ code: "offline" });
  render();
  return false;
}

function play(move) {
  if (ui.sent || !ui.msg) return;
  if (send({ type: "move", move, version: ui.msg.game.version })) {
    ui.sent = true;
    ui.error = null;
    render();
  }
}

// ---- rendering ----------------------------------------------------------------------------------

function render() {
  keepFocus(renderAll);
}

function renderAll() {
  renderNotices();
  const msg = ui.msg;
  if (!msg) return;
  const { view, game } = msg;
  root.dataset.status = game.status;
  root.dataset.toMove = toMove(msg);
  root.dataset.legal = msg.legal.join(" ");
  root.dataset.mode = game.mode;
  document.title = `${myDecision(msg) ? "● " : ""}${t("game.page_title")}`;
  renderScorebar(msg);
  renderOpponent(msg);
  renderBoard($("#board"), {
    markers: view.markers,
    near: view.played[view.seat],
    far: view.played[1 - view.seat],
    freshNear: ui.fresh.near,
    freshFar: ui.fresh.far,
    nearSeat: view.seat,
  });
  renderOffer(msg);
  renderMine(msg);
  renderPanel(msg);
  guide?.update(msg, { selected: selectedCards(msg), action: ui.action, hint: ui.hint });
}

function renderNotices() {
  const conn = $("#conn");
  const text = {
    connecting: t("conn.connecting"),
    lost: t("conn.lost"),
    failed: t("conn.failed"),
  }[ui.conn]; // bad-token, not-found and replaced: the error below says it
  conn.hidden = !text;
  conn.textContent = text || "";
  const error = $("#error");
  if (ui.error) {
    const key = `errors.${ui.error.code}`;
    let text = t(key);
    if (text === key) text = ui.error.message || t("errors.unknown");
    error.textContent = text;
    error.hidden = false;
  } else {
    error.textContent = "";
    error.hidden = true;
  }
}

function renderScorebar(msg) {
  const { view, game } = msg;
  const seat = view.seat;
  const other = 1 - seat;
  const max = game.rules?.max_rounds;
  $("#round").textContent = max ? t("game.round_of", { round: view.round, max }) : t("game.round", { round: view.round });
  const geisha = (s) => view.markers.filter((m) => m === s).length;
  $("#my-name").textContent = displayName(game.names?.[seat], seat);
  $("#opp-name").textContent = opponentName(msg);
  $("#my-score").textContent = t("game.score", { charm: view.charm[seat], geisha: geisha(seat) });
  $("#opp-score").textContent = t("game.score", { charm: view.charm[other], geisha: geisha(other) });
  const first = view.first === seat;
  $("#my-name").classList.toggle("first", first);
  $("#opp-name").classList.toggle("first", !first);
}

function opponentName(msg) {
  if (msg.game.mode === "ai") return t("game.ai_name", { level: t(`levels.${msg.game.level}`) });
  return displayName(msg.game.names?.[otherOf(msg)], otherOf(msg));
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
  fill(oppHand, backs(view.opponent_hand, false, String(view.opponent_hand)));
  oppHand.setAttribute("aria-label", t("game.opp_hand_count", { n: view.opponent_hand }));
  oppHand.setAttribute("role", "img");
  const secretUsed = !view.actions_left[other].includes("S") && playing(msg);
  const discardUsed = !view.actions_left[other].includes("D") && playing(msg);
  fill($("#opp-secret"), secretUsed ? backs(1, ui.fresh.oppSecret) : []);
  fill($("#opp-discard"), discardUsed ? backs(2, ui.fresh.oppDiscard) : []);
  $("#opp-secret").setAttribute("aria-label", secretUsed ? t("game.opp_secret_played") : t("game.none"));
  $("#opp-discard").setAttribute("aria-label", discardUsed ? t("game.opp_discard_played") : t("game.none"));
  fill($("#opp-actions"), tokens(view.actions_left[other]));
  const pile = $("#pile");
  fill(pile, backs(Math.min(view.deck, 1), false, String(view.deck)));
  pile.setAttribute("role", "img");
  pile.setAttribute("aria-label", t("game.pile_count", { n: view.deck }));
  $(".opp-area").classList.toggle("is-thinking", Boolean(msg.game.thinking));
}

function offerCards(cards) {
  return [...cards].map((c) => h("span", { class: "pcard", "data-card": c }, cardSvg(c)));
}

function renderOffer(msg) {
  const { view } = msg;
  const box = $("#offer");
  if (!view.offer || view.phase !== "pick") {
    box.hidden = true;
    box.replaceChildren();
    return;
  }
  const m = parseMove(view.offer);
  const mine = view.to_move !== view.seat; // my offer, the opponent chooses
  box.hidden = false;
  box.classList.toggle("fresh", ui.fresh.offer);
  const title = h("h2", { text: t(mine ? `offer.mine_${m.kind}` : `offer.theirs_${m.kind}`) });
  if (mine) {
    const shown = m.kind === "C"
      ? [h("span", { class: "pair" }, offerCards(m.pairs[0])), h("span", { class: "or", text: "|" }), h("span", { class: "pair" }, offerCards(m.pairs[1]))]
      : offerCards(m.cards);
    fill(box, title, h("div", { class: "offer-cards" }, shown), h("p", { class: "muted", text: t("offer.waiting") }));
    return;
  }
  const picks = msg.legal.filter((move) => move[0] === "P");
  const buttons = picks.map((move) => {
    const cards = move.slice(1);
    const cls = `btn pick${ui.hint?.move === move ? " suggested" : ""}`;
    return h(
      "button",
      { type: "button", class: cls, "data-move": move, disabled: ui.sent || !myPick(msg), onclick: () => play(move) },
      h("span", { class: "pick-cards" }, offerCards(cards)),
      h("span", { class: "pick-label", text: moveLabel(move) }),
    );
  });
  const parts = [title];
  // the whole Gift is shown when equal cards make fewer buttons than cards
  if (m.kind === "G" && new Set(m.cards).size < m.cards.length) parts.push(h("div", { class: "offer-cards", "aria-label": t("offer.cards", { cards: [...m.cards].join(", ") }) }, offerCards(m.cards)));
  parts.push(h("div", { class: "picks" }, buttons));
  fill(box, parts);
}

function renderMine(msg) {
  const { view } = msg;
  const seat = view.seat;
  fill($("#my-secret"), view.secret ? offerCards(view.secret) : []);
  fill($("#my-discard"), view.discard ? offerCards(view.discard) : []);
  $("#my-secret").setAttribute("aria-label", view.secret ? t("game.your_secret_is", { card: view.secret }) : t("game.none"));
  $("#my-discard").setAttribute("aria-label", view.discard ? t("game.your_discard_is", { cards: [...view.discard].join(", ") }) : t("game.none"));
  $("#my-discard").setAttribute("role", "img");
  $("#my-secret").setAttribute("role", "img");

  // the hand
  const drawn = [...ui.fresh.drawn];
  const suggested = ui.hint && myDecision(msg) && ui.hint.move[0] !== "P";
  const cards = [...view.hand].map((g, i) => {
    const pressed = ui.selected.has(i);
    let isDrawn = false;
    const k = drawn.indexOf(g);
    if (k >= 0 && [...view.hand].lastIndexOf(g) === i) {
      isDrawn = true;
      drawn.splice(k, 1);
    }
    const cls = `card${isDrawn ? " drawn" : ""}${pressed && suggested ? " suggested" : ""}`;
    return h(
      "button",
      {
        type: "button", class: cls, "data-card": g, "aria-pressed": pressed ? "true" : "false",
        "aria-label": t(isDrawn ? "game.card_label_drawn" : "game.card_label", { g, charm: charmOf(g) }),
        onclick: () => toggleCard(i),
      },
      cardSvg(g),
    );
  });
  fill($("#hand"), cards.length ? cards : h("span", { class: "muted", text: t("game.hand_empty") }));

  // the action buttons
  const canAct = myAction(msg) && !ui.sent;
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

function renderChoices(msg) {
  const box = $("#choices");
  if (!myAction(msg)) {
    box.replaceChildren();
    return;
  }
  const chosen = selectedCards(msg);
  if (!ui.action) {
    fill(box, h("p", { class: "prompt", text: chosen.length ? t("game.prompt_action", { n: chosen.length }) : t("game.prompt_start") }));
    return;
  }
  const size = ACTION_SIZE[ui.action];
  const name = t(`actions.${ui.action}.name`);
  if (chosen.length !== size) {
    fill(box, h("p", { class: "prompt", text: t("game.prompt_select", { n: size, action: name, selected: chosen.length }) }));
    return;
  }
  const moves = movesFor(ui.action, chosen).filter((m) => msg.legal.includes(m));
  if (!moves.length) {
    fill(box, h("p", { class: "prompt", text: t("game.prompt_illegal") }));
    return;
  }
  const intro = h("p", { class: "prompt", text: ui.action === "C" ? t("game.prompt_pairs") : t("game.prompt_confirm") });
  const buttons = moves.map((move) => {
    const m = parseMove(move);
    const cls = `btn primary move${ui.hint?.move === move ? " suggested" : ""}`;
    const content = m.kind === "C"
      ? [h("span", { class: "pair" }, offerCards(m.pairs[0])), h("span", { class: "or", text: "|" }), h("span", { class: "pair" }, offerCards(m.pairs[1]))]
      : [h("span", { class: "move-label", text: t("game.play", { move: moveLabel(move) }) })];
    return h("button", {
      type: "button", class: cls, "data-move": move, disabled: ui.sent,
      "aria-label": t("game.play", { move: moveLabel(move) }), onclick: () => play(move),
    }, content);
  });
  fill(box, intro, h("div", { class: "move-buttons" }, buttons));
}

function renderPanel(msg) {
  const { view, game } = msg;
  const seat = view.seat;
  const ai = game.mode === "ai";
  const over = game.status === "over";

  // status: the latest move in words, then what happens now
  const lines = historyLines(view.history, seat);
  const status = $("#status");
  const now = [];
  const last = view.history[view.history.length - 1];
  if (lines.length) {
    const byOpp = last && !last.reveal && last.seat !== seat;
    now.push(h("p", { class: `last-move${byOpp ? " opp" : ""}${ui.fresh.log ? " fresh" : ""}`, text: lines[lines.length - 1] }));
  }
  let main;
  if (over) main = t("status.over");
  else if (!ai && !game.opponent_joined) main = t("status.waiting_friend");
  else if (game.thinking) main = t("status.thinking");
  else if (myAction(msg)) main = t("status.your_turn");
  else if (myPick(msg)) main = t("status.your_pick");
  else if (toMove(msg) === "opponent") main = view.phase === "pick" ? t("status.their_pick") : t("status.their_turn");
  else main = t("status.wait");
  now.push(h("p", { class: `now${game.thinking ? " thinking" : ""}`, text: main }));
  if (!ai && game.opponent_joined && !game.opponent_online && !over) now.push(h("p", { class: "offline", text: t("status.opp_offline") }));
  fill(status, now);

  // the invite link while the friend has not come
  const invite = $("#invite-box");
  const link = !ai && !game.opponent_joined && !over ? inviteUrl(msg) : null;
  invite.hidden = !link;
  if (link) $("#invite-link").value = link;

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
  hintButton.hidden = !ai || over;
  undo.hidden = !ai || over;
  hintButton.disabled = !myDecision(msg) || game.thinking || ui.hintAsked || ui.sent;
  undo.disabled = !game.can_undo || ui.sent;
  const resign = $("#resign");
  resign.hidden = over;
  resign.disabled = ui.resignAsked;
  $("#resign-confirm").hidden = !ui.resignAsked || over;
  if (over) ui.resignAsked = false;

  renderResult(msg);

  // the log, one line per history entry
  const log = $("#log");
  const items = lines.map((text, i) => {
    const entry = view.history[i];
    const prev = view.history[i - 1];
    const cls = [entry.reveal ? "reveal" : entry.seat === seat ? "me" : "opp"];
    if (!prev || prev.round !== entry.round) cls.push("round-start");
    if (i >= lines.length - ui.fresh.log) cls.push("fresh");
    return h("li", { class: cls.join(" "), "data-round": entry.round, text });
  });
  const atBottom = log.scrollHeight - log.scrollTop - log.clientHeight < 40;
  fill(log, items);
  if (atBottom || ui.fresh.log) log.scrollTop = log.scrollHeight;
}

function renderResult(msg) {
  const box = $("#result");
  const { result, game, view } = msg;
  if (game.status !== "over" || !result || scoring.open) {
    box.hidden = true;
    return;
  }
  const seat = view.seat;
  const other = 1 - seat;
  const winner = result.winner === null || result.winner === undefined ? "draw" : result.winner === seat ? "me" : "opponent";
  box.hidden = false;
  box.dataset.winner = winner;
  $("#result-title").textContent = t(`result.${winner}`);
  let reason = result.reason;
  if (reason === "resign" || reason === "forfeit") reason += winner === "me" ? "_opp" : "_me";
  $("#result-reason").textContent = t(`result.reason.${reason}`);
  $("#result-score").textContent = t("result.score", {
    myCharm: result.charm?.[seat] ?? view.charm[seat], oppCharm: result.charm?.[other] ?? view.charm[other],
    myGeisha: result.geisha?.[seat] ?? 0, oppGeisha: result.geisha?.[other] ?? 0,
  });
  $("#review-link").href = `/review/${encodeURIComponent(gameId)}`;
  const rematch = $("#rematch");
  rematch.disabled = ui.rematchAsked;
  rematch.textContent = ui.rematchAsked ? t("result.rematch_starting") : t("result.rematch");
  const offer = $("#rematch-offer");
  offer.hidden = !game.rematch || ui.rematchAsked;
  if (game.rematch) $("#rematch-link").href = game.rematch;
}

/** Ask the server for a hint on this seat's decision (the Hint button, the guide). */
function askHint() {
  if (send({ type: "hint" })) {
    ui.hintAsked = true;
    ui.hint = null;
    render();
  }
}

// ---- player input -------------------------------------------------------------------------------

function toggleCard(i) {
  if (ui.selected.has(i)) ui.selected.delete(i);
  else ui.selected.add(i);
  render();
}

/** Choose the action (choosing it again keeps it: Escape clears the selection). */
function chooseAction(a) {
  ui.action = a;
  render();
  const first = $("#choices [data-move]");
  if (first && ui.action) first.focus();
}

function wire() {
  $("#hint").addEventListener("click", askHint);
  $("#undo").addEventListener("click", () => send({ type: "undo" }));
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
  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && ui.msg && !scoring.open) {
      ui.selected.clear();
      ui.action = null;
      render();
    }
  });
}

async function main() {
  await initI18n();
  scoring = new ScoringDialog($("#scoring"), {
    onDone: () => {
      if (ui.scoringsShown) saveScoringsSeen(ui.scoringsShown);
      render();
    },
  });
  scoring.explain = (round, step, seat) => guide?.explainScoring(round, step, seat) ?? null;
  guide = Guide.forGame(gameId, { box: $("#guide"), askHint: askHint });
  wire();
  onLanguageChange(() => {
    render();
    scoring.render();
  });
  render();
  socket = new GameSocket(gameId, token, {
    open() {
      ui.conn = "open";
      ui.failures = 0;
      render();
    },
    message: onMessage,
    close(retrying) {
      if (FINAL.includes(ui.conn)) return render();
      ui.failures += 1;
      ui.conn = !retrying ? "failed" : ui.failures > 4 && !ui.msg ? "failed" : "lost";
      ui.sent = false;
      render();
    },
  });
}

main();
