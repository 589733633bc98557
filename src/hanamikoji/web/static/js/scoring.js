// A round's scoring, step by step: the Secrets revealed, then each geisha's marker, then the totals.

import { markerSide, renderBoard, setMarker } from "./board.js";
import { backSvg, cardSvg, charmOf, GEISHA } from "./cards.js";
import { $, fill, h } from "./dom.js";
import { t } from "./i18n.js";
import { counts } from "./notation.js";

const STEP_MS = 1100;

/** Plays SCORING objects one after another in dialog#scoring; onDone() when the queue is empty. */
export class ScoringDialog {
  constructor(dialog, { onDone } = {}) {
    this.dialog = dialog;
    this.onDone = onDone;
    this.queue = [];
    this.current = null;
    this.step = 0;
    this.timer = null;
    /** (scoring, step, seat) -> a line explaining the step, or null (the guided game sets it). */
    this.explain = null;
    this.button = $("#scoring-continue", dialog);
    this.button.addEventListener("click", () => this.next());
    dialog.addEventListener("cancel", (event) => {
      event.preventDefault(); // Esc skips to the end of this round's scoring instead of losing it
      this.finishCurrent();
    });
  }

  get open() {
    return this.current !== null;
  }

  /** Queue scorings (seen from seat) and start if idle. */
  show(scorings, seat, names) {
    for (const scoring of scorings) this.queue.push({ scoring, seat, names });
    if (!this.current) this.advanceQueue();
  }

  advanceQueue() {
    clearTimeout(this.timer);
    this.current = this.queue.shift() || null;
    if (!this.current) {
      if (this.dialog.open) this.dialog.close();
      this.onDone?.();
      return;
    }
    this.step = 0;
    const { scoring, seat } = this.current;
    const other = 1 - seat;
    renderBoard($("#scoring-board", this.dialog), {
      markers: scoring.markers_before,
      near: scoring.played[seat],
      far: scoring.played[other],
      freshNear: scoring.secrets[seat] || "",
      freshFar: scoring.secrets[other] || "",
      nearSeat: seat,
    });
    if (!this.dialog.open) {
      if (typeof this.dialog.showModal === "function") this.dialog.showModal();
      else this.dialog.setAttribute("open", "");
    }
    this.render();
    this.button.focus();
  }

  /** Re-render the current step's words (also after a language switch). */
  render() {
    if (!this.current) return;
    const { scoring, seat } = this.current;
    const other = 1 - seat;
    const board = $("#scoring-board", this.dialog);
    $("#scoring-title", this.dialog).textContent = t("scoring.title", { round: scoring.round });
    const text = $("#scoring-text", this.dialog);
    const secrets = $("#scoring-secrets", this.dialog);
    const totals = $("#scoring-totals", this.dialog);
    for (const node of board.querySelectorAll(".geisha")) node.classList.remove("focus");
    if (this.step === 0) {
      text.textContent = t("scoring.secrets");
      fill(
        secrets,
        secretBox(t("scoring.your_secret"), scoring.secrets[seat]),
        secretBox(t("scoring.their_secret"), scoring.secrets[other]),
      );
      secrets.hidden = false;
      totals.textContent = "";
    } else if (this.step <= 7) {
      secrets.hidden = true;
      const g = this.step;
      const near = counts(scoring.played[seat])[g];
      const far = counts(scoring.played[other])[g];
      const before = markerSide(scoring.markers_before[g - 1], seat);
      const after = markerSide(scoring.markers[g - 1], seat);
      setMarker(board, g, after);
      board.querySelector(`.geisha[data-geisha="${g}"]`)?.classList.add("focus");
      let outcome;
      if (after === before) outcome = after === "none" ? t("scoring.stays_neutral") : t(`scoring.stays_${after}`);
      else outcome = t(`scoring.moves_${after}`);
      text.textContent = t("scoring.geisha", { g, charm: charmOf(g), near, far, outcome });
    } else {
      secrets.hidden = true;
      for (const g of GEISHA) setMarker(board, g, markerSide(scoring.markers[g - 1], seat));
      text.textContent = t("scoring.done");
      totals.textContent = t("scoring.totals", {
        myCharm: scoring.charm[seat], oppCharm: scoring.charm[other],
        myGeisha: scoring.geisha[seat], oppGeisha: scoring.geisha[other],
      });
    }
    const note = $("#scoring-guide", this.dialog);
    const explained = note && this.explain ? this.explain(scoring, this.step, seat) : null;
    if (note) {
      note.hidden = !explained;
      note.textContent = explained || "";
    }
    this.button.textContent = this.step >= 8 ? t("scoring.close") : t("scoring.continue");
    clearTimeout(this.timer);
    if (this.step >= 1 && this.step < 8) this.timer = setTimeout(() => this.next(), STEP_MS);
  }

  next() {
    if (!this.current) return;
    if (this.step >= 8) {
      this.advanceQueue();
      return;
    }
    this.step += 1;
    this.render();
  }

  finishCurrent() {
    if (!this.current) return;
    this.step = 8;
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
