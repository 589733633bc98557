// The how-to-play page: the rules text of the chosen language, with the game's pictures.

import { renderBoard } from "./board.js";
import { ACTIONS, actionSvg, backSvg, cardSvg, GEISHA, geishaSvg, markerSvg } from "./cards.js";
import { $, fill, h } from "./dom.js";
import { data, initI18n, onLanguageChange, t } from "./i18n.js";
import "./prefs.js"; // the theme chosen at the table (light, dark or the system's) holds here too

const card = (g) => h("span", { class: "pcard" }, cardSvg(g));
const back = () => h("span", { class: "pcard" }, backSvg());
const backs = (n) => Array.from({ length: n }, back);
const group = (label, ...content) => h("div", { class: "fig-group" }, h("div", { class: "fig-cards" }, content), h("span", { class: "fig-label", text: label }));

/** The picture of each section, by its id. */
const FIGURES = {
  goal: () => h("div", { class: "fig-geisha" }, GEISHA.map((g) => h("span", { class: `fig-g${[5, 6, 7].includes(g) ? " lit" : ""}` }, geishaSvg(g)))),
  components: () => [
    group(t("rules.fig.cards"), GEISHA.map(card)),
    group(t("rules.fig.marker"), h("span", { class: "fig-marker" }, markerSvg())),
    group(t("rules.fig.tokens"), ACTIONS.map((a) => h("span", { class: "token" }, actionSvg(a)))),
  ],
  round: () => [
    group(t("rules.fig.removed"), back()),
    group(t("rules.fig.hand"), backs(6)),
    group(t("rules.fig.pile"), h("span", { class: "fig-pile" }, backs(3))),
  ],
  turn: () => [
    group(t("rules.fig.draw"), back()),
    h("span", { class: "fig-arrow", "aria-hidden": "true", text: "→" }),
    group(t("rules.fig.flip"), h("span", { class: "token" }, actionSvg("G")), h("span", { class: "token" }, actionSvg("G", true))),
  ],
  picking: () => [
    group(t("rules.fig.gift"), card(1), card(4), card(7)),
    h("span", { class: "fig-arrow", "aria-hidden": "true", text: "→" }),
    group(t("rules.fig.takes"), card(4)),
    h("span", { class: "fig-sep", "aria-hidden": "true" }),
    group(t("rules.fig.competition"), card(1), card(2), h("span", { class: "or", text: "|" }), card(4), card(7)),
  ],
  scoring: () => {
    const board = h("div", { class: "board mini fig-board" });
    renderBoard(board, {
      markers: [0, null, 1, 0, 1, 1, 0], near: "1144677", far: "34567", nearSeat: 0,
    });
    return board;
  },
  winning: () => h("div", { class: "fig-geisha" }, GEISHA.map((g) => h("span", { class: `fig-g${[1, 2, 3, 4].includes(g) ? " lit" : ""}` }, geishaSvg(g)))),
};

function actionRows(actions) {
  return h("dl", { class: "action-list" }, ACTIONS.flatMap((a) => [
    h("dt", {}, h("span", { class: "token" }, actionSvg(a)), h("span", { text: t(`actions.${a}.name`) }), h("span", { class: "muted", text: ` · ${t("game.n_cards", { n: { S: 1, D: 2, G: 3, C: 4 }[a] })}` })),
    h("dd", { text: actions[a] }),
    h("dd", { class: "fig-inline" }, a === "S" ? back() : a === "D" ? backs(2) : a === "G" ? [card(2), card(5), card(6)] : [card(3), card(3), h("span", { class: "or", text: "|" }), card(6), card(7)]),
  ]));
}

function render() {
  const sections = data("rules.sections") || [];
  fill($("#toc"), h("ol", {}, sections.map((sec) => h("li", {}, h("a", { href: `#rules-${sec.id}`, text: sec.title })))));
  fill($("#rules-body"), sections.map((sec) => {
    const parts = [h("h2", { text: sec.title })];
    for (const para of sec.text || []) parts.push(h("p", { text: para }));
    if (sec.items) parts.push(h("ul", {}, sec.items.map((item) => h("li", { text: item }))));
    if (sec.actions) parts.push(actionRows(sec.actions));
    if (sec.after) for (const para of sec.after) parts.push(h("p", { text: para }));
    const figure = FIGURES[sec.id];
    if (figure) {
      parts.push(h("figure", { class: `fig fig-${sec.id}` }, h("div", { class: "fig-body" }, figure()), sec.caption ? h("figcaption", { text: sec.caption }) : null));
    }
    return h("section", { id: `rules-${sec.id}`, class: "rules-section" }, parts);
  }));
}

async function main() {
  await initI18n();
  onLanguageChange(render);
  render();
  if (location.hash) document.getElementById(location.hash.slice(1))?.scrollIntoView();
}

main();
