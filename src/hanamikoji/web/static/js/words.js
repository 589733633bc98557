// Moves and history in words, in the chosen language.

import { controlText } from "./clock.js";
import { list, t } from "./i18n.js";
import { offerRest, parseMove } from "./notation.js";

/** "147" -> "1, 4, 7". */
export const cardsText = (cards) => list([...String(cards)]);
/** "47" -> "4+7". */
export const pairText = (pair) => [...String(pair)].join("+");

function params(move) {
  const m = parseMove(move);
  const p = { cards: cardsText(m.cards), card: m.cards, n: m.cards.length };
  if (m.pairs) [p.a, p.b] = m.pairs.map(pairText);
  return p;
}

/** A move as a short label for a button: "Gift: 1, 4, 7", "1+2 | 4+7", "Take 4". */
export function moveLabel(move) {
  const m = parseMove(move);
  if (m.kind === "P") return t("move.P", { cards: m.cards.length === 2 ? pairText(m.cards) : m.cards });
  return t(`move.${m.kind}`, params(move));
}

/** What a picked card or pair reads as. */
const pickText = (pick) => (pick.length === 2 ? pairText(pick) : pick);

/**
 * The game log: one line per history entry, from `seat`'s point of view ("you" / "opponent").
 * An offer's line tells the pick too once it is made.
 */
export function historyLines(history, seat) {
  return history.map((entry, i) => {
    if (entry.reveal) {
      const [mine, theirs] = seat === 1 ? [entry.reveal[1], entry.reveal[0]] : entry.reveal;
      return t("log.reveal", { round: entry.round, mine, theirs });
    }
    const who = entry.seat === seat ? "me" : "opp";
    const move = entry.move;
    if (move === "S" || move === "D") return t(`log.${who}.${move}_hidden`);
    const m = parseMove(move);
    if (m.kind === "G" || m.kind === "C") {
      const next = history[i + 1];
      const p = params(move);
      if (next && next.move && next.move[0] === "P") {
        return t(`log.${who}.${m.kind}_taken`, { ...p, pick: pickText(next.move.slice(1)) });
      }
      return t(`log.${who}.${m.kind}`, p);
    }
    if (m.kind === "P") {
      const offer = history[i - 1]?.move;
      if (!offer || !"GC".includes(offer[0])) return t(`log.${who}.P`, { cards: pickText(m.cards) });
      const rest = offerRest(offer, move);
      const restText = offer[0] === "C" ? pairText(rest) : cardsText(rest);
      return t(`log.${who}.P_rest`, { cards: pickText(m.cards), rest: restText });
    }
    return t(`log.${who}.${m.kind}`, params(move));
  });
}

/** A review frame's move, with the mover's name: "Anna offers 1, 4, 7". */
export function frameLine(move, name) {
  const m = parseMove(move);
  if (m.kind === "P") return t("review.P", { name, cards: pickText(m.cards) });
  return t(`review.${m.kind}`, { ...params(move), name });
}

/** The name the server gives the seats of a deleted account (web/identity.py). */
const DELETED = "deleted player";

/** A player's name as shown: the server's default names ("Player 1", "Player 2") are translated. */
export function displayName(name, seat) {
  const m = /^Player ([12])$/.exec(name || "");
  if (m) return t("game.player_n", { n: m[1] });
  if (name === DELETED) return t("game.deleted_player");
  return name || t("game.player_n", { n: seat + 1 });
}

/** What the button that plays `move` says: "Keep 2 as your Secret", "Offer 1, 4, 7", "Take 4+7". */
export function confirmLabel(move) {
  const m = parseMove(move);
  if (m.kind === "P") return moveLabel(move);
  return t(`confirm.${m.kind}`, params(move));
}

/**
 * The move list: one line per move. An offer and the pick that answered it are one move, told
 * once ("You offered 1, 4, 7 – your opponent took 4"): the pick has no line of its own.
 * Answers [{index, text}] with index into history.
 */
export function logEntries(history, seat) {
  const lines = historyLines(history, seat);
  const out = [];
  history.forEach((entry, i) => {
    const offer = history[i - 1]?.move;
    if (entry.move && entry.move[0] === "P" && offer && "GC".includes(offer[0])) return;
    out.push({ index: i, text: lines[i] });
  });
  return out;
}

/**
 * What happened since `seat` last acted, in words, oldest first: the opponent's moves (a pick
 * with what is left) and the rounds scored meanwhile. Empty when the seat made the last move.
 */
export function sinceMyMove(history, seat) {
  const lines = historyLines(history, seat);
  let start = 0;
  history.forEach((entry, i) => {
    if (!entry.reveal && entry.seat === seat) start = i + 1;
  });
  const out = [];
  for (let i = start; i < history.length; i++) {
    const entry = history[i];
    // an offer followed by the seat's own pick was answered: its line already told the pick
    if (entry.move && "GC".includes(entry.move[0]) && history[i + 1]?.seat === seat) continue;
    out.push({ index: i, text: entry.move && "GC".includes(entry.move[0]) ? offerLine(entry, seat) : lines[i], reveal: Boolean(entry.reveal) });
  }
  return out;
}

/** An offer's line without its pick (the narration tells the offer when it comes). */
function offerLine(entry, seat) {
  const who = entry.seat === seat ? "me" : "opp";
  const m = parseMove(entry.move);
  return t(`log.${who}.${m.kind}`, params(entry.move));
}

/** The families of time controls a bot may accept (besides single controls such as "3+2"). */
export const BOT_KINDS = ["real-time", "correspondence", "none"];

/** What a bot accepts, in words: "plays real time, untimed; rated or casual; 2 at once". */
export function acceptsText(accepts) {
  const modes = accepts.rated && accepts.casual ? t("bots.rated_casual") : accepts.rated ? t("bots.rated_only") : t("bots.casual_only");
  const controls = accepts.controls.map((c) => (BOT_KINDS.includes(c) ? t(`bots.kind.${c}`) : controlText(c))).join(", ");
  return t("bots.accepts", { controls, modes, games: accepts.games });
}
