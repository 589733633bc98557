// A player's profile (/@/{username}, GET /api/players/{username}): the rating of each family
// with its deviation and the provisional mark, the rating's history drawn here as an inline SVG,
// and the finished games with their review links. The user name is always shown beside the
// display name: a look-alike display name cannot pass for someone else.

import { getJSON } from "./api.js";
import { controlText } from "./clock.js";
import { $, fill, h, s } from "./dom.js";
import { reasonOf } from "./errors.js";
import { dateText, initI18n, isolate, onLanguageChange, t } from "./i18n.js";
import "./prefs.js";
import { markedName, markedText, sentence, whoMark } from "./who.js";
import { displayName } from "./words.js";

const page = { data: null, error: null, name: "" };
const FAMILIES = ["real-time", "correspondence"];

/** A rating as text: 1523? (provisional) or 1523. */
export function ratingText(r) {
  return `${r.rating}${r.provisional ? "?" : ""}`;
}

function ratingItem(family, r) {
  return h(
    "li",
    { class: "mine-game", "data-family": family },
    h("span", { class: "mine-status", text: t(`profile.family.${family}`) }),
    h("span", { class: "rating-value", text: `${ratingText(r)} ${t("profile.deviation", { deviation: r.deviation })}` }),
    // a house bot's rating is its level's, fixed: it counts no games
    h("span", { class: "mine-what", text: r.fixed ? t("profile.fixed") : [t("profile.rated_games", { n: r.games }), r.provisional ? t("profile.provisional") : ""].filter(Boolean).join(" · ") }),
  );
}

const W = 600;
const H = 180;
const PAD = 12;

/** The rating after each rated game of one family, as a line with its range on the left; the line
 * starts at a new player's 1500, so that one game is a line too (it was a lone dot). The range's
 * labels are the page's text beside the drawing, not in it: scaled with the drawing they were
 * 6 px high on a phone. Each point's value is in its title and, for a screen reader, in a list. */
function plot(family, points) {
  const start = { rating: 1500 };
  const drawn = [start, ...points];
  const values = points.map((p) => p.rating);
  const low = Math.floor((Math.min(...values, 1500) - 20) / 50) * 50;
  const high = Math.ceil((Math.max(...values, 1500) + 20) / 50) * 50;
  const x = (i) => PAD + (i * (W - 2 * PAD)) / (drawn.length - 1);
  const y = (v) => H - PAD - ((v - low) * (H - 2 * PAD)) / (high - low);
  const line = drawn.map((p, i) => `${x(i).toFixed(1)},${y(p.rating).toFixed(1)}`).join(" ");
  const label = t("profile.plot_label", { family: t(`profile.family.${family}`), n: points.length, first: Math.round(values[0]), last: Math.round(values[values.length - 1]) });
  const point = (p, i) => t("profile.plot_point", { n: i + 1, date: dateText(p.at), rating: Math.round(p.rating) });
  const tick = (v) => h("span", { class: "plot-tick", "aria-hidden": "true", style: `top: ${((100 * y(v)) / H).toFixed(2)}%`, text: String(v) });
  const svg = s(
    "svg",
    { class: "rating-plot", viewBox: `0 0 ${W} ${H}`, role: "img", "aria-label": label, "data-family": family },
    s("title", { text: label }),
    s("line", { class: "plot-axis", x1: 0, y1: y(low), x2: W, y2: y(low) }),
    s("line", { class: "plot-base", x1: 0, y1: y(1500), x2: W, y2: y(1500) }),
    s("polyline", { class: "plot-line", points: line, fill: "none" }),
    ...points.map((p, i) => s("circle", { class: "plot-dot", cx: x(i + 1).toFixed(1), cy: y(p.rating).toFixed(1), r: 4 }, s("title", { text: point(p, i) }))),
  );
  return h("div", { class: "plot-box" }, tick(high), tick(low), svg, h("ol", { class: "sr-only plot-points" }, ...points.map((p, i) => h("li", { text: point(p, i) }))));
}

/** What each rated game did to the rating, by game: "+16", "−12" (from the history, each game
 * against the one before it in its family, a first one against 1500). */
function ratingChanges(history) {
  const last = {};
  const changes = {};
  for (const p of history) {
    const delta = Math.round(p.rating) - Math.round(last[p.family] ?? 1500);
    changes[p.game] = delta > 0 ? `+${delta}` : delta < 0 ? `\u2212${-delta}` : "\u00b10";
    last[p.family] = p.rating;
  }
  return changes;
}

/** The opponent's name in the page's language: the AI's level, "Player 2", "deleted player". */
function opponentName(g) {
  if (g.mode === "ai" && g.level) return t("game.ai_name", { level: t(`levels.${g.level}`) });
  return displayName(g.opponent, 1 - (g.seat ?? 0));
}

function gameItem(g, changes) {
  const result = t(`profile.result.${g.result}`);
  // The opponent's name as typed, with their @user name or the guest mark (js/who.js); the AI's alone.
  const mark = whoMark(g.opponent_username, g.mode !== "ai", g.opponent_deleted);
  const name = opponentName(g);
  // a rated game played as a guest before signing in to this account: its rating stayed the guest's
  const rated = !g.rated ? t("profile.casual") : changes[g.game] ? `${t("profile.rated")} ${changes[g.game]}` : g.counted === false ? t("profile.rated_as_guest") : t("profile.rated");
  const rest = [g.control !== "none" ? controlText(g.control) : "", rated, dateText(g.updated)].filter(Boolean).map((part) => ` · ${part}`).join("");
  const what = `${t("profile.vs", { name: markedText(name, mark) })}${rest}`;
  return h(
    "li",
    { class: "mine-game", "data-game": g.game },
    h("span", { class: "mine-status", text: result }),
    h("span", { class: "mine-what" }, sentence("profile.vs", {}, { name: markedName(name, mark) }), rest),
    h("a", { class: "btn", href: g.review, text: t("profile.review"), "aria-label": `${t("profile.review")}: ${result}, ${what}` }),
  );
}

function render() {
  const error = $("#profile-error");
  error.hidden = !page.error;
  error.textContent = !page.error ? "" : page.error.status === 404 ? t("profile.not_found") : t("profile.failed", { reason: reasonOf(page.error) });
  const d = page.data;
  $("#profile-body").hidden = !d; // a player that does not exist has no ratings nor games
  if (!d) {
    if (page.error?.status === 404) $("#profile-name").textContent = isolate(`@${page.name}`);
    return;
  }
  $("#profile-name").textContent = isolate(d.name || d.username);
  $("#profile-username").textContent = t("profile.username", { username: d.username });
  const bot = d.bot; // a bot (docs/bots.md): marked, with its owner or its AI level
  const mark = bot ? [h("span", { class: "bot-badge", text: t("bots.badge"), title: t("bots.badge_title") }), " ", bot.house ? t("bots.profile_house", { level: t(`levels.${bot.level}`) }) : t("bots.profile_owner", { owner: bot.owner })] : [];
  fill($("#profile-bot"), ...mark);
  $("#profile-bot").hidden = !bot;
  document.title = `${isolate(d.name || d.username)} (@${d.username}) – Hanamikoji`;
  const families = FAMILIES.filter((f) => d.ratings[f]);
  $("#profile-unrated").hidden = families.length > 0;
  fill($("#profile-ratings"), families.map((f) => ratingItem(f, d.ratings[f])));
  // "?" marks only a provisional rating: no note where none is (a house bot's is fixed)
  $("#profile-provisional-help").hidden = !families.some((f) => d.ratings[f].provisional);
  // one plot a family with rated games, each named; none, and no heading, without any
  const plotted = families.filter((f) => d.history.some((p) => p.family === f));
  $("#profile-history-title").hidden = plotted.length === 0;
  fill(
    $("#profile-plots"),
    plotted.map((f) =>
      h("figure", { class: "rating-figure" }, h("figcaption", { text: t(`profile.family.${f}`) }), plot(f, d.history.filter((p) => p.family === f))),
    ),
  );
  $("#profile-no-games").hidden = d.games.length > 0;
  const changes = ratingChanges(d.history);
  fill($("#profile-games"), d.games.map((g) => gameItem(g, changes)));
}

async function main() {
  await initI18n();
  onLanguageChange(render);
  const raw = location.pathname.slice("/@/".length);
  let name = raw;
  try {
    name = decodeURIComponent(raw);
  } catch {
    // a malformed escape: asked for as typed, which no user name is (the server says so)
  }
  page.name = name;
  try {
    const answer = await getJSON(`/api/players/${encodeURIComponent(name)}`);
    if (!answer.ok || !answer.body) throw { status: answer.status, code: answer.body?.code, error: answer.body?.error };
    page.data = answer.body;
  } catch (error) {
    page.error = error?.status !== undefined ? error : { status: 0, code: "offline" };
  }
  render();
}

main();
