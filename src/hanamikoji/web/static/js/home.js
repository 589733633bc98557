// The home page: a new game against the AI, or an invitation link for a friend.

import { createGame, getInvitation, setName } from "./api.js";
import { geishaSvg, GEISHA } from "./cards.js";
import { controlText } from "./clock.js";
import { copyButton } from "./copy.js";
import { $, fill, h } from "./dom.js";
import { reasonOf } from "./errors.js";
import { startGuidedGame } from "./guide.js";
import { initI18n, onLanguageChange, t } from "./i18n.js";
import { showMine } from "./mine.js";
import { prefs, setPref } from "./prefs.js"; // the theme chosen at the table holds here too

const NAME_KEY = "hanamikoji.name";
let lastError = null;
let lastErrorKey = "errors.create";
let myName = ""; // the name the server keeps for this player

function remember(key, value) {
  try {
    localStorage.setItem(key, value);
  } catch {
    /* not kept */
  }
}

function options(mode) {
  const name = $("#name").value.trim();
  const seat = $("#seat").value;
  const body = {
    mode,
    seat: seat === "random" ? "random" : Number(seat),
    max_rounds: $("#rounds").value === "none" ? null : Number($("#rounds").value),
  };
  if (mode === "ai") {
    body.level = $("#level").value;
    body.control = $("#ai-control").value; // "none" (untimed, as before) or the lobby's controls
    body.rated = body.control !== "none" && $("#ai-rated").checked;
  }
  body.name = name.slice(0, 40); // the player's name from now on (empty: "Player 1" or "2", by the seat)
  remember(NAME_KEY, body.name);
  return body;
}

/** The time control's words, and "Rated" usable only with a clock (untimed games are never rated). */
function showControls() {
  for (const option of document.querySelectorAll("#ai-control option")) option.textContent = controlText(option.dataset.control);
  const rated = $("#ai-rated");
  rated.disabled = $("#ai-control").value === "none";
  if (rated.disabled) rated.checked = false;
}

function showError(error, key = "errors.create") {
  lastError = error;
  lastErrorKey = key;
  const box = $("#error");
  box.hidden = !error;
  box.textContent = error ? t(key, { reason: reasonOf(error) }) : "";
}

/** To the lobby with the name typed here kept first: the lobby has no name field, and a guest's
 * opponent saw "Player 1" under the name they had typed on this page. */
async function toLobby(event) {
  const name = $("#name").value.trim().slice(0, 40);
  if (!name || name === myName) return; // nothing new to keep: the link goes on
  event.preventDefault();
  showError(null);
  try {
    await setName(name);
    myName = name;
    remember(NAME_KEY, name);
    location.assign($("#lobby-link").href);
  } catch (error) {
    showError(error, "errors.name_not_kept");
    $("#name").focus();
  }
}

async function start(mode, button) {
  showError(null);
  button.disabled = true;
  try {
    const game = await createGame(options(mode));
    if (mode === "ai") {
      location.assign(game.url);
      return;
    }
    if (game.invite) remember(`hanamikoji.invite.${game.game}`, game.invite);
    $("#invite-link").value = new URL(game.invite, location.origin).href;
    $("#go").href = game.url;
    $("#invite-result").hidden = false;
    if (game.invite) watchInvitation(game);
    $("#invite-link").focus();
    $("#invite-link").select();
  } catch (error) {
    showError(error);
  } finally {
    button.disabled = false;
  }
}

// ---- the invitation shown: the host is told here when the friend takes the seat -------------
// The host often stays on this page to send the link, and this page has no connection to the
// game: it said nothing when the friend joined. Asking the invitation's public state (GET
// /api/games/{id}/invitation, what the join page reads) every few seconds while the link is shown
// is the smallest thing that tells them, with no new route or socket. It asks only while the page
// is seen (once more at once when it is seen again), stops at an answer that cannot change (the
// seat taken, the game over) and when a newer invitation replaces this one. The table is not
// opened on its own: the host may be busy copying the link; the line says it and "Go to the
// table" is the way on.
const INVITE_POLL_MS = 4000;
/** The invitation shown: {game, code, state: waiting | joined | over, timer, asking}. */
let invitation = null;

function inviteLine() {
  let line = $("#invite-state");
  if (!line) {
    line = h("p", { id: "invite-state", class: "small muted", role: "status" });
    $("#go").before(line);
  }
  return line;
}

function showInviteState() {
  if (!invitation) return;
  const line = inviteLine();
  line.dataset.state = invitation.state;
  line.classList.toggle("muted", invitation.state === "waiting"); // the news itself stands out
  line.textContent = t(`home.invite_${invitation.state}`);
}

async function askInvitation(watched) {
  if (invitation !== watched || watched.asking || watched.state !== "waiting") return;
  clearTimeout(watched.timer);
  watched.timer = null;
  if (document.hidden) return; // asked again when the page is seen
  watched.asking = true;
  let again = true;
  try {
    const info = await getInvitation(watched.game, watched.code);
    if (info.status === "used") watched.state = "joined";
    else if (info.status === "over") watched.state = "over";
  } catch (error) {
    // offline or a server restarting: asked again; a game gone or a link refused: not
    again = !(error.status >= 400 && error.status < 500 && error.status !== 408 && error.status !== 429);
  } finally {
    watched.asking = false;
  }
  if (invitation !== watched) return;
  showInviteState();
  if (again && watched.state === "waiting") watched.timer = setTimeout(() => askInvitation(watched), INVITE_POLL_MS);
}

function watchInvitation(game) {
  if (invitation) clearTimeout(invitation.timer);
  const code = new URL(game.invite, location.origin).searchParams.get("i") || "";
  invitation = { game: game.game, code, state: "waiting", timer: null, asking: false };
  showInviteState();
  invitation.timer = setTimeout(() => askInvitation(invitation), INVITE_POLL_MS);
}

/** A guided first game against the beginner (js/guide.js): no form to fill. */
async function startGuided(button) {
  showError(null);
  button.disabled = true;
  try {
    const name = $("#name").value.trim();
    if (name) remember(NAME_KEY, name.slice(0, 40));
    await startGuidedGame(name);
  } catch (error) {
    showError(error);
  } finally {
    button.disabled = false;
  }
}

async function main() {
  // The buttons work from the first moment: a click while the translations are still on their
  // way must start the game, not do nothing (or submit the form to the page itself).
  $("#new-game").addEventListener("submit", (event) => {
    event.preventDefault();
    start("ai", $("#start-ai"));
  });
  $("#invite").addEventListener("click", () => start("friend", $("#invite")));
  $("#start-guided").addEventListener("click", () => startGuided($("#start-guided")));
  $("#lobby-link").addEventListener("click", toLobby);
  // the AI's level last chosen (it went back to Medium after every game)
  $("#level").value = prefs().level;
  $("#level").addEventListener("change", () => setPref("level", $("#level").value));
  // the invitation asked again at once when the page is seen again (not while it is hidden)
  const again = () => invitation && askInvitation(invitation);
  document.addEventListener("visibilitychange", again);
  window.addEventListener("pageshow", again);
  await initI18n();
  onLanguageChange(() => {
    showError(lastError, lastErrorKey);
    showControls();
    showInviteState();
  });
  showError(lastError, lastErrorKey); // (one shown before the translations arrived, now in the player's words)
  showInviteState();
  showControls();
  $("#ai-control").addEventListener("change", showControls);
  fill($("#geisha-row"), GEISHA.map((g) => geishaSvg(g)));
  try {
    if (!$("#name").value) $("#name").value = localStorage.getItem(NAME_KEY) || ""; // not over what was typed
  } catch {
    /* nothing kept */
  }
  // The player's own name (kept by the server, on every device once signed in) comes first.
  showMine().then((me) => {
    myName = me.name || "";
    if (me.name && document.activeElement !== $("#name")) $("#name").value = me.name;
  });
  copyButton($("#copy-invite"), $("#invite-link"));
  // /?guided=1 (the rules page's link) starts one at once; Back from its table comes to a plain home page
  if (new URLSearchParams(location.search).has("guided")) {
    history.replaceState(null, "", "/");
    startGuided($("#start-guided"));
  }
}

main();
