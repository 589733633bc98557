// A seat holder's links to the game (the game page's #share): the link to watch, which carries no
// token (anyone who opens it watches, never plays), and, fetched only when asked for, the seat's
// private link, to open the seat on another device or browser. The page's own address carries no
// token (the server moves it into the seat's cookie), so this is the way back from elsewhere.

import { getJSON } from "./api.js";
import { copyButton } from "./copy.js";
import { $ } from "./dom.js";
import { reasonOf } from "./errors.js";
import { t } from "./i18n.js";

/** The absolute address of a path of this site. */
const absolute = (path) => new URL(path, location.origin).href;

export class ShareBox {
  /** gameId: this page's game; token: the ?t= of the page's address (the seat it plays), if any. */
  constructor(gameId, token) {
    this.gameId = gameId;
    this.token = token;
    this.box = $("#share");
    this.details = $("#seat-link-box");
    this.link = null; // the seat's private link, once known
    this.asking = false;
    $("#watch-link").value = absolute(`/g/${encodeURIComponent(gameId)}`);
    copyButton($("#copy-watch"), $("#watch-link"));
    copyButton($("#copy-seat"), $("#seat-link"));
    this.details.addEventListener("toggle", () => {
      if (this.details.open) this.fetch();
    });
  }

  /** Shown to a seat's player only: a spectator's own address is already the link to watch. */
  update(msg) {
    this.box.hidden = !msg || Boolean(msg.spectator);
    if (this.box.hidden) this.details.open = false;
  }

  /** The seat's private link: the page's own when it was opened by one, else the server's. */
  async fetch() {
    if (this.link || this.asking) return;
    if (this.token) return this.show(`/g/${encodeURIComponent(this.gameId)}?t=${encodeURIComponent(this.token)}`);
    this.asking = true;
    this.say(t("share.device_loading"));
    let answer;
    try {
      answer = await getJSON(`/api/games/${encodeURIComponent(this.gameId)}/seat-link`);
    } catch {
      answer = { status: 0, ok: false, body: { code: "offline" } };
    }
    this.asking = false;
    if (answer.ok && answer.body?.url) return this.show(answer.body.url);
    const body = answer.body || {};
    this.say(t("share.device_failed", { reason: reasonOf({ status: answer.status, code: body.code, error: body.error }) }), true);
  }

  show(path) {
    this.link = absolute(path);
    $("#seat-link").value = this.link;
    $("#seat-link-row").hidden = false;
    this.say("");
  }

  say(text, error = false) {
    const note = $("#seat-link-status");
    note.textContent = text;
    note.hidden = !text;
    note.classList.toggle("error", error);
  }
}
