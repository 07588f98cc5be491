// The offline page (offline.html, which the service worker shows when a page cannot load): the
// player's games as this browser last saw them, and the site again once it can be reached.

import { keptGames } from "./pwa.js";
import { h, clear } from "./dom.js";
import { dateTime, t, translatePage } from "./i18n.js";

const RETRY_MS = 15000;

function showGames() {
  const { games, at } = keptGames();
  const list = document.getElementById("offline-games");
  const when = document.getElementById("offline-games-when");
  if (!games.length) {
    when.textContent = t("No games were kept in this browser: open the site once while online to keep them here.");
    clear(list);
    return;
  }
  when.textContent = t("As they were on {date}; the links work again once you are online.", { date: dateTime(new Date(at)) });
  clear(list, ...games.map((game) => h("li", { class: `game-entry${game.your_move ? " your-move" : ""}`, "data-game": game.id },
    h("a", { href: `/#/game/${encodeURIComponent(game.id)}`, class: "button" }, t("Open")),
    h("span", { class: "game-name" }, game.name),
    h("span", { class: "game-players" }, game.opponents.length ? t("with {players}", { players: game.opponents.join(", ") }) : t("on this device")),
    h("span", { class: "game-meta" }, game.situation))));
}

/** Load the page that could not load (the lobby if this page was asked for by name). */
function back() {
  if (location.pathname === "/static/offline.html") location.assign("/");
  else location.reload();
}

/** Go back when the site answers again: the browser came online, or the server came back. */
async function retry() {
  try {
    const answer = await fetch("/healthz", { cache: "no-store" });
    if (answer.ok) back();
  } catch {
    // still unreachable: try again later
  }
}

translatePage(document);
showGames();
document.getElementById("offline-retry").addEventListener("click", back);
window.addEventListener("online", back);
setInterval(retry, RETRY_MS);
