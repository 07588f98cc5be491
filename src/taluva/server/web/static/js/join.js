// The free seats of a game that has not started: a link to send to the other players, and a
// button per free seat that takes it under the name typed (remembered for the next game).

import { ApiError, api, playerName, tokens } from "./api.js";
import { h, clear, toast } from "./dom.js";
import { t } from "./i18n.js";

export class JoinPanel {
  /** `gameId` names the game; `hello(tokens)` tells the server this page's seat tokens. */
  constructor(gameId, hello) {
    this.id = gameId;
    this.hello = hello;
    this.node = h("div", { class: "join-panel" });
  }

  update(s) {
    const free = s.players.filter((p) => p.kind === "human" && !p.taken);
    if (s.status !== "open" || !free.length) {
      clear(this.node);
      return;
    }
    const name = h("input", { value: playerName.get(), placeholder: t("your name"), maxlength: 160, "aria-label": t("Your name"), class: "join-name" });
    const link = h("input", { readonly: true, value: location.href, class: "join-link", "aria-label": t("Link to this game"), onfocus: (e) => e.target.select() });
    clear(this.node,
      h("p", {}, t("Free seats: take one to play, or send this link to the other players:")),
      link,
      name,
      ...free.map((p) => h("button", {
        type: "button", class: "primary", "data-seat": p.seat,
        onclick: () => this.join(p.seat, name.value),
      }, t("Take seat {n}", { n: p.seat + 1 }))));
  }

  async join(seat, name) {
    try {
      playerName.set(name);
      const reply = await api("POST", `/api/games/${encodeURIComponent(this.id)}/seats/${seat}`, { name });
      tokens.add(this.id, reply.seat, reply.token);
      this.hello(Object.values(tokens.forGame(this.id)));
    } catch (error) {
      toast(error instanceof ApiError ? error.message : String(error), "error");
    }
  }
}
