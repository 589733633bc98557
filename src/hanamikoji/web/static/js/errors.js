// The reason a request to the server failed, in words for the page.

import { language, t } from "./i18n.js";

/** Codes our own words say fully, in the page's language (the server's message adds nothing). */
const OURS = ["offline", "busy", "bad-origin"];

/** A sentence: a capital first letter, a full stop at the end. */
function sentence(text) {
  const s = String(text).trim();
  if (!s) return s;
  const first = s[0].toUpperCase() + s.slice(1);
  return /[.!?…]$/.test(first) ? first : `${first}.`;
}

/** Our words for a code, in the page's language (null: none). */
function ours(code) {
  if (!code) return null;
  const key = `errors.${code}`;
  const text = t(key);
  return text === key ? null : text;
}

/** The reason of a failed request ({status, code, error}): ours where we have words, else the
 * server's. The server speaks English: on a page in English its reason, which says more (which
 * limit, what to do), comes first; in another language our words for its code, where we have
 * them, rather than English in the middle of the page. */
export function reasonOf(error) {
  if (!error) return "";
  if (OURS.includes(error.code)) return t(`errors.${error.code}`);
  if (language() !== "en" && ours(error.code)) return ours(error.code);
  if (error.error) return sentence(error.error);
  if (error.code) {
    const key = `errors.${error.code}`;
    const text = t(key);
    if (text !== key) return text;
  }
  if (error.status === 429) return t("errors.too-many");
  if (error.status === 503) return t("errors.busy");
  if (error.message) return sentence(error.message);
  return t("errors.unknown");
}
