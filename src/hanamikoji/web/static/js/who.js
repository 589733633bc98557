// What tells players apart beside the name they typed, which anyone may type: an account's
// @user name, linked to its profile, a guest's "guest" mark, or a deleted account's "deleted
// account" mark, which no guest's may stand for (docs/web.md, "The lobby"). The
// lobby, the table, the home page's games, the spectator's table, the review, the chat, the games
// on now (/watch) and a profile's games all show it so.

import { h } from "./dom.js";
import { isolate, t } from "./i18n.js";

/**
 * The mark of a player: {account, text} for an account, {deleted: true, text} for an account
 * deleted since (the server's `deleted` or `opponent_deleted`), {guest: true, text} for a guest;
 * null where there is nobody to mark (`person` false: the AI, a seat nobody holds yet).
 */
export function whoMark(username, person = true, deleted = false) {
  if (username) return { account: username, text: `@${username}` };
  if (!person) return null;
  return deleted ? { deleted: true, text: t("lobby.deleted_mark") } : { guest: true, text: t("lobby.guest_mark") };
}

/** A name with its mark, in words (labels, titles): "Bob @bob_q", "bob_q, guest". */
export function markedText(name, mark) {
  if (!mark) return name;
  return mark.account ? `${name} ${mark.text}` : `${name}, ${mark.text}`;
}

/**
 * The mark shown: an account's @user name links to its profile; a guest's mark and a deleted
 * account's (which has no profile left to link to) are muted and say why.
 */
export function markNode(mark, linkClass = "user-mark") {
  if (!mark) return null;
  if (mark.account) {
    return h("a", { class: `${linkClass} small`, href: `/@/${encodeURIComponent(mark.account)}`, text: mark.text, title: t("lobby.profile_of", { name: mark.account }) });
  }
  if (mark.deleted) return h("span", { class: "deleted-mark small muted", text: mark.text, title: t("lobby.deleted_mark_title") });
  return h("span", { class: "guest-mark small muted", text: mark.text, title: t("lobby.guest_mark_title") });
}

/** A name and its mark, shown (the name isolated: a right-to-left one cannot reorder the mark). */
export function markedName(name, mark) {
  const node = markNode(mark);
  const data = { "data-username": mark?.account || null, "data-guest": mark?.guest ? "true" : null, "data-deleted": mark?.deleted ? "true" : null };
  return h("span", { class: "marked-name", ...data }, isolate(name), node ? [" ", node] : null);
}

/** The mark of a bot (docs/bots.md), after its name wherever it is named. */
export function botBadge() {
  return h("span", { class: "bot-badge", text: t("bots.badge"), title: t("bots.badge_title") });
}

/** A seat's marked name, with the bot's mark when `bot`. */
export function seatNamed(name, mark, bot = false) {
  const named = markedName(name, mark);
  if (bot) named.append(" ", botBadge());
  return named;
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
