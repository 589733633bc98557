// The table: the 7 geisha in a row, the far player's cards above each, the near player's below.

import { cardSvg, charmOf, GEISHA, geishaSvg, markerSvg } from "./cards.js";
import { h } from "./dom.js";
import { t } from "./i18n.js";
import { counts } from "./notation.js";

/** "me" | "opponent" | "none" for a marker owner (seat or null) seen from nearSeat. */
export function markerSide(owner, nearSeat) {
  if (owner === null || owner === undefined) return "none";
  return owner === nearSeat ? "me" : "opponent";
}

function stack(g, n, fresh, side) {
  const cards = [];
  for (let i = 0; i < n; i++) {
    const isFresh = i >= n - fresh;
    cards.push(h("span", { class: `pcard${isFresh ? " fresh" : ""}`, "data-card": g }, cardSvg(g)));
  }
  return h("div", { class: `side ${side}` }, cards);
}

/**
 * Render the board into root.
 * opts: {markers: [7 owners], near: "cards", far: "cards", nearSeat, freshNear: "cards", freshFar: "cards",
 *        nearName, farName} (names for the aria labels; default "you" / "opponent").
 */
export function renderBoard(root, opts) {
  const near = counts(opts.near);
  const far = counts(opts.far);
  const freshNear = counts(opts.freshNear || "");
  const freshFar = counts(opts.freshFar || "");
  const nearName = opts.nearName ?? t("board.you");
  const farName = opts.farName ?? t("board.opponent");
  const columns = GEISHA.map((g) => {
    const side = markerSide(opts.markers[g - 1], opts.nearSeat);
    const owner = side === "none" ? t("board.marker_none") : side === "me" ? nearName : farName;
    const label = t("board.geisha_label", {
      g, charm: charmOf(g), far: far[g], near: near[g], farName, nearName, owner,
    });
    return h(
      "div",
      { class: "geisha", "data-geisha": g, "data-marker": side, role: "group", "aria-label": label },
      stack(g, far[g], freshFar[g], "far"),
      h(
        "div",
        { class: "geisha-card", title: label },
        geishaSvg(g),
        h("span", { class: "marker" }, markerSvg()),
      ),
      stack(g, near[g], freshNear[g], "near"),
    );
  });
  root.replaceChildren(...columns);
}

/** Move geisha g's marker on an already rendered board (the scoring animation). */
export function setMarker(root, g, side) {
  const node = root.querySelector(`.geisha[data-geisha="${g}"]`);
  if (node) node.dataset.marker = side;
}
