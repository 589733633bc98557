// The visitor's games on the home page (GET /api/me/games): those in progress, the player's turn
// first, then the finished ones a page at a time; and the top bar's link to the account page.

import { getJSON } from "./api.js";
import { controlText, formatClock } from "./clock.js";
import { $, fill, h } from "./dom.js";
import { reasonOf } from "./errors.js";
import { dateText, onLanguageChange, t } from "./i18n.js";
import { markedName, markedText, sentence, whoMark } from "./who.js";
import { displayName } from "./words.js";

const list = {
  me: null, // GET /api/me: {name, username, account}
  on: [],
  finished: [],
  more: false,
  error: null,
  loading: false,
};

/** The visitor: {name, username, account}; a guest's identity is made on the first visit. */
export async function whoAmI() {
  const answer = await getJSON("/api/me").catch(() => null);
  return answer?.ok ? answer.body : { name: null, username: null, account: false };
}

/** The top bar's link: "Sign in" for a guest, the user name once signed in. */
export function accountLink(me) {
  const link = $("#account-link");
  if (!link) return;
  if (me?.account) {
    link.removeAttribute("data-i18n"); // the user name is not translated
    link.textContent = me.username;
    link.setAttribute("aria-label", `${t("nav.account")}: ${me.username}`);
  } else {
    link.dataset.i18n = "nav.signin";
    link.textContent = t("nav.signin");
    link.removeAttribute("aria-label");
  }
}

function opponent(game) {
  if (game.mode === "ai" && game.level) return t("game.ai_name", { level: t(`levels.${game.level}`) });
  return displayName(game.opponent, 1 - game.seat);
}

/** The opponent's @user name, deleted account's or guest mark (js/who.js): none for the AI or a friend not yet come. */
const opponentMark = (game) => whoMark(game.opponent_username, game.mode !== "ai" && game.turn !== "invite", game.opponent_deleted);

/** "against Bob @bob_q", as words (`text`, the buttons' labels) and shown (`nodes`). */
function against(game) {
  const mark = opponentMark(game);
  return {
    text: t("mine.against", { name: markedText(opponent(game), mark) }),
    nodes: sentence("mine.against", {}, { name: markedName(opponent(game), mark) }),
  };
}

function rules(game) {
  const n = game.rules?.max_rounds;
  const text = n ? t("mine.rules_max", { n }) : t("mine.rules_none");
  return game.control && game.control !== "none" ? `${text} · ${controlText(game.control)}` : text;
}

function onItem(game) {
  const who = opponent(game);
  const words = {
    you: () => t("mine.your_turn"),
    invite: () => t("mine.invite"),
    join: () => t("mine.join", { name: who }), // a rematch the other asked for: it waits for this player
    joining: () => t("mine.joining", { name: who }),
  }[game.turn];
  let status = words ? words() : t("mine.their_turn", { name: who });
  if (game.left !== null && game.left !== undefined) status = `${status} · ${t("clock.left", { time: formatClock(game.left, game.control) })}`;
  // A friend who has not come yet has no name to show.
  const vs = game.turn === "invite" ? null : against(game);
  const what = vs ? `${vs.text} · ${rules(game)}` : rules(game);
  const mine = game.turn === "you" || game.turn === "join";
  return h(
    "li",
    { class: `mine-game${mine ? " is-turn" : ""}`, "data-game": game.game, "data-turn": game.turn },
    h("span", { class: "mine-status", text: status }),
    h("span", { class: "mine-what" }, vs ? [vs.nodes, ` · ${rules(game)}`] : what),
    h("a", { class: `btn${mine ? " primary" : ""}`, href: game.url, text: t("mine.continue"), "aria-label": `${t("mine.continue")}: ${status}, ${what}` }),
  );
}

function finishedItem(game) {
  if (game.withdrawn) return withdrawnItem(game);
  const result = t(`mine.${game.result}`);
  const vs = against(game);
  const what = `${vs.text} · ${dateText(game.updated)}`;
  return h(
    "li",
    { class: "mine-game", "data-game": game.game, "data-result": game.result },
    h("span", { class: `mine-status result-${game.result}`, text: result }),
    h("span", { class: "mine-what" }, vs.nodes, ` · ${dateText(game.updated)}`),
    h("a", { class: "btn", href: game.review, text: t("mine.review"), "aria-label": `${t("mine.review")}: ${result}, ${what}` }),
  );
}

/** An invitation its creator withdrew (the game ended before the friend came): no result, no
 * review, nobody to name (it read "Lost against Player 2 · Review"). */
function withdrawnItem(game) {
  const what = `${rules(game)} · ${dateText(game.updated)}`;
  return h(
    "li",
    { class: "mine-game", "data-game": game.game, "data-result": "withdrawn" },
    h("span", { class: "mine-status", text: t("result.withdrawn") }),
    h("span", { class: "mine-what", text: what }),
  );
}

function render() {
  const box = $("#mine");
  if (!box) return;
  const any = list.on.length > 0 || list.finished.length > 0;
  box.hidden = !any && !list.error;
  $("#mine-on-title").hidden = list.on.length === 0;
  $("#mine-finished-title").hidden = list.finished.length === 0;
  fill($("#mine-on"), list.on.map(onItem));
  fill($("#mine-finished"), list.finished.map(finishedItem));
  $("#mine-more").hidden = !list.more;
  $("#mine-more").disabled = list.loading;
  $("#mine-guest").hidden = !any || Boolean(list.me?.account);
  const error = $("#mine-error");
  error.hidden = !list.error;
  error.textContent = list.error ? t("mine.failed", { reason: reasonOf(list.error) }) : "";
}

async function load(offset) {
  list.loading = true;
  render();
  try {
    const answer = await getJSON(`/api/me/games?offset=${offset}`);
    if (!answer.ok || !answer.body) throw { status: answer.status, code: answer.body?.code, error: answer.body?.error };
    if (offset === 0) list.on = answer.body.on;
    list.finished = offset === 0 ? answer.body.finished : list.finished.concat(answer.body.finished);
    list.more = answer.body.more;
    list.error = null;
  } catch (error) {
    list.error = error?.status !== undefined ? error : { status: 0, code: "offline" };
  } finally {
    list.loading = false;
    render();
  }
}

/** Show the visitor's games (and the account link); resolves to the visitor ({name, username, account}). */
export async function showMine() {
  list.me = await whoAmI();
  accountLink(list.me);
  onLanguageChange(() => {
    accountLink(list.me);
    render();
  });
  $("#mine-more")?.addEventListener("click", async () => {
    const shown = list.finished.length;
    await load(shown);
    $(`#mine-finished li:nth-child(${shown + 1}) a`)?.focus(); // the first of the new page
  });
  await load(0);
  return list.me;
}
