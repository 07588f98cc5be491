// The leaderboard: rated players and AI levels, best rating first, each player linked to
// their profile.

import { api } from "./api.js";
import { currentAccount } from "./account.js";
import { h, clear } from "./dom.js";
import { number, t } from "./i18n.js";
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
      h("h2", {}, t("Provisional ratings")),
      h("p", { class: "hint-line" },
        t("A rating is provisional (\"?\") until {games} rated games have been played; these players are not ranked yet.", { games })),
      table(t("Players with provisional ratings"), this.provisionalBody));
    clear(root, h("div", { class: "account-page" },
      h("h1", {}, t("Leaderboard")),
      h("p", { class: "hint-line" },
        t("Ratings start at {rating} and change after rated games (chosen when a game is created; every seat a signed-in player or an AI). Each AI level has its own rating, so you can see where you stand against it.", { rating: String(config.rating_base) })),
      this.status,
      table(t("Players by rating"), this.body),
      this.provisional));
    this.load();
  }

  destroy() {}

  async load() {
    try {
      const { players, provisional } = await api("GET", "/api/leaderboard?limit=100");
      this.render(players, provisional);
    } catch (error) {
      this.status.textContent = t("Cannot load the leaderboard: {error}", { error: error.message });
    }
  }

  render(players, provisional) {
    this.status.textContent = !players.length && !provisional.length
      ? t("No rated game has been played yet.")
      : !players.length ? t("Nobody is ranked yet: every rating is still provisional.") : "";
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
        h("th", { scope: "col" }, t("Player")),
        h("th", { scope: "col" }, t("Rating")),
        h("th", { scope: "col" }, t("Rated games")),
        h("th", { scope: "col" }, h("span", { class: "visually-hidden" }, t("Challenge"))))),
      body));
}

/** One player's line: rank (– while provisional), name linked to the profile, rating, and a
 * Challenge button for another signed-in player's account. */
function row(p) {
  const me = currentAccount();
  const name = p.kind === "account"
    ? h("a", { href: `#/player/${encodeURIComponent(p.id)}` }, p.name)
    : h("span", { class: "ai-name" }, p.name, " ", h("span", { class: "tag" }, t("AI")));
  const mine = me && p.kind === "account" && p.id === me.id;
  return h("tr", { class: mine ? "mine" : null, "data-kind": p.kind },
    h("td", {}, p.rank == null ? "–" : String(p.rank)),
    h("th", { scope: "row" }, name),
    h("td", {}, ratingText(p.rating, p.provisional)),
    h("td", {}, number(p.games)),
    h("td", {}, p.kind === "account" ? challengeButton(p, { inline: true }) : null));
}
