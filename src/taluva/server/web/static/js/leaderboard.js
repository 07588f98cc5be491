// The leaderboard: rated players and AI levels, best rating first, each player linked to
// their profile.

import { api } from "./api.js";
import { currentAccount } from "./account.js";
import { h, clear } from "./dom.js";
import { ratingText } from "./ratings.js";
import { challengeButton } from "./challenge.js";

export class LeaderboardPage {
  constructor(root, config) {
    this.root = root;
    this.body = h("tbody", { id: "leaderboard-rows" });
    this.provisionalBody = h("tbody", { id: "provisional-rows" });
    this.status = h("p", { class: "hint-line", role: "status" });
    const games = config.provisional_games;
    this.provisional = h("section", { class: "provisional", hidden: true },
      h("h2", {}, "Provisional ratings"),
      h("p", { class: "hint-line" },
        `A rating is provisional ("?") until ${games} rated games have been played; these players are not ranked yet.`),
      table("Players with provisional ratings", this.provisionalBody));
    clear(root, h("div", { class: "account-page" },
      h("h1", {}, "Leaderboard"),
      h("p", { class: "hint-line" },
        `Ratings start at ${config.rating_base} and change after rated games (chosen when a game is created; every seat a signed-in player or an AI). Each AI level has its own rating, so you can see where you stand against it.`),
      this.status,
      table("Players by rating", this.body),
      this.provisional));
    this.load();
  }

  destroy() {}

  async load() {
    try {
      const { players, provisional } = await api("GET", "/api/leaderboard?limit=100");
      this.render(players, provisional);
    } catch (error) {
      this.status.textContent = `Cannot load the leaderboard: ${error.message}`;
    }
  }

  render(players, provisional) {
    this.status.textContent = !players.length && !provisional.length
      ? "No rated game has been played yet."
      : !players.length ? "Nobody is ranked yet: every rating is still provisional." : "";
    clear(this.body, ...players.map(row));
    clear(this.provisionalBody, ...provisional.map(row));
    this.provisional.hidden = !provisional.length;
  }
}

/** A table of players under its caption. */
function table(caption, body) {
  return h("div", { class: "table-wrap" },
    h("table", { class: "leaderboard" },
      h("caption", { class: "visually-hidden" }, caption),
      h("thead", {}, h("tr", {},
        h("th", { scope: "col" }, "#"),
        h("th", { scope: "col" }, "Player"),
        h("th", { scope: "col" }, "Rating"),
        h("th", { scope: "col" }, "Rated games"),
        h("th", { scope: "col" }, h("span", { class: "visually-hidden" }, "Challenge")))),
      body));
}

/** One player's line: rank (– while provisional), name linked to the profile, rating, and a
 * Challenge button for another signed-in player's account. */
function row(p) {
  const me = currentAccount();
  const name = p.kind === "account"
    ? h("a", { href: `#/player/${encodeURIComponent(p.id)}` }, p.name)
    : h("span", { class: "ai-name" }, p.name, " ", h("span", { class: "tag" }, "AI"));
  const mine = me && p.kind === "account" && p.id === me.id;
  return h("tr", { class: mine ? "mine" : null, "data-kind": p.kind },
    h("td", {}, p.rank == null ? "–" : String(p.rank)),
    h("th", { scope: "row" }, name),
    h("td", {}, ratingText(p.rating, p.provisional)),
    h("td", {}, String(p.games)),
    h("td", {}, p.kind === "account" ? challengeButton(p, { inline: true }) : null));
}
