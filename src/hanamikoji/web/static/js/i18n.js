// Translations: en, ru, cs, fr. The language comes from localStorage, else navigator.languages.

export const LANGUAGES = { en: "English", ru: "Русский", cs: "Čeština", fr: "Français" };
const STORAGE_KEY = "hanamikoji.lang";

let lang = "en";
let dict = {};
let fallback = {};
const listeners = [];

function stored() {
  try {
    return localStorage.getItem(STORAGE_KEY);
  } catch {
    return null;
  }
}

/** The language to use: the stored choice, else the browser's first supported one, else English. */
export function detectLanguage() {
  const saved = stored();
  if (saved && saved in LANGUAGES) return saved;
  for (const tag of navigator.languages || [navigator.language || "en"]) {
    const base = String(tag).toLowerCase().split("-")[0];
    if (base in LANGUAGES) return base;
  }
  return "en";
}

async function load(code) {
  const response = await fetch(`/static/i18n/${code}.json`);
  if (!response.ok) throw new Error(`no translation ${code}`);
  return response.json();
}

function lookup(table, key) {
  let node = table;
  for (const part of key.split(".")) {
    if (node === null || typeof node !== "object" || !(part in node)) return undefined;
    node = node[part];
  }
  return node;
}

// Right-to-left letters (Hebrew, Arabic, Syriac, Thaana, N'Ko, ...) and the bidi controls.
const NEEDS_ISOLATION = /[\u0590-\u08FF\uFB1D-\uFDFF\uFE70-\uFEFC\u{10800}-\u{10FFF}\u{1E800}-\u{1EFFF}\p{Bidi_Control}]/u;
const FSI = "\u2068"; // FIRST STRONG ISOLATE
const PDI = "\u2069"; // POP DIRECTIONAL ISOLATE

/** A user-supplied text (a player's name) isolated from the text around it (Unicode bidi
 * isolation, FSI ... PDI): "Charm: you 7, בוב 12" keeps the 12 out of the name's right-to-left run,
 * and a name cannot reorder the sentence it sits in. A text without right-to-left letters or bidi
 * controls cannot be reordered, nor reorder its neighbours, in these left-to-right languages: it
 * comes back as it is. Every {param} of t() goes through here, so a translated sentence isolates its
 * names itself; text built without t() calls it directly. */
export function isolate(text) {
  const value = String(text ?? "");
  if (!NEEDS_ISOLATION.test(value)) return value;
  if (value.startsWith(FSI) && value.endsWith(PDI) && value.indexOf(PDI) === value.length - 1) return value;
  return `${FSI}${value}${PDI}`;
}

/** The AI's name ("AI (Easy)", game.ai_name) by level, mapped to how a sentence says it where the
 * language needs another form: French "l'IA (Facile)" inside a sentence ("faveur de l'IA"), "L'IA
 * (Facile)" at its start (game.ai_name_in_sentence, game.ai_name_sentence_start); the same name
 * in the others. Read from the dictionary on each language switch. */
let aiForms = new Map();

function readAiForms() {
  aiForms = new Map();
  for (const level of Object.values(data("levels") ?? {})) {
    const name = t("game.ai_name", { level });
    const inner = t("game.ai_name_in_sentence", { level });
    const start = t("game.ai_name_sentence_start", { level });
    if (inner !== name || start !== name) aiForms.set(name, { inner, start });
  }
}

/** Whether text before a placeholder leaves it at the start of a sentence. */
const startsSentence = (before) => /(^|[.!?…]\s+)$/u.test(before);

/** The words a language shortens before a name that starts with a vowel (game.name_elision, read on
 * each language switch): French "de" + "alice_p" is "d'alice_p", "que" + "Émile" "qu'Émile"; "de
 * Bob", "de l'IA" stay. An h is not counted: whether it elides depends on the word. */
let elisions = [];
const VOWEL_START = /^[aeiouyàâäæéèêëîïôöœùûüÿ]/iu;

function readElisions() {
  const pairs = data("game.name_elision");
  elisions = (Array.isArray(pairs) ? pairs : []).map(([word, short]) => ({ word, short }));
}

/** ``before`` with its last word shortened where it comes before ``value`` (else as it is). */
function elide(before, value) {
  if (!elisions.length || !VOWEL_START.test(String(value))) return before;
  for (const { word, short } of elisions) {
    const at = before.length - word.length;
    if (at >= 0 && before.endsWith(word) && (at === 0 || !/\p{L}/u.test(before[at - 1]))) {
      return before.slice(0, at) + short;
    }
  }
  return before;
}

function format(text, params) {
  const whole = String(text);
  let out = "";
  let last = 0;
  for (const match of whole.matchAll(/\{(\w+)\}/g)) {
    const [placeholder, name] = match;
    out += whole.slice(last, match.index);
    last = match.index + placeholder.length;
    if (!(name in params)) {
      out += placeholder;
      continue;
    }
    const forms = aiForms.get(params[name]);
    if (forms) {
      out += startsSentence(whole.slice(0, match.index)) ? forms.start : forms.inner;
    } else {
      out = elide(out, params[name]) + isolate(params[name]);
    }
  }
  return out + whole.slice(last);
}

/** The text of key with {params} filled in; a plural entry ({one, few, many, other}) picks by params.n. */
export function t(key, params = {}) {
  let value = lookup(dict, key);
  if (value === undefined) value = lookup(fallback, key);
  if (value === undefined) return key;
  if (value !== null && typeof value === "object" && !Array.isArray(value)) {
    const form = new Intl.PluralRules(lang).select(Number(params.n ?? 0));
    value = value[form] ?? value.other;
  }
  return Array.isArray(value) ? value : format(value, params);
}

/** The page's language now ("en", "ru", "cs", "fr"). */
export function language() {
  return lang;
}

/** Raw structured data of a key (e.g. the rules page's sections). */
export function data(key) {
  return lookup(dict, key) ?? lookup(fallback, key);
}

/** A list in words: ["1", "4", "7"] -> "1, 4, 7". */
export function list(items) {
  return items.join(", ");
}

/** Percent, localised: 0.634 -> "63 %" / "63%". */
/** An ISO time as the page's language writes a day ("6 Dec 2026"); "" for no valid time. */
export function dateText(iso) {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return "";
  return new Intl.DateTimeFormat(document.documentElement.lang || "en", { dateStyle: "medium" }).format(date);
}

export function percent(p) {
  return new Intl.NumberFormat(lang, { style: "percent", maximumFractionDigits: 0 }).format(p);
}

/** Fill every [data-i18n] element's text and [data-i18n-attr="attr:key;attr:key"] attributes. */
export function applyStatic(root = document) {
  for (const node of root.querySelectorAll("[data-i18n]")) node.textContent = t(node.dataset.i18n);
  for (const node of root.querySelectorAll("[data-i18n-attr]")) {
    for (const pair of node.dataset.i18nAttr.split(";")) {
      const [attr, key] = pair.split(":").map((x) => x.trim());
      if (attr && key) node.setAttribute(attr, t(key));
    }
  }
  const title = document.querySelector("title[data-i18n]");
  if (title) document.title = title.textContent;
}

async function setLanguage(code) {
  lang = code in LANGUAGES ? code : "en";
  dict = lang === "en" ? fallback : await load(lang).catch(() => fallback);
  document.documentElement.lang = lang;
  readElisions();
  readAiForms();
  applyStatic();
  for (const listener of listeners) listener(lang);
}

/** Call fn now-ish and after every language switch (re-render dynamic text). */
export function onLanguageChange(fn) {
  listeners.push(fn);
}

/** Load the translations and wire select#lang; resolves once the page's static text is translated. */
export async function initI18n() {
  fallback = await load("en");
  const select = document.getElementById("lang");
  const code = detectLanguage();
  if (select) {
    select.replaceChildren();
    for (const [value, name] of Object.entries(LANGUAGES)) {
      const option = document.createElement("option");
      option.value = value;
      option.textContent = name;
      option.lang = value;
      select.append(option);
    }
    select.value = code;
    select.addEventListener("change", () => {
      try {
        localStorage.setItem(STORAGE_KEY, select.value);
      } catch {
        /* private mode: the choice lasts for this page only */
      }
      setLanguage(select.value);
    });
  }
  await setLanguage(code);
}
