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

function format(text, params) {
  return String(text).replace(/\{(\w+)\}/g, (match, name) => (name in params ? String(params[name]) : match));
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

/** Raw structured data of a key (e.g. the rules page's sections). */
export function data(key) {
  return lookup(dict, key) ?? lookup(fallback, key);
}

/** A list in words: ["1", "4", "7"] -> "1, 4, 7". */
export function list(items) {
  return items.join(", ");
}

/** Percent, localised: 0.634 -> "63 %" / "63%". */
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
