// The invitation page (/join/{game}?i=CODE): a friend takes the seat they were invited to, once.

import { gameIdFromPath, getInvitation, joinGame } from "./api.js";
import { GEISHA, geishaSvg } from "./cards.js";
import { copyButton } from "./copy.js";
import { $, fill, h } from "./dom.js";
import { reasonOf } from "./errors.js";
import { initI18n, onLanguageChange, t } from "./i18n.js";
import "./prefs.js"; // the theme chosen at the table (light, dark or the system's) holds here too
import { displayName } from "./words.js";

const NAME_KEY = "hanamikoji.name";
const gameId = gameIdFromPath();
const code = new URLSearchParams(location.search).get("i") || "";

/** What the page shows: loading | open | used | over | own | invalid | error (the invitation not read). */
const view = {
  state: "loading",
  invitation: null, // the server's answer
  error: null, // {key, error}: the last failure, shown in #error
  busy: false, // the seat is being taken
};

function remember(key, value) {
  try {
    localStorage.setItem(key, value);
  } catch {
    /* not kept */
  }
}

function recalled(key) {
  try {
    return localStorage.getItem(key) || "";
  } catch {
    return "";
  }
}

/** The invitation's link, as the creator sends it. */
function inviteLink() {
  const query = new URLSearchParams({ i: code });
  return new URL(`/join/${encodeURIComponent(gameId)}?${query}`, location.origin).href;
}

function hostName(inv) {
  return displayName(inv.host, 1 - inv.seat);
}

/** The name the server gives the guest who leaves the field empty: by the seat ("Player 1"
 * starts), the other number if the host took that one (service.seat_name). */
function defaultName(inv) {
  const mine = inv.seat + 1;
  return t("game.player_n", { n: inv.host === `Player ${mine}` ? 3 - mine : mine });
}

// ---- rendering ----------------------------------------------------------------------------------

function paragraphs(...texts) {
  return texts.filter(Boolean).map((text) => h("p", { text }));
}

function render() {
  const { state, invitation: inv } = view;
  $("#join").dataset.state = state;
  $("#loading").hidden = state !== "loading";
  const title = $("#join-title");
  const text = $("#join-text");
  if (state === "open") {
    title.textContent = t("join.title", { host: hostName(inv) });
    const rules = inv.rules?.max_rounds ? t("join.rules_max", { n: inv.rules.max_rounds }) : t("join.rules_none");
    const first = inv.seat === 0 ? t("join.first_you") : t("join.first_host", { host: hostName(inv) });
    fill(text, paragraphs(`${rules} ${first}`, t("join.open_text")));
    $("#name-help").textContent = t("join.name_help", { name: defaultName(inv) });
  } else if (state === "used") {
    title.textContent = t("join.used_title");
    fill(text, paragraphs(inv?.yours ? t("join.used_yours") : t("join.used_text")));
  } else if (state === "over") {
    title.textContent = t("join.over_title");
    fill(text, paragraphs(inv?.yours ? t("join.over_yours") : t("join.over_text")));
  } else if (state === "own") {
    title.textContent = t("join.own_title");
    fill(text, paragraphs(t("join.own_text")));
  } else if (state === "invalid") {
    title.textContent = t("join.invalid_title");
    fill(text, paragraphs(t("join.invalid_text")));
  } else {
    title.textContent = t("app.name");
    fill(text);
  }
  $("#join-form").hidden = state !== "open";
  $("#take").disabled = view.busy;
  $("#name").disabled = view.busy;
  $("#own").hidden = state !== "own";
  if (state === "own") $("#invite-link").value = inviteLink();
  const table = state === "own" || (["used", "over"].includes(state) && inv?.yours);
  $("#table-link").hidden = !table;
  $("#table-link").href = `/g/${encodeURIComponent(gameId)}`;
  $("#home-link").hidden = !["used", "over", "invalid"].includes(state);
  $("#retry").hidden = state !== "error";
  const box = $("#error");
  box.hidden = !view.error;
  box.textContent = view.error ? t(view.error.key, { reason: reasonOf(view.error.error) }) : "";
}

/** Show a new state and move the focus to its heading (a screen reader reads it out). */
function show(state) {
  view.state = state;
  render();
  $("#join-title").focus();
}

// ---- the server -----------------------------------------------------------------------------------

/** The end states a failure means; null when trying again may help. */
function settled(error) {
  if (error.code === "used" || error.status === 410) return "used";
  if (error.code === "over") return "over";
  if (error.code === "not-allowed") return "own";
  if (["bad-token", "not-found"].includes(error.code) || error.status === 404) return "invalid";
  return null;
}

async function load() {
  view.error = null;
  view.state = "loading";
  render();
  try {
    view.invitation = await getInvitation(gameId, code);
  } catch (error) {
    const state = settled(error);
    if (!state) view.error = { key: "join.load_failed", error };
    show(state || "error");
    return;
  }
  const inv = view.invitation;
  if (inv.status === "over") show("over");
  else if (inv.status !== "open") show("used");
  else if (inv.yours) show("own");
  else show("open");
}

async function take(event) {
  event.preventDefault();
  if (view.busy) return;
  const field = $("#name");
  const name = field.value.trim().slice(0, 40);
  view.busy = true;
  view.error = null;
  field.removeAttribute("aria-invalid");
  render();
  try {
    const seat = await joinGame(gameId, code, name);
    if (name) remember(NAME_KEY, name);
    location.replace(seat.url); // Back does not come back to the spent invitation
    return;
  } catch (error) {
    view.busy = false;
    const state = settled(error);
    if (state) {
      if (view.invitation && ["used", "over"].includes(state)) view.invitation = { ...view.invitation, status: state };
      show(state);
      return;
    }
    view.error = { key: "join.join_failed", error };
    render();
    if (error.code === "bad-request") {
      field.setAttribute("aria-invalid", "true");
      field.focus();
    }
  }
}

async function main() {
  await initI18n();
  onLanguageChange(render);
  fill($("#geisha-row"), GEISHA.map((g) => geishaSvg(g)));
  $("#name").value = recalled(NAME_KEY);
  $("#join-form").addEventListener("submit", take);
  $("#retry").addEventListener("click", load);
  copyButton($("#copy-invite"), $("#invite-link"));
  await load();
}

main();
