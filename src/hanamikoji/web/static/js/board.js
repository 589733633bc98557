// The table: the 7 geisha in a row, the far player's cards above each, the near player's below, and
// each geisha's victory marker on the side of the player whose favour it holds (in the middle, on the
// geisha, when it is nobody's).

import { cardSvg, charmOf, GEISHA, geishaSvg, markerSvg } from "./cards.js";
import { h } from "./dom.js";
import { t } from "./i18n.js";
import { travel } from "./motion.js";
import { counts } from "./notation.js";

/** "me" | "opponent" | "none" for a marker owner (seat or null) seen from nearSeat. */
export function markerSide(owner, nearSeat) {
  if (owner === null || owner === undefined) return "none";
  return owner === nearSeat ? "me" : "opponent";
}

function stack(g, n, fresh, side, label) {
  const cards = [];
  for (let i = 0; i < n; i++) {
    const isFresh = i >= n - fresh;
    cards.push(h("span", { class: `pcard${isFresh ? " fresh" : ""}`, "data-card": g }, cardSvg(g)));
  }
  if (n) cards.push(h("span", { class: "count", "aria-hidden": "true", text: String(n) }));
  return h("div", { class: `side ${side}`, "data-count": n, style: `--n: ${Math.max(n, 1)}`, title: label }, cards);
}

function markerLabel(side, names) {
  if (side === "none") return t("board.marker_none_short");
  if (side === "me" && names.mine) return t("board.marker_mine"); // not "You's favour"
  return t("board.marker_of", { name: side === "me" ? names.near : names.far });
}

function marker(side, names) {
  return h("span", { class: "marker", "data-owner": side, role: "img", "aria-label": markerLabel(side, names) }, markerSvg(side));
}

/**
 * Render the board into root.
 * opts: {markers: [7 owners], near: "cards", far: "cards", nearSeat, freshNear: "cards", freshFar: "cards",
 *        nearName, farName} (names for the labels; default "you" / "opponent").
 */
export function renderBoard(root, opts) {
  const near = counts(opts.near);
  const far = counts(opts.far);
  const freshNear = counts(opts.freshNear || "");
  const freshFar = counts(opts.freshFar || "");
  const names = { near: opts.nearName ?? t("board.you"), far: opts.farName ?? t("board.opponent"), mine: !opts.nearName };
  const columns = GEISHA.map((g) => {
    const side = markerSide(opts.markers[g - 1], opts.nearSeat);
    const owner = side === "none" ? t("board.marker_none") : side === "me" ? names.near : names.far;
    const label = t("board.geisha_label", {
      g, charm: charmOf(g), far: far[g], near: near[g], farName: names.far, nearName: names.near, owner,
    });
    const slot = (where) => h("div", { class: `slot ${where}` }, side === where ? marker(side, names) : null);
    const card = h("div", { class: "geisha-card" }, geishaSvg(g), side === "none" ? marker(side, names) : null);
    return h(
      "div",
      { class: "geisha", "data-geisha": g, "data-marker": side, role: "group", "aria-label": label },
      stack(g, far[g], freshFar[g], "far", t("board.stack", { name: names.far, n: far[g] })),
      slot("opponent"),
      card,
      slot("me"),
      stack(g, near[g], freshNear[g], "near", t("board.stack", { name: names.near, n: near[g] })),
    );
  });
  root.replaceChildren(...columns);
  root.dataset.names = JSON.stringify(names);
}

/** Move geisha g's marker to `side` on an already rendered board, travelling for ms (the scoring). */
export function setMarker(root, g, side, ms = 0) {
  const column = root.querySelector(`.geisha[data-geisha="${g}"]`);
  const node = column?.querySelector(".marker");
  if (!column || !node || node.dataset.owner === side) return;
  const names = JSON.parse(root.dataset.names || "{}");
  const from = node.getBoundingClientRect();
  const place = side === "none" ? column.querySelector(".geisha-card") : column.querySelector(`.slot.${side}`);
  const next = marker(side, names);
  node.remove();
  place.append(next);
  column.dataset.marker = side;
  travel(next, from, ms);
}
