// The table's two sounds, made by the browser (no files): a card played, and your turn. Off unless
// the player turns them on (prefs.sound).

import { prefs } from "./prefs.js";

let context = null;

function audio() {
  if (!context) {
    const Context = window.AudioContext || window.webkitAudioContext;
    if (!Context) return null;
    context = new Context();
  }
  if (context.state === "suspended") context.resume().catch(() => {});
  return context;
}

function tone(ctx, { freq, to = freq, start = 0, length = 0.12, volume = 0.15, type = "sine" }) {
  const osc = ctx.createOscillator();
  const gain = ctx.createGain();
  const t0 = ctx.currentTime + start;
  osc.type = type;
  osc.frequency.setValueAtTime(freq, t0);
  osc.frequency.exponentialRampToValueAtTime(to, t0 + length);
  gain.gain.setValueAtTime(0.0001, t0);
  gain.gain.exponentialRampToValueAtTime(volume, t0 + 0.01);
  gain.gain.exponentialRampToValueAtTime(0.0001, t0 + length);
  osc.connect(gain).connect(ctx.destination);
  osc.start(t0);
  osc.stop(t0 + length + 0.02);
}

/** Play "card" or "turn" if sounds are on; never throws (a browser without audio stays silent). */
export function playSound(kind) {
  if (!prefs().sound) return;
  try {
    const ctx = audio();
    if (!ctx) return;
    if (kind === "card") tone(ctx, { freq: 900, to: 260, length: 0.07, volume: 0.12, type: "triangle" });
    else if (kind === "turn") {
      tone(ctx, { freq: 660, length: 0.16, volume: 0.1 });
      tone(ctx, { freq: 880, start: 0.14, length: 0.22, volume: 0.1 });
    }
  } catch {
    /* no sound */
  }
}
