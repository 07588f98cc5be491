// The installable app: registers the service worker (/sw.js, which keeps the client's files
// and shows the offline page), and keeps the player's games in this browser for that page.

import { onAccountChange } from "./account.js";

const KEPT_KEY = "taluva.kept-games";

/** Remember the player's games as one list of the page `source` ("my": My games of the
 * account `owner`, "lobby": the lobby's games this browser holds seats in), each {id, name,
 * opponents: [names], situation}: the offline page lists them. Each source replaces only its
 * own list. */
export function rememberGames(source, games, owner = null) {
  try {
    const kept = JSON.parse(localStorage.getItem(KEPT_KEY) || "{}");
    kept[source] = { at: new Date().toISOString(), games, owner };
    localStorage.setItem(KEPT_KEY, JSON.stringify(kept));
  } catch {
    // storage full or refused: the offline page just has fewer games to show
  }
}

// An account's games are forgotten when it signs out or another signs in on this browser.
onAccountChange((account) => {
  try {
    const kept = JSON.parse(localStorage.getItem(KEPT_KEY) || "{}");
    if (kept.my && kept.my.owner !== (account?.id ?? null)) {
      delete kept.my;
      localStorage.setItem(KEPT_KEY, JSON.stringify(kept));
    }
  } catch {
    // nothing readable kept: nothing to forget
  }
});

/** The games remembered, My games' first, each game once; and when they were last seen
 * (an ISO time, or null when none were). */
export function keptGames() {
  let kept = {};
  try {
    kept = JSON.parse(localStorage.getItem(KEPT_KEY) || "{}");
  } catch {
    kept = {};
  }
  const games = new Map();
  let at = null;
  for (const source of ["my", "lobby"]) {
    for (const game of kept[source]?.games || []) if (!games.has(game.id)) games.set(game.id, game);
    if (kept[source]?.at && (!at || kept[source].at > at)) at = kept[source].at;
  }
  return { games: [...games.values()], at };
}

if ("serviceWorker" in navigator) {
  navigator.serviceWorker.register("/sw.js", { scope: "/" }).catch((error) => {
    console.warn(`The offline page is not available: ${error.message}`);
  });
}
