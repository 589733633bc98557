// Chat at the table: the players' room (a seat's page) or the spectators' (a spectator's page),
// quick phrases, the mute of the opponent and the player's "chat off" setting (docs/web.md "Chat").
// Every message is put in as text (textContent, through h()), never as HTML.

import { $, fill, h } from "./dom.js";
import { isolate, t } from "./i18n.js";
import { markAlone, markedName, markNode, whoMark } from "./who.js";

export const PHRASES = ["hello", "good-luck", "well-played", "thanks"];
export const MAX_CHAT = 200; // the server's limit (hanamikoji.web.chat.MAX_CHAT)
const FOLDED_KEY = "hanamikoji.chat.folded"; // the player folded the chat: it stays so, game to game

function keptFolded() {
  try {
    return localStorage.getItem(FOLDED_KEY) === "1";
  } catch {
    return false;
  }
}

function keepFolded(folded) {
  try {
    if (folded) localStorage.setItem(FOLDED_KEY, "1");
    else localStorage.removeItem(FOLDED_KEY);
  } catch {
    /* not kept in this browser (private mode) */
  }
}

/** The words of one message: its text as typed, or its quick phrase in this page's language. */
export function said(line) {
  return line.phrase ? t(`chat.phrase.${line.phrase}`) : line.text;
}

/**
 * Who wrote a line of the spectators' room, where nobody types a name: its `name` is the account's
 * user name (shown as @name, linked to the profile), or null for a guest ("Guest", marked so) or,
 * with `deleted`, for an account deleted since (its muted mark, never a guest's).
 */
function spectatorName(line) {
  return line.deleted ? markNode(whoMark(null, true, true)) : markAlone(line.name, t("chat.guest"));
}

/**
 * One message as a list item: who, then what ("name" is a function of the line, giving text or
 * a node: a name with its mark).
 */
export function lineItem(line, name, mine = false) {
  const when = new Date(line.at);
  const who = name(line);
  return h(
    "li",
    { class: `chat-line${mine ? " chat-mine" : ""}${line.phrase ? " phrase" : ""}`, "data-id": line.id, title: when.toLocaleTimeString() },
    h("span", { class: "chat-who" }, typeof who === "string" ? isolate(who) : who, ":"),
    " ",
    h("span", { class: "chat-said", text: isolate(said(line)) }),
  );
}

/** The chat's words for an error code the server sent about a message (its own words otherwise). */
export function chatError(error) {
  const key = `chat.error.${error.code}`;
  const text = t(key, { s: error.retry_after ?? "", n: MAX_CHAT });
  return text === key ? error.message || t("errors.unknown") : text;
}

/** Whether the visitor has chat on (GET /api/me/chat; on when it cannot be asked). */
export async function chatOn() {
  try {
    const response = await fetch("/api/me/chat", { credentials: "same-origin" });
    const body = await response.json();
    return body.chat !== false;
  } catch {
    return true;
  }
}

/** Turn chat on or off for good (the server keeps it: POST /api/me/chat); resolves to the new value. */
export async function setChatOn(on) {
  const response = await fetch("/api/me/chat", {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    credentials: "same-origin",
    body: JSON.stringify({ chat: on }),
  });
  if (!response.ok) throw new Error(`chat setting refused (${response.status})`);
  return (await response.json()).chat;
}

/**
 * The chat box of the game page, in #chat. send(message) goes out on the page's socket; the page
 * gives each state message to update() and each socket message to handle() (true: it was the chat's).
 */
export class ChatBox {
  constructor(root, { send, seatName }) {
    this.root = root;
    this.send = send;
    this.seatName = seatName; // (msg, seat) -> the name the table shows
    this.lines = [];
    this.pending = null; // the text last sent from the box, until the server takes or refuses it
    this.room = "players";
    this.msg = null; // the latest state: names, seat, mode
    this.on = true; // the player's setting
    this.muted = false;
    this.error = null;
    this.folded = keptFolded(); // the player folded the box: its lines and form are out of the way
    this.unread = 0; // others' messages come while it was folded: counted on its toggle until opened
    this.build();
  }

  build() {
    const root = this.root;
    this.title = h("h2", { class: "chat-title", id: "chat-title" });
    this.muteButton = h("button", { type: "button", class: "btn quiet small chat-mute", id: "chat-mute" });
    this.muteButton.addEventListener("click", () => this.send({ type: "mute", on: !this.muted }));
    // the fold: its badge counts the messages that came while folded; its name says how many
    this.badge = h("span", { class: "chat-badge", "aria-hidden": "true", hidden: true });
    this.foldButton = h("button", { type: "button", class: "btn quiet small chat-fold", id: "chat-fold", "aria-controls": "chat-body" }, h("span", { class: "chat-fold-mark", "aria-hidden": "true" }), this.badge);
    this.foldButton.addEventListener("click", () => this.fold(!this.folded));
    this.list = h("ol", { class: "chat-lines", id: "chat-lines", tabindex: "0", "aria-live": "polite", "aria-labelledby": "chat-title" });
    this.note = h("p", { class: "chat-note muted small", id: "chat-note", hidden: true });
    this.phrases = h("div", { class: "chat-phrases", role: "group" });
    this.input = h("input", { type: "text", id: "chat-input", maxlength: String(MAX_CHAT), autocomplete: "off", enterkeyhint: "send" });
    this.input.addEventListener("keydown", (event) => event.stopPropagation()); // keys here are text, not the table's
    this.sendButton = h("button", { type: "submit", class: "btn", id: "chat-send" });
    this.label = h("label", { for: "chat-input", class: "sr-only" });
    this.form = h("form", { class: "chat-form" }, this.label, this.input, this.sendButton);
    this.form.addEventListener("submit", (event) => {
      event.preventDefault();
      const text = this.input.value.trim();
      if (text && this.send({ type: "chat", room: this.room, text })) {
        this.input.value = "";
        this.pending = text.replace(/\s+/g, " "); // (as the server keeps it) given back should it be refused
      }
    });
    this.errorBox = h("p", { class: "chat-error", id: "chat-error", role: "status", hidden: true });
    this.body = h("div", { class: "chat-body", id: "chat-body" }, this.list, this.note, this.phrases, this.form, this.errorBox);
    fill(root, h("div", { class: "chat-head" }, this.title, this.muteButton, this.foldButton), this.body);
    this.render();
  }

  /** Fold the box (its head alone) or open it; opened, its messages are read. */
  fold(folded) {
    this.folded = folded;
    if (!folded) this.unread = 0;
    keepFolded(folded);
    this.render(!folded);
  }

  /** The socket is open: ask for the room (the players' on a seat's socket, else the spectators'). */
  opened(watching) {
    this.room = watching ? "spectators" : "players";
    this.send({ type: "chat-history", room: this.room });
  }

  /** The player's setting changed (or was read): off hides the box; on asks for the room again. */
  setOn(on) {
    this.on = on;
    if (on) this.send({ type: "chat-history", room: this.room });
    else this.lines = [];
    this.render();
  }

  update(msg) {
    this.msg = msg;
    this.render();
  }

  /** A socket message; true when it was the chat's. */
  handle(msg) {
    if (msg.type === "chat-history") {
      if (msg.room !== this.room) return true;
      this.lines = msg.lines;
      this.muted = Boolean(msg.muted);
      if (msg.off) this.on = false;
      this.render(true);
      return true;
    }
    if (msg.type === "chat") {
      if (msg.room !== this.room || !this.on) return true;
      const mine = msg.line.text === this.pending || (this.room === "players" && this.msg && !this.msg.spectator && msg.line.seat === this.msg.view.seat);
      if (!this.lines.some((l) => l.id === msg.line.id)) {
        this.lines.push(msg.line);
        if (this.folded && !mine) this.unread += 1;
      }
      if (msg.line.text === this.pending) this.pending = null;
      this.error = null;
      this.render(true);
      return true;
    }
    if (msg.type === "chat-removed") {
      this.lines = this.lines.filter((l) => l.id !== msg.id);
      this.render();
      return true;
    }
    if (msg.type === "error" && msg.about === "chat") {
      this.error = msg;
      // the refused words come back to the box, to send later or mend (unless more was typed)
      if (this.pending && !this.input.value) this.input.value = this.pending;
      this.pending = null;
      this.render();
      return true;
    }
    return false;
  }

  /** Whose a line is, in this page's words, with the author's mark (one's own: "You"). */
  nameOf(line) {
    if (this.room === "spectators") return spectatorName(line);
    const msg = this.msg;
    if (!msg) return "";
    if (!msg.spectator && line.seat === msg.view.seat) return t("chat.you");
    // The opponent's name as typed, and what tells an account from a guest who typed the same.
    return markedName(this.seatName(msg, line.seat), whoMark(msg.game.usernames?.[line.seat], true, msg.game.deleted?.[line.seat]));
  }

  render(scroll = false) {
    const msg = this.msg;
    const players = this.room === "players";
    // Nothing to show: against the AI or a bot (they do not talk), with chat off, before the
    // first state.
    // Nor a friend game ended before the friend came: nobody to talk to.
    const alone = msg && msg.game.mode === "friend" && !msg.spectator && !msg.game.opponent_joined && msg.game.status === "over";
    const silent = msg && (msg.game.mode === "ai" || (msg.game.bots || []).some(Boolean) || alone);
    const shown = Boolean(msg) && this.on && !(players && silent);
    this.root.hidden = !shown;
    if (!shown) return;
    this.title.textContent = players ? t("chat.title") : t("chat.title_spectators");
    this.muteButton.hidden = !players;
    this.muteButton.textContent = this.muted ? t("chat.unmute") : t("chat.mute");
    this.muteButton.setAttribute("aria-pressed", this.muted ? "true" : "false");
    this.root.classList.toggle("folded", this.folded);
    this.body.hidden = this.folded;
    this.foldButton.setAttribute("aria-expanded", this.folded ? "false" : "true");
    this.foldButton.setAttribute("aria-label", !this.folded ? t("chat.fold") : this.unread ? t("chat.unread", { n: this.unread }) : t("chat.unfold"));
    this.foldButton.title = this.foldButton.getAttribute("aria-label");
    this.badge.hidden = !(this.folded && this.unread);
    this.badge.textContent = this.unread > 99 ? "99+" : String(this.unread);
    const mySeat = msg.spectator ? null : msg.view.seat;
    fill(this.list, this.lines.map((line) => lineItem(line, (l) => this.nameOf(l), players && line.seat === mySeat)));
    this.list.hidden = this.lines.length === 0;
    const note = this.muted ? t("chat.muted_note") : this.lines.length === 0 ? (players ? t("chat.empty") : t("chat.empty_spectators")) : "";
    this.note.textContent = note;
    this.note.hidden = !note;
    this.phrases.setAttribute("aria-label", t("chat.phrases"));
    fill(
      this.phrases,
      PHRASES.map((key) =>
        h("button", {
          type: "button",
          class: "btn quiet small",
          "data-phrase": key,
          text: t(`chat.phrase.${key}`),
          onclick: () => this.send({ type: "chat", room: this.room, phrase: key }),
        }),
      ),
    );
    this.input.placeholder = players ? t("chat.placeholder") : t("chat.placeholder_spectators");
    this.label.textContent = t("chat.label");
    this.sendButton.textContent = t("chat.send");
    this.errorBox.hidden = !this.error;
    this.errorBox.textContent = this.error ? chatError(this.error) : "";
    if (scroll) this.list.scrollTop = this.list.scrollHeight;
  }
}

/**
 * The chat of a finished game in its review: each room with messages, as lists (none: hidden).
 * nameOfSeat(seat) gives text, or a node made for each call (a name with its mark, js/who.js).
 */
export function renderReviewChat(root, rooms, nameOfSeat, mySeat) {
  const sections = [];
  const room = (title, lines, name, mine) =>
    h(
      "section",
      { class: "chat-room" },
      h("h3", { text: title }),
      h("ol", { class: "chat-lines" }, lines.map((l) => lineItem(l, name, mine(l)))),
    );
  if (rooms.players?.length) {
    sections.push(room(t("chat.title_players"), rooms.players, (l) => (l.seat === mySeat ? t("chat.you") : nameOfSeat(l.seat)), (l) => l.seat === mySeat));
  }
  if (rooms.spectators?.length) {
    sections.push(room(t("chat.title_spectators"), rooms.spectators, spectatorName, () => false));
  }
  root.hidden = sections.length === 0;
  fill(root, ...(sections.length ? [h("h2", { text: t("chat.review_title") }), sections] : []));
  return $(".chat-lines", root);
}
