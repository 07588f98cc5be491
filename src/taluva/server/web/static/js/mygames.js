// "My games": the signed-in player's open, live and finished games on any device, with whose
// turn it is ("Your move" when it is theirs), and the rematches others offer them (their old
// seat kept free for them until they take it, so it is not yet one of their games).

import { ApiError, api } from "./api.js";
import { currentAccount } from "./account.js";
import { h, clear, toast } from "./dom.js";
import { listing, t, tn } from "./i18n.js";
import { takeRematch } from "./inbox.js";
import { rememberGames } from "./pwa.js";

const SECTIONS = [
  ["live", t("Playing")],
  ["open", t("Waiting for players")],
  ["finished", t("Finished")],
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

/** The names of the other seats of one of the player's games ("(free)" for a free seat). */
function opponents(game) {
  return game.players.filter((p) => p.seat !== game.seat).map((p) => (p.taken ? p.name : t("(free)")));
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
      h("h1", {}, t("My games")), this.status, ...sections));
  }

  async refresh() {
    if (!currentAccount()) {
      this.status.textContent = t("Sign in (at the top of the page) to see your games on any device.");
      for (const list of Object.values(this.lists)) clear(list);
      return;
    }
    try {
      const [{ games }, { rematches }] = await Promise.all([api("GET", "/api/my/games"), api("GET", "/api/my/inbox")]);
      const waiting = games.filter((g) => g.your_move).length;
      this.status.textContent = waiting ? tn("Your move in {n} game.", "Your move in {n} games.", waiting) : "";
      for (const [status] of SECTIONS) this.render(status, games.filter((g) => g.status === status));
      rememberGames("my", games.map((g) => ({
        id: g.id, name: g.name, opponents: opponents(g), situation: this.situation(g), your_move: g.your_move,
      })), currentAccount()?.id);
      if (rematches.length) this.lists.open.querySelector(".empty")?.remove();
      this.lists.open.prepend(...rematches.map((r) => this.offer(r)));
    } catch (error) {
      this.status.textContent = t("Cannot load your games: {error}", { error: error.message });
    }
  }

  render(status, games) {
    const list = this.lists[status];
    if (!games.length) {
      clear(list, h("li", { class: "empty" }, t("None.")));
      return;
    }
    clear(list, ...games.map((g) => {
      return h("li", { class: `game-entry${g.your_move ? " your-move" : ""}`, "data-game": g.id },
        h("a", { href: `#/game/${encodeURIComponent(g.id)}`, class: "button" },
          status === "finished" ? t("Replay") : g.your_move ? t("Play") : t("Open")),
        h("span", { class: "game-name" }, g.name),
        h("span", { class: "game-players" }, t("with {players}", { players: opponents(g).join(", ") })),
        h("span", { class: "game-meta" }, this.situation(g)));
    }));
  }

  /** A rematch offered to this player: who offers it, and one click to take their seat. */
  offer(rematch) {
    const play = h("button", { type: "button", class: "button primary", onclick: async () => {
      play.disabled = true;
      try {
        location.hash = `#/game/${encodeURIComponent(await takeRematch(rematch))}`;
      } catch (error) {
        play.disabled = false;
        toast(error instanceof ApiError ? error.message : String(error), "error");
      }
    } }, t("Play"));
    return h("li", { class: "game-entry rematch-offer", "data-game": rematch.game },
      play,
      h("span", { class: "game-name" }, rematch.name),
      h("span", { class: "game-players" }, t("with {players}", { players: rematch.by.name })),
      h("span", { class: "game-meta" }, t("{name} offers a rematch: waiting for you", { name: rematch.by.name })));
  }

  situation(game) {
    if (game.status === "open") {
      const free = game.players.filter((p) => p.kind === "human" && !p.taken).map((p) => p.name);
      return free.length ? t("Waiting for {names} to take their seat", { names: listing(free) }) : t("Waiting for players to take the free seats");
    }
    if (game.status === "finished") {
      const place = placeOf(game.result, game.seat);
      return place ? t("Finished: your place {place} of {players}", { place, players: game.players.length }) : t("Finished");
    }
    if (game.your_move) return t("Your move");
    const mover = game.players.find((p) => p.seat === game.to_move);
    return mover ? t("{name} to move", { name: mover.name }) : tn("{n} move", "{n} moves", game.ply);
  }
}
