// A round's scoring, step by step: the Secrets revealed, then each geisha's marker, then the totals.
// The steps advance on their own (Continue skips ahead, one step from the one the player saw);
// the table's standing follows them, so nothing of the outcome shows before its step.

import { markerSide, renderBoard, setMarker } from "./board.js";
import { backSvg, cardSvg, charmOf, GEISHA } from "./cards.js";
import { $, fill, h } from "./dom.js";
import { t } from "./i18n.js";
import { counts } from "./notation.js";
import { reducedMotion } from "./prefs.js";

/** How long each step stays before the next (the Secrets a little longer). */
const STEP_MS = 1100;
const SECRETS_MS = 1800;
/** The last step: the round's totals. */
const LAST = 8;
/** A spectator's totals close by themselves after this: the game goes on without them. */
const WATCH_CLOSE_MS = 3000;
/** A click on Continue this soon after a step came by itself was meant for the step before it:
 * that step is what the player saw when they decided, and the one they asked for has come. */
const GRACE_MS = 400;

/** Charm and geisha per seat for markers (owners by seat or null). */
export function standingOf(markers) {
  const charm = [0, 0];
  const geisha = [0, 0];
  markers.forEach((owner, i) => {
    if (owner === 0 || owner === 1) {
      charm[owner] += charmOf(i + 1);
      geisha[owner] += 1;
    }
  });
  return { charm, geisha };
}

/**
 * Plays SCORING objects one after another in dialog#scoring.
 * onDone() when the queue is empty; onStep() after every step (the table re-reads progress()).
 */
export class ScoringDialog {
  constructor(dialog, { onDone, onStep, names } = {}) {
    this.dialog = dialog;
    this.onDone = onDone;
    this.onStep = onStep;
    this.names = names ?? (() => ({}));
    this.queue = [];
    this.current = null;
    this.step = 0;
    this.timer = null;
    /** How many times what the dialog shows has changed (a step, a round), and the count before
     * the latest change that came by itself, with when it came (performance.now()). */
    this.changes = 0;
    this.auto = { before: 0, at: -Infinity };
    /** The change on show when the pointer went down on Continue (null: no press pending). */
    this.pressed = null;
    /** (scoring, step, seat) -> a line explaining the step, or null (the guided game sets it). */
    this.explain = null;
    this.button = $("#scoring-continue", dialog);
    this.button.addEventListener("pointerdown", () => (this.pressed = this.seen()));
    this.button.addEventListener("click", (event) => this.onContinue(event));
    dialog.addEventListener("cancel", (event) => {
      event.preventDefault(); // Esc skips to the end of this round's scoring instead of losing it
      this.finishCurrent();
    });
  }

  get open() {
    return this.current !== null;
  }

  /**
   * What the table may show while a scoring plays: the markers as far as the steps have gone,
   * the standing from them, the round and its cards on each side (Secrets included). Null when
   * no scoring is shown.
   */
  progress() {
    if (!this.current) return null;
    const { scoring } = this.current;
    const markers = scoring.markers_before.map((before, i) => (i + 1 <= this.step ? scoring.markers[i] : before));
    return { round: scoring.round, step: this.step, markers, played: scoring.played, ...standingOf(markers) };
  }

  /** Queue scorings (seen from seat) and start if idle. */
  show(scorings, seat) {
    for (const scoring of scorings) this.queue.push({ scoring, seat });
    if (!this.current) this.advanceQueue();
  }

  /** What the player saw last: the change on show, unless one came by itself a moment ago. */
  seen() {
    return performance.now() - this.auto.at < GRACE_MS ? this.auto.before : this.changes;
  }

  /** Continue: one step on from what the player saw when they pressed it (the pointer's going
   * down; a key's click has none): nothing more when a step came by itself meanwhile, so no step
   * goes by unseen. */
  onContinue(event) {
    const seen = event.detail > 0 && this.pressed !== null ? this.pressed : this.seen();
    this.pressed = null;
    if (seen < this.changes) return; // the step asked for is on show already
    this.next();
  }

  /** A step that comes by itself (the timers), remembered as such. */
  byItself(step) {
    const before = this.changes;
    step();
    this.auto = { before, at: performance.now() };
  }

  advanceQueue() {
    clearTimeout(this.timer);
    this.changes += 1;
    this.current = this.queue.shift() || null;
    if (!this.current) {
      if (this.dialog.open) this.dialog.close();
      this.onDone?.();
      return;
    }
    this.step = 0;
    const { scoring, seat } = this.current;
    const other = 1 - seat;
    const names = this.names();
    renderBoard($("#scoring-board", this.dialog), {
      markers: scoring.markers_before,
      near: scoring.played[seat],
      far: scoring.played[other],
      freshNear: scoring.secrets[seat] || "",
      freshFar: scoring.secrets[other] || "",
      nearSeat: seat,
      nearName: names.near,
      farName: names.far,
    });
    if (!this.dialog.open) {
      if (typeof this.dialog.showModal === "function") this.dialog.showModal();
      else this.dialog.setAttribute("open", "");
    }
    this.render();
    // at its top, the title and the step's sentence in view (Continue is pinned at its foot, css)
    this.button.focus({ preventScroll: true });
    this.dialog.scrollTop = 0;
  }

  /** Re-render the current step's words (also after a language switch). */
  render() {
    if (!this.current) return;
    const { scoring, seat } = this.current;
    const other = 1 - seat;
    const names = this.names();
    const board = $("#scoring-board", this.dialog);
    $("#scoring-title", this.dialog).textContent = t("scoring.title", { round: scoring.round });
    const text = $("#scoring-text", this.dialog);
    const secrets = $("#scoring-secrets", this.dialog);
    const totals = $("#scoring-totals", this.dialog);
    const ms = reducedMotion() ? 0 : 600;
    this.dialog.dataset.step = String(this.step);
    for (const node of board.querySelectorAll(".geisha")) node.classList.remove("focus");
    const shown = this.progress();
    for (const g of GEISHA) setMarker(board, g, markerSide(shown.markers[g - 1], seat), ms);
    if (this.step === 0) {
      text.textContent = t("scoring.secrets");
      fill(
        secrets,
        secretBox(names.watching ? t("scoring.their_secret_of", { name: names.near ?? "" }) : t("scoring.your_secret"), scoring.secrets[seat]),
        secretBox(t("scoring.their_secret_of", { name: names.far ?? "" }), scoring.secrets[other]),
      );
      secrets.hidden = false;
    } else if (this.step < LAST) {
      secrets.hidden = true;
      const g = this.step;
      const near = counts(scoring.played[seat])[g];
      const far = counts(scoring.played[other])[g];
      const before = markerSide(scoring.markers_before[g - 1], seat);
      const after = markerSide(scoring.markers[g - 1], seat);
      board.querySelector(`.geisha[data-geisha="${g}"]`)?.classList.add("focus");
      let outcome;
      if (after === before) outcome = after === "none" ? t("scoring.stays_neutral") : t(`scoring.stays_${after}`);
      else outcome = t(`scoring.moves_${after}`);
      if (names.watching && after !== "none") {
        // a spectator's words name both players (docs/web.md, "Watching a game")
        const name = after === "me" ? names.near : names.far;
        outcome = t(after === before ? "watch.stays" : "watch.moves", { name });
      }
      text.textContent = names.watching
        ? t("watch.scoring_geisha", { g, charm: charmOf(g), near, far, nearName: names.near, farName: names.far, outcome })
        : t("scoring.geisha", { g, charm: charmOf(g), near, far, outcome });
    } else {
      secrets.hidden = true;
      text.textContent = t("scoring.done");
    }
    totals.textContent = names.watching
      ? t("review.final_score", { a: names.near, b: names.far, charmA: shown.charm[seat], charmB: shown.charm[other], geishaA: shown.geisha[seat], geishaB: shown.geisha[other] })
      : t("scoring.totals", {
          myCharm: shown.charm[seat], oppCharm: shown.charm[other],
          myGeisha: shown.geisha[seat], oppGeisha: shown.geisha[other],
        });
    const note = $("#scoring-guide", this.dialog);
    const explained = this.explain ? this.explain(scoring, this.step, seat) : null;
    note.hidden = !explained;
    note.textContent = explained || "";
    this.button.textContent = this.step >= LAST ? t("scoring.close") : t("scoring.continue");
    clearTimeout(this.timer);
    // A step the guide explains waits for the player; the others go on by themselves. The
    // totals wait for a player's Close, not for a spectator's, who would fall ever further behind.
    if (this.step < LAST && !explained) this.timer = setTimeout(() => this.byItself(() => this.next()), this.step === 0 ? SECRETS_MS : STEP_MS);
    else if (this.step >= LAST && names.watching) this.timer = setTimeout(() => this.byItself(() => this.advanceQueue()), WATCH_CLOSE_MS);
    this.onStep?.();
  }

  next() {
    if (!this.current) return;
    if (this.step >= LAST) {
      this.advanceQueue();
      return;
    }
    this.step += 1;
    this.changes += 1;
    this.render();
  }

  finishCurrent() {
    if (!this.current) return;
    this.changes += 1;
    this.step = LAST;
    this.render();
  }
}

function secretBox(label, card) {
  return h(
    "figure",
    { class: "secret-reveal" },
    h("span", { class: "pcard fresh" }, card ? cardSvg(card) : backSvg()),
    h("figcaption", { text: label }),
  );
}
