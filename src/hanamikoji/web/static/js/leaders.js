// The leaderboard (/leaders, GET /api/leaders?family=...): the established accounts of each
// family, best first, named by their user name (unique, look-alikes folded) beside their
// display name, and the AI levels' fixed ratings on the same scale.

import { getJSON } from "./api.js";
import { $, fill, h } from "./dom.js";
import { reasonOf } from "./errors.js";
import { initI18n, isolate, onLanguageChange, t } from "./i18n.js";
import "./prefs.js";

const FAMILIES = ["real-time", "correspondence"];
const page = { boards: {}, ai: [], error: null };

function who(p) {
  const label = p.name && p.name !== p.username ? `${isolate(p.name)} (@${p.username})` : `@${p.username}`;
  // a long name wraps inside its cell (css: .leaders-who), its whole text in the link's title
  const link = h("a", { href: `/@/${encodeURIComponent(p.username)}`, text: label, title: label });
  return p.bot ? [link, " ", h("span", { class: "bot-badge", text: t("bots.badge"), title: t("bots.badge_title") })] : link;
}

function board(family) {
  const rows = page.boards[family] ?? [];
  const title = t(`profile.family.${family}`);
  if (!rows.length) return h("section", { "data-family": family }, h("h2", { text: title }), h("p", { class: "muted", text: t("leaders.empty") }));
  return h(
    "section",
    { "data-family": family },
    h("h2", { id: `board-${family}`, text: title }),
    h(
      "table",
      { class: "leaders", "aria-labelledby": `board-${family}` },
      h("thead", {}, h("tr", {}, ...["rank", "player", "rating", "games"].map((k) => h("th", { scope: "col", text: t(`leaders.${k}`) })))),
      h(
        "tbody",
        {},
        ...rows.map((p) => h("tr", {}, h("td", { text: String(p.rank) }), h("td", { class: "leaders-who" }, who(p)), h("td", { class: "leaders-rating", text: `${p.rating} ± ${p.deviation}` }), h("td", { text: String(p.games) }))),
      ),
    ),
  );
}

function render() {
  const error = $("#leaders-error");
  error.hidden = !page.error;
  error.textContent = page.error ? t("leaders.failed", { reason: reasonOf(page.error) }) : "";
  fill($("#leaders-boards"), FAMILIES.map(board));
  fill(
    $("#leaders-ai"),
    page.ai.map((a) => h("li", { class: "mine-game", "data-level": a.level }, h("span", { class: "mine-status", text: t(`levels.${a.level}`) }), h("span", { class: "rating-value", text: String(a.rating) }))),
  );
}

async function main() {
  await initI18n();
  onLanguageChange(render);
  try {
    for (const family of FAMILIES) {
      const answer = await getJSON(`/api/leaders?family=${family}`);
      if (!answer.ok || !answer.body) throw { status: answer.status, code: answer.body?.code, error: answer.body?.error };
      page.boards[family] = answer.body.players;
      page.ai = answer.body.ai;
    }
  } catch (error) {
    page.error = error?.status !== undefined ? error : { status: 0, code: "offline" };
  }
  render();
}

main();
