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
  /** `abortTurns`: the first turns in which a player may abort the game (/api/config). */
  constructor(gameId, send, abortTurns = 0) {
    this.gameId = gameId;
    this.send = send;
    this.abortTurns = abortTurns;
    this.confirming = null; // "resign" | "cancel" | "abort"
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
    const actions = seat !== null ? ["resign"] : ["cancel"];
    if (seat !== null && state.ply < 2 * this.abortTurns) actions.push("abort");
    if (!actions.includes(this.confirming)) this.confirming = null;
    const name = seat !== null ? state.players[seat].name : "";
    const ask = (action) => () => { this.confirming = action; this.update(state, seats); };
    if (!this.confirming) {
      const labels = {
        resign: seats.length > 1 ? `Resign (${name})` : "Resign",
        cancel: "Cancel game",
        abort: "Abort game",
      };
      clear(this.node, ...actions.map((action) =>
        h("button", { type: "button", class: `leave-${action}`, onclick: ask(action) }, labels[action])));
      return;
    }
    const action = this.confirming;
    const questions = {
      resign: `Resign ${seats.length > 1 ? name + "'s seat" : "this game"}? You will be out of the game.`,
      cancel: "Cancel this game? It leaves the lobby for good.",
      abort: "Abort this game? It ends with no result, and no rating changes.",
    };
    const messages = {
      resign: { type: "resign", seat },
      cancel: { type: "cancel", host_token: host },
      abort: { type: "abort" },
    };
    const yes = h("button", {
      type: "button", class: "danger confirm-leave",
      onclick: () => {
        this.confirming = null;
        this.send(messages[action]);
        this.update(state, seats);
      },
    }, { resign: "Yes, resign", cancel: "Yes, cancel it", abort: "Yes, abort it" }[action]);
    const no = h("button", { type: "button", onclick: () => { this.confirming = null; this.update(state, seats); } },
      action === "cancel" ? "Keep the game" : "Keep playing");
    clear(this.node, h("div", { class: "confirm", role: "alertdialog", "aria-label": questions[action] },
      h("p", {}, questions[action]), yes, no));
    yes.focus();
  }
}
