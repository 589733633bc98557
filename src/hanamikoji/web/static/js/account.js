// The account page (/account): a guest creates an account or signs in; a signed-in player
// changes their name or password, signs out, or deletes the account (docs/web.md, "Identity");
// anyone turns chat on or off for every game (docs/web.md, "Chat").

import { $, $$ } from "./dom.js";
import { reasonOf } from "./errors.js";
import { initI18n, onLanguageChange, t } from "./i18n.js";
import { whoAmI } from "./mine.js";
import "./prefs.js"; // the theme chosen at the table (light, dark or the system's) holds here too

const page = {
  me: null, // {name, username, account}
  status: null, // {key, params}: what the last success said
  errors: {}, // form id -> {key, params, reason}
};

/** POST a JSON body; resolves to {ok, status, body, retry} ({status: 0} when offline). */
async function send(path, payload) {
  try {
    const response = await fetch(path, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      credentials: "same-origin",
      body: JSON.stringify(payload),
    });
    const body = await response.json().catch(() => null);
    return { ok: response.ok, status: response.status, body, retry: Number(response.headers.get("Retry-After")) || 0 };
  } catch {
    return { ok: false, status: 0, body: { code: "offline" }, retry: 0 };
  }
}

/** Our words for a refusal: the field's rule, the code's sentence, else the server's reason. */
function explain(answer, form = "") {
  const body = answer.body || {};
  const field = body.field === "new_password" ? "password" : body.field;
  if (body.code === "bad-request" && ["username", "password", "name"].includes(field)) return { key: `account.errors.${field}` };
  if (body.code === "too-many" || answer.status === 429) {
    const seconds = answer.retry || 60;
    // A lockout of a quarter of an hour reads in minutes, not as "789 s"
    if (seconds > 90) return { key: "account.errors.too-many-minutes", params: { minutes: Math.ceil(seconds / 60) } };
    return { key: "account.errors.too-many", params: { seconds } };
  }
  // the password and deletion forms ask for no user name: only the password can be wrong there
  if (body.code === "bad-credentials" && ["password-form", "delete-form"].includes(form)) return { key: "account.errors.bad-password" };
  if (["taken", "bad-credentials", "not-signed-in", "signed-in"].includes(body.code)) return { key: `account.errors.${body.code}` };
  return { key: "account.errors.failed", reason: { status: answer.status, code: body.code || null, error: body.error || "" } };
}

function errorText(error) {
  return error.reason ? t(error.key, { reason: reasonOf(error.reason) }) : t(error.key, error.params || {});
}

function render() {
  const me = page.me;
  const state = !me ? "loading" : me.account ? "account" : "guest";
  $("#account").dataset.state = state;
  const title = $("#account-title");
  if (state === "loading") return;
  title.removeAttribute("data-i18n");
  title.textContent = state === "account" ? t("account.signed_in_title", { username: me.username }) : t("account.guest_title");
  $("#account-text").textContent = state === "account" ? t("account.signed_in_text") : t("account.guest_text");
  $("#guest-forms").hidden = state !== "guest";
  $("#player-forms").hidden = false;
  for (const id of ["signout-box", "password-form", "delete-form"]) $(`#${id}`).hidden = state !== "account";
  for (const input of $$(".known-username")) input.value = me.username || "";
  // The public profile (ratings, games), as others see it: only an account has one.
  const profile = $("#profile-link");
  profile.hidden = state !== "account";
  if (state === "account") profile.href = `/@/${encodeURIComponent(me.username)}`;
  const status = $("#account-status");
  status.hidden = !page.status;
  status.textContent = page.status ? t(page.status.key, page.status.params || {}) : "";
  for (const form of $$(".account-form")) {
    const error = page.errors[form.id];
    const box = $(".form-error", form);
    box.hidden = !error;
    box.textContent = error ? errorText(error) : "";
  }
}

/** The chat preference as the server keeps it (GET /api/me/chat); the box waits for it. */
async function loadChat() {
  const box = $("#chat-pref");
  try {
    const response = await fetch("/api/me/chat", { credentials: "same-origin" });
    if (!response.ok) return;
    box.checked = Boolean((await response.json()).chat);
    box.disabled = false;
  } catch {
    /* offline: the box stays disabled */
  }
}

/** Keep the box's new value (POST /api/me/chat); a refusal puts it back and says why. */
async function saveChat() {
  const box = $("#chat-pref");
  const on = box.checked;
  box.disabled = true;
  const answer = await send("/api/me/chat", { chat: on });
  box.disabled = false;
  page.errors = {};
  if (answer.ok) {
    box.checked = Boolean(answer.body?.chat);
    page.status = { key: box.checked ? "account.chat_on" : "account.chat_off" };
  } else {
    box.checked = !on;
    page.errors["chat-box"] = explain(answer);
  }
  render();
}

/** Read who the visitor is now and show it; ``status`` says what just happened. */
async function refresh(status = null) {
  page.me = await whoAmI();
  page.status = status;
  page.errors = {};
  if (document.activeElement !== $("#name")) $("#name").value = page.me.name || "";
  for (const input of $$('input[type="password"]')) input.value = "";
  for (const input of $$("[aria-invalid]")) input.removeAttribute("aria-invalid");
  await loadChat(); // (the player's own: another after signing in or out)
  render();
  document.dispatchEvent(new CustomEvent("account-changed", { detail: page.me })); // (js/bots.js)
  if (status) $("#account-title").focus(); // the forms changed under the focus: start again at the top
}

/** The input a refusal is about (marked and focused), else the form's first field. */
function markField(form, answer) {
  const field = answer.body?.field;
  const input = (field && form.elements.namedItem(field)) || null;
  if (input) {
    input.setAttribute("aria-invalid", "true");
    input.focus();
  }
}

/** Wire a form: its fields as a JSON body to `path`; then `done(answer)` or the refusal shown. */
function wire(form, path, fields, done, check = () => null) {
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const button = $('button[type="submit"]', form);
    if (button.disabled) return;
    for (const input of $$("[aria-invalid]", form)) input.removeAttribute("aria-invalid");
    const refused = check();
    if (refused) {
      page.errors[form.id] = refused;
      render();
      return;
    }
    const payload = {};
    for (const name of fields) payload[name] = form.elements.namedItem(name).value;
    button.disabled = true;
    const answer = await send(path, payload);
    button.disabled = false;
    if (answer.ok) {
      await done(answer);
      return;
    }
    page.errors[form.id] = explain(answer, form.id);
    page.status = null;
    render();
    markField(form, answer);
    if (answer.body?.code === "not-signed-in") await refresh(null);
  });
}

async function main() {
  await initI18n();
  onLanguageChange(render);
  for (const toggle of $$(".show-password")) {
    toggle.addEventListener("change", () => {
      for (const input of $$('input[type="password"], input.shown-password', toggle.form)) {
        input.type = toggle.checked ? "text" : "password";
        input.classList.toggle("shown-password", toggle.checked);
      }
    });
  }
  wire($("#create-form"), "/api/account", ["username", "password"], (a) => refresh({ key: "account.created", params: { username: a.body.username } }));
  wire($("#signin-form"), "/api/account/signin", ["username", "password"], (a) => refresh({ key: "account.welcome_back", params: { username: a.body.username } }));
  wire($("#name-form"), "/api/me", ["name"], () => refresh({ key: "account.name_saved" }));
  wire($("#password-form"), "/api/account/password", ["password", "new_password"], () => refresh({ key: "account.password_changed" }));
  wire($("#delete-form"), "/api/account/delete", ["password"], () => refresh({ key: "account.deleted" }), () =>
    $("#delete-confirm").checked ? null : { key: "account.errors.confirm" },
  );
  $("#chat-pref").addEventListener("change", saveChat);
  $("#signout").addEventListener("click", async () => {
    const answer = await send("/api/account/signout", {});
    if (answer.ok || answer.body?.code === "not-signed-in") {
      await refresh({ key: "account.signed_out" });
      return;
    }
    page.errors["signout-box"] = explain(answer);
    render();
  });
  await refresh();
}

main();
