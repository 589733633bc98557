// The account page's bots (docs/bots.md): an account's bots, a new one (its token shown once),
// a new token or a revoked one. The bot itself plays through `hanamikoji bot` or the bot API.

import { $, $$, fill, h } from "./dom.js";
import { reasonOf } from "./errors.js";
import { onLanguageChange, t } from "./i18n.js";
import { whoAmI } from "./mine.js";

const state = { bots: [], token: null, error: null }; // token: {name, value}, shown this once

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

function botItem(b) {
  const status = [b.online ? t("bots.account.online") : t("bots.account.offline"), b.token ? null : t("bots.account.revoked")];
  return h(
    "li",
    { class: "challenge bot", "data-bot": b.username },
    h("a", { class: "challenge-who", href: b.profile, text: b.username }),
    h("span", { class: "bot-badge", text: t("bots.badge"), title: t("bots.badge_title") }),
    h("span", { class: "challenge-what", text: status.filter(Boolean).join(" · ") }),
    h(
      "span",
      { class: "bot-actions" },
      h("button", { type: "button", class: "btn", "data-action": "token", text: t("bots.account.new_token"), onclick: () => act(b.username, "token") }),
      b.token ? h("button", { type: "button", class: "btn", "data-action": "revoke", text: t("bots.account.revoke"), onclick: () => act(b.username, "revoke") }) : null,
    ),
  );
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
  const error = $("#bots-form .form-error");
  error.hidden = !state.error;
  error.textContent = state.error ? t("bots.account.failed", { reason: reasonOf(state.error) }) : "";
}

async function load() {
  const answer = await call("GET", "/api/bots");
  if (answer.ok) state.bots = answer.body.bots;
  render();
}

function failed(answer) {
  state.error = { status: answer.status, code: answer.body?.code || null, error: answer.body?.error || "" };
  render();
}

async function act(name, what) {
  state.error = null;
  const answer = await call("POST", `/api/bots/${encodeURIComponent(name)}/${what}`, {});
  if (!answer.ok) return failed(answer);
  state.token = answer.body.token ? { name, value: answer.body.token } : null;
  await load();
}

async function create(event) {
  event.preventDefault();
  state.error = null;
  const accepts = {
    controls: $$('#bots-form input[name="control"]:checked').map((box) => box.value),
    rated: $("#bot-rated").checked,
    casual: $("#bot-casual").checked,
    games: Number($("#bot-games").value) || 1,
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
