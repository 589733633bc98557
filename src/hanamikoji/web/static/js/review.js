// The review page: a finished game frame by frame, everything revealed, with the AI's analysis.

import { gameIdFromPath, getJSON } from "./api.js";
import { renderBoard } from "./board.js";
import { ACTIONS, actionSvg, cardSvg } from "./cards.js";
import { $, fill, h, keepFocus } from "./dom.js";
import { initI18n, onLanguageChange, percent, t } from "./i18n.js";
import { drawGraph } from "./graph.js";
import { displayName, frameLine, moveLabel } from "./words.js";
import { parseMove } from "./notation.js";

const gameId = gameIdFromPath();
const POLL_MS = 2000;
const BUSY_POLL_MS = 30000; // the server had no room for the analysis: ask again later

const state = {
  review: null, // {game, record, frames}
  frame: 0,
  near: 0, // the seat shown at the bottom
  moves: [], // per frame index: {round, index} of the move that made it (null for a deal)
  decisions: null, // the analysis, once ready
  analysis: "loading", // loading | pending | busy | ready | failed
};

const names = () => {
  const game = state.review.game || {};
  return game.names || state.review.record.players || ["", ""];
};
function nameOf(seat) {
  const game = state.review.game || {};
  const name = names()[seat];
  if (game.mode === "ai" && game.level && name === game.level) return t("game.ai_name", { level: t(`levels.${game.level}`) });
  return displayName(name, seat);
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

  $("#players").textContent = t("review.players", { a: nameOf(near), b: nameOf(far) });
  $("#summary").textContent = summary();
  $("#step").textContent = state.frame === 0 ? t("review.step_deal", { total }) : t("review.step", { n: state.frame, total });
  $("#prev").disabled = $("#first").disabled = state.frame === 0;
  $("#next").disabled = $("#last").disabled = state.frame === total;
  $("#frame-text").textContent = frameText(frame);

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
  const scoringBox = $("#frame-scoring");
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

function summary() {
  const result = state.review.record.result || state.review.game?.result;
  if (!result) return "";
  const who = result.winner === null || result.winner === undefined ? null : nameOf(result.winner);
  const reason = t(`review.reason.${result.reason}`);
  const score = t("review.final_score", {
    a: nameOf(state.near), b: nameOf(1 - state.near),
    charmA: result.charm?.[state.near] ?? "", charmB: result.charm?.[1 - state.near] ?? "",
    geishaA: result.geisha?.[state.near] ?? "", geishaB: result.geisha?.[1 - state.near] ?? "",
  });
  return `${who ? t("review.winner", { name: who, reason }) : t("review.draw", { reason })} ${score}`;
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
    h("h2", { class: `seat-name${turn ? " to-move" : ""}`, text: `${nameOf(seat)} · ${t("review.charm_geisha", { charm: frame.charm[seat], geisha: frame.geisha[seat] })}` }),
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
    failed: t("review.analysis_failed"),
    ready: "",
  }[state.analysis];
  status.classList.toggle("thinking", state.analysis === "pending" || state.analysis === "loading");
  const svg = $("#winprob");
  svg.toggleAttribute("hidden", state.analysis !== "ready");
  const note = $("#analysis-note");
  if (state.analysis !== "ready") {
    note.textContent = "";
    $("#legend").replaceChildren();
    return;
  }
  drawGraph(svg, {
    decisions: state.decisions,
    moves: state.moves,
    frame: state.frame,
    near: state.near,
    names: [nameOf(0), nameOf(1)],
    onPick: (frameIndex) => go(frameIndex),
  });
  fill(
    $("#legend"),
    h("span", { class: "key near" }, t("review.line", { name: nameOf(state.near) })),
    h("span", { class: "key far" }, t("review.line", { name: nameOf(1 - state.near) })),
  );
  const d = decisionOf(state.frame);
  if (!d) {
    note.textContent = state.frame === 0 ? t("review.note_start") : t("review.note_none");
    return;
  }
  const who = nameOf(d.seat);
  if (d.played === d.best || d.loss <= 0.005) {
    note.textContent = t("review.note_best", { name: who, move: moveLabel(d.played), p: percent(d.win_probability) });
  } else {
    note.textContent = t("review.note_loss", {
      name: who, move: moveLabel(d.played), played: percent(d.played_value),
      best: moveLabel(d.best), p: percent(d.win_probability), loss: percent(d.loss),
    });
  }
  note.classList.toggle("mistake", d.loss >= 0.1);
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
    const { ok, body } = await getJSON(`/api/games/${encodeURIComponent(gameId)}/analysis`);
    if (ok && body?.status === "ready") {
      state.decisions = body.decisions || [];
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
    state.analysis = "failed";
  } catch {
    state.analysis = "failed";
  }
  render();
}

function showError(key) {
  const box = $("#error");
  box.hidden = false;
  fill(box, h("p", { text: t(key) }));
  if (key === "review.not_finished") {
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
    errorKey = answer.status === 403 ? "review.not_finished" : answer.status === 404 ? "review.not_found" : "review.load_failed";
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
}

main();
