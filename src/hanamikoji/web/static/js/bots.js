// The account page's bots (docs/bots.md): an account's bots, a new one (its token shown once),
// a new token or a revoked one. The bot itself plays through `hanamikoji bot` or the bot API.

import { controlText } from "./clock.js";
import { $, $$, fill, h } from "./dom.js";
import { reasonOf } from "./errors.js";
import { onLanguageChange, t } from "./i18n.js";
import { whoAmI } from "./mine.js";
import { acceptsText, BOT_KINDS } from "./words.js";

// token: {name, value}, shown this once; editing: the bot whose settings are open; asking: a
// new token or a revocation awaiting its confirmation ({name, what}); saved: the bot just saved
const state = { bots: [], token: null, error: null, editing: null, asking: null, saved: null, draft: null };

async function call(method, path, payload) {
  try {
    const response = await fetch(path, {
      method,
      headers: { "Content-Type": "application/json" },
      credentials: "same-origin",
      body: payload === undefined ? undefined : JSON.stringify(payload),
    });
    return { ok: response.ok, status: response.status, body: await response.json().catch(() => null) };
  } catch {
    return { ok: false, status: 0, body: { code: "offline" } };
  }
}

/** A row's buttons: what it accepts changed, a new token, the token revoked. The last two cut
 * off a connected bot, so each asks first, in the row. */
function botActions(b) {
  const ask = state.asking?.name === b.username ? state.asking.what : null;
  if (ask) {
    const why = t(`bots.account.confirm_${ask}`);
    return h(
      "span",
      { class: "bot-actions bot-confirm", role: "group", "aria-label": why },
      h("span", { class: "bot-confirm-text", text: why }),
      h("button", { type: "button", class: "btn primary", "data-action": `${ask}-yes`, text: t(ask === "token" ? "bots.account.new_token" : "bots.account.revoke"), onclick: () => act(b.username, ask) }),
      h("button", { type: "button", class: "btn", "data-action": "no", text: t("bots.account.cancel"), onclick: () => asking(null) }),
    );
  }
  return h(
    "span",
    { class: "bot-actions" },
    h("button", { type: "button", class: "btn", "data-action": "edit", "aria-expanded": String(state.editing === b.username), text: t("bots.account.edit"), onclick: () => editing(state.editing === b.username ? null : b.username) }),
    h("button", { type: "button", class: "btn", "data-action": "token", text: t("bots.account.new_token"), onclick: () => asking({ name: b.username, what: "token" }) }),
    b.token ? h("button", { type: "button", class: "btn", "data-action": "revoke", text: t("bots.account.revoke"), onclick: () => asking({ name: b.username, what: "revoke" }) }) : null,
  );
}

/** What a bot accepts, as a small form in its row (POST /api/bots/NAME/settings): a group, not
 * a form of its own, as the rows sit inside the form that creates a bot. */
function botEditor(b) {
  // what the owner last tried to save (refused: shown as they left it, with why), else the bot's
  const a = state.draft?.name === b.username ? state.draft.accepts : b.accepts;
  const single = a.controls.filter((c) => !BOT_KINDS.includes(c)); // set through the API: kept
  const box = (value, label, checked, extra = {}) =>
    h("label", { class: "check" }, h("input", { type: "checkbox", checked, value, ...extra }), " ", h("span", { text: label }));
  const id = `bot-edit-${b.username}`;
  return h(
    "div",
    {
      class: "bot-editor",
      id,
      role: "group",
      "aria-label": t("bots.account.edit_title", { name: b.username }),
      // Enter saves these settings (the enclosing form's submission would create a bot)
      onkeydown: (event) => {
        if (event.key === "Enter" && event.target.matches("input")) {
          event.preventDefault();
          save(b.username);
        }
      },
    },
    h(
      "fieldset",
      { class: "field" },
      h("legend", { text: t("bots.account.controls") }),
      ...BOT_KINDS.map((k) => box(k, t(`bots.kind.${k}`), a.controls.includes(k), { name: "edit-control" })),
      ...single.map((c) => box(c, controlText(c), true, { name: "edit-control" })),
      box("rated", t("bots.account.rated"), a.rated, { name: "edit-rated" }),
      box("casual", t("bots.account.casual"), a.casual, { name: "edit-casual" }),
    ),
    h("div", { class: "field" }, h("label", { for: `${id}-games`, text: t("bots.account.games") }), h("input", { id: `${id}-games`, name: "edit-games", type: "number", min: "1", max: "20", value: String(a.games) })),
    // a refusal of these settings, said here (beside them), not under the form far below
    state.error && state.draft?.name === b.username ? h("p", { class: "notice error form-error bot-edit-error", role: "alert", text: errorText() }) : null,
    h(
      "span",
      { class: "bot-actions" },
      h("button", { type: "button", class: "btn primary", "data-action": "save", text: t("bots.account.save"), onclick: () => save(b.username) }),
      h("button", { type: "button", class: "btn", "data-action": "no", text: t("bots.account.cancel"), onclick: () => editing(null) }),
    ),
  );
}

function botItem(b) {
  const status = [
    b.online ? t("bots.account.online") : t("bots.account.offline"),
    b.playing ? t("bots.account.playing", { n: b.playing }) : null,
    b.token ? null : t("bots.account.revoked"),
    acceptsText(b.accepts),
  ];
  return h(
    "li",
    { class: "bot-row", "data-bot": b.username },
    h("span", { class: "bot-row-name" }, h("a", { class: "challenge-who", href: b.profile, text: b.username }), " ", h("span", { class: "bot-badge", text: t("bots.badge"), title: t("bots.badge_title") })),
    h("span", { class: "bot-row-what", text: status.filter(Boolean).join(" · ") }),
    botActions(b),
    state.editing === b.username ? botEditor(b) : null,
  );
}

function asking(what) {
  state.asking = what;
  state.editing = null;
  render();
}

function editing(name) {
  state.editing = name;
  state.asking = null;
  state.draft = null;
  state.error = null;
  render();
  if (name) $(`#bot-edit-${CSS.escape(name)} input`)?.focus();
}

async function save(name) {
  const form = $(`#bot-edit-${CSS.escape(name)}`);
  const accepts = {
    controls: $$('input[name="edit-control"]:checked', form).map((box) => box.value),
    rated: $('input[name="edit-rated"]', form).checked,
    casual: $('input[name="edit-casual"]', form).checked,
    games: games($('input[name="edit-games"]', form).value),
  };
  state.error = null;
  state.draft = { name, accepts };
  const answer = await call("POST", `/api/bots/${encodeURIComponent(name)}/settings`, { accepts });
  if (!answer.ok) {
    failed(answer);
    $(`#bot-edit-${CSS.escape(name)} .bot-edit-error`)?.scrollIntoView({ block: "nearest" });
    return;
  }
  state.draft = null;
  state.editing = null;
  state.saved = name;
  await load();
}

function render() {
  fill($("#my-bots"), state.bots.map(botItem));
  $("#no-bots").hidden = state.bots.length > 0;
  const box = $("#bot-token");
  box.hidden = !state.token;
  if (state.token) {
    $("#bot-token-text").textContent = t("bots.account.token_once", { name: state.token.name });
    $("#bot-token-value").textContent = state.token.value;
  }
  const saved = $("#bots-saved");
  saved.hidden = !state.saved;
  saved.textContent = state.saved ? t("bots.account.saved", { name: state.saved }) : "";
  const error = $("#bots-form > .form-error");
  const inRow = state.draft !== null && state.editing === state.draft.name; // said in the row
  error.hidden = !state.error || inRow;
  error.textContent = state.error && !inRow ? errorText() : "";
}

function errorText() {
  return t("bots.account.failed", { reason: reasonOf(state.error) });
}

/** "Games at once" as typed: a whole number, else the text itself, for the server to refuse
 * saying why (0, empty or "abc" became 1 without a word). */
function games(text) {
  const value = Number(text);
  return text.trim() !== "" && Number.isFinite(value) ? value : text;
}

async function load() {
  const answer = await call("GET", "/api/bots");
  if (answer.ok) state.bots = answer.body.bots;
  render();
}

function failed(answer) {
  state.saved = null;
  state.error = { status: answer.status, code: answer.body?.code || null, error: answer.body?.error || "" };
  render();
}

async function act(name, what) {
  state.error = null;
  state.asking = null;
  state.saved = null;
  const answer = await call("POST", `/api/bots/${encodeURIComponent(name)}/${what}`, {});
  if (!answer.ok) return failed(answer);
  state.token = answer.body.token ? { name, value: answer.body.token } : null;
  await load();
}

async function create(event) {
  event.preventDefault();
  state.error = null;
  state.saved = null;
  const accepts = {
    controls: $$('#bots-form input[name="control"]:checked').map((box) => box.value),
    rated: $("#bot-rated").checked,
    casual: $("#bot-casual").checked,
    games: games($("#bot-games").value),
  };
  const username = $("#bot-username").value.trim();
  const answer = await call("POST", "/api/bots", { username, accepts });
  if (!answer.ok) return failed(answer);
  state.token = { name: answer.body.bot.username, value: answer.body.token };
  $("#bot-username").value = "";
  await load();
  $("#bot-token").focus?.();
}

let started = false;

/** The section for the visitor ``me``: an account's bots, nothing for a guest (an account owns
 * them); shown again whenever the page signs in or out ("account-changed"). */
async function show(me) {
  $("#bots-form").hidden = !me.account;
  state.bots = [];
  state.token = null; // a token is shown once, to the account that made it
  state.error = null;
  state.editing = state.asking = state.saved = state.draft = null;
  if (!me.account) return render();
  if (!started) {
    started = true;
    $("#bots-form").addEventListener("submit", create);
    onLanguageChange(render);
  }
  await load();
}

async function main() {
  document.addEventListener("account-changed", (event) => show(event.detail));
  await show(await whoAmI());
}

main();
