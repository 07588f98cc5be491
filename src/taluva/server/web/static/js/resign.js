// Leaving a game: the resign button (with a confirmation) for a player still in a live game,
// and the host's cancel button for a game that has not started.

import { h, clear } from "./dom.js";

const HOSTS_KEY = "taluva.hosts";

/** Host tokens this browser holds, by game: only the game's creator gets one. */
export const hosts = {
  get(gameId) {
    try {
      return JSON.parse(localStorage.getItem(HOSTS_KEY) || "{}")[gameId] || null;
    } catch {
      return null;
    }
  },
  add(gameId, token) {
    let all = {};
    try {
      all = JSON.parse(localStorage.getItem(HOSTS_KEY) || "{}");
    } catch {
      all = {};
    }
    all[gameId] = token;
    localStorage.setItem(HOSTS_KEY, JSON.stringify(all));
  },
};

/** Words for a player leaving: "Ben resigned", "Ben ran out of time". */
export function leftInWords(name, reason) {
  return reason === "timeout" ? `${name} ran out of time` : `${name} resigned`;
}

export class LeaveControls {
  constructor(gameId, send) {
    this.gameId = gameId;
    this.send = send;
    this.confirming = null; // "resign" | "cancel"
    this.node = h("div", { class: "leave" });
  }

  /** The seat this browser would resign: the one to move if it is ours, else our first still in. */
  seatToResign(state, seats) {
    const still = seats.filter((seat) => !state.players[seat]?.eliminated);
    if (still.includes(state.to_move)) return state.to_move;
    return still.length ? still[0] : null;
  }

  update(state, seats) {
    this.state = state;
    this.seats = seats;
    const seat = state.status === "live" ? this.seatToResign(state, seats) : null;
    const host = state.status === "open" ? hosts.get(this.gameId) : null;
    if (seat === null && !host) {
      this.confirming = null;
      clear(this.node);
      return;
    }
    const action = seat !== null ? "resign" : "cancel";
    if (this.confirming !== action) this.confirming = null;
    const name = seat !== null ? state.players[seat].name : "";
    if (!this.confirming) {
      const label = action === "resign" ? (seats.length > 1 ? `Resign (${name})` : "Resign") : "Cancel game";
      clear(this.node, h("button", {
        type: "button", class: `leave-${action}`, onclick: () => { this.confirming = action; this.update(state, seats); },
      }, label));
      return;
    }
    const question = action === "resign"
      ? `Resign ${seats.length > 1 ? name + "'s seat" : "this game"}? You will be out of the game.`
      : "Cancel this game? It leaves the lobby for good.";
    const yes = h("button", {
      type: "button", class: "danger confirm-leave",
      onclick: () => {
        this.confirming = null;
        if (action === "resign") this.send({ type: "resign", seat });
        else this.send({ type: "cancel", host_token: host });
        this.update(state, seats);
      },
    }, action === "resign" ? "Yes, resign" : "Yes, cancel it");
    const no = h("button", { type: "button", onclick: () => { this.confirming = null; this.update(state, seats); } },
      action === "resign" ? "Keep playing" : "Keep the game");
    clear(this.node, h("div", { class: "confirm", role: "alertdialog", "aria-label": question },
      h("p", {}, question), yes, no));
    yes.focus();
  }
}
