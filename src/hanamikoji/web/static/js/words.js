// Moves and history in words, in the chosen language.

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

/** A player's name as shown: the server's default names ("Player 1", "Player 2") are translated. */
export function displayName(name, seat) {
  const m = /^Player ([12])$/.exec(name || "");
  if (m) return t("game.player_n", { n: m[1] });
  return name || t("game.player_n", { n: seat + 1 });
}
