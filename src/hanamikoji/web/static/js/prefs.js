// The player's preferences, kept in this browser: theme, the opponent's pace, sounds, notifications,
// and the AI's level last chosen on the home page.

const KEY = "hanamikoji.prefs";
const CHOICES = {
  theme: ["system", "light", "dark"],
  pace: ["normal", "fast", "instant"],
  sound: [false, true],
  notify: [false, true],
  level: ["beginner", "easy", "medium", "hard", "master"],
};
/** Off and quiet unless the player asks: system theme, moves one at a time, no sound, no notification;
 * the AI at Medium until another level is chosen. */
const DEFAULTS = { theme: "system", pace: "normal", sound: false, notify: false, level: "medium" };
/** How long each of the opponent's moves stays on show before the next, per pace (ms). */
const PACE_MS = { normal: 1000, fast: 350, instant: 0 };

let memory = null; // when localStorage cannot be used (private mode)

function read() {
  if (memory) return memory;
  try {
    return JSON.parse(localStorage.getItem(KEY) || "{}") || {};
  } catch {
    return {};
  }
}

/** The preferences, each one valid (a stored value that is not one of its choices is ignored). */
export function prefs() {
  const stored = read();
  // Less motion asked of the system: the opponent's moves at once, unless the player chose a pace
  // here (the select shows what applies; a choice made wins)
  const out = { ...DEFAULTS, ...(reducedMotion() ? { pace: "instant" } : {}) };
  for (const [name, choices] of Object.entries(CHOICES)) {
    if (choices.includes(stored[name])) out[name] = stored[name];
  }
  return out;
}

/** Change one preference (kept in this browser) and apply the theme. */
export function setPref(name, value) {
  if (!(name in CHOICES) || !CHOICES[name].includes(value)) throw new Error(`no preference ${name}=${value}`);
  // Only what the player chose is kept: a default (the system's reduced motion's "instant" pace
  // among them) stays derived, and follows the system when it changes.
  const stored = read();
  const next = {};
  for (const [key, choices] of Object.entries(CHOICES)) {
    if (choices.includes(stored[key])) next[key] = stored[key];
  }
  next[name] = value;
  try {
    localStorage.setItem(KEY, JSON.stringify(next));
    memory = null;
  } catch {
    memory = next;
  }
  applyTheme();
}

/** Light or dark as chosen; "system" leaves it to the CSS media query (prefers-color-scheme). */
export function applyTheme() {
  const theme = prefs().theme;
  if (theme === "system") delete document.documentElement.dataset.theme;
  else document.documentElement.dataset.theme = theme;
}

/** Whether the system asks for less motion: cards then appear in place, and moves are not paced
 * unless the player chooses a pace. */
export function reducedMotion() {
  return Boolean(window.matchMedia?.("(prefers-reduced-motion: reduce)").matches);
}

/** Whether the screen is touched rather than pointed at (a phone, a tablet: no hover, or a coarse
 * pointer): the page then says "tap" where it would say "click or press a key". */
export function touchScreen() {
  return Boolean(window.matchMedia?.("(hover: none), (pointer: coarse)").matches);
}

/** How long one of the opponent's moves stays on show before the next (0: no pacing). */
export function paceMs() {
  return PACE_MS[prefs().pace];
}

applyTheme();
