// The spectator's table (docs/web.md, "Watching a game"): a spectator's state message made into the
// shape the table draws, seat 0 near and seat 1 far, with no hand and no decision, and the table's
// words told with the players' names instead of "you" and "your opponent".

import { t } from "./i18n.js";
import { offerRest, parseMove } from "./notation.js";
import { markedText, whoMark } from "./who.js";
import { cardsText, displayName, pairText } from "./words.js";

/** The seat drawn near the bottom of a spectator's table. */
const NEAR = 0;

/**
 * A spectator's message as the table reads a seat's: `view` from the public view (no hand, no
 * Secret, no Discard of its own), no legal moves, nothing a player alone may do.
 */
export function asTable(msg) {
  const pub = msg.public;
  const game = msg.game;
  return {
    ...msg,
    view: {
      ...pub,
      seat: NEAR,
      hand: "",
      secret: null,
      discard: null,
      opponent_hand: pub.hand_sizes[1 - NEAR],
    },
    legal: [],
    drawn: null,
    game: {
      ...game,
      seat: NEAR,
      opponent_joined: game.joined.every(Boolean),
      opponent_online: game.online[1 - NEAR],
      can_undo: false,
      rematch: null,
      invite: null,
    },
  };
}

/** A seat's name: the AI's level, else the name the player typed ("Player 1" translated). */
export function seatName(msg, seat) {
  const game = msg.game;
  if (game.mode === "ai" && game.ai_seat === seat) return t("game.ai_name", { level: t(`levels.${game.level}`) });
  return displayName(game.names?.[seat], seat);
}

/**
 * What tells a seat's player apart beside the name they typed (js/who.js), at a player's table or
 * a spectator's: an account's @user name (`game.usernames`, absent when no seat is an account's),
 * a deleted account's mark (`game.deleted`, absent when no seat is one), else the guest mark (the
 * player's own too: how the others see them); nothing for the AI or a seat nobody has taken yet.
 */
export function seatMark(msg, seat) {
  const game = msg.game;
  const own = !msg.spectator && seat === game.seat;
  const ai = game.mode === "ai" && !own && (msg.spectator ? game.ai_seat === seat : true);
  const joined = own || (msg.spectator ? game.joined?.[seat] : game.opponent_joined);
  return whoMark(game.usernames?.[seat], !ai && Boolean(joined), game.deleted?.[seat]);
}

/**
 * A seat's name in the spectator's sentences (the status, the moves, the result): the name alone,
 * unless both players go by the same one, the account alice against a guest who typed "alice":
 * then with its mark in words ("alice @alice", "alice, guest"), so that each sentence still says
 * who; two guests who both typed "alice" are told apart by their seats ("alice (Player 1)").
 * (A player's own table says "you", which tells them apart already.)
 */
export function spokenName(msg, seat) {
  const name = seatName(msg, seat);
  if (name.toLocaleLowerCase() !== seatName(msg, 1 - seat).toLocaleLowerCase()) return name;
  const mark = seatMark(msg, seat);
  if (mark?.text === seatMark(msg, 1 - seat)?.text) return `${name} (${t("game.player_n", { n: seat + 1 })})`;
  return markedText(name, mark);
}

const names = (msg) => [spokenName(msg, 0), spokenName(msg, 1)];
const pickText = (pick) => (pick.length === 2 ? pairText(pick) : pick);

/** One history entry in words, with the players' names; an offer tells its pick once made. */
function line(msg, history, i) {
  const who = names(msg);
  const entry = history[i];
  if (entry.reveal) return t("watch.log.reveal", { round: entry.round, a: who[0], b: who[1], x: entry.reveal[0], y: entry.reveal[1] });
  const name = who[entry.seat];
  const other = who[1 - entry.seat];
  if (entry.move === "S" || entry.move === "D") return t(`watch.log.${entry.move}`, { name });
  const m = parseMove(entry.move);
  const p = { name, other, cards: cardsText(m.cards) };
  if (m.pairs) [p.a, p.b] = m.pairs.map(pairText);
  if (m.kind === "P") {
    const offer = history[i - 1]?.move;
    const rest = offer && "GC".includes(offer[0]) ? offerRest(offer, entry.move) : null;
    const restText = rest === null ? null : offer[0] === "C" ? pairText(rest) : cardsText(rest);
    return restText === null ? t("watch.log.P", { name, cards: pickText(m.cards) }) : t("watch.log.P_rest", { name, other, cards: pickText(m.cards), rest: restText });
  }
  const next = history[i + 1];
  if (next?.move?.[0] === "P") return t(`watch.log.${m.kind}_taken`, { ...p, pick: pickText(next.move.slice(1)) });
  return t(`watch.log.${m.kind}`, p);
}

/** The move list: one line per move, an offer and its pick told once ([{index, text}]). */
export function watchLog(msg) {
  const history = msg.view.history;
  const out = [];
  history.forEach((entry, i) => {
    const offer = history[i - 1]?.move;
    if (entry.move?.[0] === "P" && offer && "GC".includes(offer[0])) return;
    out.push({ index: i, text: line(msg, history, i) });
  });
  return out;
}

/** What happened last, for the status: the last move (a pick with what is left), after a round's
 * scoring the reveal too. */
export function watchNews(msg) {
  const history = msg.view.history;
  const out = [];
  for (let i = Math.max(0, history.length - 2); i < history.length; i++) {
    const entry = history[i];
    const last = i === history.length - 1;
    if (!last && !history[i + 1].reveal) continue;
    out.push({ index: i, text: line(msg, history, i), reveal: Boolean(entry.reveal) });
  }
  return out;
}

/** Whose decision it is, in words. */
export function watchStatus(msg) {
  const { view } = msg;
  const name = spokenName(msg, view.to_move);
  if (view.phase === "pick") return t("watch.pick", { name, other: spokenName(msg, 1 - view.to_move) });
  return t("watch.turn", { name });
}

/** Geisha that win the game (rules.md), unless the other player reached 11 charm: charm counts
 * first, and an ending on charm whose loser held this many says why they did not win. */
export const GEISHA_TO_WIN = 4;

/** What the record's `why` says of a forfeit: the kind of ending ("engine", "disabled",
 * "claimed", "time", or "" for a plain one) and an engine's failure in the page's words. */
export function forfeitCause(why) {
  const engine = /^seat \d: (crash|exit|garbage|illegal|timeout):/.exec(why || "");
  if (engine) return { kind: "engine", failure: t(`result.engine.${engine[1]}`) };
  if (/ was disabled by the server's moderators$/.test(why || "")) return { kind: "disabled", failure: "" };
  if (/ left the game and the win was claimed \(/.test(why || "")) return { kind: "claimed", failure: "" };
  if (/^seat \d ran out of time \(/.test(why || "")) return { kind: "time", failure: "" };
  return { kind: "", failure: "" };
}

/** A forfeit in the players' names, with its cause where the record says it. */
export function forfeitWords(why, name, loser) {
  const { kind, failure } = forfeitCause(why);
  return t(kind ? `review.why.forfeit_${kind}` : "review.why.forfeit", { name, loser, failure });
}

/** The end in the players' names: {title, reason, score}. */
export function watchResult(msg) {
  const { result, view, game } = msg;
  const who = names(msg);
  const w = result.winner;
  const charm = result.charm ?? view.charm;
  const geisha = result.geisha ?? [0, 0];
  const rounds = game.rules?.max_rounds ?? view.round;
  const title = w === null || w === undefined ? t("result.draw") : t("result.opponent_won", { name: who[w] });
  const loser = w === null || w === undefined ? "" : who[1 - w];
  const reason = {
    charm: () =>
      geisha[1 - w] >= GEISHA_TO_WIN
        ? t("watch.why_charm_over_geisha", { name: who[w], charm: charm[w], loser, geisha: geisha[1 - w] })
        : t("watch.why_charm", { name: who[w], charm: charm[w], other: charm[1 - w], loser }),
    geisha: () => t("result.why.geisha", { name: who[w], geisha: geisha[w] }),
    "round-limit": () => t("result.why.round_limit", { rounds, name: who[w], charm: charm[w], other: charm[1 - w] }),
    draw: () => t("result.why.draw", { rounds, charm: charm[0] }),
    resign: () => t("result.why.resign_opp", { name: loser }),
    forfeit: () => forfeitWords(result.why, who[w], loser),
  }[result.reason];
  const score = t("review.final_score", { a: who[0], b: who[1], charmA: charm[0], charmB: charm[1], geishaA: geisha[0], geishaB: geisha[1] });
  return { title, reason: reason ? reason() : "", score };
}
