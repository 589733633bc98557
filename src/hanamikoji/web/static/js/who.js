// What tells players apart beside the name they typed, which anyone may type: an account's
// @user name, linked to its profile, or a guest's "guest" mark (docs/web.md, "The lobby"). The
// lobby, the table, the home page's games, the spectator's table, the review, the chat, the games
// on now (/watch) and a profile's games all show it so.

import { h } from "./dom.js";
import { isolate, t } from "./i18n.js";

/**
 * The mark of a player: {account, text} for an account, {guest: true, text} for a guest; null
 * where there is nobody to mark (`person` false: the AI, a seat nobody holds yet).
 */
export function whoMark(username, person = true) {
  if (username) return { account: username, text: `@${username}` };
  return person ? { guest: true, text: t("lobby.guest_mark") } : null;
}

/** A name with its mark, in words (labels, titles): "Bob @bob_q", "bob_q, guest". */
export function markedText(name, mark) {
  if (!mark) return name;
  return mark.guest ? `${name}, ${mark.text}` : `${name} ${mark.text}`;
}

/** The mark shown: an account's @user name links to its profile, a guest's mark is muted and says why. */
export function markNode(mark, linkClass = "user-mark") {
  if (!mark) return null;
  return mark.account
    ? h("a", { class: `${linkClass} small`, href: `/@/${encodeURIComponent(mark.account)}`, text: mark.text, title: t("lobby.profile_of", { name: mark.account }) })
    : h("span", { class: "guest-mark small muted", text: mark.text, title: t("lobby.guest_mark_title") });
}

/** A name and its mark, shown (the name isolated: a right-to-left one cannot reorder the mark). */
export function markedName(name, mark) {
  const node = markNode(mark);
  return h("span", { class: "marked-name", "data-username": mark?.account || null, "data-guest": mark?.guest ? "true" : null }, isolate(name), node ? [" ", node] : null);
}

/**
 * Someone shown by their mark alone, where nobody typed a name (the spectators' chat): an
 * account's @user name linked to its profile, else `guestText` marked as a guest's.
 */
export function markAlone(username, guestText = t("lobby.guest_mark")) {
  return markNode(username ? whoMark(username) : { guest: true, text: guestText });
}

const SLOT = "\u0000"; // no translation holds it: where a node goes in a translated sentence

/**
 * A translated sentence whose {param} is a node instead of text: t(key, params) with `nodes`
 * ({param: node}) put in their places. A list of strings and nodes, for h() or fill().
 */
export function sentence(key, params, nodes) {
  const names = Object.keys(nodes);
  const slots = Object.fromEntries(names.map((name, i) => [name, `${SLOT}${i}${SLOT}`]));
  return t(key, { ...params, ...slots })
    .split(new RegExp(`${SLOT}(\\d+)${SLOT}`))
    .map((part, i) => (i % 2 ? nodes[names[Number(part)]] : part))
    .filter((part) => part !== "");
}
