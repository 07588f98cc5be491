// The leaderboard: rated players and AI levels, best rating first, each player linked to
// their profile.

import { api } from "./api.js";
import { currentAccount } from "./account.js";
import { h, clear } from "./dom.js";

export class LeaderboardPage {
  constructor(root) {
    this.root = root;
    this.body = h("tbody", { id: "leaderboard-rows" });
    this.status = h("p", { class: "hint-line", role: "status" });
    clear(root, h("div", { class: "account-page" },
      h("h1", {}, "Leaderboard"),
      h("p", { class: "hint-line" },
        "Ratings (openskill) change after rated games: every seat a signed-in player or an AI. Each AI level has its own rating, so you can see where you stand against it."),
      this.status,
      h("div", { class: "table-wrap" },
        h("table", { class: "leaderboard" },
          h("caption", { class: "visually-hidden" }, "Players by rating"),
          h("thead", {}, h("tr", {},
            h("th", { scope: "col" }, "#"),
            h("th", { scope: "col" }, "Player"),
            h("th", { scope: "col" }, "Rating"),
            h("th", { scope: "col" }, "Rated games"))),
          this.body))));
    this.load();
  }

  destroy() {}

  async load() {
    try {
      const { players } = await api("GET", "/api/leaderboard?limit=100");
      this.render(players);
    } catch (error) {
      this.status.textContent = `Cannot load the leaderboard: ${error.message}`;
    }
  }

  render(players) {
    if (!players.length) {
      this.status.textContent = "No rated game has been played yet.";
      clear(this.body);
      return;
    }
    const me = currentAccount();
    clear(this.body, ...players.map((p) => {
      const name = p.kind === "account"
        ? h("a", { href: `#/player/${encodeURIComponent(p.id)}` }, p.name)
        : h("span", { class: "ai-name" }, p.name, " ", h("span", { class: "tag" }, "AI"));
      const mine = me && p.kind === "account" && p.id === me.id;
      return h("tr", { class: mine ? "mine" : null, "data-kind": p.kind },
        h("td", {}, String(p.rank)),
        h("th", { scope: "row" }, name),
        h("td", {}, String(p.rating)),
        h("td", {}, String(p.games)));
    }));
  }
}
