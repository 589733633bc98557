// The win-probability graph of the review page, as SVG.

import { s } from "./dom.js";
import { percent, t } from "./i18n.js";
import { moveLabel } from "./words.js";

const M = { left: 46, right: 14, top: 14, bottom: 30 };
const MISTAKE = 0.1;

/**
 * Draw into svg: the near seat's and the far seat's win probability at each decision
 * (a seat's own decisions give p, the other seat's give 1 - p), round boundaries, the current frame.
 * opts: {decisions, moves (per frame {round, index} or null), frame, near, names, onPick(frameIndex)}.
 */
export function drawGraph(svg, opts) {
  // one SVG unit per CSS pixel, so the labels stay readable on a phone
  const W = Math.max(300, Math.round(svg.parentElement?.clientWidth || 800) - 14);
  const H = W < 600 ? 200 : 260;
  const total = Math.max(1, opts.moves.length - 1);
  const x = (f) => M.left + (f / total) * (W - M.left - M.right);
  const y = (p) => M.top + (1 - p) * (H - M.top - M.bottom);
  const byKey = new Map(opts.decisions.map((d) => [`${d.round}:${d.index}`, d]));
  const points = [];
  opts.moves.forEach((at, f) => {
    const d = at && byKey.get(`${at.round}:${at.index}`);
    if (!d) return;
    const own = d.win_probability;
    const pNear = d.seat === opts.near ? own : 1 - own;
    points.push({ f, d, pNear });
  });

  svg.replaceChildren();
  svg.setAttribute("viewBox", `0 0 ${W} ${H}`);
  const grid = s("g", { class: "grid" });
  for (const p of [0, 0.25, 0.5, 0.75, 1]) {
    grid.append(
      s("line", { x1: M.left, x2: W - M.right, y1: y(p), y2: y(p), class: p === 0.5 ? "half" : "" }),
      s("text", { x: M.left - 6, y: y(p) + 4, "text-anchor": "end" }, percent(p)),
    );
  }
  let lastRound = null;
  opts.moves.forEach((at, f) => {
    if (!at || at.round === lastRound) return;
    lastRound = at.round;
    const xf = x(Math.max(0, f - 0.5));
    grid.append(
      s("line", { x1: xf, x2: xf, y1: M.top, y2: H - M.bottom, class: "round" }),
      s("text", { x: xf + 4, y: H - M.bottom + 18 }, t("review.round_short", { round: at.round })),
    );
  });
  svg.append(grid);

  svg.append(s("line", { x1: x(opts.frame), x2: x(opts.frame), y1: M.top, y2: H - M.bottom, class: "cursor" }));
  if (points.length) {
    const path = (get) => points.map((p, i) => `${i ? "L" : "M"}${x(p.f).toFixed(1)} ${y(get(p)).toFixed(1)}`).join(" ");
    svg.append(
      s("path", { d: path((p) => 1 - p.pNear), class: "line far" }),
      s("path", { d: path((p) => p.pNear), class: "line near" }),
    );
  }
  for (const p of points) {
    const mistake = p.d.loss >= MISTAKE;
    const label = t("review.point", {
      n: p.f, name: opts.names[p.d.seat], move: moveLabel(p.d.played),
      p: percent(p.d.seat === opts.near ? p.pNear : 1 - p.pNear), loss: percent(p.d.loss),
    });
    const dot = s(
      "circle",
      {
        cx: x(p.f), cy: y(p.d.seat === opts.near ? p.pNear : 1 - p.pNear), r: p.f === opts.frame ? 6 : 3.5,
        class: `dot ${p.d.seat === opts.near ? "near" : "far"}${mistake ? " mistake" : ""}${p.f === opts.frame ? " current" : ""}`,
      },
      s("title", {}, label),
    );
    svg.append(dot);
  }
  svg.onclick = (event) => {
    const ctm = svg.getScreenCTM();
    if (!ctm) return;
    const pt = new DOMPoint(event.clientX, event.clientY).matrixTransform(ctm.inverse());
    const f = Math.round(((pt.x - M.left) / (W - M.left - M.right)) * total);
    opts.onPick(Math.max(0, Math.min(total, f)));
  };
}
