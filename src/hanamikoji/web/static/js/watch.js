// The "games on now" page (GET /api/watch): the games a visitor may watch, brought up to date
// every 10 seconds; each opens the game's page, which is the spectator's table for a visitor
// without a seat.

import { getJSON } from "./api.js";
import { controlText } from "./clock.js";
import { $, fill, h } from "./dom.js";
import { reasonOf } from "./errors.js";
import { initI18n, onLanguageChange, t } from "./i18n.js";
import "./prefs.js"; // the theme chosen at the table holds here too
import { seatName } from "./spectate.js";
import { markedText, seatNamed, sentence, whoMark } from "./who.js";

const REFRESH_MS = 10_000;

const page = { games: null, error: null };

function kind(game) {
  if (game.mode === "ai") return t("watch.kind_ai", { level: t(`levels.${game.level}`) });
  return t(game.mode === "lobby" ? "watch.kind_lobby" : "watch.kind_friend");
}

/**
 * A seat's account's @user name (`usernames`, absent when no seat is an account's), a deleted
 * account's mark (`deleted`, absent when none) or the guest mark (js/who.js); nothing for the AI.
 */
const markOf = (game, seat) => whoMark(game.usernames?.[seat], !(game.mode === "ai" && game.ai_seat === seat), game.deleted?.[seat]);

function item(game) {
  const msg = { game };
  const [a, b] = [0, 1].map((seat) => ({ name: seatName(msg, seat), mark: markOf(game, seat), bot: Boolean(game.bots?.[seat]) }));
  const said = (x) => `${markedText(x.name, x.mark)}${x.bot ? `, ${t("bots.badge_title")}` : ""}`;
  const players = t("watch.vs", { a: said(a), b: said(b) });
  const shown = sentence("watch.vs", {}, { a: seatNamed(a.name, a.mark, a.bot), b: seatNamed(b.name, b.mark, b.bot) });
  const round = game.rules?.max_rounds ? t("game.round_of", { round: game.round, max: game.rules.max_rounds }) : t("game.round", { round: game.round });
  const parts = [kind(game), round, t("watch.charm", { a: game.charm[0], b: game.charm[1] })];
  if (game.control && game.control !== "none") parts.push(controlText(game.control));
  if (game.rated) parts.push(t("lobby.rated_tag")); // as the lobby and the table say it
  if (game.spectators) parts.push(t("watch.spectators", { n: game.spectators }));
  const what = parts.join(" · ");
  return h(
    "li",
    { class: "mine-game", "data-game": game.game, "data-level": game.level ?? "" },
    h("span", { class: "mine-status" }, shown),
    h("span", { class: "mine-what", text: what }),
    h("a", { class: "btn primary", href: game.url, text: t("watch.watch"), "aria-label": `${t("watch.watch")}: ${players}, ${what}` }),
  );
}

function render() {
  const error = $("#watch-error");
  error.hidden = !page.error;
  error.textContent = page.error ? t("watch.failed", { reason: reasonOf(page.error) }) : "";
  const games = page.games ?? [];
  $("#watch-empty").hidden = page.games === null || games.length > 0;
  fill($("#games-on"), games.map(item));
}

async function load() {
  try {
    const answer = await getJSON("/api/watch");
    if (!answer.ok || !answer.body) throw { status: answer.status, code: answer.body?.code, error: answer.body?.error };
    page.games = answer.body.games;
    page.error = null;
  } catch (error) {
    page.error = error?.status !== undefined ? error : { status: 0, code: "offline" };
  }
  render();
}

async function main() {
  await initI18n();
  onLanguageChange(render);
  await load();
  setInterval(load, REFRESH_MS);
}

main();
