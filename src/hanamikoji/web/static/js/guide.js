// The guided first game: a newcomer's game against the beginner AI, explained as it goes.
//
// Contract with game.js and scoring.js:
//   Guide.forGame(gameId, {box, askHint}) -> Guide | null   (null: this game is not guided)
//   guide.update(msg, {selected, action, hint, hintAsked})   after every render of the table
//   guide.explainScoring(scoring, step, seat) -> string|null  a line under each scoring step
// and for the home page startGuidedGame(name), which creates such a game and opens it. While the
// first scoring is explained, a "Close the guide" button of its own sits under #scoring-guide.
//
// A game is guided while localStorage holds {"on": true, ...} under hanamikoji.guide.<game id>, which
// only startGuidedGame writes. Closing the guide writes {"on": false}: it never comes back for that
// game, after a reload too, and no other game (a rematch included) is ever guided uninvited.

import { createGame } from "./api.js";
import { ACTION_SIZE, ACTIONS, charmOf } from "./cards.js";
import { h } from "./dom.js";
import { t } from "./i18n.js";
import { counts } from "./notation.js";

const PREFIX = "hanamikoji.guide.";

/** The guided game: against the beginner, the player starts round 1, at most 3 rounds. */
export const GUIDED_GAME = Object.freeze({ mode: "ai", level: "beginner", seat: 0, max_rounds: 3 });

function load(gameId) {
  try {
    const value = JSON.parse(localStorage.getItem(PREFIX + gameId) || "null");
    return value && typeof value === "object" ? value : null;
  } catch {
    return null;
  }
}

function save(gameId, state) {
  try {
    localStorage.setItem(PREFIX + gameId, JSON.stringify(state));
  } catch {
    /* not kept: the guide lasts for this page only */
  }
}

/** Create a guided game (as the player named `name`, if any), mark it guided and go to its table. */
export async function startGuidedGame(name = "") {
  const options = { ...GUIDED_GAME };
  if (name) options.name = name.slice(0, 40);
  const game = await createGame(options);
  save(game.game, { on: true, seen: [] });
  location.assign(game.url);
}

const isMyDecision = (msg) =>
  msg.game.status === "playing" && msg.view.to_move === msg.view.seat && msg.legal.length > 0;

export class Guide {
  /** The guide of a guided game whose guide is still open, else null. */
  static forGame(gameId, { box, askHint } = {}) {
    const state = load(gameId);
    if (!box || !state || typeof state.on !== "boolean") return null;
    return new Guide(gameId, state, box, askHint);
  }

  constructor(gameId, state, box, askHint) {
    this.gameId = gameId;
    this.box = box;
    this.askHint = askHint;
    this.seen = new Set(Array.isArray(state.seen) ? state.seen : []); // topics already explained
    // folded: the title line only, the current step's headline (css: one line on a phone). A
    // phone starts folded, so that the geisha and the pinned hand both stay in view (open, the
    // guide pushed the board under the hand); the player's own fold or unfold is kept for this
    // game, reloads too.
    this.folded = typeof state.folded === "boolean" ? state.folded : matchMedia("(max-width: 600px)").matches;
    this.closed = state.on === false; // closed by the player: a button opens it again
    // the decision shown last ({version, topic}): a reload at the same decision shows the same
    // explanation (the introduction stays, though already marked seen, until Next or a move)
    this.at = state.at && typeof state.at.version === "number" && typeof state.at.topic === "string" ? state.at : null;
    this.msg = null;
    this.shownWith = {}; // update()'s options, to show the guide again as it would be
    this.decision = null; // the state version of the player's current decision
    this.base = null; // this decision's topic (a pressed action shows its own instead)
    this.asked = null; // the decision a hint was asked for
    this.pressed = {}; // the table's pressed action and hint, as last given to update()
    this.shown = ""; // what the box shows, to touch the page only when it changes
    // A newcomer who closed the guide by mistake (or wants it back) opens it here again.
    this.reopenButton = h("button", { type: "button", id: "guide-reopen", class: "btn quiet guide-reopen", hidden: !this.closed, onclick: () => this.reopen() });
    this.reopenButton.textContent = t("guide.reopen");
    box.after(this.reopenButton);
    if (this.closed) box.hidden = true;
    else this.build();
    // Opened on a phone, the guide's height follows the page: as it scrolls, as the window is
    // resized and as the phone is turned, it takes the room above the board again (no scroll).
    let queued = false;
    const follow = () => {
      if (queued) return;
      queued = true;
      requestAnimationFrame(() => {
        queued = false;
        this.fit();
      });
    };
    // (and on a phone on its side, pinned under the status, it follows the status's height)
    if (typeof ResizeObserver !== "undefined") {
      const status = document.getElementById("status");
      if (status) new ResizeObserver(follow).observe(status);
    }
    addEventListener("scroll", follow, { passive: true });
    addEventListener("resize", follow);
    addEventListener("orientationchange", follow);
    window.visualViewport?.addEventListener("resize", follow);
  }

  // ---- the box --------------------------------------------------------------------------------

  build() {
    const button = (id, cls, onclick, ...children) => h("button", { type: "button", id, class: cls, onclick }, ...children);
    this.label = h("span", { class: "guide-label" });
    this.title = h("span", { class: "guide-title", id: "guide-title" });
    this.fold = button(
      "guide-fold", "guide-fold", () => this.toggleFold(),
      this.label, this.title, h("span", { class: "guide-chevron", "aria-hidden": "true" }),
    );
    this.fold.setAttribute("aria-controls", "guide-body");
    this.text = h("p", { class: "guide-text", id: "guide-text" });
    this.note = h("p", { class: "guide-hinted", id: "guide-hinted", hidden: true });
    this.closeText = h("span", { class: "guide-close-text" });
    this.hintButton = button("guide-hint", "btn guide-hint", () => this.hint());
    this.nextButton = button("guide-next", "btn quiet guide-next", () => this.next());
    this.closeButton = button(
      "guide-close", "btn quiet guide-close", () => this.close(),
      h("span", { class: "guide-close-x", "aria-hidden": "true", text: "✕" }), this.closeText,
    );
    this.box.replaceChildren(
      h("h2", { class: "guide-heading" }, this.fold),
      this.closeButton,
      h("div", { class: "guide-body", id: "guide-body" }, this.text, this.note),
      this.hintButton,
      this.nextButton,
    );
    this.box.setAttribute("aria-labelledby", "guide-title");
    // The scoring dialog is modal: the guide can be closed from there too, under its note.
    this.scoringClose = button("scoring-guide-close", "btn quiet guide-note-close", () => this.close());
    this.scoringClose.hidden = true;
    document.getElementById("scoring-guide")?.after(this.scoringClose);
  }

  /** Write what changed (the live region then announces only the new explanation). */
  paint({ topic, title, text, note, hint, next }) {
    const shown = JSON.stringify([topic, title, text, note, hint, next, this.folded, t("guide.close")]);
    if (shown === this.shown) return;
    this.shown = shown;
    if (this.box.dataset.topic !== topic) {
      // a new explanation: the box flashes once (folded on a phone, this is what says so)
      this.box.classList.remove("fresh");
      void this.box.offsetWidth;
      this.box.classList.add("fresh");
    }
    this.box.dataset.topic = topic;
    this.box.classList.toggle("folded", this.folded);
    this.fold.setAttribute("aria-expanded", this.folded ? "false" : "true");
    this.label.textContent = t("guide.label");
    this.title.textContent = title;
    if (this.text.textContent !== text) this.text.textContent = text;
    this.note.hidden = !note;
    this.note.textContent = note || "";
    this.hintButton.textContent = t("guide.hint");
    this.hintButton.hidden = hint === "none";
    this.hintButton.disabled = hint === "asked";
    this.nextButton.hidden = !next;
    this.nextButton.textContent = next ? t("guide.next", { action: t(`actions.${next}.name`) }) : "";
    this.closeText.textContent = t("guide.close");
    this.box.hidden = false;
    this.overBoard();
  }

  /** On a phone the opened guide lies over the top of the page (css: position fixed), not in
   * the column above the board, which it pushed under the pinned hand: the page then shows the
   * whole board above the hand (its foot on the hand's top), and the guide takes the room above
   * the board, its text scrolling inside when longer. */
  overBoard() {
    const box = this.box;
    this.underStatus();
    if (box.hidden || this.folded || getComputedStyle(box).position !== "fixed") {
      box.style.removeProperty("--guide-room");
      return;
    }
    const board = document.getElementById("board");
    const dock = document.querySelector(".my-area");
    if (!board || !dock) return;
    const pinned = getComputedStyle(dock).position === "sticky";
    const foot = pinned ? dock.getBoundingClientRect().top : innerHeight;
    const by = board.getBoundingClientRect().bottom - foot;
    if (Math.abs(by) > 1) window.scrollTo({ top: Math.max(0, scrollY + by), behavior: "auto" });
    this.fit();
  }

  /** The opened guide's height on a phone, where it lies over the top of the page: the room
   * above the board as the page is now (at least 120 px, its text scrolling inside; never
   * past the screen's foot). Without a scroll of the page: called as it scrolls or turns. */
  fit() {
    const box = this.box;
    this.underStatus();
    if (!box || box.hidden || this.folded || getComputedStyle(box).position !== "fixed") {
      box?.style.removeProperty("--guide-room");
      return;
    }
    const board = document.getElementById("board");
    if (!board) return;
    const top = box.getBoundingClientRect().top;
    const room = Math.min(board.getBoundingClientRect().top - top - 4, innerHeight - top - 8);
    box.style.setProperty("--guide-room", `${Math.max(120, Math.round(room))}px`);
  }

  /** On a phone on its side the guide is pinned under the pinned status (css: sticky), whose
   * height follows its lines: the guide's pinned top is the status's foot. */
  underStatus() {
    const box = this.box;
    const status = document.getElementById("status");
    if (!box || box.hidden || !status || getComputedStyle(box).position !== "sticky") {
      box?.style.removeProperty("--guide-top");
      return;
    }
    const cs = getComputedStyle(status);
    const foot = cs.position === "sticky" ? (parseFloat(cs.top) || 0) + status.offsetHeight : 0;
    const top = `${Math.round(foot)}px`;
    if (box.style.getPropertyValue("--guide-top") !== top) box.style.setProperty("--guide-top", top);
  }

  // ---- what to explain ------------------------------------------------------------------------

  /** After every render of the table: explain what the player is looking at. */
  update(msg, { action = null, hint = null, hintAsked = false, over = false } = {}) {
    if (!msg) return;
    this.msg = msg;
    this.shownWith = { action, hint, hintAsked, over };
    this.reopenButton.textContent = t("guide.reopen");
    if (this.closed) return;
    this.pressed = { action, hint };
    const { view, game } = msg;
    const mine = isMyDecision(msg);
    if (!mine) this.decision = null;
    else if (this.decision !== game.version) {
      this.decision = game.version;
      this.base = this.at?.version === game.version ? this.at.topic : this.firstTopic(msg);
      this.keepAt();
    }
    let topic;
    // Over once the table shows it (its last scoring watched): never before, which would tell the result.
    if (over) topic = "over";
    else if (game.status === "over") topic = this.topic || "welcome";
    else if (mine) topic = view.phase === "action" && ACTIONS.includes(action) ? action : this.base;
    else topic = this.topic || "welcome"; // the opponent's move: the last explanation stays
    this.topic = topic;
    this.markSeen(topic);
    const hinted = mine && hint && hint.move;
    // a hint asked for that did not come (the server was busy, the connection down) may be asked again
    if (this.asked === this.decision && !hintAsked && !hinted) this.asked = null;
    this.paint({
      topic,
      title: this.titleOf(topic),
      text: t(`guide.topics.${topic}.text`),
      note: hinted ? t(hint.move[0] === "P" ? "guide.hinted_pick" : "guide.hinted") : null,
      hint: !mine || hinted || game.thinking ? "none" : this.asked === this.decision ? "asked" : "offer",
      next: mine && view.phase === "action" && topic === this.base ? this.nextAction(msg, topic) : null,
    });
  }

  /** The topic a decision opens with: what is new to the player, else a plain reminder. */
  firstTopic(msg) {
    const { view } = msg;
    if (view.phase === "pick") {
      const kind = view.offer?.[0] === "C" ? "pick_C" : "pick_G";
      return this.seen.has(kind) ? "pick" : kind;
    }
    if (!this.seen.has("welcome")) return "welcome";
    if (view.round > 1 && !this.seen.has("round")) return "round";
    return this.nextAction(msg, null) || "turn";
  }

  /** The first action still open to the player and not explained yet (other than `now`). */
  nextAction(msg, now) {
    const left = msg.view.actions_left[msg.view.seat];
    return ACTIONS.find((a) => left.includes(a) && a !== now && !this.seen.has(a)) || null;
  }

  titleOf(topic) {
    if (ACTIONS.includes(topic)) {
      return t("guide.action_title", { action: t(`actions.${topic}.name`), cards: t("game.n_cards", { n: ACTION_SIZE[topic] }) });
    }
    if (topic === "round") return t("guide.topics.round.title", { round: this.msg?.view.round ?? 2 });
    return t(`guide.topics.${topic}.title`);
  }

  markSeen(topic) {
    if (this.seen.has(topic)) return;
    this.seen.add(topic);
    this.store();
  }

  /** Remember this decision's topic (js: this.at). */
  keepAt() {
    if (this.at?.version === this.decision && this.at?.topic === this.base) return;
    this.at = { version: this.decision, topic: this.base };
    this.store();
  }

  store() {
    save(this.gameId, { on: !this.closed, seen: [...this.seen], folded: this.folded, at: this.at });
  }

  // ---- the player's buttons -------------------------------------------------------------------

  hint() {
    if (this.closed || this.decision === null) return;
    this.asked = this.decision;
    this.askHint?.();
  }

  /** Show the next action not explained yet, in place of this decision's current topic. */
  next() {
    if (!this.msg || this.decision === null) return;
    this.base = this.nextAction(this.msg, this.base) || "turn";
    this.keepAt();
    this.update(this.msg, this.pressed);
    (this.nextButton.hidden ? this.hintButton : this.nextButton).focus();
  }

  toggleFold() {
    this.folded = !this.folded;
    this.store();
    if (this.msg) this.update(this.msg, this.pressed);
    this.overBoard();
    if (this.folded) this.boardFootInView();
  }

  /** Folded again on a phone: the board's foot, if the pinned hand covers it, comes into view. */
  boardFootInView() {
    const board = document.getElementById("board");
    const dock = document.querySelector(".my-area");
    if (!board || !dock || getComputedStyle(dock).position !== "sticky") return;
    const covered = board.getBoundingClientRect().bottom - dock.getBoundingClientRect().top;
    if (covered > 1) window.scrollTo({ top: scrollY + covered, behavior: "auto" });
  }

  /** Close the guide of this game (a reload does not bring it back; its button does). */
  close() {
    this.closed = true;
    this.store();
    this.box.hidden = true;
    this.reopenButton.hidden = false;
    this.box.replaceChildren();
    delete this.box.dataset.topic;
    const fromScoring = Boolean(this.scoringClose.closest("dialog")?.open);
    this.scoringClose.remove();
    const note = document.getElementById("scoring-guide");
    if (note) note.hidden = true;
    const next = fromScoring
      ? document.getElementById("scoring-continue")
      : document.querySelector("#offer button.pick:not(:disabled), #hand button.card, #hint:not(:disabled)");
    next?.focus();
  }

  /** Show the guide again, where the game is now (kept after a reload, as it was). */
  reopen() {
    this.closed = false;
    this.store();
    this.reopenButton.hidden = true;
    this.shown = "";
    this.build();
    if (this.msg) this.update(this.msg, this.shownWith);
    this.fold.focus();
  }

  // ---- the first scoring ----------------------------------------------------------------------

  /** A line under each step of the first round's scoring: why each marker goes where it goes. */
  explainScoring(scoring, step, seat) {
    const text = this.scoringLine(scoring, step, seat);
    this.scoringClose.hidden = !text;
    this.scoringClose.textContent = t("guide.close");
    return text;
  }

  scoringLine(scoring, step, seat) {
    if (this.closed || !scoring || scoring.round !== 1) return null;
    const other = 1 - seat;
    if (step === 0) return t("guide.scoring.secrets");
    if (step >= 1 && step <= 7) {
      const g = step;
      const near = counts(scoring.played[seat])[g];
      const far = counts(scoring.played[other])[g];
      const before = scoring.markers_before[g - 1];
      const params = { g, near, far, charm: charmOf(g) };
      if (near > far) return t(before === seat ? "guide.scoring.kept_me" : "guide.scoring.won_me", params);
      if (far > near) return t(before === other ? "guide.scoring.kept_opp" : "guide.scoring.won_opp", params);
      return t(near === 0 ? "guide.scoring.tie_none" : "guide.scoring.tie", params);
    }
    for (const key of ["charm", "geisha"]) {
      const limit = key === "charm" ? 11 : 4;
      if (scoring[key][seat] >= limit) return t(`guide.scoring.win_me_${key}`, { n: scoring[key][seat] });
      if (scoring[key][other] >= limit) return t(`guide.scoring.win_opp_${key}`, { n: scoring[key][other] });
    }
    const last = this.msg?.game.rules?.max_rounds === scoring.round;
    return t(last ? "guide.scoring.last" : "guide.scoring.next");
  }
}
