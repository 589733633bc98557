// Move notation (interfaces.md §1) and card multisets, as plain strings of digits.

/** "741" -> "147". */
export const sortCards = (cards) => [...String(cards)].sort().join("");

/** {kind, cards, pairs}: "C12-47" -> {kind: "C", cards: "1247", pairs: ["12", "47"]}. */
export function parseMove(move) {
  const kind = move[0];
  const body = move.slice(1);
  if (kind === "C") {
    const pairs = body.split("-");
    return { kind, cards: sortCards(pairs.join("")), pairs };
  }
  return { kind, cards: body, pairs: null };
}

/** The canonical Competition for two pairs. */
export function competition(a, b) {
  const [p, q] = [sortCards(a), sortCards(b)].sort();
  return `C${p}-${q}`;
}

/** The distinct Competitions of 4 cards (1 to 3 of them). */
export function competitions(cards) {
  const [a, b, c, d] = sortCards(cards);
  return [...new Set([competition(a + b, c + d), competition(a + c, b + d), competition(a + d, b + c)])];
}

/** The move an action makes of the selected cards: list, since a Competition can split 4 cards 3 ways. */
export function movesFor(action, cards) {
  if (action === "C") return competitions(cards);
  return [action + sortCards(cards)];
}

/** Count of each card 1..7 in a string: counts("1447")[4] === 2. */
export function counts(cards) {
  const n = [0, 0, 0, 0, 0, 0, 0, 0];
  for (const c of String(cards || "")) n[Number(c)] += 1;
  return n;
}

/** Multiset difference a - b, as a sorted string. */
export function minus(a, b) {
  const left = counts(b);
  let out = "";
  for (const c of sortCards(a || "")) {
    if (left[Number(c)] > 0) left[Number(c)] -= 1;
    else out += c;
  }
  return out;
}

/** What the offerer keeps of an offer after the pick: ("G147", "P4") -> "17". */
export function offerRest(offer, pick) {
  const o = parseMove(offer);
  return minus(o.cards, pick.slice(1));
}
