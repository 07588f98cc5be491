// The rematch on a finished game's page: a player offers it with one click (a new game with
// the same seats and options, a new deck); each other player takes their old seat in it with
// one click; spectators see it and may watch it.

import { tokens } from "./api.js";
import { h, clear, toast } from "./dom.js";
import { listing, t, tn } from "./i18n.js";

/** Offer or take the rematch of `gameId` with a seat token, or (token null) as the
 * signed-in account, whose session cookie goes with the request. */
async function playAgain(gameId, token) {
  let response;
  try {
    response = await fetch(`/api/games/${encodeURIComponent(gameId)}/rematch`, {
      method: "POST", headers: token ? { authorization: `Bearer ${token}` } : {},
    });
  } catch {
    throw new Error(t("the server cannot be reached"));
  }
  const data = await response.json().catch(() => ({}));
  if (!response.ok) throw new Error(data.error?.message || response.statusText);
  return data;
}

export class RematchPanel {
  constructor(gameId) {
    this.id = gameId;
    this.game = null; // the rematch's lobby summary, once offered
    this.state = null;
    this.seats = [];
    this.busy = false;
    this.node = h("div", { class: "rematch", role: "region", "aria-label": t("Rematch"), hidden: true });
  }

  /** The rematch's summary, from the welcome or a `rematch` message (null: none yet). */
  offer(game) {
    this.game = game;
    this.render();
  }

  update(state, seats) {
    this.state = state;
    this.seats = seats;
    this.render();
  }

  /** Offer the rematch, or take this browser's old seats in it, then go to it. Each of the
   * seat tokens held for this game is sent (hot-seat: one browser, several seats); without
   * any, the signed-in account's seats are asked for. */
  async playAgain() {
    if (this.busy) return;
    this.busy = true;
    this.render();
    try {
      let game = null;
      const held = Object.values(tokens.forGame(this.id));
      for (const token of held.length ? held : [null]) {
        const answer = await playAgain(this.id, token);
        game = answer.game;
        for (const held of answer.tokens) tokens.add(game.id, held.seat, held.token);
      }
      if (game) location.hash = `#/game/${game.id}`;
    } catch (error) {
      toast(t("No rematch: {reason}", { reason: error.message }), "error");
    } finally {
      this.busy = false;
      this.render();
    }
  }

  render() {
    const s = this.state;
    if (!s || s.status !== "finished") {
      this.node.hidden = true;
      clear(this.node);
      return;
    }
    const link = (label) => h("a", { class: "button rematch-go", href: `#/game/${this.game.id}` }, label);
    let parts;
    if (!this.game) {
      if (!this.seats.length) {
        this.node.hidden = true;
        clear(this.node);
        return;
      }
      parts = [h("button", {
        type: "button", class: "primary rematch-offer", disabled: this.busy,
        title: t("A new game with the same seats and options, and a new deck"),
        onclick: () => this.playAgain(),
      }, t("Rematch"))];
    } else {
      const ready = this.game.players.filter((p) => p.kind === "human" && p.taken).map((p) => p.name);
      const waiting = this.game.players.filter((p) => p.kind === "human" && !p.taken).map((p) => p.name);
      const words = waiting.length
        ? tn("Rematch offered: {players} is in; waiting for {waiting}.", "Rematch offered: {players} are in; waiting for {waiting}.",
          ready.length, { players: listing(ready), waiting: listing(waiting) })
        : t("The rematch has started.");
      parts = [h("p", { class: "rematch-words" }, words)];
      const mine = Object.keys(tokens.forGame(this.game.id)).length > 0;
      const free = this.seats.some((seat) => {
        const player = this.game.players[seat];
        return player && player.kind === "human" && !player.taken;
      });
      if (free && !mine) {
        parts.push(h("button", {
          type: "button", class: "primary rematch-take", disabled: this.busy, onclick: () => this.playAgain(),
        }, t("Take your seat in the rematch")));
      } else {
        parts.push(link(mine ? t("Go to the rematch") : t("Watch the rematch")));
      }
    }
    clear(this.node, ...parts);
    this.node.hidden = false;
  }
}
