// The review's graph as SVG: the story of the game as one line, the near player's chance of winning.

import { s } from "./dom.js";
import { percent, t } from "./i18n.js";
import { moveLabel } from "./words.js";

const M = { left: 40, right: 12, top: 12, bottom: 24 };

/** What a decision shows on the graph: "hint" (followed), "mistake", "hint-ignored" or null. */
export function markOf(d, mistake) {
  if (!d) return null;
  if (d.hint?.move === d.played) return "hint"; // the hint's advice is never the player's mistake
  if (d.loss >= mistake) return "mistake";
  return d.hint ? "hint-ignored" : null;
}

/** The near player's final score: 1 for a win, 0 for a loss, 1/2 for a draw (null if unknown). */
export function finalScore(result, near) {
  if (!result) return null;
  if (result.winner === null || result.winner === undefined) return 0.5;
  return result.winner === near ? 1 : 0;
}

/** The endings the rules decide (after the last move): the others come after it (a player's). */
const BY_THE_RULES = ["charm", "geisha", "round-limit", "draw"];

/**
 * The line: the near player's chance of winning at each frame, [{f, p, d}]. Frame 0 is the first
 * decider's estimate before moving; frame f (after move f) the estimate of that move's decider
 * after it (the other player's seen from the near side: 1 - p); the last frame is the result:
 * that of its move where the rules ended the game there, after it (a second point at the same
 * frame) where a player resigned, forfeited or ran out of time after the last move.
 */
export function storyPoints(decisions, moves, near, result) {
  const byKey = new Map(decisions.map((d) => [`${d.round}:${d.index}`, d]));
  const side = (d, p) => (d.seat === near ? p : 1 - p);
  const points = [];
  moves.forEach((at, f) => {
    const d = at && byKey.get(`${at.round}:${at.index}`);
    if (!d) return;
    if (!points.length) points.push({ f: f - 1, p: side(d, d.win_probability), d: null });
    points.push({ f, p: side(d, d.played_value), d });
  });
  const last = moves.length - 1;
  const score = finalScore(result, near);
  if (score !== null && last > 0) {
    const end = points.at(-1);
    const byRules = !result.reason || BY_THE_RULES.includes(result.reason);
    if (end && end.f === last && byRules) end.p = score;
    else points.push({ f: last, p: score, d: null });
  }
  return points;
}

/** The SVG shape of a mark, centred on (x, y): also drawn in the legend. */
export function markShape(kind, x, y, extra = {}) {
  const cls = `mark ${kind}${extra.class ? ` ${extra.class}` : ""}`;
  if (kind === "mistake") {
    const r = 6.5;
    return s("path", { class: cls, d: `M${x} ${y - r} L${x + r} ${y} L${x} ${y + r} L${x - r} ${y} Z` });
  }
  if (kind === "hint" || kind === "hint-ignored") return s("circle", { class: cls, cx: x, cy: y, r: 7 });
  if (kind === "current") return s("circle", { class: cls, cx: x, cy: y, r: 5.5 });
  if (kind === "point") return s("circle", { class: cls, cx: x, cy: y, r: 2.5 });
  if (kind === "round") return s("line", { class: cls, x1: x, x2: x, y1: y - 8, y2: y + 8 });
  return s("line", { class: cls, x1: x - 9, x2: x + 9, y1: y, y2: y });
}

/**
 * Draw the graph into svg. opts: {decisions, moves (per frame {round, index} or null), frame, near,
 * names, result, mistake (the loss from which a move is a mistake), onPick(frameIndex)}.
 */
export function drawGraph(svg, opts) {
  // one SVG unit per CSS pixel, so the labels stay readable in a narrow column
  const W = Math.max(260, Math.round(svg.parentElement?.clientWidth || 800) - 14);
  const H = Math.round(Math.min(230, Math.max(150, W * 0.45)));
  const total = Math.max(1, opts.moves.length - 1);
  const x = (f) => M.left + (f / total) * (W - M.left - M.right);
  const y = (p) => M.top + (1 - p) * (H - M.top - M.bottom);
  const points = storyPoints(opts.decisions, opts.moves, opts.near, opts.result);

  svg.replaceChildren();
  svg.setAttribute("viewBox", `0 0 ${W} ${H}`);
  svg.setAttribute("aria-label", t("review.graph_label_of", { name: opts.names[opts.near] }));
  const grid = s("g", { class: "grid" });
  for (const p of [0, 0.25, 0.5, 0.75, 1]) {
    grid.append(s("line", { x1: M.left, x2: W - M.right, y1: y(p), y2: y(p), class: p === 0.5 ? "half" : "" }));
    if (p !== 0.25 && p !== 0.75) grid.append(s("text", { x: M.left - 5, y: y(p) + 4, "text-anchor": "end" }, percent(p)));
  }
  let lastRound = null;
  opts.moves.forEach((at, f) => {
    if (!at || at.round === lastRound) return;
    lastRound = at.round;
    const xf = x(Math.max(0, f - 0.5));
    grid.append(
      s("line", { x1: xf, x2: xf, y1: M.top, y2: H - M.bottom, class: "round" }),
      s("text", { x: xf + 3, y: H - M.bottom + 16 }, t("review.round_short", { round: at.round })),
    );
  });
  svg.append(grid);
  svg.append(s("line", { x1: x(opts.frame), x2: x(opts.frame), y1: M.top, y2: H - M.bottom, class: "cursor" }));

  if (points.length) {
    const d = points.map((p, i) => `${i ? "L" : "M"}${x(p.f).toFixed(1)} ${y(p.p).toFixed(1)}`).join(" ");
    // the points as data too, "frame:chance" each: what the line says, readable without pixels
    const data = points.map((p) => `${p.f}:${p.p.toFixed(4)}`).join(" ");
    svg.append(s("path", { d, class: "line", "data-points": data }));
  }
  for (const p of points) {
    const seat = p.d ? (p.d.seat === opts.near ? "near" : "far") : "";
    const kind = markOf(p.d, opts.mistake);
    const viewer = opts.names[opts.near];
    const label = p.d
      ? t("review.point", {
          n: p.f, name: opts.names[p.d.seat], move: moveLabel(p.d.played), viewer,
          p: percent(p.p), loss: percent(p.d.loss),
        })
      : p.f === 0 // the deal, before any move: not "Move 0"
        ? t("review.point_start", { viewer, p: percent(p.p) })
        : t("review.point_plain", { n: p.f, viewer, p: percent(p.p) });
    // A mistake made against the hint given there keeps the hint's dashed ring round its diamond:
    // the player was told, and the graph says so as the comment does.
    if (kind === "mistake" && p.d.hint) {
      const ring = markShape("hint-ignored", x(p.f), y(p.p), { class: `${seat} around` });
      ring.setAttribute("r", 10); // outside the diamond's corners (6.5 from its centre)
      svg.append(ring);
    }
    const dot = markShape(kind || "point", x(p.f), y(p.p), { class: seat });
    dot.setAttribute("data-frame", p.f);
    dot.append(s("title", {}, label));
    svg.append(dot);
  }
  const here = points.find((p) => p.f === opts.frame);
  if (here) svg.append(markShape("current", x(here.f), y(here.p)));
  svg.onclick = (event) => {
    const ctm = svg.getScreenCTM();
    if (!ctm) return;
    const pt = new DOMPoint(event.clientX, event.clientY).matrixTransform(ctm.inverse());
    const f = Math.round(((pt.x - M.left) / (W - M.left - M.right)) * total);
    opts.onPick(Math.max(0, Math.min(total, f)));
  };
}

/** A small SVG of one mark, for the legend. */
export function legendSwatch(kind, seat = "") {
  const svg = s("svg", { class: "swatch", viewBox: "0 0 22 18", width: 22, height: 18, "aria-hidden": "true", focusable: "false" });
  if (kind === "line") svg.append(s("line", { class: "line", x1: 1, x2: 21, y1: 9, y2: 9 }));
  else svg.append(markShape(kind, 11, 9, { class: seat }));
  return svg;
}
