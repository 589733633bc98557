// The review page: a finished game frame by frame, everything revealed, with the AI's analysis.

import { gameIdFromPath, getJSON } from "./api.js";
import { renderBoard } from "./board.js";
import { ACTIONS, actionSvg, cardSvg } from "./cards.js";
import { renderReviewChat } from "./chat.js";
import { $, fill, h, keepFocus } from "./dom.js";
import { initI18n, isolate, onLanguageChange, percent, t } from "./i18n.js";
import { drawGraph, legendSwatch, markOf } from "./graph.js";
import { displayName, frameLine, moveLabel } from "./words.js";
import { parseMove } from "./notation.js";
import { forfeitWords, GEISHA_TO_WIN } from "./spectate.js";
import { seatNamed, sentence, whoMark } from "./who.js";
import "./prefs.js"; // the theme chosen at the table (light, dark or the system's) holds here too

const gameId = gameIdFromPath();
const POLL_MS = 2000;
const BUSY_POLL_MS = 30000; // the server had no room for the analysis: ask again later
const LOST_POLL_MS = [2000, 4000, 8000, 15000]; // the server unreachable (restarting): ask again
let lostTries = 0;
const TOP_MISTAKES = 3; // listed per player
// An analysis stored without them (none today: the store redoes older ones) reads as today's.
const DEFAULT_NOISE = 0.03;
const DEFAULT_MISTAKE = 0.1;

const state = {
  review: null, // {game, record, frames}
  frame: 0,
  near: 0, // the seat shown at the bottom
  moves: [], // per frame index: {round, index} of the move that made it (null for a deal)
  decisions: null, // the analysis, once ready
  meta: { iterations: 0, noise: DEFAULT_NOISE, mistake: DEFAULT_MISTAKE }, // how it was searched
  analysis: "loading", // loading | pending | busy | ready | failed
};

const names = () => {
  const game = state.review.game || {};
  return game.names || state.review.record.players || ["", ""];
};
const isAi = (game, name) => game.mode === "ai" && game.level && name === game.level;
function nameOf(seat) {
  const game = state.review.game || {};
  const name = names()[seat];
  if (isAi(game, name)) return t("game.ai_name", { level: t(`levels.${game.level}`) });
  return displayName(name, seat);
}

/** A seat's name with what tells an account from a guest (js/who.js); the AI's alone. */
function markedNameOf(seat) {
  const game = state.review.game || {};
  return seatNamed(nameOf(seat), whoMark(game.usernames?.[seat], !isAi(game, names()[seat]), game.deleted?.[seat]), Boolean(game.bots?.[seat]));
}

/** The (round, index in its round) of each frame's move, from the record (null for a deal frame). */
function moveIndex(review) {
  const flat = [];
  review.record.rounds.forEach((round, r) => {
    round.moves.forEach((_, k) => flat.push({ round: r + 1, index: k }));
  });
  let next = 0;
  return review.frames.map((frame) => (frame.move ? flat[next++] || null : null));
}

function decisionOf(frameIndex) {
  const at = state.moves[frameIndex];
  if (!state.decisions || !at) return null;
  return state.decisions.find((d) => d.round === at.round && d.index === at.index) || null;
}

/** The frame that shows decision d's move. */
function frameOf(d) {
  return state.moves.findIndex((at) => at && at.round === d.round && at.index === d.index);
}

const result = () => state.review.record.result || state.review.game?.result || null;
const number = (n) => new Intl.NumberFormat(document.documentElement.lang || "en").format(n);

// ---- rendering ----------------------------------------------------------------------------------

function render() {
  keepFocus(renderAll);
}

function renderAll() {
  if (!state.review) return;
  const frames = state.review.frames;
  const frame = frames[state.frame];
  const near = state.near;
  const far = 1 - near;
  const total = frames.length - 1;

  fill($("#players"), sentence("review.players", {}, { a: markedNameOf(near), b: markedNameOf(far) }));
  $("#summary").textContent = summary();
  $("#step").textContent = state.frame === 0 ? t("review.step_deal", { total, n: total }) : t("review.step", { n: state.frame, total });
  const focused = document.activeElement;
  $("#prev").disabled = $("#first").disabled = state.frame === 0;
  $("#next").disabled = $("#last").disabled = state.frame === total;
  // A focused button that has just been disabled would drop the focus to the page's start:
  // it moves to the step that can still be taken, the other way.
  if (focused?.disabled && ["first", "prev", "next", "last"].includes(focused.id)) {
    $(["first", "prev"].includes(focused.id) ? "#next" : "#prev").focus();
  }
  $("#frame-text").textContent = frameText(frame);
  $("#review-body").dataset.frame = String(state.frame);

  fill($("#far-area"), seatArea(frame, far));
  fill($("#near-area"), seatArea(frame, near));
  fill($("#center"), centre(frame));
  const prev = frames[state.frame - 1];
  const sameRound = prev && prev.round === frame.round;
  // a frame that ends a round shows the table as scored (its own state is already the next deal)
  const played = frame.scoring ? frame.scoring.played : frame.played;
  const before = prev && (sameRound || frame.scoring) ? prev.played : null;
  renderBoard($("#board"), {
    markers: frame.scoring ? frame.scoring.markers : frame.markers,
    near: played[near],
    far: played[far],
    freshNear: before ? minusPlayed(played[near], before[near]) : "",
    freshFar: before ? minusPlayed(played[far], before[far]) : "",
    nearSeat: near,
    nearName: nameOf(near),
    farName: nameOf(far),
  });
  const scoringBox = $("#frame-scoring"); // in the comment: the table keeps its height
  scoringBox.hidden = !frame.scoring;
  if (frame.scoring) {
    const sc = frame.scoring;
    scoringBox.textContent = t("review.scoring", {
      round: sc.round, a: nameOf(near), b: nameOf(far),
      secretA: sc.secrets[near] ?? "–", secretB: sc.secrets[far] ?? "–",
      charmA: sc.charm[near], charmB: sc.charm[far], geishaA: sc.geisha[near], geishaB: sc.geisha[far],
    });
  }
  renderAnalysis();
}

function minusPlayed(now, before) {
  const left = [...before];
  let out = "";
  for (const c of now) {
    const i = left.indexOf(c);
    if (i >= 0) left.splice(i, 1);
    else out += c;
  }
  return out;
}

/** Who won and how, in the words of the table's ending: "Anna won, reaching 12 charm (9 for AI)". */
function summary() {
  const end = result();
  if (!end) return "";
  const w = end.winner;
  const frames = state.review.frames;
  const rounds = frames[frames.length - 1]?.round ?? 0;
  const charm = end.charm ?? [0, 0];
  const geisha = end.geisha ?? [0, 0];
  // a game given up before any round was scored has no score to tell ("Charm: Anna 0, AI 0" read
  // as if one had been counted)
  const scored = frames.some((frame) => frame.scoring);
  const score = !scored ? "" : t("review.final_score", {
    a: nameOf(state.near), b: nameOf(1 - state.near),
    charmA: end.charm?.[state.near] ?? "", charmB: end.charm?.[1 - state.near] ?? "",
    geishaA: end.geisha?.[state.near] ?? "", geishaB: end.geisha?.[1 - state.near] ?? "",
  });
  const withScore = (words) => (score ? `${words} ${score}` : words);
  if (w !== 0 && w !== 1) return withScore(t("review.why.draw", { rounds, charm: charm[0] }));
  // an ending on charm whose loser held 4 geisha says why those did not win: charm counts first
  if (end.reason === "forfeit") return withScore(forfeitWords(end.why, nameOf(w), nameOf(1 - w)));
  const overGeisha = end.reason === "charm" && geisha[1 - w] >= GEISHA_TO_WIN;
  const key = overGeisha ? "charm_over_geisha" : end.reason === "round-limit" ? "round_limit" : end.reason;
  const why = t(`review.why.${key}`, {
    name: nameOf(w), loser: nameOf(1 - w), rounds,
    charm: charm[w], other: key === "geisha" ? geisha[1 - w] : charm[1 - w], geisha: overGeisha ? geisha[1 - w] : geisha[w],
  });
  return withScore(why.startsWith("review.") ? t("review.winner", { name: nameOf(w), reason: t(`review.reason.${end.reason}`) }) : why);
}

function frameText(frame) {
  let text;
  if (!frame.move) text = t("review.deal", { round: frame.round });
  else text = frameLine(frame.move, nameOf(frame.seat));
  if (frame.move && frame.move[0] === "P") {
    const before = state.review.frames[state.frame - 1];
    if (before?.offer) text += ` ${t("review.from_offer", { offer: moveLabel(before.offer) })}`;
  }
  if (frame.scoring && frame.round !== frame.scoring.round) text += ` ${t("review.next_round", { round: frame.round })}`;
  if (frame.to_move !== null && frame.to_move !== undefined) text += ` ${t("review.next_up", { name: nameOf(frame.to_move) })}`;
  return text;
}

function cardsRow(cards, empty) {
  if (!cards) return h("span", { class: "muted small", text: empty });
  return h("span", { class: "cards-row" }, [...cards].map((c) => h("span", { class: "pcard", "data-card": c }, cardSvg(c))));
}

function labelled(label, content, cls = "") {
  return h("div", { class: `pile-box ${cls}` }, h("span", { class: "label", text: label }), content);
}

function seatArea(frame, seat) {
  const left = frame.actions_left?.[seat] ?? "";
  const tokens = h("div", { class: "tokens" }, ACTIONS.map((a) => {
    const used = !left.includes(a);
    const label = `${t(`actions.${a}.name`)}: ${used ? t("game.used") : t("game.available")}`;
    return h("span", { class: `token${used ? " used" : ""}`, role: "img", "aria-label": label, title: label }, actionSvg(a, used));
  }));
  const turn = frame.to_move === seat;
  return [
    h("h2", { class: `seat-name${turn ? " to-move" : ""}` }, markedNameOf(seat), ` · ${t("review.charm_geisha", { charm: frame.charm[seat], geisha: frame.geisha[seat] })}`),
    h(
      "div",
      { class: "holder" },
      labelled(t("review.hand"), cardsRow(frame.hands[seat], t("game.none")), "hand-box"),
      labelled(t("actions.S.name"), cardsRow(frame.secrets[seat], t("game.none"))),
      labelled(t("actions.D.name"), cardsRow(frame.discards[seat], t("game.none"))),
      labelled(t("game.actions"), tokens),
    ),
  ];
}

function centre(frame) {
  const parts = [
    labelled(t("review.removed"), cardsRow(frame.removed, "–")),
    labelled(t("review.pile", { n: frame.deck.length }), cardsRow(frame.deck, t("game.none")), "pile-row"),
  ];
  if (frame.offer) {
    const m = parseMove(frame.offer);
    const content = m.kind === "C"
      ? h("span", { class: "cards-row" }, cardsRow(m.pairs[0]), h("span", { class: "or", text: "|" }), cardsRow(m.pairs[1]))
      : cardsRow(m.cards);
    parts.push(labelled(t("review.offer"), content, "offer-box"));
  }
  return parts;
}

function renderAnalysis() {
  const status = $("#analysis-status");
  status.textContent = {
    loading: t("review.analysis_loading"),
    pending: t("review.analysing"),
    busy: t("review.analysis_busy"),
    lost: t("review.analysis_lost"),
    failed: t("review.analysis_failed"),
    ready: "",
  }[state.analysis];
  status.hidden = state.analysis === "ready";
  status.classList.toggle("thinking", state.analysis === "pending" || state.analysis === "loading");
  const svg = $("#winprob");
  const ready = state.analysis === "ready";
  // A game given up before any move has no decision: no empty graph, legend of marks that are
  // not there and "no move lost 10%" for each player, as if moves had been judged.
  const judged = ready && state.decisions.length > 0;
  $("section.analysis").hidden = ready && !judged;
  svg.toggleAttribute("hidden", !judged);
  $("#legend").hidden = !judged;
  $("#mistakes").hidden = !judged;
  $("#analysis-about").hidden = !judged;
  const note = $("#analysis-note");
  const hintNote = $("#hint-note");
  if (!ready) {
    note.textContent = ""; // the status says why (not twice to a screen reader)
    note.className = "analysis-note";
    note.dataset.mark = "";
    hintNote.hidden = true;
    return;
  }
  const { mistake, noise, iterations } = state.meta;
  const names = [nameOf(0), nameOf(1)];
  drawGraph(svg, {
    decisions: state.decisions,
    moves: state.moves,
    frame: state.frame,
    near: state.near,
    names,
    result: result(),
    mistake,
    onPick: (frameIndex) => go(frameIndex),
  });
  renderLegend(names);
  renderMistakes(names);
  $("#analysis-about").hidden = !judged || !iterations; // (one that does not say its budget)
  $("#analysis-about").textContent = t("review.about", {
    iterations: number(iterations),
    noise: percent(noise),
    mistake: percent(mistake),
  });
  renderNote(note, hintNote);
}

/** The comment on the current move: what the AI thinks of it, and the hint given there. */
function renderNote(note, hintNote) {
  const { mistake, noise } = state.meta;
  const d = decisionOf(state.frame);
  note.className = "analysis-note";
  note.dataset.mark = "";
  hintNote.hidden = true;
  if (!d) {
    // "Step through the moves" only where there are moves to step through
    const start = state.frame === 0 && state.review.frames.length > 1;
    note.textContent = start ? t("review.note_start") : t("review.note_none");
    return;
  }
  const who = nameOf(d.seat);
  const move = moveLabel(d.played);
  const kind = markOf(d, mistake);
  note.dataset.mark = kind || "";
  if (d.hint) {
    hintNote.hidden = false;
    const key = d.hint.move === d.played ? "review.hint_followed" : "review.hint_ignored";
    hintNote.textContent = t(key, { name: who, move: moveLabel(d.hint.move), p: percent(d.hint.win_probability) });
  }
  const params = {
    name: who, move, played: percent(d.played_value), best: moveLabel(d.best),
    p: percent(d.win_probability), loss: percent(d.loss), noise: percent(noise),
  };
  if (kind === "hint" && d.loss > noise) {
    // followed, but this search disagrees: the hint searched less (the server was busy)
    const shorter = d.hint.iterations < state.meta.iterations;
    const key = shorter ? "review.note_hint_short" : "review.note_hint_differs";
    note.textContent = t(key, { ...params, iterations: number(d.hint.iterations) });
  } else if (d.played === d.best) {
    note.textContent = t("review.note_best", params);
  } else if (d.loss <= noise) {
    note.textContent = t("review.note_close", params);
  } else if (kind === "mistake") {
    note.textContent = t("review.note_mistake", params);
    note.classList.add("mistake");
  } else {
    note.textContent = t("review.note_loss", params);
  }
}

function renderLegend(names) {
  const near = state.near;
  const item = (mark, swatch, text) => h("li", { "data-mark": mark }, swatch, h("span", { text }));
  fill(
    $("#legend"),
    item("line", legendSwatch("line"), t("review.key_line", { name: names[near] })),
    item("mistake-near", legendSwatch("mistake", "near"), t("review.key_mistake", { name: names[near] })),
    item("mistake-far", legendSwatch("mistake", "far"), t("review.key_mistake", { name: names[1 - near] })),
    item("hint", legendSwatch("hint"), t("review.key_hint")),
    item("hint-ignored", legendSwatch("hint-ignored"), t("review.key_hint_ignored")),
    item("current", legendSwatch("current"), t("review.key_current")),
    item("round", legendSwatch("round"), t("review.key_round")),
  );
}

/** Each player's biggest mistakes (at least the threshold), biggest first, as buttons to their move. */
function renderMistakes(names) {
  const { mistake } = state.meta;
  const lists = [state.near, 1 - state.near].map((seat) => {
    const worst = state.decisions
      .filter((d) => d.seat === seat && markOf(d, mistake) === "mistake")
      .sort((a, b) => b.loss - a.loss)
      .slice(0, TOP_MISTAKES);
    const side = seat === state.near ? "near" : "far";
    const items = worst.map((d) => {
      const f = frameOf(d);
      const text = t("review.mistake_item", { n: f, move: moveLabel(d.played), loss: percent(d.loss) });
      return h(
        "li",
        {},
        h("button", {
          type: "button", class: `btn mistake-jump ${side}`, "data-frame": f, "data-seat": seat,
          "aria-current": f === state.frame ? "step" : null, onclick: () => go(f), text,
        }),
      );
    });
    return h(
      "div",
      { class: `mistake-list ${side}`, "data-seat": seat },
      h("h4", { text: isolate(names[seat]) }),
      items.length
        ? h("ol", {}, items)
        : h("p", { class: "muted small", text: t("review.no_mistake", { mistake: percent(mistake) }) }),
    );
  });
  fill($("#mistake-lists"), lists);
}

// ---- navigation ---------------------------------------------------------------------------------

function go(index) {
  const total = state.review.frames.length - 1;
  state.frame = Math.max(0, Math.min(total, index));
  render();
}

function wire() {
  $("#first").addEventListener("click", () => go(0));
  $("#prev").addEventListener("click", () => go(state.frame - 1));
  $("#next").addEventListener("click", () => go(state.frame + 1));
  $("#last").addEventListener("click", () => go(Infinity));
  let resizing = null;
  window.addEventListener("resize", () => {
    clearTimeout(resizing);
    resizing = setTimeout(render, 150);
  });
  document.addEventListener("keydown", (event) => {
    if (!state.review || event.altKey || event.ctrlKey || event.metaKey) return;
    if (event.target.closest?.("input, select, textarea")) return;
    const moves = { ArrowLeft: -1, ArrowRight: 1 };
    if (event.key in moves) {
      event.preventDefault();
      go(state.frame + moves[event.key]);
    } else if (event.key === "Home") {
      event.preventDefault();
      go(0);
    } else if (event.key === "End") {
      event.preventDefault();
      go(Infinity);
    }
  });
}

async function pollAnalysis() {
  try {
    const { ok, status, body } = await getJSON(`/api/games/${encodeURIComponent(gameId)}/analysis`);
    if (ok) lostTries = 0;
    if (ok && body?.status === "ready") {
      state.decisions = body.decisions || [];
      state.meta = {
        iterations: body.iterations || 0,
        noise: body.noise ?? DEFAULT_NOISE,
        mistake: Math.max(body.mistake ?? DEFAULT_MISTAKE, body.noise ?? DEFAULT_NOISE),
      };
      state.analysis = "ready";
      render();
      return;
    }
    if (ok && body?.status === "pending") {
      state.analysis = "pending";
      render();
      setTimeout(pollAnalysis, POLL_MS);
      return;
    }
    if (ok && body?.status === "busy") {
      state.analysis = "busy";
      render();
      setTimeout(pollAnalysis, BUSY_POLL_MS);
      return;
    }
    if (status >= 500) return lost(); // a proxy's 502 while the server restarts, say
    state.analysis = "failed";
  } catch {
    return lost(); // no answer at all: the server is down or restarting
  }
  render();
}

/** The server did not answer: say so and ask again, less and less often, never giving up. */
function lost() {
  state.analysis = "lost";
  render();
  setTimeout(pollAnalysis, LOST_POLL_MS[Math.min(lostTries, LOST_POLL_MS.length - 1)]);
  lostTries += 1;
}

function showError(key) {
  const box = $("#error");
  box.hidden = false;
  fill(box, h("p", { text: t(key) }));
  if (key === "review.not_finished" || key === "review.withdrawn") {
    box.append(h("p", {}, h("a", { href: `/g/${encodeURIComponent(gameId)}`, text: t("review.back_to_game") })));
  }
}

async function main() {
  await initI18n();
  wire();
  let errorKey = null;
  onLanguageChange(() => {
    if (errorKey) showError(errorKey);
    render();
  });
  let answer;
  try {
    answer = await getJSON(`/api/games/${encodeURIComponent(gameId)}/review`);
  } catch {
    answer = { status: 0 };
  }
  if (!answer.ok || !answer.body) {
    const keys = { 403: "review.not_finished", 404: "review.not_found", 410: "review.withdrawn" };
    errorKey = keys[answer.status] || "review.load_failed";
    showError(errorKey);
    return;
  }
  state.review = answer.body;
  const seat = state.review.game?.seat;
  state.near = seat === 0 || seat === 1 ? seat : 0;
  state.moves = moveIndex(state.review);
  const download = $("#download");
  download.href = `/api/games/${encodeURIComponent(gameId)}/record`;
  download.setAttribute("download", `hanamikoji-${gameId}.json`);
  $("#review-body").hidden = false;
  render();
  pollAnalysis();
  showChat(seat === 0 || seat === 1 ? seat : null);
}

/** The game's chat: the players' room to its players only, the spectators' to anyone (the server decides). */
async function showChat(seat) {
  let answer;
  try {
    answer = await getJSON(`/api/games/${encodeURIComponent(gameId)}/chat`);
  } catch {
    return;
  }
  if (!answer.ok || !answer.body) return;
  const draw = () => renderReviewChat($("#review-chat"), answer.body, markedNameOf, seat);
  draw();
  onLanguageChange(draw);
}

main();
