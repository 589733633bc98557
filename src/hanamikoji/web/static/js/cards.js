// The game's pieces as SVG: item cards, card backs, geisha, victory markers, action tokens.

import { s } from "./dom.js";

/** Charm of geisha 1..7 (index 0 is geisha 1); also how many item cards of her type exist. */
export const CHARM = [2, 2, 2, 3, 3, 4, 5];
export const GEISHA = [1, 2, 3, 4, 5, 6, 7];
export const ACTIONS = ["S", "D", "G", "C"];
/** Cards an action takes from the hand. */
export const ACTION_SIZE = { S: 1, D: 2, G: 3, C: 4 };

/**
 * One colour per geisha: wisteria, crimson, kerria, indigo, persimmon, matcha, plum blossom. Each is
 * dark enough for its digit to reach 4.5:1 against the card's paper (WCAG 2.2 AA).
 */
export const COLOR = ["#7a5c9e", "#b03a48", "#906c1f", "#2f5c8a", "#af5b2b", "#517c36", "#ae5279"];
const INK = "#2b2622";
const PAPER = "#fffcf4";

export const charmOf = (g) => CHARM[Number(g) - 1];
export const colorOf = (g) => COLOR[Number(g) - 1];

function svgRoot(viewBox, cls, label) {
  const attrs = { viewBox, class: cls, focusable: "false" };
  if (label) {
    attrs.role = "img";
    attrs["aria-label"] = label;
  } else attrs["aria-hidden"] = "true";
  return s("svg", attrs);
}

/** A small motif per geisha type, so cards differ by shape as well as colour. */
function motif(g, cx, cy, r, color) {
  const pts = (n, rot = -90, rr = r) =>
    Array.from({ length: n }, (_, i) => {
      const a = ((rot + (360 / n) * i) * Math.PI) / 180;
      return `${(cx + rr * Math.cos(a)).toFixed(1)},${(cy + rr * Math.sin(a)).toFixed(1)}`;
    }).join(" ");
  switch (Number(g)) {
    case 1: return s("circle", { cx, cy, r: r * 0.8, fill: "none", stroke: color, "stroke-width": 1.6 });
    case 2: return s("polygon", { points: pts(4, -90), fill: color });
    case 3: return s("polygon", { points: pts(3, -90), fill: color });
    case 4: return s("rect", { x: cx - r * 0.7, y: cy - r * 0.7, width: r * 1.4, height: r * 1.4, fill: "none", stroke: color, "stroke-width": 1.6 });
    case 5: return s("polygon", { points: pts(6, -90), fill: color });
    case 6: {
      const star = [];
      for (let i = 0; i < 10; i++) {
        const rr = i % 2 ? r * 0.45 : r;
        const a = ((-90 + 36 * i) * Math.PI) / 180;
        star.push(`${(cx + rr * Math.cos(a)).toFixed(1)},${(cy + rr * Math.sin(a)).toFixed(1)}`);
      }
      return s("polygon", { points: star.join(" "), fill: color });
    }
    default: return flower(cx, cy, r, color, PAPER);
  }
}

function flower(cx, cy, r, petal, centre) {
  const g = s("g");
  for (let i = 0; i < 5; i++) {
    const a = ((-90 + 72 * i) * Math.PI) / 180;
    g.append(s("circle", { cx: cx + r * 0.5 * Math.cos(a), cy: cy + r * 0.5 * Math.sin(a), r: r * 0.45, fill: petal }));
  }
  g.append(s("circle", { cx, cy, r: r * 0.25, fill: centre }));
  return g;
}

/** An item card of geisha g, face up. */
export function cardSvg(g, label = null) {
  const color = colorOf(g);
  const root = svgRoot("0 0 60 84", "card-art", label);
  root.append(
    s("rect", { x: 1, y: 1, width: 58, height: 82, rx: 6, fill: PAPER, stroke: color, "stroke-width": 2 }),
    s("rect", { x: 4, y: 4, width: 52, height: 17, rx: 3, fill: color }),
    motif(g, 30, 12.5, 5.5, PAPER),
    s("text", { x: 30, y: 60, "text-anchor": "middle", "font-size": 36, "font-weight": 700, fill: color, "font-family": "Georgia, 'Times New Roman', serif" }, String(g)),
  );
  const n = charmOf(g);
  for (let i = 0; i < n; i++) {
    root.append(s("circle", { cx: 30 + (i - (n - 1) / 2) * 7, cy: 74, r: 2.2, fill: color }));
  }
  return root;
}

/** The back of an item card (hidden cards: the pile, the opponent's hand, Secrets, Discards). */
export function backSvg(label = null) {
  const root = svgRoot("0 0 60 84", "card-art back", label);
  root.append(
    s("rect", { x: 1, y: 1, width: 58, height: 82, rx: 6, fill: "#33405e", stroke: "#1f2840", "stroke-width": 2 }),
    s("rect", { x: 6, y: 6, width: 48, height: 72, rx: 3, fill: "none", stroke: "#c9a55a", "stroke-width": 1 }),
    s("circle", { cx: 30, cy: 42, r: 13, fill: "none", stroke: "#c9a55a", "stroke-width": 1.5 }),
    flower(30, 42, 10, "#c9a55a", "#33405e"),
  );
  return root;
}

/** A geisha card: her figure in her colour, her charm in the corner. */
export function geishaSvg(g, label = null) {
  const color = colorOf(g);
  const root = svgRoot("0 0 100 140", "geisha-art", label);
  root.append(
    s("rect", { x: 2, y: 2, width: 96, height: 136, rx: 8, fill: PAPER, stroke: color, "stroke-width": 3 }),
    s("rect", { x: 8, y: 8, width: 84, height: 124, rx: 5, fill: color, opacity: 0.13 }),
    // kimono, collar, obi
    s("path", { d: "M24 132 L34 94 Q50 84 66 94 L76 132 Z", fill: color }),
    s("path", { d: "M42 88 L50 106 L58 88", fill: "none", stroke: PAPER, "stroke-width": 3.2 }),
    s("rect", { x: 33, y: 108, width: 34, height: 9, fill: "#d9b45f", stroke: INK, "stroke-width": 0.6 }),
    s("rect", { x: 46, y: 74, width: 8, height: 14, fill: "#f7ecdf" }),
    // hair (back, top bun, side wings), face, fringe, features
    s("ellipse", { cx: 50, cy: 57, rx: 19, ry: 17, fill: INK }),
    s("ellipse", { cx: 50, cy: 37, rx: 15, ry: 9, fill: INK }),
    s("ellipse", { cx: 32.5, cy: 55, rx: 6.5, ry: 9, fill: INK }),
    s("ellipse", { cx: 67.5, cy: 55, rx: 6.5, ry: 9, fill: INK }),
    s("ellipse", { cx: 50, cy: 64, rx: 11.5, ry: 13.5, fill: "#fbf4ea" }),
    s("path", { d: "M38.5 61 Q39 48.5 50 48 Q61 48.5 61.5 61 Q57 53.5 50 53.5 Q43 53.5 38.5 61 Z", fill: INK }),
    s("path", { d: "M43 64 Q45 65.5 47 64 M53 64 Q55 65.5 57 64", fill: "none", stroke: INK, "stroke-width": 1, "stroke-linecap": "round" }),
    s("ellipse", { cx: 50, cy: 71.5, rx: 2, ry: 1.3, fill: "#b03a2e" }),
    flower(63, 33, 7, color, "#f3d27a"),
    s("line", { x1: 36, y1: 40, x2: 24, y2: 33, stroke: "#d9b45f", "stroke-width": 1.8, "stroke-linecap": "round" }),
    // charm in the corner
    s("circle", { cx: 20, cy: 20, r: 12, fill: color, stroke: PAPER, "stroke-width": 2 }),
    s("text", { x: 20, y: 25.5, "text-anchor": "middle", "font-size": 15, "font-weight": 700, fill: PAPER, "font-family": "Georgia, serif" }, String(charmOf(g))),
  );
  for (let i = 0; i < charmOf(g); i++) {
    root.append(s("circle", { cx: 86, cy: 14 + i * 7, r: 2.4, fill: color }));
  }
  return root;
}

/** The victory marker token, in its owner's colour: the near player's indigo, the far player's vermilion. */
export function markerSvg(owner = "none", label = null) {
  const fill = { me: "#2f4a6e", opponent: "#b03a2e", none: "#f4eee2" }[owner] ?? "#f4eee2";
  const edge = { me: "#17263b", opponent: "#6e1d14", none: "#5e554c" }[owner] ?? "#5e554c";
  const petal = owner === "none" ? "#8a7f72" : "#fff4e6";
  const root = svgRoot("0 0 40 40", "marker-art", label);
  root.append(
    s("circle", { cx: 20, cy: 20, r: 18, fill, stroke: edge, "stroke-width": 2.5 }),
    flower(20, 20, 11, petal, fill),
  );
  return root;
}

function miniCard(x, y, rot, fill, stroke) {
  return s("rect", { x, y, width: 11, height: 16, rx: 1.8, fill, stroke, "stroke-width": 1.2, transform: `rotate(${rot} ${x + 5.5} ${y + 8})` });
}

/** An action token: Secret (1 hidden card), Discard (2 crossed cards), Gift (3 cards), Competition (2+2). */
export function actionSvg(action, used = false, label = null) {
  const root = svgRoot("0 0 48 48", `action-art${used ? " used" : ""}`, label);
  const ink = used ? "#9a928a" : INK;
  const face = used ? "#e4ded3" : PAPER;
  const back = used ? "#b9b2a8" : "#33405e";
  root.append(s("circle", { cx: 24, cy: 24, r: 22, fill: used ? "#d8d1c5" : "#efe3c8", stroke: ink, "stroke-width": 2 }));
  const g = s("g");
  if (action === "S") {
    g.append(
      s("rect", { x: 16.5, y: 12.5, width: 15, height: 22, rx: 2.2, fill: back, stroke: ink, "stroke-width": 1.2 }),
      s("circle", { cx: 24, cy: 23.5, r: 3, fill: used ? face : "#c9a55a" }),
    );
  } else if (action === "D") {
    g.append(miniCard(13, 16, -12, back, ink), miniCard(24, 16, 12, back, ink));
    g.append(s("path", { d: "M12 14 L36 34 M36 14 L12 34", stroke: used ? ink : "#b03a2e", "stroke-width": 2.2, "stroke-linecap": "round" }));
  } else if (action === "G") {
    g.append(miniCard(10, 17, -18, face, ink), miniCard(18.5, 14, 0, face, ink), miniCard(27, 17, 18, face, ink));
  } else {
    g.append(miniCard(8, 16, -8, face, ink), miniCard(14, 17, 8, face, ink), miniCard(25, 16, -8, face, ink), miniCard(31, 17, 8, face, ink));
    g.append(s("line", { x1: 24, y1: 12, x2: 24, y2: 37, stroke: ink, "stroke-width": 1.4, "stroke-dasharray": "2 2" }));
  }
  root.append(g);
  if (used) root.append(s("line", { x1: 9, y1: 39, x2: 39, y2: 9, stroke: ink, "stroke-width": 2 }));
  return root;
}
