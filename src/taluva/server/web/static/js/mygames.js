// "My games": the signed-in player's open, live and finished games on any device, with whose
// turn it is ("Your move" when it is theirs).

import { api } from "./api.js";
import { currentAccount } from "./account.js";
import { h, clear } from "./dom.js";

const SECTIONS = [
  ["live", "Playing"],
  ["open", "Waiting for players"],
  ["finished", "Finished"],
];

/** 1-based place of `seat` in a stored result ({ranking: [[seats], ...]}), or null. */
export function placeOf(result, seat) {
  let place = 1;
  for (const group of result?.ranking || []) {
    if (group.includes(seat)) return place;
    place += group.length;
  }
  return null;
}

export class MyGamesPage {
  constructor(root) {
    this.root = root;
    this.lists = {};
    this.build();
    this.refresh();
    this.timer = setInterval(() => this.refresh(), 5000);
  }

  destroy() {
    clearInterval(this.timer);
  }

  build() {
    this.status = h("p", { class: "hint-line", role: "status", "aria-live": "polite" });
    const sections = SECTIONS.map(([status, title]) => {
      this.lists[status] = h("ul", { class: "games", id: `my-${status}-games` });
      return h("section", { class: "my-section" }, h("h2", {}, title), this.lists[status]);
    });
    clear(this.root, h("div", { class: "account-page" },
      h("h1", {}, "My games"), this.status, ...sections));
  }

  async refresh() {
    if (!currentAccount()) {
      this.status.textContent = "Sign in (at the top of the page) to see your games on any device.";
      for (const list of Object.values(this.lists)) clear(list);
      return;
    }
    try {
      const { games } = await api("GET", "/api/my/games");
      const waiting = games.filter((g) => g.your_move).length;
      this.status.textContent = waiting ? `Your move in ${waiting} game${waiting > 1 ? "s" : ""}.` : "";
      for (const [status] of SECTIONS) this.render(status, games.filter((g) => g.status === status));
    } catch (error) {
      this.status.textContent = `Cannot load your games: ${error.message}`;
    }
  }

  render(status, games) {
    const list = this.lists[status];
    if (!games.length) {
      clear(list, h("li", { class: "empty" }, "None."));
      return;
    }
    clear(list, ...games.map((g) => {
      const others = g.players.filter((p) => p.seat !== g.seat).map((p) => (p.taken ? p.name : "(free)"));
      return h("li", { class: `game-entry${g.your_move ? " your-move" : ""}`, "data-game": g.id },
        h("a", { href: `#/game/${encodeURIComponent(g.id)}`, class: "button" },
          status === "finished" ? "Replay" : g.your_move ? "Play" : "Open"),
        h("span", { class: "game-name" }, g.name),
        h("span", { class: "game-players" }, `with ${others.join(", ")}`),
        h("span", { class: "game-meta" }, this.situation(g)));
    }));
  }

  situation(game) {
    if (game.status === "open") return "Waiting for players to take the free seats";
    if (game.status === "finished") {
      const place = placeOf(game.result, game.seat);
      return place ? `Finished: your place ${place} of ${game.players.length}` : "Finished";
    }
    if (game.your_move) return "Your move";
    const mover = game.players.find((p) => p.seat === game.to_move);
    return mover ? `${mover.name} to move` : `${game.ply} moves`;
  }
}
