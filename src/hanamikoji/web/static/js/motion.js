// Cards that travel: an element drawn in its new place is animated from where its card was before.

/** The on-screen box of an element (null when it is not shown). */
export function rectOf(node) {
  if (!node || !node.isConnected) return null;
  const r = node.getBoundingClientRect();
  return r.width || r.height ? r : null;
}

/** Animate node from the box `from` to where it is now (no-op when ms is 0 or there is no box). */
export function travel(node, from, ms) {
  if (!from || !ms || typeof node.animate !== "function") return;
  const to = node.getBoundingClientRect();
  if (!to.width) return;
  const dx = from.left + from.width / 2 - (to.left + to.width / 2);
  const dy = from.top + from.height / 2 - (to.top + to.height / 2);
  const scale = Math.max(0.3, Math.min(3, from.width / to.width));
  if (Math.abs(dx) < 1 && Math.abs(dy) < 1) return;
  node.animate(
    [
      { transform: `translate(${dx}px, ${dy}px) scale(${scale})`, zIndex: 20 },
      { transform: "none", zIndex: 20 },
    ],
    { duration: ms, easing: "cubic-bezier(0.2, 0.7, 0.3, 1)" },
  );
}
